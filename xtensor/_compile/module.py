"""``compile(module)``: a module's call as one tape node whose forward and backward are one program each.

On a backend that compiles (jax), the module's forward is traced once per signature -- the shapes, dtypes and
``requires_grad`` of its tensor arguments, its other arguments, every submodule's Python attributes (``training``,
``p``...), the grad mode -- with the storages of its parameters, buffers and other tensor attributes, its tensor
arguments and the random numbers it draws as the program's inputs. Each call then runs one program and gives its
outputs one node, ``CompiledFunctionBackward`` (PyTorch's name for a compiled graph's node), whose backward is one
more program: jax's VJP of the same function, its residuals kept on the device until the backward runs (or the
graph is freed). The eager code around the call -- ``loss.backward()``, ``optimizer.step()``, an eager model holding
the compiled one -- sees an ordinary node, so an ordinary training loop runs the model at compiled speed and the tape
stays the one source of gradients.

* Forward and backward as one program: once a backward took the gradient of one real scalar output alone (the
  loop's ``loss.backward()``, the other outputs unused), the next calls run jax's ``value_and_grad`` of the forward
  as one program and the node keeps the gradients instead of the residuals (XLA fuses the two, and nothing is
  written out for the backward); a backward with other cotangents runs the forward again for its residuals and ends
  the fusion, as does a fused forward nobody backpropagates through (evaluation without ``no_grad``).
* Buffers the forward writes in place (BatchNorm's running statistics, ``num_batches_tracked``) are outputs of the
  program and written back into the same storages after the call, their versions bumped as an eager write would.
* Random numbers (dropout) are drawn on the host from xtensor's generators at each call, in the order and with the
  arguments the traced forward drew them, and enter the program as inputs: a call draws exactly what the eager call
  draws, so the same seed gives the same masks (the values agree with eager up to XLA's rounding).
* The trace runs without the tape (jax differentiates the program); the outputs leave with the node as history.
  The node's backward is not itself differentiable: ``create_graph=True`` through it raises.
* Falls back to eager for the module, with one warning naming why (as torch.compile's graph breaks): forward hooks
  on any submodule (checked every call: removing them compiles again), a forward that cannot be traced (a value
  read on the host: ``.item()``, ``bool(t)``, a boolean mask, a data-dependent shape), one that writes in place to
  a tensor that requires grad or to its own arguments, a parameter that requires grad and is a view, random numbers
  drawn other than as a whole array the tensor is made from (``normal`` with tensor arguments, ``multinomial``).
  Such a signature stays eager; other signatures still compile. After ``CACHE_SIZE_LIMIT`` (8) signatures, new ones
  run eagerly, as torch.compile's ``cache_size_limit`` (generation feeding ever longer sequences would otherwise
  compile once per length).
* On a backend that cannot compile (numpy, array-API namespaces) the module runs eagerly: the same results. Inside
  an outer trace (``jax.jit``, a compiled step) it runs inline.
* Known limit: tensors the forward reads through globals or closures (not attributes of the module tree) are
  constants of the program, and Python side effects of the forward (a counter on ``self``) happen once, at the trace.
"""
import warnings

import numpy as np

from .. import _creation, _dtypes
from .._autograd import Node, freed_error, grad_tensor
from .._dispatch import edge_of, wrap
from .._ns import raw_ns
from .._tensor import Tensor
from ..autograd import grad_mode
from ..nn.modules.module import Module
from .gather import _SCALARS, _environment, unique_storages
from .state import _host_read_error, _invalidate, _restore, _snapshot

__all__ = ["CompiledModule", "CompiledFunctionBackward"]

CACHE_SIZE_LIMIT = 8  # signatures compiled per module before new ones run eagerly (torch._dynamo's default)
_HOOKS = ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_backward_pre_hooks")


