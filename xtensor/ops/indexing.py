"""Indexing: basic views, advanced-index copies and index_put; the gather/scatter family (gather, scatter,
scatter_add, scatter_reduce, index_select, index_add, index_copy, index_fill, masked_fill, masked_scatter,
take, put, take_along_dim); conversions between dtypes and backends.

Every gather and scatter addresses the flattened input through flat positions computed with the
backend's own functions from the index tensor (``dim_positions``), so index values are never
read on the host for the result: ops compile under ``jax.jit`` with traced indices. A gather is
the standard's ``take``; a scatter is the adapter's ``scatter_reduce_flat`` (one ``.at[]`` update
on jax, ``ufunc.at`` on numpy, rounds of standard functions on other namespaces, which have no
scatter). Index bounds are checked with PyTorch's errors by reading only the index's extremes
(and not under a trace). The ``index_*`` ops are gathers/scatters with the 1-d index expanded
along ``dim``, each its own entry so that nodes carry PyTorch's names.
"""
import functools
import math

import numpy as np

from .. import _dtypes
from .._dispatch import _broadcast_mismatch, _native, _unify, kernel_forward
from .._backend import check_index_range, is_traced
from .._table import defcomposite, defop, dims_of, native_dtype, via_uint8
from .._tensor import Tensor, basic_meta, check_dim, contiguous_strides


# ------------------------------------------------------------------ indexing
def _getitem_fwd(xp, x, index, backend, mask=None, *arguments):
    """``arguments``: inside a cached indexing program, the values of the index that ``index`` (a ``_Structure``)
    stands for (see ``_read``)."""
    if type(index) is _Structure:
        return _structured_read(x, index, backend, arguments)
    if backend.native_indexing and not (backend.mutable and _reverses(index)):  # numpy: a reversal is a view
        return _read(xp, x, index, backend)
    return gather_positions(xp, x, positions_of(tuple(x.shape))[index])


def _read(xp, x, index, backend):
    """``x[index]`` for a host-normalized index on a backend that indexes natively. A concrete jax array is read by one
    cached ``jax.jit`` program per index structure, the index's values its arguments (``_structure``), through
    ``kernel_forward``: jnp's eager indexing binds 2-6 primitives (a gather with 32 host indices ~6: ~300 µs on this
    2-core machine, ~180 µs each on an H100); a tracer (or a tracer in the index) is indexed plainly, so a traced
    program holds jnp's own primitives."""
    if type(x) is backend.kernel_array_type:
        parts = _structure(index, x.shape, backend.kernel_array_type)
        if parts is not None:
            structure, arguments = parts
            if len(getitem_copy._kernels) >= _MAX_STRUCTURES:  # (slice spans among them: bounded, as jax's caches)
                getitem_copy._kernels.clear()
            return kernel_forward(getitem_copy, backend, x, None, (structure, backend, None), (x.dtype, structure),
                                  arguments)[0]
    return x[index]


class _Structure(tuple):
    """A host index with its values taken out: what fixes a cached indexing program (jit adds the shapes and dtypes
    of the array and the arguments), so that ``x[i]``, ``x[i:i + n]`` and ``x[rows]`` in a loop reuse one program.
    Entries: None and Ellipsis; ``_WHOLE`` (a slice of a whole dim); ``_AT`` (an int) and ``(span, step)`` (a slice
    reading ``span`` elements, every ``step``-th kept), whose starts are the first argument; ``_ARRAY`` (an index array,
    the next argument)."""


_WHOLE, _AT, _ARRAY = "whole", "at", "array"
_MAX_STRUCTURES = 1024  # indexing programs kept (per dtype and structure; jit keeps one per shape under each)


def _structure(index, shape, array_type):
    """``(_Structure, arguments)`` of a host-normalized index into an array of ``shape``: the box starts of its ints
    (negative ones counted from the end) and slices as one int64 host array when it has any, then its index arrays (a
    mask as the positions of its Trues, one array per dim it covers, as NumPy reads it); None for an index that a
    program cannot take as arguments (a tracer, a reversing slice, a 0-d mask)."""
    consumed = 0
    for item in index:
        if item is not None and item is not Ellipsis:
            consumed += item.ndim if type(item) is np.ndarray and item.dtype.kind == "b" else 1
    entries, starts, arrays, dim = [], [], [], 0
    for item in index:
        kind = type(item)
        if item is None:
            entries.append(None)
            continue
        if item is Ellipsis:
            entries.append(Ellipsis)
            dim += len(shape) - consumed
            continue
        if kind is int:
            entries.append(_AT)
            starts.append(item % shape[dim])
        elif kind is slice:
            start, stop, step = item.indices(shape[dim])
            if step < 0:
                return None
            length = len(range(start, stop, step))
            if start == 0 and step == 1 and length == shape[dim]:
                entries.append(_WHOLE)
            else:
                entries.append(((length - 1) * step + 1 if length else 0, step))
                starts.append(start)
        elif kind is np.ndarray and item.dtype.kind == "b":
            if not item.ndim:
                return None
            entries += [_ARRAY] * item.ndim
            arrays += item.nonzero()
            dim += item.ndim
            continue
        elif kind is np.ndarray or kind is array_type:
            entries.append(_ARRAY)
            arrays.append(item)
        else:
            return None
        dim += 1
    return _Structure(entries), (np.array(starts, dtype=np.int64), *arrays) if starts else tuple(arrays)


