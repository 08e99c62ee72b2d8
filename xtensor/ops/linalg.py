"""Linear algebra: products, diagonals and triangles, decompositions, solves and norms.

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
import collections
import math

import numpy as np

from .. import _dtypes
from .._dispatch import _unify, apply, wrap
from .._table import TABLE, defcomposite, defop, dims_of
from .._tensor import check_dim
from ._composite import _fn


class LinAlgError(RuntimeError, ValueError):
    """A matrix the algorithm cannot handle (singular, not positive-definite): PyTorch's
    ``torch.linalg.LinAlgError`` (a RuntimeError), and a ValueError as numpy's is."""


# named results, shared by ``xtensor.linalg`` and ``xtensor.array_api.linalg`` (the same fields in both)
def _result(name, fields):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "xtensor.return_types"
    return cls


SlogdetResult = _result("linalg_slogdet", ["sign", "logabsdet"])
SVDResult = _result("linalg_svd", ["U", "S", "Vh"])
EighResult = _result("linalg_eigh", ["eigenvalues", "eigenvectors"])
EigResult = _result("linalg_eig", ["eigenvalues", "eigenvectors"])
QRResult = _result("linalg_qr", ["Q", "R"])
LstsqResult = _result("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
TorchSVDResult = _result("svd", ["U", "S", "V"])
TorchQRResult = _result("qr", ["Q", "R"])
TorchSlogdetResult = _result("slogdet", ["sign", "logabsdet"])


# ------------------------------------------------------------------ argument checks
def _shape_str(t):
    return "x".join(str(n) for n in (t.shape if t.ndim > 1 else (1, *t.shape)))


def _require_tensor(name, arg, t):
    if not hasattr(t, "_dtype"):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(t).__name__}")


def _same_dtype(name, *ts):
    d = ts[0].dtype
    for t in ts[1:]:
        if t.dtype is not d:
            raise RuntimeError(f"{name}: expected all arguments to have the same dtype, but got "
                               f"{d.name} and {t.dtype.name}")


def check_float(name, x):
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {x.dtype.scalar_name}")


def check_matrix(name, x, square=False, arg="A", floats=True):
    """``x`` is a (float, if ``floats``) batch of matrices, square if asked: PyTorch's messages otherwise."""
    _require_tensor(name, arg, x)
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if floats:
        check_float(name, x)
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{x.shape[-2]} by {x.shape[-1]} matrices")


def _checked(name, op, x, params=(), problem="singular"):
    """``op`` on ``x``, with PyTorch's LinAlgError where the backend failed (an exception or non-finite output)."""
    try:
        out = apply(op, (x,), params)
    except (ValueError, RuntimeError):  # numpy's LinAlgError, rewrapped by the dispatcher (arguments were checked)
        raise LinAlgError(_failure(name, problem)) from None
    first = out[0] if isinstance(out, tuple) else out
    if not _all_finite(first) and _all_finite(x):
        raise LinAlgError(_failure(name, problem))
    return out


def _failure(name, problem):
    if problem == "singular":
        return f"{name}: The diagonal element 1 is zero, the inversion could not be completed because the " \
               "input matrix is singular."
    return f"{name}: The factorization could not be completed because the input is not positive-definite."


def _all_finite(t):
    xp = t._backend.xp
    try:
        return bool(xp.all(xp.isfinite(t._value)))
    except Exception:  # a jax tracer under jit: the value is not known, nothing to check
        return True


# ------------------------------------------------------------------ constants in a tensor's backend
def _constant(like, make, dtype=_dtypes.bool):
    """A tensor (no history) built by ``make(xp, native dtype)`` in ``like``'s backend."""
    backend = like._backend
    return wrap(make(backend.xp, backend.native_dtype(dtype)), backend, dtype)


def _band(like, rows, cols, offset, above):
    """Boolean (rows, cols) mask: ``j - i == offset`` (``above=None``), ``>= offset`` (True), ``<= offset`` (False)."""
    def make(xp, dt):
        d = xp.arange(cols)[None, :] - xp.arange(rows)[:, None]
        return d == offset if above is None else (d >= offset if above else d <= offset)
    return _constant(like, make)


def _eye_like(x):
    n = x.shape[-1]
    return _constant(x, lambda xp, dt: xp.eye(n, dtype=dt), x.dtype)


# ------------------------------------------------------------------ matrix products
def _matmul_sig(input, other):
    _require_tensor("matmul", "other", other)
    _require_tensor("matmul", "input", input)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{input.dtype.name} != {other.dtype.name}")
    a, b = input._value.shape, other._value.shape  # (plain tuples: the common call checks at array speed)
    if not a or not b:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {len(a)}D and "
                           f"{len(b)}D")
    if a[-1] != b[-2 if len(b) > 1 else 0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_shape_str(input)} and {_shape_str(other)})")
    return (input, other), ()