class CompiledModule(Module):
    """A module whose call runs compiled (PyTorch's ``OptimizedModule``): the original is ``_orig_mod`` (so
    ``state_dict`` keys carry its prefix, as PyTorch's do) and every other attribute reads through to it."""

    def __init__(self, module, disable=False):
        super().__init__()
        self._orig_mod = module
        self.__dict__.update(_disable=disable, _programs={}, _warned=set(), compilations=0)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            modules = self.__dict__.get("_modules")
            if modules is None or "_orig_mod" not in modules:
                raise
            return getattr(modules["_orig_mod"], name)

    def forward(self, *args, **kwargs):
        module = self._orig_mod
        if self._disable:
            return module(*args, **kwargs)
        call = _Call(module, args, kwargs)
        if call.hooked is not None:
            return self._eager(f"{type(call.hooked).__name__} has hooks, which must run as Python at every call",
                               module, args, kwargs)
        if call.backend is None or not getattr(call.backend, "compiles", False) or call.traced():
            return module(*args, **kwargs)
        key = call.signature()
        program = self._programs.get(key)
        if program is None:
            if len(self._programs) >= CACHE_SIZE_LIMIT:
                return self._eager(f"it was recompiled {CACHE_SIZE_LIMIT} times (torch.compile's cache_size_limit): "
                                   "new signatures run eagerly (the input shapes keep changing: a growing sequence in "
                                   "generation, a last batch of another size...)", module, args, kwargs)
            program = self._programs[key] = _ModuleProgram.trace(call)
            self.compilations += 1
        if isinstance(program, str):  # why this signature runs eagerly
            return self._eager(program, module, args, kwargs)
        return program.run(call)

    def _eager(self, reason, module, args, kwargs):
        if reason not in self._warned:
            self._warned.add(reason)
            warnings.warn(f"xtensor.compile: {type(module).__name__} runs eagerly: {reason}", stacklevel=4)
        return module(*args, **kwargs)


class _Call:
    """One call's state: the module tree's tensors (unique, in walk order) and storages, the Python values of its
    modules' attributes, the arguments' leaves -- read in one pass over the tree (every call reads it: a parameter
    replaced, a flag switched or a hook added between calls is seen)."""

    def __init__(self, module, args, kwargs):
        self.module = module
        found, attributes, hooked = {}, [], None
        stack, seen = [module], set()
        while stack:  # preorder, as Module.modules()
            m = stack.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            d = m.__dict__
            statics = []
            for k, v in d.items():
                cls = type(v)
                if cls in _SCALARS:
                    statics.append((k, cls, v))
                elif isinstance(v, Tensor):
                    found.setdefault(id(v), v)
            attributes.append(tuple(statics))
            for v in (*d["_parameters"].values(), *d["_buffers"].values()):
                if v is not None:
                    found.setdefault(id(v), v)
            if hooked is None and any(d.get(name) for name in _HOOKS):
                hooked = m
            stack.extend(child for child in reversed(d["_modules"].values()) if child is not None)
        self.tensors, self.attributes, self.hooked = list(found.values()), tuple(attributes), hooked
        backends = {t._backend for t in self.tensors}
        backends.update(a._backend for a in (*args, *kwargs.values()) if isinstance(a, Tensor))
        self.backend = backends.pop() if len(backends) == 1 else None
        if self.backend is None or not getattr(self.backend, "compiles", False) or hooked is not None:
            return
        self.leaves, self.structure = self.backend.tree_flatten((args, kwargs), Tensor)
        self.inputs = [leaf for leaf in self.leaves if isinstance(leaf, Tensor)]
        self.storages, self.owners = unique_storages(self.tensors)
        self.records = grad_mode.state.enabled and any(
            t._requires_grad for t in (*self.tensors, *self.inputs))

    def traced(self):
        """Inside an outer trace (a jax transformation, a compiled step): the module then runs inline."""
        tracer = self.backend.tracer_type
        return any(isinstance(st.array, tracer) for st in self.storages) or \
            any(isinstance(t._value, tracer) for t in self.inputs)

    def signature(self):
        leaves = tuple((tuple(leaf.shape), leaf._dtype, leaf._requires_grad and self.records)
                       if isinstance(leaf, Tensor) else _static(leaf) for leaf in self.leaves)
        state = tuple((owner, None if t._view is None else t._view.resolve(), t._dtype, t._requires_grad)
                      for t, owner in zip(self.tensors, self.owners))
        storages = tuple((st.array.shape, st.array.dtype) for st in self.storages)
        return (self.structure, leaves, state, storages, self.attributes, self.records, *_environment())


def _static(leaf):
    """A non-tensor argument in the signature: by value when hashable (1 and True are different steps), else by id."""
    try:
        hash(leaf)
    except TypeError:
        return ("object", id(leaf))
    return (type(leaf), leaf)


class _CannotCompile(Exception):
    """Why a forward cannot be one program: it then runs eagerly, with one warning."""


