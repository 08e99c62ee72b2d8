"""``xtensor.compile``: a PyTorch-style step (forward, ``backward()``, ``optimizer.step()``, in-place
updates) compiled into one XLA computation on the jax backend.

Functionalization at the boundary, not a tracer of our own:

1. *Gather* the tensors the step can read or write: its arguments, and what its code reaches from
   there and from its closure, default arguments and the globals it names -- modules (anything with ``parameters()``:
   its attributes, so parameters, buffers and submodules), optimizers (anything with
   ``param_groups``: its ``state`` and groups), user objects, containers -- and each tensor's
   ``.grad``. Their *storages* are the state (views of one storage share one state entry).
2. On a new signature -- shapes, dtypes, aliasing, ``requires_grad``/``.grad`` presence, the Python
   scalars met on the way (``lr``, ``training``...), grad mode -- trace the step once with
   ``jax.make_jaxpr``: every storage holds a tracer, the user's Python runs as written (xtensor's
   own tape included), and what it leaves in the storages, in ``.grad`` and in the results is read
   off. Every Python object is then put back as it was.
3. Jit the traced program (``jax.jit`` of the jaxpr, so the user's Python never runs twice for one
   call), donating the storages the step overwrites, run it, and write the results into the same
   Tensor objects: storages the step wrote, ``.grad`` it created or cleared, tensors it rebound
   with ``.data =``. Later calls with the same signature only gather, run and write back.
4. A call reuses the last call's walk (its tensors, storages and signature) while cheap guards hold, as
   torch.compile's do: every container the walk read has the same length and the same items, every walked
   object its class and attribute dict, every walked function its code, closure and globals (all as the walk
   found them, before the step ran), every gathered tensor its storage, view, dtype, ``requires_grad``,
   ``grad_fn``, backend and ``.grad``, every storage the array the last call left; the arguments are root
   tensors of the same shapes and dtypes and the same Python scalars. All of it is read into one flat list
   and compared with the recorded one: by identity where ``==`` compares values (tensors, arrays, numbers,
   containers), by one list ``==`` for the rest. Anything else takes the full walk. Storages the step never
   reads (a ``.grad`` it clears first) are not inputs of the program.

Limits (each an error or documented behaviour, never a silent wrong result):
* A host read under compilation (``.item()``, ``bool(t)``, ``float(t)``, a boolean mask, a
  data-dependent shape) raises ``RuntimeError`` naming the call, where it is and the way out.
* Random numbers come from xtensor's host generator, so a step that draws them (dropout) cannot
  be compiled: an error says so (draw them outside and pass them in).
* Known gap, not yet an error: code of installed packages is walked only where it is the step
  itself, so a tensor reached only through a package's own closures or module globals is not
  gathered -- the program reads it as a constant and its writes are lost (the tensor is left
  holding a traced value, and jax's leaked-tracer error comes later). Reach such state from the
  step's arguments, closure or the globals its own code names.
* State created by the step that is not a tensor's ``.grad`` (an optimizer's lazily made moments)
  is written into the objects the trace made; such a trace serves that call only, and the next
  call, which finds the state in place, compiles the steady step. Python numbers the step changes
  (an ``int`` step counter) are part of the signature: correct, but recompiled every call --
  keep counters in tensors, as PyTorch's optimizers do.
* Tensors carrying autograd history cannot enter (their graph is outside the compiled program);
  results leave without history (the step's ``backward()`` runs inside it).
* On a backend that cannot compile (numpy, array-API namespaces), or when the step's tensors are
  on different backends, the step runs eagerly, with the same results. Inside an outer
  ``jax.jit`` (or another compiled step) it runs inline, traced by the outer one.
"""
import dis
import functools
import itertools
import operator
import os
import sys
import types

import numpy as np

from . import _dtypes
from ._backend import get_default_backend
from ._dispatch import wrap
from ._tensor import Storage, Tensor
from .autograd import grad_mode

