"""Vector and matrix norms, the condition number, renorm and cdist."""
import math

from ... import _dtypes
from ..._dispatch import apply
from ..._table import TABLE, defcomposite, defop, dims_of
from .._composite import _fn
from ._common import _require_tensor, check_float, check_matrix, conj
from .decompositions import inverse, svdvals


# ------------------------------------------------------------------ norms
def _vector_norm_fwd(xp, x, ord, dims, keepdim):
    r = xp.linalg.vector_norm(x, axis=dims, keepdims=keepdim, ord=ord)
    if r.dtype == x.dtype or x.dtype in (xp.complex64, xp.complex128):  # a complex input's norm is real
        return r
    return xp.astype(r, x.dtype)  # array-api-compat's numpy gives bfloat16's norm in float64


def _vector_norm_vjp(ns, g, ans, x, ord, dims, keepdim):
    """PyTorch's linalg_vector_norm_backward: inf norms share the gradient among ties; 0 where the norm is 0."""
    full_dims = dims_of(dims, x.ndim)
    g = ns.unreduce(g, x.shape, full_dims, keepdim)
    norm = ns.unreduce(ans, x.shape, full_dims, keepdim)
    if ord == 0:
        return g * 0
    if ord == 1:
        return g * ns.sign(x)
    if ord == 2:
        return ns.where_zero(norm != 0, g * x / ns.where(norm != 0, norm, ns.full_like(norm, 1)))
    if math.isinf(ord):
        hits = ns.abs(x) == norm
        count = ns.unreduce(ns.sum(ns.cast_like(hits, g), full_dims, True), x.shape, full_dims, True)
        return ns.where_zero(hits, g * ns.sign(x) / count)
    scale = ns.abs(x) ** (ord - 2) if ord >= 2 else ns.where(x != 0, ns.abs(x), ns.full_like(x, 1)) ** (ord - 2)
    return ns.where_zero((norm != 0) & (x != 0), g * x * scale / norm ** (ord - 1))


defop("linalg_vector_norm", _vector_norm_fwd, (_vector_norm_vjp,), node="LinalgVectorNormBackward0",
      function=False, method=False, saves=(0, 1, 2, 3, "result"))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    check_float("linalg.vector_norm", x)
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(dim, list):
        dim = tuple(dim)
    if x.ndim == 0 and dim in (0, -1, (0,), (-1,)):
        dim = None
    if x.numel() == 0 and (ord < 0 or math.isinf(ord)) and (
            dim is None or any(x.shape[d] == 0 for d in dims_of(dim, x.ndim))):
        raise IndexError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                         "operation does not have an identity")
    dims = None if dim is None else dims_of(dim, x.ndim)
    ord = float(ord)
    return apply(TABLE["linalg_vector_norm"].op, (x,), (ord, dims, keepdim))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Frobenius and nuclear norms, max column (1) / row (inf) sums and the largest (2) / smallest singular
    values, over the two ``dim``."""
    check_matrix("linalg.matrix_norm", A)
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = dims_of(tuple(dim), A.ndim) if dim[0] % A.ndim < dim[1] % A.ndim else \
        dims_of(tuple(dim), A.ndim)[::-1]
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    moved = A.permute(*[i for i in range(A.ndim) if i not in (d0, d1)], d0, d1)
    if ord == "nuc" or ord in (2, -2):
        s = svdvals(moved)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
    elif ord in (1, -1, math.inf, -math.inf):
        sums = moved.abs().sum(-2 if ord in (1, -1) else -1)
        r = sums.amax(-1) if ord > 0 else sums.amin(-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return r


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``linalg.norm``: a vector norm unless ``dim`` has two dims (or ``ord`` is a string / A is 2-D with ord)."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or dim is None and ord is not None and A.ndim == 2:
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: If dim is specified, it mut be of length 1 or 2. Got {dim}")
    if dim is None and ord is not None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def torch_norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``torch.norm``: 'fro' over all (or two) dims, 'nuc' over two, a number p over ``dim``."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro" and dim is not None and len(dim) == 2:
        return matrix_norm(input, "fro", dim, keepdim, dtype=dtype)
    return vector_norm(input, 2 if p in ("fro", None) else p, dim, keepdim, dtype=dtype)


defcomposite("norm", torch_norm)


def vecdot(x, y, dim=-1):
    """Sum over ``dim`` of conj(x) * y, broadcasting the other dims."""
    _require_tensor("linalg.vecdot", "y", y)
    if x.shape[dim] != y.shape[dim]:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same size along dim {dim}, got "
                           f"{x.shape[dim]} and {y.shape[dim]}")
    if x.dtype.kind == "c":
        x = conj(x)
    product = x * y
    return product.sum(dim, dtype=product.dtype)  # in the operands' dtype, integers included


def matrix_transpose(x, /):
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: expected an array of at least 2 dimensions, got {x.ndim}")
    return x.mT


defcomposite("matrix_transpose", matrix_transpose, api=True, function=False, method=False)
defcomposite("vecdot", vecdot, api=True, method=False, function=False,
             api_impl=lambda x1, x2, /, *, axis=-1: _api_vecdot(x1, x2, axis))


def _api_vecdot(x1, x2, axis):
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: expected arrays of at least one dimension")
    if not -min(x1.ndim, x2.ndim) <= axis < 0 and not 0 <= axis < min(x1.ndim, x2.ndim):
        raise ValueError(f"vecdot: axis {axis} is out of range")
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot: x1 and x2 differ in size along axis {axis}: {x1.shape[axis]} and "
                         f"{x2.shape[axis]}")
    n = max(x1.ndim, x2.ndim)
    axis = axis if axis < 0 else axis - min(x1.ndim, x2.ndim)
    x1 = x1.reshape(*(1,) * (n - x1.ndim), *x1.shape)
    x2 = x2.reshape(*(1,) * (n - x2.ndim), *x2.shape)
    common = _dtypes.result_type(x1, x2)
    return vecdot(x1.to(common), x2.to(common), axis)


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm ``maxnorm``."""
    d = dims_of(dim, input.ndim)[0]
    others = tuple(i for i in range(input.ndim) if i != d)
    norm = _fn("norm")(input, p, others, keepdim=True) if others else input.abs()
    factor = (maxnorm / (norm + 1e-7)).where(norm > maxnorm, 1.0)
    return input * factor


defcomposite("renorm", renorm, inplace=True, out=True)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batched)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return vector_norm(diff, p, -1)


defcomposite("cdist", cdist, method=False)


def cond(A, p=None, *, out=None):
    """The condition number in norm ``p``: the singular-value ratio for None/2/-2, else
    ``norm(A, p) * norm(inv(A), p)``."""
    if p in (None, 2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return (big / small) if p != -2 else (small / big)
    return matrix_norm(A, p) * matrix_norm(inverse(A), p)
