"""DLPack exchange with NumPy, PyTorch and JAX, both ways, zero-copy where the libraries allow it (same buffer
address), and the boundary to NumPy refusing tensors that require grad (PyTorch's error), instead of dropping the
graph silently."""
import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

DETACH = r"Can't call numpy\(\) on Tensor that requires grad. Use tensor.detach\(\).numpy\(\) instead."


def _address(obj):
    """Where an array's first element lives."""
    if isinstance(obj, xt.Tensor):
        obj = obj._value
    if isinstance(obj, np.ndarray):
        return obj.ctypes.data
    if isinstance(obj, torch.Tensor):
        return obj.data_ptr()
    return obj.unsafe_buffer_pointer()


def _aligned_arange(n):
    """``np.arange(n.0)`` in memory aligned to 64 bytes: XLA imports only aligned host memory without a copy (numpy's
    own allocations are aligned to 16)."""
    buffer = np.empty(n + 8)
    start = (-buffer.ctypes.data % 64) // 8
    a = buffer[start:start + n]
    a[:] = np.arange(n)
    return a


def _sources():
    return {"numpy": _aligned_arange(8), "torch": torch.arange(8.0, dtype=torch.float64), "jax": jnp.arange(8.0)}


@pytest.mark.parametrize("backend_name", ["numpy", "jax"])
@pytest.mark.parametrize("source", ["numpy", "torch", "jax"])
def test_from_dlpack_shares_the_producers_memory(backend_name, source):
    producer = _sources()[source]
    with xt.use_backend(backend_name):
        t = xa.from_dlpack(producer)
    assert t.backend == backend_name and t.dtype == xt.float64
    assert _address(t) == _address(producer)
    np.testing.assert_array_equal(t.tolist(), np.arange(8.0))


@pytest.mark.parametrize("backend_name, consumer", [
    ("numpy", "numpy"), ("numpy", "torch"), ("numpy", "jax"), ("jax", "numpy"), ("jax", "torch"), ("jax", "jax")])
def test_consumers_of_a_tensor_share_its_memory(backend_name, consumer):
    x = xt.from_numpy(_aligned_arange(8)).to(backend_name) if backend_name == "numpy" else \
        xt.arange(8.0, dtype=xt.float64, backend=backend_name)
    imported = {"numpy": np.from_dlpack, "torch": torch.from_dlpack, "jax": jnp.from_dlpack}[consumer](x)
    assert _address(imported) == _address(x)
    np.testing.assert_array_equal(np.asarray(imported), np.arange(8.0))


def test_writes_through_numpy_and_torch_are_seen_by_the_numpy_backed_tensor():
    x = xt.zeros(4, dtype=xt.float64)
    np.from_dlpack(x)[0] = 1.0
    torch.from_dlpack(x)[1] = 2.0
    assert x.tolist() == [1.0, 2.0, 0.0, 0.0]
    shared = np.zeros(3)
    t = xa.from_dlpack(shared)
    t[2] = 5.0
    assert shared[2] == 5.0


@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda t: t.numpy(), lambda t: t.__array__(),
                                     lambda t: np.asarray(t, dtype=np.float32)],
                         ids=["np.asarray", "np.array", "numpy()", "__array__", "np.asarray(dtype)"])
def test_converting_a_tensor_that_requires_grad_to_numpy_raises_as_pytorch(backend, convert):
    with pytest.raises(RuntimeError, match=DETACH):
        convert(torch.ones(3, requires_grad=True) * 2)
    for t in (xt.ones(3, requires_grad=True), xt.ones(3, requires_grad=True) * 2):
        with pytest.raises(RuntimeError, match=DETACH):
            convert(t)


def test_detached_tensor_converts_to_numpy(backend):
    x = xt.ones(3, requires_grad=True) * 2
    np.testing.assert_array_equal(np.asarray(x.detach()), [2.0, 2.0, 2.0])
    assert np.asarray(xt.ones(2)).tolist() == [1.0, 1.0]


def test_dlpack_export_of_a_tensor_that_requires_grad_raises_as_pytorch():
    def error(m):
        with pytest.raises(Exception) as e:
            np.from_dlpack(m.ones(3, requires_grad=True))
        return type(e.value), str(e.value)

    assert error(xt) == error(torch) == (BufferError, "Can't export tensors that require gradient, use tensor.detach()")
