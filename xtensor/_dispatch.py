"""Op entries and the one dispatch path every call takes.

An ``Op`` is one row of the op table: a forward written against the backend's array-API
namespace ``xp`` (native arrays in, native array out), a VJP per tensor input, a dtype rule, and
for view ops the strided-metadata rule. A VJP ``(ns, g, ans, *args)`` is written against a
namespace (``_ns``): it runs on raw arrays when no graph is built and on Tensors (differentiable)
under ``create_graph``. ``apply`` runs an op: promote, unify backends, run the forward, wrap the
result (as a view of the input's storage for view ops), and record a node when grad is needed.
Broadcast gradients are reduced in one place per mode (``_fit``, ``OpNode._run_raw``). The function, method,
in-place, ``out=``, operator and array-API variants are all generated from the entry
(``variants``).
"""
import re

import numpy as np

from . import _autocast, _dtypes
from ._autograd import SCALAR_EDGE, Node, accumulator_of, freed_error
from ._ns import RAW_NS, TENSOR_NS, raw_ns
from ._registry import TABLE
from ._tensor import NotStrided, Tensor, ViewMeta
from ._modes import grad_state as _grad_state
from ._autocast import state as _autocast_state
from ._quiet import quiet, restore

__all__ = ["Op", "apply", "whole_reduction", "wrap", "make_view", "detached", "history_alias", "unbroadcast", "Dims",
           "Dims2", "overload_name", "edge_of", "view_grad_fn"]

_new = object.__new__
_NUMPY_SCALARS = _dtypes.NUMPY_SCALARS  # a result never holds one (``_dtypes.NUMPY_SCALARS``): a 0-d array instead


def _camel(name):
    return "".join(part.capitalize() for part in name.strip("_").split("_"))


class Op:
    """One op table entry."""

    def __init__(self, name, fwd, vjps=None, *, vjp_all=None, cast=None, view=None, node=None,
                 differentiable=True, nout=1, saves=None, names=None, scalar_edges=True, bool_fwd=None,
                 raw_any_dtype=(), whole=None, host_whole=None):
        self.name = name
        self.fwd = fwd
        # a reduction ``(x, dims, *params)``: the params after the dims of its reduction over every element (sum's
        # ``(keepdim=False, dtype=None)``), which its spellings' call with the tensor alone runs through
        # ``whole_reduction``
        self.whole = whole
        # that reduction's forward on a numpy array of 4 or 8-byte floats, ``host_whole(array, dims)``: one C call
        # (``np.add.reduce``) where ``fwd``'s Python frames cost as much as numpy's reduction, with ``fwd``'s bits and
        # the input's dtype
        self.host_whole = host_whole
        self.bool_fwd = bool_fwd  # the forward when computing in bool (the array API lacks bool + bool)
        self.vjps = tuple(vjps or ())
        self.vjp_all = vjp_all  # one function returning every input's gradient (variadic ops)
        self.cast = cast  # DType -> DType the inputs are computed in (None: the promoted dtype)
        self.view = view  # (shape, stride, offset, *params) -> (shape, stride, offset) for view ops
        self.differentiable = differentiable
        self.nout = nout
        self.node_cls = node_class(node or f"{_camel(name)}Backward0")
        self.names = names  # (*tensor args, *params) -> node name, where PyTorch names overloads apart
        # Whether a Python-scalar operand shows as ``(None, 0)`` in next_functions: PyTorch wraps
        # scalars into tensors for add/sub/mul/div, but pow and rsub take them as plain scalars.
        self.scalar_edges = scalar_edges
        fns = self.vjps + ((vjp_all,) if vjp_all else ())
        written = [fn for fn in fns if fn is not None]
        # argument positions whose dtype a VJP does not compute with (a condition, a cast's source)
        self.raw_any_dtype = raw_any_dtype
        self.saves = saves
        if written and saves is None:
            raise TypeError(f"op {name}: declare what its node saves for its VJPs (saves=, see _declared)")
        # per VJP, ``(input positions, outputs)`` its node keeps and version-checks (as PyTorch's saved tensors)
        declarations = _per_vjp(saves, len(fns))
        self._needs = [_declared(d) for d in declarations]
        # what _record decides per op rather than per call
        self._saves_any = any(positions or uses_out for positions, uses_out in self._needs)
        # inputs no VJP reads, not even their metadata: a node keeps only their metadata (``InputMeta``)
        read = {_position(token) for d in declarations for token in d if token not in ("*", "meta*") and
                not (isinstance(token, str) and token.startswith("result"))}
        self._unread = () if vjp_all is not None or any("*" in d or "meta*" in d for d in declarations) else \
            tuple(i for i in range(len(self.vjps)) if i not in read)
        self._plans = {}
        # what ``_record`` reads of the op on every node, in one attribute
        self._recording = (self.node_cls, names, nout, view is not None, self._saves_any, self._unread)
        # the forward as one compiled kernel per input dtype (and rank, for ``x.sum()``) on backends that compile
        # ops (jax): ``(kernel, result dtype)`` by key, see ``kernel_forward``; None where the result is not one array
        self._kernels = {} if view is None and nout == 1 else None
        self._fixed = True

    def __setattr__(self, name, value):
        if self.__dict__.get("_fixed"):
            raise AttributeError(f"op {self.name} is fixed once made: declare {name}= in its defop call")
        object.__setattr__(self, name, value)

    def save_plan(self, runs):
        """``(argument positions, whether the output)`` the VJPs read when the ones marked in ``runs`` run
        (``True``: all of them); worked out once per combination. ``_EVERY_TENSOR``: every tensor argument."""
        plan = self._plans.get(runs)
        if plan is None:
            flags = (True,) * len(self._needs) if runs is True else runs
            positions, uses_out = [], False
            for (read, out), run in zip(self._needs, flags):
                if run:
                    positions += [p for p in read if p not in positions]
                    uses_out = uses_out or out
            plan = self._plans[runs] = (_EVERY_TENSOR if "*" in positions else tuple(positions), uses_out)
        return plan

    def __call__(self, tensors, params=()):
        """The op on Tensors, differentiable (``apply``): how the layers under the generated one call an op they
        take from the table."""
        return apply(self, tensors, params)

    def __repr__(self):
        return f"<op {self.name}>"


