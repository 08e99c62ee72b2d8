"""More of PyTorch's functions (issue 11 item 9), each a composite of other entries, so it gets its
gradient, every spelling (function, method, ``_`` in-place, ``out=``) and every backend for free.

Grouped as the other categories are: elementwise math, statistics, shapes and views, linear algebra.
Each is checked against PyTorch in ``tests/test_api_additions.py``. Where PyTorch's kernel is not
differentiable (``heaviside``, ``gcd``, ``histc``...) neither is the composite's integer or counting
result.
"""
import builtins
import collections
import itertools
import math

import numpy as np

from .. import _dtypes
from .._dispatch import apply
from .._table import TABLE, defcomposite, defop, dims_of
from .._tensor import Size, Tensor
from .linalg import vector_norm


def _fn(name):
    from .._variants import torch_functions
    return torch_functions[name]


def _float(x):
    """``x`` in a float dtype (PyTorch's int -> default float rule for float-valued functions)."""
    return x if x.dtype.kind in "fc" else x.to(_dtypes.get_default_dtype())


def _as_tensor_like(value, like):
    return value if isinstance(value, Tensor) else like.new_full((), value)


# ------------------------------------------------------------------ elementwise math
def deg2rad(input):
    return _float(input) * (math.pi / 180)


def rad2deg(input):
    return _float(input) * (180 / math.pi)


defcomposite("deg2rad", deg2rad, inplace=True, out=True, torch_inplace=True)
defcomposite("rad2deg", rad2deg, inplace=True, out=True, torch_inplace=True)


def sgn(input):
    """``sign`` for real tensors; ``x / |x|`` (0 at 0) for complex ones."""
    if input.dtype.kind != "c":
        return input.sign()
    r = input.abs()
    return (input / r.where(r != 0, 1)).where(r != 0, 0)


defcomposite("sgn", sgn, inplace=True, out=True)


def angle(input):
    """The argument: ``atan2(imag, real)`` for complex, ``pi`` for negative reals and 0 otherwise (NaN stays)."""
    if input.dtype.kind == "c":
        return _fn("atan2")(_fn("imag")(input), _fn("real")(input))
    x = _float(input)
    return x.where(x.isnan(), x.new_full((), math.pi).where(x < 0, 0.0))


defcomposite("angle", angle, out=True)


def conj_physical(input):
    return input.conj() if input.dtype.kind == "c" else input.clone()


defcomposite("conj_physical", conj_physical, inplace=True, out=True)


def logaddexp2(input, other):
    """``log2(2**x + 2**y)``, through the stable ``logaddexp``."""
    ln2 = math.log(2)
    return _fn("logaddexp")(_float(input) * ln2, _as_tensor_like(other, input) * ln2) / ln2


defcomposite("logaddexp2", logaddexp2, out=True)


def float_power(input, exponent):
    """``pow`` computed in double precision (complex128 when either operand is complex)."""
    wide = _dtypes.complex128 if any(isinstance(v, complex) or (isinstance(v, Tensor) and v.dtype.kind == "c")
                                     for v in (input, exponent)) else _dtypes.float64
    base = input.to(wide) if isinstance(input, Tensor) else exponent.new_full((), input, dtype=wide)
    return base.pow(exponent.to(wide) if isinstance(exponent, Tensor) else exponent)


defcomposite("float_power", float_power, out=True)


def ldexp(input, other):
    """``input * 2**other``."""
    return _float(input) * _fn("pow")(2.0, other).to(_float(input).dtype) if isinstance(other, Tensor) else \
        _float(input) * 2.0 ** other


defcomposite("ldexp", ldexp, inplace=True, out=True, torch_inplace=True)


def _check_integers(name, *tensors):
    for t in tensors:
        if t.dtype.kind not in "iu":
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{t.dtype.scalar_name}\'')


def _gcd(xp, a, b):
    """Euclid's algorithm, a fixed number of steps (enough for the dtype: no data-dependent loop)."""
    a, b = xp.abs(a), xp.abs(b)
    a, b = xp.broadcast_arrays(a, b)
    zero = xp.zeros_like(b)
    one = xp.ones_like(b)
    for _ in range(int(xp.iinfo(a.dtype).bits * 1.45) + 2):  # Fibonacci worst case: log_phi(2**bits) steps
        nz = b != 0
        a, b = xp.where(nz, b, a), xp.where(nz, a % xp.where(nz, b, one), zero)
    return a


