"""xtensor.special (PyTorch's names) and xtensor.array_api.special (SciPy's names) on every backend: values against
torch.special and scipy.special, gradients against PyTorch's and jax's, differentiability and errors as PyTorch's.
The first- and second-order VJPs of every differentiable function are also checked against jax.vjp by
``xtensor gradcheck`` (conformance/gradcheck_specs.py; the CI subset is test_special_vjps_match_jax below)."""
import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa
from conformance import gradcheck

torch = pytest.importorskip("torch")
scipy_special = pytest.importorskip("scipy.special")

REAL = np.array([-2.5, -1.2, -0.3, 0.4, 1.1, 2.7, 6.0])
POS = np.array([0.2, 0.7, 1.3, 2.9, 5.5, 12.0])
PROB = np.array([0.02, 0.3, 0.5, 0.77, 0.98])

# name in xtensor.special (= torch.special), its inputs
UNARY = {
    "erf": REAL, "erfc": REAL, "erfinv": 2 * PROB - 1, "erfcx": REAL, "expit": REAL, "logit": PROB, "gammaln": POS,
    "digamma": POS, "psi": POS, "i0": REAL, "i0e": REAL, "i1": REAL, "i1e": REAL, "ndtr": REAL, "ndtri": PROB,
    "log_ndtr": np.array([-30.0, -5.0, -1.0, 0.0, 2.0, 9.0]), "sinc": np.append(REAL, 0.0),
    "entr": np.array([-1.0, 0.0, 0.3, 1.0, 4.0]), "exp2": REAL, "expm1": REAL, "log1p": POS, "round": REAL,
    "bessel_j0": REAL, "bessel_j1": REAL, "bessel_y0": POS, "bessel_y1": POS, "modified_bessel_i0": REAL,
    "modified_bessel_i1": REAL, "modified_bessel_k0": POS, "modified_bessel_k1": POS,
    "scaled_modified_bessel_k0": POS, "scaled_modified_bessel_k1": POS, "spherical_bessel_j0": np.append(REAL, 0.0),
    "airy_ai": REAL[1:],
}
# PyTorch's kernels that are less accurate than SciPy's (the SciPy spellings are checked to 1e-9 against SciPy):
# airy_ai to 2e-6 at -2.5, the Bessel functions j0/j1/y0/y1 to 4e-7 (absolute) beyond 5.
TORCH_TOL = {"airy_ai": 1e-6, "bessel_j0": 1e-6, "bessel_j1": 1e-6, "bessel_y0": 1e-6, "bessel_y1": 1e-6}
NOT_DIFFERENTIABLE = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
                      "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                      "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai"]
POLYNOMIALS = [name for name in xt.special.__all__ if name.endswith("_polynomial_" + name[-1])]
# SciPy's name in xtensor.array_api.special -> (scipy function, inputs)
SCIPY_UNARY = {"entr": UNARY["entr"], "erf": REAL, "erfc": REAL, "erfinv": 2 * PROB - 1, "erfcx": REAL,
               "expit": REAL, "logit": PROB, "log_expit": REAL, "gammaln": POS, "psi": POS, "digamma": POS, "i0": REAL,
               "i0e": REAL, "i1": REAL, "i1e": REAL, "j0": REAL, "j1": REAL, "y0": POS, "y1": POS, "k0": POS,
               "k0e": POS, "k1": POS, "k1e": POS, "ndtr": REAL, "ndtri": PROB, "log_ndtr": UNARY["log_ndtr"],
               "sinc": UNARY["sinc"], "exp2": REAL, "expm1": REAL, "log1p": POS}


def _torch(a):
    return torch.tensor(a, dtype=torch.float64)


def _assert_close(actual, expected, backend, rtol=1e-12, atol=1e-13):
    assert isinstance(actual, xt.Tensor) and actual.backend == backend
    np.testing.assert_allclose(np.asarray(actual.detach().cpu().tolist()), np.asarray(expected), rtol=rtol,
                               atol=atol, equal_nan=True)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_torch(backend, name):
    x = UNARY[name]
    expected = getattr(torch.special, name)(_torch(x)).numpy()
    _assert_close(getattr(xt.special, name)(xt.tensor(x, dtype=xt.float64)), expected, backend,
                  rtol=TORCH_TOL.get(name, 1e-9), atol=TORCH_TOL.get(name, 1e-13))


@pytest.mark.parametrize("name", sorted(SCIPY_UNARY))
def test_scipy_spelling_matches_scipy(backend, name):
    x = SCIPY_UNARY[name]
    expected = getattr(scipy_special, name)(x)
    _assert_close(getattr(xa.special, name)(xa.asarray(x, dtype=xa.float64)), expected, backend, rtol=1e-9)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "gammainc", "gammaincc"])
