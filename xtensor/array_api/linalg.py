"""xtensor.array_api.linalg: the standard's ``linalg`` extension.

The same op-table entries as ``xtensor.linalg`` (``xtensor/ops/linalg/``), in the standard's
spelling: positional-only arrays, ``axis``/``keepdims``, promotion across dtypes where the
standard asks for it, and ``x2`` of ``solve`` a vector only when it is 1-D.
"""
import functools

from ._array import with_standard_defaults as _with_standard_defaults
from .. import linalg as _torch_linalg
from .._dtypes import result_type as _result_type
from .._variants import api_functions as _api
from ..ops import linalg as _ops

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigvals", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
           "trace", "vecdot", "vector_norm"]


matmul, matrix_transpose, tensordot, vecdot = (_api[name] for name in ("matmul", "matrix_transpose", "tensordot",
                                                                       "vecdot"))


def _promoted(x1, x2):
    common = _result_type(x1, x2)
    return x1.to(common), x2.to(common)


def cholesky(x, /, *, upper=False):
    return _torch_linalg.cholesky(x, upper=upper)


def cross(x1, x2, /, *, axis=-1):
    """Cross products of 3-vectors along ``axis``, the other dims broadcast."""
    if not -min(x1.ndim, x2.ndim) <= axis < 0:
        raise ValueError(f"cross: axis must be negative and within both arrays' dims, got {axis}")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"cross: both arrays need size 3 along axis {axis}, got {x1.shape[axis]} and {x2.shape[axis]}")
    n = max(x1.ndim, x2.ndim)
    x1 = x1.reshape(*(1,) * (n - x1.ndim), *x1.shape)
    x2 = x2.reshape(*(1,) * (n - x2.ndim), *x2.shape)
    return _ops.cross(*_promoted(x1, x2), axis)


def det(x, /):
    return _torch_linalg.det(x)


def diagonal(x, /, *, offset=0):
    return x.diagonal(offset, -2, -1)


def eig(x, /):
    return _ops.eig(x)


def eigvals(x, /):
    return _ops.eig(x).eigenvalues


def eigh(x, /):
    return _ops.eigh(x)


def eigvalsh(x, /):
    return _ops.eigh(x).eigenvalues


def inv(x, /):
    return _ops.inverse(x)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return _ops.matrix_norm(x, ord, (-2, -1), keepdims)


def matrix_power(x, n, /):
    return _ops.matrix_power(x, n)


def matrix_rank(x, /, *, rtol=None):
    return _ops.matrix_rank(x, rtol=rtol)


def outer(x1, x2, /):
    return _ops.outer(*_promoted(x1, x2))


def pinv(x, /, *, rtol=None):
    return _ops.pinv(x, rtol=rtol)


def qr(x, /, *, mode="reduced"):
    return _ops.qr(x, mode)


def slogdet(x, /):
    return _ops.SlogdetResult(*_ops.slogdet(x))


def solve(x1, x2, /):
    """x1 @ X = x2; ``x2`` is a vector (stack) only when it is 1-D, as the standard says."""
    return _ops.solve(*_promoted(x1, x2), vector=x2.ndim == 1)


def svd(x, /, *, full_matrices=True):
    return _ops.linalg_svd(x, full_matrices)


def svdvals(x, /):
    return _ops.svdvals(x)


def trace(x, /, *, offset=0, dtype=None):
    """Sums of the diagonals; integers sum in the default integer dtype unless ``dtype`` says otherwise."""
    return _api["sum"](_ops._diagonal_copy(x, offset), axis=-1, dtype=dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    return _ops.vector_norm(x, ord, axis, keepdims)


def _floating_input(fn):
    """``fn`` refusing integer and bool input with the standard's rule: it takes floating-point arrays (``solve``
    promotes its two, so one floating array suffices there, as before)."""
    @functools.wraps(fn)
    def checked(*arrays, **options):
        dtype = _result_type(*arrays)
        if dtype.kind not in "fc":
            raise TypeError(f"linalg.{fn.__name__}(): the array API requires floating-point input (real or complex), "
                            f"got {', '.join(str(x.dtype) for x in arrays)}")
        return fn(*arrays, **options)
    return checked


for _name in ("cholesky", "det", "eig", "eigvals", "eigh", "eigvalsh", "inv", "matrix_norm", "matrix_rank", "pinv",
              "qr", "slogdet", "solve", "svd", "svdvals", "vector_norm"):
    globals()[_name] = _floating_input(globals()[_name])
_with_standard_defaults(globals(), __all__)
