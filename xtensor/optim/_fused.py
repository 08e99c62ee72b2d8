"""An eager ``optimizer.step()`` on a backend that compiles (jax) as one cached program.

Run eagerly on jax, a step is a dozen small jax calls per parameter (an AdamW step of a small GPT: ~300 calls,
~12 ms, more than the compiled model's forward and backward). Here the optimizer's own ``_update`` -- the same
formulas as the eager path -- is traced once per signature with a third way of reading and writing tensors
(``_Staged``: every parameter, gradient and state tensor of the step is an input array of the program, and what
the update writes is an output), compiled with ``jax.jit`` and run on the raw arrays of every group at once; the
arrays it overwrites (parameters, state) are written back into the same tensors, and donated to the program when
nothing else holds them.

The signature is the groups' structure (which tensors, their shapes and dtypes, the state's keys) and their
hyperparameters, except ``lr``: each group's learning rate is an input (a scheduler changes it every step without
a recompile), as are the step counters (0-d state tensors), read as Python numbers would be -- weakly typed,
float64 -- so the program computes what the eager path computes.

A signature is compiled only when one of the last eager steps left it (its state made, its hyperparameters set);
other steps run eagerly. So a step that creates state (the first: Adam's moments, SGD's momentum buffer) is eager and
the traced update never creates state, and a hyperparameter other than ``lr`` that changes every step (``OneCycleLR``
cycling ``momentum`` or ``betas``) keeps the eager path instead of compiling a program per value; one changed once
compiles again on the next step, and structures that alternate (parameters with and without a gradient) compile
each.
Past ``_MAX_PROGRAMS`` programs the optimizer warns once and stays eager (torch.compile's ``cache_size_limit``).

Only optimizers whose ``_update`` reads and writes tensors through ``ops`` alone and branches on hyperparameters and
structure, never on values, are fused (``Optimizer._fusable``); tracers (the step inside ``xtensor.compile`` or
``jax.jit``), several backends, two tensors over one storage and tensor-valued hyperparameters other than ``lr``
take the eager path.
"""
import sys
import warnings

from .._compile.gather import repeated_outputs, sharers
from .._tensor import Tensor

_MAX_PROGRAMS = 8  # programs per optimizer before it stays eager (torch.compile's cache_size_limit)
_UNFUSED_KEYS = frozenset(("params", "param_names", "lr"))


class _Staged:
    """Formulas inside the traced program: a tensor is read from, and written to, a table of traced arrays keyed by
    the tensor's id; 0-d state tensors read as numbers are weakly typed (``.item()``'s Python number, traced)."""

    def __init__(self, values, backend):
        self.values = values
        self.backend = backend

    def read(self, t):
        return self.values[id(t)]

    def write(self, t, value):
        self.values[id(t)] = value

    def ns(self, t):
        return self.backend.xp

    def scalar(self, x):
        return self.backend.python_scalar(self.values[id(x)]) if isinstance(x, Tensor) else x


class FusedUpdate:
    """An optimizer's compiled programs (by signature) and the signatures its last eager steps left."""

    def __init__(self):
        self.programs = {}
        self.settled = []  # the signatures the last eager steps left: compiled the next time they are met
        self.disabled = False

    def run(self, optimizer, groups):
        """Update ``groups`` (``[(group, params with a gradient)]``) as one program; False when this step must run
        eagerly (the caller runs it)."""
        if self.disabled:
            return False
        found = _gather(optimizer, groups)
        if found is None:
            return False
        key, tensors, arrays, lrs = found
        try:
            program = self.programs.get(key)
        except TypeError:  # a hyperparameter that cannot be hashed (a list): no key, an eager step
            return False
        if program is None:
            if key not in self.settled:
                optimizer._update_groups(groups)
                after = _gather(optimizer, groups)
                if after is not None:
                    self.settled = [after[0], *self.settled[:_MAX_PROGRAMS - 1]]
                return True
            if len(self.programs) >= _MAX_PROGRAMS:
                warnings.warn(f"{type(optimizer).__name__}.step: {_MAX_PROGRAMS} programs compiled for this "
                              "optimizer (a hyperparameter other than lr changing between steps, or changing "
                              "shapes); its steps run eagerly from now on", stacklevel=3)
                self.disabled = True
                return False
            program = self.programs[key] = _Program.trace(optimizer, groups, tensors, arrays, lrs)
        program.run(tensors, arrays, lrs)
        return True


