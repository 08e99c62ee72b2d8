"""Reductions, statistics, sorting, searching, set and utility functions.

PyTorch names a reduction's node per overload (``sum()`` -> SumBackward0, ``sum(dim)`` ->
SumBackward1): the signature marks dims the caller spelled (``Dims``) and the entry's ``names`` rule
reads the mark.
Functions with several results (``sort``, ``topk``, ``median(dim)``...) return PyTorch's named
tuples (``.values``, ``.indices``); the array-API ``unique_*`` functions return the standard's.

Gradient conventions where the function has a kink (PyTorch's, checked against torch in
tests/test_reductions.py):

* a reduction to one value of the whole tensor (``amax``/``amin``, ``max()``/``min()``,
  ``median()``, ``norm(p=inf)``): the gradient is shared evenly among the tied elements;
* a selection along a dim (``max``/``min``/``median``/``nanmedian``/``kthvalue``/``mode`` with
  ``dim``, ``topk``, ``sort``, ``cummax``/``cummin``): all of it goes to the index returned;
* ``std`` of constant data and ``norm`` at 0 (p > 1): 0, where the formula divides by 0;
* ``prod`` and ``cumprod`` with zeros: the exact gradient (the product of the other factors).

Sorting is stable everywhere (NaN sorts as the largest value). Among tied elements PyTorch leaves
the index that ``kthvalue``/``median(dim)``/``topk`` return unspecified; xtensor returns the one
the stable order puts there (the values, and so the gradient's total, are the same).
Selections that scatter a gradient to many indices (``topk``, ``cummax``) and ``mode`` compare
along the dim pairwise (memory ``n * k`` and ``n * n``), which keeps them in xtensor ops on every
backend; ``sort`` undoes its permutation instead.
"""
import builtins
import collections
import math

import numpy as np

from .. import _dtypes
from .._dispatch import Dims, apply, overload_name
from .._inplace import assign_out
from .._table import TABLE, defcomposite, defop, dims_of, native_dtype, refusing, sum_dtype, to_float, via_uint8
from .._tensor import Tensor
from ._composite import _float, _fn


# ------------------------------------------------------------------ named results
def _result_repr(self):
    body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"{self.__module__}.{type(self).__name__}(\n{body})"


def _result_type(name, fields=("values", "indices"), module="xtensor.return_types"):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = module
    cls.__repr__ = _result_repr
    return cls


RESULTS = {name: _result_type(name) for name in (
    "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin")}
UniqueAllResult = _result_type("UniqueAllResult", ("values", "indices", "inverse_indices", "counts"),
                               "xtensor.array_api")
UniqueCountsResult = _result_type("UniqueCountsResult", ("values", "counts"), "xtensor.array_api")
UniqueInverseResult = _result_type("UniqueInverseResult", ("values", "inverse_indices"), "xtensor.array_api")


# ------------------------------------------------------------------ shared helpers
def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _all_dims(dim):
    return dim is None or (not isinstance(dim, int) and len(dim) == 0)


def _reduce_sig(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return (input,), (dims_of(None, input.ndim), keepdim, dtype)
    return (input,), (Dims(dims_of(None if _all_dims(dim) else dim, input.ndim)), keepdim, dtype)


def _api_sum_dtype(dtype):
    """The standard's accumulator: default int for bool/signed ints, uint64 for unsigned ints."""
    if dtype.kind == "u":
        return _dtypes.uint64
    return _dtypes.int64 if dtype.kind in "bi" else None


def _reduction(name, fwd, vjps, **options):
    """The primitive under ``name()``/``name(dim)``: one entry, its node named per overload."""
    return defop(f"_{name}", fwd, vjps, names=overload_name(f"{name.capitalize()}Backward"), function=False,
                 method=False, **options)


def _float_only(x, name):
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}(): expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.scalar_name}")


def _one_dim(x, dim):
    """A single dim, normalized (a 0-d tensor takes 0 and -1, and refuses others as PyTorch does)."""
    dims = dims_of(dim, x.ndim)
    return dims[0] if x.ndim else 0


def _axis_index(ndim, axis, index):
    return (slice(None),) * axis + (index, Ellipsis)


def _pick_vjp(ns, g, ans, x, dim, keepdim, *_):
    """All of the gradient to the index a selection along ``dim`` returned (PyTorch's rule)."""
    if x.ndim == 0:
        return g[0]
    idx = ans[1] if keepdim else ns.unsqueeze(ans[1], dim)
    return ns.where_zero(ns.arange_along(x, dim) == idx,
                         ns.expand(g[0] if keepdim else ns.unsqueeze(g[0], dim), x.shape))


def _scatter_along(ns, g, idx, dim, shape):
    """Each element of ``g`` added at its index ``idx`` along ``dim`` of a tensor of ``shape`` (PyTorch's
    value_selecting_reduction_backward: the gradient of an op that picks elements, as topk and cummax do)."""
    return ns.scatter_add(ns.zeros(shape, g), dim, idx, g)


def _share_vjp(ns, g, ans, x, dims, keepdim):
    """The gradient of a reduction to one of its elements: shared evenly among the tied ones (PyTorch's rule;
    NaN ties with NaN)."""
    value = ns.unreduce(ans, x.shape, dims, keepdim)
    tied = ns.cast_like((x == value) | ((x != x) & (value != value)), g)
    return ns.unreduce(g, x.shape, dims, keepdim) * tied / ns.unreduce(ns.sum(tied, dims, keepdim), x.shape, dims,
                                                                       keepdim)


# ------------------------------------------------------------------ sum, mean, prod
def _accumulated(xp, fn, x, **kwargs):
    """``fn(x, **kwargs)``, bfloat16 accumulated in float32 and rounded back, as PyTorch's kernels add: ml_dtypes'
    loops (numpy) and XLA's cumulative sums add in bfloat16, where a sum of 10,000 ones stops at 256."""
    dtype = x.dtype  # its itemsize first: numpy's ``dtype.name`` costs ~1.5 µs of Python, twice a whole small sum
    if getattr(dtype, "itemsize", 2) != 2 or getattr(dtype, "name", None) != "bfloat16":
        return fn(x, **kwargs)
    return xp.astype(fn(xp.astype(x, xp.float32), **kwargs), x.dtype)


def _sum_fwd(xp, x, dims, keepdim, dtype):
    if dtype is None:
        return _accumulated(xp, xp.sum, x, axis=dims, keepdims=keepdim)
    return xp.sum(x, axis=dims, keepdims=keepdim, dtype=native_dtype(xp, dtype))


def _mean_fwd(xp, x, dims, keepdim, dtype):
    if dtype is not None:
        x = xp.astype(x, native_dtype(xp, dtype))
    return _accumulated(xp, xp.mean, x, axis=dims, keepdims=keepdim)


def _host_mean(a, dims):
    """``np.mean`` of a float32 or float64 array over every element, to its bits, without its Python frames: the
    sum divided by the count in float64 (numpy divides its float32 sum by an ``intp``: in float64 too) and rounded
    to the sum's type. (Python's float division: numpy's scalar arithmetic costs ~1 µs here.)"""
    total = np.add.reduce(a, dims)
    n = a.size
    return np.asarray(float(total) / n if n else math.nan, total.dtype)


