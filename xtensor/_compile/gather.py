"""Gathering a step's state: the tensors a call can reach (arguments, closures, globals, modules' and optimizers'
attributes) in a deterministic order, and the Python values met on the way, which make the signature."""
import dis
import functools
import os
import sys
import types

import numpy as np

from .. import _autocast, _dtypes
from .._backend import get_default_backend
from .._tensor import Tensor
from ..autograd import grad_mode

_MISSING = object()


def _contents(cell):
    """A closure cell's value; _MISSING while it is empty."""
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


_SCALARS = frozenset((bool, int, float, complex, str, bytes, type(None), _dtypes.DType))
_KINDS = {}  # type -> how ``_Gathered.walk`` treats its instances (see ``_kind``)


def _kind(cls):
    """How ``walk`` treats instances of ``cls``, decided once per type."""
    jax = sys.modules.get("jax")
    if issubclass(cls, Tensor):
        kind = "tensor"
    elif cls in _SCALARS:
        kind = "scalar"
    elif issubclass(cls, np.ndarray) or jax is not None and issubclass(cls, (jax.Array, jax.core.Tracer)):
        kind = "array"
    elif issubclass(cls, (list, tuple)):
        kind = "sequence"
    elif issubclass(cls, dict):
        kind = "dict"
    else:
        kind = {types.FunctionType: "function", types.MethodType: "method",
                functools.partial: "partial"}.get(cls) or _object_kind(cls)
    _KINDS[cls] = kind
    return kind


@functools.lru_cache(maxsize=None)
def _library_dirs():
    from .. import adapters
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (sys.modules["xtensor"], adapters)) \
        + (os.path.dirname(os.__file__) + os.sep,)


def _is_library_file(filename):
    """Code of xtensor, the standard library or an installed package: never walked, never the user's call."""
    return filename.startswith(_library_dirs()) or "site-packages" in filename or "dist-packages" in filename


@functools.lru_cache(maxsize=None)
def _global_names(code):
    """Globals a code object (and the functions and comprehensions defined in it) loads."""
    names = [ins.argval for ins in dis.get_instructions(code) if ins.opname == "LOAD_GLOBAL"]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_global_names(const))
    return tuple(dict.fromkeys(names))