def _gather(optimizer, groups):
    """``(signature, tensors, their arrays, the groups' learning rates)`` for a step that can be fused, else None.
    The tensors are each parameter, its gradient and its state's tensors, in order; a tensor met twice (a parameter
    listed twice) or two over one storage take the eager path, whose writes each see the other's."""
    backend = groups[0][1][0]._backend
    if not getattr(backend, "compiles", False):
        return None
    tensors, structure, lrs = [], [], []
    state_of = optimizer.state
    for group, params in groups:
        hypers = tuple((k, v) for k, v in group.items() if k not in _UNFUSED_KEYS)
        if any(isinstance(v, Tensor) for _, v in hypers):
            return None
        lr = group["lr"]
        if isinstance(lr, Tensor):
            lrs.append(lr._value)
            structure.append((hypers, "tensor"))
        else:
            lrs.append(float(lr))
            structure.append((hypers, "number"))
        for p in params:
            state = state_of.get(p) or _NO_STATE
            tensors += (p, p._grad, *state.values())
            structure.append(tuple(state))
    if not all(isinstance(t, Tensor) and t._backend is backend for t in tensors) \
            or len({id(t._storage) for t in tensors}) != len(tensors):
        return None
    arrays = [t._value for t in tensors]
    tracer = backend.tracer_type
    if any(isinstance(a, tracer) for a in (*arrays, *lrs)):
        return None
    key = (tuple(structure), tuple((a.shape, a.dtype) for a in arrays), tuple(sharers(arrays)),
           tuple((lr.shape, lr.dtype) for lr in lrs if not isinstance(lr, float)))
    return key, tensors, arrays, lrs


_NO_STATE = {}


class _Program:
    """One signature's program: which tensors it overwrites (written back; donated where nothing else holds their
    arrays) and its jitted function, one per donation pattern."""

    def __init__(self, written, kept, run, backend, repeats):
        self.written, self.kept, self.run_traced, self.backend = written, kept, run, backend
        self.repeats = repeats  # ``_compile.gather.repeated_outputs``: one count written into every step counter
        self.executables = {}

    @classmethod
    def trace(cls, optimizer, groups, tensors, arrays, lrs):
        backend = tensors[0]._backend
        written, shared = [], sharers(arrays)

        def update(values, lr_values):
            values = [values[first] for first in shared]  # tensors over one array (step counters): one input
            table = {id(t): v for t, v in zip(tensors, values)}
            ops = _Staged(table, backend)
            for (group, params), lr in zip(groups, lr_values):
                lr = backend.python_scalar(lr) if isinstance(group["lr"], Tensor) else lr
                optimizer._update(dict(group, lr=lr), params, ops)
            written[:] = [i for i, (t, v) in enumerate(zip(tensors, values)) if table[id(t)] is not v]
            return [_stored(table[id(tensors[i])], tensors[i], backend) for i in written]

        traced = backend.trace(update, arrays, lrs)
        done = set(written)
        return cls(written, [i for i in range(len(tensors)) if i not in done], backend.program_function(traced),
                   backend, repeated_outputs(traced.jaxpr.outvars))

    def executable(self, donation):
        """The jitted program whose first argument, the written arrays marked True in ``donation``, is donated."""
        function = self.executables.get(donation)
        if function is None:
            donated = [i for i, free in zip(self.written, donation) if free]
            held = [i for i, free in zip(self.written, donation) if not free] + self.kept
            run, size, repeats = self.run_traced, len(self.written) + len(self.kept), self.repeats

            def ordered(donated_values, held_values, lr_values):
                values = [None] * size
                for i, v in zip(donated, donated_values):
                    values[i] = v
                for i, v in zip(held, held_values):
                    values[i] = v
                outs = run(*values, *lr_values)
                return outs if repeats is None else [outs[i] for i in repeats[0]]
            function = self.executables[donation] = self.backend.jit(ordered, donate_argnums=0)
        return function

    def run(self, tensors, arrays, lrs):
        donation = tuple(_only_ours(tensors[i], arrays, i) for i in self.written)
        donated = [arrays[i] for i, free in zip(self.written, donation) if free]
        held = [arrays[i] for i, free in zip(self.written, donation) if not free] + [arrays[i] for i in self.kept]
        outs = self.executable(donation)(donated, held, lrs)
        if self.repeats is not None:
            outs = [outs[j] for j in self.repeats[1]]
        for i, value in zip(self.written, outs):
            _replace(tensors[i], value)


def _replace(t, value):
    """``t._write(value)`` for a value already of ``t``'s dtype and shape: a root tensor's storage takes it as it is
    (the checks and casts of ``_write`` cost more than the rest of a small parameter's update)."""
    if t._view is None:
        t._store_root(value)
    else:
        t._write(value)


def _only_ours(t, arrays, i):
    """Whether the array of ``t`` (``arrays[i]``) is held only by ``t`` (its storage and cached value) and ``arrays``:
    then its buffer can be donated. jax arrays are immutable, so xtensor shares them freely -- ``copy_`` of one
    tensor into another, an averaged model's first copy, a saved value of the autograd graph -- and a donated buffer
    is deleted under every other holder."""
    array = arrays[i]
    return t._view is None and sys.getrefcount(array) <= _OWN_REFERENCES + (t._arr is array)


_OWN_REFERENCES = 4  # the storage's, the list's, the local name's and getrefcount's argument's


def _stored(value, t, backend):
    """``value`` as tensor ``t`` stores it (its dtype and shape), so that writing it back is a plain replacement."""
    xp = backend.xp
    native = backend.native[t._dtype]
    if value.dtype != native:
        value = xp.astype(value, native)
    shape = tuple(t.shape)
    return value if tuple(value.shape) == shape else xp.broadcast_to(value, shape)