def _structured_read(x, structure, backend, arguments):
    """``x[index]`` inside the cached program, for the index that ``structure`` stands for and ``arguments`` holds the
    values of: the box its ints and slices address read at the starts (``backend.read_box``), then that box indexed
    with static steps, zeros for the ints, and the index arrays."""
    shape = x.shape
    addressed = sum(1 for entry in structure if entry is not None and entry is not Ellipsis)
    boxed = any(entry is _AT or type(entry) is tuple for entry in structure)
    values = iter(arguments[1:] if boxed else arguments)
    index, box_starts, sizes, k = [], [], [], 0
    for entry in structure:
        if entry is None or entry is Ellipsis:
            index.append(entry)
            if entry is Ellipsis:
                whole = range(len(sizes), len(sizes) + len(shape) - addressed)
                box_starts += [0] * len(whole)
                sizes += [shape[d] for d in whole]
        elif entry is _AT or type(entry) is tuple:
            box_starts.append(arguments[0][k])
            k += 1
            sizes.append(1 if entry is _AT else entry[0])
            index.append(0 if entry is _AT else slice(None, None, entry[1]))
        else:
            box_starts.append(0)
            sizes.append(shape[len(sizes)])
            index.append(slice(None) if entry is _WHOLE else next(values))
    if boxed:
        box_starts += [0] * (len(shape) - len(sizes))
        x = backend.read_box(x, box_starts, sizes + list(shape[len(sizes):]))
    return x[tuple(index)]


def _reverses(index):
    return any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in index)


def _getitem_vjp(ns, g, ans, x, index, backend, mask=None):
    """Gradients of repeated elements add up: an accumulating index_put."""
    return ns.index_add(x.shape, index, g)


def _view_vjp(ns, g, ans, x, index, backend):
    return ns.view_index_put(x.shape, index, g)


def _getitem_meta(shape, stride, offset, index, backend):
    return basic_meta(shape, stride, offset, index)


getitem_view = defop("getitem_view", _read, (_view_vjp,), view=_getitem_meta,
                     saves=("meta0",),
                     function=False, method=False, node="SliceBackward0")
getitem_copy = defop("getitem_copy", _getitem_fwd, (_getitem_vjp,), saves=(1, "meta0"), function=False, method=False,
                     node="IndexBackward0")
# ``input[mask]`` that keeps (and version-checks) ``input`` and the caller's ``mask`` as PyTorch's masked_select
masked_select = defop("_masked_select", _getitem_fwd, (_getitem_vjp,), saves=(0, 3), function=False, method=False,
                      node="MaskedSelectBackward0")


def _index_put_fwd(xp, x, v, index, backend, accumulate=False, indices=()):
    positions = index_positions(xp, tuple(x.shape), index, backend)
    flat = xp.reshape(x, (-1,))
    values = xp.reshape(xp.broadcast_to(xp.astype(v, x.dtype), tuple(positions.shape)), (-1,))
    return xp.reshape(backend.scatter_reduce_flat(flat, positions.reshape(-1), values,
                                                  "sum" if accumulate else "set"), x.shape)


# A non-leaf overwritten by a value of no history of its own (fill_, copy_, zero_ of a constant): the old history
# stays an input of the write's node with a fresh zero gradient, as PyTorch's FillBackward/ZeroBackward give it
# (the old history's nodes still run, and check what they saved; under create_graph that zero has no graph)
overwrite = defop("overwrite", lambda xp, old, new: new,
                  (lambda ns, g, ans, old, new: ns.zeros(g.shape, g), lambda ns, g, ans, old, new: g), saves=(),
                  function=False, method=False)


# ``indices``: the caller's index tensors, which the node keeps and version-checks as PyTorch's (the VJPs read the
# host ``index`` made of them)
index_put = defop(
    "index_put", _index_put_fwd,
    (lambda ns, g, ans, x, v, index, backend, accumulate=False, indices=():
        g if accumulate else ns.apply("index_put", (g, ns.full_like(g, 0)), (index, backend, False, ())),
     lambda ns, g, ans, x, v, index, backend, accumulate=False, indices=():
        ns.apply("getitem_copy", (g,), (index, backend))),
    saves=(2, 5), function=False, method=False, node="IndexPutBackward0")


# ------------------------------------------------------------------ gather / scatter
@functools.lru_cache(maxsize=64)
def positions_of(shape):
    """``arange(numel).reshape(shape)`` on the host: advanced indices become flat positions through it."""
    positions = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    positions.flags.writeable = False
    return positions


