"""``xtensor.compile``: a PyTorch-style step (forward, ``backward()``, ``optimizer.step()``, in-place
updates) compiled into one XLA computation on the jax backend.

Functionalization at the boundary, not a tracer of our own:

1. *Gather* the tensors the step can read or write: its arguments, and what its code reaches from
   there and from its closure and the globals it names -- modules (anything with ``parameters()``:
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
import os
import sys
import types

import numpy as np

from . import _dtypes
from ._backend import get_default_backend
from ._dispatch import wrap
from ._tensor import Tensor
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
        self.lay_out = None  # called with the gathered state before each call (data_parallel places it)
        self.compilations = 0  # how many signatures were traced and compiled (tests and curious users)
        functools.update_wrapper(self, fn, updated=())

    def __getattr__(self, name):  # a compiled module still answers .parameters(), .train()...
        return getattr(self.__dict__["_orig_mod"], name)

    def __call__(self, *args, **kwargs):
        fn = self._orig_mod
        if self._disable:
            return fn(*args, **kwargs)
        gathered = _Gathered()
        gathered.walk_call(fn, args, kwargs)
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
        return program.run(gathered, args, kwargs)


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
        self._seen = set()
        self._storages = None

    # -- walking ----------------------------------------------------------------------------------
    def walk_call(self, fn, args, kwargs):
        self.walk(args, arguments=True)
        self.walk(kwargs, arguments=True)
        self.walk_step(fn)

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
        if kind == "sequence":
            self.statics.append((cls, len(obj)))
            for item in obj:
                self.walk(item, arguments)
        elif kind == "dict":
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
            self.statics.append(cls)
            self.walk(vars(obj))
        elif arguments:
            self.statics.append(("object", id(obj)))  # an opaque argument: the program is kept per object

    def _walk_function(self, fn, library_too=False):
        code = fn.__code__
        if not library_too and _is_library_file(code.co_filename):
            return
        for cell in fn.__closure__ or ():
            try:
                self.walk(cell.cell_contents)
            except ValueError:  # an empty cell (a name bound later)
                pass
        for name in _global_names(code):
            if name in fn.__globals__:
                self.walk(fn.__globals__[name])

    def _add(self, t):
        index = self.position.get(id(t))
        if index is None:
            index = self.position[id(t)] = len(self.tensors)
            self.tensors.append(t)
            grad = t._grad
            if grad is not None:
                self._add(grad)
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
        self.grads = []  # (tensor index, present): a ``.grad`` the step made (a fresh tensor each call) or cleared
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
        program.kept = [i for i in range(len(storages)) if i not in written]

        def ordered(donated, others, array_values):
            values = [None] * len(storages)
            for i, v in zip(program.written, donated):
                values[i] = v
            for i, v in zip(program.kept, others):
                values[i] = v
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
                self.grads.append((index, grad is not None))
                if grad is not None:
                    outs.append(grad._value)
        after = _Gathered()
        after.walk_call(*roots)
        fresh_grads = {id(tensors[i]._grad) for i, present in self.grads if present}
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
        return outs

    def run(self, gathered, args, kwargs):
        """Run the compiled step on the current state and write the results into the Tensor objects."""
        import jax

        storages, _ = gathered.storages()
        tensors, backend = gathered.tensors, self.backend
        donated = [storages[i].array for i in self.written]
        others = [storages[i].array for i in self.kept]
        arrays = [backend.from_numpy(a) if isinstance(a, np.ndarray) else a for a in gathered.arrays]
        donated = _unshared(donated, others + arrays)
        outs = iter(self.executable(donated, others, arrays))
        for i in self.written:
            st = storages[i]
            st.array = next(outs)
            st.version += 1
        _invalidate(storages, tensors)
        for i in self.rebound:
            tensors[i].data = wrap(next(outs), backend)
        for i, present in self.grads:
            tensors[i].grad = wrap(next(outs), backend) if present else None
        for st, owners in self.created:
            st.array = next(outs)
            _invalidate([st], owners)
        treedef, plan = self.outputs
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
