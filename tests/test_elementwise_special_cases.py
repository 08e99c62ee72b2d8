"""Elementwise ops where the OpInfo samples stay away: kinks, special values, integer division by zero,
node names and array-API promotion.

* Subgradients at kinks (abs, relu, sqrt at 0; clamp at its bounds; maximum/minimum/fmax/fmin ties) are
  PyTorch's: each test computes the same gradient with torch and compares.
* Special values (signed zeros, infinities, NaN) follow the array API standard's special cases on every
  backend; the expected values are the standard's, written out here.
* ``grad_fn`` names and error types come from real PyTorch.
"""
import math

import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

torch = pytest.importorskip("torch")


def _grads_both(f_xt, f_torch, *values, backend="numpy"):
    """Gradients of ``sum(f(*inputs))`` for xtensor (on ``backend``) and torch, as numpy arrays."""
    xs = [xt.tensor(np.asarray(v, dtype=np.float64), backend=backend, requires_grad=True) for v in values]
    ts = [torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
    f_xt(*xs).sum().backward()
    f_torch(*ts).sum().backward()
    return [np.asarray(x.grad) for x in xs], [t.grad.numpy() for t in ts]


def _assert_grads_match_torch(f_xt, f_torch, *values, backend):
    ours, theirs = _grads_both(f_xt, f_torch, *values, backend=backend)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- kinks: PyTorch's subgradients
def test_abs_gradient_at_zero_is_zero(backend):
    _assert_grads_match_torch(lambda x: x.abs(), lambda x: x.abs(), [0.0, -0.0, 1.5, -2.0], backend=backend)


def test_relu_gradient_at_zero_is_zero(backend):
    _assert_grads_match_torch(lambda x: x.relu(), lambda x: x.relu(), [0.0, -1.0, 2.0], backend=backend)


def test_sqrt_gradient_at_zero_is_infinite(backend):
    _assert_grads_match_torch(lambda x: x.sqrt(), lambda x: x.sqrt(), [0.0, 4.0], backend=backend)


def test_clamp_scalar_bounds_pass_the_gradient_at_the_bounds(backend):
    _assert_grads_match_torch(lambda x: x.clamp(-1.0, 1.0), lambda x: x.clamp(-1.0, 1.0),
                              [-1.0, 1.0, -2.0, 2.0, 0.5], backend=backend)


def test_clamp_tensor_bounds_split_the_gradient_as_pytorch(backend):
    x, lo, hi = [-1.0, 1.0, -2.0, 2.0, 0.5, 0.0], [-1.0, -1.0, -1.0, -1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, -1.0, 0.0]
    _assert_grads_match_torch(lambda a, b, c: xt.clamp(a, b, c), lambda a, b, c: torch.clamp(a, b, c),
                              x, lo, hi, backend=backend)


def test_clamp_min_tensor_bound_takes_the_gradient_below_it(backend):
    _assert_grads_match_torch(lambda a, b: xt.clamp(a, min=b), lambda a, b: torch.clamp(a, min=b),
                              [-2.0, 0.0, 1.0], [0.0, 0.0, 0.0], backend=backend)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_ties_split_the_gradient_as_pytorch(name, backend):
    _assert_grads_match_torch(getattr(xt, name), getattr(torch, name), [1.0, 2.0, -0.5], [1.0, 3.0, -0.5],
                              backend=backend)


def test_fmax_gradient_goes_to_the_number_beside_nan(backend):
    _assert_grads_match_torch(xt.fmax, torch.fmax, [math.nan, 1.0], [2.0, math.nan], backend=backend)


def test_copysign_gradient_at_zero_is_zero(backend):
    _assert_grads_match_torch(xt.copysign, torch.copysign, [0.0, 2.0, -3.0], [-1.0, -1.0, 1.0], backend=backend)


def test_logit_with_eps_has_zero_gradient_outside(backend):
    _assert_grads_match_torch(lambda x: x.logit(0.2), lambda x: x.logit(0.2), [0.1, 0.5, 0.9], backend=backend)


def test_nan_to_num_gradient_is_zero_at_nonfinite_values(backend):
    _assert_grads_match_torch(lambda x: x.nan_to_num(), lambda x: x.nan_to_num(), [math.nan, math.inf, 1.0],
                              backend=backend)


# --------------------------------------------------------------------------- integer division by zero
_INT_DIVISIONS = {
    "floordiv": lambda ns, x, y: x // y, "mod": lambda ns, x, y: x % y,
    "floor_divide": lambda ns, x, y: ns.floor_divide(x, y), "remainder": lambda ns, x, y: ns.remainder(x, y),
    "fmod": lambda ns, x, y: ns.fmod(x, y), "div_floor": lambda ns, x, y: ns.div(x, y, rounding_mode="floor"),
    "div_trunc": lambda ns, x, y: ns.div(x, y, rounding_mode="trunc"), "floordiv_scalar": lambda ns, x, y: x // 0,
}


@pytest.mark.parametrize("case", list(_INT_DIVISIONS))
def test_integer_division_by_zero_raises_as_pytorch(case, backend):
    f = _INT_DIVISIONS[case]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(torch, torch.tensor([5, -3]), torch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(xt, xt.tensor([5, -3], backend=backend), xt.tensor([0, 1], backend=backend))


def test_div_refuses_an_unknown_rounding_mode():
    with pytest.raises(RuntimeError, match="rounding_mode"):
        torch.div(torch.tensor([1.0]), 2, rounding_mode="round")
    with pytest.raises(RuntimeError, match="rounding_mode"):
        xt.div(xt.tensor([1.0]), 2, rounding_mode="round")


def test_binary_function_refuses_an_unknown_keyword():
    with pytest.raises(TypeError, match="unexpected keyword argument 'rounding'"):
        xt.mul(xt.tensor([1.0]), 2, rounding="floor")


def test_clamp_without_bounds_raises_as_pytorch():
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        torch.clamp(torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        xt.clamp(xt.tensor([1.0]))


# --------------------------------------------------------------------------- rounded division values
@pytest.mark.parametrize("mode", ["floor", "trunc"])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_div_rounding_mode_matches_pytorch(mode, dtype, backend):
    a, b = np.array([7, -7, 7, -7, 0], dtype=dtype), np.array([2, 2, -2, -2, 3], dtype=dtype)
    expected = torch.div(torch.from_numpy(a), torch.from_numpy(b), rounding_mode=mode)
    got = xt.div(xt.tensor(a, backend=backend), xt.tensor(b, backend=backend), rounding_mode=mode)
    assert got.dtype.name == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(got), expected.numpy())


# --------------------------------------------------------------------------- the standard's special cases
def _values(t):
    return np.asarray(t).tolist()


def _same_floats(got, expected):
    """Equal as IEEE values: NaN equals NaN and the sign of zero counts."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (math.isnan(g) and math.isnan(e)) or (g == e and math.copysign(1, g) == math.copysign(1, e)), \
            f"{got} != {expected}"


def _pair(x1, x2):
    """Two float64 arrays of the array-API namespace (on the default backend, which ``backend`` sets)."""
    return xa.asarray(x1, dtype=xa.float64), xa.asarray(x2, dtype=xa.float64)


INF, NAN = math.inf, math.nan


def test_floor_divide_of_infinity_by_a_finite_number_is_infinite(backend):
    x1, x2 = _pair([INF, INF, -INF, -INF], [2.0, -2.0, 2.0, -2.0])
    _same_floats(_values(xa.floor_divide(x1, x2)), [INF, -INF, -INF, INF])


def test_floor_divide_of_a_finite_number_by_infinity_is_a_signed_zero(backend):
    x1, x2 = _pair([5.0, 5.0, -5.0, -5.0], [INF, -INF, INF, -INF])
    _same_floats(_values(xa.floor_divide(x1, x2)), [0.0, -0.0, -0.0, 0.0])


def test_floor_divide_keeps_the_sign_of_a_zero_quotient(backend):
    x1, x2 = _pair([-0.0, 0.0, -0.0, 0.0, 0.5], [1.0, -1.0, -1.0, 1.0, -2.0])
    _same_floats(_values(xa.floor_divide(x1, x2)), [-0.0, -0.0, 0.0, 0.0, -1.0])


def test_floor_divide_by_zero_is_infinite_or_nan(backend):
    x1, x2 = _pair([5.0, 5.0, -5.0, 0.0], [0.0, -0.0, 0.0, 0.0])
    _same_floats(_values(xa.floor_divide(x1, x2)), [INF, -INF, -INF, NAN])


def test_remainder_of_a_zero_takes_the_sign_of_the_divisor(backend):
    x1, x2 = _pair([-0.0, 0.0, 4.0, -4.0], [1.0, -1.0, -2.0, 2.0])
    _same_floats(_values(xa.remainder(x1, x2)), [0.0, -0.0, -0.0, 0.0])


def test_sign_of_nan_is_nan_and_of_zeros_is_zero(backend):
    x = xa.asarray([NAN, -0.0, 0.0, -3.0], dtype=xa.float64)
    got = _values(xa.sign(x))
    assert math.isnan(got[0]) and got[1:] == [0.0, 0.0, -1.0]


def test_torch_sign_of_nan_is_zero_as_in_pytorch(backend):
    values = [NAN, -0.0, 2.0, -3.0]
    expected = torch.sign(torch.tensor(values, dtype=torch.float64)).tolist()
    x = xt.tensor(values, dtype=xt.float64)
    assert xt.sign(x).tolist() == x.sign().tolist() == expected


def test_fmod_keeps_the_sign_of_the_dividend(backend):
    x = xt.tensor([-5.0, 5.0, -0.0, 1e-20, -7.5], backend=backend)
    y = xt.tensor([3.0, -3.0, 2.0, -1.0, INF], backend=backend)
    expected = torch.fmod(torch.tensor([-5.0, 5.0, -0.0, 1e-20, -7.5]), torch.tensor([3.0, -3.0, 2.0, -1.0, INF]))
    _same_floats(_values(xt.fmod(x, y)), expected.tolist())


def test_signbit_sees_negative_zero_and_negative_nan(backend):
    x = xa.asarray([-0.0, 0.0, -INF, 1.0], dtype=xa.float64)
    x = xa.concat([x, -xa.asarray([NAN], dtype=xa.float64)])
    assert _values(xa.signbit(x)) == [True, False, True, False, True]


def test_nextafter_steps_to_the_adjacent_float(backend):
    x1, x2 = _pair([1.0, 0.0], [2.0, -1.0])
    assert _values(xa.nextafter(x1, x2)) == [math.nextafter(1.0, 2.0), math.nextafter(0.0, -1.0)]


# --------------------------------------------------------------------------- array-API promotion
def test_array_api_promotes_a_zero_dim_array_by_its_dtype(backend):
    """The standard: float32 (3,) with float64 () is float64; PyTorch's 0-dim rule keeps float32."""
    a = xa.ones((3,), dtype=xa.float32)
    b = xa.asarray(2.0, dtype=xa.float64)
    assert xa.add(a, b).dtype is xa.float64
    assert xa.where(xa.asarray([True, False, True]), a, b).dtype is xa.float64
    assert str(torch.add(torch.ones(3), torch.tensor(2.0, dtype=torch.float64)).dtype) == "torch.float32"
    assert xt.add(a, b).dtype is xt.float32


def test_array_api_clip_without_bounds_is_a_copy(backend):
    x = xa.asarray([1.0, -2.0], dtype=xa.float32)
    out = xa.clip(x)
    assert out is not x and out.dtype is x.dtype and _values(out) == _values(x)


def test_array_api_clip_keeps_the_input_dtype_for_integer_bounds(backend):
    x = xa.asarray([0.5, -2.0, 3.0], dtype=xa.float32)
    out = xa.clip(x, min=-1, max=1)
    assert out.dtype is xa.float32 and _values(out) == [0.5, -1.0, 1.0]


# --------------------------------------------------------------------------- node names
_NODE_CASES = {
    "asin": lambda ns, x, y: x.asin(), "acos": lambda ns, x, y: x.acos(), "atan": lambda ns, x, y: x.atan(),
    "sinh": lambda ns, x, y: x.sinh(), "cosh": lambda ns, x, y: x.cosh(), "asinh": lambda ns, x, y: x.asinh(),
    "acosh": lambda ns, x, y: (x + 1).acosh(), "atanh": lambda ns, x, y: (x / 2).atanh(),
    "log2": lambda ns, x, y: x.log2(), "log10": lambda ns, x, y: x.log10(), "exp2": lambda ns, x, y: x.exp2(),
    "frac": lambda ns, x, y: x.frac(), "erf": lambda ns, x, y: x.erf(), "erfc": lambda ns, x, y: x.erfc(),
    "erfinv": lambda ns, x, y: (x / 2).erfinv(), "logit": lambda ns, x, y: (x / 2).logit(),
    "nan_to_num": lambda ns, x, y: x.nan_to_num(), "round_decimals": lambda ns, x, y: x.round(decimals=2),
    "clamp_tensor": lambda ns, x, y: x.clamp(y - 1, y), "clamp_min": lambda ns, x, y: x.clamp_min(0.9),
    "clamp_max": lambda ns, x, y: x.clamp_max(0.9), "clamp_min_tensor": lambda ns, x, y: ns.clamp(x, min=y),
    "clip": lambda ns, x, y: x.clip(0.6, 0.9), "lerp_scalar": lambda ns, x, y: ns.lerp(x, y, 0.3),
    "lerp_tensor": lambda ns, x, y: ns.lerp(x, y, y / 2), "addcmul": lambda ns, x, y: ns.addcmul(x, y, y, value=2),
    "addcdiv": lambda ns, x, y: ns.addcdiv(x, y, y), "fmax": lambda ns, x, y: ns.fmax(x, y),
    "fmin": lambda ns, x, y: ns.fmin(x, y), "hypot": lambda ns, x, y: ns.hypot(x, y),
    "logaddexp": lambda ns, x, y: ns.logaddexp(x, y), "xlogy": lambda ns, x, y: ns.xlogy(x, y),
    "xlogy_scalar": lambda ns, x, y: ns.xlogy(x, 2.0), "copysign": lambda ns, x, y: ns.copysign(x, y),
    "copysign_scalar": lambda ns, x, y: ns.copysign(x, -1.0), "fmod": lambda ns, x, y: ns.fmod(x, y),
    "fmod_scalar": lambda ns, x, y: ns.fmod(x, 0.3), "div_trunc": lambda ns, x, y: ns.div(x, y, rounding_mode="trunc"),
    "div_floor": lambda ns, x, y: x.div(y, rounding_mode="floor"), "true_divide": lambda ns, x, y: x.true_divide(y),
    "absolute": lambda ns, x, y: x.absolute(), "arcsin": lambda ns, x, y: (x / 2).arcsin(),
}


@pytest.mark.parametrize("case", list(_NODE_CASES))
def test_grad_fn_names_match_torch(case):
    rng = np.random.default_rng(sum(map(ord, case)))
    xv, yv = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, (3, 4))
    f = _NODE_CASES[case]
    ours = f(xt, xt.tensor(xv, requires_grad=True) * 1, xt.tensor(yv, requires_grad=True) * 1)
    theirs = f(torch, torch.tensor(xv, requires_grad=True) * 1, torch.tensor(yv, requires_grad=True) * 1)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
