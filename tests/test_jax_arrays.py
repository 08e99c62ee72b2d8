"""jax arrays in, tensors out: on the jax backend the creation functions wrap a jax array (concrete or
traced under jax.jit) where it lives, never through the host."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import xtensor as t  # noqa: E402
from xtensor import array_api as xp  # noqa: E402

MAKERS = {
    "tensor": lambda a: t.tensor(a),
    "as_tensor": lambda a: t.as_tensor(a),
    "from_dlpack": lambda a: t.from_dlpack(a),
    "array_api.asarray": lambda a: xp.asarray(a),
    "array_api.from_dlpack": lambda a: xp.from_dlpack(a),
}


@pytest.fixture
def on_jax():
    with t.use_backend("jax"):
        yield


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_concrete_jax_array_becomes_a_jax_tensor_over_the_same_device_buffer(on_jax, make):
    a = jnp.arange(4.0, dtype=jnp.float64).reshape(2, 2)
    with jax.transfer_guard("disallow"):
        x = make(a)
        assert x.backend == "jax" and x.dtype == t.float64 and x.shape == (2, 2)
    assert x._value.unsafe_buffer_pointer() == a.unsafe_buffer_pointer()  # immutable: sharing is a safe copy
    np.testing.assert_array_equal(x.numpy(), np.arange(4.0).reshape(2, 2))


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_traced_jax_array_becomes_a_tensor_inside_jit(on_jax, make):
    @jax.jit
    def double_sum(a):
        x = make(a)
        return (x * 2).sum()._value

    assert float(double_sum(jnp.asarray([1.0, 2.0, 3.0]))) == 12.0


def test_tensor_of_a_jax_array_converts_dtype_on_the_device(on_jax):
    a = jnp.asarray([1.5, -2.5], dtype=jnp.float64)
    with jax.transfer_guard("disallow"):
        x = t.tensor(a, dtype=t.int32)
    assert x.dtype == t.int32 and x.tolist() == t.tensor(np.array([1.5, -2.5]), dtype=t.int32).tolist()


def test_tensor_of_a_traced_array_takes_gradients_inside_jit(on_jax):
    @jax.jit
    def grad_of_cube(a):
        x = t.tensor(a, requires_grad=True)
        (x ** 3).sum().backward()
        return x.grad._value

    np.testing.assert_allclose(np.asarray(grad_of_cube(jnp.asarray([1.0, 2.0]))), [3.0, 12.0])


def test_writing_the_tensor_leaves_the_jax_array_unchanged(on_jax):
    a = jnp.zeros(3)
    x = t.as_tensor(a)
    x[0] = 5
    assert x.tolist() == [5.0, 0.0, 0.0] and np.asarray(a).tolist() == [0.0, 0.0, 0.0]


def test_asarray_copy_false_shares_a_jax_array_and_refuses_a_dtype_change(on_jax):
    a = jnp.ones(2, dtype=jnp.float32)
    assert xp.asarray(a, copy=False).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="float32 to xtensor.float64 needs a copy"):
        xp.asarray(a, dtype=xp.float64, copy=False)


def test_traced_array_on_a_host_backend_raises_a_clear_error():
    @jax.jit
    def on_numpy(a):
        return t.tensor(a, backend="numpy")._value

    with pytest.raises(RuntimeError, match="traced jax array.*make the tensor on the jax backend"):
        on_numpy(jnp.ones(2))
