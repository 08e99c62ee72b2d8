"""Indexing: ``x[index]``, ``x[index] = value`` and the index_put family, with the index normalized once for
every backend.

An index is turned into a tuple of ints, slices, None, Ellipsis and int/bool arrays, checked
against the shape with PyTorch's errors (JAX would clamp an out-of-range index silently).
Basic indexing becomes strided view metadata. Advanced indices are host numpy arrays, except
integer index tensors of a backend that indexes natively with its own arrays (jax): those stay
on the device, so ``x[i]`` and ``x[i] = v`` compile under ``jax.jit`` with a traced ``i``; their
bounds are checked by reading two scalars when they are concrete, and not at all under a trace.
Boolean masks are always read on the host (their result's shape depends on their values).
Backends without native advanced indexing (the generic adapter) read and write through host
position arrays (``ops/indexing.py``), which works on any array-API namespace.

A read is one op (a view, or an advanced-index copy); a write goes where PyTorch sends it -- ``copy_``/``fill_``
into the indexed view, or ``index_put_`` -- so autograd sees what PyTorch's does. ``install`` puts the methods
on ``Tensor``.
"""
import warnings

import numpy as np

from . import _creation, _dtypes
from ._backend import check_index_range
from ._dispatch import apply, history_alias
from ._table import renamed
from ._tensor import OVERLAP_ERROR, Tensor, ViewMeta, basic_meta
from ._inplace import assign_inplace, check_inplace, refuse_overlap
from ._modes import grad_state as _grad_state
from .ops.indexing import getitem_copy, getitem_view, index_put as index_put_op, masked_select as masked_select_op

__all__ = ["normalize_index", "install", "METHODS", "FUNCTIONS"]


def normalize_index(index, shape, backend=None, reverse=False):
    """``(host_index, is_basic)`` for ``tensor[index]`` on a tensor of ``shape`` on ``backend``; a negative slice step
    reverses where ``reverse`` (the array API's rule) and raises PyTorch's ValueError otherwise."""
    on_device = backend is not None and backend.native_indexing and not backend.host

    if not isinstance(index, tuple):
        index = (index,)
    out, basic = [], True
    for item in index:
        if item is None or item is Ellipsis or isinstance(item, slice):
            if isinstance(item, slice):
                item = slice(*(_as_int(v) for v in (item.start, item.stop, item.step)))
                if item.step == 0:
                    raise ValueError("slice step cannot be zero")
                if item.step is not None and item.step < 0:
                    if not reverse:
                        raise ValueError("step must be greater than zero")
                    basic = False  # the array API's reversal: a copy, as flip()
            out.append(item)
            continue
        if isinstance(item, (bool, np.bool_)):
            out.append(np.asarray(bool(item)))
            basic = False
            continue
        if isinstance(item, (int, np.integer)):
            out.append(int(item))
            continue
        if isinstance(item, Tensor):
            if item.dtype.kind not in "biu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            bytes_mask = item.dtype is _dtypes.uint8 and not reverse
            if on_device and item.dtype.kind != "b" and not bytes_mask and item._backend is backend:
                out.append(backend.xp.astype(item._value, backend.xp.int64))
                basic = False
                continue
            arr = np.asarray(item._backend.to_numpy(item._value))
        else:
            arr = np.asarray(item)
            if arr.dtype == object or (arr.dtype.kind == "f" and arr.size):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if arr.size == 0:
                arr = arr.astype(np.int64)
        if arr.dtype == np.uint8 and not reverse:  # PyTorch's (deprecated) reading of bytes: a mask
            warnings.warn(_BYTE_MASK, UserWarning, stacklevel=3)
            arr = arr.astype(bool)
        out.append(arr if arr.dtype.kind == "b" else arr.astype(np.int64, copy=False))
        basic = False
    out = _checked(out, shape)
    if not any(i is Ellipsis for i in out):  # the standard requires every dimension to be indexed
        out.append(Ellipsis)
    return tuple(out), basic


_BYTE_MASK = "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."


def _as_int(v):
    return None if v is None else v.__index__()


def _checked(index, shape):
    """``index`` checked against ``shape`` with PyTorch's errors, forward slices clamped into range (PyTorch and
    numpy clamp them; the array API leaves out-of-range slice bounds unspecified)."""
    n_consumed = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype.kind == "b" else 1
                     for i in index if i is not None and i is not Ellipsis)
    if n_consumed > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    dim = 0
    out = list(index)
    for pos, item in enumerate(index):
        if item is None:
            continue
        if item is Ellipsis:
            dim += len(shape) - n_consumed
            continue
        if isinstance(item, slice) and (item.step is None or item.step > 0):
            out[pos] = slice(*item.indices(shape[dim]))
        if isinstance(item, np.ndarray) and item.dtype.kind == "b":
            consumed = item.ndim
            for k in range(item.ndim):
                if item.shape[k] != shape[dim + k]:
                    raise IndexError(f"The shape of the mask {list(item.shape)} at index {k} does not match the "
                                     f"shape of the indexed tensor {list(shape)} at index {dim + k}")
            dim += consumed
            continue
        size = shape[dim]
        if isinstance(item, int):
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size {size}")
        elif not isinstance(item, (int, slice)):
            check_index_range(item, -size, size, lambda bad: IndexError(
                f"index {bad} is out of bounds for dimension {dim} with size {size}"))
        dim += 1
    return out


