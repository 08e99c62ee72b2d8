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
   with ``.data =``. Later calls with the same signature only gather, run and write back. Storages
   holding one array (an optimizer's step counters, made and counted together) are one input, and a
   value written into several storages is one output: the program counts once for every parameter.
4. A call reuses the last call's walk (its tensors, storages and signature) while cheap guards hold, as
   torch.compile's do: every container the walk read has the same length and the same items, every walked
   object its class and attribute dict, every walked function its code, closure and globals (all as the walk
   found them, before the step ran; a dict is checked by CPython's version tag, which every write moves, where the
   interpreter has one), every gathered tensor its storage, view, dtype, ``requires_grad``,
   ``grad_fn``, backend and ``.grad``, every storage the array the last call left; the arguments are root
   tensors of the same shapes and dtypes and the same Python scalars. All of it is read into one flat list
   and compared with the recorded one: by identity where ``==`` compares values (tensors, arrays, numbers,
   containers), by one list ``==`` for the rest. Anything else takes the full walk. Storages the step never
   reads (a ``.grad`` it clears first) are not inputs of the program. A ``.grad`` the last call made is
   refilled in place when nothing else holds it (one kept by the caller stays as it was: a new one is made).

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
import functools
import operator

import numpy as np

from .._dispatch import wrap
from .._tensor import Tensor
from .gather import _Gathered, _is_jax_array, repeated_outputs, sharers
from .guards import _Fast, _Guard
from .state import _host_read_error, _invalidate, _restore, _root, _snapshot


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
                result, still = fast.run(*found)
                if still:
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


# --------------------------------------------------------------------------- the program
class _Program:
    """One traced signature: the jitted program and how its results map back onto the Tensor objects."""

    def __init__(self, backend):
        self.backend = backend
        self.executable = None
        self.reusable = True
        self.written = []  # storage indices the step overwrites: written back
        self.shared = []  # per storage, the first storage holding the same array: one input of the program
        self.donated = []  # those first storages whose every sharer the step overwrites: their arrays are donated
        self.kept = []  # the other first storages the step reads
        self.rebound = []  # tensor indices the step rebound to new memory (``.data =``)
        self.grads = []  # (tensor index, dtype or None): a ``.grad`` the step made (fresh each call) or cleared
        self.refreshed = []  # tensor indices over the written storages: their cached values are dropped
        self.created = []  # storages of state the step made (an optimizer's moments): this call only
        self.outputs = None  # (treedef, plan per leaf) of the step's return value

    @classmethod
    def trace(cls, fn, args, kwargs, gathered, backend):
        """Run the step once on tracers (the backend's ``trace``: ``jax.make_jaxpr``) and jit what it did; every object
        is put back."""
        from .._creation import default_generator

        program = cls(backend)
        storages, owners = gathered.storages()
        tensors = gathered.tensors
        shared = program.shared = sharers([st.array for st in storages])
        before = _snapshot(storages, tensors)
        rng_state = default_generator.get_state()
        array_positions = {id(a): i for i, a in enumerate(gathered.arrays)}

        def step(storage_values, array_values):
            for st, first in zip(storages, shared):  # storages over one array share its traced value
                st.array = storage_values[first]
            _invalidate(storages, tensors)
            call_args, call_kwargs = _substitute((args, kwargs), array_positions, array_values)
            result = fn(*call_args, **call_kwargs)
            return program._read_back(result, (fn, args, kwargs), storages, owners, storage_values, before,
                                      gathered)

        try:
            closed = backend.trace(step, [st.array for st in storages], list(gathered.arrays))
        except Exception as e:
            host_read = _host_read_error(e, backend.host_read_errors)
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
        run = backend.program_function(closed)
        written = set(program.written)
        read = backend.read_inputs(closed)
        firsts = sorted(set(shared))
        program.donated = [f for f in firsts if all(i in written for i, g in enumerate(shared) if g == f)]
        program.kept = [f for f in firsts if f in read and f not in program.donated]  # others: never read
        program.refreshed = [index for index, owner in enumerate(owners) if owner in written]
        avals = closed.in_avals
        repeats = repeated_outputs(closed.jaxpr.outvars)

        def ordered(donated, others, array_values):
            given = {**dict(zip(program.donated, donated)), **dict(zip(program.kept, others))}
            values = [given.get(first) for first in shared]
            for i, v in enumerate(values):
                if v is None:  # a storage the step never reads (a .grad it clears first): not an input
                    values[i] = backend.xp.zeros(avals[i].shape, dtype=avals[i].dtype)
            outs = run(*values, *array_values)
            return outs if repeats is None else [outs[i] for i in repeats[0]]

        program.executable = backend.jit(ordered, donate_argnums=0)
        if repeats is not None:
            program.executable = _expanded(program.executable, repeats[1])
        return program

    def _read_back(self, result, roots, storages, owners, installed, before, gathered):
        """Inside the trace, after the step: what the program returns (a flat list of arrays), and how
        each entry is written back (recorded on ``self``)."""
        tensors = gathered.tensors
        outs = []
        self.written = [i for i, st in enumerate(storages) if st.array is not installed[self.shared[i]]]
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
        leaves, treedef = self.backend.tree_flatten(result, Tensor)
        plan = []
        for leaf in leaves:
            if isinstance(leaf, Tensor) and id(leaf) in gathered.position:
                plan.append(("state", gathered.position[id(leaf)]))
            elif isinstance(leaf, Tensor):
                plan.append(("tensor", (leaf._dtype, type(leaf))))
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
        donated = [storages[i].array for i in self.donated]
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
        return self.result(outs, tensors)

    def result(self, outs, tensors):
        """The step's return value from the rest of the program's outputs ``outs`` (an iterator); ``tensors``: the
        gathered ones, the step may return one of them (None when it returns none)."""
        backend = self.backend
        treedef, plan = self.outputs
        if treedef is None:  # the step returned one tensor (a loss): the common case
            return _output(next(outs), backend, *plan)
        leaves = []
        for kind, info in plan:
            if kind == "state":
                leaves.append(tensors[info])
            elif kind == "tensor":
                leaves.append(_output(next(outs), backend, *info))
            elif kind == "array":
                leaves.append(next(outs))
            else:
                leaves.append(info)
        return backend.tree_unflatten(treedef, leaves)


def _output(arr, backend, dtype, cls):
    """A tensor the step returned, of the class it had in the trace (an array-API tensor stays one)."""
    t = wrap(arr, backend, dtype)
    if cls is not Tensor:
        t.__class__ = cls
    return t


def _substitute(obj, positions, values):
    """``obj`` with each argument array (by identity) replaced by its value in the trace."""
    if isinstance(obj, (list, tuple)):
        items = [_substitute(x, positions, values) for x in obj]
        return items if isinstance(obj, list) else type(obj)(items) if type(obj) is tuple else type(obj)(*items)
    if isinstance(obj, dict):
        return {k: _substitute(v, positions, values) for k, v in obj.items()}
    index = positions.get(id(obj))
    return obj if index is None else values[index]


def _expanded(executable, expand):
    """``executable`` returning its outputs at the positions ``expand`` gives, as a tuple (one array written into
    several storages is computed and returned once; ``expand`` has two entries at least)."""
    pick = operator.itemgetter(*expand)
    return lambda *args: pick(executable(*args))


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
