"""Reductions: sum, mean, amax/amin, argmax/argmin, max/min along a dim."""
from .._dispatch import Dims, overload_name
from .._table import TABLE, defop, dims_of, native_dtype, sum_dtype, unreduce, where_zero


# ------------------------------------------------------------------ reductions
def _reduce_sig(input, dim=None, keepdim=False, *, dtype=None):
    given = dim is not None  # sum(dim) is PyTorch's overload 1 (SumBackward1), whatever the dims
    if given and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    dims = dims_of(dim, input.ndim)
    return (input,), (Dims(dims) if given else dims, keepdim, dtype)


def _reduce_api_sig(x, /, *, axis=None, keepdims=False, dtype=None):
    return (x,), (dims_of(axis, x.ndim), keepdims, dtype)


def _sum_fwd(xp, x, dims, keepdim, dtype):
    return xp.sum(x, axis=dims, keepdims=keepdim, dtype=None if dtype is None else native_dtype(xp, dtype))


def _mean_fwd(xp, x, dims, keepdim, dtype):
    if dtype is not None:
        x = xp.astype(x, native_dtype(xp, dtype))
    return xp.mean(x, axis=dims, keepdims=keepdim)


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


defop("sum", _sum_fwd, (lambda g, ans, x, dims, keepdim, dtype: unreduce(g, x.shape, dims, keepdim),),
      sig=_reduce_sig, api=True, api_sig=_reduce_api_sig, out=True, saves=(), cast=sum_dtype,
      names=overload_name("SumBackward"))
defop("mean", _mean_fwd,
      (lambda g, ans, x, dims, keepdim, dtype: unreduce(g, x.shape, dims, keepdim) / _count(x.shape, dims),),
      sig=_reduce_sig, api=True, api_sig=lambda x, /, *, axis=None, keepdims=False:
      ((x,), (dims_of(axis, x.ndim), keepdims, None)), out=True, saves=(), names=overload_name("MeanBackward"))


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
    mask = x == unreduce(ans, x.shape, dims, keepdim)
    return unreduce(g, x.shape, dims, keepdim) * mask / unreduce(mask.sum(dims, keepdim=keepdim), x.shape,
                                                                   dims, keepdim)


def _amax_sig(input, dim=(), keepdim=False):
    dims = dims_of(None if dim == () else dim, input.ndim)
    _nonempty(input, dims, "max")
    return (input,), (dims, keepdim)


def _nonempty(x, dims, name):
    if any(x.shape[d] == 0 for d in dims) or (not dims and x.numel() == 0):
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                         "Specify the reduction dim with the 'dim' argument.")


for _name, _fn in (("amax", "max"), ("amin", "min")):
    defop(_name, (lambda f: lambda xp, x, dims, keepdim: getattr(xp, f)(x, axis=dims, keepdims=keepdim))(_fn),
          (_extreme_vjp,), sig=_amax_sig, api=_fn, out=True,
          api_sig=lambda x, /, *, axis=None, keepdims=False: ((x,), (dims_of(axis, x.ndim), keepdims)))


def _arg_sig(input, dim=None, keepdim=False):
    if dim is None:
        return (input,), (None, False)
    dims = dims_of(dim, input.ndim)
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
    return where_zero(hits, (g[0] if keepdim else g[0].unsqueeze(dim)).expand(x.shape))


def _arange_along(x, dim):
    from .._creation import arange
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