defop("_gcd", _gcd, differentiable=False, function=False, method=False)


def gcd(input, other):
    """The greatest common divisor (non-negative; ``gcd(0, 0) = 0``)."""
    _check_integers("gcd", input, other)
    return apply(TABLE["_gcd"].op, (input, other))


def lcm(input, other):
    """The least common multiple, ``|a / gcd(a, b) * b|`` (0 when either is 0)."""
    _check_integers("lcm", input, other)
    g = gcd(input, other)
    return (_fn("floor_divide")(input, g.where(g != 0, 1)) * other).abs().where(g != 0, 0)


defcomposite("gcd", gcd, inplace=True, out=True, torch_inplace=True)
defcomposite("lcm", lcm, inplace=True, out=True, torch_inplace=True)


def heaviside(input, values):
    """0 for negative, 1 for positive, ``values`` at 0 (PyTorch has no gradient for it: neither does this)."""
    if isinstance(values, Tensor) and values.dtype is not input.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes")
    with _no_grad():
        return (input > 0).to(input.dtype).where(input != 0, values)


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


defcomposite("heaviside", heaviside, inplace=True, out=True)


def isreal(input):
    """True where the imaginary part is 0 (everywhere, for real tensors)."""
    if input.dtype.kind == "c":
        return _fn("imag")(input) == 0
    return input.new_ones(input.shape, dtype=_dtypes.bool)


defcomposite("isreal", isreal)


def logcumsumexp(input, dim):
    """``log(cumsum(exp(x)))`` along ``dim``, shifted by the running maximum's upper bound for stability."""
    d = dims_of(dim, input.ndim)[0] if input.ndim else 0
    x = _float(input)
    if x.numel() == 0:
        return x.clone()
    top = x.detach().amax(d, keepdim=True) if x.ndim else x.detach()
    top = top.where(top.isfinite(), 0.0)
    return (x - top).exp().cumsum(d).log() + top


defcomposite("logcumsumexp", logcumsumexp, out=True)


# ------------------------------------------------------------------ statistics
aminmax_result = collections.namedtuple("aminmax", ["min", "max"])
aminmax_result.__module__ = "xtensor.return_types"


