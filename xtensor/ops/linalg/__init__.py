"""Linear algebra, one module a subject: ``products`` (with diagonals and triangles), ``decompositions`` (with the
solves and matrix functions built on them), ``norms``, ``lu``; ``_common`` holds their shared checks.

Products and decompositions are primitives: their forwards call the standard's ``linalg``
extension of the backend (``xp.linalg``), their VJPs are the standard formulas (the ones
PyTorch's ``FunctionsManual.cpp`` uses), written in xtensor ops so that they differentiate
again. Complex inputs follow PyTorch's convention (a VJP is the adjoint map: conjugate
transposes) for products, inv, det, solve, pinv and eig; svd, eigh, qr and cholesky have real
VJPs only and refuse complex ones. Everything else -- ``outer``, ``tensordot``,
``einsum``, ``matrix_power``, ``multi_dot``, norms of matrices -- is a composite.

Backends differ on bad input (numpy raises ``LinAlgError``, jax returns NaN); the decompositions
run through ``_checked``, which turns both into PyTorch's ``LinAlgError`` (a RuntimeError). The
check reads the result on the host, once per call, as PyTorch's own ``linalg`` functions do; it
is skipped under ``jax.jit``, where the value is not known.
"""
# the names xtensor.linalg, xtensor.array_api.linalg, xtensor.fft, the reductions and the tests take from here
from ._common import LinAlgError, LstsqResult, SlogdetResult, as_complex, conj, imag, real  # noqa: F401
from .products import _diagonal_copy, cross, outer  # noqa: F401
from .decompositions import (cholesky_of, eig, eigh, householder_product, inverse, linalg_svd,  # noqa: F401
                             linalg_vander, lstsq_solution, matrix_exp, matrix_power, matrix_rank, multi_dot, pinv,
                             qr, slogdet, solve, solve_triangular, svdvals, tensorinv, tensorsolve)
from .norms import _vector_norm_vjp, cond, matrix_norm, norm, vecdot, vector_norm  # noqa: F401
from .lu import linalg_lu, lu_factor, lu_factor_ex, lu_solve  # noqa: F401