def _ranked_sig(name, ranks, message):
    """A product of fixed ranks (mm: 2, 2; bmm: 3, 3; mv: 2, 1; dot: 1, 1) with PyTorch's checks."""
    def sig(input, other):
        _require_tensor(name, "input", input)
        _require_tensor(name, "other", other)
        for t, r, arg in zip((input, other), ranks, ("self", "mat2" if name != "mv" else "vec")):
            if t.ndim != r:
                raise RuntimeError(message(arg, t, input, other))
        if name == "bmm" and input.shape[0] != other.shape[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {input.shape[0]} and "
                               f"{other.shape[0]}")
        if name == "dot" and input.shape[0] != other.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                               f"[{other.shape[0]}] to have the same number of elements, but got "
                               f"{input.shape[0]} and {other.shape[0]} elements respectively")
        if name == "dot" and input.dtype is not other.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.scalar_name} "
                               f"and {other.dtype.scalar_name}")
        if name == "bmm" and input.shape[2] != other.shape[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{input.shape[0]}, {input.shape[2]}] but got: [{other.shape[0]}, {other.shape[1]}].")
        if name == "mv" and input.shape[1] != other.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x"
                               f"{input.shape[1]}), vec ({other.shape[0]})")
        return _matmul_sig(input, other)
    return sig


# PyTorch's matmul dispatches on the ranks (batched products end in a reshape: UnsafeViewBackward0)
_MATMUL_NODES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0", (1, 2): "SqueezeBackward4"}


def _mH(t):
    """The conjugate transpose: VJPs follow PyTorch's convention for complex tensors (the adjoint map)."""
    return conj(t).mT


def _as_matrices(ns, x, y):
    """Vectors as matrices, the way matmul reads them: x (n,) -> (1, n), y (n,) -> (n, 1)."""
    return (ns.unsqueeze(x, -2) if x.ndim == 1 else x), (ns.unsqueeze(y, -1) if y.ndim == 1 else y)


def _as_matrix_grad(ns, g, x, y):
    g = ns.unsqueeze(g, -1) if y.ndim == 1 else g
    return ns.unsqueeze(g, -2) if x.ndim == 1 else g


