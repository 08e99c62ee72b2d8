"""OpInfo records for the ops in ``xtensor/ops/elementwise.py`` (see ``opinfo.py``).

The records of the first elementwise ops (exp ... clamp) are still in ``opinfo.py``; the ones below cover
the rest of the standard's elementwise functions and PyTorch's (erf, lerp, addcmul, fmod, clamp with
tensor bounds, ``div(rounding_mode=)``, ``round(decimals=)``...). References are numpy/jax functions
(scipy.special / jax.scipy.special for the erf family), never xtensor.
"""
import operator

import numpy as np

from opinfo import (FLOATS, KINKS, SampleInput, _rng, add, binary, binary_samples, make, rule_bool, rule_first,
                    rule_float, rule_promote, torch_result_type, unary, unary_samples)

def _special(m):
    """scipy.special for numpy, jax.scipy.special for jax.numpy."""
    if m is np:
        import scipy.special
        return scipy.special
    import jax.scipy.special
    return jax.scipy.special


def _stop(m, v):
    """jax's stop_gradient (numpy references have no gradients)."""
    if m is np:
        return v
    import jax
    return jax.lax.stop_gradient(v)


# ------------------------------------------------------------------ unary
unary("exp2", lambda m, x: m.exp2(x), float_out=True, api=None)
unary("log2", lambda m, x: m.log2(x), low=0.1, high=4.0, float_out=True)
unary("log10", lambda m, x: m.log10(x), low=0.1, high=4.0, float_out=True)
unary("asin", lambda m, x: m.arcsin(x), low=-0.9, high=0.9, float_out=True, dtypes=FLOATS)
unary("acos", lambda m, x: m.arccos(x), low=-0.9, high=0.9, float_out=True, dtypes=FLOATS)
unary("atan", lambda m, x: m.arctan(x), float_out=True)
unary("sinh", lambda m, x: m.sinh(x), float_out=True)
unary("cosh", lambda m, x: m.cosh(x), float_out=True)
unary("asinh", lambda m, x: m.arcsinh(x), float_out=True)
unary("acosh", lambda m, x: m.arccosh(x), low=1.1, high=4.0, float_out=True)
unary("atanh", lambda m, x: m.arctanh(x), low=-0.9, high=0.9, float_out=True, dtypes=FLOATS)
unary("frac", lambda m, x: x - m.trunc(x), api=None, dtypes=FLOATS, kinks=KINKS)
unary("erf", lambda m, x: _special(m).erf(x), float_out=True, api=None)
unary("erfc", lambda m, x: _special(m).erfc(x), float_out=True, api=None)
unary("erfinv", lambda m, x: _special(m).erfinv(x), low=-0.9, high=0.9, float_out=True, api=None, dtypes=FLOATS)
unary("logit", lambda m, x: m.log(x / (1 - x)), low=0.05, high=0.95, float_out=True, api=None, dtypes=FLOATS)
unary("conj", lambda m, x: m.conj(x), supports_inplace=False)
# Tensor.real/.imag are attributes, as PyTorch's (.imag of a real tensor raises: tests/test_small_compat.py)
unary("real", lambda m, x: m.real(x), supports_inplace=False, method=lambda x: x.real)
# PyTorch refuses imag() of a real tensor; the array API's answer for one is zeros (gradient zero), which is what is
# checked here; the gradient of a complex input's imag is checked against torch in tests/test_api_additions.py.
unary("imag", lambda m, x: m.imag(x), supports_inplace=False, method=None,
      torch_fn=lambda torch: lambda x: x * 0)  # (torch.zeros_like: the same values, but no gradient to compare)
_SPECIAL_VALUES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5]
for _name in ("isposinf", "isneginf"):
    unary(_name, (lambda f: lambda m, x: getattr(m, f)(x))(_name), api=None, out_dtype=rule_bool,
          differentiable=False, kinks=_SPECIAL_VALUES, supports_inplace=False)
unary("signbit", lambda m, x: m.signbit(x), out_dtype=rule_bool, differentiable=False, kinks=_SPECIAL_VALUES,
      supports_inplace=False)


def _round_decimals_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (3, 4), dtype, -30, 30),), {"decimals": 1}, desc="d1"),
            SampleInput((make(rng, (3, 4), dtype, -300, 300),), {"decimals": -1}, desc="d-1"),
            SampleInput((make(rng, (5,), dtype),), {"decimals": 2}, desc="d2"),
            SampleInput((make(rng, (3, 4), dtype, -30, 30),), {"decimals": 1}, desc="T", noncontig=(0,))]


add(name="round_decimals", fn=lambda ns: ns.round, ref=lambda m, x, decimals=0: m.round(x, decimals),
    sample_inputs=_round_decimals_samples, dtypes=FLOATS, out_dtype=rule_first, supports_out=True,
    supports_inplace=False, method="round")


def _logit_eps_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (3, 4), dtype, 0.05, 0.95), 0.2), desc="eps"),
            SampleInput((make(rng, (5,), dtype, 0.3, 0.7), 1e-6), desc="tiny-eps"),
            SampleInput((np.asarray([0.0, 0.1, 0.5, 0.95, 1.0], dtype=dtype), 0.2), desc="clipped", grad=False)]