_SUM = _reduction("sum", _sum_fwd, (lambda ns, g, ans, x, dims, keepdim, dtype: ns.unreduce(g, x.shape, dims, keepdim),),
                  saves=("meta0",), cast=sum_dtype, whole=(False, None), host_whole=np.add.reduce)
_MEAN = _reduction("mean", _mean_fwd, (lambda ns, g, ans, x, dims, keepdim, dtype:
                                       ns.unreduce(g, x.shape, dims, keepdim) / _count(x.shape, dims),),
                   saves=("meta0",), whole=(False, None), host_whole=_host_mean)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """``sum(input)``, ``sum(input, dim, keepdim=False, *, dtype)``; ints and bools add up in int64."""
    return apply(_SUM, *_reduce_sig(input, dim, keepdim, dtype=dtype))


def mean(input, dim=None, keepdim=False, *, dtype=None):
    if (dtype or input.dtype).kind not in "fc":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {input.dtype.scalar_name}")
    return apply(_MEAN, *_reduce_sig(input, dim, keepdim, dtype=dtype))


def _api_sum(x, /, *, axis=None, dtype=None, keepdims=False):
    return apply(_SUM, (x,), (Dims(dims_of(axis, x.ndim)), keepdims, dtype or _api_sum_dtype(x.dtype)))


def _api_mean(x, /, *, axis=None, keepdims=False):
    return apply(_MEAN, (x,), (Dims(dims_of(axis, x.ndim)), keepdims, None))


defcomposite("sum", sum, api=True, api_impl=_api_sum, out=True, whole=_SUM)
defcomposite("mean", mean, api=True, api_impl=_api_mean, out=True, whole=_MEAN)


def _prod_fwd(xp, x, dims, keepdim, dtype):
    if dtype is None:
        return _accumulated(xp, xp.prod, x, axis=dims, keepdims=keepdim)
    return xp.prod(x, axis=dims, keepdims=keepdim, dtype=native_dtype(xp, dtype))


def _prod_vjp(ns, g, ans, x, dims, keepdim, dtype):
    if x.ndim == 0:  # the gradient itself, as PyTorch's prod_backward (no graph of x)
        return g
    return ns.unreduce(g, x.shape, dims, keepdim) * _product_of_others(ns, x, ns.unreduce(ans, x.shape, dims, keepdim),
                                                                        dims)


def _product_of_others(ns, x, total, dims):
    """For each element, the product of the others in its reduction: ``total / x`` away from zeros; at a
    zero, the product of the rest when it is the only zero (else 0)."""
    zero = x == 0
    safe = ns.where(zero, ns.full_like(x, 1), x)
    rest = ns.apply("_prod", (safe,), (dims, True, None))
    lone = ns.sum(ns.cast_like(zero, x), dims, keepdim=True) == 1
    return ns.where(zero, ns.expand(ns.where_zero(lone, rest), x.shape), total / safe)


_PROD = _reduction("prod", _prod_fwd, (_prod_vjp,), cast=sum_dtype, saves=(0, 1, 2, "result"), whole=(False, None),
                   host_whole=np.multiply.reduce)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """``prod(input, *, dtype)``, ``prod(input, dim, keepdim=False, *, dtype)``."""
    return apply(_PROD, *_reduce_sig(input, dim, keepdim, dtype=dtype))


def _api_prod(x, /, *, axis=None, dtype=None, keepdims=False):
    return apply(_PROD, (x,), (Dims(dims_of(axis, x.ndim)), keepdims, dtype or _api_sum_dtype(x.dtype)))


defcomposite("prod", prod, api=True, api_impl=_api_prod, out=True, whole=_PROD)


def _nansum_fwd(xp, x, dims, keepdim, dtype):
    if xp.isdtype(x.dtype, "real floating"):
        x = xp.where(xp.isnan(x), xp.zeros_like(x), x)
    return _sum_fwd(xp, x, dims, keepdim, dtype)