_EVERY_TENSOR = ("*",)  # a save plan's positions when a VJP reads every tensor argument (``saves="*"``)


def _per_vjp(saves, n):
    """A ``saves=`` declaration as one declaration per VJP: a flat one holds for every VJP, a tuple of ``n`` tuples
    names each VJP's own (``mul`` keeps ``other`` for ``input``'s gradient, ``input`` for ``other``'s)."""
    if saves is None:
        return [()] * n
    if saves and all(isinstance(d, tuple) for d in saves):
        if len(saves) != n:
            raise TypeError(f"saves=: {len(saves)} declarations for {n} VJPs")
        return list(saves)
    return [saves] * n


def _position(token):
    """The input position a ``saves=`` token names: ``2`` (the input, kept and version-checked) or ``"meta2"`` (only
    its metadata -- shape, dtype, device -- is read: kept, not version-checked)."""
    return token if isinstance(token, int) else int(token[len("meta"):])


def _declared(saves):
    """One VJP's ``saves=`` declaration as ``(input positions, outputs)`` its node keeps and version-checks: ints are
    argument positions (one may hold a tuple of tensors, a TensorList such as index_put's indices: each is
    version-checked), ``"*"`` every tensor argument, ``"result"`` every output and ``"resultN"`` output N alone
    (derivatives.yaml's names: ``sort`` keeps ``indices``, result1); ``"metaN"`` input N's metadata only (its shape:
    PyTorch's ``self.sym_sizes()``; ``"meta*"``: every input's), which is neither version-checked nor freed. As derivatives.yaml, the declaration
    is checked against what each VJP reads (tests/test_saved_tensors.py)."""
    positions = tuple(s for s in saves if not isinstance(s, str) or s == "*")
    outputs = [s for s in saves if isinstance(s, str) and s.startswith("result")]
    if not outputs or "result" in outputs:
        return positions, bool(outputs)
    return positions, frozenset(int(s[len("result"):]) for s in outputs)


_node_classes = {}


def node_class(name):
    """The Node subclass called ``name`` (``AddBackward0``), made once."""
    cls = _node_classes.get(name)
    if cls is None:  # setdefault: threads racing here all get the first class made
        cls = _node_classes.setdefault(name, type(name, (OpNode,), {"__slots__": ()}))
    return cls


