"""OpInfo records for xtensor's op table (after PyTorch's ``torch.testing._internal.opinfo``).

One ``OpInfo`` per op exposed as a function: every ``xtensor._table.TABLE`` entry with
``.function`` true, plus ``max``/``min`` (all three forms), ``reshape``, ``flatten``,
``where`` and indexing (``getitem``), and the reflected operators (``__rsub__``...).

Each record holds:

* ``op``: the xtensor callable under test (``fn(xtensor)``); ``torch_fn(torch)`` is the same
  spelling in real PyTorch, for the comparisons that import torch.
* ``ref(m, *args, **kwargs)``: the reference, written with an array module ``m`` -- numpy for
  the forward reference, ``jax.numpy`` for ``jax.vjp`` (``jax_ref`` overrides that where the
  jax spelling differs). References never call xtensor.
* ``sample_inputs(dtype)``: ``SampleInput`` records whose tensor arguments are numpy arrays
  (``np.ndarray``; Python scalars stay scalars, ``DT('float64')`` stands for a dtype), in safe
  domains (log/sqrt positive, divisors away from 0, no kinks in differentiable samples).
* ``out_dtype``: PyTorch's result-dtype rule for the op, computed by ``torch_result_type`` (an
  independent implementation of ``c10::ResultTypeState``).
* flags: ``differentiable``, ``supports_out``, ``supports_inplace``, ``method`` (name or
  callable), ``api`` (the ``xtensor.array_api`` spelling, name or callable), ``operators``.
* ``error_inputs(info)``: ``ErrorInput`` records -- a bad sample and the error PyTorch raises for it
  (type and a regex of its message); declared in ``opinfo_errors.py``, run by ``test_errors_opinfo.py``.
"""
import dataclasses
import functools
import math
import operator
import zlib
from typing import Any, Callable, Optional

import numpy as np

import xtensor as xt

FLOATS = ("float32", "float64")
INTS = ("int64", "int32")
NUMERIC = FLOATS + INTS
MIXED = "mixed"  # the pseudo-dtype of promotion samples (operands of several dtypes)


# --------------------------------------------------------------------------- samples
class DT:
    """A dtype argument (``sum(x, dtype=...)``), realized per namespace."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"DT({self.name})"


@dataclasses.dataclass
class SampleInput:
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    desc: str = ""
    grad: bool = True  # usable for gradient checks (smooth there); forward-only otherwise
    noncontig: tuple = ()  # positions of args passed as transposed (non-contiguous) views

    def __repr__(self):
        def show(a):
            if isinstance(a, np.ndarray):
                return f"{a.dtype.name}{list(a.shape)}"
            if isinstance(a, (list, tuple)) and any(isinstance(b, np.ndarray) for b in a):
                return "[" + ",".join(show(b) for b in a) + "]"
            return repr(a)
        kw = "".join(f",{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.desc}({','.join(show(a) for a in self.args)}{kw})"


def _rng(*key):
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def make(rng, shape, dtype, low=-3.0, high=3.0, *, nonzero=False):
    """A numpy array of ``shape`` and ``dtype`` with values in ``[low, high]`` (away from 0 if ``nonzero``)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind in "iu":
        a = np.asarray(rng.integers(math.ceil(low), math.floor(high) + 1, size=shape)).astype(dtype)
        if nonzero:
            a[a == 0] = 1
        return a
    if nonzero:
        mag = rng.uniform(max(0.5, low if low > 0 else 0.5), max(abs(low), abs(high)), size=shape)
        sign = np.ones(shape) if low > 0 else rng.choice([-1.0, 1.0], size=shape)
        return np.asarray(mag * sign).astype(dtype)
    return np.asarray(rng.uniform(low, high, size=shape)).astype(dtype)


def scalar_like(rng, dtype, low=-3.0, high=3.0, nonzero=False):
    """A Python scalar of the same category as ``dtype``."""
    return make(rng, (), dtype, low, high, nonzero=nonzero).item()


def realize(obj, convert):
    """Replace numpy arrays (recursively in lists/tuples) by ``convert(arr)``; ``DT`` by ``convert(DT)``."""
    if isinstance(obj, (np.ndarray, DT)):
        return convert(obj)
    if isinstance(obj, list):
        return [realize(o, convert) for o in obj]
    if isinstance(obj, tuple):
        return tuple(realize(o, convert) for o in obj)
    return obj


def array_leaves(obj):
    """The numpy arrays in ``obj`` (args, lists), in order."""
    if isinstance(obj, np.ndarray):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [a for o in obj for a in array_leaves(o)]
    if isinstance(obj, dict):
        return [a for o in obj.values() for a in array_leaves(o)]
    return []


def replace_leaves(obj, values):
    """``obj`` with its numpy arrays replaced, in order, by ``values`` (an iterator)."""
    if isinstance(obj, np.ndarray):
        return next(values)
    if isinstance(obj, list):
        return [replace_leaves(o, values) for o in obj]
    if isinstance(obj, tuple):
        return tuple(replace_leaves(o, values) for o in obj)
    return obj


@dataclasses.dataclass
class ErrorInput:
    """A bad sample and PyTorch's answer to it: ``error_type`` with a message ``re.search``-matching ``match``."""
    sample: SampleInput
    error_type: type
    match: str

    def __repr__(self):
        return f"{self.sample!r}->{self.error_type.__name__}"


# --------------------------------------------------------------------------- PyTorch's dtype rules
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def torch_promote(a, b):
    """``torch.promote_types``: numpy's table within a category, the higher category across."""
    a, b = np.dtype(a), np.dtype(b)
    if _CATEGORY[a.kind] == _CATEGORY[b.kind]:
        return np.promote_types(a, b)
    return a if _CATEGORY[a.kind] > _CATEGORY[b.kind] else b