class _ModuleProgram:
    """One traced signature: the jitted forward (with and without its VJP) and backward, and where each input comes
    from and each output goes."""

    @classmethod
    def trace(cls, call):
        """The program for ``call``'s signature, or the reason (a string) why it must run eagerly."""
        self = cls()
        try:
            self._trace(call)
        except _CannotCompile as e:
            return str(e)
        except Exception as e:  # noqa: BLE001  -- the eager call shows the error itself, if it is one
            host_read = _host_read_error(e, call.backend.host_read_errors)
            return str(host_read) if host_read is not None else f"its forward could not be traced ({e!r})"
        return self

    def _trace(self, call):
        backend, storages, tensors, records = call.backend, call.storages, call.tensors, call.records
        diff_storages = set()
        for t, owner in zip(tensors, call.owners):
            if records and t._requires_grad:
                if t._view is not None:
                    raise _CannotCompile("a tensor of it that requires grad is a view of another")
                diff_storages.add(owner)
        self.diff_state = sorted(diff_storages)
        self.other_state = [i for i in range(len(storages)) if i not in diff_storages]
        self.diff_inputs = [j for j, t in enumerate(call.inputs) if records and t._requires_grad]
        self.other_inputs = [j for j, t in enumerate(call.inputs) if not (records and t._requires_grad)]
        self.records = records
        input_dtypes = [t._dtype for t in call.inputs]
        plan = self.plan = {}

        def forward(state_values, input_values, draw_values):
            """The module's forward as a function of arrays: (differentiable outputs, other outputs + written)."""
            for st, value in zip(storages, state_values):
                st.array = value
            _invalidate(storages, tensors)
            arguments = [wrap(v, backend, dtype) for v, dtype in zip(input_values, input_dtypes)]
            fresh = iter(arguments)
            leaves = [next(fresh) if isinstance(leaf, Tensor) else leaf for leaf in call.leaves]
            args, kwargs = backend.tree_unflatten(call.structure, leaves)
            draws.tracers = iter(draw_values)
            with grad_mode.no_grad():
                result = call.module(*args, **kwargs)
            if any(t._value is not v for t, v in zip(arguments, input_values)):
                raise _CannotCompile("its forward writes to its own argument in place")
            written = [i for i, st in enumerate(storages) if st.array is not state_values[i]]
            if diff_storages.intersection(written):
                raise _CannotCompile("its forward writes in place to a tensor that requires grad")
            out_leaves, out_structure = backend.tree_flatten(result, Tensor)
            kinds, diff, other = [], [], []
            for leaf in out_leaves:
                if isinstance(leaf, Tensor):
                    differentiable = records and leaf._dtype.kind in "fc"
                    (diff if differentiable else other).append(leaf._value)
                    kinds.append(("diff" if differentiable else "tensor", leaf._dtype))
                elif isinstance(leaf, backend.tracer_type):
                    other.append(leaf)
                    kinds.append(("array", None))
                else:
                    kinds.append(("static", leaf))
            plan.update(structure=out_structure, kinds=kinds, written=written)
            return diff, other + [storages[i].array for i in written]

        before = _snapshot(storages, tensors)
        draws = _Draws(backend)
        example = ([st.array for st in storages], [t._value for t in call.inputs])
        try:
            with draws:
                traced = backend.trace(forward, *example, [])
            if draws.calls:  # traced again with the draws as inputs (the first trace found their shapes)
                drawn = draws.examples()
                with draws.replaying():
                    traced = backend.trace(forward, *example, drawn)
        finally:
            _restore(before, storages, tensors)
        self.draws = draws.recipe()
        run = backend.program_function(traced)
        n_state, n_inputs = len(storages), len(call.inputs)
        n_diff = sum(kind == "diff" for kind, _ in plan["kinds"])
        diff_state, other_state, diff_inputs, other_inputs = (self.diff_state, self.other_state, self.diff_inputs,
                                                              self.other_inputs)

        def program(diff, other):
            state, inputs = [None] * n_state, [None] * n_inputs
            diff = iter(diff)
            for i in diff_state:
                state[i] = next(diff)
            for j in diff_inputs:
                inputs[j] = next(diff)
            other_state_values, other_input_values, draw_values = other
            for i, v in zip(other_state, other_state_values):
                state[i] = v
            for j, v in zip(other_inputs, other_input_values):
                inputs[j] = v
            outs = run(*state, *inputs, *draw_values)
            return outs[:n_diff], outs[n_diff:]

        self.forward, self.forward_vjp, self.backward, self.forward_grad = backend.differentiable_program(program)
        self.scale = backend.jit(_scaled)
        self.seed = self.asked = None  # see ``run``
        out_avals = traced.out_avals[:n_diff]
        self.cotangents = [(tuple(a.shape), a.dtype) for a in out_avals]
        diff_dtypes = [info for kind, info in plan["kinds"] if kind == "diff"]
        self.seeds = {i for i, ((shape, _), dtype) in enumerate(zip(self.cotangents, diff_dtypes))
                      if shape == () and dtype.kind == "f"}  # real scalar outputs (a loss): what ``seed`` may be
        self.refreshed = [index for index, owner in enumerate(call.owners) if owner in set(plan["written"])]

    def run(self, call):
        backend, storages = call.backend, call.storages
        state = [st.array for st in storages]
        inputs = [t._value for t in call.inputs]
        draws = [backend.from_numpy(getattr(generator.rng, name)(*a, **kw).astype(native, copy=False))
                 for generator, name, a, kw, native in self.draws]
        diff = [state[i] for i in self.diff_state] + [inputs[j] for j in self.diff_inputs]
        other = ([state[i] for i in self.other_state], [inputs[j] for j in self.other_inputs], draws)
        if self.records:
            # While the last backward took the gradient of one real scalar output alone (``loss.backward()``, the
            # other outputs unused), forward and backward run as one program now and the node keeps the gradients
            # (a cotangent other than that scale is answered by running the forward again for its residuals).
            if self.asked is not None and not self.asked[0]:
                self.seed = None  # the last fused call's gradients were never asked for: a forward without backward
            if self.seed is None:
                diff_outs, other_outs, residuals = self.forward_vjp(diff, other)
                fused = self.asked = None
            else:
                diff_outs, other_outs, gradients = self.forward_grad(diff, other, self.seed)
                residuals, self.asked = None, [False]
                fused = (self.seed, gradients, (diff, other), self.asked)
        else:
            diff_outs, other_outs = self.forward(diff, other)
        plan = self.plan
        written = plan["written"]
        if written:
            for i, array in zip(written, other_outs[len(other_outs) - len(written):]):
                st = storages[i]
                st.array = array
                st.version += 1
            _invalidate([storages[i] for i in written], [call.tensors[i] for i in self.refreshed])
        node = None
        if self.records:
            node = CompiledFunctionBackward(backend, self, residuals, fused)
            node._edges = tuple(edge_of(t) for t in self._differentiable(call))
        diff_outs, other_outs = iter(diff_outs), iter(other_outs)
        leaves, output_nr = [], 0
        for kind, info in plan["kinds"]:
            if kind == "diff":
                t = wrap(next(diff_outs), backend, info)
                t._grad_fn, t._requires_grad = node, True
                if output_nr:
                    t._output_nr = output_nr
                output_nr += 1
                leaves.append(t)
            elif kind == "tensor":
                leaves.append(wrap(next(other_outs), backend, info))
            elif kind == "array":
                leaves.append(next(other_outs))
            else:
                leaves.append(info)
        return backend.tree_unflatten(plan["structure"], leaves)

    def _differentiable(self, call):
        """The tensors gradients flow into, in the order of the program's differentiable inputs."""
        first = {}
        for t, owner in zip(call.tensors, call.owners):
            if t._requires_grad:
                first.setdefault(owner, t)
        return [first[i] for i in self.diff_state] + [call.inputs[j] for j in self.diff_inputs]


