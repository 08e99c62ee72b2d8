"""Elementwise ops: unary math, binary arithmetic, comparisons, logical and bitwise ops, where, clamp.

Forwards are written against the standard namespace ``xp`` and own the standard's special cases
(signed zeros, infinities, NaN) where backends get them wrong: ``floor_divide`` of infinities and
zero quotients (numpy returns NaN for ``inf // 2``; jax loses the sign of ``-0 // 1``), ``remainder``
of signed zeros, ``sign`` of NaN. Integer ``// 0`` and ``% 0`` raise as in PyTorch.

Subgradients at kinks follow PyTorch (each is checked against torch in tests/test_elementwise_special_cases.py):
``abs``: 0 at 0 (``sign(0)``); ``relu``: 0 at 0; ``sqrt``: ``inf`` at 0 (``1 / (2 * 0)``); ``clamp``: the
gradient flows to ``input`` where ``min <= input <= max`` (bounds included) and to a tensor bound only where
it is the value taken (``input < min`` / ``input > max``; when ``min > max`` everything goes to ``max``);
``maximum``/``minimum``: a tie splits the gradient in halves; ``fmax``/``fmin``: a tie gives all of it to
``input``; ``floor``/``ceil``/``round``/``trunc``/``sign``: 0 everywhere.
"""
import collections
import math
import operator

from .. import _dtypes
from .._dispatch import apply
from .._ns import is_array
from .._table import TABLE, as_bool, as_uint8, defcomposite, defop, refusing, to_float, via_uint8
from .._tensor import Tensor
from ._composite import _as_tensor_like, _float, _fn

LN2, LN10 = math.log(2.0), math.log(10.0)