def _combine(higher, lower):
    """``c10::combine_categories``: a lower tier decides only when it is of a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":
        return np.result_type(higher, np.complex64) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return torch_promote(higher, lower)
    return higher


def torch_result_type(*operands, default_float="float32"):
    """PyTorch's result type: dimensioned tensors > 0-dim tensors > Python scalars, unless a lower
    tier is of a higher category (then it decides; a Python float gives the default dtype)."""
    tiers = [None, None, None]
    for x in operands:
        if isinstance(x, np.ndarray):
            tier, d = (0 if x.ndim else 1), x.dtype
        elif isinstance(x, (bool, np.bool_)):
            tier, d = 2, np.dtype(bool)
        elif isinstance(x, int):
            tier, d = 2, np.dtype("int64")
        elif isinstance(x, float):
            tier, d = 2, np.dtype(default_float)
        else:
            continue
        tiers[tier] = d if tiers[tier] is None else torch_promote(tiers[tier], d)
    return _combine(tiers[0], _combine(tiers[1], tiers[2]))


def rule_promote(args, kwargs):
    return torch_result_type(*args)


def rule_float(args, kwargs):
    d = torch_result_type(*args)
    return d if d.kind in "fc" else np.dtype("float32")


def rule_bool(args, kwargs):
    return np.dtype(bool)


def rule_first(args, kwargs):
    return array_leaves(args)[0].dtype


def rule_int64(args, kwargs):
    return np.dtype("int64")


def rule_sum(args, kwargs):
    if kwargs.get("dtype") is not None:
        return np.dtype(kwargs["dtype"].name)
    d = args[0].dtype
    return np.dtype("int64") if d.kind in "biu" else d


def rule_listed(args, kwargs):
    return torch_result_type(*args[0])


def rule_where(args, kwargs):
    return torch_result_type(*args[1:])


def rule_clamp(args, kwargs):
    bounds = [kwargs.get("min"), kwargs.get("max")] + list(args[1:])
    return torch_result_type(args[0], *[b for b in bounds if b is not None])


# --------------------------------------------------------------------------- the record
@dataclasses.dataclass
class OpInfo:
    name: str
    ref: Callable  # ref(m, *args, **kwargs) with m = numpy (forward) or jax.numpy (vjp)
    sample_inputs: Callable  # (info, dtype name) -> list[SampleInput]
    dtypes: tuple = NUMERIC
    fn: Optional[Callable] = None  # fn(namespace) -> callable; default getattr(namespace, name)
    torch_fn: Optional[Callable] = None  # fn(torch) -> callable; default ``fn``
    jax_ref: Optional[Callable] = None  # jax_ref(jnp, *args, **kwargs); default ``ref``
    out_dtype: Callable = rule_promote
    differentiable: bool = True
    supports_out: bool = False
    supports_inplace: bool = False
    method: Any = None  # Tensor method name, or callable(*args, **kwargs); None: no method
    api: Any = None  # xtensor.array_api name (same arguments) or callable(xa, *args, **kwargs)
    operators: tuple = ()  # ((operator_fn, inplace_operator_fn or None),)
    table_name: Optional[str] = None  # the TABLE entry this record covers (None: a composite)
    mixed: Callable = None  # () -> promotion samples (operands of several dtypes)
    rtol32: float = 1.3e-6
    atol32: float = 1e-5
    agree_ulps: int = 16  # how far jax's float results may be from numpy's (XLA rounds its kernels differently)
    error_inputs: Callable = None  # (info) -> list[ErrorInput]

    @property
    def has_method(self):
        return self.method is not None

    @property
    def has_array_api_name(self):
        return self.api is not None

    @property
    def op(self):
        return (self.fn or (lambda ns: getattr(ns, self.name)))(xt)

    def torch_op(self, torch):
        return (self.torch_fn or self.fn or (lambda ns: getattr(ns, self.name)))(torch)

    def numpy_ref(self, *args, **kwargs):
        return self.ref(np, *args, **kwargs)

    def jax_reference(self, *args, **kwargs):
        import jax.numpy as jnp
        return (self.jax_ref or self.ref)(jnp, *args, **kwargs)

    @functools.lru_cache(maxsize=None)
    def samples(self, dtype):
        if dtype == MIXED:
            return tuple(self.mixed()) if self.mixed else ()
        return tuple(self.sample_inputs(self, dtype))

    @functools.lru_cache(maxsize=None)
    def errors(self):
        return tuple(self.error_inputs(self)) if self.error_inputs else ()

    def all_dtypes(self):
        return self.dtypes + ((MIXED,) if self.mixed else ())

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


# --------------------------------------------------------------------------- sample generators
UNARY_SHAPES = ((), (3, 4), (0, 3))


def unary_samples(low=-3.0, high=3.0, kinks=None, nonzero=False):
    """Elementwise unary: 0-d, 2-d, empty, a non-contiguous view; ``kinks``: forward-only values (floats)."""
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        out = [SampleInput((make(rng, s, dtype, low, high, nonzero=nonzero),), desc=f"s{i}")
               for i, s in enumerate(UNARY_SHAPES)]
        out.append(SampleInput((make(rng, (3, 4), dtype, low, high, nonzero=nonzero),), desc="T",
                               noncontig=(0,)))
        if kinks is not None and np.dtype(dtype).kind == "f":
            out.append(SampleInput((np.asarray(kinks, dtype=dtype),), desc="kinks", grad=False))
        return out
    return gen


BINARY_SHAPES = (((3, 4), (3, 4)), ((), ()), ((3, 4), ()), ((2, 1, 4), (3, 1)), ((4,), (3, 4)))


def binary_samples(low=-3.0, high=3.0, low2=None, high2=None, nonzero2=False, scalars=True, ties=False):
    """Elementwise binary: same shapes, 0-d, broadcasting both ways, Python scalars, ties."""
    low2 = low if low2 is None else low2
    high2 = high if high2 is None else high2

    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        out = []
        for i, (s1, s2) in enumerate(BINARY_SHAPES):
            out.append(SampleInput((make(rng, s1, dtype, low, high),
                                    make(rng, s2, dtype, low2, high2, nonzero=nonzero2)), desc=f"b{i}"))
        out.append(SampleInput((make(rng, (3, 4), dtype, low, high), make(rng, (4,), dtype, low2, high2,
                                                                          nonzero=nonzero2)),
                               desc="T", noncontig=(0,)))
        if scalars and np.dtype(dtype).kind != "b":
            out.append(SampleInput((make(rng, (3, 4), dtype, low, high),
                                    scalar_like(rng, dtype, low2, high2, nonzero=nonzero2)), desc="scalar"))
        if ties:
            x = make(rng, (3, 4), dtype, low, high)
            y = np.where(rng.random((3, 4)) < 0.5, x, make(rng, (3, 4), dtype, low2, high2))
            out.append(SampleInput((x, y.astype(dtype)), desc="ties"))
        return out
    return gen


def mixed_binary(low=-3.0, high=3.0, low2=None, high2=None, nonzero2=False, floats=True, scalars=True):
    """Promotion samples: int/float, int32/int64, float32/float64, dim vs 0-dim, tensor vs Python scalar (not
    for ops PyTorch binds to Tensors only: ``scalars=False``)."""
    low2 = low if low2 is None else low2
    high2 = high if high2 is None else high2

    def gen():
        rng = _rng("mixed", low, high, low2, high2)
        a = lambda s, d: make(rng, s, d, low, high)  # noqa: E731
        b = lambda s, d: make(rng, s, d, low2, high2, nonzero=nonzero2)  # noqa: E731
        out = [SampleInput((a((3,), "int32"), b((3,), "int64")), desc="i32,i64"),
               SampleInput((a((3,), "int64"), scalar_like(rng, "int64", low2, high2, nonzero2)), desc="i64,int")]
        if floats:
            out += [SampleInput((a((3,), "int64"), b((3,), "float32")), desc="i64,f32"),
                    SampleInput((a((2, 3), "float32"), b((2, 3), "float64")), desc="f32,f64"),
                    SampleInput((a((2, 3), "float32"), b((), "float64")), desc="f32,0d-f64"),
                    SampleInput((a((3,), "int32"), b((), "float64")), desc="i32,0d-f64"),
                    SampleInput((a((3,), "int64"), scalar_like(rng, "float64", low2, high2, nonzero2)),
                                desc="i64,float"),
                    SampleInput((a((3,), "float32"), scalar_like(rng, "float64", low2, high2, nonzero2)),
                                desc="f32,float")]
        return out if scalars else [s for s in out if all(isinstance(a, np.ndarray) for a in s.args)]
    return gen


def reduction_samples(dim_kw=True, empty=True, extra=None, ties=False):
    """Reductions: all dims, int/negative/tuple dims, keepdim, 0-d with dim 0/-1, empty."""
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        m = lambda s: make(rng, s, dtype)  # noqa: E731
        out = [SampleInput((m(()),), desc="0d"), SampleInput((m((3, 4)),), desc="2d")]
        if dim_kw:
            out += [SampleInput((m(()), 0), desc="0d,dim0"),
                    SampleInput((m(()), -1), {"keepdim": True}, desc="0d,dim-1"),
                    SampleInput((m((3, 4)), 0), desc="dim0"),
                    SampleInput((m((3, 4)), -1), {"keepdim": True}, desc="dim-1,keep"),
                    SampleInput((m((2, 3, 4)), (0, 2)), desc="dims(0,2)"),
                    SampleInput((m((2, 3, 4)), (-1, 0)), {"keepdim": True}, desc="dims(-1,0),keep"),
                    SampleInput((m((2, 3, 4)),), {"dim": 1, "keepdim": True}, desc="kw"),
                    SampleInput((m((3, 4)), 1), desc="T", noncontig=(0,))]
        if empty:
            out.append(SampleInput((m((0, 3)), 0), desc="empty") if dim_kw else
                       SampleInput((m((0, 3)),), desc="empty"))
        if ties and np.dtype(dtype).kind == "f":
            x = np.asarray(rng.integers(0, 3, size=(3, 4))).astype(dtype)
            out.append(SampleInput((x,), desc="ties"))
            if dim_kw:
                out.append(SampleInput((x, 1), desc="ties,dim"))
        if extra:
            out += extra(rng, dtype)
        return out
    return gen


def _fix_dims(x, dim):
    """numpy's ``axis`` for a PyTorch ``dim`` (a 0-d tensor accepts dim 0 / -1)."""
    if x.ndim == 0:
        return None
    return dim


