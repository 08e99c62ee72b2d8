"""On jax, an eager unary op or whole-tensor reduction runs its forward as one cached ``jax.jit`` program per op
(``_dispatch.kernel_forward``): the same values as ``jax.numpy``, compiled once per signature, plain primitives inside
an outer trace, and the plain forward where the forward cannot compile."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import xtensor as t  # noqa: E402
from xtensor._dispatch import Op, apply  # noqa: E402
from xtensor._table import TABLE  # noqa: E402
from xtensor.ops.reductions import _SUM  # noqa: E402


@pytest.fixture
def on_jax():
    with t.use_backend("jax"):
        yield


def _values():
    return np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("spell", [lambda x: x.exp(), lambda x: t.exp(x)], ids=["method", "function"])
def test_exp_is_jax_numpys_exp_bit_for_bit(on_jax, spell):
    np.testing.assert_array_equal(spell(t.tensor(_values())).numpy(), np.asarray(jnp.exp(jnp.asarray(_values()))))


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_whole_reduction_is_jax_numpys(on_jax, reduce):
    x = t.tensor(_values())
    got = getattr(x, reduce)()
    assert got.shape == () and got.dtype == t.float32
    np.testing.assert_array_equal(got.numpy(), np.asarray(getattr(jnp, reduce)(jnp.asarray(_values()))))


def test_compiled_forward_records_the_same_gradient(on_jax):
    x = t.tensor(_values(), requires_grad=True)
    x.exp().sigmoid().sum().backward()
    expected = jax.grad(lambda a: jax.nn.sigmoid(jnp.exp(a)).sum())(jnp.asarray(_values()))
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(expected), rtol=1e-6)
    assert type(x.grad._value) is type(jnp.zeros(1))


def test_an_ops_kernel_compiles_once_per_shape(on_jax):
    x, y = t.tensor(_values()), t.tensor(_values()[:2])
    x.tanh(), x.sum()
    tanh_kernel, result_dtype = TABLE["tanh"].op._kernels[t.float32]
    sum_kernel, _ = _SUM._kernels[(t.float32, (0, 1))]  # (keyed by the rank's dims)
    tanh_programs, sum_programs = tanh_kernel._cache_size(), sum_kernel._cache_size()
    for _ in range(3):
        x.tanh(), x.sum(), x.sum()
    assert result_dtype is t.float32
    assert (tanh_kernel._cache_size(), sum_kernel._cache_size()) == (tanh_programs, sum_programs)
    y.tanh()  # another shape: one more program at most (none if another test compiled it first)
    assert tanh_kernel._cache_size() <= tanh_programs + 1


def test_inside_an_outer_trace_the_ops_stay_primitives(on_jax):
    jaxpr = jax.make_jaxpr(lambda a: t.tensor(a).exp().sum()._value)(jnp.asarray(_values()))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["exp", "reduce_sum"]


def test_a_forward_that_reads_values_on_the_host_keeps_the_plain_forward(on_jax):
    scaled = Op("scaled_by_host_max", lambda xp, a: a / float(xp.max(a)), differentiable=False)
    x = t.tensor(_values())
    np.testing.assert_allclose(apply(scaled, (x,)).numpy(), _values() / 2.0)
    kernel, _ = scaled._kernels[t.float32]
    assert not hasattr(kernel, "lower")  # not a jax.jit: the forward itself
    np.testing.assert_allclose(apply(scaled, (x * 2,)).numpy(), _values() / 2.0)


def test_results_made_in_inference_mode_are_inference_tensors(on_jax):
    x = t.tensor(_values())
    with t.inference_mode():
        assert x.exp().is_inference() and x.sum().is_inference()


# -- the jax namespace's functions that bind several primitives (adapters/jax.py, _STATIC_KERNELS) ------------------
def _xp():
    return t.get_backend("jax").xp


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.where(a > 0, a, 0.0),  # a Python scalar operand: weakly typed, as jnp's eager call
    lambda xp, a: xp.zeros_like(a),
    lambda xp, a: xp.full_like(a, 2.5),
    lambda xp, a: xp.expand_dims(a, axis=1),
    lambda xp, a: xp.reshape(a, (4, 3)),
    lambda xp, a: xp.broadcast_to(a[None], (2, 3, 4)),
    lambda xp, a: xp.permute_dims(a, (1, 0)),
    lambda xp, a: xp.take_along_axis(a, jnp.asarray([[0], [3], [1]]), axis=1),
    lambda xp, a: xp.astype(a, jnp.float64),
    lambda xp, a: xp.maximum(a, 1),
], ids=["where", "zeros_like", "full_like", "expand_dims", "reshape", "broadcast_to", "permute_dims",
        "take_along_axis", "astype", "maximum"])
def test_compiled_namespace_function_is_jax_numpys(call):
    a = jnp.asarray(_values())
    got, expected = call(_xp(), a), call(jnp, a)
    assert got.dtype == expected.dtype and got.weak_type == expected.weak_type
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def test_compiled_namespace_function_falls_back_where_jit_cannot_take_the_call():
    a = jnp.asarray(_values())
    np.testing.assert_array_equal(np.asarray(_xp().reshape(a, [2, 6])), np.asarray(a).reshape(2, 6))  # a list
    (rows, cols), = [_xp().where(a > 1.5)]  # one argument: a data-dependent shape
    np.testing.assert_array_equal(np.asarray(rows), np.nonzero(np.asarray(a) > 1.5)[0])
    jaxpr = jax.make_jaxpr(lambda v: _xp().zeros_like(v))(a)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["broadcast_in_dim"]  # a tracer: jnp's primitives


def test_relu_gradient_through_the_compiled_where(on_jax):
    x = t.tensor(_values(), requires_grad=True)
    (x.relu() * x).sum().backward()
    expected = jax.grad(lambda a: (jax.nn.relu(a) * a).sum())(jnp.asarray(_values()))
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(expected), rtol=1e-6)


def test_compiled_namespace_function_keeps_one_program_per_static_part():
    squeeze = _xp().squeeze
    programs = squeeze.__closure__[squeeze.__code__.co_freevars.index("programs")].cell_contents
    a, b = jnp.ones((3, 1, 2)), jnp.ones((5, 1, 4))
    squeeze(a, axis=1), squeeze(b, axis=1), squeeze(a[:, :, :1], axis=2)
    by_axis = programs[(1, (), (("axis", 1),))], programs[(1, (), (("axis", 2),))]  # one per static part
    compiled = [program._cache_size() for program in by_axis]
    for _ in range(3):
        squeeze(a, axis=1), squeeze(b, axis=1), squeeze(a[:, :, :1], axis=2)
    assert [program._cache_size() for program in by_axis] == compiled  # nothing recompiled