def _logit_eps_ref(m, x, eps):
    """PyTorch: the input clipped to [eps, 1 - eps], with zero gradient outside."""
    return m.log(m.clip(x, eps, 1 - eps) / (1 - m.clip(x, eps, 1 - eps)))


add(name="logit_eps", fn=lambda ns: ns.logit, ref=_logit_eps_ref, sample_inputs=_logit_eps_samples, dtypes=FLOATS,
    out_dtype=rule_float, method="logit")


def _nan_to_num_samples(info, dtype):
    rng = _rng(info.name, dtype)
    out = list(unary_samples()(info, dtype))
    if np.dtype(dtype).kind == "f":
        special = np.asarray(_SPECIAL_VALUES, dtype=dtype)
        out += [SampleInput((special,), desc="special", grad=False),
                SampleInput((special,), {"nan": 1.5, "posinf": 9.0, "neginf": -9.0}, desc="kw", grad=False),
                SampleInput((make(rng, (3, 4), dtype),), {"nan": -1.0}, desc="finite-kw")]
    return out


def _nan_to_num_ref(m, x, nan=0.0, posinf=None, neginf=None):
    if x.dtype.kind != "f":
        return x
    return m.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


add(name="nan_to_num", ref=_nan_to_num_ref, sample_inputs=_nan_to_num_samples, out_dtype=rule_first,
    supports_out=True, supports_inplace=True, method="nan_to_num", table_name="nan_to_num")


# ------------------------------------------------------------------ binary
binary("hypot", lambda m, x, y: m.hypot(x, y), float_out=True, nonzero2=True, scalars=False, dtypes=FLOATS,
       mixed=False)
binary("logaddexp", lambda m, x, y: m.logaddexp(x, y), float_out=True, scalars=False, dtypes=FLOATS, mixed=False)
binary("copysign", lambda m, x, y: m.copysign(x, y), float_out=True, nonzero2=True, mixed=False)
binary("xlogy", lambda m, x, y: _xlogy_ref(m, x, y), float_out=True, low2=0.1, high2=3.0, api=None, mixed=False)
binary("nextafter", lambda m, x, y: m.nextafter(x, y), dtypes=FLOATS, scalars=False, differentiable=False,
       mixed=False)
binary("fmod", lambda m, x, y: m.fmod(x, y), nonzero2=True, low2=0.6, high2=3.0, api=None, mixed=False)
binary("fmax", lambda m, x, y: m.fmax(x, y), api=None, scalars=False, dtypes=FLOATS, mixed=False)
binary("fmin", lambda m, x, y: m.fmin(x, y), api=None, scalars=False, dtypes=FLOATS, mixed=False)
for _name, _ops in (("bitwise_left_shift", (operator.lshift, operator.ilshift)),
                    ("bitwise_right_shift", (operator.rshift, operator.irshift))):
    binary(_name, (lambda f: lambda m, x, y: getattr(m, f)(x, y))(_name.replace("bitwise_", "")),
           low=-20, high=20, low2=0, high2=5, operators=(_ops,), differentiable=False, dtypes=("int64", "int32"),
           mixed=False)


def _xlogy_ref(m, x, y):
    return m.where(x == 0, 0.0, x * m.log(y))


def _div_mode(mode):
    def fn(ns):
        return lambda x, y, **kw: ns.div(x, y, rounding_mode=mode, **kw)
    return fn


def _div_mode_samples(info, dtype):
    return binary_samples(nonzero2=True, low2=0.6, high2=3.0)(info, dtype)


def _trunc_divide_ref(m, x, y):
    """C's integer division (towards zero); for floats ``trunc(x / y)``."""
    if np.result_type(x, y).kind == "f":
        return m.trunc(x / y)
    q = m.floor_divide(x, y)
    return m.where((q < 0) & (q * y != x), q + 1, q)


for _mode, _ref in (("floor", lambda m, x, y: m.floor_divide(x, y)), ("trunc", _trunc_divide_ref)):
    add(name=f"div_{_mode}", fn=_div_mode(_mode), ref=_ref, sample_inputs=_div_mode_samples, out_dtype=rule_promote,
        supports_out=True, method=(lambda md: lambda x, y: x.div(y, rounding_mode=md))(_mode))


# ------------------------------------------------------------------ ternary
def _lerp_ref(m, x, end, weight):
    """PyTorch's two-sided formula."""
    diff = end - x
    if not hasattr(weight, "shape"):
        return x + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    return m.where(m.abs(weight) < 0.5, x + weight * diff, end - diff * (1 - weight))


def _lerp_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s, lo=-3.0, hi=3.0: make(rng, s, dtype, lo, hi)  # noqa: E731
    return [SampleInput((m((3, 4)), m((3, 4)), 0.3), desc="w-small"),
            SampleInput((m((3, 4)), m((4,)), 0.75), desc="w-large"),
            SampleInput((m((3, 4)), m((3, 4)), m((3, 4), -0.5, 1.5)), desc="w-tensor"),
            SampleInput((m(()), m(()), m((), 0, 1)), desc="0d"),
            SampleInput((m((3, 4)), m((3, 4)), m((4,), 0, 1)), desc="T", noncontig=(0,))]