def _reduce_ref(f):
    def ref(m, x, dim=None, keepdim=False, **kw):
        if isinstance(dim, (tuple, list)) and len(dim) == 0:
            dim = None
        axis = _fix_dims(x, dim)
        return f(m, x, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keepdim, **kw)
    return ref


def _np_dtype(m, dt):
    return None if dt is None else getattr(m, dt.name) if not isinstance(dt, str) else getattr(m, dt)


def _sum_ref(m, x, axis, keepdims, dtype=None):
    return m.sum(x, axis=axis, keepdims=keepdims, dtype=_np_dtype(m, dtype))


def _max_dim_ref(kind):
    def ref(m, x, dim, keepdim=False):
        if x.ndim == 0:
            return x
        arg = m.argmax(x, axis=dim) if kind == "max" else m.argmin(x, axis=dim)
        v = m.take_along_axis(x, m.expand_dims(arg, dim), axis=dim)
        return v if keepdim else m.squeeze(v, axis=dim)
    return ref


def _max_dim_indices_ref(kind):
    def ref(m, x, dim, keepdim=False):
        if x.ndim == 0:
            return m.asarray(0)
        arg = m.argmax(x, axis=dim) if kind == "max" else m.argmin(x, axis=dim)
        return m.expand_dims(arg, dim) if keepdim else arg
    return ref


def _arg_ref(kind):
    def ref(m, x, dim=None, keepdim=False):
        f = m.argmax if kind == "max" else m.argmin
        if dim is None or x.ndim == 0:
            return f(m.reshape(x, (-1,)))
        return f(x, axis=dim, keepdims=keepdim)
    return ref