def _is_one(value):
    """Whether a scalar cotangent is one (``loss.backward()``'s), read only where its value is computed already: the
    host never waits for the device here."""
    ready = getattr(value, "is_ready", None)
    return ready is not None and ready() and float(value) == 1.0


def _scaled(gradients, scale):
    """The gradients for cotangent ``scale`` from those for cotangent one (a VJP is linear in its cotangent)."""
    return [g * scale.astype(g.dtype) for g in gradients]


class CompiledFunctionBackward(Node):
    """The node of one compiled module call: its backward is the program's VJP on the residuals the forward left on
    the device -- or, where the forward computed the gradients of one scalar output already (``fused``: (that
    output's index, the gradients, the forward's inputs, a cell set once they were asked for)), those gradients
    scaled by its cotangent; freed after a backward without ``retain_graph``."""

    __slots__ = ("_backend", "_program", "_residuals", "_fused", "_raw_ns", "n_outputs")

    def __init__(self, backend, program, residuals, fused=None):
        self._backend, self._program, self._residuals, self._fused = backend, program, residuals, fused
        self._raw_ns = raw_ns(backend)
        self.n_outputs = len(program.cotangents)

    def _run_raw(self, grads):
        program, fused = self._program, self._fused
        given = [i for i, g in enumerate(grads) if g is not None]
        if fused is not None:
            seed, gradients, inputs, asked = fused
            asked[0] = True
            if given == [seed]:
                scale = self._cotangent(grads[seed], seed)
                return list(gradients) if _is_one(scale) else program.scale(gradients, scale)
            program.seed = None  # other cotangents than the fused program's: the split programs from now on
            self._residuals, self._fused = program.forward_vjp(*inputs)[2], None  # (the forward again)
        residuals = self._residuals
        if residuals is None:
            raise freed_error()
        if len(given) == 1 and given[0] in program.seeds:
            program.seed = given[0]  # the gradient of one scalar output alone: the next call fuses its backward
        return program.backward(residuals, [self._cotangent(g, i) for i, g in enumerate(grads)])

    def _cotangent(self, g, index):
        """The incoming gradient ``g`` of output ``index`` as the program's cotangent (zeros for None)."""
        shape, dtype = self._program.cotangents[index]
        if g is None:
            return self._backend.xp.zeros(shape, dtype=dtype)
        if g.dtype != dtype:
            g = g.astype(dtype)
        return g if g.shape == shape else self._backend.xp.broadcast_to(g, shape)

    def _run(self, grads):
        if grad_mode.state.enabled:
            raise RuntimeError("xtensor.compile: the backward of a compiled module is one jax program and cannot be "
                               "differentiated again (create_graph=True, double backward): compile the module with "
                               "disable=True where higher-order gradients are needed")
        raw = self._run_raw([None if g is None else g._value for g in grads])
        return [grad_tensor(g, self._backend) for g in raw]

    def apply(self, *grads):
        return self._run(grads)

    def release(self):
        self._residuals = self._fused = None


