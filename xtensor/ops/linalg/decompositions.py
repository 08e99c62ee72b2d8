"""The decompositions (primitives with real VJPs), the solves and matrix functions built on them, Householder
products, geqrf and the randomized low-rank SVD and PCA."""
import collections
import math

import numpy as np

from ... import _dtypes
from ..._dispatch import _unify, apply
from ..._inplace import assign_out
from ..._table import TABLE, defcomposite, defop, dims_of
from .._composite import _fn
from ._common import (EigResult, EighResult, LinAlgError, QRResult, SVDResult, TorchQRResult, TorchSVDResult,
                      TorchSlogdetResult, _all_finite, _checked, _eye_like, _require_tensor, _shape_str, check_matrix)
from .products import _broadcast_shape


# ------------------------------------------------------------------ decompositions (real VJPs)
def _sym(ns, a):
    return (a + ns.mT(a)) * 0.5


def _adjoint(ns, a):
    """``_mH`` against a namespace (``_ns``)."""
    return ns.conj(ns.mT(a))


def _diagonal(ns, a):
    return ns.apply("_diagonal_copy", (a,), (0,))


def _diag_embed(ns, v):
    return ns.apply("_diag_embed", (v,), (0,))


def _ones_on_diagonal(ns, E):
    """``E`` (a batch of square matrices) with ones on its diagonal: the divisor of terms whose diagonal is 0."""
    last = E.ndim - 1
    return ns.where(ns.arange_along(E, last) == ns.arange_along(E, last - 1), ns.full_like(E, 1), E)


def _per_matrix(ns, g):
    """A gradient per matrix (shape ``(..., )``) broadcast against matrices ``(..., n, n)``."""
    return ns.unsqueeze(ns.unsqueeze(g, -1), -1)


defop("linalg_inv", lambda xp, x: xp.linalg.inv(x),
      (lambda ns, g, ans, x: -ns.matmul(ns.matmul(_adjoint(ns, ans), g), _adjoint(ns, ans)),),
      node="LinalgInvExBackward0", function=False, method=False, saves=("result",))


def inverse(input):
    """The inverse; a singular matrix raises LinAlgError (PyTorch's message)."""
    check_matrix("linalg.inv", input, square=True)
    return _checked("linalg.inv", TABLE["linalg_inv"].op, input)


defcomposite("inverse", inverse, out=True)


def _det_sig(input):
    check_matrix("linalg.det", input, square=True)
    return (input,), ()


defop("det", lambda xp, x: xp.linalg.det(x),
      (lambda ns, g, ans, x: _per_matrix(ns, g * ns.conj(ans)) * _adjoint(ns, ns.inv(x)),),
      sig=_det_sig, node="LinalgDetBackward0", saves=(0, "result"))


def _slogdet_fwd(xp, x):
    sign, logabsdet = xp.linalg.slogdet(x)
    return sign, logabsdet


defop("linalg_slogdet", _slogdet_fwd, (lambda ns, g, ans, x: _per_matrix(ns, g[1]) * _adjoint(ns, ns.inv(x)),),
      nout=2, node="LinalgSlogdetBackward0", function=False, method=False, saves=(0,))


def slogdet(input):
    """(sign, log|det|) of square matrices."""
    check_matrix("linalg.slogdet", input, square=True)
    return TorchSlogdetResult(*apply(TABLE["linalg_slogdet"].op, (input,)))


def logdet(input):
    """log det: NaN for a negative determinant, -inf for a zero one (as PyTorch)."""
    sign, logabs = slogdet(input)
    return logabs.where(sign >= 0, logabs.new_full((), math.nan))


defcomposite("slogdet", slogdet)
defcomposite("logdet", logdet)


# SVD: the VJP of PyTorch's svd_backward (real case; with full_matrices the extra columns carry no gradient)
def _svd_fwd(xp, x, full_matrices):
    u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh


def _real_only(ns, name, x):
    """Decompositions whose complex VJPs (gauge terms of the phases) are not written: refuse, not guess."""
    if ns.is_complex(x):
        raise NotImplementedError(f"{name}: gradients for complex inputs are not supported yet")


