"""The op table: one entry per op.

Each entry gives the forward over the backend namespace ``xp``, the VJPs -- one line per
input, ``(ns, g, ans, *args) -> gradient`` written against the namespace ``ns`` (``xtensor/_ns.py``:
raw backend arrays when no graph is built, differentiable xtensor ops under ``create_graph``) -- and how the op
is spelled: its torch signature (``sig``: arguments -> ``(tensors, params)``), its array-API name and signature,
and which variants exist. The
namespaces, Tensor methods, ``_`` in-place forms, ``out=`` forms and operators are generated
from these entries by ``_variants``.

Every fact about an op is a keyword of its ``defop`` call -- what its node saves, the dtypes it refuses, its
other names, its node's name, its in-place forms' overlap checks (see ``defop``) -- and nothing edits an entry
afterwards: entries and ops are fixed once made, and the table is read-only (and closed to new entries once
``xtensor`` is imported).

The entries live in ``xtensor/ops/`` (one module per category); this module holds ``defop``/``defcomposite``,
which write the table (its mapping lives in ``_registry``, low, for the namespaces that read it), and the helpers
the categories share. A *composite* is a
function written with other xtensor ops (``split``, ``std``, ``lerp``...): it needs no VJP of its
own, and gets the same generated spellings as a primitive op.
"""
from . import _dtypes
from ._backend import adapter_of
from ._dispatch import Op, node_class
from ._registry import ENTRIES as _ENTRIES, TABLE
from ._tensor import check_dim

_frozen = False

# in-place and ``out=`` refusals of written memory that overlaps an operand, per ``overlap=`` (see ``defop``)
OVERLAP_KINDS = {"elementwise": ("partial",), "scatter": ("full", "partial"), None: None}


class Entry:
    """How one op is exposed: the op plus its spellings and the facts its generated spellings check. Fixed once
    made (``defop`` is the only place an entry's facts are written)."""

    __slots__ = ("op", "kind", "sig", "api", "api_sig", "method", "inplace", "out", "operators", "function",
                 "tensors_only", "check", "overlap", "torch_inplace", "whole")

    def __init__(self, op, kind, sig, api, api_sig, method, inplace, out, operators, function, tensors_only=False,
                 check=None, overlap=None, torch_inplace=False, whole=None):
        if overlap not in OVERLAP_KINDS:
            raise ValueError(f"overlap={overlap!r}: expected one of {sorted(k for k in OVERLAP_KINDS if k)} or None")
        set_ = object.__setattr__
        for field, value in zip(self.__slots__,
                                (op, kind, sig, api, api_sig, method, inplace, out, operators, function, tensors_only,
                                 check, overlap, torch_inplace, whole)):
            set_(self, field, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"op table entries are fixed once made: declare {name}= in the op's defop call")


def _register(names, entry):
    if _frozen:
        raise RuntimeError(f"op table is frozen after import: {names[0]!r} cannot be registered now")
    for name in names:
        _ENTRIES[name] = entry


def freeze():
    """No more entries: called once every module that registers one is imported."""
    global _frozen
    _frozen = True


