"""xtensor.linalg: PyTorch's ``torch.linalg`` namespace.

Every function is an op-table entry of ``xtensor/ops/linalg/`` (or a composite of them), so
the same op -- forward, VJP, node name -- serves ``xtensor.linalg``, the ``xtensor`` functions
(``inverse``, ``det``, ``svd``...) and ``xtensor.array_api.linalg``. Results with several
parts are named tuples (``sign``/``logabsdet``, ``U``/``S``/``Vh``, ``eigenvalues``/
``eigenvectors``, ``Q``/``R``), with the same fields as in PyTorch and the array API.
"""
from ._inplace import assign_out as _assign_out
from ._variants import torch_functions as _functions
from .ops import linalg as _ops
from .ops.linalg import (LinAlgError, cond, cross as _torch_cross, eig, eigh, householder_product,
                         linalg_lu as lu, linalg_vander as vander, lu_factor, lu_factor_ex, lu_solve, matrix_exp,
                         matrix_norm, matrix_power, matrix_rank, multi_dot, norm, pinv, qr, solve, solve_triangular,
                         svdvals, tensorinv, tensorsolve, vecdot, vector_norm)

__all__ = ["LinAlgError", "cholesky", "cross", "det", "diagonal", "eig", "eigvals", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "trace", "vecdot", "vector_norm", "cholesky_ex", "inv_ex", "solve_ex", "lstsq",
           "cond", "householder_product", "vander", "matrix_exp", "solve_triangular", "tensorinv", "tensorsolve", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve"]

matmul = _functions["matmul"]
outer = _functions["outer"]
tensordot = _functions["tensordot"]


def _out(result, out, name):
    return result if out is None else _assign_out(out, result, name)


def det(A, *, out=None):
    return _out(_functions["det"](A), out, "linalg.det")


def inv(A, *, out=None):
    """The inverse of square matrices; a singular one raises LinAlgError."""
    return _out(_ops.inverse(A), out, "linalg.inv")


def inv_ex(A, *, check_errors=False, out=None):
    return _ops.inverse(A), A.new_zeros(A.shape[:-2]).int()


def slogdet(A, *, out=None):
    """(sign, log|det|)."""
    return _ops.SlogdetResult(*_ops.slogdet(A))


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh): ``A = U diag(S) Vh``; S descending."""
    return _ops.linalg_svd(A, full_matrices)


def eigvals(A, *, out=None):
    return eig(A).eigenvalues


def eigvalsh(A, UPLO="L", *, out=None):
    return eigh(A, UPLO).eigenvalues


def cholesky(A, *, upper=False, out=None):
    """The lower Cholesky factor L (``upper=True``: L^T); not positive-definite raises LinAlgError."""
    return _out(_ops.cholesky_of("linalg.cholesky", "linalg_cholesky", A, upper), out, "linalg.cholesky")


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    return cholesky(A, upper=upper), A.new_zeros(A.shape[:-2]).int()


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    return solve(A, B, left=left), A.new_zeros(A.shape[:-2]).int()


def cross(input, other, *, dim=-1, out=None):
    return _out(_torch_cross(input, other, dim), out, "linalg.cross")


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A view of the diagonals (``Tensor.diagonal``)."""
    return A.diagonal(offset, dim1, dim2)


def trace(A, offset=0):
    return _ops._diagonal_copy(A, offset).sum(-1)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solutions through the pseudo-inverse (differentiable). As PyTorch on the CPU: ``residuals``
    (squared residual norms) only for ``driver`` 'gels'/'gelsd'/'gelss' when A is tall and of full rank, else
    empty (the default, 'gelsy'); ``rank`` computed; ``singular_values`` empty."""
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    solution = _ops.lstsq_solution(A, Bm, rcond)
    rank = matrix_rank(A, rtol=rcond)
    m, n = A.shape[-2:]
    empty = A.new_zeros(0)
    full = driver in ("gels", "gelsd", "gelss") and m > n and bool((rank == n).all())
    residuals = ((A @ solution - Bm) ** 2).sum(-2) if full else empty
    return _ops.LstsqResult(solution.squeeze(-1) if vector else solution, residuals, rank, empty)
