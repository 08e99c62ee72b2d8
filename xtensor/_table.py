"""The op table: one entry per op.

Each entry gives the forward over the backend namespace ``xp``, the VJPs -- one line per
input, ``(ns, g, ans, *args) -> gradient`` written against the namespace ``ns`` (``xtensor/_ns.py``:
raw backend arrays when no graph is built, differentiable xtensor ops under ``create_graph``), or,
for ops not yet converted, ``(g, ans, *args)`` in xtensor ops -- and how the op is spelled: its torch signature (``sig``: arguments ->
``(tensors, params)``), its array-API name and signature, and which variants exist. The
namespaces, Tensor methods, ``_`` in-place forms, ``out=`` forms and operators are generated
from these entries by ``_variants``.

The entries live in ``xtensor/ops/`` (one module per category); this module holds the table
itself, ``defop``/``defcomposite`` and the helpers the categories share. A *composite* is a
function written with other xtensor ops (``split``, ``std``, ``lerp``...): it needs no VJP of its
own, and gets the same generated spellings as a primitive op.
"""
from . import _dtypes
from ._dispatch import Op

TABLE = {}


class Entry:
    """How one op is exposed: the op plus its spellings."""

    __slots__ = ("op", "kind", "sig", "api", "api_sig", "method", "inplace", "out", "operators", "function",
                 "tensors_only", "check")

    def __init__(self, op, kind, sig, api, api_sig, method, inplace, out, operators, function):
        self.op, self.kind, self.sig, self.api, self.api_sig = op, kind, sig, api, api_sig
        self.method, self.inplace, self.out, self.operators, self.function = \
            method, inplace, out, operators, function
        self.tensors_only = False  # a binary op whose torch function and method refuse Python numbers
        # a binary op's check of operands of different dtypes, ``(input, other)`` -> raises PyTorch's error (``sub``
        # of a bool); its torch spellings run it wherever the operands are not of one dtype (off the fast path)
        self.check = None


def defop(name, fwd, vjps=None, *, kind="custom", sig=None, api=None, api_sig=None, method=True,
          inplace=False, out=False, operators=(), function=True, **op_options):
    """Register an op and its spellings; ``api=True`` means the array-API name equals ``name``."""
    op = Op(name, fwd, vjps, **op_options)
    TABLE[name] = Entry(op, kind, sig, name if api is True else api, api_sig, method, inplace, out,
                        operators, function)
    return op


def defcomposite(name, impl, *, api=None, api_impl=None, method=True, inplace=False, out=False, function=True):
    """Register a function written in xtensor ops; ``api=True`` means the array-API name equals ``name``."""
    TABLE[name] = Entry(None, "composite", impl, name if api is True else api, api_impl, method, inplace, out,
                        (), function)
    return impl


def to_float(d):
    return d if d.kind in "fc" else _dtypes.get_default_dtype()


def refusing(name, kinds, cast=None, errors=None):
    """A ``cast`` that first refuses the input dtypes PyTorch's kernel has no implementation for -- ``kinds``:
    'b' bool, 'i' integers, 'c' complex -- with PyTorch's ``"name" not implemented for 'Bool'``, or with the
    ``(type, message)`` that ``errors`` gives for a kind (``{}`` in the message: the dtype's PyTorch name), so
    no backend answers first (numpy takes ``abs`` of bools, array_api_strict refuses in its own words). Then
    ``cast`` (None: compute in the input dtype)."""
    errors = errors or {}

    def check(d):
        kind = "i" if d.kind == "u" else d.kind
        if kind in kinds:
            error_type, message = errors.get(kind, (NotImplementedError, f'"{name}" not implemented for \'{{}}\''))
            raise error_type(message.format(d.scalar_name))
        return d if cast is None else cast(d)
    return check


def sum_dtype(d):
    return _dtypes.int64 if d.kind in "biu" else d


def as_bool(xp, x):
    """``x`` (an array or a Python scalar) as booleans."""
    return xp.astype(x, xp.bool) if hasattr(x, "dtype") else bool(x)


def as_uint8(xp, x):
    """Booleans as numbers: the array API orders and adds numbers only."""
    return xp.astype(x, xp.uint8) if hasattr(x, "dtype") else int(x)


def via_uint8(fwd):
    """A ``bool_fwd`` for an op that orders its inputs (max, sort...): ``fwd`` on bool arrays as uint8, and its
    uint8 results as bools again (the array API orders numbers only: array_api_strict refuses bools)."""
    def bool_fwd(xp, *args):
        out = fwd(xp, *(as_uint8(xp, a) if getattr(a, "dtype", None) == xp.bool else a for a in args))
        back = [xp.astype(o, xp.bool) if o.dtype == xp.uint8 else o for o in (out if isinstance(out, tuple) else (out,))]
        return tuple(back) if isinstance(out, tuple) else back[0]
    return bool_fwd


def where_zero(cond, g):
    """``g`` where ``cond`` holds, else 0 (``cond`` may be a plain bool when an operand was a scalar)."""
    if not hasattr(cond, "_dtype"):
        return g if cond else g * 0
    return g.where(cond, g.new_zeros(()))


def dims_of(dim, ndim):
    """Normalized, sorted reduction dims (all dims for ``None``)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    n = max(ndim, 1)
    out = []
    for d in dim:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
    return tuple(sorted(out)) if ndim else ()


def unreduce(g, shape, dims, keepdim):
    """Broadcast a reduction's gradient back over the reduced ``dims`` of ``shape``."""
    if not keepdim and dims and g.ndim:
        g = g.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return g.expand(shape)


def native_dtype(xp, dtype):
    """``xp``'s dtype for ``dtype``; bfloat16 on numpy, which lacks it, is ml_dtypes'."""
    nd = getattr(xp, dtype.name, None)
    return nd if nd is not None else _dtypes.numpy_dtype(dtype)