defop("nansum", _nansum_fwd, (lambda ns, g, ans, x, dims, keepdim, dtype:
                              ns.where_zero(x == x, ns.unreduce(g, x.shape, dims, keepdim)),),
      sig=_reduce_sig, cast=sum_dtype, out=True, saves=(0, 1, 2))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the non-NaN elements (NaN where there are none), as PyTorch: nansum / count."""
    if input.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype.scalar_name}")
    return input.nansum(dim, keepdim, dtype=dtype) / input.isnan().logical_not().sum(dim, keepdim)


defcomposite("nanmean", nanmean, out=True)


# ------------------------------------------------------------------ var, std
def _narrow_float(xp, x):
    """float32/float16/bfloat16, whose variance is computed in float64 (PyTorch accumulates them in double on CPU):
    squared deviations of float32 values beyond ~1e19 overflow, and below ~1e-19 underflow, in float32."""
    return (x.dtype == xp.float32 or x.dtype == getattr(xp, "float16", None) or
            getattr(x.dtype, "name", None) == "bfloat16") and hasattr(xp, "float64")


def _var_fwd(xp, x, dims, correction, keepdim):
    if _count(tuple(x.shape), dims) - correction <= 0:  # PyTorch divides by max(0, n - correction): inf (jax: NaN)
        squares = xp.sum((x - xp.mean(x, axis=dims, keepdims=True)) ** 2, axis=dims, keepdims=keepdim)
        return squares / xp.zeros_like(squares)
    if _narrow_float(xp, x):
        return xp.astype(xp.var(xp.astype(x, xp.float64), axis=dims, correction=correction, keepdims=keepdim),
                         x.dtype)
    return xp.var(x, axis=dims, correction=correction, keepdims=keepdim)


def _var_vjp(ns, g, ans, x, dims, correction, keepdim):
    dof = _count(x.shape, dims) - correction
    deviation = x - ns.apply("_mean", (x,), (dims, True, None))
    return ns.unreduce(g, x.shape, dims, keepdim) * deviation * (2 / dof if dof else math.inf)


def _std_vjp(ns, g, ans, x, dims, correction, keepdim):
    nonzero = ans != 0
    safe = ns.where(nonzero, ans, ns.full_like(ans, 1))
    return _var_vjp(ns, ns.where_zero(nonzero, g / (2 * safe)), None, x, dims, correction, keepdim)


def _var_sig(name):
    def sig(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """``var(input, dim=None, *, correction=1, keepdim=False)``, and the legacy ``unbiased`` forms."""
        if isinstance(dim, bool):  # var(input, unbiased)
            dim, unbiased = None, dim
        if input.dtype.kind not in "fc":
            raise RuntimeError(f"{name} only support floating point and complex dtypes" if name.endswith("_mean")
                               else "std and var only support floating point and complex dtypes")
        if correction is None:
            correction = 0 if unbiased is False else 1
        elif unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments: 'unbiased' and 'correction' "
                            "cannot both be given")
        return (input,), (dims_of(None if _all_dims(dim) else dim, input.ndim), correction, keepdim)
    return sig


def _var_api_sig(x, /, *, axis=None, correction=0.0, keepdims=False):
    return (x,), (dims_of(axis, x.ndim), correction, keepdims)


def _stat_mean(name, stat_fwd, stat_vjp):
    """``(std, mean)`` / ``(var, mean)`` in one node, as PyTorch (StdMeanBackward0)."""
    def fwd(xp, x, dims, correction, keepdim):
        return stat_fwd(xp, x, dims, correction, keepdim), xp.mean(x, axis=dims, keepdims=keepdim)

    def vjp(ns, g, stat, x, dims, correction, keepdim):
        parts = [] if g[0] is None else [stat_vjp(ns, g[0], stat, x, dims, correction, keepdim)]
        if g[1] is not None:
            parts.append(ns.unreduce(g[1], x.shape, dims, keepdim) / _count(x.shape, dims))
        return parts[0] if len(parts) == 1 else parts[0] + parts[1]

    def std_mean_vjp(ns, g, ans, x, dims, correction, keepdim):
        return vjp(ns, g, ans[0], x, dims, correction, keepdim)

    def var_mean_vjp(ns, g, ans, x, dims, correction, keepdim):  # (var's gradient does not read the result)
        return vjp(ns, g, None, x, dims, correction, keepdim)
    op = defop(f"_{name}", fwd, (std_mean_vjp if name == "std_mean" else var_mean_vjp,), nout=2,
               node=f"{name[:3].capitalize()}MeanBackward0", function=False,
               method=False, saves=(0, "result0") if name == "std_mean" else (0,))  # var_mean: self alone
    sig = _var_sig(name)

    def stat_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return apply(op, *sig(input, dim, unbiased, keepdim, correction=correction))
    stat_mean.__name__ = name
    stat_mean.__doc__ = f"``({name[:3]}, mean)`` over the same dims."
    return stat_mean


def _std_fwd(xp, x, dims, correction, keepdim):
    if _narrow_float(xp, x):  # the root of the float64 variance
        return xp.astype(xp.sqrt(_var_fwd(xp, xp.astype(x, xp.float64), dims, correction, keepdim)), x.dtype)
    return xp.sqrt(_var_fwd(xp, x, dims, correction, keepdim))


defop("var", _var_fwd, (_var_vjp,), sig=_var_sig("var"), api=True, api_sig=_var_api_sig, out=True, saves=(0, 1, 2, 3))
defop("std", _std_fwd, (_std_vjp,), sig=_var_sig("std"), api=True, api_sig=_var_api_sig, out=True,
      saves=(0, 1, 2, 3, "result"))
defcomposite("std_mean", _stat_mean("std_mean", _std_fwd, _std_vjp), method=False)
defcomposite("var_mean", _stat_mean("var_mean", _var_fwd, _var_vjp), method=False)


# ------------------------------------------------------------------ extremes
def _amax_sig(input, dim=(), keepdim=False):
    dims = dims_of(None if dim == () else dim, input.ndim)
    if input.numel() == 0:  # PyTorch: a RuntimeError without a dim, an IndexError for an empty reduced dim
        if dim in ((), None):
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        empty = [d for d in dims if input.shape[d] == 0]
        if empty:
            raise IndexError(f"max(): Expected reduction dim {empty[0]} to have non-zero size.")
    return (input,), (dims, keepdim)


def _api_extreme_sig(name):
    def sig(x, /, *, axis=None, keepdims=False):
        dims = dims_of(axis, x.ndim)
        if any(x.shape[d] == 0 for d in dims):
            raise ValueError(f"{name}(): the reduction over an empty axis of an array of shape {tuple(x.shape)} "
                             "has no identity")
        return (x,), (dims, keepdims)
    return sig


for _name, _api_name, _host in (("amax", "max", np.maximum.reduce), ("amin", "min", np.minimum.reduce)):
    _extreme = (lambda f: lambda xp, x, dims, keepdim: getattr(xp, f)(x, axis=dims, keepdims=keepdim))(_api_name)
    defop(_name, _extreme, (_share_vjp,), sig=_amax_sig, api=_api_name, out=True,
          api_sig=_api_extreme_sig(_api_name),
          bool_fwd=via_uint8(_extreme), refuses="c", saves=(0, 1, 2, "result"), whole=(False,), host_whole=_host)


def _arg_sig(name):
    def sig(input, dim=None, keepdim=False):
        if input.dtype is _dtypes.bool:  # refused before the dim is looked at, as PyTorch's
            raise RuntimeError(f"{name}(): does not support bool input")
        return _arg_params(input, dim, keepdim)
    sig.__name__ = name
    return sig


def _arg_params(input, dim, keepdim):
    if dim is None:
        return (input,), (None, keepdim)
    if not input.ndim:
        dims_of(dim, 0)  # checked: a 0-d tensor takes dims -1 and 0
        return (input,), (None, False)
    return (input,), (_one_dim(input, dim), keepdim)


def _arg_fwd(f):
    def fwd(xp, x, dim, keepdim):
        if dim is None:
            r = getattr(xp, f)(xp.reshape(x, (-1,)))
            return xp.reshape(r, (1,) * x.ndim) if keepdim else r
        return getattr(xp, f)(x, axis=dim, keepdims=keepdim)
    return fwd


def _arg_api_sig(name):
    def sig(x, /, *, axis=None, keepdims=False):
        if x.numel() == 0:
            raise ValueError(f"{name}(): an empty array has no {name[3:]}imum")
        return (x,), ((None if axis is None else _one_dim(x, axis)) if x.ndim else None, keepdims)
    return sig


for _name in ("argmax", "argmin"):
    defop(_name, _arg_fwd(_name), None, sig=_arg_sig(_name), differentiable=False, api=True, out=True,
          api_sig=_arg_api_sig(_name), refuses={"b": (RuntimeError, f"{_name}(): does not support bool input"),
                                                "c": (RuntimeError, f"{_name}(): does not support complex input")})


def _max_dim_fwd(f, arg):
    def fwd(xp, x, dim, keepdim):
        if x.ndim == 0:
            return x, xp.zeros((), dtype=xp.int64)
        return getattr(xp, f)(x, axis=dim, keepdims=keepdim), getattr(xp, arg)(x, axis=dim, keepdims=keepdim)
    return fwd


defop("max_dim", _max_dim_fwd("max", "argmax"), (_pick_vjp,), nout=2, node="MaxBackward0", function=False,
      method=False, sig=None, saves=("result1", "meta0"), bool_fwd=via_uint8(_max_dim_fwd("max", "argmax")))
defop("min_dim", _max_dim_fwd("min", "argmin"), (_pick_vjp,), nout=2, node="MinBackward0", function=False,
      method=False, sig=None, saves=("result1", "meta0"), bool_fwd=via_uint8(_max_dim_fwd("min", "argmin")))


# ------------------------------------------------------------------ logsumexp, dist
def _logsumexp_fwd(xp, x, dims, keepdim):
    if any(x.shape[d] == 0 for d in dims):
        return xp.log(xp.sum(xp.exp(x), axis=dims, keepdims=keepdim))  # log(0) = -inf
    top = xp.max(x, axis=dims, keepdims=True)
    top = xp.where(xp.isinf(top), xp.zeros_like(top), top)
    r = xp.log(xp.sum(xp.exp(x - top), axis=dims, keepdims=True)) + top
    return r if keepdim or not dims else xp.squeeze(r, axis=dims)


def _logsumexp_sig(input, dim, keepdim=False):
    return (input,), (dims_of(None if _all_dims(dim) else dim, input.ndim), keepdim)


defop("logsumexp", _logsumexp_fwd, (lambda ns, g, ans, x, dims, keepdim: ns.unreduce(g, x.shape, dims, keepdim) *
                                    ns.exp(x - ns.unreduce(ans, x.shape, dims, keepdim)),),
      sig=_logsumexp_sig, cast=to_float, out=True, saves=(0, 1, 2, "result"))


def _dist_vjp(sign):
    def vjp(ns, g, ans, x, y, p):
        from .linalg import _vector_norm_vjp  # torch.norm's own gradient (linalg is imported after this module)
        return _vector_norm_vjp(ns, g, ans, x - y, p, None, False) * sign
    return vjp


def _dist_sig(input, other, p=2):
    _float_only(input, "dist")
    return (input, other), (float(p),)


defop("dist", lambda xp, x, y, p: xp.linalg.vector_norm(x - y, ord=p), (_dist_vjp(1), _dist_vjp(-1)), sig=_dist_sig,
      saves=(0, 1, 2, "result"))


# ------------------------------------------------------------------ all, any, count_nonzero
def _truth_fwd(keep_uint8):
    def fwd(xp, x, f, dims, keepdim):
        r = getattr(xp, f)(xp.astype(x, xp.bool), axis=dims, keepdims=keepdim)
        return xp.astype(r, xp.uint8) if keep_uint8 and x.dtype == xp.uint8 else r
    return fwd


_TRUTH = defop("_truth", _truth_fwd(True), None, differentiable=False, function=False, method=False)
_API_TRUTH = defop("_api_truth", _truth_fwd(False), None, differentiable=False, function=False, method=False)


def _truth(name):
    def torch_form(input, dim=None, keepdim=False):
        """PyTorch's form: bool, except uint8 in -> uint8 out."""
        return apply(_TRUTH, (input,), (name, dims_of(None if _all_dims(dim) else dim, input.ndim), keepdim))

    def api_form(x, /, *, axis=None, keepdims=False):
        return apply(_API_TRUTH, (x,), (name, dims_of(axis, x.ndim), keepdims))
    torch_form.__name__ = api_form.__name__ = name
    return torch_form, api_form