# PyTorch's wording of some dtype refusals (``refuses=``, see ``refusing``)
_NEGATED_BOOL = (RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.")
_SUBTRACTED_BOOLS = (RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
                                   "or `logical_xor()` operator instead.")
_NO_COMPLEX_CLAMP = {"c": (NotImplementedError, "clamp is not supported for complex types")}
_INTEGER_ADDCDIV = (RuntimeError, "Integer division with addcdiv is no longer supported, and in a future release "
                                  "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                                  "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
                                  ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
                                  "float inputs. The future addcdiv behavior is just the latter implementation: "
                                  "(input + value * tensor1 / tensor2), for all dtypes.")


def _no_bool_subtraction(input, other):
    """``sub``'s ``check``: PyTorch refuses any bool operand, a number too (``x - True``)."""
    bools = sum(v is True or v is False or isinstance(v, Tensor) and v.dtype is _dtypes.bool for v in (input, other))
    if bools == 2:
        raise RuntimeError(_SUBTRACTED_BOOLS[1])
    if bools:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


def _is_scalar(v):
    return not hasattr(v, "dtype")


def _isinf(xp, v):
    return math.isinf(v) if _is_scalar(v) else xp.isinf(v)


def _is_float(v):
    return isinstance(v, (float, complex)) if _is_scalar(v) else not _is_integral(v)


def _is_integral(v):
    if _is_scalar(v):
        return isinstance(v, int)
    return _dtype_kind(v.dtype) in "biu"


_KINDS = {}


def _dtype_kind(dtype):
    """'b', 'u', 'i', 'c' or 'f' for a backend dtype, by its name (any array-API namespace has one); cached
    because ``str(dtype)`` costs microseconds and forwards ask on every call. Keyed with the dtype's type so
    dtypes of different libraries are never compared."""
    key = (type(dtype), dtype)
    kind = _KINDS.get(key)
    if kind is None:
        name = str(dtype)
        kind = _KINDS[key] = "b" if "bool" in name else "u" if "uint" in name else "i" if "int" in name else \
            "c" if "complex" in name else "f"
    return kind


def _check_integer_divisor(xp, x, y):
    """PyTorch raises on integer division by zero (numpy returns 0, jax garbage). Under a jax trace the
    divisor has no value yet, so nothing can be checked there."""
    if not (_is_integral(x) and _is_integral(y)):
        return
    try:
        zero = (y == 0) if _is_scalar(y) else bool(xp.any(y == 0))
    except TypeError:  # a traced jax value
        return
    if zero:
        raise RuntimeError("ZeroDivisionError")


def _expm1(xp, x):
    """Complex non-finite inputs through ``exp(x) - 1``, which has the standard's special values there (numpy's
    complex expm1 gives NaN for ``inf + 0j``)."""
    if not _is_complex(x):
        return xp.expm1(x)
    return xp.where(xp.isfinite(x), xp.expm1(x), _complex_exp(xp, x) - 1)


def _complex_exp(xp, x):
    """exp, with the standard's values for an infinite real part and a non-finite imaginary part (jax gives
    NaN + NaN j): ``0 + 0j`` for -inf, ``inf + NaN j`` for +inf."""
    if not _is_complex(x):
        return xp.exp(x)
    re, im = xp.real(x), xp.imag(x)
    limit = xp.where(re > 0, xp.asarray(complex(math.inf, math.nan), dtype=x.dtype), xp.zeros_like(x))
    return xp.where(xp.isinf(re) & ~xp.isfinite(im), limit, xp.exp(x))


def _complex_log(log):
    """log or log1p, with the standard's ``inf + NaN j`` where one part is infinite and the other NaN (jax gives
    NaN + NaN j)."""
    def fwd(xp, x):
        if not _is_complex(x):
            return log(xp, x)
        re, im = xp.real(x), xp.imag(x)
        stuck = (xp.isinf(re) & xp.isnan(im)) | (xp.isnan(re) & xp.isinf(im))
        return xp.where(stuck, xp.asarray(complex(math.inf, math.nan), dtype=x.dtype), log(xp, x))
    return fwd


def _positive_zero(xp, v):
    return (v == 0) & ~xp.signbit(v)


def _finite_nonzero(xp, v):
    return xp.isfinite(v) & (v != 0)


_ZERO, _POS_INF, _NEG_INF = (lambda xp, v: v == 0), (lambda xp, v: v == math.inf), (lambda xp, v: v == -math.inf)
_NAN, _FINITE = (lambda xp, v: xp.isnan(v)), (lambda xp, v: xp.isfinite(v))
_INF_NAN, _NAN_0, _0_NAN = complex(math.inf, math.nan), complex(math.nan, 0.0), complex(0.0, math.nan)
# The standard's complex special values that jax misses (it gives NaN + NaN j): per function, ((condition on the
# real part, condition on the imaginary part), value). numpy has them already.
_COMPLEX_CASES = {
    "cosh": (((_positive_zero, _POS_INF), _NAN_0), ((_positive_zero, _NAN), _NAN_0),
             ((_POS_INF, _POS_INF), _INF_NAN), ((_POS_INF, _NAN), _INF_NAN)),
    "sinh": (((_positive_zero, _POS_INF), _0_NAN), ((_positive_zero, _NAN), _0_NAN),
             ((_POS_INF, _POS_INF), _INF_NAN), ((_POS_INF, _NAN), _INF_NAN)),
    "tanh": (((_positive_zero, _POS_INF), _0_NAN), ((_positive_zero, _NAN), _0_NAN)),
    "sqrt": (((_NEG_INF, _NAN), complex(math.nan, math.inf)), ((_POS_INF, _NAN), _INF_NAN)),
    "acos": (((_ZERO, _NAN), complex(math.pi / 2, math.nan)),),
    "acosh": (((_positive_zero, _NAN), complex(math.nan, math.pi / 2)),),
    "asinh": (((_NAN, _positive_zero), _NAN_0),),
    "atanh": (((_positive_zero, _NAN), _0_NAN), ((_finite_nonzero, _NAN), complex(math.nan, math.nan)),
              ((_POS_INF, _NAN), _0_NAN), ((_NAN, _FINITE), complex(math.nan, math.nan)),
              ((_NAN, _NAN), complex(math.nan, math.nan))),
}


def _with_complex_cases(name):
    """``xp.<name>``, with ``_COMPLEX_CASES[name]`` patched in for complex inputs."""
    def fwd(xp, x):
        out = getattr(xp, name)(x)
        if not _is_complex(x):
            return out
        re, im = xp.real(x), xp.imag(x)
        for (on_re, on_im), value in _COMPLEX_CASES[name]:
            out = xp.where(on_re(xp, re) & on_im(xp, im), xp.asarray(value, dtype=x.dtype), out)
        return out
    return fwd


def _is_complex(x):
    dtype = x.dtype
    kind = _KINDS.get((type(dtype), dtype))  # (``_dtype_kind``'s cache read here: a frame less per exp/tanh/...)
    return (kind if kind is not None else _dtype_kind(dtype)) == "c"


def _sign(xp, x, nan=None):
    """sign with ``+0`` (``0 + 0j``) for zeros of any sign; NaN gives NaN (the standard) or ``nan`` (PyTorch: 0)."""
    if _is_integral(x):
        return x if _dtype_kind(x.dtype) == "b" else xp.sign(x)  # PyTorch: the sign of a bool is itself
    signs = xp.where(x == 0, xp.zeros_like(x), xp.sign(x))  # +0 for -0 too (jax keeps -0)
    if _is_complex(x):
        return signs
    return xp.where(xp.isnan(x), x if nan is None else xp.asarray(nan, dtype=x.dtype), signs)


# ------------------------------------------------------------------ elementwise, unary
def unary(name, fwd, vjp, *, float_only=False, api=True, **kw):
    options = dict(kind="unary", api=api, inplace=True, out=True, cast=to_float if float_only else None)
    return defop(name, fwd, (vjp,), **{**options, **kw})


def predicate(name, fwd, api=None, **kw):
    """A bool-valued unary function (no gradient, no in-place form)."""
    return unary(name, fwd, None, differentiable=False, inplace=False, api=api, **kw)


unary("exp", _complex_exp, lambda ns, g, ans, x: g * ans, float_only=True, torch_inplace=True, saves=("result",))
unary("exp2", lambda xp, x: 2.0 ** x, lambda ns, g, ans, x: g * ans * LN2, float_only=True, api=None,
      torch_inplace=True, saves=("result",))
unary("log", _complex_log(lambda xp, x: xp.log(x)), lambda ns, g, ans, x: g / x, float_only=True, torch_inplace=True,
      saves=(0,))
unary("log2", lambda xp, x: xp.log2(x), lambda ns, g, ans, x: g / (x * LN2), float_only=True, torch_inplace=True,
      saves=(0,))
unary("log10", lambda xp, x: xp.log10(x), lambda ns, g, ans, x: g / (x * LN10), float_only=True, torch_inplace=True,
      saves=(0,))
unary("log1p", _complex_log(lambda xp, x: xp.log1p(x)), lambda ns, g, ans, x: g / (x + 1), float_only=True,
      node="Log1PBackward0", torch_inplace=True, saves=(0,))
unary("expm1", lambda xp, x: _expm1(xp, x), lambda ns, g, ans, x: g * (ans + 1), float_only=True, torch_inplace=True,
      saves=("result",))
unary("sin", lambda xp, x: xp.sin(x), lambda ns, g, ans, x: g * ns.cos(x), float_only=True, torch_inplace=True,
      saves=(0,))
unary("cos", lambda xp, x: xp.cos(x), lambda ns, g, ans, x: -g * ns.sin(x), float_only=True, torch_inplace=True,
      saves=(0,))
unary("tan", lambda xp, x: xp.tan(x), lambda ns, g, ans, x: g * (ans * ans + 1), float_only=True, torch_inplace=True,
      saves=("result",))
unary("asin", lambda xp, x: xp.asin(x), lambda ns, g, ans, x: g * ns.rsqrt(1 - x * x), float_only=True,
      aliases=("arcsin",), torch_inplace=True, saves=(0,))
unary("acos", _with_complex_cases("acos"), lambda ns, g, ans, x: -g * ns.rsqrt(1 - x * x), float_only=True,
      aliases=("arccos",), torch_inplace=True, saves=(0,))
unary("atan", lambda xp, x: xp.atan(x), lambda ns, g, ans, x: g / (x * x + 1), float_only=True, aliases=("arctan",),
      torch_inplace=True, saves=(0,))
unary("sinh", _with_complex_cases("sinh"), lambda ns, g, ans, x: g * ns.cosh(x), float_only=True, torch_inplace=True,
      saves=(0,))
unary("cosh", _with_complex_cases("cosh"), lambda ns, g, ans, x: g * ns.sinh(x), float_only=True, torch_inplace=True,
      saves=(0,))
unary("tanh", _with_complex_cases("tanh"), lambda ns, g, ans, x: g * (1 - ans * ans), float_only=True,
      torch_inplace=True, saves=("result",))
unary("asinh", _with_complex_cases("asinh"), lambda ns, g, ans, x: g * ns.rsqrt(x * x + 1), float_only=True,
      aliases=("arcsinh",), torch_inplace=True, saves=(0,))
unary("acosh", _with_complex_cases("acosh"), lambda ns, g, ans, x: g * ns.rsqrt(x * x - 1), float_only=True,
      aliases=("arccosh",), torch_inplace=True, saves=(0,))
unary("atanh", _with_complex_cases("atanh"), lambda ns, g, ans, x: g / (1 - x * x), float_only=True,
      aliases=("arctanh",), torch_inplace=True, saves=(0,))
unary("sigmoid", lambda xp, x: 1 / (1 + xp.exp(-x)), lambda ns, g, ans, x: g * ans * (1 - ans),
      float_only=True, api=None, torch_inplace=True, saves=("result",))
unary("sqrt", _with_complex_cases("sqrt"), lambda ns, g, ans, x: g / (2 * ans), float_only=True, torch_inplace=True,
      saves=("result",))
unary("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda ns, g, ans, x: -0.5 * g * ans * ans * ans,
      float_only=True, api=None, torch_inplace=True, saves=("result",))
unary("relu", lambda xp, x: xp.maximum(x, 0), lambda ns, g, ans, x: ns.where_zero(~(ans <= 0), g),  # NaN stays NaN
      api=None, refuses={"b": (RuntimeError, "Boolean inputs not supported for relu"), **_NO_COMPLEX_CLAMP},
      torch_inplace=True, saves=("result",))
unary("abs", lambda xp, x: xp.abs(x), lambda ns, g, ans, x: g * ns.sign(x), operators=("__abs__",), refuses="b",
      aliases=("absolute",), torch_inplace=("abs",), saves=(0,))
unary("neg", lambda xp, x: -x, lambda ns, g, ans, x: -g, api="negative", operators=("__neg__",),
      refuses={"b": _NEGATED_BOOL}, aliases=("negative",), torch_inplace=True, saves=())
unary("sign", lambda xp, x: _sign(xp, x, nan=0), lambda ns, g, ans, x: ns.zeros(g.shape, g), api=None, saves=())
unary("_api_sign", _sign, lambda ns, g, ans, x: ns.zeros(g.shape, g), api="sign", function=False, method=False, inplace=False,
      out=False, node="SignBackward0", saves=())
unary("square", lambda xp, x: x * x, lambda ns, g, ans, x: 2 * g * x, node="PowBackward0",  # PyTorch: pow(x, 2)
      cast=lambda d: _dtypes.int64 if d.kind == "b" else d, torch_inplace=True, saves=(0,))  # and so int64 for bools
unary("reciprocal", lambda xp, x: 1 / x, lambda ns, g, ans, x: -g * ans * ans, float_only=True, torch_inplace=True,
      saves=("result",))
unary("floor", lambda xp, x: xp.floor(x), lambda ns, g, ans, x: ns.zeros(g.shape, g),
      refuses={"b": None, "c": (NotImplementedError, "floor is not supported for complex inputs")}, torch_inplace=True,
      saves=())
unary("ceil", lambda xp, x: xp.ceil(x), lambda ns, g, ans, x: ns.zeros(g.shape, g),
      refuses={"b": None, "c": (NotImplementedError, "ceil is not supported for complex inputs")}, torch_inplace=True,
      saves=())
unary("trunc", lambda xp, x: xp.trunc(x), lambda ns, g, ans, x: ns.zeros(g.shape, g),
      refuses={"b": None, "c": (NotImplementedError, "trunc is not supported for complex inputs")}, aliases=("fix",),
      torch_inplace=True, saves=())
unary("frac", lambda xp, x: x - xp.trunc(x), lambda ns, g, ans, x: g, api=None, refuses="bic", torch_inplace=True,
      saves=())
unary("logical_not", lambda xp, x: xp.logical_not(xp.astype(x, xp.bool)), None, differentiable=False)
# bools are never NaN nor infinite, as PyTorch says (array_api_strict refuses bools in these)
predicate("isnan", lambda xp, x: xp.isnan(x), api=True, bool_fwd=lambda xp, x: xp.zeros_like(x))
predicate("isinf", lambda xp, x: xp.isinf(x), api=True, bool_fwd=lambda xp, x: xp.zeros_like(x))
predicate("isfinite", lambda xp, x: xp.isfinite(x), api=True, bool_fwd=lambda xp, x: xp.ones_like(x))
predicate("isposinf", lambda xp, x: x == math.inf if _is_float(x) else xp.zeros(x.shape, dtype=xp.bool),
          refuses={"c": (RuntimeError, "isposinf does not support complex inputs.")})
predicate("isneginf", lambda xp, x: x == -math.inf if _is_float(x) else xp.zeros(x.shape, dtype=xp.bool),
          refuses={"c": (RuntimeError, "isneginf does not support complex inputs.")})
predicate("signbit", lambda xp, x: xp.signbit(x) if _is_float(x) else x < 0, api=True,
          refuses={"c": (NotImplementedError, "signbit is not implemented for complex tensors.")})
unary("clone", lambda xp, x: xp.asarray(x, copy=True), lambda ns, g, ans, x: g, api=None, saves=())
defop("_contiguous", lambda xp, x, backend: backend.contiguous_copy(x), (lambda ns, g, ans, x, backend: g,),
      node="CloneBackward0", saves=(), function=False, method=False)
unary("bitwise_invert", lambda xp, x: xp.logical_not(x) if x.dtype == xp.bool else xp.bitwise_invert(x), None,
      differentiable=False, operators=("__invert__",), aliases=("bitwise_not",))
unary("positive", lambda xp, x: xp.asarray(x, copy=True), lambda ns, g, ans, x: g, operators=("__pos__",),
      refuses={"b": (RuntimeError, "The `+` operator, on a bool tensor is not supported.")}, saves=())
# Complex parts: a copy (conj, real) and zeros (imag) of a real tensor, as the array API asks.
unary("conj", lambda xp, x: xp.conj(x) if _is_complex(x) else xp.asarray(x, copy=True), lambda ns, g, ans, x: ns.conj(g),
      inplace=False, saves=())
unary("real", lambda xp, x: xp.real(x) if _is_complex(x) else xp.asarray(x, copy=True), lambda ns, g, ans, x: g,
      inplace=False, method=False, saves=())  # Tensor.real/.imag are attributes (xtensor/_methods.py)
unary("imag", lambda xp, x: xp.imag(x) if _is_complex(x) else xp.zeros_like(x),
      lambda ns, g, ans, x: g * 1j if ns.is_complex(x) else g * 0, inplace=False, method=False,
      saves=("meta0",))  # PyTorch's: grad * i; reads only x's dtype


def _round_sig(input, *, decimals=0):
    if decimals:
        refusing("round", "bi")(input.dtype)
    return (input,), (decimals,) if decimals else ()


def _round(xp, x, decimals=0):
    """Half to even; ``decimals`` scales by a power of ten first (PyTorch's ``round(decimals=)``)."""
    if decimals == 0 or _is_integral(x):
        return xp.round(x)
    if decimals > 0:
        scale = 10.0 ** decimals
        return xp.round(x * scale) / scale
    scale = 10.0 ** -decimals
    return xp.round(x / scale) * scale


defop("round", _round, (lambda ns, g, ans, x, decimals=0: ns.zeros(g.shape, g),), kind="custom", api=True, inplace=True, out=True,
      sig=_round_sig,
      api_sig=lambda x, /: ((x,), ()), names=lambda x, decimals=0: f"RoundBackward{int(bool(decimals))}", refuses="b",
      torch_inplace=True, saves=())


def _logit(xp, x, eps):
    if eps is not None:
        x = xp.clip(x, eps, 1.0 - eps)
    return xp.log(x / (1 - x))


def _logit_vjp(ns, g, ans, x, eps):
    inside = x * (1 - x)
    if eps is None:  # NaN outside [0, 1], as PyTorch's formula
        return ns.where((x < 0) | (x > 1), ns.full_like(g, math.nan), g / inside)
    return ns.where_zero((x >= eps) & (x <= 1 - eps), g / inside)


defop("logit", _logit, (_logit_vjp,), kind="custom", inplace=True, out=True, cast=to_float,
      sig=lambda input, eps=None: ((input,), (None if eps is None else float(eps),)), refuses="c", torch_inplace=True,
      saves=(0, 1))


def _nan_to_num(xp, x, nan=0.0, posinf=None, neginf=None):
    if _is_integral(x):
        return x
    info = _dtypes.finfo(_dtypes.by_name(str(x.dtype).split(".")[-1]))
    x = xp.where(xp.isnan(x), xp.asarray(nan, dtype=x.dtype), x)
    x = xp.where(x == math.inf, xp.asarray(info.max if posinf is None else posinf, dtype=x.dtype), x)
    return xp.where(x == -math.inf, xp.asarray(info.min if neginf is None else neginf, dtype=x.dtype), x)


defop("nan_to_num", _nan_to_num, (lambda ns, g, ans, x, *bounds: ns.where_zero(ns.isfinite(x), g),), kind="custom",
      inplace=True, out=True,
      sig=lambda input, nan=0.0, posinf=None, neginf=None: ((input,), (nan, posinf, neginf)), torch_inplace=True,
      saves=(0,))


# ------------------------------------------------------------------ elementwise, binary
def binary(name, fwd, vjps, *, api=True, operators=(), cast=None, **kw):
    options = dict(kind="binary", api=api, inplace=True, out=True, operators=operators, cast=cast)
    return defop(name, fwd, vjps, **{**options, **kw})


def _pow_vjp_base(ns, g, ans, x, y):
    return ns.where_zero(y != 0, g * y * x ** (y - 1))


def _pow_vjp_exponent(ns, g, ans, x, y):
    base = x if is_array(x) else ns.full_like(ans, x)
    return ns.where_zero((base != 0) | (y < 0), g * ans * ns.log(base))


def _floor_divide(xp, x, y):
    """Floor division; for floats, the standard's ``floor(x1 / x2)`` where the quotient is 0, infinite or NaN
    or the divisor infinite (numpy's ``inf // 2`` is NaN, jax's ``-0. // 1`` is ``+0``)."""
    _check_integer_divisor(xp, x, y)
    q = xp.floor_divide(x, y)
    if _is_integral(q):
        return q
    special = (q == 0) | ~xp.isfinite(q) | _isinf(xp, y)
    return xp.where(special, xp.floor(x / y), q)


def _remainder(xp, x, y):
    """Python's modulo; a zero result takes the divisor's sign, as the standard asks (jax keeps the dividend's)."""
    _check_integer_divisor(xp, x, y)
    r = xp.remainder(x, y)
    if _is_integral(r):
        return r
    return xp.where(r == 0, xp.copysign(r, y * xp.ones_like(r)), r)


def _fmod(xp, x, y):
    """C's fmod (the sign of the dividend), from the standard's ``remainder``: exact, as ``remainder`` is exact
    for operands of one sign."""
    _check_integer_divisor(xp, x, y)
    if _is_integral(x) and _is_integral(y):
        r = xp.remainder(x, y)
        return xp.where((r != 0) & ((r < 0) != (x < 0)), r - y, r)
    return xp.copysign(xp.remainder(xp.abs(x), abs(y) if _is_scalar(y) else xp.abs(y)), x)


def _div_rounded(xp, x, y, rounding_mode):
    if rounding_mode == "floor":
        return _floor_divide(xp, x, y)
    if _is_integral(x) and _is_integral(y):
        _check_integer_divisor(xp, x, y)
        q = xp.floor_divide(x, y)
        return xp.where((q < 0) & (q * y != x), q + 1, q)
    return xp.trunc(x / y)


_div_mode = defop("_div_mode", _div_rounded, (lambda ns, g, ans, x, y, mode: ns.zeros(g.shape, g),
                                               lambda ns, g, ans, x, y, mode: ns.zeros(g.shape, g)),
                  node="DivBackward2", function=False, method=False, saves=(0, 1),
                  refuses="bc")  # as PyTorch's DivBackward2


def _div(input, other, *, rounding_mode=None):
    """``div`` with ``rounding_mode`` ('trunc', 'floor'): rounded quotients keep integer dtypes and have zero
    gradient, as in PyTorch."""
    if rounding_mode is None:
        return apply(TABLE["div"].op, (input, other))
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return apply(_div_mode, (input, other), (rounding_mode,))


def _copysign_vjp(ns, g, ans, x, y):
    """PyTorch: ``g * ans / x`` where ``x != 0``, else 0 -- written as a sign flip so no 0/0 enters the graph (from
    ``x`` and the result, what PyTorch keeps: not ``y``)."""
    flip = ns.signbit(x) != ns.signbit(ans)
    return ns.where_zero(x != 0, ns.where(flip, -g, g))


def _fmax(xp, x, y):
    return xp.where(xp.isnan(y), x, xp.where(xp.isnan(x), y, xp.maximum(x, y)))


def _fmin(xp, x, y):
    return xp.where(xp.isnan(y), x, xp.where(xp.isnan(x), y, xp.minimum(x, y)))


def _xlogy(xp, x, y):
    """``x * log(y)``, and 0 where ``x`` is 0 unless ``y`` is NaN."""
    x, y = _as_arrays(xp, x, y)
    return xp.where((x == 0) & ~xp.isnan(y), xp.zeros_like(x * y), x * xp.log(y))


def _as_arrays(xp, x, y):
    """A Python-scalar operand as an array of the other operand's dtype."""
    if _is_scalar(x):
        return xp.asarray(x, dtype=y.dtype), y
    if _is_scalar(y):
        return x, xp.asarray(y, dtype=x.dtype)
    return x, y


binary("add", lambda xp, x, y: xp.add(x, y),
       (lambda ns, g, ans, x, y: g, lambda ns, g, ans, x, y: g),
       operators=("__add__", "__radd__", "__iadd__"), saves=(),
       bool_fwd=lambda xp, x, y: xp.logical_or(as_bool(xp, x), as_bool(xp, y)))
binary("sub", lambda xp, x, y: xp.subtract(x, y),
       (lambda ns, g, ans, x, y: g, lambda ns, g, ans, x, y: -g), api="subtract",
       operators=("__sub__", "__rsub__", "__isub__"), saves=(),
       names=lambda x, y: "SubBackward0" if isinstance(x, Tensor) else "RsubBackward1",
       scalar_edges=lambda x, y: isinstance(x, Tensor), refuses={"b": _SUBTRACTED_BOOLS}, check=_no_bool_subtraction,
       aliases=("subtract",))
# complex products: PyTorch's VJPs conjugate the other operand
binary("mul", lambda xp, x, y: xp.multiply(x, y),
       (lambda ns, g, ans, x, y: g * ns.conj(y), lambda ns, g, ans, x, y: g * ns.conj(x)),
       api="multiply", operators=("__mul__", "__rmul__", "__imul__"),
       bool_fwd=lambda xp, x, y: xp.logical_and(as_bool(xp, x), as_bool(xp, y)), aliases=("multiply",),
       saves=((1,), (0,)))
binary("div", lambda xp, x, y: xp.divide(x, y),
       (lambda ns, g, ans, x, y: g / ns.conj(y), lambda ns, g, ans, x, y: -g * ns.conj(x / y / y)),  # saves x, y: not the quotient (PyTorch's)
       api="divide", operators=("__truediv__", "__rtruediv__", "__itruediv__"), cast=to_float, sig=_div,
       aliases=("divide", "true_divide"), saves=((1,), (0, 1)))


def _rtruediv(self, other):
    """``other / self`` for a number ``other``: ``self.reciprocal() * other``, as PyTorch spells it, so the node keeps
    the reciprocal and not ``self`` (a later write into ``self`` is allowed) and the result is a MulBackward0's."""
    try:
        return self.reciprocal() * other
    except TypeError:  # not a number: Python's own error for ``/`` (PyTorch turns TypeErrors into NotImplemented)
        return NotImplemented


defcomposite("__rtruediv__", _rtruediv, function=False, method=False)


def _pow(xp, x, y):
    """``x ** y``; integers to negative integer powers as PyTorch: a negative Python exponent is refused, a
    negative element of an exponent tensor gives ``1 / x ** -y`` truncated (0 unless ``x`` is 1 or -1)."""
    if not (_is_integral(x) and _is_integral(y)):
        return x ** y
    if _is_scalar(y):
        if y < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return x ** y
    x, y = _as_arrays(xp, x, y)
    negative = y < 0
    power = x ** xp.where(negative, -y, y)
    return xp.where(negative & (xp.abs(x) != 1), xp.zeros_like(power), power)


binary("pow", _pow, (_pow_vjp_base, _pow_vjp_exponent),
       operators=("__pow__", "__rpow__", "__ipow__"),
       names=lambda x, y: "PowBackward2" if not isinstance(x, Tensor) else
       "PowBackward1" if isinstance(y, Tensor) else "PowBackward0", scalar_edges=False, refuses="b",
       saves=((0, 1), (0, 1, "result")))
_bools_max = via_uint8(lambda xp, x, y: xp.maximum(x, y))  # fmax/fmin of bools: no NaN to skip
_bools_min = via_uint8(lambda xp, x, y: xp.minimum(x, y))
binary("maximum", lambda xp, x, y: xp.maximum(x, y),
       (lambda ns, g, ans, x, y: ns.where_zero(x >= y, ns.where(x != y, g, g / 2)),
        lambda ns, g, ans, x, y: ns.where_zero(y >= x, ns.where(x != y, g, g / 2))), bool_fwd=_bools_max,
       refuses={"c": (RuntimeError, "maximum not implemented for complex tensors.")}, tensors_only=True, saves=(0, 1))
binary("minimum", lambda xp, x, y: xp.minimum(x, y),
       (lambda ns, g, ans, x, y: ns.where_zero(x <= y, ns.where(x != y, g, g / 2)),
        lambda ns, g, ans, x, y: ns.where_zero(y <= x, ns.where(x != y, g, g / 2))), bool_fwd=_bools_min,
       refuses={"c": (RuntimeError, "minimum not implemented for complex tensors.")}, tensors_only=True, saves=(0, 1))
binary("fmax", _fmax, (lambda ns, g, ans, x, y: ns.where_zero((x >= y) | ns.isnan(y), g),
                       lambda ns, g, ans, x, y: ns.where_zero(~((x >= y) | ns.isnan(y)), g)), api=None, bool_fwd=_bools_max,
       refuses={"c": (RuntimeError, "fmax not implemented for complex tensors.")}, tensors_only=True, saves=(0, 1))
binary("fmin", _fmin, (lambda ns, g, ans, x, y: ns.where_zero((x <= y) | ns.isnan(y), g),
                       lambda ns, g, ans, x, y: ns.where_zero(~((x <= y) | ns.isnan(y)), g)), api=None, bool_fwd=_bools_min,
       refuses={"c": (RuntimeError, "fmin not implemented for complex tensors.")}, tensors_only=True, saves=(0, 1))
binary("atan2", lambda xp, x, y: xp.atan2(x, y),
       (lambda ns, g, ans, x, y: g * y / (x * x + y * y), lambda ns, g, ans, x, y: -g * x / (x * x + y * y)),
       cast=to_float, refuses="c", tensors_only=True, aliases=("arctan2",), saves=(0, 1))
binary("hypot", lambda xp, x, y: xp.hypot(x, y),
       (lambda ns, g, ans, x, y: g * x / ans, lambda ns, g, ans, x, y: g * y / ans),
       cast=to_float, refuses="bic", tensors_only=True, saves=((0, "result"), (1, "result")))
binary("logaddexp", lambda xp, x, y: xp.logaddexp(x, y),
       (lambda ns, g, ans, x, y: g / (1 + ns.exp(y - x)), lambda ns, g, ans, x, y: g / (1 + ns.exp(x - y))),
       cast=to_float, refuses="bi", tensors_only=True, saves=(0, 1))
binary("copysign", lambda xp, x, y: xp.copysign(x, y), (_copysign_vjp, lambda ns, g, ans, x, y: ns.zeros(g.shape, g)),
       cast=to_float,
       names=lambda x, y: "CopysignBackward0" if isinstance(y, Tensor) else "CopysignBackward1", refuses="c",
       saves=((0, "result"), ()))
binary("xlogy", _xlogy, (lambda ns, g, ans, x, y: ns.where_zero(~((x == 0) & (y <= 0)), ns.xlogy(g, y)),  # PyTorch's formula
                         lambda ns, g, ans, x, y: g * x / y),
       cast=to_float, api=None,
       names=lambda x, y: "XlogyBackward0" if isinstance(x, Tensor) and isinstance(y, Tensor) else
       "XlogyBackward2" if isinstance(x, Tensor) else "XlogyBackward1", refuses="c", torch_inplace=True, saves=(0, 1))
binary("nextafter", lambda xp, x, y: xp.nextafter(x, y), None, differentiable=False, refuses="bic", tensors_only=True)
binary("remainder", _remainder,
       (lambda ns, g, ans, x, y: g, lambda ns, g, ans, x, y: -g * ns.floor(x / y)),
       operators=("__mod__", "__rmod__", "__imod__"),
       names=lambda x, y: "RemainderBackward1" if isinstance(y, Tensor) else "RemainderBackward0", refuses="bc",
       saves=((), (0, 1)))
binary("fmod", _fmod, (lambda ns, g, ans, x, y: g, lambda ns, g, ans, x, y: -g * ns.trunc(x / y)), api=None,
       names=lambda x, y: "FmodBackward1" if isinstance(y, Tensor) else "FmodBackward0", refuses="bc",
       saves=((), (0, 1)))
binary("floor_divide", _floor_divide, None, differentiable=False,
       operators=("__floordiv__", "__rfloordiv__", "__ifloordiv__"), refuses="bc")
for _name, _api, _ops, _refuses in (("eq", "equal", "__eq__", None), ("ne", "not_equal", "__ne__", None),
                                    ("lt", "less", "__lt__", "c"), ("le", "less_equal", "__le__", "c"),
                                    ("gt", "greater", "__gt__", "c"), ("ge", "greater_equal", "__ge__", "c")):
    binary(_name, (lambda f: lambda xp, x, y: f(x, y))(getattr(operator, _ops)), None, api=_api,
           operators=(_ops,), differentiable=False, refuses=_refuses, aliases=(_api,) if _name != "eq" else (),
           bool_fwd=(lambda f: lambda xp, x, y: f(as_uint8(xp, x), as_uint8(xp, y)))(getattr(operator, _ops)))
for _name, _ops in (("logical_and", ()), ("logical_or", ()), ("logical_xor", ())):
    binary(_name, (lambda f: lambda xp, x, y: getattr(xp, f)(as_bool(xp, x), as_bool(xp, y)))(_name),
           None, differentiable=False, tensors_only=True)
for _name, _ops in (("bitwise_and", ("__and__", "__rand__", "__iand__")),
                    ("bitwise_or", ("__or__", "__ror__", "__ior__")),
                    ("bitwise_xor", ("__xor__", "__rxor__", "__ixor__")),
                    ("bitwise_left_shift", ("__lshift__", "__rlshift__", "__ilshift__")),
                    ("bitwise_right_shift", ("__rshift__", "__rrshift__", "__irshift__"))):
    binary(_name, (lambda f: lambda xp, x, y: getattr(xp, f)(x, y))(_name), None, operators=_ops,
           differentiable=False, refuses="fc")


# ------------------------------------------------------------------ ternary
def _lerp_sig(input, end, weight):
    refusing("lerp", "bi")(input.dtype)  # the input's own dtype: a float weight would promote it
    return (input, end, weight), ()
def _lerp(xp, x, end, weight):
    """PyTorch's two-sided formula: exact at both ends (``weight`` 0 gives ``x``, 1 gives ``end``)."""
    diff = end - x
    if _is_scalar(weight):
        return x + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    return xp.where(xp.abs(weight) < 0.5, x + weight * diff, end - diff * (1 - weight))


defop("lerp", _lerp, (lambda ns, g, ans, x, end, w: g * (1 - w), lambda ns, g, ans, x, end, w: g * w,
                      lambda ns, g, ans, x, end, w: g * (end - x)),
      kind="custom", inplace=True, out=True, sig=_lerp_sig, scalar_edges=False,  # lerp.Scalar: a plain number
      names=lambda x, end, w: "LerpBackward1" if isinstance(w, Tensor) else "LerpBackward0", overlap="elementwise",
      saves=((2,), (2,), (0, 1)))
defop("addcmul", lambda xp, x, t1, t2, value=1: x + value * t1 * t2,
      (lambda ns, g, ans, x, t1, t2, value=1: g, lambda ns, g, ans, x, t1, t2, value=1: g * value * t2,
       lambda ns, g, ans, x, t1, t2, value=1: g * value * t1),
      kind="custom", inplace=True, out=True,
      sig=lambda input, tensor1, tensor2, *, value=1: ((input, tensor1, tensor2), (value,)), refuses="b",
      overlap="elementwise", saves=((), (2, 3), (1, 3)))
defop("addcdiv", lambda xp, x, t1, t2, value=1: x + value * t1 / t2,
      (lambda ns, g, ans, x, t1, t2, value=1: g, lambda ns, g, ans, x, t1, t2, value=1: g * value / t2,
       lambda ns, g, ans, x, t1, t2, value=1: -g * value * t1 / (t2 * t2)),
      kind="custom", inplace=True, out=True,
      sig=lambda input, tensor1, tensor2, *, value=1: ((input, tensor1, tensor2), (value,)),
      refuses={"b": _INTEGER_ADDCDIV, "i": _INTEGER_ADDCDIV}, overlap="elementwise", saves=((), (2, 3), (1, 2, 3)))

defop("where", lambda xp, c, x, y: xp.where(c if c.dtype == xp.bool else c != 0, x, y),  # c may come promoted
      (None, lambda ns, g, ans, c, x, y: ns.where_zero(c, g),
       lambda ns, g, ans, c, x, y: ns.where(c, ns.full_like(g, 0), g)), raw_any_dtype=(0,), kind="where", api=True, sig=lambda condition, input, other: ((condition, input, other), ()),
      api_sig=lambda condition, x1, x2, /: ((condition, *api_promoted(x1, x2)), ()), method=False,
      saves=((), (0,), (0,)))


def api_promoted(x1, x2):
    """The array API promotes two arrays by dtype alone -- a 0-d array is not outranked as in PyTorch -- so an
    operand of another dtype is cast first (Python scalars keep PyTorch's rule, which agrees with the standard)."""
    if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1._dtype is not x2._dtype:
        d = _dtypes.promote_types(x1._dtype, x2._dtype)
        return (x1 if x1._dtype is d else x1.to(d)), (x2 if x2._dtype is d else x2.to(d))
    return x1, x2


# ------------------------------------------------------------------ clamp
def _clamp(xp, x, *bounds_and_which):
    """``which`` ('min', 'max', 'both', '') says which bounds follow ``x``; NaN in ``x`` or a bound propagates."""
    *bounds, which = bounds_and_which
    if not which:
        return xp.asarray(x, copy=True)
    if which in ("min", "both"):
        x = xp.maximum(x, bounds[0])
    if which in ("max", "both"):
        x = xp.minimum(x, bounds[-1])
    return x


def _clamp_vjp(ns, g, ans, x, *bounds_and_which):
    """PyTorch's clamp gradients: to ``x`` within the closed bounds, to a tensor bound where it is taken."""
    *bounds, which = bounds_and_which
    lo = bounds[0] if which in ("min", "both") else None
    hi = bounds[-1] if which in ("max", "both") else None
    inside = (x >= lo) if hi is None else (x <= hi) if lo is None else (x >= lo) & (x <= hi)
    grads = [ns.where_zero(inside, g)]
    if lo is not None:
        grads.append(ns.where_zero((x < lo) & (lo < hi) if hi is not None else x < lo, g)
                     if is_array(lo) else None)
    if hi is not None:
        grads.append(ns.where_zero((x > hi) | (hi < lo) if lo is not None else x > hi, g)
                     if is_array(hi) else None)
    return grads


def _clamp_args(x, lo, hi):
    which = "both" if lo is not None and hi is not None else "min" if lo is not None else "max"
    return (x, *(b for b in (lo, hi) if b is not None)), (which,)


def _clamp_sig(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    return _clamp_args(input, min, max)


def _clip_sig(x, /, min=None, max=None):
    """The standard's ``clip``: bounds take ``x``'s dtype (they do not promote); no bounds is the identity."""
    if min is None and max is None:
        return (x,), ("",)
    cast = lambda b: b.to(x.dtype) if isinstance(b, Tensor) and b.dtype is not x.dtype else b  # noqa: E731
    return _clamp_args(x, cast(min), cast(max))


defop("clamp", _clamp, vjp_all=_clamp_vjp, kind="custom", sig=_clamp_sig, inplace=True, out=True, api="clip",
      api_sig=_clip_sig,
      names=lambda x, *rest: "ClampBackward0" if any(isinstance(b, Tensor) for b in rest) else "ClampBackward1",
      refuses=_NO_COMPLEX_CLAMP, aliases=("clip",), torch_inplace=True, overlap="elementwise", saves=(0, "*"))
defop("clamp_min", _clamp, vjp_all=_clamp_vjp, kind="custom", inplace=True, out=True,
      sig=lambda input, min: _clamp_args(input, min, None),
      names=lambda x, lo, which: "ClampBackward0" if isinstance(lo, Tensor) else "ClampMinBackward0",
      refuses=_NO_COMPLEX_CLAMP, torch_inplace=True, overlap="elementwise", saves=(0, "*"))
defop("clamp_max", _clamp, vjp_all=_clamp_vjp, kind="custom", inplace=True, out=True,
      sig=lambda input, max: _clamp_args(input, None, max),
      names=lambda x, hi, which: "ClampBackward0" if isinstance(hi, Tensor) else "ClampMaxBackward0",
      refuses=_NO_COMPLEX_CLAMP, torch_inplace=True, overlap="elementwise", saves=(0, "*"))


# ------------------------------------------------------------------ elementwise math written with other entries
def deg2rad(input):
    return _float(input) * (math.pi / 180)


def rad2deg(input):
    return _float(input) * (180 / math.pi)


defcomposite("deg2rad", deg2rad, inplace=True, out=True, torch_inplace=True)
defcomposite("rad2deg", rad2deg, inplace=True, out=True, torch_inplace=True)


def sgn(input):
    """``sign`` for real tensors; ``x / |x|`` (0 at 0) for complex ones."""
    if input.dtype.kind != "c":
        return input.sign()
    r = input.abs()
    return (input / r.where(r != 0, 1)).where(r != 0, 0)


defcomposite("sgn", sgn, inplace=True, out=True)


def angle(input):
    """The argument: ``atan2(imag, real)`` for complex, ``pi`` for negative reals and 0 otherwise (NaN stays)."""
    if input.dtype.kind == "c":
        return _fn("atan2")(_fn("imag")(input), _fn("real")(input))
    x = _float(input)
    return x.where(x.isnan(), x.new_full((), math.pi).where(x < 0, 0.0))


defcomposite("angle", angle, out=True)


def conj_physical(input):
    return input.conj() if input.dtype.kind == "c" else input.clone()


defcomposite("conj_physical", conj_physical, inplace=True, out=True)


def logaddexp2(input, other):
    """``log2(2**x + 2**y)``, through the stable ``logaddexp``."""
    ln2 = math.log(2)
    return _fn("logaddexp")(_float(input) * ln2, _as_tensor_like(other, input) * ln2) / ln2


defcomposite("logaddexp2", logaddexp2, out=True)


def float_power(input, exponent):
    """``pow`` computed in double precision (complex128 when either operand is complex)."""
    wide = _dtypes.complex128 if any(isinstance(v, complex) or (isinstance(v, Tensor) and v.dtype.kind == "c")
                                     for v in (input, exponent)) else _dtypes.float64
    base = input.to(wide) if isinstance(input, Tensor) else exponent.new_full((), input, dtype=wide)
    return base.pow(exponent.to(wide) if isinstance(exponent, Tensor) else exponent)


defcomposite("float_power", float_power, out=True)


def ldexp(input, other):
    """``input * 2**other``."""
    return _float(input) * _fn("pow")(2.0, other).to(_float(input).dtype) if isinstance(other, Tensor) else \
        _float(input) * 2.0 ** other


defcomposite("ldexp", ldexp, inplace=True, out=True, torch_inplace=True)


def _check_integers(name, *tensors):
    for t in tensors:
        if t.dtype.kind not in "iu":
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{t.dtype.scalar_name}\'')


def _gcd(xp, a, b):
    """Euclid's algorithm, a fixed number of steps (enough for the dtype: no data-dependent loop)."""
    a, b = xp.abs(a), xp.abs(b)
    a, b = xp.broadcast_arrays(a, b)
    zero = xp.zeros_like(b)
    one = xp.ones_like(b)
    for _ in range(int(xp.iinfo(a.dtype).bits * 1.45) + 2):  # Fibonacci worst case: log_phi(2**bits) steps
        nz = b != 0
        a, b = xp.where(nz, b, a), xp.where(nz, a % xp.where(nz, b, one), zero)
    return a


defop("_gcd", _gcd, differentiable=False, function=False, method=False)


def gcd(input, other):
    """The greatest common divisor (non-negative; ``gcd(0, 0) = 0``)."""
    _check_integers("gcd", input, other)
    return apply(TABLE["_gcd"].op, (input, other))


def lcm(input, other):
    """The least common multiple, ``|a / gcd(a, b) * b|`` (0 when either is 0)."""
    _check_integers("lcm", input, other)
    g = gcd(input, other)
    return (_fn("floor_divide")(input, g.where(g != 0, 1)) * other).abs().where(g != 0, 0)


defcomposite("gcd", gcd, inplace=True, out=True, torch_inplace=True)
defcomposite("lcm", lcm, inplace=True, out=True, torch_inplace=True)


def heaviside(input, values):
    """0 for negative, 1 for positive, ``values`` at 0 (PyTorch has no gradient for it: neither does this)."""
    if isinstance(values, Tensor) and values.dtype is not input.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes")
    input = input.detach()  # (no gradient: nothing is recorded)
    values = values.detach() if isinstance(values, Tensor) else values
    return (input > 0).to(input.dtype).where(input != 0, values)


defcomposite("heaviside", heaviside, inplace=True, out=True)


def isreal(input):
    """True where the imaginary part is 0 (everywhere, for real tensors)."""
    if input.dtype.kind == "c":
        return _fn("imag")(input) == 0
    return input.new_ones(input.shape, dtype=_dtypes.bool)


defcomposite("isreal", isreal)


frexp_result = collections.namedtuple("frexp", ["mantissa", "exponent"])
frexp_result.__module__ = "xtensor.return_types"


def frexp(input):
    """``input = mantissa * 2**exponent`` with ``0.5 <= |mantissa| < 1`` (0, inf and NaN: exponent 0, mantissa
    the input); int32 exponents. Exact: the exponent from log2 is corrected by one where it rounded."""
    if input.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    wide = input.detach().to(_dtypes.float64)  # (the exponent has no gradient: nothing of it is recorded)
    a = wide.abs()
    regular = a.isfinite() & (a != 0)
    e = a.where(regular, 1.0).log2().floor() + 1
    m = a.where(regular, 1.0) / _fn("pow")(2.0, e)
    e = e + (m >= 1).to(e.dtype) - (m < 0.5).to(e.dtype)
    e = e.where(regular, 0.0)
    mantissa = input / _fn("pow")(2.0, e).to(input.dtype) if input.dtype is not _dtypes.float16 else \
        (input.to(_dtypes.float64) / _fn("pow")(2.0, e)).to(input.dtype)
    return frexp_result(mantissa.where(regular, input), e.to(_dtypes.int32))


defcomposite("frexp", frexp)