class OpNode(Node):
    """A node of an op-table op: keeps the op's arguments (tensors as given) for its VJPs, and each output its
    VJPs read as ``(array, attributes, version, backend, dtype)`` (``attributes``: the output's ``__dict__``, where
    its storage lands if it is ever made, see ``_saved_output``) -- never the output tensor, which holds the node.

    ``_raw_ns``: the raw namespace its VJPs run on when no graph is being built (see ``_ns``), or None when
    they need Tensors (arguments of mixed backends or dtypes)."""

    __slots__ = ("op", "_args", "_out", "_saved_at", "_saved_versions", "_raw_ns")  # (n_outputs: Node's 1 unless set)

    def apply(self, *grads):
        """The VJPs on Tensors (the engine under ``create_graph``, and ``grad_fn.apply(g)`` / ``grad_fn(g)``)."""
        args = self._args
        if args is None:
            raise freed_error()
        self._check_saved()
        op = self.op
        g = grads[0] if op.nout == 1 else grads
        if op.nout == 1 and g is None:
            return (None,) * len(self._edges)
        out = self._saved_outputs()
        if op.vjp_all is not None:
            raw = op.vjp_all(TENSOR_NS, g, out, *args)
        else:
            raw = [fn(TENSOR_NS, g, out, *args) if edge[0] is not None else None
                   for fn, edge in zip(op.vjps, self._edges)]
        return [_fit(gi, x) for gi, x in zip(raw, args)]

    def _run_raw(self, grads):
        """The same VJPs on backend arrays (``grads`` raw): no Tensor, no dispatch, no node."""
        args = self._args
        if args is None:
            raise freed_error()
        out = self._out
        if self._saved_versions or out is not None:
            self._check_saved()
        op = self.op
        if op.nout == 1:
            g = grads[0]
            if g is None:
                return (None,) * len(self._edges)
            if out is not None:
                out = out[0]
        else:
            g = grads
            if out is not None:
                out = tuple([None if o is None else o[0] for o in out])
        ns = self._raw_ns
        values = []  # (loops, not comprehensions: each of those is one more Python frame per node)
        for a in args:
            values.append((a._arr if a._arr is not None else a._refresh()) if isinstance(a, Tensor) else a)
        if op.vjp_all is not None:
            raw = list(op.vjp_all(ns, g, out, *values))
            return [None if gi is None or not isinstance(args[i], (Tensor, InputMeta)) else _fit_raw(ns, gi, values[i])
                    for i, gi in enumerate(raw)]
        raw = []
        for fn, (child, _), v in zip(op.vjps, self._edges, values):  # (an input with an edge is a tensor or its meta)
            gi = None if child is None else fn(ns, g, out, *values)
            if gi is not None and (gi.shape != v.shape or gi.dtype is not v.dtype):
                gi = _fit_raw(ns, gi, v)
            raw.append(gi)
        return raw

    def _check_saved(self):
        """PyTorch's refusal to use saved tensors (inputs or outputs) modified in place since they were saved."""
        versions = self._saved_versions
        if versions:
            args = self._args
            for p, version in zip(self._saved_at, versions):
                t = args[p]
                if isinstance(t, Tensor):
                    st = t.__dict__.get("_storage")
                    current = 0 if st is None else st.version
                    if current != version:
                        raise _modified_error(t._dtype, t.shape, current, version, t._grad_fn, t._output_nr)
                elif type(version) is tuple:  # a list of tensors
                    for u, v in zip(t, version):
                        if saved_version(u) != v:
                            raise _modified_error(u._dtype, u.shape, saved_version(u), v, u._grad_fn, u._output_nr)
        out = self._out
        if out is not None:
            for nr, saved in enumerate(out if self.op.nout > 1 else (out,)):
                if saved is not None:
                    st = saved[1].get("_storage")
                    current = 0 if st is None else st.version
                    if current != saved[2]:
                        raise _modified_error(saved[4], saved[0].shape, current, saved[2], self, nr)

    def _saved_outputs(self):
        """The saved outputs as Tensors; under ``create_graph`` as outputs of this very node (PyTorch's
        SavedVariable), so VJPs that read them are differentiated through them."""
        out = self._out
        if out is None:
            return None
        history = _grad_state.enabled
        rebuilt = []
        for nr, saved in enumerate(out if self.op.nout > 1 else (out,)):
            if saved is None:  # an output the node does not keep
                rebuilt.append(None)
                continue
            arr, storage, version, backend, dtype = saved
            r = wrap(arr, backend, dtype)
            if history and dtype.kind in "fc":
                r._grad_fn, r._requires_grad = self, True
                if nr:
                    r._output_nr = nr
            rebuilt.append(r)
        return tuple(rebuilt) if self.op.nout > 1 else rebuilt[0]

    def release(self):
        if self._saved_versions is not None:
            self._args = None
            self._out = None
            self._saved_versions = ()

    @property
    def saved_tensors(self):
        return tuple(t for t in (self._args or ()) if isinstance(t, Tensor))


def _fit_raw(ns, g, v):
    """A raw gradient reduced to its input's shape and dtype (``v``: the input's array or its ``InputMeta``)."""
    if g.shape != v.shape:
        g = ns.unbroadcast(g, v.shape)
    if g.dtype is not v.dtype and g.dtype != v.dtype:
        g = ns.cast_like(g, v)
    return g


def _fit(g, x):
    """Reduce a broadcast gradient to its input's shape and dtype (``x``: the input, or its ``InputMeta``): the one
    place this happens."""
    if g is None or not isinstance(x, (Tensor, InputMeta)):
        return None
    ga, xa = g._arr, x._arr
    if ga is not None and xa is not None and ga.shape == xa.shape and g._dtype is x._dtype and \
            g._backend is x._backend:
        return g
    if g._backend is not x._backend:
        g = g.to(x._backend.name)
    if tuple(g.shape) != tuple(x.shape):
        g = unbroadcast(g, tuple(x.shape))
    if g._dtype is not x._dtype and x._dtype.kind in "fc":
        g = g.to(x._dtype)
    return g


unbroadcast = TENSOR_NS.unbroadcast  # the one ``unbroadcast`` (``_ns``), on Tensors


_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `xtensor.no_grad()` instead of `xtensor.inference_mode()`.")


class Dims(tuple):
    """Normalized dims that remember which overload the caller spelled: PyTorch names nodes per overload
    (``sum()`` SumBackward0, ``sum(dim)`` SumBackward1, ``squeeze(dims)`` SqueezeBackward2), and the
    normalized tuple alone cannot tell them apart. A plain tuple means overload 0."""

    __slots__ = ()
    overload = 1


class Dims2(Dims):
    __slots__ = ()
    overload = 2


def overload_name(base):
    """A ``names=`` rule for ops whose first parameter is a dims tuple: ``base`` plus its overload number."""
    names = tuple(f"{base}{overload}" for overload in range(3))
    return lambda x, dims, *rest: names[getattr(dims, "overload", 0)]


def _check_versions(node, outputs=()):
    """PyTorch's refusal to use a saved tensor that was modified in place since it was saved. ``outputs``: the
    node's saved outputs (history-free aliases), named as outputs of ``node`` itself."""
    for t, version in node._saved_versions:
        current = saved_version(t)
        if current != version:
            nr = next((i for i, o in enumerate(outputs) if o is t), None)
            producer, nr = (node, nr) if nr is not None else (t._grad_fn, t._output_nr)
            raise _modified_error(t._dtype, t.shape, current, version, producer, nr)