for _name in ("all", "any"):
    _torch_form, _api_form = _truth(_name)
    defcomposite(_name, _torch_form, api=True, api_impl=_api_form, out=True)


def _truth_api_sig(x, /, *, axis=None, keepdims=False):
    return (x,), (dims_of(axis, x.ndim), keepdims)


def _count_nonzero_fwd(xp, x, dims, keepdim):
    return xp.sum(xp.astype(xp.astype(x, xp.bool), xp.int64), axis=dims, keepdims=keepdim)


defop("count_nonzero", _count_nonzero_fwd, None, differentiable=False,
      sig=lambda input, dim=None: ((input,), (dims_of(None if _all_dims(dim) else dim, input.ndim), False)),
      api=True, api_sig=_truth_api_sig)


# ------------------------------------------------------------------ cumulative
def _cumulative(xp, f, x, dim, dtype, include_initial, initial):
    if dtype is not None:
        x = xp.astype(x, native_dtype(xp, dtype))
    if x.ndim == 0:
        return xp.stack([xp.ones_like(x) * initial, x]) if include_initial else x
    r = _accumulated(xp, getattr(xp, f), x, axis=dim)
    if include_initial:
        shape = list(x.shape)
        shape[dim] = 1
        r = xp.concat([xp.full(tuple(shape), initial, dtype=r.dtype), r], axis=dim)
    return r


def _reverse_cumsum(ns, g, dim):
    """sum_{k >= i} g_k along ``dim`` (the transpose of cumsum). Summed from the end, not as
    ``total - cumsum + g``, which cancels catastrophically when early terms dwarf late ones."""
    return ns.flip(ns.apply("cumsum", (ns.flip(g, (dim,)),), (dim, None, False)), (dim,))


def _trim_initial(ns, g, dim, include_initial):
    return ns.narrow(g, dim, 1, g.shape[dim] - 1) if include_initial and g.ndim else g


def _cumsum_vjp(ns, g, ans, x, dim, dtype, include_initial):
    g = _trim_initial(ns, g, dim, include_initial)
    return _reverse_cumsum(ns, g, dim) if x.ndim else g


def _cumprod_vjp(ns, g, ans, x, dim, dtype, include_initial):
    """Exact with zeros: before the first zero of a slice ``rev_cumsum(g * ans) / x``; at the first zero the
    product of the elements before it times ``rev_cumsum(g * cumprod(the elements after it))``; after it 0."""
    g, ans = _trim_initial(ns, g, dim, include_initial), _trim_initial(ns, ans, dim, include_initial)
    if x.ndim == 0 or x.shape[dim] <= 1:  # the gradient itself, as PyTorch's cumprod_backward (no graph of x)
        return g
    zero = x == 0
    zeros = ns.cast_like(zero, g)
    before = ns.apply("cumsum", (zeros,), (dim, None, False)) - zeros == 0  # up to and including the first zero
    first_zero = before & zero
    one = ns.full_like(x, 1)
    safe = ns.where(zero, one, x)
    regular = ns.where_zero(before & ~zero, _reverse_cumsum(ns, g * ans, dim) / safe)
    head = _cumprod(ns, ns.where(first_zero | ~before, one, x), dim)  # product of the elements before the first zero
    tail = _cumprod(ns, ns.where(before, one, x), dim)  # product from after the first zero up to k
    at_zero = head * _reverse_cumsum(ns, g * tail, dim)
    return ns.where_zero(first_zero, at_zero) + regular


def _cumprod(ns, x, dim):
    return ns.apply("cumprod", (x,), (dim, None, False))


def _cum_sig(name):
    def sig(input, dim, *, dtype=None):
        return (input,), (_one_dim(input, dim), dtype, False)
    sig.__name__ = name
    return sig


def _cum_api_sig(name):
    def sig(x, /, *, axis=None, dtype=None, include_initial=False):
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"{name}(): axis must be given for an array of {x.ndim} dimensions")
            axis = 0
        return (x,), (_one_dim(x, axis), dtype or _api_sum_dtype(x.dtype), include_initial)
    return sig


defop("cumsum", lambda xp, x, dim, dtype, initial: _cumulative(xp, "cumulative_sum", x, dim, dtype, initial, 0),
      (_cumsum_vjp,), sig=_cum_sig("cumsum"), cast=sum_dtype, api="cumulative_sum",
      api_sig=_cum_api_sig("cumulative_sum"), out=True, inplace=True, saves=("meta0",), overlap="elementwise")
defop("cumprod", lambda xp, x, dim, dtype, initial: _cumulative(xp, "cumulative_prod", x, dim, dtype, initial, 1),
      (_cumprod_vjp,), sig=_cum_sig("cumprod"), cast=sum_dtype, api="cumulative_prod",
      api_sig=_cum_api_sig("cumulative_prod"), out=True, inplace=True, overlap="elementwise", saves=(0, 1, 3, "result"))