class _RecordingRng:
    """A host generator's ``rng`` that records each draw (the real one draws: the trace sees real values)."""

    def __init__(self, draws, generator):
        self._draws, self._generator = draws, generator

    def __getattr__(self, name):
        method = getattr(self._generator.rng, name)
        if not callable(method):
            return method

        def draw(*args, **kwargs):
            self._draws.drawing(self._generator)
            value = method(*args, **kwargs)
            self._draws.drew(self._generator, name, args, kwargs, value)
            return value
        return draw


class _Draws:
    """The random numbers a forward draws from xtensor's host generators, made inputs of its program: while tracing,
    ``_creation``'s generator access records every draw and its conversion to the backend (``_to_backend``) is
    where the values enter -- as they are in the first trace, as the program's inputs in the second."""

    def __init__(self, backend):
        self.backend = backend
        self.calls = []  # (generator, method, args, kwargs, native dtype or None until converted)
        self.produced = {}  # id(host array) -> index in calls (the arrays are kept alive in ``values``)
        self.values = []
        self.states = {}  # generator -> its state before the trace
        self.tracers = None
        self.replay = False

    def __enter__(self):
        self._rng, self._to_backend = _creation._rng, _creation._to_backend
        _creation._rng = lambda generator: _RecordingRng(self, generator or _creation.default_generator)
        _creation._to_backend = self.to_backend
        return self

    def __exit__(self, *exc):
        _creation._rng, _creation._to_backend = self._rng, self._to_backend
        for generator, state in self.states.items():
            generator.set_state(state)

    def replaying(self):
        """The second trace: the same draws, each conversion answered by the next input."""
        self.replay, self.produced, self.values = True, {}, []
        return self

    def drawing(self, generator):
        if generator not in self.states:
            self.states[generator] = generator.get_state()

    def drew(self, generator, name, args, kwargs, value):
        if not self.replay:
            self.calls.append([generator, name, args, kwargs, None])
        if isinstance(value, np.ndarray):
            self.produced[id(value)] = len(self.values)
            self.values.append(value)

    def to_backend(self, arr, adapter, dtype):
        index = self.produced.get(id(arr))
        if index is None:
            return self._to_backend(arr, adapter, dtype)
        if adapter is not self.backend:
            raise _CannotCompile(f"its forward draws random numbers on the {adapter.name} backend, not the module's")
        if self.replay:
            return next(self.tracers)
        self.calls[index][4] = _dtypes.numpy_dtype(dtype)
        return self._to_backend(arr, adapter, dtype)

    def examples(self):
        if any(native is None for *_, native in self.calls) or len(self.values) != len(self.calls):
            raise _CannotCompile("its forward draws random numbers that do not become a tensor as drawn (normal "
                                 "with tensor arguments, multinomial...), which compile cannot make inputs")
        return [self.backend.from_numpy(np.zeros(v.shape, native)) for v, (*_, native) in zip(self.values, self.calls)]

    def recipe(self):
        return [tuple(call) for call in self.calls]
