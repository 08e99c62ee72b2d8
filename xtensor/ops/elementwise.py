"""Elementwise ops: unary math, binary arithmetic, comparisons, logical and bitwise ops, where, clamp."""
import math
import operator

from .. import _dtypes
from .._table import TABLE, as_bool, as_uint8, defop, to_float, where_zero
from .._tensor import Tensor


# ------------------------------------------------------------------ elementwise, unary
def unary(name, fwd, vjp, *, float_only=False, api=True, **kw):
    options = dict(kind="unary", api=api, inplace=True, out=True, cast=to_float if float_only else None)
    return defop(name, fwd, (vjp,), **{**options, **kw})


unary("exp", lambda xp, x: xp.exp(x), lambda g, ans, x: g * ans, float_only=True)
unary("log", lambda xp, x: xp.log(x), lambda g, ans, x: g / x, float_only=True)
unary("log1p", lambda xp, x: xp.log1p(x), lambda g, ans, x: g / (x + 1), float_only=True, node="Log1PBackward0")
unary("expm1", lambda xp, x: xp.expm1(x), lambda g, ans, x: g * (ans + 1), float_only=True)
unary("sin", lambda xp, x: xp.sin(x), lambda g, ans, x: g * x.cos(), float_only=True)
unary("cos", lambda xp, x: xp.cos(x), lambda g, ans, x: -g * x.sin(), float_only=True)
unary("tan", lambda xp, x: xp.tan(x), lambda g, ans, x: g * (ans * ans + 1), float_only=True)
unary("tanh", lambda xp, x: xp.tanh(x), lambda g, ans, x: g * (1 - ans * ans), float_only=True)
unary("sigmoid", lambda xp, x: 1 / (1 + xp.exp(-x)), lambda g, ans, x: g * ans * (1 - ans),
      float_only=True, api=None)
unary("sqrt", lambda xp, x: xp.sqrt(x), lambda g, ans, x: g / (2 * ans), float_only=True)
unary("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda g, ans, x: -0.5 * g * ans * ans * ans,
      float_only=True, api=None)
unary("relu", lambda xp, x: xp.where(x > 0, x, xp.zeros_like(x)), lambda g, ans, x: where_zero(ans > 0, g),
      api=None)
unary("abs", lambda xp, x: xp.abs(x), lambda g, ans, x: g * x.sign())
unary("neg", lambda xp, x: -x, lambda g, ans, x: -g, api="negative", operators=("__neg__",))
unary("sign", lambda xp, x: xp.sign(x), lambda g, ans, x: g * 0)
unary("square", lambda xp, x: x * x, lambda g, ans, x: 2 * g * x, node="PowBackward0")  # PyTorch: pow(x, 2)
unary("reciprocal", lambda xp, x: 1 / x, lambda g, ans, x: -g * ans * ans, float_only=True, api=None)
unary("floor", lambda xp, x: xp.floor(x), lambda g, ans, x: g * 0)
unary("ceil", lambda xp, x: xp.ceil(x), lambda g, ans, x: g * 0)
unary("trunc", lambda xp, x: xp.trunc(x), lambda g, ans, x: g * 0)
unary("round", lambda xp, x: xp.round(x), lambda g, ans, x: g * 0)
unary("logical_not", lambda xp, x: xp.logical_not(xp.astype(x, xp.bool)), None, differentiable=False)
unary("isnan", lambda xp, x: xp.isnan(x), None, differentiable=False, inplace=False)
unary("isinf", lambda xp, x: xp.isinf(x), None, differentiable=False, inplace=False)
unary("isfinite", lambda xp, x: xp.isfinite(x), None, differentiable=False, inplace=False)
unary("clone", lambda xp, x: xp.asarray(x, copy=True), lambda g, ans, x: g, api=None)
defop("_contiguous", lambda xp, x, backend: backend.contiguous_copy(x), (lambda g, ans, x, backend: g,),
      node="CloneBackward0", saves=(), function=False, method=False)
unary("bitwise_invert", lambda xp, x: xp.logical_not(x) if x.dtype == xp.bool else xp.bitwise_invert(x), None,
      differentiable=False, operators=("__invert__",))
TABLE["bitwise_not"] = TABLE["bitwise_invert"]
unary("positive", lambda xp, x: x, lambda g, ans, x: g, operators=("__pos__",))


# ------------------------------------------------------------------ elementwise, binary
def binary(name, fwd, vjps, *, api=True, operators=(), cast=None, **kw):
    options = dict(kind="binary", api=api, inplace=True, out=True, operators=operators, cast=cast)
    return defop(name, fwd, vjps, **{**options, **kw})


def _pow_vjp_base(g, ans, x, y):
    return where_zero(y != 0, g * y * x ** (y - 1))


def _pow_vjp_exponent(g, ans, x, y):
    base = x if hasattr(x, "log") else ans.new_full((), x)
    return where_zero((base != 0) | (y < 0), g * ans * base.log())


binary("add", lambda xp, x, y: x + y, (lambda g, ans, x, y: g, lambda g, ans, x, y: g),
       operators=("__add__", "__radd__", "__iadd__"), saves=(),
       bool_fwd=lambda xp, x, y: xp.logical_or(as_bool(xp, x), as_bool(xp, y)))