def _svd_vjp(ns, g, ans, x, full_matrices):
    _real_only(ns, "linalg.svd", x)
    gU, gS, gVh = g
    U, S, Vh = ans
    m, n = x.shape[-2:]
    k = min(m, n)
    if full_matrices:
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :k]
        gVh = None if gVh is None else gVh[..., :k, :]
    if gU is None and gVh is None:
        return (U * ns.unsqueeze(gS, -2)) @ Vh
    S2 = S * S
    E = _ones_on_diagonal(ns, ns.unsqueeze(S2, -2) - ns.unsqueeze(S2, -1))
    inner = ns.zeros((*x.shape[:-2], k, k), S)
    if gU is not None:
        UhgU = ns.mT(U) @ gU
        inner = inner + (UhgU - ns.mT(UhgU)) * ns.unsqueeze(S, -2)
    if gVh is not None:
        VhgV = Vh @ ns.mT(gVh)
        inner = inner + ns.unsqueeze(S, -1) * (VhgV - ns.mT(VhgV))
    inner = inner / E
    if gS is not None:
        inner = inner + _diag_embed(ns, gS)
    if m > k and gU is not None:
        gUSinv = gU / ns.unsqueeze(S, -2)
        return (U @ inner + gUSinv - U @ (ns.mT(U) @ gUSinv)) @ Vh
    if n > k and gVh is not None:
        SinvgVh = gVh / ns.unsqueeze(S, -1)
        return U @ (inner @ Vh + SinvgVh - (SinvgVh @ ns.mT(Vh)) @ Vh)
    return U @ inner @ Vh


defop("linalg_svd", _svd_fwd, (_svd_vjp,), nout=3, node="LinalgSvdBackward0", function=False, method=False,
      saves=("result", "meta0"))  # U, S, Vh (the VJP reads the input's shape only), as PyTorch


def linalg_svd(A, full_matrices=True):
    check_matrix("linalg.svd", A)
    return SVDResult(*apply(TABLE["linalg_svd"].op, (A,), (full_matrices,)))


def svd(input, some=True, compute_uv=True):
    """``torch.svd``: (U, S, V) with V, not Vh; ``some=False`` gives full square U and V."""
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    if not compute_uv:
        return TorchSVDResult(U.new_zeros(U.shape).detach(), S, Vh.new_zeros(Vh.shape).detach())
    return TorchSVDResult(U, S, Vh.mT)


defcomposite("svd", svd)


def svdvals(A):
    return linalg_svd(A, full_matrices=False).S


# eigh: PyTorch's linalg_eig_backward, hermitian case
def _hermitian_from(xp, x, uplo):
    """The symmetric matrix whose ``uplo`` triangle is ``x``'s (jax would otherwise average both triangles)."""
    n = x.shape[-1]
    d = xp.arange(n)[None, :] - xp.arange(n)[:, None]
    return xp.where(d <= 0 if uplo == "L" else d >= 0, x, xp.matrix_transpose(x))


def _eigh_fwd(xp, x, uplo):
    w, v = xp.linalg.eigh(_hermitian_from(xp, x, uplo))
    return w, v


def _eigh_vjp(ns, g, ans, x, uplo):
    _real_only(ns, "linalg.eigh", x)
    gL, gV = g
    L, V = ans
    if gV is None:
        return (V * ns.unsqueeze(gL, -2)) @ ns.mT(V)
    E = _ones_on_diagonal(ns, ns.unsqueeze(L, -2) - ns.unsqueeze(L, -1))
    VhgV = ns.mT(V) @ gV
    inner = (VhgV - ns.mT(VhgV)) * 0.5
    if gL is not None:
        inner = inner + _diag_embed(ns, gL)
    return V @ (inner / E) @ ns.mT(V)