def _matmul_vjp_x(ns, g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * ns.conj(y)
    xm, ym = _as_matrices(ns, x, y)
    gx = ns.matmul(_as_matrix_grad(ns, g, x, y), ns.conj(ns.mT(ym)))
    return ns.squeeze(gx, -2) if x.ndim == 1 else gx


def _matmul_vjp_y(ns, g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * ns.conj(x)
    xm, ym = _as_matrices(ns, x, y)
    gy = ns.matmul(ns.conj(ns.mT(xm)), _as_matrix_grad(ns, g, x, y))
    return ns.squeeze(gy, -1) if y.ndim == 1 else gy


def _matmul_fwd(xp, x, y):
    return xp.matmul(x, y)


_MATMUL_VJPS = (_matmul_vjp_x, _matmul_vjp_y)
defop("matmul", _matmul_fwd, _MATMUL_VJPS, sig=_matmul_sig, api=True,
      out=True, operators=("__matmul__", "__rmatmul__"), names=lambda x, y: _MATMUL_NODES.get(
          (x.ndim, y.ndim), "UnsafeViewBackward0"), refuses="b", saves=(0, 1))
defop("mm", _matmul_fwd, _MATMUL_VJPS, out=True, sig=_ranked_sig(
    "mm", (2, 2), lambda arg, t, *pair: f"{arg} must be a matrix"), refuses="b", saves=(0, 1))
defop("bmm", _matmul_fwd, _MATMUL_VJPS, out=True, sig=_ranked_sig(
    "bmm", (3, 3), lambda arg, t, *pair: f"{'batch1' if arg == 'self' else 'batch2'} must be a 3D tensor"), refuses="b",
      saves=(0, 1))
defop("mv", _matmul_fwd, _MATMUL_VJPS, out=True, sig=_ranked_sig(
    "mv", (2, 1), lambda arg, t, *pair: f"vector + matrix @ vector expected, got 1, {2 if arg == 'vec' else t.ndim}, "
                                 f"{t.ndim if arg == 'vec' else 1}"), refuses="b", saves=(0, 1))
defop("dot", _matmul_fwd, _MATMUL_VJPS, out=True, sig=_ranked_sig(
    "dot", (1, 1), lambda arg, t, x, y: f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors"), refuses="b",
      saves=(0, 1))


def _vdot_fwd(xp, x, y):
    return xp.matmul(xp.conj(x), y) if x.dtype in (xp.complex64, xp.complex128) else xp.matmul(x, y)


defop("vdot", _vdot_fwd, (lambda ns, g, ans, x, y: ns.conj(g) * y, lambda ns, g, ans, x, y: g * x), out=True,
      sig=_ranked_sig("vdot", (1, 1),
                      lambda arg, t, x, y: f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors"),
      saves=((1,), (0,)))


# ``beta * input + alpha * (product)``: addmm, addbmm, addmv, baddbmm, addr. ``beta == 0`` ignores input
# (NaNs in it do not propagate), as in PyTorch.
def _scaled_sum(xp, c, p, beta, alpha):
    p = p if alpha == 1 else alpha * p
    return p if beta == 0 else (c + p if beta == 1 else beta * c + p)


def _scaled(v, k):
    """``v * k``; ``v`` itself for the usual ``k == 1`` (no product of the size of ``v``)."""
    return v if k == 1 else v * k


def _add_product(name, product, product_vjps, ranks, **facts):
    """Register ``name(input, a, b, *, beta=1, alpha=1)``: ``product(xp, a, b)`` scaled and added to ``input``;
    ``facts``: the entry's other keywords (see ``defop``)."""
    gx, gy = product_vjps

    def sig(input, mat1, mat2, *, beta=1, alpha=1):
        for t, r, arg in zip((mat1, mat2), ranks, ("mat1", "mat2")):
            _require_tensor(name, arg, t)
            if t.ndim != r:
                raise RuntimeError(f"{name}: {arg} must be a {r}D tensor, got {t.ndim}D")
        if name != "addr":
            _matmul_sig(mat1, mat2)
        _same_dtype(name, input, mat1, mat2)
        if mat1.dtype.kind in "biu":  # PyTorch truncates float scalars for integer tensors; addr refuses them
            if name == "addr" and (isinstance(beta, float) or isinstance(alpha, float)):
                raise RuntimeError("For integral input tensors, argument beta must not be a floating point number.")
            beta, alpha = int(beta), int(alpha)
        return (input, mat1, mat2), (beta, alpha)

    return defop(name, lambda xp, c, a, b, beta, alpha: _scaled_sum(xp, c, product(xp, a, b), beta, alpha),
                 (lambda ns, g, ans, c, a, b, beta, alpha: _scaled(g, beta),
                  lambda ns, g, ans, c, a, b, beta, alpha: _scaled(gx(ns, g, a, b), alpha),
                  lambda ns, g, ans, c, a, b, beta, alpha: _scaled(gy(ns, g, a, b), alpha)),
                 sig=sig, out=True, inplace=True, **facts)


_matmul_grads = (lambda ns, g, a, b: _matmul_vjp_x(ns, g, None, a, b),
                 lambda ns, g, a, b: _matmul_vjp_y(ns, g, None, a, b))
_add_product("addmm", _matmul_fwd, _matmul_grads, (2, 2), refuses="b", saves=((3,), (1, 2, 4), (1, 2, 4)))
_add_product("addmv", _matmul_fwd, _matmul_grads, (2, 1), refuses="b", torch_inplace=True,
             saves=((3,), (1, 2, 4), (1, 2, 4)))
_add_product("baddbmm", _matmul_fwd, _matmul_grads, (3, 3), refuses="b", saves=((3,), (1, 2, 4), (1, 2, 4)))
_add_product("addbmm", lambda xp, a, b: xp.sum(xp.matmul(a, b), axis=0),
             (lambda ns, g, a, b: ns.matmul(g, ns.conj(ns.mT(b))), lambda ns, g, a, b: ns.matmul(ns.conj(ns.mT(a)), g)),
             (3, 3), refuses="b", saves=((3,), (1, 2, 4), (1, 2, 4)))
_add_product("addr", lambda xp, a, b: a[:, None] * b[None, :],
             (lambda ns, g, a, b: ns.matmul(g, ns.conj(b)), lambda ns, g, a, b: ns.matmul(ns.mT(g), ns.conj(a))),
             (1, 1),
             saves=((3,), (1, 2, 4), (1, 2, 4)))


def outer(input, vec2):
    """``input[i] * vec2[j]``: a broadcast product (PyTorch's node is MulBackward0 too)."""
    _require_tensor("outer", "vec2", vec2)
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: expected 1D tensors, but got {input.ndim}D and {vec2.ndim}D tensors")
    return input.unsqueeze(-1) * vec2


defcomposite("outer", outer, aliases=("ger",))


# ------------------------------------------------------------------ cross
def _cross_axis(x, y, dim, name):
    if x.ndim != y.ndim:
        raise RuntimeError(f"{name}: inputs dimensions {x.ndim} and {y.ndim} do not match.")
    shape = _broadcast_shape(x.shape, y.shape, name)
    if dim is None:  # torch.cross's deprecated default: the first dimension of size 3
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError(f"{name}: no dimension of size 3 in input")
    dim = check_dim(dim, len(shape))
    if x.shape[dim] != 3 or y.shape[dim] != 3:
        raise RuntimeError(f"{name}: inputs dimension {dim} must have length 3. Got {x.shape[dim]} and {y.shape[dim]}")
    return dim % len(shape) - len(shape)  # negative: the standard's cross counts from the end


def _broadcast_shape(a, b, name):
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        m = a[-i] if i <= len(a) else 1
        n = b[-i] if i <= len(b) else 1
        if m != n and m != 1 and n != 1:
            raise RuntimeError(f"{name}: the size of tensor a ({m}) must match the size of tensor b ({n}) at "
                               f"non-singleton dimension {max(len(a), len(b)) - i}")
        out.append(max(m, n) if m and n else 0)
    return tuple(reversed(out))


def _cross_fwd(xp, x, y, axis):
    return xp.linalg.cross(x, y, axis=axis)


def _cross_op(x, y, dim):
    return apply(TABLE["linalg_cross"].op, (x, y), (dim,))


defop("linalg_cross", _cross_fwd,
      (lambda ns, g, ans, x, y, dim: _cross_op(y, g, dim), lambda ns, g, ans, x, y, dim: _cross_op(g, x, dim)),
      node="LinalgCrossBackward0", function=False, method=False, saves=((1, 2), (0, 2)), raw=False)


def cross(input, other, dim=None):
    """``torch.cross``: ``dim=None`` picks the first dimension of size 3 (PyTorch's deprecated default)."""
    _require_tensor("cross", "other", other)
    _same_dtype("linalg.cross", input, other)
    return _cross_op(input, other, _cross_axis(input, other, dim, "linalg.cross"))


defcomposite("cross", cross)


# ------------------------------------------------------------------ diagonals and triangles
def _diag_length(rows, cols, offset):
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def _pad_last(t, n):
    """``t`` with zeros appended along its last dim up to length ``n``."""
    missing = n - t.shape[-1]
    if missing <= 0:
        return t
    from .. import _variants
    return _variants.torch_functions["cat"]([t, t.new_zeros((*t.shape[:-1], missing))], -1)


def _diagonal_grad(ns, g, shape, offset):
    """The gradient of a diagonal taken from matrices of ``shape``: ``g`` back on that diagonal, zeros elsewhere."""
    rows, cols = shape[-2:]
    if offset >= 0:  # diagonal position = row index
        spread = _pad_last(g, rows).unsqueeze(-1).expand(*g.shape[:-1], rows, cols)
    else:  # = column index
        spread = _pad_last(g, cols).unsqueeze(-2).expand(*g.shape[:-1], rows, cols)
    return ns.where_zero(_band(g, rows, cols, offset, None), spread)


def _diagonal_copy(x, offset):
    return apply(TABLE["_diagonal_copy"].op, (x,), (offset,))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Vectors (last dim) as diagonals of new square matrices; ``dim1``/``dim2`` other than the last two are
    not supported."""
    if (dim1 % (input.ndim + 1), dim2 % (input.ndim + 1)) != (input.ndim - 1, input.ndim):
        raise NotImplementedError("diag_embed: only dim1=-2, dim2=-1 are supported")
    return apply(TABLE["_diag_embed"].op, (input,), (offset,))


def _embed_fwd(xp, v, offset):
    n = v.shape[-1] + abs(offset)
    pad = xp.zeros((*v.shape[:-1], abs(offset)), dtype=v.dtype)
    padded = xp.concat([v, pad], axis=-1)
    spread = padded[..., :, None] if offset >= 0 else padded[..., None, :]
    d = xp.arange(n)[None, :] - xp.arange(n)[:, None]
    return xp.where(d == offset, spread, xp.zeros((), dtype=v.dtype))


defop("_diagonal_copy", lambda xp, x, offset: xp.asarray(xp.linalg.diagonal(x, offset=offset), copy=True),  # numpy's is a view
      (lambda ns, g, ans, x, offset: _diagonal_grad(ns, g, x.shape, offset),), saves=("meta0",), function=False, method=False,
      node="DiagonalBackward0_copy", raw=False)
defop("_diag_embed", _embed_fwd, (lambda ns, g, ans, x, offset: _diagonal_copy(g, offset),), saves=(),
      node="DiagEmbedBackward0", function=False, method=False, raw=False)
defcomposite("diag_embed", diag_embed)


def diag(input, diagonal=0):
    """A vector's diagonal matrix, or a matrix's diagonal (as a copy)."""
    if input.ndim == 1:
        return apply(TABLE["_diag_embed"].op, (input,), (diagonal,))
    if input.ndim == 2:
        return _diagonal_copy(input, diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


defcomposite("diag", diag, out=True)


def _trace_sig(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return (input,), ()


defop("trace", lambda xp, x: xp.sum(xp.linalg.diagonal(x), dtype=xp.int64 if x.dtype in (
    xp.int8, xp.int16, xp.int32, xp.uint8, xp.bool) else None),
      (lambda ns, g, ans, x: _diagonal_grad(ns, g.expand(_diag_length(*x.shape, 0)), x.shape, 0),),
      sig=_trace_sig, saves=("meta0",), raw=False)


def _triangle(name, above):
    def fwd(xp, x, k):
        rows, cols = x.shape[-2:]
        d = xp.arange(cols)[None, :] - xp.arange(rows)[:, None]
        return xp.where(d >= k if above else d <= k, x, xp.zeros((), dtype=x.dtype))

    def sig(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return (input,), (diagonal,)

    defop(name, fwd, (lambda ns, g, ans, x, k: getattr(ns, name)(g, k),), sig=sig, saves=(), inplace=True, out=True,
          api_sig=lambda x, /, *, k=0: sig(x, k), api=True)


_triangle("triu", True)
_triangle("tril", False)


# ------------------------------------------------------------------ tensordot, einsum, kron
def _tensordot_axes(a, b, dims):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    if hasattr(dims, "tolist"):
        dims = dims.tolist()
    da, db = dims
    da = [da] if isinstance(da, int) else list(da)
    db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError(f"both dimension lists should have same length, got {len(da)} and {len(db)}")
    return [dims_of(d, a.ndim)[0] for d in da], [dims_of(d, b.ndim)[0] for d in db]


def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` (a count: a's last with b's first; or two lists) as one matrix product."""
    da, db = _tensordot_axes(a, b, dims)
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[i]} in dim {i} "
                               f"and second has size {b.shape[j]} in dim {j}")
    free_a = [i for i in range(a.ndim) if i not in da]
    free_b = [j for j in range(b.ndim) if j not in db]
    k = math.prod(a.shape[i] for i in da)
    am = a.permute(*free_a, *da).reshape(math.prod(a.shape[i] for i in free_a), k)
    bm = b.permute(*db, *free_b).reshape(k, math.prod(b.shape[j] for j in free_b))
    if a.dtype is not b.dtype:
        common = _dtypes.result_type(a, b)
        am, bm = am.to(common), bm.to(common)
    return (am @ bm).reshape(*(a.shape[i] for i in free_a), *(b.shape[j] for j in free_b))


defcomposite("tensordot", tensordot, api=True, method=False,
             api_impl=lambda x1, x2, /, *, axes=2: tensordot(x1, x2, axes))


def _einsum_parse(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum(): more operands were provided than specified in the equation"
                         if len(operands) > len(terms) else
                         "einsum(): fewer operands were provided than specified in the equation")
    ell_rank = 0
    for term, t in zip(terms, operands):
        if "..." in term:
            ell_rank = max(ell_rank, t.ndim - (len(term) - 3))
    ell = [chr(0x100 + i) for i in range(ell_rank)]  # labels for the dims under '...'
    labelled = []
    for term, t in zip(terms, operands):
        if "..." in term:
            head, tail = term.split("...")
            n = t.ndim - len(head) - len(tail)
            labels = list(head) + ell[ell_rank - n:] + list(tail)
        else:
            labels = list(term)
        if len(labels) != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not match "
                               f"the number of dimensions ({t.ndim}) for operand {len(labelled)}"
                               f"{'' if '...' in term else ' and no ellipsis was given'}")
        labelled.append(labels)
    if arrow and "..." in rhs:
        head, tail = rhs.split("...")
        out = list(head) + ell + list(tail)
    elif arrow:
        out = list(rhs)
    else:  # implicit output: the ellipsis dims, then the labels seen once, sorted
        counts = collections.Counter(lhs.replace("...", "").replace(",", ""))
        out = ell + sorted(c for c, n in counts.items() if n == 1)
    return labelled, out


def _einsum_prepare(t, labels):
    """Take repeated labels' diagonals and sum labels to drop; returns (tensor, labels), labels unique."""
    while len(set(labels)) != len(labels):
        c = next(c for c in labels if labels.count(c) > 1)
        i = labels.index(c)
        j = labels.index(c, i + 1)
        t = _diagonal_of(t, i, j)
        labels = [lab for k, lab in enumerate(labels) if k not in (i, j)] + [c]
    return t, labels


def _diagonal_of(t, i, j):
    order = [k for k in range(t.ndim) if k not in (i, j)] + [i, j]
    return _diagonal_copy(t.permute(*order), 0)


def einsum(equation, *operands):
    """Einstein summation as pairwise contractions (each one matrix product), left to right."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    labelled, out = _einsum_parse(equation, operands)
    terms = [_einsum_prepare(t, labels) for t, labels in zip(operands, labelled)]
    t, labels = terms[0]
    for k in range(1, len(terms)):
        u, ulabels = terms[k]
        later = set(out).union(*(set(lab) for _, lab in terms[k + 1:]))
        t, labels = _contract(t, labels, u, ulabels, later)
    keep = set(out)
    drop = [i for i, c in enumerate(labels) if c not in keep]
    if drop:
        t = t.sum(tuple(drop))
        labels = [c for c in labels if c in keep]
    for c in out:
        if c not in labels:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
    return t.permute(*[labels.index(c) for c in out]) if t.ndim else t


def _contract(a, la, b, lb, later):
    """``a`` (labels ``la``) times ``b``, summing the shared labels not needed ``later``, as one bmm."""
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in later]
    summed = [c for c in shared if c not in later]
    only_a = [c for c in la if c not in lb]
    only_b = [c for c in lb if c not in la]
    sizes = dict(zip(la, a.shape))
    for c, n in zip(lb, b.shape):
        if sizes.get(c, 1) == 1:
            sizes[c] = n
    for c in shared:
        if a.shape[la.index(c)] != b.shape[lb.index(c)] and 1 not in (a.shape[la.index(c)], b.shape[lb.index(c)]):
            raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                               f"{list(a.shape)} and {list(b.shape)}")
    am = a.permute(*[la.index(c) for c in batch + only_a + summed])
    bm = b.permute(*[lb.index(c) for c in batch + summed + only_b])
    am = am.expand(*[sizes[c] for c in batch], *am.shape[len(batch):]) if batch else am
    bm = bm.expand(*[sizes[c] for c in batch], *bm.shape[len(batch):]) if batch else bm
    nb = [sizes[c] for c in batch]
    na, ns, nbb = (math.prod(sizes[c] for c in g) for g in (only_a, summed, only_b))
    am = am.expand(*nb, *[sizes[c] for c in only_a + summed]).reshape(*nb, na, ns)
    bm = bm.expand(*nb, *[sizes[c] for c in summed + only_b]).reshape(*nb, ns, nbb)
    if a.dtype is not b.dtype:
        common = _dtypes.result_type(a, b)
        am, bm = am.to(common), bm.to(common)
    r = (am @ bm).reshape(*nb, *[sizes[c] for c in only_a + only_b])
    return r, batch + only_a + only_b


defcomposite("einsum", einsum, method=False)


def kron(input, other):
    """Kronecker product: every element of ``input`` times all of ``other``, laid out block by block. As PyTorch
    (``_unsafe_view``s of the inputs), the product keeps reshaped copies, not the inputs: writing into an input
    afterwards does not stop the backward."""
    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + tuple(input.shape)
    sb = (1,) * (n - other.ndim) + tuple(other.shape)
    reshaped = TABLE["_reshape_copy"].op
    a = apply(reshaped, (input,), (tuple(s for d in sa for s in (d, 1)),))
    b = apply(reshaped, (other,), (tuple(s for d in sb for s in (1, d)),))
    return (a * b).reshape(*[p * q for p, q in zip(sa, sb)])


defcomposite("kron", kron, out=True)


# ------------------------------------------------------------------ decompositions (real VJPs)
def _inv(x):
    return apply(TABLE["linalg_inv"].op, (x,))


def _sym(a):
    return (a + a.mT) * 0.5


def _adjoint(ns, a):
    """``_mH`` against a namespace (``_ns``)."""
    return ns.conj(ns.mT(a))


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


def _real_only(name, x):
    """Decompositions whose complex VJPs (gauge terms of the phases) are not written: refuse, not guess."""
    if x.dtype.kind == "c":
        raise NotImplementedError(f"{name}: gradients for complex inputs are not supported yet")


def _svd_vjp(ns, g, ans, x, full_matrices):
    _real_only("linalg.svd", x)
    gU, gS, gVh = g
    U, S, Vh = ans
    m, n = x.shape[-2:]
    k = min(m, n)
    if full_matrices:
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :k]
        gVh = None if gVh is None else gVh[..., :k, :]
    if gU is None and gVh is None:
        return (U * gS.unsqueeze(-2)) @ Vh
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = E.where(~_band(E, k, k, 0, None), E.new_ones(()))
    inner = x.new_zeros((*x.shape[:-2], k, k))
    if gU is not None:
        UhgU = U.mT @ gU
        inner = inner + (UhgU - UhgU.mT) * S.unsqueeze(-2)
    if gVh is not None:
        VhgV = Vh @ gVh.mT
        inner = inner + S.unsqueeze(-1) * (VhgV - VhgV.mT)
    inner = inner / E
    if gS is not None:
        inner = inner + diag_embed(gS)
    if m > k and gU is not None:
        gUSinv = gU / S.unsqueeze(-2)
        return (U @ inner + gUSinv - U @ (U.mT @ gUSinv)) @ Vh
    if n > k and gVh is not None:
        SinvgVh = gVh / S.unsqueeze(-1)
        return U @ (inner @ Vh + SinvgVh - (SinvgVh @ Vh.mT) @ Vh)
    return U @ inner @ Vh


defop("linalg_svd", _svd_fwd, (_svd_vjp,), nout=3, node="LinalgSvdBackward0", function=False, method=False,
      saves=("result", "meta0"), raw=False)  # U, S, Vh (the VJP reads the input's shape only), as PyTorch


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
    _real_only("linalg.eigh", x)
    gL, gV = g
    L, V = ans
    if gV is None:
        return (V * gL.unsqueeze(-2)) @ V.mT
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = E.where(~_band(E, L.shape[-1], L.shape[-1], 0, None), E.new_ones(()))
    VhgV = V.mT @ gV
    inner = (VhgV - VhgV.mT) * 0.5
    if gL is not None:
        inner = inner + diag_embed(gL)
    return V @ (inner / E) @ V.mT


defop("linalg_eigh", _eigh_fwd, (_eigh_vjp,), nout=2, node="LinalgEighBackward0", function=False, method=False,
      saves=("result", "meta0"), raw=False)


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
    inner = V.new_zeros(V.shape)
    if gV is not None:
        VhgV = _mH(V) @ gV
        VhgV = VhgV - _mH(V) @ (V * as_complex(real(_diagonal_copy(VhgV, 0))).unsqueeze(-2))
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        inner = VhgV / conj(E + _eye_like(E))  # E's diagonal is exactly 0: 1 there
    if gL is not None:  # the diagonal is gL's
        inner = inner - diag_embed(_diagonal_copy(inner, 0)) + diag_embed(gL)
    gA = apply(TABLE["linalg_solve"].op, (_mH(V), inner @ _mH(V)), (False,))
    return gA if x.dtype.kind == "c" else real(gA)


def _eig_fwd(xp, x):
    complex_dtype = xp.complex64 if x.dtype in (xp.float32, xp.complex64) else xp.complex128
    w, v = xp.linalg.eig(x)
    return xp.astype(w, complex_dtype), xp.astype(v, complex_dtype)


defop("linalg_eig", _eig_fwd, (_eig_vjp,), nout=2, node="LinalgEigBackward0", function=False, method=False,
      saves=(0, "result"), raw=False)


def eig(A):
    """Eigenvalues and (unit) eigenvectors of square matrices, as complex tensors."""
    check_matrix("linalg.eig", A, square=True)
    return EigResult(*apply(TABLE["linalg_eig"].op, (A,)))


# QR: TensorFlow's QrGrad (real; square and tall matrices, wide ones through their square left block)
def _qr_fwd(xp, x, mode):
    q, r = xp.linalg.qr(x, mode="reduced" if mode == "r" else mode)
    return q, r


def _qr_grad_tall(Q, R, gQ, gR):
    qdq = Q.mT @ gQ
    rdr = R @ gR.mT
    Rinv_T = _inv(R).mT
    return Q @ (gR + (qdq - qdq.mT + rdr - rdr.mT).tril() @ Rinv_T) + (gQ - Q @ qdq) @ Rinv_T


def _qr_vjp(ns, g, ans, x, mode):
    _real_only("linalg.qr", x)
    gQ, gR = g
    Q, R = ans
    m, n = x.shape[-2:]
    if mode == "complete" and m > n or mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r', and is "
                           "not defined when mode='complete' and nrows > ncols.")
    gQ = Q.new_zeros(Q.shape) if gQ is None else gQ
    gR = R.new_zeros(R.shape) if gR is None else gR
    if m >= n:
        return _qr_grad_tall(Q, R, gQ, gR)
    from .. import _variants
    y, u, dv = Q @ R[..., m:], R[..., :m], gR[..., m:]  # x's right block, from the saved Q, R as PyTorch
    dx = _qr_grad_tall(Q, u, gQ + y @ dv.mT, gR[..., :m])
    return _variants.torch_functions["cat"]([dx, Q @ dv], -1)


defop("linalg_qr", _qr_fwd, (_qr_vjp,), nout=2, node="LinalgQrBackward0", function=False, method=False,
      saves=("result", "meta0"), raw=False)


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
    _real_only("linalg.cholesky", x)
    L, gL = (ans.mT, g.mT) if upper else (ans, g)
    phi = (L.mT @ gL).tril()
    phi = phi - diag_embed(_diagonal_copy(phi, 0)) * 0.5
    Linv = _inv(L)
    return _sym(Linv.mT @ phi @ Linv)


def _cholesky_fwd(xp, x, upper):
    L = xp.linalg.cholesky(_hermitian_from(xp, x, "L"))
    return xp.matrix_transpose(L) if upper else L


for _name, _node in (("linalg_cholesky", "LinalgCholeskyExBackward0"), ("_torch_cholesky", "CholeskyBackward0")):
    defop(_name, _cholesky_fwd, (_cholesky_vjp,), node=_node, function=False, method=False,
          saves=("result", "meta0"), raw=False)


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


defop("linalg_solve", _solve_fwd,
      (lambda ns, g, ans, a, b, vector: -(_solve_op(_mH(a), g, vector).unsqueeze(-1) * conj(ans).unsqueeze(-2))
       if vector else -(_solve_op(_mH(a), g, vector) @ _mH(ans)),
       lambda ns, g, ans, a, b, vector: _solve_op(_mH(a), g, vector)),
      node="LinalgSolveExBackward0", function=False, method=False, saves=((0, 2, "result"), (0, 2)), raw=False)


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
    pinvAh = _mH(ans)
    gh = _mH(g)
    if m <= n:
        K = gh @ ans
        KpinvAh = K @ pinvAh
        return -_mH(ans @ K) + KpinvAh - (A @ ans) @ KpinvAh + (pinvAh @ ans) @ (gh - K @ A)
    K = ans @ gh
    pinvAhK = pinvAh @ K
    return -_mH(K @ ans) + (gh - A @ K) @ ans @ pinvAh + pinvAhK - pinvAhK @ ans @ A


defop("linalg_pinv", lambda xp, x, rtol: xp.linalg.pinv(x, rtol=rtol), (_pinv_vjp,), node="LinalgPinvBackward0",
      function=False, method=False, saves=(0, "result"), raw=False)


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
    P = apply(TABLE["linalg_pinv"].op, (A,), (rtol,))
    return _pinv_vjp(ns, g @ _mH(B), P, A, rtol)


defop("_lstsq_solution", lambda xp, A, B, rtol: xp.linalg.pinv(A, rtol=rtol) @ B,
      (_lstsq_vjp_a, lambda ns, g, ans, A, B, rtol: _mH(apply(TABLE["linalg_pinv"].op, (A,), (rtol,))) @ g),
      node="LinalgLstsqBackward0", function=False, method=False, saves=(0, 1, "result"), raw=False)


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
    from .. import _variants
    return _variants.torch_functions["maximum"](a, b.unsqueeze(-1) if b.ndim else b)


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


# ------------------------------------------------------------------ complex parts (for complex linalg and the fft VJPs)
def _real_fwd(xp, x):
    return xp.real(x) if x.dtype in (xp.complex64, xp.complex128) else x


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _complex_dtype(xp, x):
    return xp.complex64 if x.dtype == xp.float32 else xp.complex128


defop("_complex_real", _real_fwd, (lambda ns, g, ans, x: as_complex(g) if x.dtype.kind == "c" else g,), saves=("meta0",),
      node="RealBackward0", function=False, method=False, raw=False)
defop("_complex_imag", lambda xp, x: xp.imag(x), (lambda ns, g, ans, x: _times_i(g),), saves=(),
      node="ImagBackward0", function=False, method=False, raw=False)
# i * x for real x: the imag VJP as an op of its own, whose VJP (Im g) needs no complex multiplication
defop("_times_i", lambda xp, x: xp.astype(x, _complex_dtype(xp, x)) * 1j, (lambda ns, g, ans, x: imag(g),), saves=(),
      node="MulBackward0", function=False, method=False, raw=False)
defop("_complex_conj", lambda xp, x: xp.conj(x), (lambda ns, g, ans, x: conj(g),), saves=(),
      node="ConjBackward0", function=False, method=False, raw=False)
defop("_as_complex", lambda xp, x: xp.astype(x, _complex_dtype(xp, x)), (lambda ns, g, ans, x: real(g),), saves=(),
      node="ToCopyBackward0", function=False, method=False, raw=False)


def real(x):
    """The real part (a real tensor's own values)."""
    return apply(TABLE["_complex_real"].op, (x,))


def imag(x):
    return apply(TABLE["_complex_imag"].op, (x,))


def _times_i(x):
    return apply(TABLE["_times_i"].op, (x,))


def conj(x):
    return apply(TABLE["_complex_conj"].op, (x,)) if x.dtype.kind == "c" else x


def as_complex(x):
    """A real float tensor as complex (float32 -> complex64, float64 -> complex128)."""
    return x if x.dtype.kind == "c" else apply(TABLE["_as_complex"].op, (x if x.dtype.kind == "f" else x.float(),))


# ------------------------------------------------------------------ inner, renorm, cdist
def inner(input, other):
    """The sum over the last dims of the outer product (``input @ other.T`` for matrices); scalars multiply."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return _fn("tensordot")(input, other, ([-1], [-1]))


defcomposite("inner", inner, out=True)


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


# ------------------------------------------------------------------ triangular solves, matrix functions, Householder
def _eye(A, n=None):
    from .._creation import eye
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
    from .._variants import assign_out
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


def cond(A, p=None, *, out=None):
    """The condition number in norm ``p``: the singular-value ratio for None/2/-2, else
    ``norm(A, p) * norm(inv(A), p)``."""
    if p in (None, 2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return (big / small) if p != -2 else (small / big)
    return matrix_norm(A, p) * matrix_norm(inverse(A), p)


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
    from .._creation import tensor
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
    from .._creation import tensor
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


geqrf_result = collections.namedtuple("geqrf", ["a", "tau"])
geqrf_result.__module__ = "xtensor.return_types"


def geqrf(input):
    """LAPACK's Householder QR, ``(a, tau)``: R on and above the diagonal of ``a``, the reflectors' vectors
    below it (``householder_product(a, tau)`` is Q). Computed on the host, as LAPACK's ``geqrf`` in PyTorch
    (which has no gradient for it either)."""
    from .._creation import tensor
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
    from .._creation import randn
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