def test_binary_scipy_spelling_matches_scipy(backend, name):
    x, y = np.array([0.0, 0.5, 1.5, 3.0, 2.0]), np.array([0.3, 0.0, 2.0, 0.7, 1.0])
    expected = getattr(scipy_special, name)(x, y)
    _assert_close(getattr(xa.special, name)(xa.asarray(x), xa.asarray(y)), expected, backend, rtol=1e-10)
    _assert_close(getattr(xa.special, name)(xa.asarray(x), 2.0), getattr(scipy_special, name)(x, 2.0), backend,
                  rtol=1e-10)


def test_parametrized_scipy_spellings_match_scipy(backend):
    x = xa.asarray(POS)
    _assert_close(xa.special.polygamma(2, x), scipy_special.polygamma(2, POS), backend)
    orders = np.array([0, 1, 2, 1, 3, 0])
    _assert_close(xa.special.polygamma(xa.asarray(orders), x), scipy_special.polygamma(orders, POS), backend)
    _assert_close(xa.special.multigammaln(x + 2, 3), scipy_special.multigammaln(POS + 2, 3), backend)
    _assert_close(xa.special.zeta(x + 1.5), scipy_special.zeta(POS + 1.5), backend)
    _assert_close(xa.special.zeta(x + 1.5, 2.5), scipy_special.zeta(POS + 1.5, 2.5), backend)


def test_scipy_softmax_family_matches_scipy(backend):
    a = np.array([[0.3, -1.2, 2.0], [4.0, 0.5, -0.7]])
    x = xa.asarray(a)
    _assert_close(xa.special.softmax(x), scipy_special.softmax(a), backend)
    _assert_close(xa.special.log_softmax(x, axis=1), scipy_special.log_softmax(a, axis=1), backend)
    _assert_close(xa.special.logsumexp(x), scipy_special.logsumexp(a), backend)
    b = np.array([[1.0, -2.0, 0.5], [0.3, 1.0, 2.0]])
    value, sign = xa.special.logsumexp(x, axis=1, b=xa.asarray(b), return_sign=True)
    expected_value, expected_sign = scipy_special.logsumexp(a, axis=1, b=b, return_sign=True)
    _assert_close(value, expected_value, backend)
    _assert_close(sign, expected_sign, backend)
    _assert_close(xa.special.logsumexp(x, axis=0, b=xa.asarray(b), keepdims=True),
                  scipy_special.logsumexp(a, axis=0, b=b, keepdims=True), backend)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "gammainc", "gammaincc", "zeta"])
def test_binary_matches_torch(backend, name):
    x, y = np.array([0.0, 0.5, 1.5, 3.0, 2.0]), np.array([0.3, 0.1, 2.0, 0.7, 1.0])
    if name == "zeta":
        x = x + 1.5
    expected = getattr(torch.special, name)(_torch(x), _torch(y)).numpy()
    _assert_close(getattr(xt.special, name)(xt.tensor(x), xt.tensor(y)), expected, backend, rtol=1e-10)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_matches_torch(backend, name):
    x = np.array([-1.5, -0.5, 0.0, 0.3, 0.5, 1.0, 2.5])
    n = np.array([-1, 0, 1, 2, 3, 7, 12])
    f, ours = getattr(torch.special, name), getattr(xt.special, name)
    for n_torch, n_ours in ((3, 3), (2.7, 2.7), (_torch(n), xt.tensor(n, dtype=xt.float64))):
        _assert_close(ours(xt.tensor(x), n_ours), f(_torch(x), n_torch).numpy(), backend, rtol=1e-10)


def test_gamma_family_with_parameters_matches_torch(backend):
    x = POS + 2
    _assert_close(xt.special.polygamma(3, xt.tensor(x)), torch.special.polygamma(3, _torch(x)).numpy(), backend)
    _assert_close(xt.tensor(x).polygamma(2), _torch(x).polygamma(2).numpy(), backend)
    for p in (1, 2, 5):
        _assert_close(xt.special.multigammaln(xt.tensor(x), p), torch.special.multigammaln(_torch(x), p).numpy(),
                      backend)


def test_softmax_family_matches_torch(backend):
    a = np.array([[0.3, -1.2, 2.0], [4.0, 0.5, -0.7]])
    for name in ("softmax", "log_softmax", "logsumexp"):
        _assert_close(getattr(xt.special, name)(xt.tensor(a), 1), getattr(torch.special, name)(_torch(a), 1).numpy(),
                      backend)


def _differentiable_cases():
    for name, x in UNARY.items():
        if name not in NOT_DIFFERENTIABLE and name not in ("entr", "round", "sinc", "ndtri"):
            yield name, (lambda ns, n=name: getattr(ns.special, n)), (x,)
    yield "entr", lambda ns: ns.special.entr, (POS,)
    yield "ndtri", lambda ns: ns.special.ndtri, (PROB,)
    yield "sinc", lambda ns: ns.special.sinc, (REAL,)
    yield "polygamma", lambda ns: lambda x: ns.special.polygamma(2, x), (POS,)
    yield "multigammaln", lambda ns: lambda x: ns.special.multigammaln(x, 3), (POS + 2,)
    yield "xlogy", lambda ns: ns.special.xlogy, (REAL, POS)
    yield "xlog1py", lambda ns: ns.special.xlog1py, (REAL, POS)


