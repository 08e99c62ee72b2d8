"""Matrix products, cross, diagonals and triangles, tensordot, einsum, kron and inner."""
import collections
import math

import numpy as np

from ... import _dtypes
from ..._dispatch import apply
from ..._table import TABLE, defcomposite, defop, dims_of
from ..._tensor import check_dim
from .._composite import _fn
from ..elementwise import api_promoted
from ._common import _require_tensor, _same_dtype, _shape_str, conj


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
    gx = ns.matmul(_as_matrix_grad(ns, g, x, y), ns.conj(ns.mT(ym)), like=x)
    return ns.squeeze(gx, -2) if x.ndim == 1 else gx


def _matmul_vjp_y(ns, g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * ns.conj(x)
    xm, ym = _as_matrices(ns, x, y)
    gy = ns.matmul(ns.conj(ns.mT(xm)), _as_matrix_grad(ns, g, x, y), like=y)
    return ns.squeeze(gy, -1) if y.ndim == 1 else gy


def _matmul_fwd(xp, x, y):
    return xp.matmul(x, y)


_MATMUL_VJPS = (_matmul_vjp_x, _matmul_vjp_y)
defop("matmul", _matmul_fwd, _MATMUL_VJPS, sig=_matmul_sig, api=True,  # (the standard's promotes, PyTorch's refuses)
      api_sig=lambda x1, x2, /: _matmul_sig(*api_promoted(x1, x2)),
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
    if beta == 1 and type(p) is np.ndarray and type(c) is np.ndarray and c.dtype == p.dtype and \
            c.ndim <= p.ndim and c.shape == p.shape[p.ndim - c.ndim:]:  # numpy: into the fresh product (a bias row)
        return np.add(c, p, out=p)
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
      (lambda ns, g, ans, x, y, dim: ns.apply("linalg_cross", (y, g), (dim,)),
       lambda ns, g, ans, x, y, dim: ns.apply("linalg_cross", (g, x), (dim,))),
      node="LinalgCrossBackward0", function=False, method=False, saves=((1, 2), (0, 2)))


def cross(input, other, dim=None):
    """``torch.cross``: ``dim=None`` picks the first dimension of size 3 (PyTorch's deprecated default)."""
    _require_tensor("cross", "other", other)
    _same_dtype("linalg.cross", input, other)
    return _cross_op(input, other, _cross_axis(input, other, dim, "linalg.cross"))


defcomposite("cross", cross)


# ------------------------------------------------------------------ diagonals and triangles
def _diag_length(rows, cols, offset):
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def _diagonal_grad(ns, g, shape, offset):
    """The gradient of a diagonal taken from matrices of ``shape``: ``g`` back on that diagonal, zeros elsewhere."""
    rows, cols = shape[-2:]
    n = rows if offset >= 0 else cols  # a diagonal element's place along it: its row index, or else its column index
    if g.shape[-1] < n:
        g = ns.apply("constant_pad_nd", (g,), ((0, n - g.shape[-1]), 0))
    spread = ns.expand(ns.unsqueeze(g, -1 if offset >= 0 else -2), (*g.shape[:-1], rows, cols))
    col, row = spread.ndim - 1, spread.ndim - 2
    return ns.where_zero(ns.arange_along(spread, col) - ns.arange_along(spread, row) == offset, spread)


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
      node="DiagonalBackward0_copy")
defop("_diag_embed", _embed_fwd, (lambda ns, g, ans, x, offset: ns.apply("_diagonal_copy", (g,), (offset,)),), saves=(),
      node="DiagEmbedBackward0", function=False, method=False)
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
      (lambda ns, g, ans, x: _diagonal_grad(ns, ns.expand(g, (_diag_length(*x.shape, 0),)), x.shape, 0),),
      sig=_trace_sig, saves=("meta0",))


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