def saved_version(t):
    """``t``'s storage version; 0 while it has none (a storage is made on the first alias or write)."""
    st = t.__dict__.get("_storage")
    return 0 if st is None else st.version


def _modified_error(dtype, shape, current, version, producer, nr):
    which = "" if producer is None else \
        f", which is output {nr} of {re.sub(r'Backward[0-9]*$', '', type(producer).__name__)},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [xtensor.{dtype.scalar_name}Tensor {list(shape)}]{which} is at version "
        f"{current}; expected version {version} instead. Hint: the backtrace further above "
        "can point to the operation that failed to compute its gradient.")


# --------------------------------------------------------------------------- results
def wrap(arr, backend, dtype=None):
    """A new root tensor over backend array ``arr``."""
    t = _new(Tensor)
    t._arr = np.asarray(arr) if arr.__class__ in _NUMPY_SCALARS else arr
    t._backend = backend
    t._dtype = dtype if dtype is not None else backend.dtypes[arr.dtype]
    t._requires_grad = False
    t._grad_fn = None
    if _grad_state.inference:
        t._inference = True
    return t


def make_view(src, arr, meta):
    """A view of ``src`` with strided ``meta`` (a ViewMeta) whose value is ``arr``: it shares ``src``'s storage,
    and for autograd its base is ``src``'s base (or ``src`` itself), as in PyTorch."""
    t = _new(Tensor)
    t._arr = arr
    st = t._storage = src._storage
    t._view = meta
    t._backend = src._backend
    t._dtype = src._dtype
    base = src._base
    if base is None:
        base = src
    t._base = base
    t._requires_grad = base._requires_grad  # a view requires grad when its base does (kept so by writes)
    t._grad_fn = None
    t._attr_version = st.version
    creation = src._creation and src._creation[:1]
    if not _grad_state.enabled:
        creation = _INFERENCE_VIEW if _grad_state.inference else (creation or _NO_GRAD_VIEW)
    if creation is not None:
        t._creation = creation
    if st.aliases is None:
        st.track(src)
    st.track(t)
    return t


_NO_GRAD_VIEW = ("no_grad",)
_INFERENCE_VIEW = ("inference",)


def _record(op, result, args, tensors, ns=None, cls=None):
    """Attach a node for ``op`` to ``result`` (a tensor or tuple of tensors). ``ns``: the raw namespace, when the
    caller knows the tensor arguments share the result's backend and dtype; ``cls``: the node's class, when the
    caller knows it."""
    node_cls, names, nout, is_view, saves_any, unread = op._recording
    node = cls() if cls is not None else node_cls() if names is None else node_class(names(*args))()
    node.op = op
    if nout != 1:
        node.n_outputs = nout
    n = len(tensors)
    if n == 1:
        edges = node._edges = (edge_of(tensors[0]),)
    elif n == 2 and isinstance(tensors[0], Tensor) and isinstance(tensors[1], Tensor):
        edges = node._edges = (edge_of(tensors[0]), edge_of(tensors[1]))
    else:
        edges = [edge_of(t) if isinstance(t, Tensor) else None for t in tensors]
        if None in edges:
            scalar_edge = (None, 0) if _wraps_scalars(op, tensors) else SCALAR_EDGE
            edges = [scalar_edge if e is None else e for e in edges]
        edges = node._edges = tuple(edges)
    # a view's node reads only its input's shape: it keeps a history-free tensor over the same array, not the input
    # -- a write through the view makes the input's history lead to this node (a cycle, were the input kept here)
    if is_view:
        x = args[0]
        args = (wrap(x._arr if x._arr is not None else x._refresh(), x._backend, x._dtype),) + args[1:]
    node._args = args
    node._raw_ns = ns or _uniform_ns(op, result, tensors)
    if saves_any:
        # what the VJPs that will run read: one VJP per input that needs a gradient (a variadic op's one VJP); the
        # plans come from ``save_plan``'s cache, read here (a call less per node)
        runs = True if n == 1 or op.vjp_all is not None else (edges[0][0] is not None, edges[1][0] is not None) \
            if n == 2 else tuple([e[0] is not None for e in edges])
        plan = op._plans.get(runs)
        positions, uses_out = plan if plan is not None else op.save_plan(runs)
        if positions is _EVERY_TENSOR:
            positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        node._saved_at = positions
        node._saved_versions = _saved_versions(op, args, tensors, positions, uses_out) if positions else \
            (() if uses_out else None)
        node._out = (tuple(_saved_output(o) if uses_out is True or i in uses_out else None
                           for i, o in enumerate(result)) if nout > 1 else _saved_output(result)) if uses_out else None
    else:
        node._out = node._saved_versions = None
    if unread and (nout > 1 or (result._arr.size or 0) >= _KEEP_BELOW):  # (a lazy array's size: None)
        node._args = _drop_unread(args, unread)
    if nout == 1:
        if result._dtype.kind in "fc":
            result._grad_fn = node
            result._requires_grad = True
        return result
    for i, o in enumerate(result):
        if o._dtype.kind in "fc":
            o._grad_fn = node
            o._requires_grad = True
            if i:
                o._output_nr = i
    return result


