"""Numerics at extreme inputs, against PyTorch: softmax, log_softmax, logsumexp, sigmoid, logsigmoid, softplus,
tanh, norms and std/var stay finite and accurate where PyTorch's do -- |x| up to 1e4 and beyond, huge (3e38) and
tiny (1e-30) scales, subnormals -- in value and gradient; NaN and +-inf propagate as in PyTorch; float16 and
bfloat16 where a backend has them (numpy, jax) and a clear error where it does not (array_api_strict).

Known: XLA on CPU flushes subnormals to zero, so on jax the subnormal inputs are left out."""
import math

import numpy as np
import pytest

import xtensor as xt
import xtensor.nn.functional as XF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

inf, nan = math.inf, math.nan
INPUTS = {
    "large": [1e4, -1e4, 0.0, 1e4 - 1.0],
    "huge": [3e38, -3e38, 1e38, 0.0],
    "tiny": [1e-30, 2e-30, -1e-30, 0.0],
    "subnormal": [1e-40, 1e-42, 0.0, -1e-41],
    "exp_edge": [88.0, 89.0, -88.0, -104.0],
    "offset": [1e4 + 0.5, 1e4 - 0.25, 1e4 + 0.125, 1e4],  # variance of values far from 0
    "pos_inf": [inf, 1.0, 0.0, -1.0],
    "neg_inf": [-inf, 1.0, 0.0, -1.0],
    "all_neg_inf": [-inf, -inf, -inf, -inf],
    "nan": [nan, 1.0, 0.0, -1.0],
}
FUNCTIONS = {
    "softmax": lambda ns, F, x: F.softmax(x, dim=-1),
    "log_softmax": lambda ns, F, x: F.log_softmax(x, dim=-1),
    "logsumexp": lambda ns, F, x: ns.logsumexp(x, dim=-1),
    "sigmoid": lambda ns, F, x: ns.sigmoid(x),
    "logsigmoid": lambda ns, F, x: F.logsigmoid(x),
    "softplus": lambda ns, F, x: F.softplus(x),
    "softplus_beta": lambda ns, F, x: F.softplus(x, beta=2.0, threshold=10.0),
    "tanh": lambda ns, F, x: ns.tanh(x),
    "vector_norm": lambda ns, F, x: ns.linalg.vector_norm(x),
    "norm_1": lambda ns, F, x: ns.linalg.vector_norm(x, 1),
    "norm_inf": lambda ns, F, x: ns.linalg.vector_norm(x, inf),
    "norm": lambda ns, F, x: ns.norm(x),
    "std": lambda ns, F, x: ns.std(x),
    "var": lambda ns, F, x: ns.var(x),
}
TOLS = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-14),
        "float16": dict(rtol=2e-3, atol=1e-3), "bfloat16": dict(rtol=1.6e-2, atol=1e-2)}  # bfloat16: two ulps