# --------------------------------------------------------------------------- reads and writes
def getitem(self, index):
    host_index, basic = normalize_index(index, tuple(self.shape), self._backend, self._reverses)
    return _basic_view(self, host_index, index) if basic else apply(getitem_copy, (self,), (host_index, self._backend))


def getitem_host(self, host_index, basic=False):
    return apply(getitem_view if basic else getitem_copy, (self,), (host_index, self._backend))


def _basic_view(self, host_index, index):
    r = apply(getitem_view, (self,), (host_index, self._backend))
    return renamed(r, _view_node_name(index, tuple(self.shape))) if r._grad_fn is not None else r


def _view_node_name(index, shape):
    """PyTorch's node name for ``x[index]``, a basic index: the last view op its indexing applies. A lone slice
    always slices; inside a tuple, slices that keep the whole dimension are skipped; nothing applied is an
    alias."""
    if isinstance(index, slice):
        return "SliceBackward0"
    if not isinstance(index, tuple):
        index = (index,)
    name = "AliasBackward0"
    consumed = sum(1 for item in index if item is not None and item is not Ellipsis)
    dim = 0
    for item in index:
        if item is None:
            name = "UnsqueezeBackward0"
            continue
        if item is Ellipsis:
            dim += len(shape) - consumed
            continue
        if isinstance(item, slice):
            start, stop, step = (None if v is None else v.__index__() for v in (item.start, item.stop, item.step))
            if not (start in (None, 0) and step in (None, 1) and (stop is None or stop >= shape[dim])):
                name = "SliceBackward0"
        else:
            name = "SelectBackward0"
        dim += 1
    return name


def index_put_host(self, host_index, values, accumulate=False, indices=()):
    """``index_put`` at an index already made host-side; ``indices``: the caller's index tensors, which the node
    keeps and version-checks (PyTorch's IndexPutBackward0 saves them)."""
    if not isinstance(values, Tensor):
        values = self.new_tensor(values)
    return apply(index_put_op, (self, values), (host_index, self._backend, accumulate, indices))


def setitem(self, index, value):
    """``x[index] = value`` as PyTorch does it: with a basic index, the indexed view (``x`` itself when the index
    keeps everything) is written by ``copy_`` (``fill_`` for a 0-d value), otherwise ``x.index_put_``; so
    autograd sees a write through a view, or an IndexPut."""
    host_index, basic = normalize_index(index, tuple(self.shape), self._backend, self._reverses)
    if isinstance(value, Tensor):
        if value._backend is not self._backend:
            value = value.to(self._backend.name)
    else:
        value = self.new_tensor(value)
    _check_values_fit(self, host_index, value, basic)
    shared = value.__dict__.get("_storage")
    if value is self or shared is not None and shared.owner is self._storage.owner:  # ``x[...] = x.t()``, ``x[i] = x``
        if not basic:
            _refuse_index_put_overlap(self, index, value)
        elif value.ndim:  # (a 0-d value fills)
            target = _basic_view(self, host_index, index)
            if value.shape != target.shape:  # copied as PyTorch copies it: less its leading ones, expanded
                core = tuple(value.shape)
                while core and core[0] == 1:
                    core = core[1:]
                value = value.view(core).expand(target.shape)
            refuse_overlap(target, (value,))
    if _grad_state.enabled and (value._requires_grad or self._requires_grad):
        if basic:
            # every dimension kept whole (a lone full slice too, unlike in a read): x itself is written
            whole = _view_node_name(index if isinstance(index, tuple) else (index,), tuple(self.shape)) == \
                "AliasBackward0"
            target = self if whole else _basic_view(self, host_index, index)
            if value.ndim > target.ndim:  # leading ones the target lacks
                value = value.reshape(tuple(value.shape)[value.ndim - target.ndim:])
            if value.ndim == 0 and target.ndim:
                target.fill_(value)
            else:
                target.copy_(value)
        else:
            check_inplace(self, value)
            # PyTorch reads a 0-d index tensor here as a plain number (a select): only the others are kept
            indices = tuple(i for i in (index if isinstance(index, tuple) else (index,))
                            if isinstance(i, Tensor) and i.ndim)
            assign_inplace(self, index_put_host(history_alias(self).clone(), host_index, value, False, indices))
        return
    if basic and value.__dict__.get("_storage") is not None and value._storage is self.__dict__.get("_storage") and \
            value._meta() == basic_meta(*self._meta(), host_index):
        self._storage.version += 1  # ``x[i] = x[i]``, how ``x[i] += v`` ends: the memory holds it already
        return  # (even where the elements overlap: PyTorch's copy_ of the very same memory returns early)
    if self._view is not None and self._view.overlaps() and (
            not basic or ViewMeta.of(*basic_meta(*self._meta(), host_index)).overlaps()):
        raise RuntimeError(OVERLAP_ERROR)
    if not self._backend.mutable and any(hasattr(i, "shape") and not isinstance(i, np.ndarray) for i in host_index):
        self._write(apply(index_put_op, (self, value), (host_index, self._backend))._value)  # device index: traceable
        return
    self._write_at(host_index, value._value)