def matmul_samples(two_d_only=False):
    """Matrix products of every rank pairing (one inner size, so jax compiles few kernels)."""
    shapes = [((3, 4), (4, 2)), ((1, 4), (4, 1))]
    if not two_d_only:
        shapes += [((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 2)), ((2, 1, 3, 4), (2, 4, 2)),
                   ((4,), (2, 4, 2))]

    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        out = [SampleInput((make(rng, a, dtype), make(rng, b, dtype)), desc=f"m{i}") for i, (a, b) in enumerate(shapes)]
        out.append(SampleInput((make(rng, (3, 4), dtype), make(rng, (4, 2), dtype)), desc="T", noncontig=(0,)))
        return out
    return gen


def _shape_samples(cases, transposed=()):
    """``cases``: ((input shape, *args), ...); ``transposed``: cases applied to a non-contiguous view."""
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        out = [SampleInput((make(rng, shape, dtype), *args), desc=f"c{i}") for i, (shape, *args) in enumerate(cases)]
        out += [SampleInput((make(rng, shape, dtype), *args), desc=f"T{i}", noncontig=(0,))
                for i, (shape, *args) in enumerate(transposed)]
        return out
    return gen


def _squeeze_ref(m, x, dim=None):
    if dim is None:
        return m.reshape(x, tuple(n for n in x.shape if n != 1))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(d % max(x.ndim, 1) for d in dims if x.ndim and x.shape[d] == 1)
    return m.squeeze(x, axis=dims) if dims else x


def _size1_axes(shape, dim=None):
    """The axes PyTorch's squeeze(dim) removes (the size-1 ones among ``dim``): the array API's squeeze raises
    on any other."""
    dims = range(len(shape)) if dim is None else (dim,) if isinstance(dim, int) else dim
    return tuple(sorted({d % len(shape) for d in dims if shape[d] == 1})) if shape else ()


def _flatten_ref(m, x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return m.reshape(x, (1,))
    s, e = start_dim % x.ndim, end_dim % x.ndim
    return m.reshape(x, x.shape[:s] + (-1,) + x.shape[e + 1:])


def _t_ref(m, x):
    return m.transpose(x) if x.ndim == 2 else x


def _transpose_ref(m, x, d0, d1):
    return m.swapaxes(x, d0, d1) if x.ndim else x


def cat_samples(stack=False):
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        m = lambda s: make(rng, s, dtype)  # noqa: E731
        if stack:
            return [SampleInput(([m((3, 4)), m((3, 4))],), desc="dim0"),
                    SampleInput(([m((3, 4)), m((3, 4)), m((3, 4))], -1), desc="dim-1"),
                    SampleInput(([m((3, 4)), m((3, 4))], 1), desc="dim1"),
                    SampleInput(([m(()), m(())],), desc="0d"),
                    SampleInput(([m((2,))], 0), desc="one")]
        return [SampleInput(([m((2, 3)), m((4, 3))],), desc="dim0"),
                SampleInput(([m((2, 3)), m((2, 1)), m((2, 2))], -1), desc="dim-1"),
                SampleInput(([m((2, 3, 1)), m((2, 3, 2))], 2), desc="dim2"),
                SampleInput(([m((5,))], 0), desc="one"),
                SampleInput(([m((0, 3)), m((2, 3))], 0), desc="empty")]
    return gen


def mixed_cat():
    rng = _rng("mixed_cat")
    return [SampleInput(([make(rng, (2,), "float32"), make(rng, (3,), "float64")],), desc="f32,f64"),
            SampleInput(([make(rng, (2,), "int32"), make(rng, (3,), "float32")],), desc="i32,f32"),
            SampleInput(([make(rng, (2,), "int32"), make(rng, (3,), "int64")],), desc="i32,i64")]


def mixed_stack():
    rng = _rng("mixed_stack")
    return [SampleInput(([make(rng, (2,), "float32"), make(rng, (2,), "float64")],), desc="f32,f64"),
            SampleInput(([make(rng, (2,), "int64"), make(rng, (2,), "float32")], 1), desc="i64,f32")]


def where_samples(info, dtype):
    rng = _rng(info.name, dtype)
    c = lambda s: make(rng, s, "bool")  # noqa: E731
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((c((3, 4)), m((3, 4)), m((3, 4))), desc="same"),
            SampleInput((c(()), m(()), m(())), desc="0d"),
            SampleInput((c((4,)), m((3, 1)), m(())), desc="bcast"),
            SampleInput((c((3, 4)), m((3, 4)), scalar_like(rng, dtype)), desc="scalar-other"),
            SampleInput((c((3, 4)), m((3, 4)), m((3, 4))), desc="T", noncontig=(1,))]


def mixed_where():
    rng = _rng("mixed_where")
    c = make(rng, (3,), "bool")
    return [SampleInput((c, make(rng, (3,), "float32"), make(rng, (3,), "float64")), desc="f32,f64"),
            SampleInput((c, make(rng, (3,), "int64"), make(rng, (3,), "float32")), desc="i64,f32"),
            SampleInput((c, make(rng, (3,), "int64"), 0.5), desc="i64,float"),
            SampleInput((c, make(rng, (3,), "float32"), make(rng, (), "float64")), desc="f32,0d-f64")]


def clamp_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    kinds = np.dtype(dtype).kind
    lo, hi = (-1, 2) if kinds in "iu" else (-1.5, 1.75)
    return [SampleInput((m((3, 4)),), {"min": lo, "max": hi}, desc="both"),
            SampleInput((m((3, 4)), lo), desc="min-positional"),
            SampleInput((m((5,)),), {"max": hi}, desc="max"),
            SampleInput((m(()),), {"min": lo}, desc="0d"),
            SampleInput((m((3, 4)), lo, hi), desc="T", noncontig=(0,))]


def mixed_clamp():
    rng = _rng("mixed_clamp")
    return [SampleInput((make(rng, (5,), "int64"),), {"min": 0.5}, desc="int,float-min"),
            SampleInput((make(rng, (5,), "int32"),), {"min": -1, "max": 2}, desc="int32,int"),
            SampleInput((make(rng, (5,), "float32"),), {"min": -1, "max": 1}, desc="f32,int")]