def defop(name, fwd, vjps=None, *, kind="custom", sig=None, api=None, api_sig=None, method=True, inplace=False,
          out=False, operators=(), function=True, aliases=(), refuses=None, tensors_only=False, check=None,
          overlap=None, torch_inplace=False, **op_options):
    """Register an op and its spellings; every fact about the op is a keyword here:

    - ``api``: its array-API name (``True``: the same as ``name``); ``aliases``: PyTorch's other names for it;
    - ``saves``: what its node keeps for the VJPs, as derivatives.yaml declares it (see ``Op``);
    - ``refuses``: the input dtype kinds PyTorch has no kernel for (see ``refusing``): a string of kinds, or a dict
      kind -> ``(error type, message)`` where PyTorch words the refusal otherwise (None: the default wording);
    - ``tensors_only``: a binary op whose torch function and method refuse Python numbers (``maximum(x, 2)``);
    - ``check``: ``(input, other) -> None`` raising PyTorch's error for a binary op's operands of different
      dtypes (``x - True``), run off the fast path;
    - ``overlap``: which overlaps of the written tensor with an operand the in-place (and ``out=``) forms refuse:
      ``"elementwise"`` (the default of unary and binary ops: partial overlap) or ``"scatter"`` (any);
    - ``torch_inplace``: the ``_`` in-place form is also a torch function (``torch.relu_(x)``);
    - ``node``: PyTorch's name for its backward node, where it is not ``<Name>Backward0``;
    - ``whole``: a reduction's params after its dims when it reduces every element (``(False,)``: keepdim): the
      method and function called with the tensor alone run that reduction through ``whole_reduction``, and
      ``host_whole`` is its forward on numpy arrays (one C call with ``fwd``'s bits).
    """
    if refuses is not None:
        kinds, errors = (refuses, None) if isinstance(refuses, str) else \
            ("".join(refuses), {k: v for k, v in refuses.items() if v is not None})
        op_options["cast"] = refusing(name.strip("_"), kinds, op_options.get("cast"), errors)
    op = Op(name, fwd, vjps, **op_options)
    if overlap is None and kind in ("unary", "binary"):
        overlap = "elementwise"
    _register((name, *aliases), Entry(op, kind, sig, name if api is True else api, api_sig, method, inplace, out,
                                      operators, function, tensors_only, check, overlap, torch_inplace,
                                      op if op.whole is not None else None))
    return op


def defcomposite(name, impl, *, api=None, api_impl=None, method=True, inplace=False, out=False, function=True,
                 aliases=(), torch_inplace=False, overlap=None, whole=None):
    """Register a function written in xtensor ops; ``api=True`` means the array-API name equals ``name``; ``whole``:
    the reduction op (declaring ``whole=``) that ``name(x)`` and ``x.name()`` are, run through ``whole_reduction``; the
    other keywords as ``defop``'s."""
    _register((name, *aliases), Entry(None, "composite", impl, name if api is True else api, api_impl, method,
                                      inplace, out, (), function, torch_inplace=torch_inplace, overlap=overlap,
                                      whole=whole))
    return impl


def renamed(t, name):
    """``t`` with its node renamed ``name``: what PyTorch calls the node of a result xtensor computes with other ops
    (``split``'s views are ``SplitBackward0``, ``mse_loss``'s ``MseLossBackward0``); only the name changes."""
    fn = t._grad_fn
    if fn is not None:
        fn.__class__ = node_class(name)
    return t


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


def dims_of(dim, ndim):
    """Normalized, sorted reduction dims (all dims for ``None``)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    out = [check_dim(d, ndim) for d in dim]
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
    return tuple(sorted(out)) if ndim else ()


def native_dtype(xp, dtype):
    """``xp``'s dtype for ``dtype`` (an op's forward has only the namespace). Where the namespace lacks the name, the
    adapter computing with it answers: numpy's holds ml_dtypes' bfloat16; one without the dtype raises the factories'
    TypeError naming the dtype and the backend (array_api_strict's ``float16``), not the namespace's own error.
    Answers are kept per namespace and dtype: a name the namespace lacks costs ~1 us to miss, and the adapter a walk
    over the loaded ones to find."""
    nd = _NATIVE.get((xp, dtype))
    if nd is not None:
        return nd
    nd = getattr(xp, dtype.name, None)
    if nd is None:
        adapter = adapter_of(xp)
        if adapter is None:
            raise TypeError(f"dtype {dtype} is not supported by the array namespace {getattr(xp, '__name__', xp)!r}")
        nd = adapter.native_dtype(dtype)
    _NATIVE[(xp, dtype)] = nd
    return nd


_NATIVE = {}  # (namespace, DType) -> the namespace's dtype