__all__ = ["compile"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, disable=False):
    """Compile a function or module (PyTorch's ``torch.compile`` spelling); as a decorator too.

    ``fullgraph``, ``dynamic``, ``backend``, ``mode`` and ``options`` are accepted for PyTorch code and
    have no effect: the whole step is always one XLA program, recompiled per shape signature.
    ``disable=True`` runs it eagerly.
    """
    if model is None:
        return functools.partial(compile, disable=disable)
    return CompiledStep(model, disable=disable)


class CompiledStep:
    """A callable over ``fn`` (a function or a module) that runs it compiled; modules keep their attributes."""

    def __init__(self, fn, disable=False):
        self._orig_mod = fn
        self._disable = disable
        self._cache = {}
        self._fast = None  # _Fast: the last call's walk and program, reused while its guards hold
        self.lay_out = None  # called with the gathered state on each full walk (data_parallel places it)
        self.compilations = 0  # how many signatures were traced and compiled (tests and curious users)
        functools.update_wrapper(self, fn, updated=())

    def __getattr__(self, name):  # a compiled module still answers .parameters(), .train()...
        return getattr(self.__dict__["_orig_mod"], name)

    def __call__(self, *args, **kwargs):
        fn = self._orig_mod
        if self._disable:
            return fn(*args, **kwargs)
        fast, self._fast = self._fast, None  # (left unset if anything below raises)
        if fast is not None:
            found = fast.holds(args, kwargs)
            if found is not None:
                result = fast.program.run(*found)
                fast.after_run()
                self._fast = fast
                return result
        gathered = _Gathered()
        guard = _Guard()
        gathered.walk_call(fn, args, kwargs, guard)
        guard.freeze()
        if self.lay_out is not None:
            self.lay_out(gathered)
        backend = gathered.backend()
        if backend is None or not getattr(backend, "compiles", False) or gathered.traced():
            return fn(*args, **kwargs)
        key = gathered.signature()
        program = self._cache.get(key)
        if program is None:
            program = _Program.trace(fn, args, kwargs, gathered, backend)
            self.compilations += 1
            if program.reusable:
                self._cache[key] = program
        storages, _ = gathered.storages()
        result = program.run(storages, gathered.tensors, gathered.arrays)
        if program.reusable:
            self._fast = _Fast.build(gathered, guard, program, args, kwargs)
        return result


# --------------------------------------------------------------------------- gathering
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
    from . import adapters
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (sys.modules[__package__], adapters)) \
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
            storages, index_of, owners = [], {}, []
            for t in self.tensors:
                st = t._storage
                i = index_of.get(id(st))
                if i is None:
                    i = index_of[id(st)] = len(storages)
                    storages.append(st)
                owners.append(i)
            self._storages = storages, owners
        return self._storages

    def signature(self):
        storages, owners = self.storages()
        tensors = tuple((owner, None if t._view is None else t._view.resolve(), t._dtype, t._requires_grad,
                         None if t._grad is None else self.position[id(t._grad)])
                        for t, owner in zip(self.tensors, owners))
        for t in self.tensors:
            if t._grad_fn is not None:
                raise RuntimeError(
                    f"xtensor.compile: a tensor the step reaches carries autograd history "
                    f"(grad_fn=<{type(t._grad_fn).__name__}>, shape {list(t.shape)}), which a compiled step "
                    "cannot extend: pass or keep .detach() of it, or run the step eagerly")
        avals = tuple((st.array.shape, st.array.dtype) for st in storages)
        return (avals, tensors, tuple(self.statics), grad_mode.state.enabled,
                grad_mode.state.inference, _dtypes.get_default_dtype(), get_default_backend().name)


# --------------------------------------------------------------------------- reusing the last walk
_MISSING = object()
_chain = itertools.chain.from_iterable
_is = operator.is_
_VALUES = operator.methodcaller("values")
_DICT_OF = operator.attrgetter("__dict__")
_CODE_OF = operator.attrgetter("__code__")
_DEFAULTS_OF = operator.attrgetter("__defaults__", "__kwdefaults__")
_ARRAY_OF = operator.attrgetter("array")
# what the walk and the signature read from a tensor
_TENSOR_FIELDS = operator.attrgetter("_storage", "_view", "_dtype", "_requires_grad", "_grad_fn", "_backend", "_grad")
_FIELD_COUNT = 7
_IDENTITY_EQUAL = {}  # type -> whether ``==`` against its instances means identity (see ``_identity_equal``)