def assert_like_torch(ours, theirs, dtype, what):
    """Same NaN and +-inf positions; finite values close."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape, what
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=f"{what}: NaN positions")
    np.testing.assert_array_equal(np.isposinf(ours), np.isposinf(theirs), err_msg=f"{what}: +inf positions")
    np.testing.assert_array_equal(np.isneginf(ours), np.isneginf(theirs), err_msg=f"{what}: -inf positions")
    finite = np.isfinite(theirs)
    scale = np.maximum(np.abs(theirs[finite]), 1.0) if dtype != "float64" else 1.0
    np.testing.assert_allclose(ours[finite] / scale, theirs[finite] / scale, err_msg=what, **TOLS[dtype])


def _value_and_grad_torch(name, values, dtype):
    x = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    y = FUNCTIONS[name](torch, TF, x)
    y.sum().backward()
    return y.detach().double().numpy(), x.grad.double().numpy()


def _value_and_grad_ours(name, values, dtype, backend):
    x = xt.tensor(values, dtype=getattr(xt, dtype), backend=backend, requires_grad=True)
    y = FUNCTIONS[name](xt, XF, x)
    assert y.dtype.name == dtype
    y.sum().backward()
    return y.detach().double().numpy(), x.grad.double().numpy()


def _cases(dtype, backend):
    for name, values in INPUTS.items():
        if backend == "jax" and name == "subnormal":
            continue
        if dtype == "float16":  # float16's range: the same shapes of trouble, scaled into it
            values = [v if not math.isfinite(v) else float(np.float16(v * (6e4 / 3e38 if "huge" in name else
                                                                          1e-4 if "large" in name or "offset" in name
                                                                          else 1.0)))
                      for v in values]
        yield name, values


@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
@pytest.mark.parametrize("fn", list(FUNCTIONS))
def test_float32_extremes_like_torch(fn, backend):
    for name, values in _cases("float32", backend):
        ours, our_grad = _value_and_grad_ours(fn, values, "float32", backend)
        theirs, their_grad = _value_and_grad_torch(fn, values, "float32")
        assert_like_torch(ours, theirs, "float32", f"{fn}({name}) value")
        assert_like_torch(our_grad, their_grad, "float32", f"{fn}({name}) gradient")


@pytest.mark.parametrize("fn", list(FUNCTIONS))
def test_float64_extremes_like_torch(fn):
    for name, values in _cases("float64", "numpy"):
        ours, our_grad = _value_and_grad_ours(fn, values, "float64", "numpy")
        theirs, their_grad = _value_and_grad_torch(fn, values, "float64")
        assert_like_torch(ours, theirs, "float64", f"{fn}({name}) value")
        assert_like_torch(our_grad, their_grad, "float64", f"{fn}({name}) gradient")


_HALF = ["softmax", "log_softmax", "logsumexp", "sigmoid", "logsigmoid", "softplus", "tanh", "vector_norm", "std"]


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("fn", _HALF)
def test_float16_extremes_like_torch(fn, backend):
    for name, values in _cases("float16", backend):
        if name == "subnormal":
            continue
        ours, _ = _value_and_grad_ours(fn, values, "float16", backend)
        theirs, _ = _value_and_grad_torch(fn, values, "float16")
        assert_like_torch(ours, theirs, "float16", f"{fn}({name}) value")


# numpy (array-api-compat) computes a bfloat16 2-norm in float64, so at 1e-30 and subnormal scales its gradient is
# x/|x| (0.41, 0.82, ...; 1, 0, ...); PyTorch's bfloat16 gradient underflows to 0 there (as xtensor's on jax does)
_BFLOAT16_MORE_ACCURATE = {("numpy", fn, name) for fn in ("vector_norm", "norm") for name in ("tiny", "subnormal")}


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("fn", list(FUNCTIONS))
def test_bfloat16_extremes_like_torch(fn, backend):
    """bfloat16 has float32's range: the float32 cases, at bfloat16's precision."""
    for name, values in _cases("float32", backend):
        ours, our_grad = _value_and_grad_ours(fn, values, "bfloat16", backend)
        theirs, their_grad = _value_and_grad_torch(fn, values, "bfloat16")
        assert_like_torch(ours, theirs, "bfloat16", f"{fn}({name}) value")
        if (backend, fn, name) not in _BFLOAT16_MORE_ACCURATE:
            assert_like_torch(our_grad, their_grad, "bfloat16", f"{fn}({name}) gradient")


def test_float16_on_a_backend_without_it_is_a_clear_error():
    with pytest.raises(TypeError, match="dtype xtensor.float16 is not supported by backend .array_api_strict."):
        xt.ones(2, dtype=xt.float16, backend="array_api_strict")


@pytest.mark.parametrize("convert", [lambda t: t.to(xt.float16), lambda t: t.half(), lambda t: t.type(xt.float16)],
                         ids=["to", "half", "type"])
def test_converting_to_float16_on_a_backend_without_it_is_the_same_clear_error(convert):
    with pytest.raises(TypeError, match="dtype xtensor.float16 is not supported by backend .array_api_strict."):
        convert(xt.ones(2, backend="array_api_strict"))


@pytest.mark.parametrize("reduce", [lambda t: t.sum(dtype=xt.float16), lambda t: t.mean(dtype=xt.float16),
                                    lambda t: t.prod(dtype=xt.bfloat16)], ids=["sum", "mean", "prod"])
def test_a_reduction_dtype_the_backend_lacks_is_the_factories_error(reduce):
    """The forward asks the backend's adapter for the dtype: not numpy's float16 handed to array_api_strict."""
    with pytest.raises(TypeError, match="dtype xtensor.b?float16 is not supported by backend .array_api_strict."):
        reduce(xt.ones(2, backend="array_api_strict"))


def test_std_of_large_offset_float32_is_exact_as_torchs():
    """Catastrophic cancellation (E[x^2] - E[x]^2) would give 0 or garbage here."""
    values = np.float32(1e4) + np.array([0.5, -0.25, 0.125, 0.0], np.float32)
    ours = xt.tensor(values).std().item()
    assert ours == pytest.approx(torch.tensor(values).std().item(), rel=1e-6)
    assert ours == pytest.approx(np.std(values.astype(np.float64), ddof=1), rel=1e-6)