def aminmax(input, *, dim=None, keepdim=False):
    """``(amin, amax)`` over ``dim`` (all dims when None)."""
    if dim is None:
        if keepdim:
            return aminmax_result(input.amin().reshape((1,) * input.ndim), input.amax().reshape((1,) * input.ndim))
        return aminmax_result(input.amin(), input.amax())
    return aminmax_result(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


defcomposite("aminmax", aminmax)

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if input.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    qs = input.new_full((), q) if scalar_q else q.to(input.dtype)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if bool(((qs < 0) | (qs > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = dims_of(dim, input.ndim)[0] if input.ndim else 0
        x = input if input.ndim else input.reshape(1)
    x = x.movedim(d, -1)
    values = x.sort(-1).values  # NaN sorts last
    n = x.shape[-1]
    nan = x.isnan()
    count = (~nan).sum(-1, keepdim=True) if ignore_nan else x.new_full(x.shape[:-1] + (1,), n, dtype=_dtypes.int64)
    qv = qs.reshape(-1)
    pos = qv * (count - 1).to(x.dtype)  # (..., len(q))
    if interpolation == "lower":
        pos = pos.floor()
    elif interpolation == "higher":
        pos = pos.ceil()
    elif interpolation == "nearest":
        pos = pos.round()
    lo = pos.floor().clamp(0, max(n - 1, 0)).long()
    hi = pos.ceil().clamp(0, max(n - 1, 0)).long()
    below, above = values.gather(-1, lo), values.gather(-1, hi)
    if interpolation == "midpoint":
        out = below + (above - below) * 0.5 * (hi != lo)
    else:
        out = below + (above - below) * (pos - lo.to(x.dtype))
    bad = (count == 0) if ignore_nan else nan.any(-1, keepdim=True)
    out = out.where(~bad, math.nan)
    out = out.movedim(-1, 0)  # (len(q), ...)
    if keepdim:
        if dim is None:
            out = out.reshape((out.shape[0],) + (1,) * input.ndim)
        elif input.ndim:
            out = out.unsqueeze(d + 1)
    return out[0] if scalar_q or qs.ndim == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles along ``dim`` (all elements when None); NaN where a slice holds NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` ignoring NaN (NaN where a slice holds only NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


defcomposite("quantile", quantile, out=True)
defcomposite("nanquantile", nanquantile, out=True)


def histc(input, bins=100, min=0, max=0):
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0); elements outside are
    left out, the maximum falls in the last bin. Float counts in the input's dtype, as PyTorch."""
    if input.dtype.kind != "f":
        raise RuntimeError(f'"histogram_cpu" not implemented for \'{input.dtype.scalar_name}\'')
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bins")
    x = input.detach().reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, but got min {lo} max {hi}")
    inside = (x >= lo) & (x <= hi)
    index = ((x - lo) * (bins / (hi - lo))).floor().clamp(0, bins - 1).long().where(inside, bins)
    counts = x.new_zeros(bins + 1).scatter_add(0, index, x.new_ones(x.shape))
    return counts[:bins]


defcomposite("histc", histc, out=True)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the columns)."""
    if input.ndim > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.ndim} dimensions")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    x = _float(x)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = x.new_full((), n)
        avg = x.mean(1, keepdim=True)
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1, keepdim=True) / w_sum
    if w is None or aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    norm = norm.clamp(min=0)
    centred = x - avg
    c = (centred * w if w is not None else centred) @ centred.conj().mT / norm
    return c.reshape(()) if input.ndim < 2 else c


def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows (clipped to [-1, 1])."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = _fn("real")(d).sqrt() if d.dtype.kind == "c" else d.sqrt()
    c = c / stddev.unsqueeze(1) / stddev.unsqueeze(0)
    return c.clamp(-1, 1) if c.dtype.kind != "c" else c


defcomposite("cov", cov)
defcomposite("corrcoef", corrcoef)


# ------------------------------------------------------------------ shapes, views and creation
def inner(input, other):
    """The sum over the last dims of the outer product (``input @ other.T`` for matrices); scalars multiply."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return _fn("tensordot")(input, other, ([-1], [-1]))


defcomposite("inner", inner, out=True)


def diagflat(input, offset=0):
    """The flattened input as the ``offset`` diagonal of a square matrix."""
    return _fn("diag")(input.reshape(-1), offset)


defcomposite("diagflat", diagflat)


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-d) as blocks on the diagonal of one matrix, in their promoted dtype."""
    mats = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not mats:
        from .._creation import zeros
        return zeros(1, 0)
    dtype = _dtypes.result_type(*mats)
    cols = sum(m.shape[1] for m in mats)
    rows, c = [], 0
    for m in mats:
        h, w = m.shape
        rows.append(_fn("cat")([m.new_zeros((h, c), dtype=dtype), m.to(dtype),
                                m.new_zeros((h, cols - c - w), dtype=dtype)], 1))
        c += w
    return _fn("cat")(rows, 0)


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-d tensor, one per row (a 1-d result for one tensor)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = _fn("meshgrid")(*tensors, indexing="ij")
    return _fn("stack")([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of a 1-d tensor, one per row (``itertools`` order)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_zeros((0,))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    from .._creation import tensor
    index = tensor(rows, dtype=_dtypes.int64, backend=input._backend).reshape(len(rows), r)
    return input[index.reshape(-1)].reshape(len(rows), r)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors: ``indexing='ij'`` (PyTorch's default) or ``'xy'``; views of the inputs."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}D")
    flat = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t.shape[0] for t in flat)
    n = len(flat)
    grids = [t.reshape((1,) * i + (-1,) + (1,) * (n - i - 1)).expand(shape) for i, t in enumerate(flat)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


defcomposite("block_diag", block_diag, method=False)
defcomposite("cartesian_prod", cartesian_prod, method=False)
defcomposite("combinations", combinations, method=False)
defcomposite("meshgrid", meshgrid, method=False)


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, as PyTorch computes it (ints count as 1-d shapes)."""
    result = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i, n in enumerate(reversed(shape)):
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
            if i == len(result):
                result.append(n)
            elif result[i] == 1:
                result[i] = n
            elif n != 1 and n != result[i]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                                   f"between {result[i]} and {n} at non-singleton dimension {len(result) - i - 1}")
    return Size(reversed(result))


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each element among the sorted ``boundaries`` (``searchsorted`` with the roles swapped)."""
    if not isinstance(input, Tensor):
        input = boundaries.new_full((), input)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    r = _fn("searchsorted")(boundaries, input, out_int32=out_int32, right=right)
    if out is None:
        return r
    from .._variants import assign_out
    return assign_out(out, r, "bucketize")


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane ``dims``, from the first towards the second axis."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    a, b = dims_of(dims[0], input.ndim)[0], dims_of(dims[1], input.ndim)[0]
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip(b).transpose(a, b)
    if k == 2:
        return input.flip((a, b))
    if k == 3:
        return input.flip(a).transpose(a, b)
    return input.clone()


defcomposite("rot90", rot90)


def _tri_indices(row, col, offset, dtype, backend, lower):
    from .._creation import tensor
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1), dtype=dtype or _dtypes.int64, backend=backend)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, backend=None):
    """The (row, column) indices of the lower triangle of a ``row x col`` matrix, row by row."""
    return _tri_indices(row, col, offset, dtype, backend, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, backend=None):
    """The (row, column) indices of the upper triangle of a ``row x col`` matrix, row by row."""
    return _tri_indices(row, col, offset, dtype, backend, False)


def tensor_split(input, indices_or_sections, dim=0):
    """Views: ``n`` nearly equal parts (the first ``size % n`` one longer), or the parts between indices."""
    d = dims_of(dim, input.ndim)[0]
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.ndim == 0:
            indices_or_sections = int(indices_or_sections)
        else:
            indices_or_sections = [int(i) for i in indices_or_sections.tolist()]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        bounds, start = [], 0
        for i in range(n):
            start += size // n + (1 if i < size % n else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = list(indices_or_sections)
    parts, start = [], 0
    for stop in bounds + [size]:
        lo, hi = min(max(start, 0), size), min(max(stop, 0), size)
        parts.append(input.narrow(d, lo, max(hi - lo, 0)))
        start = stop
    return tuple(parts)


def _split_at(name, min_dim, dim):
    def split(input, indices_or_sections):
        if input.ndim < min_dim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the dimension "
                               f"{input.shape[d]} is not divisible by the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = f"``tensor_split`` along dim {dim}, in equal parts when given a number of sections."
    return split


defcomposite("tensor_split", tensor_split)
defcomposite("hsplit", _split_at("hsplit", 1, 1))
defcomposite("vsplit", _split_at("vsplit", 2, 0))
defcomposite("dsplit", _split_at("dsplit", 3, 2))


def split_with_sizes(input, split_sizes, dim=0):
    """``split`` with a list of sizes that must add up to the dim's size."""
    d = dims_of(dim, input.ndim)[0]
    if sum(split_sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return _fn("split")(input, list(split_sizes), dim)


defcomposite("split_with_sizes", split_with_sizes)


def _scatter_into(view_of):
    """``input`` with ``src`` written into the part ``view_of(copy)`` picks: a differentiable in-place write
    into a fresh copy (so the gradient of ``input`` is zero there, and ``src``'s is the gradient's part)."""
    def scatter(input, src, *args, **kwargs):
        out = input.clone()
        view = view_of(out, *args, **kwargs)
        if tuple(view.shape) != tuple(src.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(src.shape)}, slice size = {list(view.shape)}")
        view.copy_(src)
        return out
    return scatter


def _slice_view(t, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * t.ndim
    index[dims_of(dim, t.ndim)[0]] = slice(start, end, step)
    return t[tuple(index)]


diagonal_scatter = _scatter_into(lambda t, offset=0, dim1=0, dim2=1: t.diagonal(offset, dim1, dim2))
select_scatter = _scatter_into(lambda t, dim, index: t.select(dim, index))
slice_scatter = _scatter_into(_slice_view)
for _name, _impl in (("diagonal_scatter", diagonal_scatter), ("select_scatter", select_scatter),
                     ("slice_scatter", slice_scatter)):
    _impl.__name__ = _name
    _impl.__doc__ = f"A copy of ``input`` with ``src`` written into its ``{_name[:-8]}`` (differentiable in both)."
    defcomposite(_name, _impl, out=True)


def _trapezoids(y, x, dx, dim):
    """The area of each interval along ``dim`` (one fewer than ``y`` has): spacing ``dx`` (default 1) or sample
    points ``x``; and the dim."""
    d = dims_of(dim, y.ndim)[0]
    n = y.shape[d]
    heights = _float(y.narrow(d, 0, max(n - 1, 0))) + y.narrow(d, min(1, n), max(n - 1, 0))
    if x is None or not isinstance(x, Tensor):
        return heights * (dx if dx is not None else (x if x is not None else 1)) / 2, d
    dxs = _fn("diff")(x, dim=-1 if x.ndim == 1 else d)
    if x.ndim == 1:
        dxs = dxs.reshape((-1,) + (1,) * (y.ndim - d - 1))
    return heights * dxs / 2, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim``: spacing ``dx`` (default 1) or sample points ``x``."""
    areas, d = _trapezoids(y, x, dx, dim)
    return areas.sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid rule along ``dim`` (one element fewer than ``y`` along it)."""
    areas, d = _trapezoids(y, x, dx, dim)
    return areas.cumsum(d)


defcomposite("trapezoid", trapezoid, method=False)
defcomposite("trapz", trapz, method=False)
defcomposite("cumulative_trapezoid", cumulative_trapezoid, method=False)


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


# ------------------------------------------------------------------ linear algebra
def _eye_like(A, n=None):
    from .._creation import eye
    n = A.shape[-1] if n is None else n
    return eye(n, dtype=A.dtype, backend=A._backend)


def _triangle(A, upper, unitriangular=False):
    """The triangle of ``A`` a triangular solver reads (its other part never reaches the result or gradient)."""
    if unitriangular:
        return (A.triu(1) if upper else A.tril(-1)) + _eye_like(A)
    return A.triu() if upper else A.tril()


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) reading only the ``upper`` or lower triangle of
    ``A`` (and taking its diagonal as ones when ``unitriangular``)."""
    from .linalg import solve
    T = _triangle(A, upper, unitriangular)
    X = solve(T, B) if left else solve(T.mT, B.mT).mT
    if out is None:
        return X
    from .._variants import assign_out
    return assign_out(out, X, "linalg.solve_triangular")


def cholesky_solve(B, L, upper=False):
    """``X`` with ``A X = B`` for ``A = L L^H`` (``U^H U`` when ``upper``), from the Cholesky factor. The value
    reads only the triangle; the gradient, as PyTorch's, is that of the formula in the whole of ``L``."""
    from .linalg import solve
    T = L - (L - _triangle(L, upper)).detach()
    lower = T.mT.conj() if upper else T
    return solve(lower.mT.conj(), solve(lower, B))


def cholesky_inverse(L, upper=False):
    """The inverse of ``A = L L^H`` (``U^H U`` when ``upper``), from its Cholesky factor."""
    return cholesky_solve(_eye_like(L).expand(L.shape), L, upper)


defcomposite("cholesky_solve", cholesky_solve, out=True)
defcomposite("cholesky_inverse", cholesky_inverse, out=True)

triangular_solve_result = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
triangular_solve_result.__module__ = "xtensor.return_types"


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated in PyTorch (``linalg.solve_triangular`` replaces it): ``(X, A.clone())`` with ``op(A) X = b``."""
    import warnings
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    T = _triangle(A, upper, unitriangular)
    X = solve_triangular(T.mT, b, upper=not upper) if transpose else solve_triangular(T, b, upper=upper)
    return triangular_solve_result(X, A.clone())


defcomposite("triangular_solve", triangular_solve)


def matrix_exp(A):
    """``exp(A)`` of square matrices: Taylor series of degree 18 after scaling by ``2**-s`` so that the
    1-norm is at most 1/2, then ``s`` squarings (exact to double precision; differentiable through it)."""
    from .linalg import check_matrix
    check_matrix("linalg.matrix_exp", A, square=True)
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax())
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    X = A / (2.0 ** s)
    term = _eye_like(A).expand(A.shape)
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
    from .linalg import inverse
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
    from .linalg import solve
    if dims is not None:
        dims = [dims_of(d, A.ndim)[0] for d in dims]
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    rest = tuple(A.shape[B.ndim:])
    return solve(A.reshape(B.numel(), math.prod(rest)), B.reshape(-1)).reshape(rest)


def cond(A, p=None, *, out=None):
    """The condition number in norm ``p``: the singular-value ratio for None/2/-2, else
    ``norm(A, p) * norm(inv(A), p)``."""
    from .linalg import inverse, matrix_norm, svdvals
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
    V = A.tril(-1) + _eye_like(A, m)[:, :n]
    Q = _eye_like(A, m).expand(tuple(A.shape[:-2]) + (m, m))
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


# ------------------------------------------------------------------ more elementwise, scatters and histograms
frexp_result = collections.namedtuple("frexp", ["mantissa", "exponent"])
frexp_result.__module__ = "xtensor.return_types"


def frexp(input):
    """``input = mantissa * 2**exponent`` with ``0.5 <= |mantissa| < 1`` (0, inf and NaN: exponent 0, mantissa
    the input); int32 exponents. Exact: the exponent from log2 is corrected by one where it rounded."""
    if input.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with _no_grad():
        wide = input.detach().to(_dtypes.float64)
        a = wide.abs()
        regular = a.isfinite() & (a != 0)
        e = a.where(regular, 1.0).log2().floor() + 1
        m = a.where(regular, 1.0) / _fn("pow")(2.0, e)
        e = e + (m >= 1).to(e.dtype) - (m < 0.5).to(e.dtype)
        e = e.where(regular, 0.0)
    mantissa = input / _fn("pow")(2.0, e).to(input.dtype) if input.dtype is not _dtypes.float16 else \
        (input.to(_dtypes.float64) / _fn("pow")(2.0, e)).to(input.dtype)
    return frexp_result(mantissa.where(regular, input), e.to(_dtypes.int32))


defcomposite("frexp", frexp)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of (contiguous) ``input`` with ``src`` written into its ``as_strided(size, stride, offset)``."""
    out = input.clone()
    view = out.as_strided(size, stride, storage_offset or 0)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    view.copy_(src)
    return out


defcomposite("as_strided_scatter", as_strided_scatter)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """The rows of ``source`` along ``dim`` reduced ('prod', 'mean', 'amax', 'amin') into the rows of
    ``input`` that ``index`` names: ``scatter_reduce`` with the index spread along ``dim``."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    d = dims_of(dim, max(input.ndim, 1))[0]
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = -1
    spread = index.reshape(shape).expand(source.shape)
    return input.scatter_reduce(d, spread, source, reduce, include_self=include_self)


defcomposite("index_reduce", index_reduce, inplace=True)

histogram_result = collections.namedtuple("histogram", ["hist", "bin_edges"])
histogram_result.__module__ = "xtensor.return_types"


def histogram(input, bins, *, range=None, weight=None, density=False):
    """Counts (or weights, or a density) in ``bins`` equal bins over ``range`` (default: the data's), or between
    the given bin edges; the last bin includes its right edge. Computed on the host, as the shape depends
    on nothing but ``bins``; the result has the input's dtype and backend."""
    from .._creation import tensor
    if input.dtype.kind != "f":
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                           f"input {input.dtype.scalar_name}")
    values = input.detach().numpy().reshape(-1)
    edges = bins.detach().numpy() if isinstance(bins, Tensor) else bins
    w = None if weight is None else weight.detach().numpy().reshape(-1)
    if range is None and not isinstance(bins, Tensor) and values.size == 0:
        range = (0.0, 1.0)
    hist, edges = np.histogram(values.astype(np.float64), bins=edges, range=range, weights=w, density=density)
    return histogram_result(tensor(hist, dtype=input.dtype, backend=input._backend),
                            tensor(edges, dtype=input.dtype, backend=input._backend))


defcomposite("histogram", histogram)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Second-order central differences inside, one-sided differences of order ``edge_order`` at the edges,
    along each of ``dim`` (all dims when None); ``spacing``: a number, one number per dim, or the sample
    coordinates per dim (1-d tensors). One tensor per dim."""
    dims = list(range(input.ndim)) if dim is None else [dims_of(d, input.ndim)[0] for d in (
        [dim] if isinstance(dim, int) else dim)]
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2.")
    if not isinstance(spacing, (list, tuple)):
        spacing = [spacing] * len(dims)
    elif len(spacing) == 1 and len(dims) > 1:
        spacing = list(spacing) * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacing)} and a dim argument of length {len(dims)}.")
    x = _float(input)
    out = []
    for d, h in zip(dims, spacing):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least edge_order+1")
        out.append(_gradient_along(x, d, n, h, edge_order))
    return tuple(out)


def _gradient_along(x, d, n, h, edge_order):
    def part(start, length):
        return x.narrow(d, start, length)

    def along(t):  # a 1-d tensor of spacings shaped to broadcast along d
        return t.reshape((-1,) + (1,) * (x.ndim - d - 1))

    if isinstance(h, Tensor):
        c = h.to(x.dtype)
        dx = c[1:] - c[:-1]
        a, b = along(dx[:-1]), along(dx[1:])
        interior = (part(2, n - 2) * a * a - part(0, n - 2) * b * b + part(1, n - 2) * (b * b - a * a)) / \
            (a * b * (a + b))
        h0, h1, hl, hm = dx[0], dx[min(1, n - 2)], dx[-1], dx[max(-2, 1 - n)]  # (h1, hm: used when n > 2)
    else:
        interior = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        h0 = h1 = hl = hm = h
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / h0
        last = (part(n - 1, 1) - part(n - 2, 1)) / hl
    else:
        a, b = h0, h1
        first = (-(2 * a + b) / (a * (a + b)) * part(0, 1) + (a + b) / (a * b) * part(1, 1)
                 - a / (b * (a + b)) * part(2, 1))
        a, b = hm, hl
        last = (b / (a * (a + b)) * part(n - 3, 1) - (a + b) / (a * b) * part(n - 2, 1)
                + (a + 2 * b) / (b * (a + b)) * part(n - 1, 1))
    return _fn("cat")([first, interior, last], d)


defcomposite("gradient", gradient, method=False)


# ------------------------------------------------------------------ LU with partial pivoting
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
    eye = _eye_like(A, k)
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
    from .linalg import check_matrix
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
        L = LU_data[..., :, :k].tril(-1) + _fn("cat")([_eye_like(LU_data, k), LU_data.new_zeros((m - k, k))], 0)
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
    from .linalg import check_matrix
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


# ------------------------------------------------------------------ short-time Fourier transforms
def _pad_ends(x, p, mode):
    """``x`` padded by ``p`` on both ends of its last dim: 'reflect', 'constant' (zeros), 'replicate' or
    'circular', as ``F.pad`` does."""
    n = x.shape[-1]
    if p == 0:
        return x
    if mode == "reflect":
        if p >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({p}, {p}) at dimension {x.ndim - 1} of input {list(x.shape)}")
        left, right = x.narrow(-1, 1, p).flip(-1), x.narrow(-1, n - 1 - p, p).flip(-1)
    elif mode == "replicate":
        left = x.narrow(-1, 0, 1).expand(tuple(x.shape[:-1]) + (p,))
        right = x.narrow(-1, n - 1, 1).expand(tuple(x.shape[:-1]) + (p,))
    elif mode == "circular":
        left, right = x.narrow(-1, n - p, p), x.narrow(-1, 0, p)
    elif mode == "constant":
        left = right = x.new_zeros(tuple(x.shape[:-1]) + (p,))
    else:
        raise NotImplementedError(f"stft: pad_mode {mode!r} is not one of reflect, constant, replicate, circular")
    return _fn("cat")([left, x, right], -1)


def _full_window(window, win_length, n_fft, like):
    """The window of ``win_length`` (ones when None), zero-padded on both sides to ``n_fft``."""
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is None:
        window = like.new_ones(win_length, dtype=like.dtype if like.dtype.kind in "fc" else None)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = _fn("cat")([window.new_zeros(left), window, window.new_zeros(n_fft - win_length - left)])
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform of a 1-d signal or a batch of them: frames of ``n_fft`` every
    ``hop_length`` samples, times the window, Fourier-transformed; shape ``(..., n_fft // 2 + 1 (onesided)
    or n_fft, frames)``. ``return_complex=False`` (deprecated in PyTorch) stacks real and imaginary parts."""
    complex_input = input.dtype.kind == "c" or (window is not None and window.dtype.kind == "c")
    if return_complex is None:
        if not complex_input:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    x = _float(input)
    if center:
        x = _pad_ends(x, n_fft // 2, pad_mode)
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {x.shape[-1]}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop) * _full_window(window, win_length, n_fft, x)
    if onesided is None:
        onesided = not complex_input
    from .. import fft
    spectrum = fft.rfft(frames, dim=-1) if onesided else fft.fft(frames, dim=-1)
    if normalized:
        spectrum = spectrum * (n_fft ** -0.5)
    spectrum = spectrum.transpose(-1, -2)
    if return_complex:
        return spectrum
    return _fn("stack")([_fn("real")(spectrum), _fn("imag")(spectrum)], -1)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: each frame's inverse transform, windowed, overlap-added and divided by the
    overlap-added squared window (which must not vanish: PyTorch's NOLA check)."""
    if input.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if onesided is None:
        onesided = input.shape[-2] != n_fft
    from .. import fft
    spectrum = input.transpose(-1, -2)
    if normalized:
        spectrum = spectrum * (n_fft ** 0.5)
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = fft.irfft(spectrum, n=n_fft, dim=-1)
    else:
        frames = fft.ifft(spectrum, dim=-1)
        if not return_complex:
            frames = _fn("real")(frames)
    w = _full_window(window, win_length, n_fft, _fn("real")(input) if input.dtype.kind == "c" else input)
    frames = frames * w
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    from .._creation import arange
    index = (arange(n_frames, backend=input._backend).unsqueeze(-1) * hop +
             arange(n_fft, backend=input._backend)).reshape(-1)
    batch = tuple(frames.shape[:-2])
    signal = frames.new_zeros(batch + (total,)).index_add(-1, index, frames.reshape(batch + (-1,)))
    envelope = w.new_zeros(total).index_add(0, index, (w * w).expand(n_frames, n_fft).reshape(-1))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    end = min(end, total)
    if end > start and float(envelope[start:end].abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: 0.000000 (the window and hop do not satisfy the NOLA "
                           "constraint)")
    y = (signal / envelope.where(envelope.abs() > 1e-11, 1.0))[..., start:end]
    if length is not None and y.shape[-1] < length:
        y = _fn("cat")([y, y.new_zeros(batch + (length - y.shape[-1],))], -1)
    return y


defcomposite("stft", stft)
defcomposite("istft", istft)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The histogram of points in the rows of ``input`` (the last dim: the coordinates); ``bins`` a count,
    a count per dim, or the edges per dim; ``range`` ``[min0, max0, min1, max1, ...]``. On the host."""
    from .._creation import tensor
    points = np.asarray(input.detach().numpy(), dtype=np.float64)
    d = points.shape[-1]
    points = points.reshape(-1, d)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        bins = [b.detach().numpy().astype(np.float64) for b in bins]
    pairs = None if range is None else [(range[2 * i], range[2 * i + 1]) for i in builtins.range(d)]
    w = None if weight is None else weight.detach().numpy().reshape(-1)
    hist, edges = np.histogramdd(points, bins=bins, range=pairs, weights=w, density=density)
    result = collections.namedtuple("histogramdd", ["hist", "bin_edges"])
    result.__module__ = "xtensor.return_types"
    return result(tensor(hist, dtype=input.dtype, backend=input._backend),
                  [tensor(e, dtype=input.dtype, backend=input._backend) for e in edges])


defcomposite("histogramdd", histogramdd, method=False)


# ------------------------------------------------------------------ randomized low-rank SVD and PCA
def _approximate_basis(A, q, niter, M):
    """Halko et al.'s range finder, as PyTorch's ``get_approximate_basis``: an orthonormal basis of ``(A - M)``
    times a random Gaussian matrix, refined by ``niter`` power iterations."""
    from .._creation import randn
    from .linalg import qr
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
    from .linalg import linalg_svd
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