def _all_same(objects, recorded):
    """Every object is the recorded one (identity; the lengths were checked first)."""
    return all(map(_is, objects, recorded))


def _identity_equal(cls):
    """Whether ``x == obj`` for an ``obj`` of class ``cls`` holds only when ``x`` is ``obj`` or means the same:
    classes that keep object's ``__eq__`` (modules, optimizers, storages, dtypes, functions, None; another
    object's ``__eq__`` answers NotImplemented, False or an error against them) and ``str`` (names). Tensors,
    arrays, numbers (``1 == 1.0 == True``), containers and code objects compare values: identity for them."""
    same = _IDENTITY_EQUAL.get(cls)
    if same is None:
        same = _IDENTITY_EQUAL[cls] = cls.__eq__ is object.__eq__ or cls is str
    return same


def _picker(positions):
    """A callable returning the items at ``positions`` of a list, as a tuple."""
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    return lambda items: tuple(items[i] for i in positions)


class _Guard:
    """What the walk of a step's state read, recorded to tell cheaply whether a new walk would find the same
    objects in the same places (torch.compile's guards): every container's length and items by identity,
    each walked object's class and attribute dict, each walked function's code, closure cells and globals."""

    def __init__(self):
        self.sequences = []  # lists (not tuples: they cannot change)
        self.dicts = []  # dicts, attribute dicts among them
        self.mappings = []  # OrderedDict...: read through their own methods
        self.objects = []
        self.plain = []  # objects walked past because they have no param_groups
        self.functions, self.cells = [], []
        self.namespaces, self.names = [], []
        self.filled_dicts = self.filled_mappings = None  # those not empty when recorded: only their items are read
        self.recorded = None  # ``read`` right after the walk: what the state looked like to it

    def freeze(self):
        """Record the state as the walk found it, before the step runs (a step that changes a Python value on the
        way, an int counter, is then seen as changed on the next call, as a new walk would see it)."""
        self.filled_dicts = [d for d in self.dicts if d]  # an empty one that fills changes its length, read too
        self.filled_mappings = [m for m in self.mappings if m]  # (modules' hook dicts: mostly empty)
        self.recorded = self.read((), ())

    def add_mapping(self, obj):
        cls = type(obj)
        if cls.values is dict.values and cls.__iter__ is dict.__iter__:  # dict's own order: read at C speed
            self.dicts.append(obj)
        else:  # its own order (OrderedDict.move_to_end): read through its methods
            self.mappings.append(obj)

    def lengths(self):
        """How many entries of ``read`` are container lengths (compared by value; the rest by identity)."""
        return len(self.dicts) + len(self.sequences) + len(self.mappings)

    def read(self, tensors, storages):
        """Everything the walk read, as it is now, in one list -- with the fields of the gathered ``tensors`` and
        the arrays of their ``storages`` -- so that one list comparison tells whether anything changed."""
        return [*map(len, self.dicts), *map(len, self.sequences), *map(len, self.mappings),
                *map(type, self.objects), *map(_DICT_OF, self.objects),
                *_chain(self.filled_dicts), *_chain(map(dict.values, self.filled_dicts)),
                *_chain(self.filled_mappings), *_chain(map(_VALUES, self.filled_mappings)), *_chain(self.sequences),
                *map(_CODE_OF, self.functions), *_chain(map(_DEFAULTS_OF, self.functions)),
                *map(_contents, self.cells), *map(dict.get, self.namespaces, self.names, itertools.repeat(_MISSING)),
                *map(hasattr, self.plain, itertools.repeat("param_groups")),
                *_chain(map(_TENSOR_FIELDS, tensors)), *map(_ARRAY_OF, storages)]


