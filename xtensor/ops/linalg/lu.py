"""LU with partial pivoting: factor, unpack, solve."""
import collections

import numpy as np

from ... import _dtypes
from ..._table import defcomposite
from .._composite import _fn
from ._common import check_matrix
from .decompositions import _eye, solve_triangular


# ------------------------------------------------------------------ LU with partial pivoting, geqrf
LUFactorResult = collections.namedtuple("linalg_lu_factor", ["LU", "pivots"])
LUFactorExResult = collections.namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LUResult = collections.namedtuple("linalg_lu", ["P", "L", "U"])
LUUnpackResult = collections.namedtuple("lu_unpack", ["P", "L", "U"])
for _cls in (LUFactorResult, LUFactorExResult, LUResult, LUUnpackResult):
    _cls.__module__ = "xtensor.return_types"


def _lu(A):
    """Doolittle's elimination with partial pivoting, LAPACK's getrf: ``(L, U, pivots, info)`` with
    ``P A = L U`` for the row swaps ``pivots`` (1-based, one per column, as LAPACK). Written in xtensor ops
    (differentiable: the gradient is that of the factors for the chosen pivots); the pivots are chosen
    on the host, so it runs eagerly."""
    from ..._creation import tensor
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    work = A
    lower = A.new_zeros(batch + (m, 0))
    l_rows, u_rows, pivots = [], [], []
    info = np.zeros(batch, dtype=np.int32)
    for j in range(k):
        magnitude = work[..., :, 0].detach().abs().numpy()
        p = np.argmax(magnitude, axis=-1)
        zero = np.take_along_axis(magnitude, p[..., None], -1)[..., 0] == 0
        info = np.where((info == 0) & zero, j + 1, info)
        order = np.broadcast_to(np.arange(m - j), batch + (m - j,)).copy()
        np.put_along_axis(order, p[..., None], 0, -1)
        order[..., 0] = p
        index = tensor(order[..., None], dtype=_dtypes.int64, backend=A._backend)
        work = work.take_along_dim(index.expand(batch + (m - j, work.shape[-1])), -2)
        lower = lower.take_along_dim(index.expand(batch + (m - j, j)), -2) if j else lower
        pivots.append(p + j + 1)
        head = work[..., 0:1, 0:1]
        l_rows.append(lower[..., 0, :])
        u_rows.append(work[..., 0, :])
        below = work[..., 1:, 0:1] / head.where(head != 0, 1)
        lower = _fn("cat")([lower[..., 1:, :], below], -1)
        work = work[..., 1:, 1:] - below @ work[..., 0:1, 1:]
    eye = _eye(A, k)
    L = _fn("cat")([_fn("stack")([_fn("cat")([row, row.new_zeros(batch + (k - j,))], -1) for j, row in
                                 enumerate(l_rows)], -2) if l_rows else A.new_zeros(batch + (0, k)), lower], -2) + \
        _fn("cat")([eye, eye.new_zeros((m - k, k))], 0)
    U = _fn("stack")([_fn("cat")([row.new_zeros(batch + (j,)), row], -1) for j, row in enumerate(u_rows)], -2) \
        if u_rows else A.new_zeros(batch + (0, n))
    piv = np.stack(pivots, -1).astype(np.int32) if pivots else np.zeros(batch + (0,), np.int32)
    return L, U, tensor(piv, dtype=_dtypes.int32, backend=A._backend), tensor(info, dtype=_dtypes.int32,
                                                                                backend=A._backend)


def _packed(L, U):
    """LAPACK's one-matrix form: L below the diagonal (its unit diagonal left out), U on and above it."""
    m, k = L.shape[-2:]
    n = U.shape[-1]
    strict = L.tril(-1)
    if n > k:
        strict = _fn("cat")([strict, strict.new_zeros(tuple(strict.shape[:-1]) + (n - k,))], -1)
    upper = U if m == k else _fn("cat")([U, U.new_zeros(tuple(U.shape[:-2]) + (m - k, n))], -2)
    return strict + upper


def _check_lu_input(name, A):
    check_matrix(name, A)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: the packed factors, LAPACK's 1-based row swaps, and per matrix the first zero
    pivot (1-based; 0 when none)."""
    _check_lu_input("linalg.lu_factor_ex", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    L, U, piv, info = _lu(A)
    return LUFactorExResult(_packed(L, U), piv, info)


def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)`` of ``P A = L U`` with partial pivoting; a singular matrix raises as in PyTorch."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    bad = info.reshape(-1).numpy()
    if bad.any():
        first = int(bad[bad > 0][0])
        raise RuntimeError(f"torch.linalg.lu_factor: U[{first},{first}] is zero and using it on lu_solve would result "
                           f"in a division by zero. If you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LUFactorResult(LU, piv)


def _permutation(pivots, m, like):
    """The permutation matrix P with ``A = P L U`` from LAPACK's row swaps."""
    from ..._creation import tensor
    piv = pivots.numpy().astype(np.int64) - 1
    order = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
    for j in range(piv.shape[-1]):
        a = order[..., j].copy()
        b = np.take_along_axis(order, piv[..., j:j + 1], -1)[..., 0]
        order[..., j] = b
        np.put_along_axis(order, piv[..., j:j + 1], a[..., None], -1)
    P = np.zeros(order.shape + (m,), dtype=np.float64)
    np.put_along_axis(P, order[..., None, :], 1.0, -2)  # P[order[i], i] = 1
    return tensor(P, dtype=like.dtype, backend=like._backend)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from the packed factors and pivots of ``lu_factor``."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + _fn("cat")([_eye(LU_data, k), LU_data.new_zeros((m - k, k))], 0)
        U = LU_data[..., :k, :].triu()
    else:
        L = U = LU_data.new_zeros((0,))
    P = _permutation(LU_pivots, m, LU_data) if unpack_pivots else LU_data.new_zeros((0,))
    return LUUnpackResult(P, L, U)


def linalg_lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U``."""
    _check_lu_input("linalg.lu", A)
    if not pivot:
        raise RuntimeError("linalg.lu: LU without pivoting is not implemented on the CPU")
    L, U, piv, info = _lu(A)
    return LUResult(_permutation(piv, A.shape[-2], A), L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``; ``A^H`` for ``A`` when ``adjoint``), from the
    factors of ``lu_factor``."""
    P, L, U = lu_unpack(LU, pivots)
    if not left:
        return lu_solve(LU, pivots, B.mT.conj(), adjoint=not adjoint).mT.conj()
    if adjoint:  # A^H = U^H L^H P^T
        Y = solve_triangular(U.mT.conj(), B, upper=False)
        return P @ solve_triangular(L.mT.conj(), Y, upper=True, unitriangular=True)
    Y = solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
    return solve_triangular(U, Y, upper=True)


def torch_lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated in PyTorch (``linalg.lu_factor`` replaces it): ``(LU, pivots[, infos])``."""
    import warnings
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                  "be removed in a future PyTorch release.", UserWarning, stacklevel=2)
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


def torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Deprecated in PyTorch (``linalg.lu_solve`` replaces it)."""
    import warnings
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=2)
    return lu_solve(LU_data, LU_pivots, b)


defcomposite("lu", torch_lu)
defcomposite("lu_solve", torch_lu_solve)
defcomposite("lu_unpack", lu_unpack, method=False)
