"""xtensor.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp on every backend.

Values are checked against jax (jax.vjp, jax.jvp, jax.jacfwd, jax.hessian); structure, flags and
errors against torch.autograd.functional.
"""
import numpy as np
import pytest

import xtensor as t

jax = pytest.importorskip("jax")
jnp = jax.numpy
F = t.autograd.functional

XV = np.array([0.3, -0.2, 0.5])
YV = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]])


def _np(x):
    return np.asarray(x.tolist(), dtype=float)


def _close(ours, expected):
    np.testing.assert_allclose(_np(ours), np.asarray(expected), rtol=1e-10, atol=1e-12)


def pair(m, x, y):
    """Two inputs, two outputs of different shapes."""
    return m.exp(x) * y, (x * y).sum() ** 2


def scalar(m, x):
    return (x ** 3).sum() * x[0]


def _xy():
    return t.tensor(XV, dtype=t.float64), t.tensor(YV, dtype=t.float64)


def test_vjp_matches_jax(backend):
    v = (t.ones(2, 3, dtype=t.float64) * 0.5, t.tensor(2.0, dtype=t.float64))
    out, (gx, gy) = F.vjp(lambda x, y: pair(t, x, y), _xy(), v)
    jout, pullback = jax.vjp(lambda x, y: pair(jnp, x, y), jnp.array(XV), jnp.array(YV))
    jgx, jgy = pullback((jnp.full((2, 3), 0.5), jnp.array(2.0)))
    _close(out[0], jout[0])
    _close(gx, jgx)
    _close(gy, jgy)


def test_vjp_of_scalar_output_needs_no_v(backend):
    out, g = F.vjp(lambda x: scalar(t, x), t.tensor(XV, dtype=t.float64))
    _close(g, jax.grad(lambda x: scalar(jnp, x))(jnp.array(XV)))
    assert isinstance(g, t.Tensor)


def test_vjp_without_v_of_non_scalar_output_raises(backend):
    with pytest.raises(RuntimeError, match="The vector v can only be None if"):
        F.vjp(lambda x: x * 2, t.ones(3))


def test_vjp_with_v_of_wrong_shape_raises(backend):
    with pytest.raises(RuntimeError, match=r"Entry 0 in v has invalid size: should be \[3\] but got \[2\]"):
        F.vjp(lambda x: x * 2, t.ones(3), t.ones(2))


def test_jvp_matches_jax(backend):
    tangents = (t.tensor([1.0, 0.0, 2.0], dtype=t.float64), t.ones(2, 3, dtype=t.float64))
    out, (j0, j1) = F.jvp(lambda x, y: pair(t, x, y), _xy(), tangents)
    _, (e0, e1) = jax.jvp(lambda x, y: pair(jnp, x, y), (jnp.array(XV), jnp.array(YV)),
                          (jnp.array([1.0, 0.0, 2.0]), jnp.ones((2, 3))))
    _close(j0, e0)
    _close(j1, e1)


def test_jacobian_of_tuple_function_matches_jax(backend):
    jac = F.jacobian(lambda x, y: pair(t, x, y), _xy())
    expected = jax.jacfwd(lambda x, y: pair(jnp, x, y), argnums=(0, 1))(jnp.array(XV), jnp.array(YV))
    for i in range(2):
        for j in range(2):
            assert tuple(jac[i][j].shape) == expected[i][j].shape
            _close(jac[i][j], expected[i][j])


def test_jacobian_of_single_input_single_output_is_a_tensor(backend):
    jac = F.jacobian(lambda x: t.sin(x) * x, t.tensor(XV, dtype=t.float64))
    assert isinstance(jac, t.Tensor) and tuple(jac.shape) == (3, 3)
    _close(jac, jax.jacfwd(lambda x: jnp.sin(x) * x)(jnp.array(XV)))


def test_jacobian_nesting_as_torch(backend):
    torch = pytest.importorskip("torch")

    def shape_of(r):
        return tuple(shape_of(e) for e in r) if isinstance(r, tuple) else tuple(r.shape)

    for fn, args in [(lambda x: x * 2, (XV,)), (lambda x, y: (x * y).sum(1), (XV, YV)),
                     (lambda x: (x * 2, x.sum()), (XV,))]:
        ours = F.jacobian(fn, tuple(t.tensor(a) for a in args) if len(args) > 1 else t.tensor(args[0]))
        theirs = torch.autograd.functional.jacobian(
            fn, tuple(torch.tensor(a) for a in args) if len(args) > 1 else torch.tensor(args[0]))
        assert shape_of(ours) == shape_of(theirs)


def test_jacobian_of_unused_input_is_zeros_and_strict_raises(backend):
    x, y = _xy()
    _, jy = F.jacobian(lambda a, b: a * 2, (x, y))
    assert tuple(jy.shape) == (3, 2, 3) and not _np(jy).any()
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.jacobian(lambda a, b: a * 2, (x, y), strict=True)


def test_hessian_matches_jax(backend):
    h = F.hessian(lambda x: scalar(t, x), t.tensor(XV, dtype=t.float64))
    _close(h, jax.hessian(lambda x: scalar(jnp, x))(jnp.array(XV)))


def test_hessian_of_two_inputs_gives_blocks(backend):
    h = F.hessian(lambda x, y: (x * x * y).sum(), _xy())
    expected = jax.hessian(lambda x, y: (x * x * y).sum(), argnums=(0, 1))(jnp.array(XV), jnp.array(YV))
    for i in range(2):
        for j in range(2):
            _close(h[i][j], expected[i][j])


def test_hessian_of_non_scalar_function_raises(backend):
    with pytest.raises(RuntimeError, match="single Tensor with a single element"):
        F.hessian(lambda x: x * 2, t.ones(2))


def test_hvp_and_vhp_match_jax(backend):
    v = t.tensor([1.0, -1.0, 0.5], dtype=t.float64)
    _, hv = F.hvp(lambda x: scalar(t, x), t.tensor(XV, dtype=t.float64), v)
    _, vh = F.vhp(lambda x: scalar(t, x), t.tensor(XV, dtype=t.float64), v)
    expected = jax.hessian(lambda x: scalar(jnp, x))(jnp.array(XV)) @ jnp.array([1.0, -1.0, 0.5])
    _close(hv, expected)
    _close(vh, expected)


def test_results_carry_no_graph_and_inputs_are_untouched(backend):
    x = t.tensor(XV, requires_grad=True)
    out, g = F.vjp(lambda a: (a * a).sum(), x)
    jac = F.jacobian(lambda a: a * a, x)
    assert not (out.requires_grad or g.requires_grad or jac.requires_grad)
    assert x.grad is None


def test_create_graph_lets_the_result_be_differentiated(backend):
    x = t.tensor(XV, dtype=t.float64, requires_grad=True)
    _, g = F.vjp(lambda a: (a ** 3).sum(), x, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), x)
    _close(h, 6 * XV)


def test_non_tensor_input_raises_type_error(backend):
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.jacobian(lambda a: a, [1.0, 2.0])