def _contents(cell):
    """A closure cell's value; _MISSING while it is empty."""
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


class _Fast:
    """A call's gathered tensors and program, reused by the next call while nothing it depends on changed.

    The step's state (what its closure and globals reach) is re-read by its guard into one flat list -- the
    containers' lengths and items, each tensor's fields and storage array -- and compared with the list
    recorded after the last call: by identity where ``==`` could mistake a different object for the same
    (tensors, arrays, numbers: ``_identity_equal``), by one list ``==`` for the rest (a C loop that stops at
    identity). The arguments must be as simple as they were (tensors -- root ones, without ``.grad``, not part
    of the state -- and Python scalars) and have the same shapes, dtypes and scalar values. Anything else (the
    first call that changed something) takes the full walk, which builds a new one. ``.grad`` tensors the
    program makes replace the old ones in place."""

    __slots__ = ("program", "guard", "environment", "template", "keywords", "arg_meta", "state_tensors",
                 "state_storages", "storage_ids", "recorded", "unsafe", "unsafe_recorded", "written",
                 "grad_slots", "patches", "tracer")

    @classmethod
    def build(cls, gathered, guard, program, args, kwargs):
        """The entry for the call just run, or None when its arguments or what the program did rule one out."""
        k, s = gathered.state_start
        template = tuple(None if isinstance(a, Tensor) else (type(a), a) for a in (*args, *kwargs.values()))
        if any(t is not None and t[0] not in _SCALARS for t in template) or gathered.arrays \
                or program.rebound or any(i < k for i in program.written) \
                or any(dtype is None or i < k for i, dtype in program.grads):
            return None
        tensors = gathered.tensors
        storages, owners = gathered.storages()
        arg_tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        if len(arg_tensors) != k or owners[:k] != list(range(k)) or any(o < k for o in owners[k:]) \
                or any(t._view is not None or t._grad is not None for t in arg_tensors) \
                or any(type(x) is tuple and x[0] == "t" and x[1] < k for x in gathered.statics[s:]) \
                or any(slot < k for slot in gathered.grad_slot.values()):
            return None  # arguments with a grad, a view, repeated, or shared with the state (a .grad there)
        reached = {x[1] for x in gathered.statics[s:] if type(x) is tuple and len(x) == 2 and x[0] == "t"}
        grad_slots = []
        for i, _ in program.grads:
            slot = gathered.grad_slot.get(i)
            if slot is None or slot in reached or list(gathered.grad_slot.values()).count(slot) != 1 \
                    or owners.count(owners[slot]) != 1:
                return None  # a .grad that was absent, or also reached another way: the structure changes
            grad_slots.append((i - k, slot - k, owners[slot] - k))
        fast = cls()
        fast.program, fast.guard, fast.template, fast.keywords = program, guard, template, tuple(kwargs)
        fast.environment = _environment()
        fast.arg_meta = [(t._dtype, t._requires_grad, t._backend, tuple(storages[i].array.shape),
                          storages[i].array.dtype) for i, t in enumerate(arg_tensors)]
        fast.state_tensors, fast.state_storages = tensors[k:], storages[k:]
        fast.storage_ids = set(map(id, fast.state_storages))
        fast.grad_slots = grad_slots
        fast.tracer = sys.modules["jax"].core.Tracer
        for owner, slot, storage in grad_slots:  # the grads made by this call: the structure the next walk finds
            fast._take_grad(owner, slot, storage)
        recorded = fast.recorded = [*guard.recorded, *_chain(map(_TENSOR_FIELDS, fast.state_tensors)),
                                    *map(_ARRAY_OF, fast.state_storages)]
        arrays = len(recorded) - len(fast.state_storages)
        fields = arrays - _FIELD_COUNT * len(fast.state_tensors)
        # requires_grad is always a bool (True == True is identity): of the fields, only a .grad tensor needs `is`
        unsafe = [i for i in range(guard.lengths(), len(recorded))
                  if not (_identity_equal(type(recorded[i])) or fields <= i < arrays and type(recorded[i]) is bool)]
        fast.unsafe, fast.unsafe_recorded = _picker(unsafe), [recorded[i] for i in unsafe]
        # where after_run writes what the next call must find: a program-made .grad (a root tensor without
        # history or grad, whose fields are all compared by ==), the arrays the program wrote
        at, width = {i: j for j, i in enumerate(unsafe)}.get, _FIELD_COUNT
        fast.patches = [(fields + width * owner + width - 1, at(fields + width * owner + width - 1),
                         fields + width * slot, arrays + storage, at(arrays + storage))
                        for owner, slot, storage in grad_slots]
        fast.written = [(i - k, arrays + i - k, at(arrays + i - k)) for i in program.written]
        if None in _chain(fast.patches) or any(u is None for _, _, u in fast.written):
            return None  # a place after_run writes is compared by == (not a tensor or an array): never reuse
        return fast

    def _take_grad(self, owner, slot, storage):
        """Put the ``.grad`` the program just made for state tensor ``owner`` in the place of the old one."""
        tensors, storages = self.state_tensors, self.state_storages
        grad = tensors[owner]._grad
        tensors[slot] = grad
        st = grad._storage
        self.storage_ids.discard(id(storages[storage]))
        self.storage_ids.add(id(st))
        storages[storage] = st
        return grad

    def after_run(self):
        """Take the ``.grad`` tensors the program made into the reused structure and record them and the arrays it
        wrote (a donated buffer also read is copied by ``run``: no check needed here), in place: re-reading the
        whole record would touch every object again (cache misses after the program ran cost more than reading)."""
        storages, recorded, unsafe, width = self.state_storages, self.recorded, self.unsafe_recorded, _FIELD_COUNT
        for (owner, slot, storage), (grad_at, grad_u, fields, array_at, array_u) in zip(self.grad_slots,
                                                                                    self.patches):
            grad = self._take_grad(owner, slot, storage)
            recorded[grad_at] = unsafe[grad_u] = grad
            recorded[fields:fields + width] = _TENSOR_FIELDS(grad)
            recorded[array_at] = unsafe[array_u] = storages[storage].array
        for i, at, u in self.written:
            recorded[at] = unsafe[u] = storages[i].array

    def holds(self, args, kwargs):
        """(storages, tensors, arrays) for the program when a full walk would find what the last one did."""
        if kwargs:
            if tuple(kwargs) != self.keywords:
                return None
            values = (*args, *kwargs.values())
        else:
            if self.keywords:
                return None
            values = args
        template = self.template
        if len(values) != len(template) or _environment() != self.environment:
            return None
        arg_tensors, arg_storages = [], []
        meta = iter(self.arg_meta)
        for a, want in zip(values, template):
            if want is None:
                if not isinstance(a, Tensor):
                    return None
                dtype, requires_grad, backend, shape, array_dtype = next(meta)
                st = a._storage
                arr = st.array
                if a._view is not None or a._grad is not None or a._grad_fn is not None or a._dtype is not dtype \
                        or a._requires_grad is not requires_grad or a._backend is not backend \
                        or arr.shape != shape or arr.dtype != array_dtype or isinstance(arr, self.tracer) \
                        or id(st) in self.storage_ids:  # (a state tensor's storage is a state storage)
                    return None
                arg_tensors.append(a)
                arg_storages.append(st)
            elif type(a) is not want[0] or a != want[1]:
                return None
        if len(arg_tensors) > 1 and (len(set(map(id, arg_tensors))) < len(arg_tensors)
                                     or len(set(map(id, arg_storages))) < len(arg_storages)):
            return None
        current, recorded = self.guard.read(self.state_tensors, self.state_storages), self.recorded
        if len(current) != len(recorded) or not _all_same(self.unsafe(current), self.unsafe_recorded):
            return None
        try:
            if not current == recorded:
                return None
        except Exception:  # a value's own __eq__ refused the comparison (a tensor where a module was): changed
            return None
        # no argument arrays: [] as after a full walk, so that jax.jit keeps one entry (a tuple would retrace)
        return arg_storages + self.state_storages, arg_tensors + self.state_tensors, []