add(name="lerp", ref=_lerp_ref, sample_inputs=_lerp_samples, dtypes=FLOATS, out_dtype=rule_promote,
    supports_out=True, supports_inplace=True, method="lerp", table_name="lerp")


def _addc_samples(divide):
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        m = lambda s: make(rng, s, dtype)  # noqa: E731
        d = lambda s: make(rng, s, dtype, 0.5, 3.0, nonzero=True) if divide else m(s)  # noqa: E731
        value = 2 if np.dtype(dtype).kind in "iu" else 0.5
        out = [SampleInput((m((3, 4)), m((3, 4)), d((3, 4))), desc="same"),
               SampleInput((m((3, 4)), m((4,)), d((3, 1))), {"value": value}, desc="bcast"),
               SampleInput((m(()), m(()), d(())), desc="0d"),
               SampleInput((m((3, 4)), m((3, 4)), d((3, 4))), {"value": value}, desc="T", noncontig=(0,))]
        return out
    return gen


add(name="addcmul", ref=lambda m, x, t1, t2, value=1: x + value * t1 * t2, sample_inputs=_addc_samples(False),
    out_dtype=rule_promote, supports_out=True, supports_inplace=True, method="addcmul", table_name="addcmul")
add(name="addcdiv", ref=lambda m, x, t1, t2, value=1: x + value * t1 / t2, sample_inputs=_addc_samples(True),
    dtypes=FLOATS, out_dtype=rule_promote, supports_out=True, supports_inplace=True, method="addcdiv",
    table_name="addcdiv")


# ------------------------------------------------------------------ clamp with tensor bounds
def _clamp_tensor_ref(m, x, min=None, max=None):  # noqa: A002
    """PyTorch's clamp(Tensor, Tensor?, Tensor?): ``min(max(x, lo), hi)``; the gradient goes to ``x`` inside the
    closed bounds, to ``min`` where ``x < min < max``, to ``max`` where ``x > max`` or ``max < min``."""
    out = x
    if min is not None:
        out = m.maximum(out, min)
    if max is not None:
        out = m.minimum(out, max)
    if m is np:
        return out
    zero = m.zeros_like(out)
    inside = (x >= (min if min is not None else -m.inf)) & (x <= (max if max is not None else m.inf))
    r = _stop(m, out) + m.where(inside, x - _stop(m, x), zero)
    if min is not None:
        took_min = (x < min) & (min < max) if max is not None else x < min
        r = r + m.where(took_min, min - _stop(m, min), zero)
    if max is not None:
        took_max = (x > max) | (max < min) if min is not None else x > max
        r = r + m.where(took_max, max - _stop(m, max), zero)
    return r


def _clamp_tensor_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s, lo=-3.0, hi=3.0: make(rng, s, dtype, lo, hi)  # noqa: E731
    return [SampleInput((m((3, 4)), m((3, 4), -3, -0.5), m((3, 4), 0.5, 3)), desc="both"),
            SampleInput((m((3, 4)), m((4,), -1, 1)), desc="min"),
            SampleInput((m((3, 4)), None, m((3, 1), -1, 1)), desc="max"),
            SampleInput((m((3, 4)), m((3, 4)), m((3, 4))), desc="crossed"),
            SampleInput((m(()), m(()), m((), 3.5, 4)), desc="0d"),
            SampleInput((m((3, 4)), m((4,), -1, 0), m((4,), 0.5, 1)), desc="T", noncontig=(0,))]


def _clamp_tensor_dtype(args, kwargs):
    return torch_result_type(*[a for a in args if a is not None])


add(name="clamp_tensor", fn=lambda ns: ns.clamp, ref=_clamp_tensor_ref, sample_inputs=_clamp_tensor_samples,
    out_dtype=_clamp_tensor_dtype, supports_out=True, method="clamp")  # clamp_ is the "clamp" record's


def _clamp_one_samples(info, dtype):
    rng = _rng(info.name, dtype)
    bound = 1 if np.dtype(dtype).kind in "iu" else 0.25
    return [SampleInput((make(rng, (3, 4), dtype), bound), desc="scalar"),
            SampleInput((make(rng, (3, 4), dtype), make(rng, (4,), dtype, -1, 1)), desc="tensor"),
            SampleInput((make(rng, (), dtype), bound), desc="0d"),
            SampleInput((make(rng, (3, 4), dtype), bound), desc="T", noncontig=(0,))]


add(name="clamp_min", ref=lambda m, x, lo: _clamp_tensor_ref(m, x, min=lo), sample_inputs=_clamp_one_samples,
    out_dtype=rule_promote, supports_out=True, supports_inplace=True, method="clamp_min", table_name="clamp_min")
add(name="clamp_max", ref=lambda m, x, hi: _clamp_tensor_ref(m, x, max=hi), sample_inputs=_clamp_one_samples,
    out_dtype=rule_promote, supports_out=True, supports_inplace=True, method="clamp_max", table_name="clamp_max")
