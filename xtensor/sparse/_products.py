"""Products of a sparse COO matrix and a dense one, computed by each backend's own sparse library.

numpy: ``scipy.sparse`` (a CSR matrix times the dense array; duplicates are summed by the conversion);
jax: ``jax.experimental.sparse.BCOO`` (its matmul is a gather and a segment sum XLA compiles); any other
array-API namespace: the dense fallback, ``to_dense() @ dense``, behind the same API. Dtypes scipy lacks
(float16, bfloat16) take the fallback too.

Gradients as PyTorch's (``torch.sparse.mm`` docs): the dense operand's is ``s.t() @ g`` (a sparse product again);
the sparse operand's is, for ``xtensor.sparse.mm``, sparse with the operand's coalesced positions
(``SparseAddmmBackward0``), and for ``mm``/``matmul``/``@``/``spmm`` dense (``MmBackward0``). They are written in
xtensor ops (row gathers, sums, these products), so ``create_graph=True`` works through them.
"""
from .. import _dtypes
from .._dispatch import wrap
from .._tensor import Tensor, check_dim
from ..autograd import grad_mode
from ._coo import SparseTensor, coalesce, gradient, named, sparse_from, sparse_node, to_dense, to_sparse

__all__ = ["mm", "sparse_mm", "matmul", "addmm"]

_SCIPY_KINDS = "iufc"


def _kernel(s, dense):
    """``s @ dense`` (2-D sparse, 2-D dense of one dtype and backend), history-free."""
    backend = dense._backend
    values = s._sp_values
    if backend.name == "numpy" and values.dtype not in (_dtypes.float16, _dtypes.bfloat16) and \
            values.dtype.kind in _SCIPY_KINDS:
        import scipy.sparse
        rows, cols = backend.to_numpy(s._sp_indices._value)
        matrix = scipy.sparse.coo_array((values._value, (rows, cols)), shape=tuple(s.shape)).tocsr()
        return wrap((matrix @ dense._value).astype(values._value.dtype, copy=False), backend, values.dtype)
    if backend.name == "jax":
        from jax.experimental import sparse as jsparse
        matrix = jsparse.BCOO((values._value, s._sp_indices._value.T), shape=tuple(s.shape))
        return wrap(matrix @ dense._value, backend, values.dtype)
    with grad_mode.no_grad():
        return to_dense(s) @ dense


def _check(s, dense, name):
    if s.sparse_dim() != 2 or s.dense_dim() != 0:
        raise RuntimeError(f"{name}: expected first two dims to be sparse (indices has size 2 at first dim), but "
                           f"got {s.sparse_dim()} sparse dims and {s.dense_dim()} dense dims")
    if not isinstance(dense, Tensor):
        raise TypeError(f"{name}(): argument 'mat2' (position 2) must be Tensor, not {type(dense).__name__}")
    check_dim(1, dense.ndim)  # a vector has no dim 1: PyTorch's IndexError
    if dense.ndim != 2:
        raise RuntimeError(f"{name}: matrices expected, got {dense.ndim}D tensor")
    if dense.shape[0] != s.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got {dense.shape[0]}")
    if dense.dtype is not s.dtype:
        raise RuntimeError(f"expected scalar type {s.dtype.scalar_name} but found {dense.dtype.scalar_name}")
    if dense.backend != s.backend:
        if not dense._backend.host:
            raise RuntimeError(f"Expected all tensors to be on the same backend, but found at least two backends, "
                               f"{s.backend} and {dense.backend}!")
        dense = dense.to(s.backend)
    return dense


def _sparse_times_dense(s, dense, node, sparse_grad):
    """``s @ dense`` recorded as ``node``: the sparse operand's gradient sparse on its positions (``sparse_grad``)
    or dense."""
    out = _kernel(s, dense)

    def backward(g):
        grad_s = grad_d = None
        if sparse_grad and s._requires_grad:
            c = coalesce(s.detach())
            rows, cols = c._sp_indices[0], c._sp_indices[1]
            products = (g.index_select(0, rows) * dense.index_select(0, cols)).sum(-1)  # g @ dense.T at (row, col)
            grad_s = gradient(sparse_from(c._sp_indices, products, s.shape))
        elif s._requires_grad:
            grad_s = g @ dense.mT
        if dense._requires_grad:
            grad_d = _sparse_times_dense(s.t(), g, "MmBackward0", False)
        return (None, grad_s, grad_d) if sparse_grad else (grad_s, grad_d)
    return sparse_node(out, node, (None, s, dense) if sparse_grad else (s, dense), backward)


def _dense_times_sparse(dense, s):
    """``dense @ s`` as ``(s.t() @ dense.t()).t()``; the sparse operand's gradient is dense (PyTorch's mm)."""
    if dense.ndim != 2 or dense.shape[1] != s.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, dense.shape))} and "
                           f"{'x'.join(map(str, s.shape))})")
    if dense.dtype is not s.dtype:
        raise RuntimeError(f"expected scalar type {s.dtype.scalar_name} but found {dense.dtype.scalar_name}")
    with grad_mode.no_grad():
        out = _kernel(s.detach().t(), dense.detach().t()).t().contiguous()

    def backward(g):
        grad_d = _dense_times_sparse(g, s.t()) if dense._requires_grad else None
        grad_s = dense.mT @ g if s._requires_grad else None
        return (grad_d, grad_s)
    return sparse_node(out, "MmBackward0", (dense, s), backward)


def mm(input, mat2):
    """``torch.mm`` / ``torch.spmm`` with a sparse operand: dense result, except sparse @ sparse (sparse)."""
    if isinstance(input, SparseTensor) and isinstance(mat2, SparseTensor):
        return _sparse_times_sparse(input, mat2)
    if isinstance(input, SparseTensor):
        return _sparse_times_dense(input, _check(input, mat2, "addmm"), "MmBackward0", False)
    return _dense_times_sparse(input, mat2)


def sparse_mm(sparse, dense, reduce="sum"):
    """``torch.sparse.mm``: the sparse operand's gradient is sparse on its coalesced positions."""
    if reduce != "sum":
        raise NotImplementedError(f"xtensor.sparse.mm: reduce={reduce!r} is not supported (only 'sum')")
    if not isinstance(sparse, SparseTensor):
        return mm(sparse, dense)
    if isinstance(dense, SparseTensor):
        return _sparse_times_sparse(sparse, dense)
    return _sparse_times_dense(sparse, _check(sparse, dense, "addmm"), "SparseAddmmBackward0", True)


def _sparse_times_sparse(a, b):
    """sparse @ sparse, a sparse result: the dense fallback (densify, multiply, sparsify), differentiable through
    each step."""
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, a.shape))} and "
                           f"{'x'.join(map(str, b.shape))})")
    return to_sparse(to_dense(a) @ to_dense(b))


def matmul(input, other):
    """``torch.matmul`` with a sparse operand (2-D sparse; the dense one 1-D or 2-D)."""
    if isinstance(input, SparseTensor) and isinstance(other, Tensor) and not isinstance(other, SparseTensor) \
            and other.ndim == 1:
        return named(mm(input, other.unsqueeze(1)).squeeze(1), "MvBackward0")
    if isinstance(other, SparseTensor) and isinstance(input, Tensor) and not isinstance(input, SparseTensor) \
            and input.ndim == 1:
        return mm(input.unsqueeze(0), other).squeeze(0)
    return mm(input, other)


def addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``torch.sparse.addmm``: ``beta * input + alpha * (mat1 @ mat2)``, mat1 sparse."""
    return named(input * beta + sparse_mm(mat1, mat2) * alpha, "SparseAddmmBackward0")