def _environment():
    """What the signature takes from outside the step."""
    return (grad_mode.state.enabled, grad_mode.state.inference, _dtypes.get_default_dtype(),
            get_default_backend().name)


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


# --------------------------------------------------------------------------- the program
class _Program:
    """One traced signature: the jitted program and how its results map back onto the Tensor objects."""

    def __init__(self, backend):
        self.backend = backend
        self.executable = None
        self.reusable = True
        self.written = []  # storage indices the step overwrites: donated, then written back
        self.kept = []  # the other storage indices: read only
        self.rebound = []  # tensor indices the step rebound to new memory (``.data =``)
        self.grads = []  # (tensor index, dtype or None): a ``.grad`` the step made (fresh each call) or cleared
        self.refreshed = []  # tensor indices over the written storages: their cached values are dropped
        self.created = []  # storages of state the step made (an optimizer's moments): this call only
        self.outputs = None  # (treedef, plan per leaf) of the step's return value

    @classmethod
    def trace(cls, fn, args, kwargs, gathered, backend):
        """Run the step once on tracers (``jax.make_jaxpr``) and jit what it did; every object is put back."""
        import jax
        import jax.extend.core

        from ._creation import default_generator

        program = cls(backend)
        storages, owners = gathered.storages()
        tensors = gathered.tensors
        before = _snapshot(storages, tensors)
        rng_state = default_generator.get_state()
        array_positions = {id(a): i for i, a in enumerate(gathered.arrays)}

        def step(storage_values, array_values):
            for st, value in zip(storages, storage_values):
                st.array = value
            _invalidate(storages, tensors)
            call_args, call_kwargs = _substitute((args, kwargs), array_positions, array_values)
            result = fn(*call_args, **call_kwargs)
            return program._read_back(result, (fn, args, kwargs), storages, owners, storage_values, before,
                                      gathered)

        try:
            closed = jax.make_jaxpr(step)([st.array for st in storages], list(gathered.arrays))
        except Exception as e:
            host_read = _host_read_error(e)
            if host_read is not None:
                raise host_read from e
            raise
        finally:
            _restore(before, storages, tensors)
        if default_generator.get_state() != rng_state:
            default_generator.set_state(rng_state)
            raise RuntimeError(
                "xtensor.compile: the step draws random numbers (rand, randn, dropout...), which come from "
                "xtensor's host generator and would be frozen into the compiled program: draw them outside the "
                "step and pass them in, or run it eagerly (xtensor.compile(fn, disable=True))")
        run = jax.extend.core.jaxpr_as_fun(closed)
        written = set(program.written)
        read = _read_inputs(closed.jaxpr)
        program.kept = [i for i in range(len(storages)) if i not in written and i in read]  # others: never read
        program.refreshed = [index for index, owner in enumerate(owners) if owner in written]
        avals = closed.in_avals

        def ordered(donated, others, array_values):
            values = [None] * len(storages)
            for i, v in zip(program.written, donated):
                values[i] = v
            for i, v in zip(program.kept, others):
                values[i] = v
            for i, v in enumerate(values):
                if v is None:  # a storage the step never reads (a .grad it clears first): not an input
                    values[i] = jax.numpy.zeros(avals[i].shape, avals[i].dtype)
            return run(*values, *array_values)

        program.executable = jax.jit(ordered, donate_argnums=0)
        return program

    def _read_back(self, result, roots, storages, owners, installed, before, gathered):
        """Inside the trace, after the step: what the program returns (a flat list of arrays), and how
        each entry is written back (recorded on ``self``)."""
        import jax

        tensors = gathered.tensors
        outs = []
        self.written = [i for i, st in enumerate(storages) if st.array is not installed[i]]
        outs += [storages[i].array for i in self.written]
        for index, (t, owner) in enumerate(zip(tensors, owners)):
            if t._storage is not storages[owner]:
                self.rebound.append(index)
                outs.append(t._value)
        for index, t in enumerate(tensors):
            grad, grad_before = t._grad, before.tensors[index][4]
            if grad is not grad_before:
                self.grads.append((index, None if grad is None else grad._dtype))
                if grad is not None:
                    outs.append(grad._value)
        after = _Gathered()
        after.walk_call(*roots)
        fresh_grads = {id(tensors[i]._grad) for i, dtype in self.grads if dtype is not None}
        created = {}  # id(storage) -> (storage, its new tensors)
        known = {id(st) for st in storages}
        for t in after.tensors:
            st = t._storage
            if id(t) not in gathered.position and id(t) not in fresh_grads and id(st) not in known:
                created.setdefault(id(st), (st, []))[1].append(t)
        self.created = list(created.values())
        outs += [st.array for st, _ in self.created]
        self.reusable = not self.created
        leaves, treedef = jax.tree_util.tree_flatten(result, is_leaf=lambda x: isinstance(x, Tensor))
        plan = []
        for leaf in leaves:
            if isinstance(leaf, Tensor) and id(leaf) in gathered.position:
                plan.append(("state", gathered.position[id(leaf)]))
            elif isinstance(leaf, Tensor):
                plan.append(("tensor", leaf._dtype))
                outs.append(leaf._value)
            elif _is_jax_array(leaf):
                plan.append(("array", None))
                outs.append(leaf)
            else:
                plan.append(("static", leaf))
        self.outputs = (treedef, plan)
        if len(plan) == 1 and plan[0][0] == "tensor" and treedef.num_nodes == 1:
            self.outputs = (None, plan[0][1])
        return outs

    def run(self, storages, tensors, arrays):
        """Run the compiled step on the current state (the gathered storages and tensors, the argument arrays)
        and write the results into the Tensor objects."""
        backend = self.backend
        donated = [storages[i].array for i in self.written]
        others = [storages[i].array for i in self.kept]
        if arrays:
            arrays = [backend.from_numpy(a) if isinstance(a, np.ndarray) else a for a in arrays]
            donated = _unshared(donated, others + arrays)
        else:
            donated = _unshared(donated, others)
        outs = iter(self.executable(donated, others, arrays))
        for i in self.written:
            st = storages[i]
            st.array = next(outs)
            st.version += 1
            if st.aliases:
                for alias in st.live_aliases():
                    alias._arr = None
        for i in self.refreshed:
            tensors[i]._arr = None
        for i in self.rebound:
            tensors[i].data = wrap(next(outs), backend)
        for i, dtype in self.grads:  # shape and dtype are the traced step's own: no setter checks
            tensors[i]._grad = None if dtype is None else _root(next(outs), backend, dtype)
        for st, owners in self.created:
            st.array = next(outs)
            _invalidate([st], owners)
        treedef, plan = self.outputs
        if treedef is None:  # the step returned one tensor (a loss): the common case
            return wrap(next(outs), backend, plan)
        import jax

        leaves = []
        for kind, info in plan:
            if kind == "state":
                leaves.append(tensors[info])
            elif kind == "tensor":
                leaves.append(wrap(next(outs), backend, info))
            elif kind == "array":
                leaves.append(next(outs))
            else:
                leaves.append(info)
        return jax.tree_util.tree_unflatten(treedef, leaves)