@pytest.mark.parametrize("name, fn, inputs", list(_differentiable_cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_gradient_and_node_match_torch(backend, name, fn, inputs):
    ours = [xt.tensor(a[:len(inputs[-1])], dtype=xt.float64, requires_grad=True) for a in inputs]
    theirs = [_torch(a[:len(inputs[-1])]).requires_grad_() for a in inputs]
    y, expected = fn(xt)(*ours), fn(torch)(*theirs)
    if name != "ndtr":  # PyTorch's C++ composite ends in mul(Tensor, Scalar), MulBackward1; Python's x * 0.5 is 0
        assert type(y.grad_fn).__name__ == type(expected.grad_fn).__name__
    weights = np.linspace(0.5, 1.5, len(inputs[-1]))
    (y * xt.tensor(weights)).sum().backward()
    (expected * _torch(weights)).sum().backward()
    for a, b in zip(ours, theirs):
        _assert_close(a.grad, b.grad.numpy(), backend, rtol=1e-9)


def test_sinc_gradient_at_zero_is_pytorchs(backend):
    x = xt.tensor([0.0, 1.0], dtype=xt.float64, requires_grad=True)
    xt.special.sinc(x).sum().backward()
    expected = _torch([0.0, 1.0]).requires_grad_()
    torch.special.sinc(expected).sum().backward()
    _assert_close(x.grad, expected.grad.numpy(), backend)


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE + POLYNOMIALS)
def test_functions_pytorch_does_not_differentiate_give_results_without_grad(backend, name):
    x = xt.tensor(POS, dtype=xt.float64, requires_grad=True)
    args = (x, 3) if name in POLYNOMIALS else (x,)
    expected = getattr(torch.special, name)(*((_torch(POS).requires_grad_(),) + args[1:]))
    assert getattr(xt.special, name)(*args).requires_grad is expected.requires_grad is False


def test_zeta_backward_raises_as_pytorch(backend):
    x = xt.tensor([2.0, 3.0], dtype=xt.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented."):
        xt.special.zeta(x, 1.5).sum().backward()


def test_incomplete_gamma_input_derivative_raises_as_pytorch(backend):
    a = xt.tensor([2.0, 3.0], dtype=xt.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not implemented."):
        xt.special.gammainc(a, xt.tensor([1.0, 2.0], dtype=xt.float64)).sum().backward()


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_gradient_matches_jax(backend, name):
    jax = pytest.importorskip("jax")
    a, x0 = np.array([0.7, 2.0, 3.5]), np.array([0.4, 1.5, 5.0])
    x = xt.tensor(x0, dtype=xt.float64, requires_grad=True)
    getattr(xt.special, name)(xt.tensor(a, dtype=xt.float64), x).sum().backward()
    expected = jax.grad(lambda v: getattr(jax.scipy.special, name)(a, v).sum())(x0)
    _assert_close(x.grad, np.asarray(expected), backend, rtol=1e-10)


def test_polygamma_method_and_inplace_follow_pytorch(backend):
    x = xt.tensor(POS, dtype=xt.float64)
    expected = _torch(POS).polygamma_(2).numpy()
    assert x.polygamma_(2) is x
    _assert_close(x, expected, backend)


def test_integer_input_computes_in_the_default_float_dtype(backend):
    ours = xt.special.i0e(xt.tensor([1, 2]))
    assert ours.dtype == xt.float32 and str(torch.special.i0e(torch.tensor([1, 2])).dtype) == "torch.float32"


@pytest.mark.parametrize("call, error, message", [
    (lambda ns, x: ns.special.polygamma(-1, x), RuntimeError, "polygamma(n, x) does not support negative n."),
    (lambda ns, x: ns.special.multigammaln(x, 0), RuntimeError, "p has to be greater than or equal to 1"),
])
def test_bad_parameters_raise_pytorchs_error(backend, call, error, message):
    import re
    with pytest.raises(error, match=re.escape(message)):
        call(torch, _torch(POS))
    with pytest.raises(error, match=re.escape(message)):
        call(xt, xt.tensor(POS, dtype=xt.float64))


def test_special_vjps_match_jax():
    """The jax.vjp cross-check (first and second order) of xtensor.special's differentiable functions, on numpy;
    the array-API spellings are the same entries."""
    names = [t.name for t in gradcheck.targets() if t.name.startswith("special.") and t.calls]
    outcomes = [gradcheck.check(t, c, "numpy") for t in gradcheck.targets() if t.name in names for c in t.calls]
    assert len(names) >= 30
    assert all(o.status == "ok" for o in outcomes), [o for o in outcomes if o.status != "ok"]
