"""Index normalization, done once on the host for every backend.

An index is turned into a tuple of ints, slices, None, Ellipsis and host numpy int/bool
arrays, checked against the shape with PyTorch's errors (JAX would clamp an out-of-range
index silently). Basic indexing becomes strided view metadata; advanced indexing reads and
writes through host position arrays, which works on any array-API backend.
"""
import functools
import math

import numpy as np

__all__ = ["normalize_index", "basic_meta", "positions_of", "gather_positions"]


def normalize_index(index, shape):
    """``(host_index, is_basic)`` for ``tensor[index]`` on a tensor of ``shape``."""
    from ._tensor import Tensor

    if not isinstance(index, tuple):
        index = (index,)
    out, basic = [], True
    for item in index:
        if item is None or item is Ellipsis or isinstance(item, slice):
            if isinstance(item, slice):
                item = slice(*(_as_int(v) for v in (item.start, item.stop, item.step)))
                if item.step is not None and item.step <= 0:
                    raise ValueError("step must be greater than zero")
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
            arr = np.asarray(item._backend.to_numpy(item._value))
        else:
            arr = np.asarray(item)
            if arr.dtype == object or (arr.dtype.kind == "f" and arr.size):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if arr.size == 0:
                arr = arr.astype(np.int64)
        out.append(arr if arr.dtype.kind == "b" else arr.astype(np.int64, copy=False))
        basic = False
    _check_bounds(out, shape)
    if not any(i is Ellipsis for i in out):  # the standard requires every dimension to be indexed
        out.append(Ellipsis)
    return tuple(out), basic


def _as_int(v):
    return None if v is None else v.__index__()


def _check_bounds(index, shape):
    n_consumed = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype.kind == "b" else 1
                     for i in index if i is not None and i is not Ellipsis)
    if n_consumed > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    dim = 0
    for item in index:
        if item is None:
            continue
        if item is Ellipsis:
            dim += len(shape) - n_consumed
            continue
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
        elif isinstance(item, np.ndarray) and item.size:
            lo, hi = int(item.min()), int(item.max())
            bad = hi if hi >= size else lo if lo < -size else None
            if bad is not None:
                raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        dim += 1


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
            if length:
                offset += start * stride[dim]
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


def gather_positions(xp, x, positions):
    """``x.reshape(-1)[positions]`` with only standard functions."""
    flat = xp.reshape(x, (-1,))
    return xp.reshape(xp.take(flat, xp.asarray(positions.reshape(-1)), axis=0), positions.shape)