def _running_extreme(kind):
    """cummax/cummin as a log-depth scan over (value, index) pairs: a later element takes over when it is
    at least as large (as small) or NaN (PyTorch's rule: the last of tied extremes, NaN sticks)."""
    def fwd(xp, x, dim):
        index = xp.broadcast_to(xp.reshape(xp.arange(x.shape[dim] if x.ndim else 1, dtype=xp.int64),
                                           tuple(-1 if i == dim else 1 for i in range(x.ndim))), x.shape)
        n = x.shape[dim] if x.ndim else 0
        floating = xp.isdtype(x.dtype, "real floating")
        values, step = x, 1
        while step < n:
            head = _axis_index(x.ndim, dim, slice(0, step))
            prev, cur = _axis_index(x.ndim, dim, slice(0, n - step)), _axis_index(x.ndim, dim, slice(step, n))
            pv, cv = values[prev], values[cur]
            later = (cv >= pv) if kind == "max" else (cv <= pv)
            if floating:
                later = later | xp.isnan(cv)
            values = xp.concat([values[head], xp.where(later, cv, pv)], axis=dim)
            index = xp.concat([index[head], xp.where(later, index[cur], index[prev])], axis=dim)
            step *= 2
        return values, index
    return fwd


for _kind in ("max", "min"):
    _op = defop(f"_cum{_kind}", _running_extreme(_kind),
                (lambda ns, g, ans, x, dim: _scatter_along(ns, g[0], ans[1], dim, tuple(x.shape)) if x.ndim else g[0],),
                nout=2, node=f"Cum{_kind}Backward0", function=False, method=False, saves=(0, "result1"),
                bool_fwd=via_uint8(_running_extreme(_kind)), refuses="c")
    defcomposite(f"cum{_kind}", (lambda op, kind: lambda input, dim: RESULTS[f"cum{kind}"](
        *apply(op, (input,), (_one_dim(input, dim),))))(_op, _kind))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along ``dim`` (bools: ``!=``), after joining ``prepend``/``append``."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _one_dim(input, dim)
    parts = [t if t.ndim else t.expand(tuple(1 if i == d else s for i, s in enumerate(input.shape)))
             for t in (prepend, input, append) if t is not None]
    x = apply(TABLE["cat"].op, parts, (d,)) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[d]
        lo, hi = (x.narrow(d, 0, m - 1), x.narrow(d, 1, m - 1)) if m > 1 else (x.narrow(d, 0, 0),) * 2
        x = hi != lo if x.dtype is _dtypes.bool else hi - lo
    return x


def _api_diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    return diff(x, n, axis, prepend, append)


defcomposite("diff", diff, api=True, api_impl=_api_diff)


# ------------------------------------------------------------------ sorting and selection
def _take_along(xp, x, idx, dim):
    return xp.take_along_axis(x, idx, axis=dim) if x.ndim else x


def _permute_along(x, perm, dim):
    """``x`` reordered along ``dim`` by the permutation ``perm`` (an int64 tensor, kept as a parameter so it
    is not promoted with ``x``); its gradient is the inverse reordering."""
    return apply(_PERMUTE_ALONG, (x,), (perm, dim))


def _unpermute(ns, g, perm, dim):
    """``g`` put back in the order ``perm`` took it from along ``dim``: reordered by the inverse permutation."""
    if not perm.ndim:
        return g
    return ns.apply("_permute_along", (g,), (ns.apply("_argsort", (perm,), (dim, False)), dim))


_PERMUTE_ALONG = defop("_permute_along",
                       lambda xp, x, perm, dim: _take_along(xp, x, perm._value if isinstance(perm, Tensor) else perm, dim),
                       (lambda ns, g, ans, x, perm, dim: _unpermute(ns, g, perm, dim),),
                       node="GatherBackward0", function=False, method=False, saves=())


def _order(xp, x, dim, descending):
    """Indices sorting ``x`` along ``dim`` (stable; NaN as the largest value, as PyTorch)."""
    if x.ndim == 0:
        return xp.zeros((), dtype=xp.int64)
    return xp.astype(xp.argsort(x, axis=dim, descending=descending, stable=True), xp.int64)


def _sort_fwd(xp, x, dim, descending):
    order = _order(xp, x, dim, descending)
    return _take_along(xp, x, order, dim), order


_SORT = defop("_sort", _sort_fwd, (lambda ns, g, ans, x, dim, descending: _unpermute(ns, g[0], ans[1], dim),),
              nout=2, node="SortBackward0", function=False, method=False, saves=("result1", "meta0"),
              bool_fwd=via_uint8(_sort_fwd))


def sort(input, dim=-1, descending=False, stable=False):
    """``(values, indices)`` along ``dim``; always stable (``stable=`` accepted); NaN sorts as the largest."""
    if isinstance(dim, bool):  # sort(input, descending)
        dim, descending = -1, dim
    return RESULTS["sort"](*apply(_SORT, (input,), (_one_dim(input, dim), bool(descending))))


def _api_sort(x, /, *, axis=-1, descending=False, stable=True):
    return apply(_SORT, (x,), (_one_dim(x, axis), bool(descending)))[0]


defcomposite("sort", sort, api=True, api_impl=_api_sort)


def msort(input):
    return sort(input, 0).values


defcomposite("msort", msort)

_ARGSORT = defop("_argsort", _order, None, differentiable=False, function=False, method=False,
                 bool_fwd=via_uint8(_order))


def argsort(input, dim=-1, descending=False, stable=False):
    return apply(_ARGSORT, (input,), (_one_dim(input, dim), bool(descending)))


def _api_argsort(x, /, *, axis=-1, descending=False, stable=True):
    return apply(_ARGSORT, (x,), (_one_dim(x, axis), bool(descending)))


defcomposite("argsort", argsort, api=True, api_impl=_api_argsort)


def _topk_fwd(xp, x, k, dim, largest):
    order = _order(xp, x, dim, largest)
    order = order[_axis_index(x.ndim, dim, slice(0, k))] if x.ndim else order
    return _take_along(xp, x, order, dim), order


_TOPK = defop("_topk", _topk_fwd, (lambda ns, g, ans, x, k, dim, largest:
                                   _scatter_along(ns, g[0], ans[1], dim, tuple(x.shape)) if x.ndim else g[0],),
              nout=2, node="TopkBackward0", function=False, method=False, saves=("result1", "meta0"))