def _saved_versions(op, args, tensors, positions, uses_out):
    """The storage versions of the arguments at ``positions`` that a node saves, to check at backward (PyTorch's
    saved tensors; a tensor made in inference mode is refused); None when the node keeps no tensor at all (nothing
    to free: a second backward runs)."""
    versions = None  # (all zeros until one is not: a tensor without a storage was never written)
    # whether the node keeps any tensor: a parameter read (an index) is one, a Python-scalar operand only where
    # PyTorch wraps it into a tensor
    held = uses_out
    i = 0  # (a counter, not enumerate: this runs for every node that saves an input)
    for p in positions:
        t = args[p]
        if isinstance(t, Tensor):
            held = True
            d = t.__dict__
            # a fresh result (empty __dict__), or a leaf never aliased nor written, has neither to check
            if d and ("_storage" in d or "_inference" in d):
                if "_inference" in d:  # (set in the instance only when true)
                    raise RuntimeError(_INFERENCE_SAVED)
                version = d["_storage"].version
                if version:
                    if versions is None:
                        versions = [0] * len(positions)
                    versions[i] = version
        else:
            held = held or p >= len(tensors) or _wraps_scalars(op, tensors)
            if type(t) is tuple and t and isinstance(t[0], Tensor):  # a list of tensors (index_put's indices)
                if versions is None:
                    versions = [0] * len(positions)
                versions[i] = _list_versions(t)
        i += 1
    if not held:
        return None
    return versions if versions is not None else _ZEROS[len(positions)] if len(positions) < 4 else \
        (0,) * len(positions)


_ZEROS = ((), (0,), (0, 0), (0, 0, 0))

# An input that no VJP reads (both of ``add``'s, ``sub``'s; a VJP that reads only its dtype reads it) is not kept
# by the node (PyTorch keeps only what its formulas read): it is replaced by its ``InputMeta``, what fitting a gradient
# to it needs. Inputs (and results) below this many elements are kept as they are: the swap costs more time than it
# frees.
_KEEP_BELOW = 1024


class InputMeta:
    """What a node keeps of an input its VJPs do not read: shape and dtypes (``dtype``: the backend's, as an
    array's; ``_dtype``: xtensor's), backend. ``_arr`` None: nothing of its value."""

    __slots__ = ("shape", "dtype", "_dtype", "_backend")
    _arr = None

    @classmethod
    def of(cls, t):
        meta = _new(cls)
        a = t._arr if t._arr is not None else t._refresh()
        meta.shape, meta.dtype, meta._dtype, meta._backend = a.shape, a.dtype, t._dtype, t._backend
        return meta

    @property
    def ndim(self):
        return len(self.shape)


def _drop_unread(args, positions):
    """``args`` with the large tensors at ``positions`` replaced by their metadata."""
    out = None
    for i in positions:
        t = args[i]
        if type(t) is Tensor and t._arr is not None and (t._arr.size or 0) >= _KEEP_BELOW:
            if out is None:
                out = list(args)
            out[i] = InputMeta.of(t)
    return args if out is None else tuple(out)


def _list_versions(ts):
    """The storage versions of a saved list of tensors (index_put's indices), to check at backward."""
    if any(t._inference for t in ts):
        raise RuntimeError(_INFERENCE_SAVED)
    return tuple(saved_version(t) for t in ts)


def _wraps_scalars(op, tensors):
    """Whether PyTorch takes this call's Python-scalar operands as (wrapped-number) tensors, which its nodes save."""
    shows = op.scalar_edges
    return shows(*tensors) if callable(shows) else shows


def _saved_output(o):
    """What a node keeps of an output its VJPs read: the array, the output's ``__dict__`` and its storage version --
    not the tensor, which holds the node. A fresh result has no storage yet (most never get one: ~0.5 µs each); the
    first alias or write of it makes one in that ``__dict__`` (``Tensor.__getattr__``), where the node's check finds
    it, also after the tensor itself is gone (the dict outlives it here)."""
    d = o.__dict__
    st = d.get("_storage")
    return (o._arr, d, 0 if st is None else st.version, o._backend, o._dtype)


def _uniform_ns(op, result, tensors):
    """The raw namespace when every tensor argument is on the result's backend in its dtype (or in a position
    whose dtype the VJPs do not compute with); None otherwise."""
    first = result[0] if op.nout > 1 else result
    backend, dtype = first._backend, first._dtype
    for i, t in enumerate(tensors):
        if isinstance(t, Tensor) and (t._backend is not backend or (
                t._dtype is not dtype and i not in op.raw_any_dtype)):
            return None
    return raw_ns(backend)


NO_EDGE = (None, 0)


def edge_of(t):
    """The ``(node, output_nr)`` through which gradient flows back into tensor ``t``."""
    if t._base is None:  # the common cases first: an op's result, a leaf
        fn = t._grad_fn
        if fn is not None:
            return (fn, t._output_nr)
        if t._requires_grad:
            acc = t._grad_acc
            return (acc if acc is not None else accumulator_of(t), 0)
        return NO_EDGE
    if t._base is not None:
        fn = view_grad_fn(t)
        if fn is not None:
            return (fn, t._output_nr)
        if t._requires_grad and not t._base._requires_grad:  # a view made a leaf by requires_grad_()
            return (accumulator_of(t), 0)
        return (None, 0)
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    if t._requires_grad:
        return (accumulator_of(t), 0)
    return (None, 0)


