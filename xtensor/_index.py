"""Index normalization, done once for every backend.

An index is turned into a tuple of ints, slices, None, Ellipsis and int/bool arrays, checked
against the shape with PyTorch's errors (JAX would clamp an out-of-range index silently).
Basic indexing becomes strided view metadata. Advanced indices are host numpy arrays, except
integer index tensors of a backend that indexes natively with its own arrays (jax): those stay
on the device, so ``x[i]`` and ``x[i] = v`` compile under ``jax.jit`` with a traced ``i``; their
bounds are checked by reading two scalars when they are concrete, and not at all under a trace.
Boolean masks are always read on the host (their result's shape depends on their values).
Backends without native advanced indexing (the generic adapter) read and write through host
position arrays, which works on any array-API namespace.
"""
import functools
import math
import sys

import numpy as np

__all__ = ["normalize_index", "basic_meta", "positions_of", "gather_positions", "index_positions", "is_traced",
           "check_index_range"]


def normalize_index(index, shape, backend=None, reverse=False):
    """``(host_index, is_basic)`` for ``tensor[index]`` on a tensor of ``shape`` on ``backend``; a negative slice step
    reverses where ``reverse`` (the array API's rule) and raises PyTorch's ValueError otherwise."""
    from ._tensor import Tensor

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
            if on_device and item.dtype.kind != "b" and item._backend is backend:
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
        out.append(arr if arr.dtype.kind == "b" else arr.astype(np.int64, copy=False))
        basic = False
    out = _checked(out, shape)
    if not any(i is Ellipsis for i in out):  # the standard requires every dimension to be indexed
        out.append(Ellipsis)
    return tuple(out), basic


def _as_int(v):
    return None if v is None else v.__index__()


def is_traced(arr):
    """True for a jax tracer (inside ``jax.jit``/``grad``): its values cannot be read."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(arr, jax.core.Tracer)


def check_index_range(arr, low, high, error):
    """Raise ``error(bad_value)`` if an element of int array ``arr`` lies outside ``[low, high)``.

    Reads only the two extremes of a device array, and nothing of a traced one (under jit an
    out-of-range index is not detected: jax clamps it).
    """
    if is_traced(arr) or not math.prod(arr.shape):
        return
    if isinstance(arr, np.ndarray):
        lo, hi = int(arr.min()), int(arr.max())
    else:
        xp = arr.__array_namespace__()
        lo, hi = int(xp.min(arr)), int(xp.max(arr))
    if hi >= high:
        raise error(hi)
    if lo < low:
        raise error(lo)


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


def basic_meta(shape, stride, offset, index):
    """Strided metadata of ``x[index]`` for a basic (view) index."""
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    new_shape, new_stride = [], []
    dim = 0
    for item in index:
        if item is Ellipsis:
            for _ in range(len(shape) - n_real):
                new_shape.append(shape[dim])
                new_stride.append(stride[dim])
                dim += 1
        elif item is None:
            new_shape.append(1)
            new_stride.append(stride[dim] * shape[dim] if dim < len(shape) else 1)
        elif isinstance(item, int):
            offset += (item % shape[dim]) * stride[dim]
            dim += 1
        else:
            start, stop, step = item.indices(shape[dim])
            length = max(0, math.ceil((stop - start) / step))
            offset += start * stride[dim]  # also for an empty slice, as PyTorch
            new_shape.append(length)
            new_stride.append(stride[dim] * step)
            dim += 1
    new_shape.extend(shape[dim:])
    new_stride.extend(stride[dim:])
    return tuple(new_shape), tuple(new_stride), offset


@functools.lru_cache(maxsize=64)
def positions_of(shape):
    """``arange(numel).reshape(shape)`` on the host: advanced indices become flat positions through it."""
    positions = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    positions.flags.writeable = False
    return positions


def index_positions(xp, shape, index):
    """Flat positions of ``x[index]`` in a C-ordered ``x`` of ``shape``: host numpy for a host index,
    computed on the device (traceable) when the index holds device arrays."""
    if all(not hasattr(i, "shape") or isinstance(i, np.ndarray) for i in index):
        return positions_of(tuple(shape))[index]
    return xp.reshape(xp.arange(math.prod(shape), dtype=xp.int64), tuple(shape))[index]


def gather_positions(xp, x, positions):
    """``x.reshape(-1)[positions]`` with only standard functions."""
    flat = xp.reshape(x, (-1,))
    return xp.reshape(xp.take(flat, xp.asarray(positions.reshape(-1)), axis=0), positions.shape)