def index_positions(xp, shape, index, backend):
    """Flat positions of ``x[index]`` in a C-ordered ``x`` of ``shape``: host numpy for a host index,
    computed on the device (traceable) when the index holds device arrays."""
    if all(not hasattr(i, "shape") or isinstance(i, np.ndarray) for i in index):
        return positions_of(tuple(shape))[index]
    return _read(xp, xp.reshape(xp.arange(math.prod(shape), dtype=xp.int64), tuple(shape)), index, backend)


def gather_positions(xp, x, positions):
    """``x.reshape(-1)[positions]`` with only standard functions."""
    flat = xp.reshape(x, (-1,))
    return xp.reshape(xp.take(flat, xp.asarray(positions.reshape(-1)), axis=0), positions.shape)


def dim_positions(xp, shape, dim, index):
    """Flat C-order positions in an array of ``shape`` addressed as ``torch.gather`` does: ``index``'s
    value along ``dim``, each element's own coordinate along every other dim."""
    strides = contiguous_strides(shape) or (1,)
    pos = index * strides[dim]
    for k, n in enumerate(index.shape):
        if k != dim:
            along = [1] * index.ndim
            along[k] = n
            pos = pos + xp.reshape(xp.arange(n, dtype=xp.int64) * strides[k], tuple(along))
    return xp.reshape(pos, (-1,))


def _index_array(xp, index, backend):
    return xp.astype(_native(index, backend, None), xp.int64)


def _gather_fwd(xp, x, index, dim, backend):
    idx = _index_array(xp, index, backend)
    out = xp.take(xp.reshape(x, (-1,)), dim_positions(xp, tuple(x.shape), dim, idx), axis=0)
    return xp.reshape(out, tuple(idx.shape))


def _scatter_fwd(xp, x, src, index, dim, reduce, backend, given=None):
    """``x`` with ``src`` (an array at least as large as ``index``, or a scalar) combined in at ``index``. ``given``:
    the caller's source when ``src`` was computed from it (``index_add``'s ``alpha``), kept for its node only."""
    idx = _index_array(xp, index, backend)
    n = math.prod(idx.shape)
    if hasattr(src, "shape") and src.ndim:
        values = xp.astype(src[tuple(slice(0, s) for s in idx.shape)], x.dtype)
    else:
        values = xp.broadcast_to(xp.astype(xp.asarray(src), x.dtype) if hasattr(src, "shape")
                                 else xp.full((), src, dtype=x.dtype), tuple(idx.shape))
    flat = xp.reshape(x, (-1,))
    if n:
        flat = backend.scatter_reduce_flat(flat, dim_positions(xp, tuple(x.shape), dim, idx),
                                           xp.reshape(values, (-1,)), reduce)
    return xp.reshape(flat, x.shape)


# Adding bools is a logical or, as PyTorch's kernels add them: the largest of uint8s (the array API adds numbers only)
_bools_scatter = via_uint8(lambda xp, x, src, index, dim, reduce, *rest:
                           _scatter_fwd(xp, x, src, index, dim, "amax" if reduce == "sum" else reduce, *rest))


def _adapter(*tensors):
    return _unify([t for t in tensors if isinstance(t, Tensor)])


def _int_index(name, index, expected="int32/int64"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype {expected} for index")
    return index


def _in_range(index, size, dim, error=RuntimeError):
    check_index_range(index._value, 0, size, lambda bad: error(
        f"index {bad} is out of bounds for dimension {dim} with size {size}"))


def _gather_args(name, input, dim, index, src=None):
    """Checks of gather/scatter arguments (PyTorch's), and ``dim`` normalized."""
    index = _int_index(name, index)
    _adapter(input, index, src)
    d = check_dim(dim, input.ndim)
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if src is None else 'self'} tensor")
    ishape, xshape = tuple(index.shape) or (1,), tuple(input.shape) or (1,)
    for k, (n, m) in enumerate(zip(ishape, xshape)):
        if k != d and n > m:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to be "
                               f"no larger than {'self' if src is not None else 'input'} {list(input.shape)} apart "
                               f"from dimension {d}")
    if isinstance(src, Tensor):
        if src.dtype is not input.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        if src.ndim != index.ndim and not (index.ndim <= 1 and src.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        for k, (n, m) in enumerate(zip(ishape, tuple(src.shape) or (1,))):
            if n > m:
                raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to "
                                   f"be no larger than src {list(src.shape)}")
    _in_range(index, xshape[d], d)
    if index.ndim != input.ndim:  # 0-d with 1-d: address as the input's shape
        index = index.reshape(tuple(input.shape))
    return d, index


def _gather_sig(input, dim, index, *, sparse_grad=False):
    d, index = _gather_args("gather", input, dim, index)
    return (input,), (index, d, input._backend)


defop("gather", _gather_fwd,
      (lambda ns, g, ans, x, index, dim, backend: ns.scatter_add(ns.zeros(x.shape, g), dim, index, g),),
      sig=_gather_sig, out=True, saves=(0, 1))  # self and index, as PyTorch