def move_retained_grad(t, fn):
    """``t``'s history is now ``fn`` (after an in-place write): its ``retain_grad`` hook moves there, as PyTorch's
    (so ``.grad`` is the gradient of the current value; ``register_hook`` hooks stay on the old node)."""
    handle = t._retains_grad
    if handle and fn is not None:
        handle.remove()
        t._retains_grad = fn._add_pre_hook(t._output_nr, handle._item[1])


def view_grad_fn(view):
    """A view's current history (PyTorch's rule): once its storage was written since the view last looked,
    it is re-derived from its base's current history, as an ``AsStridedBackward0`` over the base."""
    fn = view._grad_fn
    base = view._base
    if fn is None and not base._requires_grad:
        return None
    version = view._storage.version
    if view._attr_version != version:
        if view._creation is not None:
            raise RuntimeError(view_rebase_message(view, indirect=True))
        from ._dispatch import as_strided_node
        fn = view._grad_fn = as_strided_node(base, view)
        view._output_nr = 0
        view._attr_version = version
        move_retained_grad(view, fn)
    return fn


def view_rebase_message(view, indirect):
    """PyTorch's refusal to rewrite the history of a view made under no_grad or inference mode, or one of
    several views one op returned (``split``, ``chunk``, ``unbind``), and views of those."""
    kind = view._creation[0]
    nr = view._creation[1] if len(view._creation) > 1 else view._output_nr
    fn = view._grad_fn
    written = "its base or another view of its base has been" if indirect else "is being"
    name = re.sub(r"Backward[0-9]*$", "", type(fn).__name__) if fn is not None else None
    if kind in ("no_grad", "inference") or fn is None:
        prefix = f"Output {nr} of {name} is a view of a view which was created in" if fn is not None \
            else "A view was created in"
        msg = f"{prefix} inference mode and {written} modified inplace in normal mode." if kind == "inference" \
            else f"{prefix} no_grad mode and {written} modified inplace with grad mode enabled."
    else:
        msg = f"Output {nr} of {name} is a view and {written} modified inplace."
    if kind == "multi":
        return msg + (" This view is the output of a function that returns multiple views. Such functions do not "
                      "allow the output views to be modified inplace. You should replace the inplace operation by "
                      "an out-of-place one.")
    mode = "inference_mode" if kind == "inference" else "no_grad"
    return msg + (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                  f"code by moving both the view and the inplace either both inside the {mode} block (if you don't "
                  "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")


def as_strided_node(base, view):
    """A view's history re-derived from ``base``'s current one (PyTorch's ``AsStridedBackward0``): the view's
    gradient is scattered into the base's shape, adding where elements repeat."""
    node = node_class("AsStridedBackward0")()
    node.n_outputs = 1
    node._edges = (edge_of(base),)
    shape, stride, offset = view._view.resolve()
    if base.ndim:
        node.op = TABLE["as_strided"].op
        node._args = (detached(base), shape, stride, offset, view._view.index_in(base), None)  # no cycle via base
    else:  # every element is the base's one: the gradient is summed into it, as an expand's
        node.op = TABLE["expand"].op
        node._args = (detached(base), shape)
    node._out = None
    node._saved_versions = None
    node._raw_ns = None
    return node


def history_alias(t):
    """An alias of ``t``'s storage carrying ``t``'s current history, but not ``t`` itself: what an in-place
    write's nodes keep of the old value, so that ``t``'s new history never leads back to ``t`` (a cycle
    that would keep the graph alive after ``t`` is freed)."""
    d = detached(t)
    node, nr = edge_of(t)
    if node is not None:
        d._grad_fn, d._output_nr, d._requires_grad = node, nr, True
    return d


def detached(t):
    """An alias of ``t`` sharing storage, without history: for autograd a root of its own (PyTorch's
    ``detach()``), for storage one more alias that sees every write."""
    d = _new(Tensor)
    d._arr = t._arr
    st = d._storage = t._storage
    if t._view is not None:
        d._view = ViewMeta.of(*t._meta())
    d._backend = t._backend
    d._dtype = t._dtype
    d._requires_grad = False
    d._grad_fn = None
    if st.aliases is None:
        st.track(t)
    st.track(d)
    return d


# --------------------------------------------------------------------------- apply
def _unify(tensors):
    """The backend all tensor arguments share; host (numpy) tensors move to the other backend."""
    backend = None
    for t in tensors:
        if isinstance(t, Tensor):
            b = t._backend
            if backend is None or (backend.host and not b.host):
                backend = b
            elif b is not backend and not b.host:
                raise RuntimeError(
                    "Expected all tensors to be on the same backend, but found at least two backends, "
                    f"{backend.name} and {b.name}!")
    return backend


def _native(t, backend, dtype):
    """``t``'s value as a backend array of ``dtype`` (Python scalars pass through as scalars)."""
    if not isinstance(t, Tensor):
        if type(t) in (int, float, bool, complex) and dtype is not None:
            return backend.scalar(_scalar_as(t, dtype), backend.native[dtype])
        return t
    a = t._arr if t._arr is not None else t._refresh()
    if t._backend is not backend:
        a = backend.from_numpy(t._backend.to_numpy(a))
    if dtype is not None and t._dtype is not dtype:
        a = backend.xp.astype(a, backend.native_dtype(dtype))
    return a


