"""Reductions over sparse COO tensors: ``sum`` and the softmaxes over stored values (``torch.sparse``)."""
import numpy as np

from .._tensor import check_dim
from ..autograd import grad_mode
from ._coo import (SparseTensor, _host, _linear_keys, coalesce, named, sparse_from, sum_duplicates,
                   values_with_history)

__all__ = ["sparse_sum", "softmax", "log_softmax"]


def sparse_sum(input, dim=None, *, dtype=None, node="SparseSumBackward0"):
    """``torch.sparse.sum``: without ``dim`` a dense 0-d tensor (``SumBackward0``); over some dims a sparse tensor
    of the others, or dense when every sparse dim is summed (``node``: ``Tensor.sum(dim)``'s is ``SumBackward1``)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
    values = values_with_history(input)
    if dtype is not None:
        values = values.to(dtype)
    elif values.dtype.kind in "bui" and values.dtype.name != "int64":
        values = values.long()  # PyTorch sums integers in int64
    if dim is None:
        return values.sum()
    dims = sorted({check_dim(d, input.ndim) for d in ((dim,) if isinstance(dim, int) else dim)})
    sparse_dim = input.sparse_dim()
    summed_sparse = [d for d in dims if d < sparse_dim]
    dense_axes = tuple(d - sparse_dim + 1 for d in dims if d >= sparse_dim)
    if dense_axes:
        values = values.sum(dense_axes)
    if len(summed_sparse) == sparse_dim:
        return named(values.sum(0), node)
    if not summed_sparse:
        sizes = [n for d, n in enumerate(input.shape) if d not in dims]
        return sparse_from(input._sp_indices, values, sizes, input.is_coalesced(), node=node)
    kept = [d for d in range(sparse_dim) if d not in summed_sparse]
    size = [n for d, n in enumerate(input.shape) if d not in dims]
    return sparse_from(*sum_duplicates(input._sp_indices[kept], values, size), size, True, node=node)


def _groups(s, dim):
    """For each stored value of a coalesced ``s``, the slot of its group: the values that share every sparse index
    but ``dim``'s (host ints), and the number of groups."""
    others = [d for d in range(s.sparse_dim()) if d != dim]
    keys = _linear_keys(s._sp_indices[others], [s.shape[d] for d in others]) if others else \
        np.zeros(s._nnz(), np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    return inverse.reshape(-1), unique.size


def _shifted_and_sums(s, dim, name):
    if not isinstance(s, SparseTensor):
        raise RuntimeError(f"{name}: expected a sparse COO tensor")
    dim = check_dim(dim, s.ndim)
    if dim >= s.sparse_dim():
        raise NotImplementedError(f"xtensor.sparse.{name} over a dense dimension is not supported")
    s = coalesce(s)
    group, n = _groups(s, dim)
    values = values_with_history(s)
    slots = _host(group, values)
    with grad_mode.no_grad():  # the shift cancels out of the result: no gradient through it
        top = values.new_full((n,) + tuple(values.shape[1:]), float("-inf")).index_reduce(0, slots, values, "amax")
    shifted = values - top.index_select(0, slots)
    sums = shifted.exp().new_zeros(top.shape).index_add(0, slots, shifted.exp())
    return s, shifted, sums.index_select(0, slots)


def softmax(input, dim, *, dtype=None):
    """``torch.sparse.softmax``: softmax over the values stored along ``dim`` (absent ones count as -inf)."""
    s, shifted, sums = _shifted_and_sums(input if dtype is None else input.to(dtype), dim, "softmax")
    return sparse_from(s._sp_indices, shifted.exp() / sums, s.shape, True, node="SparseSoftmaxBackward0")


def log_softmax(input, dim, *, dtype=None):
    """``torch.sparse.log_softmax``: log of ``softmax``, computed stably."""
    s, shifted, sums = _shifted_and_sums(input if dtype is None else input.to(dtype), dim, "log_softmax")
    return sparse_from(s._sp_indices, shifted - sums.log(), s.shape, True, node="SparseLogSoftmaxBackward0")