_NO_TOPK = refusing("topk", "bc", errors={"b": (RuntimeError, "topk does not support bool dtypes on CPU"),
                                          "c": (RuntimeError, " topk does not support complex dtypes on CPU")})


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (smallest) along ``dim``, always in sorted order; ties keep their original order."""
    d = _one_dim(input, dim)  # the dim is checked before the dtype, as PyTorch's
    _NO_TOPK(input.dtype)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"selected index k out of range (k={k}, size of dim {d} is {n})")
    return RESULTS["topk"](*apply(_TOPK, (input,), (k, d, bool(largest))))


defcomposite("topk", topk)


def _kth_fwd(xp, x, dim, keepdim, position):
    """The element at sorted ``position`` (an int, or an array of shape keepdim-reduced) and its index."""
    if x.ndim == 0:
        return x, xp.zeros((), dtype=xp.int64)
    order = _order(xp, x, dim, False)
    if isinstance(position, int):
        index = order[_axis_index(x.ndim, dim, slice(position, position + 1))]
    else:
        index = xp.take_along_axis(order, position(xp, x, dim), axis=dim)
    values = xp.take_along_axis(x, index, axis=dim)
    return (values, index) if keepdim else (xp.squeeze(values, axis=dim), xp.squeeze(index, axis=dim))


_KTHVALUE = defop("_kthvalue", _kth_fwd, (_pick_vjp,), nout=2, node="KthvalueBackward0", function=False,
                  method=False, saves=("result1", "meta0"))


def kthvalue(input, k, dim=-1, keepdim=False):
    refusing("kthvalue", "bc")(input.dtype)
    d = _one_dim(input, dim)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return RESULTS["kthvalue"](*apply(_KTHVALUE, (input,), (d, keepdim, k - 1)))


defcomposite("kthvalue", kthvalue)


def _median_position(ignore_nan):
    """The sorted position of the lower median: NaN first if any (median), or among the non-NaN (nanmedian)."""
    def position(xp, x, dim):
        n = x.shape[dim]
        if not xp.isdtype(x.dtype, "real floating"):
            return xp.full(_keep_shape(x, dim), (n - 1) // 2, dtype=xp.int64)
        nans = xp.sum(xp.astype(xp.isnan(x), xp.int64), axis=dim, keepdims=True)
        if ignore_nan:
            return xp.clip((n - nans - 1) // 2, 0, None)
        return xp.where(nans > 0, n - nans, xp.full_like(nans, (n - 1) // 2))
    return position


def _keep_shape(x, dim):
    return tuple(1 if i == dim else s for i, s in enumerate(x.shape))


def _median(name, ignore_nan):
    node = "".join(p.capitalize() for p in name.split("_"))
    by_dim = defop(f"_{name}_dim", lambda xp, x, dim, keepdim: _kth_fwd(xp, x, dim, keepdim,
                                                                         _median_position(ignore_nan)),
                   (_pick_vjp,), nout=2, node=f"{node}Backward1", function=False, method=False,
                   saves=("result1", "meta0"))
    whole = defop(f"_{name}_all", lambda xp, x, dims, keepdim: _kth_fwd(
        xp, xp.reshape(x, (-1,)), 0, False, _median_position(ignore_nan))[0], (_share_vjp,),
        node=f"{node}Backward0", function=False, method=False, saves=(0, 1, 2, "result"))

    def median(input, dim=None, keepdim=False):
        """``median(input)``: the lower median of all elements; ``median(input, dim)``: ``(values, indices)``."""
        d = None if dim is None else _one_dim(input, dim)  # PyTorch checks the dim before the dtype
        refusing("median", "bc")(input.dtype)
        if dim is None:
            if input.numel() == 0:
                return input.new_full((), math.nan)
            return apply(whole, (input,), (tuple(range(input.ndim)), False))
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return RESULTS[name](*apply(by_dim, (input,), (d, keepdim)))
    median.__name__ = name
    return median


defcomposite("median", _median("median", False))
defcomposite("nanmedian", _median("nanmedian", True))


def _mode_fwd(xp, x, dim, keepdim):
    """The most frequent value (the smallest of equally frequent ones) and its last index."""
    if x.ndim == 0:
        return x, xp.zeros((), dtype=xp.int64)
    a = xp.expand_dims(x, axis=dim + 1)
    b = xp.expand_dims(x, axis=dim)
    counts = xp.sum(xp.astype(a == b, xp.int64), axis=dim + 1)  # occurrences of each element
    frequent = counts == xp.max(counts, axis=dim, keepdims=True)
    big = xp.full_like(x, _largest(xp, x.dtype))
    values = xp.min(xp.where(frequent, x, big), axis=dim, keepdims=True)
    positions = xp.reshape(xp.arange(x.shape[dim], dtype=xp.int64), tuple(-1 if i == dim else 1 for i in range(x.ndim)))
    index = xp.max(xp.where(x == values, positions, xp.full_like(positions, -1)), axis=dim, keepdims=True)
    return (values, index) if keepdim else (xp.squeeze(values, axis=dim), xp.squeeze(index, axis=dim))


def _largest(xp, dtype):
    if xp.isdtype(dtype, "real floating"):
        return math.inf
    if dtype == xp.bool:
        return True
    return int(xp.iinfo(dtype).max)


_MODE = defop("_mode", _mode_fwd, (_pick_vjp,), nout=2, node="ModeBackward0", function=False, method=False,
              saves=("result1", "meta0"))


def mode(input, dim=-1, keepdim=False):
    d = _one_dim(input, dim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return RESULTS["mode"](*apply(_MODE, (input,), (d, keepdim)))


defcomposite("mode", mode)


# ------------------------------------------------------------------ searching
def _searchsorted_fwd(xp, seq, values, right, sorter, int32):
    out = xp.int32 if int32 else xp.int64
    if seq.ndim == 1 and sorter is None:
        return xp.astype(xp.searchsorted(seq, values, side="right" if right else "left"), out)
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter, axis=-1)
    # batched (or sorted by ``sorter``): count the elements that go before each value
    s = xp.expand_dims(seq, axis=-2) if seq.ndim > 1 else seq
    v = xp.expand_dims(values, axis=-1)
    before = (s <= v) if right else (s < v)
    if xp.isdtype(seq.dtype, "real floating"):  # NaN sorts last
        before = before | (xp.isnan(v) & ~xp.isnan(s)) | ((xp.isnan(v) & xp.isnan(s)) if right else False)
    return xp.astype(xp.sum(xp.astype(before, out), axis=-1), out)


_SEARCHSORTED = defop("_searchsorted", _searchsorted_fwd, None, differentiable=False, function=False, method=False)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion points of ``input`` into the last dim of ``sorted_sequence`` (1-d, or batched like ``input``)."""
    if side is not None:
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if not isinstance(input, Tensor):
        input = sorted_sequence.new_tensor(input)
    if sorted_sequence.ndim > 1 and tuple(sorted_sequence.shape[:-1]) != tuple(input.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
                           f"{list(input.shape)}")
    return apply(_SEARCHSORTED, (sorted_sequence, input), (right, sorter._value if sorter is not None else None,
                                                            out_int32))


def _api_searchsorted(x1, x2, /, *, side="left", sorter=None):
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted(): x1 must be one-dimensional, got shape {tuple(x1.shape)}")
    return searchsorted(x1, x2, side=side, sorter=sorter)


defcomposite("searchsorted", searchsorted, api=True, api_impl=_api_searchsorted, method=False)


def _bincount_fwd(xp, x, weights, length):
    hits = xp.expand_dims(x, axis=1) == xp.reshape(xp.arange(length, dtype=x.dtype), (1, -1))
    if weights is None:
        return xp.sum(xp.astype(hits, xp.int64), axis=0)
    return xp.sum(xp.where(hits, xp.expand_dims(weights, axis=1), xp.zeros_like(xp.expand_dims(weights, axis=1))),
                  axis=0)


_BINCOUNT = defop("_bincount", _bincount_fwd, None, differentiable=False, function=False, method=False)