binary("sub", lambda xp, x, y: x - y, (lambda g, ans, x, y: g, lambda g, ans, x, y: -g), api="subtract",
       operators=("__sub__", "__rsub__", "__isub__"), saves=(),
       names=lambda x, y: "SubBackward0" if isinstance(x, Tensor) else "RsubBackward1",
       scalar_edges=lambda x, y: isinstance(x, Tensor))
binary("mul", lambda xp, x, y: x * y, (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
       api="multiply", operators=("__mul__", "__rmul__", "__imul__"),
       bool_fwd=lambda xp, x, y: xp.logical_and(as_bool(xp, x), as_bool(xp, y)))
binary("div", lambda xp, x, y: x / y, (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y),
       api="divide", operators=("__truediv__", "__rtruediv__", "__itruediv__"), cast=to_float)
binary("pow", lambda xp, x, y: x ** y, (_pow_vjp_base, _pow_vjp_exponent),
       operators=("__pow__", "__rpow__", "__ipow__"),
       names=lambda x, y: "PowBackward2" if not isinstance(x, Tensor) else
       "PowBackward1" if isinstance(y, Tensor) else "PowBackward0", scalar_edges=False)
binary("maximum", lambda xp, x, y: xp.maximum(x, y),
       (lambda g, ans, x, y: where_zero(x >= y, g.where(x != y, g / 2)),
        lambda g, ans, x, y: where_zero(y >= x, g.where(x != y, g / 2))))
binary("minimum", lambda xp, x, y: xp.minimum(x, y),
       (lambda g, ans, x, y: where_zero(x <= y, g.where(x != y, g / 2)),
        lambda g, ans, x, y: where_zero(y <= x, g.where(x != y, g / 2))))
binary("atan2", lambda xp, x, y: xp.atan2(x, y),
       (lambda g, ans, x, y: g * y / (x * x + y * y), lambda g, ans, x, y: -g * x / (x * x + y * y)),
       cast=to_float)
binary("remainder", lambda xp, x, y: xp.remainder(x, y),
       (lambda g, ans, x, y: g, lambda g, ans, x, y: -g * (x / y).floor()),
       operators=("__mod__", "__rmod__", "__imod__"),
       names=lambda x, y: "RemainderBackward1" if isinstance(y, Tensor) else "RemainderBackward0")
binary("floor_divide", lambda xp, x, y: xp.floor_divide(x, y), None, differentiable=False,
       operators=("__floordiv__", "__rfloordiv__", "__ifloordiv__"))
for _name, _api, _ops in (("eq", "equal", "__eq__"), ("ne", "not_equal", "__ne__"), ("lt", "less", "__lt__"),
                          ("le", "less_equal", "__le__"), ("gt", "greater", "__gt__"),
                          ("ge", "greater_equal", "__ge__")):
    binary(_name, (lambda f: lambda xp, x, y: f(x, y))(getattr(operator, _ops)), None, api=_api,
           operators=(_ops,), differentiable=False,
           bool_fwd=(lambda f: lambda xp, x, y: f(as_uint8(xp, x), as_uint8(xp, y)))(getattr(operator, _ops)))
for _name, _ops in (("logical_and", ()), ("logical_or", ()), ("logical_xor", ())):
    binary(_name, (lambda f: lambda xp, x, y: getattr(xp, f)(as_bool(xp, x), as_bool(xp, y)))(_name),
           None, differentiable=False)
for _name, _api, _ops in (("bitwise_and", True, ("__and__", "__rand__", "__iand__")),
                          ("bitwise_or", True, ("__or__", "__ror__", "__ior__")),
                          ("bitwise_xor", True, ("__xor__", "__rxor__", "__ixor__"))):
    binary(_name, (lambda f: lambda xp, x, y: getattr(xp, f)(x, y))(_name), None, api=_api, operators=_ops,
           differentiable=False)

defop("where", lambda xp, c, x, y: xp.where(xp.astype(c, xp.bool), x, y),
      (None, lambda g, ans, c, x, y: where_zero(c, g), lambda g, ans, c, x, y: g.new_zeros(()).where(c, g)),
      kind="where", api=True, sig=lambda condition, input, other: ((condition, input, other), ()),
      method=False)
defop("clamp", lambda xp, x, lo, hi: xp.clip(x, lo, hi),
      (lambda g, ans, x, lo, hi: where_zero((x >= (-math.inf if lo is None else lo))
                                             & (x <= (math.inf if hi is None else hi)), g),),
      sig=lambda input, min=None, max=None: _clamp_sig(input, min, max),
      inplace=True, out=True, api="clip", node="ClampBackward1",  # PyTorch's clamp(Tensor, Scalar?, Scalar?)
      api_sig=lambda x, /, min=None, max=None: _clamp_sig(x, min, max))


def _clamp_bounds(x, lo, hi):
    if lo is None and hi is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    scalar = lambda v: v if v is None or isinstance(v, (int, float)) else v.item()  # noqa: E731
    return (scalar(lo), scalar(hi))


def _clamp_sig(x, lo, hi):
    bounds = _clamp_bounds(x, lo, hi)
    dtype = _dtypes.result_type(x, *(b for b in bounds if b is not None))
    return ((x if dtype is x.dtype else x.to(dtype)),), bounds