def _clamp_ref(m, x, min=None, max=None):
    return m.clip(x, min, max)


def _clamp_jax_ref(m, x, min=None, max=None):
    """PyTorch's clamp gradient: 1 where min <= x <= max (ties included), else 0."""
    import jax
    lo = -np.inf if min is None else min
    hi = np.inf if max is None else max
    return m.where((x >= lo) & (x <= hi), x, jax.lax.stop_gradient(m.clip(x, min, max)))


def _np_index(index):
    """An index as numpy/jax take it (lists of ints become arrays)."""
    if isinstance(index, tuple):
        return tuple(_np_index(i) for i in index)
    if isinstance(index, list):
        return np.asarray(index)
    return index


def getitem_samples(cases):
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        out = []
        for i, (shape, index) in enumerate(cases):
            x = make(rng, shape, dtype)
            if index == "mask":
                index = make(rng, shape, "bool")
            elif index == "mask0":
                index = make(rng, shape[:1], "bool")
            out.append(SampleInput((x, index), desc=f"i{i}"))
        return out
    return gen


# --------------------------------------------------------------------------- references
def _sigmoid(m, x):
    return 1 / (1 + m.exp(-x))


def _relu(m, x):
    return m.where(x > 0, x, m.zeros_like(x))


def _alpha(f):
    def ref(m, x, y, alpha=None):
        return f(x, y if alpha is None else y * alpha)
    return ref


def _logical(name):
    def ref(m, x, y):
        return getattr(m, name)(m.asarray(x).astype(bool), m.asarray(y).astype(bool))
    return ref


def _pow_ref(m, x, y):
    return m.power(x, y)


# --------------------------------------------------------------------------- the records
OPS = []


def add(**kw):
    info = OpInfo(**kw)
    OPS.append(info)
    return info


KINKS = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.5, 2.5, 1.0]


def unary(name, ref, *, low=-3.0, high=3.0, float_out=False, dtypes=NUMERIC, api=True, operators=(),
          kinks=None, nonzero=False, **kw):
    add(name=name, ref=ref, sample_inputs=unary_samples(low, high, kinks, nonzero), dtypes=dtypes,
        out_dtype=rule_float if float_out else kw.pop("out_dtype", rule_first), supports_out=True,
        supports_inplace=kw.pop("supports_inplace", True), method=kw.pop("method", name),
        api=name if api is True else api, operators=operators, table_name=name, **kw)


unary("exp", lambda m, x: m.exp(x), float_out=True)
unary("log", lambda m, x: m.log(x), low=0.1, high=4.0, float_out=True)
unary("log1p", lambda m, x: m.log1p(x), low=-0.9, high=3.0, float_out=True)
unary("expm1", lambda m, x: m.expm1(x), float_out=True)
unary("sin", lambda m, x: m.sin(x), float_out=True)
unary("cos", lambda m, x: m.cos(x), float_out=True)
unary("tan", lambda m, x: m.tan(x), low=-1.2, high=1.2, float_out=True)
unary("tanh", lambda m, x: m.tanh(x), float_out=True)
unary("sigmoid", _sigmoid, float_out=True, api=None)
unary("sqrt", lambda m, x: m.sqrt(x), low=0.1, high=4.0, float_out=True)
unary("rsqrt", lambda m, x: 1 / m.sqrt(x), low=0.1, high=4.0, float_out=True, api=None)
unary("relu", _relu, api=None, kinks=KINKS)
unary("abs", lambda m, x: m.abs(x), kinks=KINKS, nonzero=True)
unary("neg", lambda m, x: -x, api="negative", operators=((operator.neg, None),))
unary("sign", lambda m, x: m.sign(x), kinks=KINKS, api=None)  # xtensor.array_api.sign: NaN for NaN (own entry)
unary("square", lambda m, x: x * x)
unary("reciprocal", lambda m, x: 1 / x, float_out=True, nonzero=True)
unary("floor", lambda m, x: m.floor(x), kinks=KINKS)
unary("ceil", lambda m, x: m.ceil(x), kinks=KINKS)
unary("trunc", lambda m, x: m.trunc(x), kinks=KINKS)
unary("round", lambda m, x: m.round(x), kinks=KINKS)
unary("clone", lambda m, x: m.asarray(x).copy() if m is np else m.array(x, copy=True), api=None)
unary("positive", lambda m, x: +x, operators=((operator.pos, None),))
unary("logical_not", lambda m, x: m.logical_not(m.asarray(x).astype(bool)), out_dtype=rule_bool,
      dtypes=NUMERIC + ("bool",), differentiable=False)
unary("bitwise_not", lambda m, x: m.invert(x), api="bitwise_invert", dtypes=("int64", "int32", "uint8", "bool"),
      operators=((operator.invert, None),), differentiable=False)
for _name in ("isnan", "isinf", "isfinite"):
    unary(_name, (lambda f: lambda m, x: getattr(m, f)(x))(_name), out_dtype=rule_bool, differentiable=False,
          kinks=[np.nan, np.inf, -np.inf, 0.0, 1.5], supports_inplace=False)


def binary(name, ref, *, api=True, operators=(), float_out=False, dtypes=NUMERIC, low=-3.0, high=3.0,
           low2=None, high2=None, nonzero2=False, ties=False, mixed=True, mixed_floats=True, scalars=True,
           alpha=False, **kw):
    samples = binary_samples(low, high, low2, high2, nonzero2, scalars=scalars, ties=ties)
    add(name=name, ref=ref, sample_inputs=_alpha_samples(samples) if alpha else samples,
        dtypes=dtypes, out_dtype=rule_float if float_out else kw.pop("out_dtype", rule_promote),
        supports_out=True, supports_inplace=True, method=name, api=name if api is True else api,
        operators=operators, table_name=name,
        mixed=mixed_binary(low, high, low2, high2, nonzero2, floats=mixed_floats, scalars=scalars) if mixed else None,
        **kw)