defop("linalg_eigh", _eigh_fwd, (_eigh_vjp,), nout=2, node="LinalgEighBackward0", function=False, method=False,
      saves=("result", "meta0"))


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices; only the ``UPLO`` triangle is read."""
    check_matrix("linalg.eigh", A, square=True)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return EighResult(*apply(TABLE["linalg_eigh"].op, (A,), (UPLO,)))


# eig: general (non-symmetric) matrices; complex results always (the standard's rule). PyTorch's
# linalg_eig_backward: gA = V^-H (P(V^H gV) / conj(E), diagonal gL) V^H, P projecting out the phase gauge.
def _eig_vjp(ns, g, ans, x):
    gL, gV = g
    L, V = ans
    Vh = _adjoint(ns, V)
    inner = ns.zeros(V.shape, V)
    if gV is not None:
        VhgV = Vh @ gV
        real_diagonal = ns.apply("_as_complex", (ns.apply("_complex_real", (_diagonal(ns, VhgV),)),))
        VhgV = VhgV - Vh @ (V * ns.unsqueeze(real_diagonal, -2))
        inner = VhgV / ns.conj(_ones_on_diagonal(ns, ns.unsqueeze(L, -2) - ns.unsqueeze(L, -1)))
    if gL is not None:  # the diagonal is gL's
        inner = inner - _diag_embed(ns, _diagonal(ns, inner)) + _diag_embed(ns, gL)
    gA = ns.apply("linalg_solve", (Vh, inner @ Vh), (False,))
    return gA if ns.is_complex(x) else ns.apply("_complex_real", (gA,))


def _eig_fwd(xp, x):
    complex_dtype = xp.complex64 if x.dtype in (xp.float32, xp.complex64) else xp.complex128
    w, v = xp.linalg.eig(x)
    return xp.astype(w, complex_dtype), xp.astype(v, complex_dtype)


defop("linalg_eig", _eig_fwd, (_eig_vjp,), nout=2, node="LinalgEigBackward0", function=False, method=False,
      saves=(0, "result"), raw_any_dtype=(0,))  # real input, complex results


def eig(A):
    """Eigenvalues and (unit) eigenvectors of square matrices, as complex tensors."""
    check_matrix("linalg.eig", A, square=True)
    return EigResult(*apply(TABLE["linalg_eig"].op, (A,)))


# QR: TensorFlow's QrGrad (real; square and tall matrices, wide ones through their square left block)
def _qr_fwd(xp, x, mode):
    q, r = xp.linalg.qr(x, mode="reduced" if mode == "r" else mode)
    return q, r


def _qr_grad_tall(ns, Q, R, gQ, gR):
    qdq = ns.mT(Q) @ gQ
    rdr = R @ ns.mT(gR)
    Rinv_T = ns.mT(ns.inv(R))
    return Q @ (gR + ns.tril(qdq - ns.mT(qdq) + rdr - ns.mT(rdr), 0) @ Rinv_T) + (gQ - Q @ qdq) @ Rinv_T


def _qr_vjp(ns, g, ans, x, mode):
    _real_only(ns, "linalg.qr", x)
    gQ, gR = g
    Q, R = ans
    m, n = x.shape[-2:]
    if mode == "complete" and m > n or mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r', and is "
                           "not defined when mode='complete' and nrows > ncols.")
    gQ = ns.zeros(Q.shape, Q) if gQ is None else gQ
    gR = ns.zeros(R.shape, R) if gR is None else gR
    if m >= n:
        return _qr_grad_tall(ns, Q, R, gQ, gR)
    y, u, dv = Q @ R[..., m:], R[..., :m], gR[..., m:]  # x's right block, from the saved Q, R as PyTorch
    dx = _qr_grad_tall(ns, Q, u, gQ + y @ ns.mT(dv), gR[..., :m])
    return ns.apply("cat", (dx, Q @ dv), (len(x.shape) - 1,))


defop("linalg_qr", _qr_fwd, (_qr_vjp,), nout=2, node="LinalgQrBackward0", function=False, method=False,
      saves=("result", "meta0"))


def qr(A, mode="reduced"):
    check_matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    Q, R = apply(TABLE["linalg_qr"].op, (A,), (mode,))
    return QRResult(Q.new_zeros(0).detach() if mode == "r" else Q, R)


def torch_qr(input, some=True):
    """``torch.qr``: ``some=False`` is mode 'complete'."""
    return TorchQRResult(*qr(input, "reduced" if some else "complete"))


defcomposite("qr", torch_qr)


# Cholesky: gA = sym(L^-T Phi(L^T gL) L^-1), Phi = lower triangle with the diagonal halved
def _cholesky_vjp(ns, g, ans, x, upper):
    _real_only(ns, "linalg.cholesky", x)
    L, gL = (ns.mT(ans), ns.mT(g)) if upper else (ans, g)
    phi = ns.tril(ns.mT(L) @ gL, 0)
    phi = phi - _diag_embed(ns, _diagonal(ns, phi)) * 0.5
    Linv = ns.inv(L)
    return _sym(ns, ns.mT(Linv) @ phi @ Linv)


def _cholesky_fwd(xp, x, upper):
    L = xp.linalg.cholesky(_hermitian_from(xp, x, "L"))
    return xp.matrix_transpose(L) if upper else L


for _name, _node in (("linalg_cholesky", "LinalgCholeskyExBackward0"), ("_torch_cholesky", "CholeskyBackward0")):
    defop(_name, _cholesky_fwd, (_cholesky_vjp,), node=_node, function=False, method=False,
          saves=("result", "meta0"))


def cholesky_of(name, op_name, A, upper):
    check_matrix(name, A, square=True)
    return _checked(name, TABLE[op_name].op, A, (bool(upper),), problem="not positive-definite")


def cholesky(input, upper=False):
    """``torch.cholesky``: the lower factor (``upper=True``: its transpose)."""
    return cholesky_of("linalg.cholesky", "_torch_cholesky", input, upper)


defcomposite("cholesky", cholesky, out=True)


# solve: X = A^-1 B; gB = A^-T g, gA = -gB X^T. ``vector``: B is a (batch of) vector(s).
def _solve_fwd(xp, a, b, vector):
    if vector:
        return xp.linalg.solve(a, b[..., None])[..., 0]
    return xp.linalg.solve(a, b)


def _solve_op(a, b, vector):
    return apply(TABLE["linalg_solve"].op, (a, b), (vector,))


def _solve_adjoint(ns, a, g, vector):
    return ns.apply("linalg_solve", (_adjoint(ns, a), g), (vector,))


defop("linalg_solve", _solve_fwd,
      (lambda ns, g, ans, a, b, vector:
       -(ns.unsqueeze(_solve_adjoint(ns, a, g, vector), -1) * ns.unsqueeze(ns.conj(ans), -2)) if vector else
       -(_solve_adjoint(ns, a, g, vector) @ _adjoint(ns, ans)),
       lambda ns, g, ans, a, b, vector: _solve_adjoint(ns, a, g, vector)),
      node="LinalgSolveExBackward0", function=False, method=False, saves=((0, 2, "result"), (0, 2)))


def solve(A, B, *, left=True, vector=None):
    """A X = B. ``vector=None``: B is a vector (batch) when it is 1-D or has A's batch shape (PyTorch's rule)."""
    check_matrix("linalg.solve", A, square=True)
    _require_tensor("linalg.solve", "B", B)
    if not left:
        return solve(A.mT, B.mT, vector=False).mT
    if vector is None:
        vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    if (B.shape[-1] if vector else (B.shape[-2] if B.ndim >= 2 else -1)) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({_shape_str(A)} and {_shape_str(B)})")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.scalar_name} and B of type {B.dtype.scalar_name} instead")
    if vector and B.ndim > 1:
        A = A.expand(*_broadcast_shape(A.shape[:-2], B.shape[:-1], "linalg.solve"), n, n)
    _unify((A, B))  # a backend mismatch is not a singular matrix
    try:
        X = _solve_op(A, B, vector)
    except (ValueError, RuntimeError):  # numpy's LinAlgError, rewrapped by the dispatcher (arguments were checked)
        raise LinAlgError("linalg.solve: The solver failed because the input matrix is singular.") from None
    if not _all_finite(X) and _all_finite(A) and _all_finite(B):
        raise LinAlgError("linalg.solve: The solver failed because the input matrix is singular.")
    return X


# pinv: PyTorch's pinv_backward; the forward cuts singular values below rtol * largest
def _pinv_vjp(ns, g, ans, A, rtol):
    m, n = A.shape[-2:]
    pinvAh = _adjoint(ns, ans)
    gh = _adjoint(ns, g)
    if m <= n:
        K = gh @ ans
        KpinvAh = K @ pinvAh
        return -_adjoint(ns, ans @ K) + KpinvAh - (A @ ans) @ KpinvAh + (pinvAh @ ans) @ (gh - K @ A)
    K = ans @ gh
    pinvAhK = pinvAh @ K
    return -_adjoint(ns, K @ ans) + (gh - A @ K) @ ans @ pinvAh + pinvAhK - pinvAhK @ ans @ A


defop("linalg_pinv", lambda xp, x, rtol: xp.linalg.pinv(x, rtol=rtol), (_pinv_vjp,), node="LinalgPinvBackward0",
      function=False, method=False, saves=(0, "result"))


def pinv(A, rtol=None, hermitian=False, *, atol=None):
    check_matrix("linalg.pinv", A)
    if atol is not None:
        raise NotImplementedError("linalg.pinv: atol= is not supported; use rtol=")
    return apply(TABLE["linalg_pinv"].op, (A,), (_rtol(A, rtol),))


def _rtol(A, rtol):
    """``rtol`` as the forward takes it: an array rtol is one cutoff per matrix of the stack (the standard's)."""
    return rtol.to(A.dtype)._value if hasattr(rtol, "_dtype") else rtol


# lstsq's solution pinv(A) @ B as one node that keeps A, B and the solution, as PyTorch's LinalgLstsqBackward0;
# its VJPs recompute pinv(A) (as PyTorch's linalg_lstsq_backward does)
def _lstsq_vjp_a(ns, g, ans, A, B, rtol):
    return _pinv_vjp(ns, g @ _adjoint(ns, B), ns.apply("linalg_pinv", (A,), (rtol,)), A, rtol)


defop("_lstsq_solution", lambda xp, A, B, rtol: xp.linalg.pinv(A, rtol=rtol) @ B,
      (_lstsq_vjp_a, lambda ns, g, ans, A, B, rtol: _adjoint(ns, ns.apply("linalg_pinv", (A,), (rtol,))) @ g),
      node="LinalgLstsqBackward0", function=False, method=False, saves=(0, 1, "result"))


def lstsq_solution(A, B, rtol=None):
    """``pinv(A) @ B`` (``B`` a stack of matrices), the solution ``xtensor.linalg.lstsq`` returns."""
    check_matrix("linalg.lstsq", A)
    return apply(TABLE["_lstsq_solution"].op, (A, B), (_rtol(A, rtol),))


def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


defcomposite("pinverse", pinverse)


def matrix_power(A, n):
    """A^n by repeated squaring (n < 0: of the inverse; n == 0: the identity, in A's batch shape)."""
    check_matrix("linalg.matrix_power", A, square=True, floats=n < 0)
    if n == 0:
        return _eye_like(A).expand(*A.shape).clone()
    if n < 0:
        A, n = inverse(A), -n
    result, square = None, A
    while n:
        if n & 1:
            result = square if result is None else result @ square
        n >>= 1
        if n:
            square = square @ square
    return result


defcomposite("matrix_power", matrix_power)


def multi_dot(tensors):
    """The product of a chain; a 1-D first (last) factor is a row (column) vector, dropped from the result."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    chain = [first.unsqueeze(0) if first.ndim == 1 else first, *tensors[1:-1],
             last.unsqueeze(-1) if last.ndim == 1 else last]
    for i, t in enumerate(chain):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    out = chain[0]
    for t in chain[1:]:
        out = out @ t
    if first.ndim == 1:
        out = out.squeeze(0)
    if last.ndim == 1:
        out = out.squeeze(-1)
    return out


def chain_matmul(*matrices):
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


defcomposite("chain_matmul", chain_matmul, method=False)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """How many singular values exceed max(atol, rtol * largest) (default rtol: eps * max(m, n))."""
    check_matrix("linalg.matrix_rank", A)
    s = svdvals(A.detach())
    if A.shape[-1] * A.shape[-2] == 0:
        return s.new_zeros(A.shape[:-2]).to(_dtypes.int64)
    if tol is not None:
        atol = tol
    largest = s.amax(-1, keepdim=True)
    if rtol is None:
        rtol = 0.0 if atol is not None else _dtypes.finfo(A.dtype).eps * max(A.shape[-2:])
    cut = largest * rtol
    if atol is not None:
        cut = cut.clamp(min=atol) if not hasattr(atol, "_dtype") else _max(cut, atol)
    return (s > cut).sum(-1)


def _max(a, b):
    return _fn("maximum")(a, b.unsqueeze(-1) if b.ndim else b)


# ------------------------------------------------------------------ triangular solves, matrix functions, Householder
def _eye(A, n=None):
    from ..._creation import eye
    n = A.shape[-1] if n is None else n
    return eye(n, dtype=A.dtype, backend=A._backend)


def _solver_triangle(A, upper, unitriangular=False):
    """The triangle of ``A`` a triangular solver reads (its other part never reaches the result or gradient)."""
    if unitriangular:
        return (A.triu(1) if upper else A.tril(-1)) + _eye(A)
    return A.triu() if upper else A.tril()


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) reading only the ``upper`` or lower triangle of
    ``A`` (and taking its diagonal as ones when ``unitriangular``)."""
    T = _solver_triangle(A, upper, unitriangular)
    X = solve(T, B) if left else solve(T.mT, B.mT).mT
    if out is None:
        return X
    return assign_out(out, X, "linalg.solve_triangular")


def cholesky_solve(B, L, upper=False):
    """``X`` with ``A X = B`` for ``A = L L^H`` (``U^H U`` when ``upper``), from the Cholesky factor. The value
    reads only the triangle; the gradient, as PyTorch's, is that of the formula in the whole of ``L``."""
    T = L - (L - _solver_triangle(L, upper)).detach()
    lower = T.mT.conj() if upper else T
    return solve(lower.mT.conj(), solve(lower, B))


def cholesky_inverse(L, upper=False):
    """The inverse of ``A = L L^H`` (``U^H U`` when ``upper``), from its Cholesky factor."""
    return cholesky_solve(_eye(L).expand(L.shape), L, upper)


defcomposite("cholesky_solve", cholesky_solve, out=True)
defcomposite("cholesky_inverse", cholesky_inverse, out=True)

triangular_solve_result = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
triangular_solve_result.__module__ = "xtensor.return_types"


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated in PyTorch (``linalg.solve_triangular`` replaces it): ``(X, A.clone())`` with ``op(A) X = b``."""
    import warnings
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    T = _solver_triangle(A, upper, unitriangular)
    X = solve_triangular(T.mT, b, upper=not upper) if transpose else solve_triangular(T, b, upper=upper)
    return triangular_solve_result(X, A.clone())


defcomposite("triangular_solve", triangular_solve)


def matrix_exp(A):
    """``exp(A)`` of square matrices: Taylor series of degree 18 after scaling by ``2**-s`` so that the
    1-norm is at most 1/2, then ``s`` squarings (exact to double precision; differentiable through it)."""
    check_matrix("linalg.matrix_exp", A, square=True)
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax())
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    X = A / (2.0 ** s)
    term = _eye(A).expand(A.shape)
    result = term
    for k in range(1, 19):
        term = term @ X / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


defcomposite("matrix_exp", matrix_exp)


def _vander(x, N, increasing):
    """Powers ``x**0 ... x**(N-1)`` along a new last dim, by a running product (PyTorch's formula, so the
    gradient at 0 is exact)."""
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    ones = x.new_ones(tuple(x.shape) + (min(N, 1),))
    if N <= 1:
        return ones
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (N - 1,)).cumprod(-1)
    out = _fn("cat")([ones.to(powers.dtype), powers], -1)
    return out if increasing else out.flip(-1)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-d ``x``: columns ``x**(N-1) ... x**0`` (increasing when asked)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    x = x.long() if x.dtype is _dtypes.bool else x
    return _vander(x, x.shape[0] if N is None else N, increasing)


def linalg_vander(x, *, N=None):
    """The batched Vandermonde matrices of ``x``'s last dim, powers increasing."""
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    return _vander(x, x.shape[-1] if N is None else N, True)


defcomposite("vander", vander, method=False)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of ``A`` seen as a map from its dims ``ind:`` to its dims ``:ind``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    left, right = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, cols = math.prod(left), math.prod(right)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inverse(A.reshape(rows, cols)).reshape(right + left)


def tensorsolve(A, B, dims=None, *, out=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``; ``dims`` of ``A`` are moved to its end first."""
    if dims is not None:
        dims = [dims_of(d, A.ndim)[0] for d in dims]
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    rest = tuple(A.shape[B.ndim:])
    return solve(A.reshape(B.numel(), math.prod(rest)), B.reshape(-1)).reshape(rest)


def householder_product(A, tau, *, out=None):
    """The first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` the ``i``-th
    column of ``A`` below the diagonal and 1 on it (LAPACK's orgqr)."""
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if n > m:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if k > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    V = A.tril(-1) + _eye(A, m)[:, :n]
    Q = _eye(A, m).expand(tuple(A.shape[:-2]) + (m, m))
    for i in range(k):
        v = V[..., :, i:i + 1]
        Q = Q - (Q @ v) * tau[..., i:i + 1].unsqueeze(-1) @ v.mT.conj()
    return Q[..., :, :n]


def orgqr(input, tau):
    return householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False):
    """``op(Q) @ other`` (or ``other @ op(Q)``), ``Q`` the full product of the Householder reflectors."""
    m = input.shape[-2]
    padded = _fn("cat")([input, input.new_zeros(tuple(input.shape[:-1]) + (m - input.shape[-1],))], -1) \
        if input.shape[-1] < m else input[..., :, :m]
    Q = householder_product(padded, tau)
    Q = Q.mT.conj() if transpose else Q
    return Q @ other if left else other @ Q


defcomposite("orgqr", orgqr)
defcomposite("ormqr", ormqr)


geqrf_result = collections.namedtuple("geqrf", ["a", "tau"])
geqrf_result.__module__ = "xtensor.return_types"


def geqrf(input):
    """LAPACK's Householder QR, ``(a, tau)``: R on and above the diagonal of ``a``, the reflectors' vectors
    below it (``householder_product(a, tau)`` is Q). Computed on the host, as LAPACK's ``geqrf`` in PyTorch
    (which has no gradient for it either)."""
    from ..._creation import tensor
    check_matrix("geqrf", input)
    a = np.array(input.detach().numpy(), dtype=np.complex128 if input.dtype.kind == "c" else np.float64)
    m, n = a.shape[-2:]
    k = min(m, n)
    tau = np.zeros(a.shape[:-2] + (k,), dtype=a.dtype)
    for index in np.ndindex(a.shape[:-2]):
        A, t = a[index], tau[index]
        for i in range(k):
            alpha, x = A[i, i], A[i + 1:, i]
            xnorm = np.linalg.norm(x)
            if xnorm == 0 and np.imag(alpha) == 0:
                continue
            beta = -math.copysign(math.hypot(abs(alpha), xnorm), np.real(alpha))
            t[i] = (beta - alpha) / beta
            v = np.concatenate([[1.0], x / (alpha - beta)])
            A[i + 1:, i] = v[1:]
            A[i, i] = beta
            A[i:, i + 1:] -= np.conj(t[i]) * np.outer(v, np.conj(v) @ A[i:, i + 1:])
    return geqrf_result(tensor(a, dtype=input.dtype, backend=input._backend),
                        tensor(tau, dtype=input.dtype, backend=input._backend))


defcomposite("geqrf", geqrf)


# ------------------------------------------------------------------ randomized low-rank SVD and PCA
def _approximate_basis(A, q, niter, M):
    """Halko et al.'s range finder, as PyTorch's ``get_approximate_basis``: an orthonormal basis of ``(A - M)``
    times a random Gaussian matrix, refined by ``niter`` power iterations."""
    from ..._creation import randn
    R = randn(A.shape[-1], q, dtype=A.dtype, backend=A._backend)
    X = A - M if M is not None else A
    Q = qr(X @ R).Q
    for _ in range(niter):
        Q = qr(X.mT.conj() @ Q).Q
        Q = qr(X @ Q).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)``, ``A - M ~ U diag(S) V^H`` of rank ``q``, by a randomized range finder (exact when the
    rank is at most ``q``). Random: draws from xtensor's generator, so U and V differ from PyTorch's by the
    signs and rotations any SVD may take."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if m < n:  # the basis of the transpose: fewer columns to draw
        V, S, U = svd_lowrank(A.mT.conj(), q, niter, None if M is None else M.mT.conj())
        return V, S, U
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mT.conj() @ (A - M if M is not None else A)
    U, S, Vh = linalg_svd(B, False)
    return Q @ U, S, Vh.mT.conj()


def pca_lowrank(A, q=None, center=True, niter=2):
    """``(U, S, V)`` of the data ``A`` (rows: observations) centred on its column means: a rank-``q`` PCA
    (``q`` defaults to ``min(6, m, n)``); see ``svd_lowrank``."""
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    M = A.mean(-2, keepdim=True).expand(A.shape) if center else None
    return svd_lowrank(A, q, niter, M)


defcomposite("svd_lowrank", svd_lowrank, method=False)
defcomposite("pca_lowrank", pca_lowrank, method=False)
