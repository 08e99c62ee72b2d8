"""xtensor's own dtype objects and promotion rules, shared by both namespaces.

Promotion is a table we own, never an accident of the backend: the array-API
table for tensor-tensor promotion within a kind, PyTorch's category rule across
kinds, and PyTorch's three-tier rule for 0-dim tensors and Python scalars
(``c10::ResultTypeState``: dimensioned tensors outrank 0-dim tensors, which
outrank Python scalars, unless a lower tier is of a higher category).
"""
import builtins
import functools
import math
import numbers
import threading

import numpy as np
from numpy import bool_ as _np_bool
from numpy import iinfo as _iinfo

__all__ = [
    "DType", "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "ALL_DTYPES", "by_name",
    "promote_types", "result_type", "can_cast", "get_default_dtype", "set_default_dtype",
    "default_dtype_for", "scalar_dtype", "numpy_dtype", "with_default_float",
]

_builtin_bool = __builtins__["bool"] if isinstance(__builtins__, dict) else __builtins__.bool


class DType:
    """A dtype: a name, a kind ('b', 'i', 'u', 'f', 'c') and a size in bytes."""

    __slots__ = ("name", "kind", "itemsize", "__weakref__")

    def __init__(self, name, kind, itemsize):
        self.name, self.kind, self.itemsize = name, kind, itemsize

    @property
    def dtype(self):
        """The numpy dtype: what NumPy reads when handed an object with a ``dtype`` (``np.dtype(xtensor.float64)``,
        ``np.zeros(2).astype(xp.float64)``), so array-API code that mixes in NumPy calls on our dtypes works;
        xtensor's dtypes look like NumPy's (``kind``, ``itemsize``) and now are understood by it as such."""
        return numpy_dtype(self)

    @property
    def is_floating_point(self):
        return self.kind == "f"

    @property
    def is_complex(self):
        return self.kind == "c"

    @property
    def is_signed(self):
        return self.kind in "ifc"

    @property
    def bits(self):
        return self.itemsize * 8

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float16": complex64, "bfloat16": complex64, "float32": complex64,
                "float64": complex128}.get(self.name, self)

    @property
    def scalar_name(self):
        """PyTorch's ScalarType name (``Float``, ``Long``), used in its error messages and ``type()``."""
        return _SCALAR_NAMES[self.name]

    def check_fits(self, value):
        """PyTorch's error for a Python number an integer dtype cannot hold (NaN, inf, out of range), as a
        scalar fill (``masked_fill``, ``fill_``, ``full``) meets it."""
        if self.kind in "iu" and isinstance(value, (int, float)) and not isinstance(value, builtins.bool):
            info = _iinfo(self.name)
            if not (math.isfinite(value) and info.min <= value <= info.max):
                c_name = "int" if self.name == "int32" else f"{self.name}_t"
                raise RuntimeError(f"value cannot be converted to type {c_name} without overflow")

    def __repr__(self):
        return f"xtensor.{self.name}"

    def __reduce__(self):
        return (by_name, (self.name,))


bool = DType("bool", "b", 1)
uint8 = DType("uint8", "u", 1)
uint16 = DType("uint16", "u", 2)
uint32 = DType("uint32", "u", 4)
uint64 = DType("uint64", "u", 8)
int8 = DType("int8", "i", 1)
int16 = DType("int16", "i", 2)
int32 = DType("int32", "i", 4)
int64 = DType("int64", "i", 8)
float16 = DType("float16", "f", 2)
bfloat16 = DType("bfloat16", "f", 2)
float32 = DType("float32", "f", 4)
float64 = DType("float64", "f", 8)
complex64 = DType("complex64", "c", 8)
complex128 = DType("complex128", "c", 16)

_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
                 "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "float16": "Half",
                 "bfloat16": "BFloat16",
                 "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}
ALL_DTYPES = (bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
              float16, bfloat16, float32, float64, complex64, complex128)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# PyTorch's aliases (torch.float, torch.long, ...).
ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
           "short": int16, "cfloat": complex64, "cdouble": complex128}


# NumPy's scalar types, what numpy returns for 0-d results (``add`` of 0-d arrays, a full reduction): a tensor never
# holds one -- its value is a 0-d array, writable, sharing memory, exported through DLPack -- so each place that makes
# a result from a backend array checks against this set (the numpy adapter adds ml_dtypes' bfloat16 when it loads).
NUMPY_SCALARS = set(np.sctypeDict.values())


def by_name(name):
    """The dtype called ``name`` ('float32', or a PyTorch alias such as 'long')."""
    try:
        return _BY_NAME.get(name) or ALIASES[name]
    except KeyError:
        raise TypeError(f"unknown dtype {name!r}; expected one of {sorted(_BY_NAME)}") from None


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _same_kind_table():
    """The array-API promotion table within a category (uint/int mix included)."""
    table = {}
    ints = [uint8, uint16, uint32, uint64, int8, int16, int32, int64]
    for a in ints:
        for b in ints:
            if a.kind == b.kind:
                table[a, b] = a if a.itemsize >= b.itemsize else b
            else:
                u, s = (a, b) if a.kind == "u" else (b, a)
                if s.itemsize > u.itemsize:
                    table[a, b] = s
                elif u.itemsize < 8:
                    table[a, b] = {1: int16, 2: int32, 4: int64}[u.itemsize]
    for group in ([float16, bfloat16, float32, float64], [complex64, complex128]):
        for a in group:
            for b in group:
                table[a, b] = a if a.itemsize >= b.itemsize else b
    table[float16, bfloat16] = table[bfloat16, float16] = float32  # neither holds the other (PyTorch)
    table[bool, bool] = bool
    return table


_SAME_KIND = _same_kind_table()