def _alpha_samples(base):
    """``base`` plus ``alpha=`` (an int for integer tensors: PyTorch refuses a float alpha there; none for bool)."""
    def gen(info, dtype):
        out = list(base(info, dtype))
        if np.dtype(dtype).kind == "b":
            return out
        rng = _rng(info.name, dtype, "alpha")
        x, y = make(rng, (3, 4), dtype), make(rng, (4,), dtype)
        out.append(SampleInput((x, y), {"alpha": 2 if np.dtype(dtype).kind in "iu" else 0.5}, desc="alpha"))
        return out
    return gen


binary("add", _alpha(operator.add), operators=((operator.add, operator.iadd),), dtypes=NUMERIC + ("bool",),
       alpha=True)
binary("sub", _alpha(operator.sub), api="subtract", operators=((operator.sub, operator.isub),), alpha=True)
binary("mul", lambda m, x, y: x * y, api="multiply", operators=((operator.mul, operator.imul),),
       dtypes=NUMERIC + ("bool",))
binary("div", lambda m, x, y: m.true_divide(x, y), api="divide", float_out=True, nonzero2=True,
       operators=((operator.truediv, operator.itruediv),))


def _pow_samples(info, dtype):
    if np.dtype(dtype).kind == "f":
        return binary_samples(0.5, 2.5, -2.0, 2.0)(info, dtype)
    rng = _rng(info.name, dtype)  # integer powers: exponents >= 0 (PyTorch refuses negative ones)
    return [SampleInput((make(rng, (3, 4), dtype, -3, 3), make(rng, (3, 4), dtype, 0, 3)), desc="int"),
            SampleInput((make(rng, (3, 4), dtype, -3, 3), 2), desc="int-scalar"),
            SampleInput((make(rng, (5,), dtype, -3, 3), make(rng, (), dtype, 0, 3)), desc="int-0d")]


def _pow_mixed():
    rng = _rng("pow-mixed")
    return [SampleInput((make(rng, (3,), "float32", 0.5, 2), make(rng, (3,), "int64", 0, 3)), desc="f32,i64"),
            SampleInput((make(rng, (3,), "int64", 1, 3), 0.5), desc="i64,float"),
            SampleInput((make(rng, (3,), "float32", 0.5, 2), make(rng, (), "float64", 0, 2)), desc="f32,0d-f64")]


add(name="pow", ref=_pow_ref, sample_inputs=_pow_samples, supports_out=True, supports_inplace=True, method="pow",
    api="pow", operators=((operator.pow, operator.ipow),), table_name="pow", mixed=_pow_mixed)
binary("maximum", lambda m, x, y: m.maximum(x, y), ties=True, scalars=False)
binary("minimum", lambda m, x, y: m.minimum(x, y), ties=True, scalars=False)
binary("atan2", lambda m, x, y: m.arctan2(x, y), float_out=True, nonzero2=True, scalars=False)
binary("remainder", lambda m, x, y: m.remainder(x, y), nonzero2=True, low2=0.6, high2=3.0,
       operators=((operator.mod, operator.imod),))
binary("floor_divide", lambda m, x, y: m.floor_divide(x, y), nonzero2=True, low2=0.6, high2=3.0,
       operators=((operator.floordiv, operator.ifloordiv),), differentiable=False)
for _name, _api, _op in (("eq", "equal", operator.eq), ("ne", "not_equal", operator.ne), ("lt", "less", operator.lt),
                         ("le", "less_equal", operator.le), ("gt", "greater", operator.gt),
                         ("ge", "greater_equal", operator.ge)):
    binary(_name, (lambda f: lambda m, x, y: f(m.asarray(x), y))(_op), api=_api, operators=((_op, None),),
           out_dtype=rule_bool, differentiable=False, ties=True, dtypes=NUMERIC + ("bool",))
for _name in ("logical_and", "logical_or", "logical_xor"):
    binary(_name, _logical(_name), out_dtype=rule_bool, differentiable=False, dtypes=NUMERIC + ("bool",),
           scalars=False)
for _name, _ops in (("bitwise_and", (operator.and_, operator.iand)), ("bitwise_or", (operator.or_, operator.ior)),
                    ("bitwise_xor", (operator.xor, operator.ixor))):
    binary(_name, (lambda f: lambda m, x, y: getattr(m, f)(x, y))(_name), operators=(_ops,),
           differentiable=False, dtypes=("int64", "int32", "uint8", "bool"), mixed_floats=False)

# reflected operators: a Python scalar on the left of a tensor
for _name, _f, _kw in (("__radd__", operator.add, {}), ("__rsub__", operator.sub, {}),
                       ("__rmul__", operator.mul, {}), ("__rtruediv__", operator.truediv, {"nonzero": True}),
                       ("__rpow__", operator.pow, {"low": -2.0, "high": 2.0}),
                       ("__rmod__", operator.mod, {"low": 0.6, "high": 3.0}),
                       ("__rfloordiv__", operator.floordiv, {"low": 0.6, "high": 3.0})):
    def _rgen(info, dtype, _kw=_kw, _base=2.5 if _name != "__rpow__" else 1.5):
        out = [SampleInput((s.args[0], _base), desc=s.desc, noncontig=s.noncontig)
               for s in unary_samples(**_kw)(info, dtype)]
        if np.dtype(dtype).kind in "iu":
            out.append(SampleInput((out[2].args[0], 3), desc="int-scalar"))
        return out
    add(name=_name, fn=(lambda f: lambda ns: lambda x, s: f(s, x))(_f),
        ref=(lambda f: lambda m, x, s: f(s, x))(_f), sample_inputs=_rgen,
        dtypes=FLOATS if _name == "__rpow__" else NUMERIC,
        out_dtype=rule_float if _name == "__rtruediv__" else rule_promote,
        differentiable=_name not in ("__rfloordiv__",))

add(name="where", ref=lambda m, c, x, y: m.where(c, x, y), sample_inputs=where_samples, out_dtype=rule_where,
    method=lambda c, x, y: x.where(c, y), api="where", table_name="where", mixed=mixed_where,
    jax_ref=lambda m, c, x, y: m.where(c, x, y))
