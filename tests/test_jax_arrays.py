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


# -- the jax backend's namespace: binary arithmetic and reductions through cached jax.jit kernels -------------------
KERNEL_OPERANDS = {
    "float32": (np.linspace(-2, 3, 12, dtype=np.float32).reshape(3, 4),
                np.float32(0.7) + np.arange(4, dtype=np.float32)),
    "int32": (np.arange(-6, 6, dtype=np.int32).reshape(3, 4), np.array([3, -2, 5, 7], dtype=np.int32)),
    "int64": (np.arange(12, dtype=np.int64).reshape(3, 4) * 10**12, np.int64(-3)),
    "uint8": (np.arange(250, 262, dtype=np.int64).astype(np.uint8).reshape(3, 4), np.uint8(9)),
    "bool": (np.array([[True, False], [False, True]]), np.array([True, True])),
    "python int": (np.arange(6, dtype=np.int32).reshape(2, 3), 3),
    "python float": (np.arange(6, dtype=np.float32).reshape(2, 3), 0.1),
    "python bool": (np.array([1, 2], dtype=np.uint8), True),
    "python int first": (7, np.arange(1, 7, dtype=np.int16).reshape(2, 3)),
}


def _same_array(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape and getattr(got, "weak_type", None) == want.weak_type
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), strict=True)


def _as_jax(v):
    return jnp.asarray(v) if isinstance(v, np.ndarray | np.generic) else v


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
@pytest.mark.parametrize("operands", KERNEL_OPERANDS.values(), ids=KERNEL_OPERANDS.keys())
def test_jax_namespace_binary_kernels_match_jax_numpy_in_values_dtypes_and_weak_types(name, operands):
    kernels = t.get_backend("jax").xp
    x, y = map(_as_jax, operands)
    if name == "subtract" and getattr(x, "dtype", None) == jnp.bool_:
        with pytest.raises(TypeError):  # jnp's own refusal, unchanged
            kernels.subtract(x, y)
        return
    _same_array(getattr(kernels, name)(x, y), getattr(jnp, name)(x, y))
    _same_array(jax.jit(getattr(kernels, name))(x, y), jax.jit(getattr(jnp, name))(x, y))  # traced: plain jnp


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("axis, keepdims", [(None, False), ((0, 2), True), (1, False), ((), False)])
def test_jax_namespace_reduction_kernels_match_jax_numpy(name, dtype, axis, keepdims):
    kernels = t.get_backend("jax").xp
    x = jnp.asarray(np.random.default_rng(0).normal(size=(3, 5, 7)) * 100).astype(dtype)
    _same_array(getattr(kernels, name)(x, axis=axis, keepdims=keepdims),
                getattr(jnp, name)(x, axis=axis, keepdims=keepdims))
    traced = jax.jit(lambda a: getattr(kernels, name)(a, axis=axis, keepdims=keepdims))(x)
    _same_array(traced, getattr(jnp, name)(x, axis=axis, keepdims=keepdims))


def test_jax_namespace_sum_kernel_takes_a_dtype():
    x = jnp.arange(5, dtype=jnp.int8)
    _same_array(t.get_backend("jax").xp.sum(x, axis=None, dtype=jnp.int64), jnp.sum(x, dtype=jnp.int64))


def test_jax_namespace_kernels_leave_no_nested_program_in_a_trace():
    kernels = t.get_backend("jax").xp
    jaxpr = jax.make_jaxpr(lambda a, b: kernels.sum(kernels.add(a, b), axis=None))(jnp.ones(3), jnp.ones(3))
    assert [e.primitive.name for e in jaxpr.eqns] == ["add", "reduce_sum"]


@pytest.mark.parametrize("dtype, other, want", [
    ("int32", 1, "int32"), ("int32", 2.5, "float32"), ("uint8", -1, "uint8"), ("int16", True, "int16"),
    ("float16", 3.0, "float16"), ("bool", True, "bool"), ("bool", 2, "int64"), ("float64", 1j, "complex128"),
    ("uint64", 5, "uint64"),
], ids=str)
def test_tensor_with_python_scalar_keeps_pytorch_result_dtype_and_numpy_backend_values_on_jax(dtype, other, want):
    expressions = [lambda x: x + other, lambda x: other + x, lambda x: x * other]
    if dtype != "bool" and other is not True:  # PyTorch refuses to subtract bools
        expressions.append(lambda x: x - other)
    for expression in expressions:
        on_jax, on_numpy = (expression(t.arange(3, backend=b).to(getattr(t, dtype))) for b in ("jax", "numpy"))
        assert on_jax.backend == "jax" and on_jax.dtype == getattr(t, want) == on_numpy.dtype
        np.testing.assert_array_equal(on_jax.numpy(), on_numpy.numpy(), strict=True)