def promote_types(a, b):
    """The dtype two tensors of dtypes ``a`` and ``b`` promote to (PyTorch's ``promote_types``)."""
    if a is b:
        return a
    r = _SAME_KIND.get((a, b))
    if r is not None:
        return r
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca == cb:
        raise TypeError(f"promotion of {a} and {b} is not defined (the array API leaves uint64/int64 open)")
    hi, lo = (a, b) if ca > cb else (b, a)
    if lo.kind in "iu" and _defaults.integers_as_default_float:  # (see ``with_default_float``)
        return promote_types(hi, _defaults.float_dtype)
    if hi.kind == "c" and lo.kind == "f":
        return _SAME_KIND[hi, lo.to_complex()]
    return hi


class _Defaults(threading.local):
    float_dtype = float32
    integers_as_default_float = False  # an integer array meeting a floating one counts as the default float


_defaults = _Defaults()


def get_default_dtype():
    return _defaults.float_dtype


def set_default_dtype(d):
    if not isinstance(d, DType) or d.kind != "f":
        raise TypeError(f"set_default_dtype: only floating-point types are supported as the default type, got {d}")
    _defaults.float_dtype = d


def with_default_float(fn, default, finish):
    """``fn`` run with ``default()`` as the default float dtype (and its complex): how a namespace with defaults
    of its own (the array API's float64) runs code it shares with ``xtensor``'s (PyTorch's float32). Integer and
    bool inputs that an op computes in floating point, Python floats and new float tensors then get that dtype, and
    an integer array meeting a floating one counts as one of that dtype (``int64`` with ``float32`` gives
    ``float64``, as NumPy gives and SciPy's rule for the promotions the standard leaves open); a Python int keeps
    the array's dtype (``float32`` with ``2`` stays ``float32``, as the standard asks). ``finish(result, args,
    kwargs)`` gives what the call returns (the array API marks its tensors as its own)."""
    defaults = _defaults

    @functools.wraps(fn)
    def run(*args, **kwargs):
        saved, saved_ints = defaults.float_dtype, defaults.integers_as_default_float
        defaults.float_dtype, defaults.integers_as_default_float = default(), True
        try:
            result = fn(*args, **kwargs)
        finally:
            defaults.float_dtype, defaults.integers_as_default_float = saved, saved_ints
        return finish(result, args, kwargs)
    return run


def default_dtype_for(kind):
    """The dtype a Python scalar of this kind gets: PyTorch's defaults."""
    if kind == "f":
        return _defaults.float_dtype
    if kind == "c":
        return complex128 if _defaults.float_dtype is float64 else complex64
    return int64 if kind == "i" else bool


def scalar_dtype(value):
    """The dtype PyTorch gives a bare Python scalar."""
    t = type(value)
    if t is float:
        return _defaults.float_dtype
    if t is int:
        return int64
    if t is _builtin_bool:
        return bool
    if t is complex:
        return default_dtype_for("c")
    if isinstance(value, numbers.Number):  # NumPy scalars and other numeric types
        kind = "b" if isinstance(value, _np_bool) else "i" if isinstance(value, numbers.Integral) \
            else "f" if isinstance(value, numbers.Real) else "c"
        return default_dtype_for(kind)
    raise TypeError(f"expected a Tensor or a Python scalar, got {t.__name__}")


def _combine_categories(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":
        return higher.to_complex() if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher is bool or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """PyTorch's result type of tensors (objects with ``dtype`` and ``ndim``), dtypes and Python scalars."""
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, DType):
            dim = x if dim is None else promote_types(dim, x)
        elif hasattr(x, "dtype") and hasattr(x, "ndim"):
            d = x.dtype
            if x.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = scalar_dtype(x)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine_categories(dim, _combine_categories(zero, wrapped))


def can_cast(from_, to):
    """PyTorch's ``can_cast``: no casting to a lower category (float -> int, complex -> float, int -> bool)."""
    return _CATEGORY[from_.kind] <= _CATEGORY[to.kind]


class finfo:
    """Machine limits of a floating dtype (``torch.finfo``; ``dtype`` is the name, as PyTorch reports it)."""

    def __init__(self, type=None):
        d = get_default_dtype() if type is None else _dtype_of(type)
        if d.kind not in "fc":
            raise TypeError(f"finfo(): expected a floating point or complex dtype, got {d}")
        real = d.to_real()
        if real is bfloat16:  # numpy's finfo does not know ml_dtypes' bfloat16; ml_dtypes' own finfo does
            import ml_dtypes
            info = ml_dtypes.finfo(numpy_dtype(real))
        else:
            info = np.finfo(real.name)
        self.bits, self.dtype = info.bits, real.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # PyTorch's exact power of ten

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (``torch.iinfo``)."""

    def __init__(self, type):
        d = _dtype_of(type)
        if d.kind not in "biu":
            raise TypeError(f"iinfo(): expected an integer dtype, got {d}")
        info = np.iinfo("uint8" if d.kind == "b" else d.name)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), d.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def numpy_dtype(d):
    """The numpy dtype of ``d``; bfloat16, which numpy lacks, is ``ml_dtypes.bfloat16`` (installed with jax)."""
    if d is not bfloat16:
        return np.dtype(d.name)
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError("dtype xtensor.bfloat16 needs the ml_dtypes package on the host (numpy has no bfloat16); "
                        "install it with `pip install ml_dtypes`") from None
    return np.dtype(ml_dtypes.bfloat16)


def _dtype_of(type):
    """A DType from a DType or anything with a ``.dtype`` (a tensor)."""
    d = type if isinstance(type, DType) else getattr(type, "dtype", type)
    if not isinstance(d, DType):
        raise TypeError(f"expected a dtype or a tensor, got {type!r}")
    return d