class _Snapshot:
    """What the trace may change on the Python objects, to put back afterwards."""

    __slots__ = ("storages", "tensors")


def _root(array, backend, dtype):
    """A root tensor over a result of the program, its storage made now (the next call's guard reads it)."""
    t = wrap(array, backend, dtype)
    t._storage = Storage(array)
    return t


def _snapshot(storages, tensors):
    snap = _Snapshot()
    snap.storages = [(st.array, st.version) for st in storages]
    snap.tensors = [(t._arr, t._storage, t._view, t._dtype, t._grad, t._requires_grad, t._grad_fn, t._attr_version)
                    for t in tensors]
    return snap


def _restore(snap, storages, tensors):
    for st, (array, version) in zip(storages, snap.storages):
        st.array, st.version = array, version
    for t, (arr, storage, view, dtype, grad, requires_grad, grad_fn, attr_version) in zip(tensors, snap.tensors):
        t._storage, t._view, t._dtype = storage, view, dtype
        t._grad, t._requires_grad, t._grad_fn, t._attr_version = grad, requires_grad, grad_fn, attr_version
        t._arr = arr
    _invalidate(storages, ())


def _invalidate(storages, tensors):
    """Drop cached values: every alias re-reads its storage."""
    for st in storages:
        for alias in st.live_aliases():
            alias._arr = None
    for t in tensors:
        t._arr = None