# --------------------------------------------------------------------------- the index_put family
def masked_select(input, mask):
    """``input[mask]`` after broadcasting the two (a 1-d copy)."""
    if not isinstance(mask, Tensor) or mask.dtype is not _dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if tuple(mask.shape) != tuple(input.shape):
        shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
        input, mask = input.expand(shape), mask.expand(shape)
    host_index, _ = normalize_index(mask, tuple(input.shape), input._backend)
    return apply(masked_select_op, (input,), (host_index, input._backend, mask))


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written (or, with ``accumulate``, added) at the advanced index ``indices``."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not {type(values).__name__}")
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{input.dtype.scalar_name} for the destination and {values.dtype.scalar_name} for the "
                           "source.")
    index = tuple(slice(None) if i is None else i for i in indices)
    host_index, _ = normalize_index(index, tuple(input.shape), input._backend)
    _check_values_fit(input, host_index, values)
    return index_put_host(input, host_index, values, accumulate, tuple(i for i in index if isinstance(i, Tensor)))


def _check_values_fit(input, host_index, values, basic=False):
    shape = _indexed_shape(input, host_index)
    if basic:
        _check_expands(values, shape)
        return
    given = tuple(values.shape)
    lead = len(given) - len(shape) if len(given) > len(shape) else 0  # dims beyond the result's: ones only
    if any(n != 1 for n in given[:lead]) or any(v not in (1, n) for v, n in zip(given[lead:][::-1], shape[::-1])):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}")


def _check_expands(values, shape):
    """``x[basic] = v`` is a copy into a view: ``v``, less its leading ones, must expand to the view's shape
    (PyTorch's expand errors)."""
    core = tuple(values.shape)
    while core and core[0] == 1:
        core = core[1:]
    if len(core) > len(shape):
        raise RuntimeError(f"expand({values.type()}{{{list(core)}}}, size={list(shape)}): the number of sizes "
                           f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(core)})")
    for i in range(1, len(core) + 1):
        if core[-i] not in (1, shape[-i]):
            raise RuntimeError(f"The expanded size of the tensor ({shape[-i]}) must match the existing size "
                               f"({core[-i]}) at non-singleton dimension {len(shape) - i}.  Target sizes: "
                               f"{list(shape)}.  Tensor sizes: {list(core)}")


def _indexed_shape(input, host_index):
    """The shape of ``input[host_index]`` (from a zero-strided host stand-in: no data touched)."""
    stand_in = np.broadcast_to(np.zeros((), np.int8), tuple(input.shape))
    return stand_in[tuple(np.zeros(i.shape, np.int64) if hasattr(i, "shape") and not isinstance(i, np.ndarray)
                          else i for i in host_index)].shape


def _refuse_index_put_overlap(self, index, value, accumulate=False):
    """PyTorch's index_put_ refuses a value sharing any memory with ``self`` -- unless it writes one value through a
    single bool mask, which it hands to masked_fill_ (no such check)."""
    masks = [i for i in (index if isinstance(index, (tuple, list)) else (index,)) if isinstance(i, Tensor)]
    if accumulate or value.numel() != 1 or len(masks) != 1 or masks[0].dtype not in (_dtypes.bool, _dtypes.uint8):
        refuse_overlap(self, (value,), ("full", "partial"))


def index_put_(self, indices, values, accumulate=False):
    check_inplace(self, values)
    _refuse_index_put_overlap(self, indices, values, accumulate)
    grad = _grad_state.enabled and (self._requires_grad or getattr(values, "_requires_grad", False))
    return assign_inplace(self, index_put(history_alias(self).clone() if grad else self, indices, values, accumulate))


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat ``indices``: one int64 tensor per dim."""
    if not isinstance(indices, Tensor):
        indices = _creation.tensor(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = int(np.prod(shape))
    if bool(((indices < -total) | (indices >= max(total, 1))).any()):
        raise RuntimeError("'indices' must be in range [-%d, %d)" % (total, total))
    flat = indices.long().remainder(max(total, 1))
    coords = []
    for n in reversed(shape):
        coords.append(flat.remainder(n))
        flat = flat.div(n, rounding_mode="floor")
    return tuple(reversed(coords))


METHODS = {"__getitem__": getitem, "__setitem__": setitem, "getitem_host": getitem_host,
           "index_put_host": index_put_host, "masked_select": masked_select, "index_put": index_put,
           "index_put_": index_put_}
FUNCTIONS = {"masked_select": masked_select, "index_put": index_put, "unravel_index": unravel_index}


def install(cls):
    for name, value in METHODS.items():
        setattr(cls, name, value)