add(name="clamp", ref=_clamp_ref, jax_ref=_clamp_jax_ref, sample_inputs=clamp_samples, out_dtype=rule_clamp,
    supports_out=True, supports_inplace=True, method="clamp", table_name="clamp", mixed=mixed_clamp,
    api=lambda xa, x, *a, **k: xa.clip(x, *a, **k))


def _api_reduce(name):
    """The array-API spelling of a reduction: PyTorch's dim=() (all dims) is axis=None there; a 0-d array
    has no axis 0."""
    def call(xa, x, dim=None, keepdim=False, **kw):
        axis = None if dim == () or (x.ndim == 0 and name.startswith("arg")) else dim
        return getattr(xa, name)(x, axis=axis, keepdims=keepdim, **kw)
    return call


def _sum_extra(rng, dtype):
    x = make(rng, (3, 4), dtype)
    out = [SampleInput((x,), {"dtype": DT("float64")}, desc="dtype64"),
           SampleInput((x, ()), desc="dim()")]
    if np.dtype(dtype).kind in "iu":
        out.append(SampleInput((x, 1), {"dtype": DT("int32")}, desc="dtype32"))
    return out


add(name="sum", ref=_reduce_ref(_sum_ref), sample_inputs=reduction_samples(extra=_sum_extra),
    dtypes=NUMERIC + ("bool",), out_dtype=rule_sum, supports_out=True, method="sum", api=_api_reduce("sum"),
    table_name="sum")
add(name="mean", ref=_reduce_ref(lambda m, x, axis, keepdims, dtype=None: m.mean(
    x if dtype is None else x.astype(_np_dtype(m, dtype)), axis=axis, keepdims=keepdims)),
    sample_inputs=reduction_samples(empty=False, extra=lambda rng, dtype: [
        SampleInput((make(rng, (3, 4), dtype),), {"dtype": DT("float64")}, desc="dtype64"),
        SampleInput((make(rng, (3, 4), dtype), ()), desc="dim()")]),
    dtypes=FLOATS, out_dtype=rule_sum, supports_out=True, method="mean",
    api=lambda xa, x, dim=None, keepdim=False, dtype=None: xa.mean(x if dtype is None else xa.astype(x, dtype),
                                                                   axis=None if dim == () else dim,
                                                                   keepdims=keepdim),
    table_name="mean")
for _name, _f in (("amax", "max"), ("amin", "min")):
    add(name=_name, ref=_reduce_ref((lambda f: lambda m, x, axis, keepdims: getattr(m, f)(
        x, axis=axis, keepdims=keepdims))(_f)),
        sample_inputs=reduction_samples(empty=False, ties=True), out_dtype=rule_first, supports_out=True,
        method=_name, api=_api_reduce(_f), table_name=_name)
for _name in ("argmax", "argmin"):
    add(name=_name, ref=_arg_ref(_name[3:]), sample_inputs=lambda info, dtype: [
        s for s in reduction_samples(empty=False, ties=True)(info, dtype)
        if len(s.args) == 1 or isinstance(s.args[1], int)],
        out_dtype=rule_int64, supports_out=True, method=_name, api=_api_reduce(_name), table_name=_name,
        differentiable=False)
for _kind in ("max", "min"):
    add(name=_kind, ref=_reduce_ref((lambda f: lambda m, x, axis, keepdims: getattr(m, f)(x))(_kind)),
        sample_inputs=reduction_samples(dim_kw=False, empty=False, ties=True), out_dtype=rule_first,
        method=_kind)
    add(name=f"{_kind}_dim", fn=(lambda k: lambda ns: lambda x, dim, keepdim=False: getattr(ns, k)(x, dim, keepdim)[0])(
        _kind), ref=_max_dim_ref(_kind), out_dtype=rule_first,
        sample_inputs=lambda info, dtype: [s for s in reduction_samples(empty=False, ties=True)(info, dtype)
                                           if len(s.args) > 1 and isinstance(s.args[1], int)],
        method=(lambda k: lambda x, dim, keepdim=False: getattr(x, k)(dim, keepdim=keepdim).values)(_kind))
    add(name=f"{_kind}_dim_indices",
        fn=(lambda k: lambda ns: lambda x, dim, keepdim=False: getattr(ns, k)(x, dim, keepdim=keepdim)[1])(_kind),
        ref=_max_dim_indices_ref(_kind), out_dtype=rule_int64, differentiable=False,
        sample_inputs=lambda info, dtype: [s for s in reduction_samples(empty=False, ties=True)(info, dtype)
                                           if len(s.args) > 1 and isinstance(s.args[1], int)],
        method=(lambda k: lambda x, dim, keepdim=False: getattr(x, k)(dim, keepdim).indices)(_kind))
    add(name=f"{_kind}_other", fn=(lambda k: lambda ns: lambda x, y: getattr(ns, k)(x, y))(_kind),
        ref=(lambda k: lambda m, x, y: getattr(m, k + "imum")(x, y))(_kind),
        sample_inputs=binary_samples(ties=True, scalars=False), method=_kind)

add(name="matmul", ref=lambda m, x, y: m.matmul(x, y), sample_inputs=matmul_samples(), out_dtype=rule_first,
    supports_out=True, method="matmul", api="matmul", operators=((operator.matmul, None),), table_name="matmul",
    dtypes=FLOATS + ("int64",))
add(name="mm", ref=lambda m, x, y: m.matmul(x, y), sample_inputs=matmul_samples(True), out_dtype=rule_first,
    supports_out=True, method="mm", table_name="mm", dtypes=FLOATS + ("int64",))

add(name="view", fn=lambda ns: getattr(ns, "view", None) or (lambda x, *s: x.view(*s)),
    torch_fn=lambda torch: lambda x, *s: x.view(*s),
    ref=lambda m, x, *shape: m.reshape(x, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape),
    sample_inputs=_shape_samples((((3, 4), (12,)), ((3, 4), 2, -1), ((2, 3, 4), (4, 6)), ((), (1,)), ((1,), ()),
                                  ((2, 3, 4), (-1,)), ((0, 3), (3, 0)))),
    out_dtype=rule_first, method="view", table_name="view")