def _substitute(obj, positions, values):
    """``obj`` with each argument array (by identity) replaced by its value in the trace."""
    if isinstance(obj, (list, tuple)):
        items = [_substitute(x, positions, values) for x in obj]
        return items if isinstance(obj, list) else type(obj)(items) if type(obj) is tuple else type(obj)(*items)
    if isinstance(obj, dict):
        return {k: _substitute(v, positions, values) for k, v in obj.items()}
    index = positions.get(id(obj))
    return obj if index is None else values[index]


def _read_inputs(jaxpr):
    """Indices of the inputs of ``jaxpr`` that its equations or outputs read."""
    import jax.extend.core

    read = set()
    for eqn in jaxpr.eqns:
        read.update(v for v in eqn.invars if not isinstance(v, jax.extend.core.Literal))
    read.update(v for v in jaxpr.outvars if not isinstance(v, jax.extend.core.Literal))
    return {i for i, v in enumerate(jaxpr.invars) if v in read}


def _unshared(donated, others):
    """Donated arrays that appear twice (two storages over one jax array) are copied: one buffer cannot be
    both consumed and read."""
    ids = [id(a) for a in donated]
    if len(set(ids).union(map(id, others))) == len(ids) + len(others):
        return donated  # every call but the rare aliasing one
    counts = {}
    for a in (*donated, *others):
        counts[id(a)] = counts.get(id(a), 0) + 1
    return [a.copy() if counts[id(a)] > 1 else a for a in donated]