def _scalar_as(value, dtype):
    """A Python scalar as a value of ``dtype``'s kind; integers wrap around as PyTorch's do."""
    kind = dtype.kind
    if kind == "f":
        return float(value)
    if kind == "c":
        return complex(value)
    if kind == "b":
        return bool(value)
    value = int(value)
    bits = dtype.itemsize * 8
    if kind == "u":
        return value % (1 << bits)
    return (value + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))


def apply(op, tensors, params=()):
    """Run ``op`` on ``tensors`` (Tensors or, for elementwise ops, Python scalars) and ``params``."""
    if _autocast_state.active:  # an autocast region: listed ops cast their inputs first (xtensor/_autocast.py)
        tensors = _autocast.cast_inputs(op.name, tensors)
    if len(tensors) == 1 and type(tensors[0]) is Tensor:  # the common single-input case, kept short
        x = tensors[0]
        backend = x._backend
        a = x._arr if x._arr is not None else x._refresh()
        dtype = x._dtype
        if op.cast is not None:
            dtype = op.cast(dtype)
            if dtype is not x._dtype:
                a = backend.xp.astype(a, backend.native_dtype(dtype))
        arrays = (a,)
        kernel_key = dtype if type(a) is backend.kernel_array_type and not params and op._kernels is not None \
            else None
    else:
        kernel_key = None
        backend = _unify(tensors)
        if backend is None:
            raise TypeError(f"{op.name}(): expected at least one Tensor argument")
        dtype = _promote(tensors)
        if op.cast is not None:
            dtype = op.cast(dtype)
        try:
            arrays = [_native(t, backend, dtype) for t in tensors]
        except NotStrided as e:  # a sparse operand: its layout computes the op (or refuses it, as PyTorch)
            return type(e.tensor).dispatch(op, tensors, params)
    fwd = op.bool_fwd if op.bool_fwd is not None and dtype is _dtypes.bool else op.fwd
    errors = quiet()  # PyTorch computes inf/nan silently: numpy's floating-point warnings stay off (_quiet.py)
    try:
        out = fwd(backend.xp, *arrays, *params) if kernel_key is None else \
            kernel_forward(op, backend, arrays[0], dtype, params, kernel_key)[0]
    except (TypeError, ValueError, IndexError, RuntimeError) as e:
        raise _backend_error(op, tensors, e) from None
    finally:
        restore(errors)
    if op.view is not None:
        x = tensors[0]
        meta = ViewMeta(x, op.view, params)
        if not backend.mutable:
            meta.resolve()  # immutable backends address storage through it at once
        result = make_view(x, out, meta)
    elif op.nout > 1:
        result = tuple(wrap(o, backend) for o in out)
    else:
        if out.__class__ in _NUMPY_SCALARS:
            out = np.asarray(out)
        result = _new(Tensor)
        result._arr, result._backend, result._dtype = out, backend, backend.dtypes[out.dtype]
        result._requires_grad, result._grad_fn = False, None
    if op.differentiable and _grad_state.enabled:
        for t in tensors:
            if isinstance(t, Tensor) and t._requires_grad:
                return _record(op, result, (*tensors, *params), tensors)
    elif _grad_state.inference:
        for r in (result if op.nout > 1 else (result,)):
            r._inference = True
    return result


def kernel_forward(op, backend, a, dtype, params, key, arguments=()):
    """``(out, result dtype)``: ``op``'s forward on ``a``, an array of the backend's ``kernel_array_type`` (jax's
    concrete arrays, not tracers: a traced program keeps the primitives) in the xtensor ``dtype`` it computes in, with
    ``params``, through the kernel cached in ``op._kernels[key]`` and made on first use by ``backend.op_kernel``: on jax
    the whole forward as one ``jax.jit`` program, one ~4.3 µs dispatch where the forward's Python and each of its
    primitives' eager dispatches cost more. ``key``: the dtype, or ``(dtype, what fixes params)``; the kernel's result
    dtype is cached with it. A forward that does not compile (it reads values on the host), or a kernel that fails
    where the plain forward runs, leaves the plain forward in the cache. ``arguments``: values the kernel takes after
    ``a`` and the forward after ``params``, which vary between calls of one key (a host index's arrays and starts:
    in ``params`` they would be constants of the program, one program per value)."""
    hit = op._kernels.get(key)
    if hit is not None:
        try:
            return hit[0](a, *arguments), hit[1]
        except Exception:  # remade below: the plain forward's own error, or the plain forward from now on
            pass
    fwd = op.bool_fwd if op.bool_fwd is not None and dtype is _dtypes.bool else op.fwd
    xp = backend.xp

    def forward(array, *values):
        return fwd(xp, array, *params, *values)
    kernel = backend.op_kernel(forward) if hit is None else None
    if kernel is not None:
        try:
            out = kernel(a, *arguments)
        except Exception:
            kernel = None
    if kernel is None:
        kernel, out = forward, forward(a, *arguments)
    result_dtype = backend.dtypes[out.dtype]
    op._kernels[key] = (kernel, result_dtype)
    return out, result_dtype


