"""The op table: one entry per op.

Each entry gives the forward over the backend namespace ``xp``, the VJPs -- one line per
input, ``(g, ans, *args) -> gradient``, written in xtensor ops so that they are themselves
differentiable -- and how the op is spelled: its torch signature (``sig``: arguments ->
``(tensors, params)``), its array-API name and signature, and which variants exist. The
namespaces, Tensor methods, ``_`` in-place forms, ``out=`` forms and operators are generated
from these entries by ``_variants``.
"""
import math
import operator

import numpy as np

from . import _dtypes
from ._dispatch import Op
from ._tensor import Tensor
from ._index import basic_meta, gather_positions, positions_of

TABLE = {}


class Entry:
    """How one op is exposed: the op plus its spellings."""

    __slots__ = ("op", "kind", "sig", "api", "api_sig", "method", "inplace", "out", "operators", "function")

    def __init__(self, op, kind, sig, api, api_sig, method, inplace, out, operators, function):
        self.op, self.kind, self.sig, self.api, self.api_sig = op, kind, sig, api, api_sig
        self.method, self.inplace, self.out, self.operators, self.function = \
            method, inplace, out, operators, function


def defop(name, fwd, vjps=None, *, kind="custom", sig=None, api=None, api_sig=None, method=True,
          inplace=False, out=False, operators=(), function=True, **op_options):
    """Register an op and its spellings; ``api=True`` means the array-API name equals ``name``."""
    op = Op(name, fwd, vjps, **op_options)
    TABLE[name] = Entry(op, kind, sig, name if api is True else api, api_sig, method, inplace, out,
                        operators, function)
    return op


def _to_float(d):
    return d if d.kind in "fc" else _dtypes.get_default_dtype()


def _sum_dtype(d):
    return _dtypes.int64 if d.kind in "biu" else d


def _as_bool(xp, x):
    """``x`` (an array or a Python scalar) as booleans."""
    return xp.astype(x, xp.bool) if hasattr(x, "dtype") else bool(x)


def _as_uint8(xp, x):
    """Booleans as numbers: the array API orders and adds numbers only."""
    return xp.astype(x, xp.uint8) if hasattr(x, "dtype") else int(x)


def _where_zero(cond, g):
    """``g`` where ``cond`` holds, else 0 (``cond`` may be a plain bool when an operand was a scalar)."""
    if not hasattr(cond, "_dtype"):
        return g if cond else g * 0
    return g.where(cond, g.new_zeros(()))