class _Gathered:
    """The tensors a call can reach, in a deterministic order, and the Python values met on the way."""

    def __init__(self):
        self.tensors = []  # unique Tensor objects in walk order (each tensor's grad right after it)
        self.position = {}  # id(tensor) -> index in ``tensors``
        self.arrays = []  # raw numpy/jax arrays among the arguments: inputs of the program
        self.statics = []  # the shape of what was walked and the Python scalars found
        self.grad_slot = {}  # tensor index -> index of its .grad
        self.state_start = None  # (tensors, statics) found in the arguments: the step's state follows
        self.guard = None  # a _Guard recording the state's walk, or None
        self._seen = set()
        self._storages = None

    # -- walking ----------------------------------------------------------------------------------
    def walk_call(self, fn, args, kwargs, guard=None):
        self.walk(args, arguments=True)
        self.walk(kwargs, arguments=True)
        self.state_start = len(self.tensors), len(self.statics)
        self.guard = guard
        try:
            self.walk_step(fn)
        finally:
            self.guard = None

    def walk_step(self, fn):
        """The step itself: its closure and globals are walked wherever its code lives (a step written in
        an installed package, as the demo's in ``xtensor.cli``); what it reaches from there, as ``walk``."""
        if isinstance(fn, types.FunctionType) and id(fn) not in self._seen:
            self._seen.add(id(fn))
            self._walk_function(fn, library_too=True)
        else:
            self.walk(fn)

    def walk(self, obj, arguments=False):
        # every call of a compiled step walks its state: one look-up of the type's kind, then its branch
        cls = type(obj)
        kind = _KINDS.get(cls) or _kind(cls)
        if kind == "tensor":
            self.statics.append(("t", self._add(obj)))
            return
        if kind == "scalar":
            self.statics.append((cls, obj))  # 1, 1.0 and True are equal keys but not the same step
            return
        if kind == "array":
            if arguments:
                self.arrays.append(obj)
                self.statics.append(("a", tuple(obj.shape), obj.dtype))
            return
        if id(obj) in self._seen:
            self.statics.append(("seen",))
            return
        self._seen.add(id(obj))
        guard = self.guard
        if kind == "sequence":
            if guard is not None and not isinstance(obj, tuple):  # a tuple's items cannot change
                guard.sequences.append(obj)
            self.statics.append((cls, len(obj)))
            for item in obj:
                self.walk(item, arguments)
        elif kind == "dict":
            if guard is not None:
                guard.add_mapping(obj)
            self.statics.append((cls, len(obj)))
            for k, v in obj.items():
                if type(k) is str:  # attribute and hyperparameter names: the common key, kept as it is
                    self.statics.append(k)
                else:
                    self.walk(k, arguments)
                self.walk(v, arguments)
        elif kind == "function":
            self._walk_function(obj)
        elif kind == "method":
            self.walk(obj.__self__)
            self.walk(obj.__func__)
        elif kind == "partial":
            self.walk((obj.func, obj.args, obj.keywords), arguments)
        elif kind == "attributes" or kind == "object" and hasattr(obj, "param_groups"):
            if guard is not None:
                guard.objects.append(obj)
            self.statics.append(cls)
            self.walk(vars(obj))
        elif kind == "object" and guard is not None:
            guard.plain.append(obj)  # walked past while it has no param_groups
        elif arguments:
            self.statics.append(("object", id(obj)))  # an opaque argument: the program is kept per object

    def _walk_function(self, fn, library_too=False):
        code = fn.__code__
        if not library_too and _is_library_file(code.co_filename):
            return
        guard = self.guard
        defaults = fn.__defaults__, fn.__kwdefaults__  # what its code reads too (def f(x, model=model))
        if guard is not None:
            guard.functions.append(fn)
        for value in defaults:
            if value is not None:
                self.walk(value)
        for cell in fn.__closure__ or ():
            contents = _contents(cell)
            if guard is not None:
                guard.cells.append(cell)
            if contents is not _MISSING:  # not an empty cell (a name bound later)
                self.walk(contents)
        namespace = fn.__globals__
        for name in _global_names(code):
            value = namespace.get(name, _MISSING)
            if guard is not None:
                guard.namespaces.append(namespace)
                guard.names.append(name)
            if value is not _MISSING:
                self.walk(value)

    def _add(self, t):
        index = self.position.get(id(t))
        if index is None:
            index = self.position[id(t)] = len(self.tensors)
            self.tensors.append(t)
            grad = t._grad
            if grad is not None:
                self.grad_slot[index] = self._add(grad)
        return index

    # -- what was found ---------------------------------------------------------------------------
    def backend(self):
        """The backend every gathered tensor lives on (the default one if none); None when they differ."""
        backends = {t._backend for t in self.tensors}
        if not backends:
            return get_default_backend()
        return backends.pop() if len(backends) == 1 else None

    def traced(self):
        """True inside an outer trace: the step is then part of the outer program."""
        jax = sys.modules.get("jax")
        if jax is None:
            return False
        tracer, (storages, _) = jax.core.Tracer, self.storages()
        return any(isinstance(st.array, tracer) for st in storages) or any(isinstance(a, tracer) for a in self.arrays)

    def storages(self):
        """Unique storages of the gathered tensors, and each tensor's storage index."""
        if self._storages is None:
            self._storages = unique_storages(self.tensors)
        return self._storages

    def signature(self):
        storages, owners = self.storages()
        tensors = tuple((owner, None if t._view is None else t._view.resolve(), t._dtype, t._requires_grad,
                         None if t._grad is None else self.position[id(t._grad)], type(t))  # (an array-API one's ops)
                        for t, owner in zip(self.tensors, owners))
        for t in self.tensors:
            if t._grad_fn is not None:
                raise RuntimeError(
                    f"xtensor.compile: a tensor the step reaches carries autograd history "
                    f"(grad_fn=<{type(t._grad_fn).__name__}>, shape {list(t.shape)}), which a compiled step "
                    "cannot extend: pass or keep .detach() of it, or run the step eagerly")
        avals = tuple((st.array.shape, st.array.dtype) for st in storages)
        return (avals, tuple(sharers([st.array for st in storages])), tensors, tuple(self.statics), *_environment())


def sharers(arrays):
    """Per array, the index of the first of ``arrays`` that is the same object (its own index when none is): storages
    over one array (an optimizer's step counters, made and counted together) are one input of a program, and what
    the step computes from them is computed once."""
    first = {}
    return [first.setdefault(id(a), i) for i, a in enumerate(arrays)]


def repeated_outputs(outputs):
    """``(the position of the first of each distinct output, per output the index of its distinct one)`` for a traced
    program's ``outputs`` (one value written into several tensors: computed and returned once), or None when none
    repeats another."""
    index = {}
    expand = [index.setdefault(id(v), len(index)) for v in outputs]
    if len(index) == len(outputs):
        return None
    return [expand.index(j) for j in range(len(index))], expand


def unique_storages(tensors):
    """The distinct storages of ``tensors`` (aliases share one) and, per tensor, the index of its storage."""
    storages, index_of, owners = [], {}, []
    for t in tensors:
        st = t._storage
        i = index_of.get(id(st))
        if i is None:
            i = index_of[id(st)] = len(storages)
            storages.append(st)
        owners.append(i)
    return storages, owners


def _environment():
    """What the signature takes from outside the step: the grad mode, the default dtype and backend, autocast."""
    return (grad_mode.state.enabled, grad_mode.state.inference, _dtypes.get_default_dtype(),
            get_default_backend().name, _autocast.state.active and tuple(_autocast.state.dtypes.items()))


def _object_kind(cls):
    """Modules (a ``parameters()`` method) and instances of the user's own classes are walked through their
    attributes ("attributes"); optimizers too, found per object by their ``param_groups`` ("object")."""
    if not cls.__dictoffset__ or issubclass(cls, (type, types.ModuleType)):
        return "opaque"  # no instance __dict__, or a class or module: never walked
    if callable(getattr(cls, "parameters", None)):
        return "attributes"
    module = sys.modules.get(cls.__module__)
    user_code = module is not None and not _is_library_file(getattr(module, "__file__", None) or "<builtin>")
    return "attributes" if user_code else "object"


def _is_jax_array(obj):
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(obj, jax.Array)


def _is_tracer(obj):
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(obj, jax.core.Tracer)