def bincount(input, weights=None, minlength=0):
    """Occurrences (or summed ``weights``) of each value 0..max(input) of a 1-d non-negative integer tensor."""
    if input.ndim != 1 or input.dtype.kind not in "iub" or (input.numel() and int(input.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = max(int(input.max()) + 1 if input.numel() else 0, minlength)
    if weights is None:
        return apply(_BINCOUNT, (input,), (None, length))
    if weights.dtype.kind not in "f":
        weights = weights.double()
    return apply(_BINCOUNT, (input, weights.detach()), (length,))


defcomposite("bincount", bincount)


# ------------------------------------------------------------------ comparisons of whole tensors
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (infinities equal only to themselves)."""
    if input.dtype is not other.dtype and isinstance(other, Tensor):
        raise RuntimeError(f"{input.dtype.scalar_name} did not match {other.dtype.scalar_name}")
    close = input == other
    if input.dtype.kind in "fc":
        near = (input - other).abs() <= atol + rtol * other.abs()
        close = close | (near & input.isfinite() & other.isfinite())
        if equal_nan:
            close = close | (input.isnan() & other.isnan())
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """Whether the two tensors have the same shape and elements."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all())


defcomposite("isclose", isclose)
defcomposite("allclose", allclose)
defcomposite("equal", equal)


# ------------------------------------------------------------------ sets
def _unique_fwd(xp, x):
    r = xp.unique_all(x)
    return r.values, xp.astype(r.indices, xp.int64), xp.astype(xp.reshape(r.inverse_indices, x.shape), xp.int64), \
        xp.astype(r.counts, xp.int64)


_UNIQUE = defop("_unique", _unique_fwd, None, differentiable=False, nout=4, function=False, method=False)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The sorted distinct elements (NaNs each distinct); with ``dim``, the distinct slices along it."""
    if dim is not None:
        values, inverse, counts = _unique_slices(input, _one_dim(input, dim))
    else:
        values, _, inverse, counts = apply(_UNIQUE, (input.detach(),))
    extra = (inverse,) * return_inverse + (counts,) * return_counts
    return (values, *extra) if extra else values


def _unique_slices(x, dim):
    """Distinct slices along ``dim``: a host computation (numpy's lexicographic unique), as the standard has none."""
    from .._creation import tensor
    host = np.asarray(x.detach())
    values, inverse, counts = np.unique(host, axis=dim, return_inverse=True, return_counts=True)
    backend = x.backend
    return (tensor(values, backend=backend), tensor(inverse.reshape(-1), backend=backend),
            tensor(counts, backend=backend))


def unique_all(x, /):
    values, indices, inverse, counts = apply(_UNIQUE, (x.detach(),))
    return UniqueAllResult(values, indices, inverse, counts)


def unique_counts(x, /):
    values, _, _, counts = apply(_UNIQUE, (x.detach(),))
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    values, _, inverse, _ = apply(_UNIQUE, (x.detach(),))
    return UniqueInverseResult(values, inverse)


def unique_values(x, /):
    return apply(_UNIQUE, (x.detach(),))[0]


defcomposite("unique", unique)
for _unique_fn in (unique_all, unique_counts, unique_inverse, unique_values):
    defcomposite(_unique_fn.__name__, _unique_fn, api=True, function=False, method=False)


def _isin_fwd(xp, x, test, invert):
    hits = xp.any(xp.expand_dims(x, axis=-1) == xp.reshape(test, (-1,)), axis=-1)
    return xp.logical_not(hits) if invert else hits


_ISIN = defop("_isin", _isin_fwd, None, differentiable=False, function=False, method=False)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` occurs in ``test_elements`` (either may be a Python scalar)."""
    if not isinstance(elements, Tensor):
        elements = test_elements.new_tensor(elements, dtype=_dtypes.result_type(test_elements, elements))
    if not isinstance(test_elements, Tensor):
        test_elements = elements.new_tensor(test_elements, dtype=_dtypes.result_type(elements, test_elements))
    return apply(_ISIN, (elements, test_elements), (bool(invert),))


def _api_isin(x1, x2, /, *, invert=False):
    return isin(x1, x2, invert=invert)


defcomposite("isin", isin, api=True, api_impl=_api_isin, method=False)


# ------------------------------------------------------------------ statistics and histograms
aminmax_result = collections.namedtuple("aminmax", ["min", "max"])
aminmax_result.__module__ = "xtensor.return_types"


def aminmax(input, *, dim=None, keepdim=False):
    """``(amin, amax)`` over ``dim`` (all dims when None)."""
    if dim is None:
        if keepdim:
            return aminmax_result(input.amin().reshape((1,) * input.ndim), input.amax().reshape((1,) * input.ndim))
        return aminmax_result(input.amin(), input.amax())
    return aminmax_result(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


defcomposite("aminmax", aminmax)

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if input.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    qs = input.new_full((), q) if scalar_q else q.to(input.dtype)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if bool(((qs < 0) | (qs > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = dims_of(dim, input.ndim)[0] if input.ndim else 0
        x = input if input.ndim else input.reshape(1)
    x = x.movedim(d, -1)
    values = x.sort(-1).values  # NaN sorts last
    n = x.shape[-1]
    nan = x.isnan()
    count = (~nan).sum(-1, keepdim=True) if ignore_nan else x.new_full(x.shape[:-1] + (1,), n, dtype=_dtypes.int64)
    qv = qs.reshape(-1)
    pos = qv * (count - 1).to(x.dtype)  # (..., len(q))
    if interpolation == "lower":
        pos = pos.floor()
    elif interpolation == "higher":
        pos = pos.ceil()
    elif interpolation == "nearest":
        pos = pos.round()
    lo = pos.floor().clamp(0, max(n - 1, 0)).long()
    hi = pos.ceil().clamp(0, max(n - 1, 0)).long()
    below, above = values.gather(-1, lo), values.gather(-1, hi)
    if interpolation == "midpoint":
        out = below + (above - below) * 0.5 * (hi != lo)
    else:
        out = below + (above - below) * (pos - lo.to(x.dtype))
    bad = (count == 0) if ignore_nan else nan.any(-1, keepdim=True)
    out = out.where(~bad, math.nan)
    out = out.movedim(-1, 0)  # (len(q), ...)
    if keepdim:
        if dim is None:
            out = out.reshape((out.shape[0],) + (1,) * input.ndim)
        elif input.ndim:
            out = out.unsqueeze(d + 1)
    return out[0] if scalar_q or qs.ndim == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles along ``dim`` (all elements when None); NaN where a slice holds NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` ignoring NaN (NaN where a slice holds only NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


defcomposite("quantile", quantile, out=True)
defcomposite("nanquantile", nanquantile, out=True)


def histc(input, bins=100, min=0, max=0):
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0); elements outside are
    left out, the maximum falls in the last bin. Float counts in the input's dtype, as PyTorch."""
    if input.dtype.kind != "f":
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{input.dtype.scalar_name}\'')
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bins")
    x = input.detach().reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, but got min {lo} max {hi}")
    inside = (x >= lo) & (x <= hi)
    index = ((x - lo) * (bins / (hi - lo))).floor().clamp(0, bins - 1).long().where(inside, bins)
    counts = x.new_zeros(bins + 1).scatter_add(0, index, x.new_ones(x.shape))
    return counts[:bins]


defcomposite("histc", histc, out=True)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the columns)."""
    if input.ndim > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.ndim} dimensions")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    x = _float(x)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = x.new_full((), n)
        avg = x.mean(1, keepdim=True)
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1, keepdim=True) / w_sum
    if w is None or aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    norm = norm.clamp(min=0)
    centred = x - avg
    c = (centred * w if w is not None else centred) @ centred.conj().mT / norm
    return c.reshape(()) if input.ndim < 2 else c


def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows (clipped to [-1, 1])."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = _fn("real")(d).sqrt() if d.dtype.kind == "c" else d.sqrt()
    c = c / stddev.unsqueeze(1) / stddev.unsqueeze(0)
    return c.clamp(-1, 1) if c.dtype.kind != "c" else c


defcomposite("cov", cov)
defcomposite("corrcoef", corrcoef)


histogram_result = collections.namedtuple("histogram", ["hist", "bin_edges"])
histogram_result.__module__ = "xtensor.return_types"


def histogram(input, bins, *, range=None, weight=None, density=False):
    """Counts (or weights, or a density) in ``bins`` equal bins over ``range`` (default: the data's), or between
    the given bin edges; the last bin includes its right edge. Computed on the host, as the shape depends
    on nothing but ``bins``; the result has the input's dtype and backend."""
    from .._creation import tensor
    if input.dtype.kind != "f":
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                           f"input {input.dtype.scalar_name}")
    values = input.detach().numpy().reshape(-1)
    edges = bins.detach().numpy() if isinstance(bins, Tensor) else bins
    w = None if weight is None else weight.detach().numpy().reshape(-1)
    if range is None and not isinstance(bins, Tensor) and values.size == 0:
        range = (0.0, 1.0)
    hist, edges = np.histogram(values.astype(np.float64), bins=edges, range=range, weights=w, density=density)
    return histogram_result(tensor(hist, dtype=input.dtype, backend=input._backend),
                            tensor(edges, dtype=input.dtype, backend=input._backend))


defcomposite("histogram", histogram)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The histogram of points in the rows of ``input`` (the last dim: the coordinates); ``bins`` a count,
    a count per dim, or the edges per dim; ``range`` ``[min0, max0, min1, max1, ...]``. On the host."""
    from .._creation import tensor
    points = np.asarray(input.detach().numpy(), dtype=np.float64)
    d = points.shape[-1]
    points = points.reshape(-1, d)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        bins = [b.detach().numpy().astype(np.float64) for b in bins]
    pairs = None if range is None else [(range[2 * i], range[2 * i + 1]) for i in builtins.range(d)]
    w = None if weight is None else weight.detach().numpy().reshape(-1)
    hist, edges = np.histogramdd(points, bins=bins, range=pairs, weights=w, density=density)
    result = collections.namedtuple("histogramdd", ["hist", "bin_edges"])
    result.__module__ = "xtensor.return_types"
    return result(tensor(hist, dtype=input.dtype, backend=input._backend),
                  [tensor(e, dtype=input.dtype, backend=input._backend) for e in edges])


defcomposite("histogramdd", histogramdd, method=False)


# ------------------------------------------------------------------ integrals and differences
def _trapezoids(y, x, dx, dim):
    """The area of each interval along ``dim`` (one fewer than ``y`` has): spacing ``dx`` (default 1) or sample
    points ``x``; and the dim."""
    d = dims_of(dim, y.ndim)[0]
    n = y.shape[d]
    heights = _float(y.narrow(d, 0, max(n - 1, 0))) + y.narrow(d, min(1, n), max(n - 1, 0))
    if x is None or not isinstance(x, Tensor):
        return heights * (dx if dx is not None else (x if x is not None else 1)) / 2, d
    dxs = _fn("diff")(x, dim=-1 if x.ndim == 1 else d)
    if x.ndim == 1:
        dxs = dxs.reshape((-1,) + (1,) * (y.ndim - d - 1))
    return heights * dxs / 2, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim``: spacing ``dx`` (default 1) or sample points ``x``."""
    areas, d = _trapezoids(y, x, dx, dim)
    return areas.sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid rule along ``dim`` (one element fewer than ``y`` along it)."""
    areas, d = _trapezoids(y, x, dx, dim)
    return areas.cumsum(d)


defcomposite("trapezoid", trapezoid, method=False)
defcomposite("trapz", trapz, method=False)
defcomposite("cumulative_trapezoid", cumulative_trapezoid, method=False)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Second-order central differences inside, one-sided differences of order ``edge_order`` at the edges,
    along each of ``dim`` (all dims when None); ``spacing``: a number, one number per dim, or the sample
    coordinates per dim (1-d tensors). One tensor per dim."""
    dims = list(range(input.ndim)) if dim is None else [dims_of(d, input.ndim)[0] for d in (
        [dim] if isinstance(dim, int) else dim)]
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2.")
    if not isinstance(spacing, (list, tuple)):
        spacing = [spacing] * len(dims)
    elif len(spacing) == 1 and len(dims) > 1:
        spacing = list(spacing) * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacing)} and a dim argument of length {len(dims)}.")
    x = _float(input)
    out = []
    for d, h in zip(dims, spacing):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least edge_order+1")
        out.append(_gradient_along(x, d, n, h, edge_order))
    return tuple(out)