# ------------------------------------------------------------------ elementwise, unary
def unary(name, fwd, vjp, *, float_only=False, api=True, **kw):
    options = dict(kind="unary", api=api, inplace=True, out=True, cast=_to_float if float_only else None)
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
unary("relu", lambda xp, x: xp.where(x > 0, x, xp.zeros_like(x)), lambda g, ans, x: _where_zero(ans > 0, g),
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
    return _where_zero(y != 0, g * y * x ** (y - 1))


def _pow_vjp_exponent(g, ans, x, y):
    base = x if hasattr(x, "log") else ans.new_full((), x)
    return _where_zero((base != 0) | (y < 0), g * ans * base.log())


binary("add", lambda xp, x, y: x + y, (lambda g, ans, x, y: g, lambda g, ans, x, y: g),
       operators=("__add__", "__radd__", "__iadd__"), saves=(),
       bool_fwd=lambda xp, x, y: xp.logical_or(_as_bool(xp, x), _as_bool(xp, y)))
binary("sub", lambda xp, x, y: x - y, (lambda g, ans, x, y: g, lambda g, ans, x, y: -g), api="subtract",
       operators=("__sub__", "__rsub__", "__isub__"), saves=(),
       names=lambda x, y: "SubBackward0" if isinstance(x, Tensor) else "RsubBackward1",
       scalar_edges=lambda x, y: isinstance(x, Tensor))
binary("mul", lambda xp, x, y: x * y, (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
       api="multiply", operators=("__mul__", "__rmul__", "__imul__"),
       bool_fwd=lambda xp, x, y: xp.logical_and(_as_bool(xp, x), _as_bool(xp, y)))
binary("div", lambda xp, x, y: x / y, (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y),
       api="divide", operators=("__truediv__", "__rtruediv__", "__itruediv__"), cast=_to_float)
binary("pow", lambda xp, x, y: x ** y, (_pow_vjp_base, _pow_vjp_exponent),
       operators=("__pow__", "__rpow__", "__ipow__"),
       names=lambda x, y: "PowBackward2" if not isinstance(x, Tensor) else
       "PowBackward1" if isinstance(y, Tensor) else "PowBackward0", scalar_edges=False)
binary("maximum", lambda xp, x, y: xp.maximum(x, y),
       (lambda g, ans, x, y: _where_zero(x >= y, g.where(x != y, g / 2)),
        lambda g, ans, x, y: _where_zero(y >= x, g.where(x != y, g / 2))))
binary("minimum", lambda xp, x, y: xp.minimum(x, y),
       (lambda g, ans, x, y: _where_zero(x <= y, g.where(x != y, g / 2)),
        lambda g, ans, x, y: _where_zero(y <= x, g.where(x != y, g / 2))))
binary("atan2", lambda xp, x, y: xp.atan2(x, y),
       (lambda g, ans, x, y: g * y / (x * x + y * y), lambda g, ans, x, y: -g * x / (x * x + y * y)),
       cast=_to_float)
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
           bool_fwd=(lambda f: lambda xp, x, y: f(_as_uint8(xp, x), _as_uint8(xp, y)))(getattr(operator, _ops)))
for _name, _ops in (("logical_and", ()), ("logical_or", ()), ("logical_xor", ())):
    binary(_name, (lambda f: lambda xp, x, y: getattr(xp, f)(_as_bool(xp, x), _as_bool(xp, y)))(_name),
           None, differentiable=False)
for _name, _api, _ops in (("bitwise_and", True, ("__and__", "__rand__", "__iand__")),
                          ("bitwise_or", True, ("__or__", "__ror__", "__ior__")),
                          ("bitwise_xor", True, ("__xor__", "__rxor__", "__ixor__"))):
    binary(_name, (lambda f: lambda xp, x, y: getattr(xp, f)(x, y))(_name), None, api=_api, operators=_ops,
           differentiable=False)

defop("where", lambda xp, c, x, y: xp.where(xp.astype(c, xp.bool), x, y),
      (None, lambda g, ans, c, x, y: _where_zero(c, g), lambda g, ans, c, x, y: g.new_zeros(()).where(c, g)),
      kind="where", api=True, sig=lambda condition, input, other: ((condition, input, other), ()),
      method=False)
defop("clamp", lambda xp, x, lo, hi: xp.clip(x, lo, hi),
      (lambda g, ans, x, lo, hi: _where_zero((x >= (-math.inf if lo is None else lo))
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


# ------------------------------------------------------------------ reductions
def _dims(dim, ndim):
    """Normalized, sorted reduction dims (all dims for ``None``)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    n = max(ndim, 1)
    out = []
    for d in dim:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
    return tuple(sorted(out)) if ndim else ()


def _unreduce(g, shape, dims, keepdim):
    """Broadcast a reduction's gradient back over the reduced ``dims`` of ``shape``."""
    if not keepdim and dims and g.ndim:
        g = g.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return g.expand(shape)


def _reduce_sig(input, dim=None, keepdim=False, *, dtype=None):
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    return (input,), (_dims(dim, input.ndim), keepdim, dtype)


def _reduce_api_sig(x, /, *, axis=None, keepdims=False, dtype=None):
    return (x,), (_dims(axis, x.ndim), keepdims, dtype)


def _sum_fwd(xp, x, dims, keepdim, dtype):
    return xp.sum(x, axis=dims, keepdims=keepdim, dtype=None if dtype is None else _native_dtype(xp, dtype))


def _mean_fwd(xp, x, dims, keepdim, dtype):
    if dtype is not None:
        x = xp.astype(x, _native_dtype(xp, dtype))
    return xp.mean(x, axis=dims, keepdims=keepdim)


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


defop("sum", _sum_fwd, (lambda g, ans, x, dims, keepdim, dtype: _unreduce(g, x.shape, dims, keepdim),),
      sig=_reduce_sig, api=True, api_sig=_reduce_api_sig, out=True, saves=(), cast=_sum_dtype)
defop("mean", _mean_fwd,
      (lambda g, ans, x, dims, keepdim, dtype: _unreduce(g, x.shape, dims, keepdim) / _count(x.shape, dims),),
      sig=_reduce_sig, api=True, api_sig=lambda x, /, *, axis=None, keepdims=False:
      ((x,), (_dims(axis, x.ndim), keepdims, None)), out=True, saves=())


def _mean_check(op_sig):
    def sig(input, *args, **kwargs):
        tensors, params = op_sig(input, *args, **kwargs)
        dtype = params[2] or input.dtype
        if dtype.kind not in "fc":
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {input.dtype.scalar_name}")
        return tensors, params
    return sig


TABLE["mean"].sig = _mean_check(_reduce_sig)


def _extreme_vjp(g, ans, x, dims, keepdim):
    """Gradient of amax/amin: shared evenly among tied extremes (PyTorch's rule)."""
    mask = x == _unreduce(ans, x.shape, dims, keepdim)
    return _unreduce(g, x.shape, dims, keepdim) * mask / _unreduce(mask.sum(dims, keepdim=keepdim), x.shape,
                                                                   dims, keepdim)


def _amax_sig(input, dim=(), keepdim=False):
    dims = _dims(None if dim == () else dim, input.ndim)
    _nonempty(input, dims, "max")
    return (input,), (dims, keepdim)


def _nonempty(x, dims, name):
    if any(x.shape[d] == 0 for d in dims) or (not dims and x.numel() == 0):
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                         "Specify the reduction dim with the 'dim' argument.")


for _name, _fn in (("amax", "max"), ("amin", "min")):
    defop(_name, (lambda f: lambda xp, x, dims, keepdim: getattr(xp, f)(x, axis=dims, keepdims=keepdim))(_fn),
          (_extreme_vjp,), sig=_amax_sig, api=_fn, out=True,
          api_sig=lambda x, /, *, axis=None, keepdims=False: ((x,), (_dims(axis, x.ndim), keepdims)))


def _arg_sig(input, dim=None, keepdim=False):
    if dim is None:
        return (input,), (None, False)
    dims = _dims(dim, input.ndim)
    return (input,), ((dims[0], keepdim) if input.ndim else (None, False))


def _arg_fwd(f):
    def fwd(xp, x, dim, keepdim):
        if dim is None:
            return getattr(xp, f)(xp.reshape(x, (-1,)))
        return getattr(xp, f)(x, axis=dim, keepdims=keepdim)
    return fwd


defop("argmax", _arg_fwd("argmax"), None, sig=_arg_sig, differentiable=False, api=True, out=True,
      api_sig=lambda x, /, *, axis=None, keepdims=False: ((x,), (axis, keepdims)))
defop("argmin", _arg_fwd("argmin"), None, sig=_arg_sig, differentiable=False, api=True, out=True,
      api_sig=lambda x, /, *, axis=None, keepdims=False: ((x,), (axis, keepdims)))


def _max_dim_vjp(g, ans, x, dim, keepdim):
    """Gradient of ``max(x, dim)``: all of it to the index that was returned (PyTorch's rule)."""
    if x.ndim == 0:
        return g[0]
    idx = ans[1] if keepdim else ans[1].unsqueeze(dim)
    hits = _arange_along(x, dim) == idx
    return _where_zero(hits, (g[0] if keepdim else g[0].unsqueeze(dim)).expand(x.shape))


def _arange_along(x, dim):
    from ._creation import arange
    shape = [1] * x.ndim
    shape[dim] = x.shape[dim]
    return arange(x.shape[dim], backend=x._backend).reshape(shape)


def _max_dim_fwd(f, arg):
    def fwd(xp, x, dim, keepdim):
        if x.ndim == 0:
            return x, xp.zeros((), dtype=xp.int64)
        return getattr(xp, f)(x, axis=dim, keepdims=keepdim), getattr(xp, arg)(x, axis=dim, keepdims=keepdim)
    return fwd


defop("max_dim", _max_dim_fwd("max", "argmax"), (_max_dim_vjp,), nout=2, node="MaxBackward0", function=False,
      method=False, sig=None)
defop("min_dim", _max_dim_fwd("min", "argmin"), (_max_dim_vjp,), nout=2, node="MinBackward0", function=False,
      method=False, sig=None)


# ------------------------------------------------------------------ linear algebra
def _matmul_sig(input, other):
    if not hasattr(other, "_dtype") or not hasattr(input, "_dtype"):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(other).__name__}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{input.dtype.name} != {other.dtype.name}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D and "
                           f"{other.ndim}D")
    k1 = input.shape[-1]
    k2 = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if k1 != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_shape_str(input)} and {_shape_str(other)})")
    return (input, other), ()