_ALL_DIMS = {}  # ndim -> (0, ..., ndim - 1): a whole-tensor reduction's dims, made once per rank


def whole_reduction(op, otherwise, node=None):
    """The spelling of ``op`` (a reduction declaring ``whole=``) whose call with a tensor alone reduces every element,
    the common ``x.sum()``: for a plain float tensor the forward runs straight on the array (on numpy through
    ``op.host_whole`` where it has one), with no signature, dims or dtype to work out; any other call -- arguments,
    another type, dtype kind or layout, autocast, an input the forward refuses (an empty ``amax``) -- is
    ``otherwise``'s, the generic spelling, which answers as it always does. (One frame: this runs as the method.)
    ``node``: the name of the node it records, where PyTorch names it apart from ``op``'s (``max()``: MaxBackward1)."""
    whole, host_whole, kernels = op.whole, op.host_whole, op._kernels
    # the node's class: ``node``'s, or worked out on the first recorded call (``names`` reads a plain tuple's overload)
    node_cls = [] if node is None else [node_class(node)]

    def reduce(*args, **kwargs):
        if kwargs or len(args) != 1:
            return otherwise(*args, **kwargs)
        x = args[0]
        if type(x) is not Tensor:
            return otherwise(x)
        a = x._arr
        if a is None or x._dtype.kind != "f" or _autocast_state.active:
            return otherwise(x)
        dims = _ALL_DIMS.get(a.ndim)
        if dims is None:
            dims = _all_dims(a.ndim)
        backend = x._backend
        try:
            if type(a) is backend.kernel_array_type:  # (quiet() is numpy's)
                key = (x._dtype, dims)
                try:
                    kernel, dtype = kernels[key]
                    out = kernel(a)
                except Exception:  # no kernel yet (a KeyError), or it failed: kernel_forward sorts it out
                    out, dtype = kernel_forward(op, backend, a, x._dtype, (dims, *whole), key)
            else:
                dtype = x._dtype
                errors = quiet()
                try:
                    if host_whole is not None and type(a) is np.ndarray and dtype.itemsize > 2:
                        out = host_whole(a, dims)  # (a float32 or float64 reduction is of its input's dtype)
                    else:
                        out = op.fwd(backend.xp, a, dims, *whole)
                        dtype = None
                finally:
                    restore(errors)
                if out.__class__ in _NUMPY_SCALARS:
                    out = np.asarray(out)
                if dtype is None:
                    dtype = backend.dtypes[out.dtype]
        except (TypeError, ValueError, IndexError, RuntimeError):
            return otherwise(x)
        result = _new(Tensor)
        result._arr, result._backend, result._dtype = out, backend, dtype
        result._requires_grad, result._grad_fn = False, None
        if x._requires_grad and _grad_state.enabled:
            params = (x, dims) + whole
            if not node_cls:
                node_cls.append(op.node_cls if op.names is None else node_class(op.names(*params)))
            return _record(op, result, params, (x,), RAW_NS[backend], node_cls[0])
        if _grad_state.inference:
            result._inference = True
        return result
    return reduce


def _all_dims(ndim):
    """``(0, ..., ndim - 1)``: a whole-tensor reduction's dims, made once per rank."""
    dims = _ALL_DIMS.get(ndim)
    if dims is None:
        dims = _ALL_DIMS[ndim] = tuple(range(ndim))
    return dims


def _promote(tensors):
    """The dtype an op computes in; a None in ``tensors`` is an absent optional tensor (an LSTM layer's biases)."""
    first = tensors[0]
    d = first._dtype if isinstance(first, Tensor) else None
    for t in tensors[1:]:
        if not isinstance(t, Tensor) or t._dtype is not d:
            return _dtypes.result_type(*[t for t in tensors if t is not None])
    return d


class BroadcastError(RuntimeError, ValueError):
    """Shapes that do not broadcast: a RuntimeError for PyTorch users, a ValueError for array-API users."""


def _broadcast_mismatch(tensors):
    """PyTorch's message for the first pair of sizes that do not broadcast, folding the shapes left to right."""
    shapes = [tuple(t.shape) for t in tensors if isinstance(t, Tensor)]
    if len(shapes) < 2:
        return None
    a = shapes[0]
    for b in shapes[1:]:
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        for i in range(n):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                return (f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton "
                        f"dimension {i}")
        a = tuple(max(x, y) for x, y in zip(a, b))
    return None


def _backend_error(op, tensors, e):
    mismatch = None if isinstance(e, NotImplementedError) else _broadcast_mismatch(tensors)  # a backend's gap
    if mismatch is not None:
        return BroadcastError(f"{op.name}(): {mismatch}")
    devices = list(dict.fromkeys(t.device for t in tensors if isinstance(t, Tensor)))
    if len(devices) > 1 and "device" in str(e):  # jax refuses arrays placed on two devices
        return RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                            f"{devices[0]} and {devices[1]}!")
    described = ", ".join(
        f"Tensor(shape={list(t.shape)}, dtype={t.dtype}, backend={t.backend})" if isinstance(t, Tensor)
        else repr(t) for t in tensors)
    kind = type(e) if type(e) in (TypeError, ValueError, IndexError) else RuntimeError
    message = re.sub(r"\s+", " ", str(e)).strip()
    return kind(f"{op.name}() failed for {described}: {message}")