add(name="reshape", ref=lambda m, x, *shape: m.reshape(
    x, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape),
    sample_inputs=_shape_samples((((3, 4), (12,)), ((3, 4), 2, -1), ((), (1, 1)), ((2, 3, 4), (4, -1))),
                                 transposed=(((4, 3), (12,)), ((4, 3), (2, 6)), ((4, 3), (3, 4)))),
    out_dtype=rule_first, method="reshape", torch_fn=lambda torch: lambda x, *s: x.reshape(*s))
add(name="flatten", ref=_flatten_ref, sample_inputs=_shape_samples(
    (((2, 3, 4),), ((2, 3, 4), 1), ((2, 3, 4), 0, -2), ((),), ((5,),), ((2, 3, 4), -2, -1)),
    transposed=(((4, 3),),)), out_dtype=rule_first, method="flatten")
add(name="permute", ref=lambda m, x, *dims: m.transpose(x, dims[0] if len(dims) == 1 and not isinstance(
    dims[0], int) else dims), sample_inputs=_shape_samples(
    (((2, 3, 4), (2, 0, 1)), ((2, 3, 4), -1, 0, 1), ((), ()), ((3, 4), (1, 0))), transposed=(((4, 3), (1, 0)),)),
    out_dtype=rule_first, method="permute", table_name="permute", torch_fn=lambda torch: lambda x, *d: x.permute(*d),
    api=lambda xa, x, *dims: xa.permute_dims(x, dims[0] if len(dims) == 1 and not isinstance(dims[0], int)
                                             else dims))
add(name="transpose", ref=_transpose_ref, sample_inputs=_shape_samples(
    (((2, 3, 4), 0, 2), ((2, 3, 4), -1, 0), ((3, 4), 0, 1), ((), 0, -1), ((5,), 0, 0))),
    out_dtype=rule_first, method="transpose", table_name="transpose")
add(name="t", ref=_t_ref, sample_inputs=_shape_samples((((3, 4),), ((5,),), ((),)), transposed=(((4, 3),),)),
    out_dtype=rule_first, method="t", table_name="t")
add(name="expand", ref=lambda m, x, *sizes: m.broadcast_to(x, tuple(
    x.shape[i - (len(sizes) - x.ndim)] if s == -1 else s for i, s in enumerate(sizes))),
    sample_inputs=_shape_samples((((3, 1), 3, 4), ((1,), 2, 3, 4), ((3, 1), 2, -1, 4), ((), 2, 3), ((2, 3), 2, 3))),
    out_dtype=rule_first, method="expand", table_name="expand",
    torch_fn=lambda torch: lambda x, *s: x.expand(*s))
add(name="squeeze", ref=_squeeze_ref, sample_inputs=_shape_samples(
    (((1, 3, 1),), ((1, 3, 1), 0), ((1, 3, 1), -1), ((1, 3, 1), 1), ((1, 3, 1), (0, 2)), ((),), ((), 0))),
    out_dtype=rule_first, method="squeeze", table_name="squeeze",
    api=lambda xa, x, dim=None: xa.squeeze(x, axis=_size1_axes(x.shape, dim)))
add(name="unsqueeze", ref=lambda m, x, d: m.expand_dims(x, d), sample_inputs=_shape_samples(
    (((3, 4), 0), ((3, 4), -1), ((3, 4), 1), ((), 0), ((), -1)), transposed=(((4, 3), 1),)),
    out_dtype=rule_first, method="unsqueeze", table_name="unsqueeze",
    api=lambda xa, x, d: xa.expand_dims(x, axis=d))
add(name="cat", ref=lambda m, ts, dim=0: m.concatenate(ts, axis=dim), sample_inputs=cat_samples(),
    out_dtype=rule_listed, supports_out=True, api=lambda xa, ts, dim=0: xa.concat(ts, axis=dim), table_name="cat",
    mixed=mixed_cat)
add(name="stack", ref=lambda m, ts, dim=0: m.stack(ts, axis=dim), sample_inputs=cat_samples(stack=True),
    out_dtype=rule_listed, supports_out=True, api=lambda xa, ts, dim=0: xa.stack(ts, axis=dim), table_name="stack",
    mixed=mixed_stack)

_getitem = lambda ns: operator.getitem  # noqa: E731
add(name="getitem_basic", fn=_getitem, ref=lambda m, x, i: x[i], out_dtype=rule_first,
    sample_inputs=getitem_samples([((3, 4), 1), ((3, 4), (slice(1, 3),)), ((3, 4), (slice(None), slice(None, None, 2))),
                                   ((2, 3, 4), (Ellipsis, 1)), ((3, 4), (None, slice(1, None))),
                                   ((3, 4), (-1, slice(-2, None))), ((), ()), ((), None), ((2, 3), (0, 1)),
                                   ((5,), slice(1, 4))]),
    method=lambda x, i: x.__getitem__(i))
add(name="getitem_advanced", fn=_getitem, ref=lambda m, x, i: x[_np_index(i)], out_dtype=rule_first,
    sample_inputs=getitem_samples([((3, 4), [0, 2]), ((3, 4), ([0, 1], [1, 2])), ((3, 4), (slice(None), [2, 0])),
                                   ((3, 4), [2, 2, 0]), ((2, 3, 4), (1, [0, 2])), ((3, 4), "mask"),
                                   ((3, 4), "mask0")]),
    method=lambda x, i: x.__getitem__(i))

# more records, one module per op category (each imports the helpers above and calls ``add``)
import opinfo_elementwise, opinfo_reductions, opinfo_linalg, opinfo_shapes, opinfo_indexing, opinfo_nn, opinfo_special  # noqa: E402,F401

BY_NAME = {info.name: info for info in OPS}

import opinfo_errors  # noqa: E402,F401  (attaches error_inputs to the records above, by name)