_REDUCE_NAMES = {"add": "sum", "multiply": "prod"}


def _scatter_sig(input, dim, index, src=None, *, value=None, reduce=None):
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    d, index = _gather_args("scatter", input, dim, index, src)
    if reduce is not None and reduce not in _REDUCE_NAMES:
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    mode = _REDUCE_NAMES.get(reduce, "set")
    if isinstance(src, Tensor):
        return (input, src), (index, d, mode, _adapter(input, src))
    return (input,), (_scalar(src, "scatter"), index, d, mode, input._backend)


def _scalar(value, name):
    if isinstance(value, (bool, int, float, complex)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{name}(): expected a Tensor or a Python number as the value, got {type(value).__name__}")


def _no_derivative(what):
    raise RuntimeError(f"the derivative for '{what}' is not implemented.")


def _set_x_vjp(ns, g, ans, x, src, index, dim, mode, backend):
    return _zero_at(ns, g, index, dim, backend) if mode == "set" else _no_derivative("scatter with reduce")


def _set_src_vjp(ns, g, ans, x, src, index, dim, mode, backend):
    return _into(ns, _gather(ns, g, index, dim, backend), src) if mode == "set" else \
        _no_derivative("scatter with reduce")


def _add_x_vjp(ns, g, ans, x, src, index, dim, mode, backend, given=None):
    return g


def _add_src_vjp(ns, g, ans, x, src, index, dim, mode, backend, given=None):
    return _into(ns, _gather(ns, g, index, dim, backend), src)


def _gather(ns, g, index, dim, backend):
    return ns.apply("gather", (g,), (index, dim, backend))


def _zero_at(ns, g, index, dim, backend):
    """``g`` with zeros where ``index`` points along ``dim`` (``g.scatter(dim, index, 0)``)."""
    return ns.apply("scatter", (g,), (0, index, dim, "set", backend))


def _into(ns, gi, src):
    """The gradient of the leading block of ``src`` that an index addressed, as a gradient of all of ``src``."""
    return gi if tuple(gi.shape) == tuple(src.shape) else ns.view_index_put(tuple(src.shape), _sub(gi), gi)


defop("scatter", _scatter_fwd, (_set_x_vjp, _set_src_vjp), sig=_scatter_sig, inplace=True, out=True, saves=(2, "meta1"),
      names=lambda x, src, *params: "ScatterBackward0" if isinstance(src, Tensor) else "ScatterBackward1",
      overlap="scatter")


def _scatter_add_sig(input, dim, index, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    d, index = _gather_args("scatter_add", input, dim, index, src)
    return (input, src), (index, d, "sum", _adapter(input, src))


defop("scatter_add", _scatter_fwd, (_add_x_vjp, _add_src_vjp), sig=_scatter_add_sig, inplace=True, out=True,
      saves=(2, "meta1"), bool_fwd=_bools_scatter, overlap="scatter")


# ------------------------------------------------------------------ scatter_reduce
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _identity(xp, reduce, dtype):
    """The value a reduction starts from when ``include_self=False``."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if xp.isdtype(dtype, "real floating"):
        return -math.inf if reduce == "amax" else math.inf
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _scatter_reduce_fwd(xp, x, src, index, dim, reduce, include_self, backend):
    if not include_self:
        x = _scatter_fwd(xp, x, _identity(xp, reduce, x.dtype), index, dim, "set", backend)
    if reduce != "mean":
        return _scatter_fwd(xp, x, src, index, dim, reduce, backend)
    total = _scatter_fwd(xp, x, src, index, dim, "sum", backend)
    count = _scatter_fwd(xp, xp.ones_like(x) if include_self else xp.zeros_like(x), 1, index, dim, "sum", backend)
    count = xp.where(count == 0, xp.ones_like(count), count)
    return total / count if xp.isdtype(x.dtype, "real floating") else total // count


def _scatter_reduce_sig(input, dim, index, src, reduce, *, include_self=True):
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' must be Tensor, not {type(src).__name__}")
    d, index = _gather_args("scatter_reduce", input, dim, index, src)
    return (input, src), (index, d, reduce, bool(include_self), _adapter(input, src))


def _ones(ns, like, shape):
    return ns.expand(ns.full_like(like, 1), shape)


def _untouched(ns, x, index, dim, backend):
    """1 where no index points, 0 where one does (in ``x``'s dtype)."""
    return _zero_at(ns, _ones(ns, x, x.shape), index, dim, backend)


def _reduce_count(ns, x, index, dim, include_self, x_hits, src_hits, backend):
    """How many contributions (among those marked by ``x_hits``/``src_hits``) meet at each position."""
    base = x_hits if include_self else _untouched(ns, x, index, dim, backend) * x_hits
    return ns.scatter_add(base, dim, index, src_hits)


def _mean_count(ns, x, index, dim, include_self, backend):
    return _reduce_count(ns, x, index, dim, include_self, _ones(ns, x, x.shape), _ones(ns, x, index.shape), backend)


def _extreme_hits(ns, ans, x, src, index, dim, include_self, backend):
    """For amax/amin: which elements of ``x`` and of ``src``'s block equal the result at their position, and how
    many tie there (the gradient is shared among them)."""
    x_hits = ns.cast_like(x == ans, x) if include_self else _untouched(ns, x, index, dim, backend)
    src_hits = ns.cast_like(src[_sub(index)] == _gather(ns, ans, index, dim, backend), x)
    return x_hits, src_hits, _reduce_count(ns, x, index, dim, include_self, x_hits, src_hits, backend)


def _scatter_reduce_x_vjp(ns, g, ans, x, src, index, dim, reduce, include_self, backend):
    if reduce in ("amax", "amin"):
        hits, _, ties = _extreme_hits(ns, ans, x, src, index, dim, include_self, backend)
        return g * hits / ties
    if not include_self:
        return g * _untouched(ns, x, index, dim, backend)
    if reduce == "sum":
        return g
    if reduce == "mean":
        return g / _mean_count(ns, x, index, dim, True, backend)
    return g * _others_product(ns, ans, x, x, src, index, dim, True, backend)


def _scatter_reduce_src_vjp(ns, g, ans, x, src, index, dim, reduce, include_self, backend):
    if reduce == "sum":
        gi = _gather(ns, g, index, dim, backend)
    elif reduce == "mean":
        gi = _gather(ns, g / _mean_count(ns, x, index, dim, include_self, backend), index, dim, backend)
    elif reduce == "prod":
        gi = _gather(ns, g, index, dim, backend) * _others_product(ns, ans, src[_sub(index)], x, src, index, dim,
                                                                    include_self, backend, of_src=True)
    else:
        _, hits, ties = _extreme_hits(ns, ans, x, src, index, dim, include_self, backend)
        gi = _gather(ns, g / ties, index, dim, backend) * hits
    return _into(ns, gi, src)


def _sub(index):
    """The leading block of ``src`` that ``index`` addresses."""
    return tuple(slice(0, n) for n in index.shape)


def _others_product(ns, ans, value, x, src, index, dim, include_self, backend, of_src=False):
    """For each contribution ``value`` to a product: the product of the others at its position (exact with
    zeros: PyTorch's rule), gathered to ``value``'s place."""
    part = src[_sub(index)]
    at = (lambda t: _gather(ns, t, index, dim, backend)) if of_src else (lambda t: t)
    zeros = _reduce_count(ns, x, index, dim, include_self, ns.cast_like(x == 0, x), ns.cast_like(part == 0, x), backend)
    one = ns.full_like(x, 1)
    nonzero_product = ns.apply("scatter_reduce", (ns.where(x == 0, one, x), ns.where(part == 0, one, part)),
                               (index, dim, "prod", include_self, backend))
    return ns.where(value != 0, at(ans) / ns.where(value == 0, one, value),
                    ns.where_zero(at(zeros) == 1, at(nonzero_product)))


defop("scatter_reduce", _scatter_reduce_fwd, (_scatter_reduce_x_vjp, _scatter_reduce_src_vjp),
      sig=_scatter_reduce_sig, inplace=True, out=True, overlap="scatter", saves=(0, 1, 2, 3, 4, 5, "result"))


# ------------------------------------------------------------------ index_* (a 1-d index along dim)
def _along(index, input, dim):
    """A 1-d ``index`` expanded as a gather/scatter index over ``input`` (its length replacing dim ``dim``)."""
    shape = list(input.shape) or [1]
    shape[dim] = index.numel()
    view = [1] * len(shape)
    view[dim] = index.numel()
    expanded = index.reshape(view).expand(shape)
    return expanded if input.ndim else expanded.reshape(())


def _vector_index(name, index, expected):
    index = _int_index(name, index, expected)
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    return index.reshape(-1)


def _index_select_sig(input, dim, index):
    index = _vector_index("index_select", index, "int32 or int64")
    d = check_dim(dim, input.ndim)
    size = tuple(input.shape)[d] if input.ndim else 1
    check_index_range(index._value, 0, size, lambda bad: IndexError("index out of range in self") if d != 1 else
                      RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}"))  # CPU's two
    # kernels: one for dim 1, one for the others
    return (input,), (_along(index, input, d), d, _adapter(input, index))


defop("index_select", _gather_fwd,
      (lambda ns, g, ans, x, index, dim, backend: ns.scatter_add(ns.zeros(x.shape, g), dim, index, g),),
      sig=_index_select_sig, out=True, saves=(1, "meta0"))


def _embedding_sig(weight, indices):
    """``nn.functional.embedding``'s lookup (its caller has checked the indices' range): ``weight``'s rows at the
    flattened ``indices``, shaped as ``indices`` + a row."""
    index = _int_index("index_select", indices, "int32 or int64").reshape(-1)
    return (weight,), (index, _adapter(weight, index), (*indices.shape, weight.shape[1]))


def _embedding_vjp(ns, g, ans, x, index, backend, shape):
    """The rows' gradients added up at their indices, in index order (PyTorch's): index_select's scatter, the index
    broadcast across each row."""
    rows = (index.shape[0], x.shape[1])
    spread = ns.expand(ns.reshape(index, (rows[0], 1)), rows)
    return ns.scatter_add(ns.zeros(x.shape, g), 0, spread, ns.reshape(g, rows))


# one node named as PyTorch's (EmbeddingBackward0) rather than an index_select and a view; the rows taken at once
# (a gather at every element's flat position took 25 of the lookup's 30 us, 320 x 32 rows)
defop("embedding", lambda xp, x, index, backend, shape: xp.reshape(
          xp.take(x, _index_array(xp, index, backend), axis=0), shape), (_embedding_vjp,),
      sig=_embedding_sig, method=False, function=False, saves=(1, "meta0"))  # (the weight: a parameter, alive anyway)


def _source_along(name, input, d, index, source):
    """Checks of an index_add/index_copy source against the index and input."""
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' must be Tensor, not {type(source).__name__}")
    n = index.numel()
    if source.ndim and source.shape[d if source.ndim > d else -1] != n or (not source.ndim and n != 1):
        got = source.shape[d] if source.ndim > d else 1
        if name == "index_add_":
            raise RuntimeError(f"{name}(): Number of indices ({n}) should be equal to source.size(dim): ({got}), "
                               f"for dim: {d}")
        raise IndexError(f"{name}(): Number of indices ({n}) should be equal to source.size(dim) ({got})")
    if source.ndim != input.ndim and source.ndim:
        raise IndexError(f"{name}(): Source/destination tensor must have same number of dimensions")
    expected = list(input.shape)
    if input.ndim:
        expected[d] = n
    if list(source.shape or [1]) != (expected or [1]):
        raise RuntimeError(f"{name}(): source {list(source.shape)} does not match the destination {list(input.shape)} "
                           f"outside dimension {d}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{name}(): self ({input.dtype.scalar_name}) and source ({source.dtype.scalar_name}) "
                           "must have the same scalar type")


def _index_write_args(name, input, dim, index, source):
    index = _vector_index(name, index, "int32 or int64")
    _adapter(input, index, source)
    d = check_dim(dim, input.ndim)
    _source_along(name, input, d, index, source)
    size = tuple(input.shape)[d] if input.ndim else 1
    if name == "index_copy_":
        check_index_range(index._value, 0, size, lambda bad: IndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}"))
    elif input.ndim <= 1 or 0 < d < input.ndim - 1:  # PyTorch's CPU index_add of a vector, or along an inner
        # dim, goes through index_select's path and takes its error
        check_index_range(index._value, 0, size, lambda bad: IndexError("index out of range in self"))
    else:
        _in_range(index, size, d)
    return d, _along(index, input, d)


def _shaped(source, like):
    return source if tuple(source.shape) == tuple(like.shape) else source.reshape(like.shape)


def _index_add_sig(input, dim, index, source, *, alpha=1):
    d, along = _index_write_args("index_add_", input, dim, index, source)
    given = source
    if alpha != 1:
        source = source * alpha
    return (input, _shaped(source, along)), (along, d, "sum", _adapter(input, source), given)


defop("index_add", _scatter_fwd, (_add_x_vjp, _add_src_vjp), sig=_index_add_sig, inplace=True, out=True,
      saves=(1, 2, 6), bool_fwd=_bools_scatter,
      overlap="scatter")  # source (the caller's, also when scaled by alpha) and index, as PyTorch


def _index_copy_sig(input, dim, index, source):
    d, along = _index_write_args("index_copy_", input, dim, index, source)
    return (input, _shaped(source, along)), (along, d, "set", _adapter(input, source))


defop("index_copy", _scatter_fwd, (_set_x_vjp, _set_src_vjp), sig=_index_copy_sig, inplace=True, out=True,
      saves=(1, 2), overlap="scatter")


def _index_fill_sig(input, dim, index, value):
    index = _vector_index("index_fill_", index, "int64")
    _adapter(input, index, value)
    d = check_dim(dim, input.ndim)
    size = tuple(input.shape)[d] if input.ndim else 1
    _in_range(index, size, d, IndexError)
    along = _along(index, input, d)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return (input, value.to(input.dtype)), (along, d, "set", _adapter(input, value))
    return (input,), (_scalar(value, "index_fill"), along, d, "set", input._backend)


defop("index_fill", _scatter_fwd,
      (_set_x_vjp,
       lambda ns, g, ans, x, v, index, dim, mode, backend: ns.sum(_gather(ns, g, index, dim, backend), range(g.ndim))),
      sig=_index_fill_sig, inplace=True, saves=(2,),
      names=lambda x, value, *params: "IndexFillBackward1" if isinstance(value, Tensor) else "IndexFillBackward0")


# ------------------------------------------------------------------ masks
def _mask_arg(name, input, mask):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {mask.dtype.scalar_name}")
    return mask


def _masked_fill_fwd(xp, x, value, mask, backend):
    m = _native(mask, backend, None)
    v = xp.astype(value, x.dtype) if hasattr(value, "shape") else xp.full((), value, dtype=x.dtype)
    return xp.where(m, v, x)


def _masked_fill_sig(input, mask, value):
    mask = _mask_arg("masked_fill_", input, mask)
    if tuple(mask.shape) != tuple(input.shape):
        mismatch = _broadcast_mismatch((input, mask))
        if mismatch:
            raise RuntimeError(mismatch)
        mask = mask.expand(input.shape)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return (input, value.to(input.dtype)), (mask, _adapter(input, value, mask))
    value = _scalar(value, "masked_fill")
    input.dtype.check_fits(value)
    return (input,), (value, mask, _adapter(input, mask))


defop("masked_fill", _masked_fill_fwd,
      (lambda ns, g, ans, x, v, mask, backend: ns.where_zero(~mask, g),
       lambda ns, g, ans, x, v, mask, backend: ns.sum(ns.where_zero(mask, g), tuple(range(g.ndim)))),
      sig=_masked_fill_sig, inplace=True, saves=(2,),
      names=lambda x, value, *params: "MaskedFillBackward1" if isinstance(value, Tensor) else "MaskedFillBackward0")


def _masked_scatter_fwd(xp, x, source, mask, backend):
    """Source elements in order into the masked places: the k-th True takes ``source.flatten()[k]``."""
    m = xp.reshape(_native(mask, backend, None), (-1,))
    rank = xp.cumulative_sum(xp.astype(m, xp.int64)) - 1
    flat_source = xp.reshape(source, (-1,))
    rank = xp.clip(rank, 0, max(flat_source.shape[0] - 1, 0))
    picked = xp.take(flat_source, rank, axis=0) if flat_source.shape[0] else xp.zeros_like(xp.reshape(x, (-1,)))
    return xp.reshape(xp.where(m, picked, xp.reshape(x, (-1,))), x.shape)


def _masked_scatter_sig(input, mask, source):
    mask = _mask_arg("masked_scatter_", input, mask)
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, not {type(source).__name__}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{input.dtype.scalar_name} and {source.dtype.scalar_name}")
    mask = mask.expand(input.shape)
    if not is_traced(mask._value) and int(mask.sum()) > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask: "
                           f"{source.numel()} < {int(mask.sum())}")
    return (input, source), (mask, _adapter(input, source, mask))


def _masked_scatter_source_vjp(ns, g, ans, x, source, mask, backend):
    """The gradient at the masked places, in order, into the leading elements of ``source`` (zeros after)."""
    picked = g[mask]
    unused = math.prod(source.shape) - picked.shape[0]
    return ns.reshape(ns.apply("constant_pad_nd", (picked,), ((0, unused), 0)) if unused else picked, source.shape)


defop("masked_scatter", _masked_scatter_fwd,
      (lambda ns, g, ans, x, source, mask, backend: ns.where_zero(~mask, g), _masked_scatter_source_vjp),
      sig=_masked_scatter_sig, inplace=True, saves=(2, "meta1"))


# ------------------------------------------------------------------ flat take / put
def _flat_index(name, input, index, error=IndexError):
    index = _int_index(name, index, "int64")
    _adapter(input, index)
    n = input.numel()
    check_index_range(index._value, -n, n, lambda bad: error(
        f"out of range: tried to access index {bad} on a tensor of {n} elements."))
    return index.remainder(max(n, 1)).reshape(-1)


def _take_sig(input, index):
    # the caller's ``index`` last: the node keeps it as PyTorch does (version-checked), computing with the flat one
    return (input,), (_flat_index("take", input, index), tuple(index.shape), _adapter(input, index), index)


def _take_fwd(xp, x, index, shape, backend, given):
    return xp.reshape(xp.take(xp.reshape(x, (-1,)), _index_array(xp, index, backend), axis=0), shape)


defop("take", _take_fwd,
      (lambda ns, g, ans, x, index, shape, backend, given: ns.reshape(
          ns.scatter_add(ns.zeros((math.prod(x.shape),), g), 0, index, ns.reshape(g, (-1,))), x.shape),),
      sig=_take_sig, saves=(0, 4), out=True)  # self and index, as PyTorch


def _put_sig(input, index, source, accumulate=False):
    flat = _flat_index("put_", input, index)
    if not isinstance(source, Tensor):
        raise TypeError(f"put(): argument 'source' must be Tensor, not {type(source).__name__}")
    if source.numel() != flat.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {flat.numel()}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self ({input.dtype.scalar_name}) and source ({source.dtype.scalar_name}) "
                           "must have the same scalar type")
    return (input, source), (flat, "sum" if accumulate else "set", _adapter(input, source), index)  # as take's


def _put_fwd(xp, x, source, index, mode, backend, given):
    return xp.reshape(_scatter_fwd(xp, xp.reshape(x, (-1,)), xp.reshape(source, (-1,)), index, 0, mode, backend),
                      x.shape)


defop("put", _put_fwd,
      (lambda ns, g, ans, x, source, index, mode, backend, given:
       g if mode == "sum" else ns.reshape(_zero_at(ns, ns.reshape(g, (-1,)), index, 0, backend), g.shape),
       lambda ns, g, ans, x, source, index, mode, backend, given: ns.reshape(ns.take(ns.reshape(g, (-1,)), index),
                                                                             source.shape)),
      sig=_put_sig, inplace=True, saves=(1, 5), overlap="scatter")  # source and index, as PyTorch


def take_along_dim(input, indices, dim=None):
    """``gather`` after broadcasting ``input`` and ``indices`` against each other outside ``dim``
    (``dim=None``: over the flattened input)."""
    _int_index("take_along_dim", indices, "int64")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = check_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    xs, ins = list(input.shape), list(indices.shape)
    shape = [max(a, b) for a, b in zip(xs, ins)]
    for k, (a, b) in enumerate(zip(xs, ins)):
        if k != d and a != b and 1 not in (a, b):
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {k}")
    x_shape, i_shape = shape[:], shape[:]
    x_shape[d], i_shape[d] = xs[d], ins[d]
    return input.expand(x_shape).gather(d, indices.expand(i_shape).clone())  # PyTorch's node keeps a copy of them




# ------------------------------------------------------------------ array API spellings
def _api_take_sig(x, indices, /, *, axis=None):
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take(): axis is required for an array of {x.ndim} dimensions")
        axis = 0
    d = check_dim(axis, x.ndim)
    index = _vector_index("take", indices, "int32 or int64")
    size = x.shape[d]
    check_index_range(index._value, -size, size, lambda bad: IndexError(
        f"take(): index {bad} is out of bounds for axis {d} with size {size}"))
    return (x,), (_along(index.remainder(max(size, 1)), x, d), d, _adapter(x, index))


defop("_api_take", _gather_fwd,
      (lambda ns, g, ans, x, index, dim, backend: ns.scatter_add(ns.zeros(x.shape, g), dim, index, g),),
      sig=_api_take_sig, function=False, method=False, api="take", node="IndexSelectBackward0", saves=(1, "meta0"))


def take_along_axis(x, indices, /, *, axis=-1):
    """The standard's ``take_along_axis``: negative indices count from the end."""
    d = check_dim(axis, x.ndim)
    size = x.shape[d]
    index = _int_index("take_along_axis", indices, "int32/int64")
    check_index_range(index._value, -size, size, lambda bad: IndexError(
        f"take_along_axis(): index {bad} is out of bounds for axis {d} with size {size}"))
    return take_along_dim(x, index.remainder(max(size, 1)), d)


defcomposite("take_along_dim", take_along_dim, out=True, api="take_along_axis", api_impl=take_along_axis)


# ------------------------------------------------------------------ conversion
def _to_dtype_fwd(xp, x, dtype):
    """``astype``; floats into a narrower integer go through int64, so out-of-range values wrap as in PyTorch
    (jax would saturate)."""
    if dtype.kind in "iu" and dtype.itemsize < 8 and xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, xp.int64)
    return xp.astype(x, native_dtype(xp, dtype))