# --------------------------------------------------------------------------- host reads
_CALL_NAMES = {"__bool__": "bool(tensor)", "__float__": "float(tensor)", "__int__": "int(tensor)",
               "__index__": "a tensor used as a Python int", "__complex__": "complex(tensor)",
               "getitem": "tensor[index] with a mask or data-dependent index",
               "setitem": "tensor[index] = value with a mask or data-dependent index",
               "__iter__": "iterating over a tensor", "__array__": "numpy.asarray(tensor)",
               "__format__": "formatting a tensor", "__repr__": "printing a tensor"}


def _host_read_error(error):
    """The error for a step that reads a traced value on the host, or None for other errors."""
    import jax

    host_reads = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                  jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError)
    cause = error
    while cause is not None and not isinstance(cause, host_reads):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    call, where = _offending_call(cause.__traceback__)
    return RuntimeError(
        f"xtensor.compile: {call}{where} reads a tensor's value on the host, but in a compiled step values "
        "exist only once the whole step has run. Return the tensor from the step and read it after the call "
        "(loss = step(x); loss.item()), keep data-dependent shapes out of the step (masks: xtensor.where), or "
        "run the step eagerly (xtensor.compile(fn, disable=True)).")


def _offending_call(tb):
    """(the xtensor call the user's code made, `` at file:line``) from the innermost user frame of ``tb``."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for outer, inner in zip(reversed(frames[:-1]), reversed(frames[1:])):
        if not _is_library_file(outer.f_code.co_filename) and _is_library_file(inner.f_code.co_filename):
            name = inner.f_code.co_name.strip("_")
            return _CALL_NAMES.get(inner.f_code.co_name, f"{name}()"), \
                f" at {outer.f_code.co_filename}:{outer.f_lineno}"
    return "the step", ""