def _gradient_along(x, d, n, h, edge_order):
    def part(start, length):
        return x.narrow(d, start, length)

    def along(t):  # a 1-d tensor of spacings shaped to broadcast along d
        return t.reshape((-1,) + (1,) * (x.ndim - d - 1))

    if isinstance(h, Tensor):
        c = h.to(x.dtype)
        dx = c[1:] - c[:-1]
        a, b = along(dx[:-1]), along(dx[1:])
        interior = (part(2, n - 2) * a * a - part(0, n - 2) * b * b + part(1, n - 2) * (b * b - a * a)) / \
            (a * b * (a + b))
        h0, h1, hl, hm = dx[0], dx[min(1, n - 2)], dx[-1], dx[max(-2, 1 - n)]  # (h1, hm: used when n > 2)
    else:
        interior = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        h0 = h1 = hl = hm = h
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / h0
        last = (part(n - 1, 1) - part(n - 2, 1)) / hl
    else:
        a, b = h0, h1
        first = (-(2 * a + b) / (a * (a + b)) * part(0, 1) + (a + b) / (a * b) * part(1, 1)
                 - a / (b * (a + b)) * part(2, 1))
        a, b = hm, hl
        last = (b / (a * (a + b)) * part(n - 3, 1) - (a + b) / (a * b) * part(n - 2, 1)
                + (a + 2 * b) / (b * (a + b)) * part(n - 1, 1))
    return _fn("cat")([first, interior, last], d)


defcomposite("gradient", gradient, method=False)


# ------------------------------------------------------------------ logcumsumexp, bucketize
def logcumsumexp(input, dim):
    """``log(cumsum(exp(x)))`` along ``dim``, shifted by the running maximum's upper bound for stability."""
    d = dims_of(dim, input.ndim)[0] if input.ndim else 0
    x = _float(input)
    if x.numel() == 0:
        return x.clone()
    top = x.detach().amax(d, keepdim=True) if x.ndim else x.detach()
    top = top.where(top.isfinite(), 0.0)
    return (x - top).exp().cumsum(d).log() + top


defcomposite("logcumsumexp", logcumsumexp, out=True)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each element among the sorted ``boundaries`` (``searchsorted`` with the roles swapped)."""
    if not isinstance(input, Tensor):
        input = boundaries.new_full((), input)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    r = _fn("searchsorted")(boundaries, input, out_int32=out_int32, right=right)
    if out is None:
        return r
    return assign_out(out, r, "bucketize")