defop("to_dtype", _to_dtype_fwd,
      (lambda ns, g, ans, x, dtype: ns.cast_like(g, x),), node="ToCopyBackward0", saves=("meta0",), function=False,
      method=False, raw_any_dtype=(0,))
# ``source``: the input's device, where the gradient goes back to
defop("_to_device", lambda xp, x, adapter, device, source: adapter.to_device(x, device),
      (lambda ns, g, ans, x, adapter, device, source: ns.apply("_to_device", (g,), (adapter, source, device)),),
      node="ToCopyBackward0", saves=(), function=False, method=False)
# The gradient goes back to the input's backend: a raw namespace holds one backend's arrays, so this VJP always runs
# on Tensors (the engine gives a node whose inputs are on another backend than its result the Tensor namespace)
defop("_to_backend", None, (lambda ns, g, ans, x, adapter: g.to(x.backend),), node="ToCopyBackward0", saves=("meta0",),
      function=False, method=False)


# ------------------------------------------------------------------ index_reduce
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """The rows of ``source`` along ``dim`` reduced ('prod', 'mean', 'amax', 'amin') into the rows of
    ``input`` that ``index`` names: ``scatter_reduce`` with the index spread along ``dim``."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    d = dims_of(dim, max(input.ndim, 1))[0]
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = -1
    spread = index.reshape(shape).expand(source.shape)
    return input.scatter_reduce(d, spread, source, reduce, include_self=include_self)


defcomposite("index_reduce", index_reduce, inplace=True)