def _shape_str(t):
    return "x".join(str(n) for n in (t.shape if t.ndim > 1 else (1, *t.shape)))


def _mm_sig(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    return _matmul_sig(input, mat2)


# PyTorch's matmul dispatches on the ranks (batched products end in a reshape: UnsafeViewBackward0)
_MATMUL_NODES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0", (1, 2): "SqueezeBackward4"}


def _matmul_vjp_x(g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * y
    g2 = g.unsqueeze(-1) if y.ndim == 1 else g
    g2 = g2.unsqueeze(-2) if x.ndim == 1 else g2
    gx = g2 @ (y.unsqueeze(-1) if y.ndim == 1 else y).mT
    return gx.squeeze(-2) if x.ndim == 1 else gx


def _matmul_vjp_y(g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * x
    g2 = g.unsqueeze(-1) if y.ndim == 1 else g
    g2 = g2.unsqueeze(-2) if x.ndim == 1 else g2
    gy = (x.unsqueeze(-2) if x.ndim == 1 else x).mT @ g2
    return gy.squeeze(-1) if y.ndim == 1 else gy


defop("matmul", lambda xp, x, y: xp.matmul(x, y), (_matmul_vjp_x, _matmul_vjp_y), sig=_matmul_sig, api=True,
      out=True, operators=("__matmul__", "__rmatmul__"), names=lambda x, y: _MATMUL_NODES.get(
          (x.ndim, y.ndim), "UnsafeViewBackward0"))
defop("mm", lambda xp, x, y: xp.matmul(x, y), (_matmul_vjp_x, _matmul_vjp_y), sig=_mm_sig, out=True)


# ------------------------------------------------------------------ views
def _view_shape(shape, numel):
    """Resolve one ``-1`` in a requested shape, with PyTorch's errors."""
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def view_strides(old_shape, old_stride, new_shape):
    """Strides viewing ``old`` as ``new_shape`` without a copy, or None (PyTorch's computeStride)."""
    if not old_shape:
        return tuple(1 for _ in new_shape)
    numel = math.prod(old_shape)
    if numel == 0:
        return tuple(reversed(list(np.cumprod([1] + [max(s, 1) for s in reversed(new_shape[1:])])))) \
            if new_shape else ()
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _view_sig(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], _dtypes.DType):
        raise NotImplementedError("view(dtype) is not supported")
    shape = _view_shape(shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape, input.numel())
    s, st, _ = input._meta()
    if view_strides(s, st, shape) is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return (input,), (shape,)


def _view_meta(shape, stride, offset, new_shape):
    return new_shape, view_strides(shape, stride, new_shape), offset


def _reshape_vjp(g, ans, x, shape):
    return g.reshape(x.shape)


defop("view", lambda xp, x, shape: xp.reshape(x, shape), (_reshape_vjp,), sig=_view_sig, view=_view_meta,
      saves=())
defop("_reshape_copy", lambda xp, x, shape: xp.reshape(xp.asarray(x, copy=True), shape), (_reshape_vjp,),
      node="UnsafeViewBackward0", saves=(), function=False, method=False)


def _permute_sig(input, *dims):
    dims = dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims
    n = input.ndim
    norm = tuple(_dims(d, n)[0] for d in dims) if n else tuple(dims)
    if sorted(norm) != list(range(n)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}" if len(norm) != n else
                           "permute(): duplicate dims are not allowed.")
    return (input,), (norm,)


def _permute_meta(shape, stride, offset, dims):
    return tuple(shape[d] for d in dims), tuple(stride[d] for d in dims), offset


defop("permute", lambda xp, x, dims: xp.permute_dims(x, dims),
      (lambda g, ans, x, dims: g.permute(tuple(int(i) for i in np.argsort(dims))),),
      sig=_permute_sig, view=_permute_meta, api="permute_dims", saves=(),
      api_sig=lambda x, /, axes: _permute_sig(x, tuple(axes)))


def _transpose_dims(ndim, d0, d1):
    if ndim == 0:
        return ()
    dims = list(range(ndim))
    a, b = _dims(d0, ndim)[0], _dims(d1, ndim)[0]
    dims[a], dims[b] = dims[b], dims[a]
    return tuple(dims)


defop("transpose", lambda xp, x, dims: xp.permute_dims(x, dims) if dims else x,
      (lambda g, ans, x, dims: g.permute(tuple(int(i) for i in np.argsort(dims))) if dims else g,),
      sig=lambda input, dim0, dim1: ((input,), (_transpose_dims(input.ndim, dim0, dim1),)),
      view=lambda shape, stride, offset, dims: _permute_meta(shape, stride, offset, dims) if dims
      else (shape, stride, offset), saves=())


def _t_sig(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return (input,), ((1, 0) if input.ndim == 2 else (),)


defop("t", TABLE["transpose"].op.fwd, TABLE["transpose"].op.vjps, sig=_t_sig, view=TABLE["transpose"].op.view,
      saves=(), inplace=False)


def _expand_sig(input, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
    shape = tuple(input.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({input.type()}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = []
    for i, s in enumerate(sizes):
        cur = shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            s = cur
        elif cur is not None and cur != 1 and cur != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(shape)}")
        out.append(int(s))
    return (input,), (tuple(out),)


def _expand_meta(shape, stride, offset, sizes):
    lead = len(sizes) - len(shape)
    new_stride = tuple(0 if i < lead or (shape[i - lead] == 1 and s != 1) else stride[i - lead]
                       for i, s in enumerate(sizes))
    return sizes, new_stride, offset


defop("expand", lambda xp, x, sizes: xp.broadcast_to(x, sizes), (lambda g, ans, x, sizes: g,), sig=_expand_sig,
      view=_expand_meta, saves=())


def _squeeze_sig(input, dim=None):
    shape = input.shape
    dims = _dims(dim, input.ndim)
    return (input,), (tuple(d for d in dims if shape[d] == 1),)


def _squeeze_meta(shape, stride, offset, dims):
    keep = [i for i in range(len(shape)) if i not in dims]
    return tuple(shape[i] for i in keep), tuple(stride[i] for i in keep), offset


defop("squeeze", lambda xp, x, dims: xp.squeeze(x, axis=dims) if dims else x,
      (lambda g, ans, x, dims: g.reshape(x.shape),), sig=_squeeze_sig, view=_squeeze_meta, saves=(),
      api=True, api_sig=lambda x, /, axis: ((x,), (_dims(axis, x.ndim),)))


def _unsqueeze_sig(input, dim):
    n = input.ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return (input,), (dim % n,)


def _unsqueeze_meta(shape, stride, offset, dim):
    new_stride = stride[dim] * shape[dim] if dim < len(shape) else 1
    return shape[:dim] + (1,) + shape[dim:], stride[:dim] + (new_stride,) + stride[dim:], offset


defop("unsqueeze", lambda xp, x, dim: xp.expand_dims(x, axis=dim), (lambda g, ans, x, dim: g.squeeze(dim),),
      sig=_unsqueeze_sig, view=_unsqueeze_meta, saves=(), api="expand_dims",
      api_sig=lambda x, /, axis=0: _unsqueeze_sig(x, axis))


# ------------------------------------------------------------------ joining
def _cat_sig(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in tensors if t.ndim), tensors[0])
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _dims(dim, ref.ndim)[0]
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0:
            continue
        if t.ndim != ref.ndim or any(a != b for k, (a, b) in enumerate(zip(t.shape, ref.shape)) if k != d):
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                               f"{_mismatch(ref, t, d)} but got size {_mismatch(t, ref, d)} for tensor number "
                               f"{i} in the list.")
    return tensors, (d,)


def _mismatch(a, b, d):
    for k, (x, y) in enumerate(zip(a.shape, b.shape)):
        if k != d and x != y:
            return x
    return a.ndim


def _cat_vjp(g, ans, *args):
    *tensors, d = args
    grads, start = [], 0
    for t in tensors:
        n = t.shape[d] if t.ndim else 0
        grads.append(g.narrow(d, start, n) if t.ndim == g.ndim else g.new_zeros(t.shape))
        start += n
    return grads


def _stack_sig(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
    n = tensors[0].ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return tensors, (dim % n,)


defop("cat", lambda xp, *args: xp.concat(args[:-1], axis=args[-1]), vjp_all=_cat_vjp, sig=_cat_sig,
      method=False, api="concat", out=True,
      api_sig=lambda arrays, /, *, axis=0: _cat_sig(arrays, axis) if axis is not None else
      _cat_sig([a.reshape(-1) for a in arrays], 0))
defop("stack", lambda xp, *args: xp.stack(args[:-1], axis=args[-1]),
      vjp_all=lambda g, ans, *args: [g.select(args[-1], i) for i in range(len(args) - 1)],
      sig=_stack_sig, method=False, api=True, out=True,
      api_sig=lambda arrays, /, *, axis=0: _stack_sig(arrays, axis))


# ------------------------------------------------------------------ indexing
def _getitem_fwd(xp, x, index, backend):
    if backend.native_indexing:
        return x[index]
    return gather_positions(xp, x, positions_of(tuple(x.shape))[index])


def _getitem_vjp(g, ans, x, index, backend):
    positions = positions_of(tuple(x.shape))[index].reshape(-1)
    order = np.argsort(positions, kind="stable")
    ranked = positions[order]
    if ranked.size < 2 or (ranked[1:] != ranked[:-1]).all():
        return g.new_zeros(x.shape).index_put_host(index, g)
    # an advanced index that repeats elements: their gradients add up. Scatter in rounds, each round one
    # occurrence of every repeated element (a scatter keeps only one value per position).
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    rank = np.empty_like(positions)
    rank[order] = np.arange(ranked.size) - np.repeat(starts, np.diff(np.r_[starts, ranked.size]))
    flat = g.reshape(-1)
    total = None
    for r in range(int(rank.max()) + 1):
        picked = np.flatnonzero(rank == r)
        part = g.new_zeros((x.numel(),)).index_put_host((positions[picked],), flat.getitem_host((picked,)))
        total = part if total is None else total + part
    return total.reshape(x.shape)


def _getitem_meta(shape, stride, offset, index, backend):
    return basic_meta(shape, stride, offset, index)


getitem_view = defop("getitem_view", lambda xp, x, index, backend: x[index], (_getitem_vjp,), view=_getitem_meta, saves=(),
                     function=False, method=False, node="SliceBackward0")
getitem_copy = defop("getitem_copy", _getitem_fwd, (_getitem_vjp,), saves=(), function=False, method=False,
                     node="IndexBackward0")


def _index_put_fwd(xp, x, v, index, backend):
    positions = positions_of(tuple(x.shape))[index]
    flat = xp.reshape(x, (-1,))
    values = xp.reshape(xp.broadcast_to(xp.astype(v, x.dtype), positions.shape), (-1,))
    return xp.reshape(backend.scatter_flat(flat, positions.reshape(-1), values), x.shape)


index_put = defop(
    "index_put", _index_put_fwd,
    (lambda g, ans, x, v, index, backend: g.index_put_host(index, g.new_zeros(())),
     lambda g, ans, x, v, index, backend: g.getitem_host(index)),
    saves=(), function=False, method=False, node="IndexPutBackward0")


def _native_dtype(xp, dtype):
    return getattr(xp, dtype.name)


# ------------------------------------------------------------------ conversion
defop("to_dtype", lambda xp, x, dtype: xp.astype(x, getattr(xp, dtype.name)),
      (lambda g, ans, x, dtype: g.to(x.dtype),), node="ToCopyBackward0", saves=(), function=False,
      method=False)
defop("_to_backend", None, (lambda g, ans, x, adapter: g.to(x.backend),), node="ToCopyBackward0", saves=(),
      function=False, method=False)
