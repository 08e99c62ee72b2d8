"""The ``Optimizer`` base class: parameter groups, per-parameter state and their state dict, as PyTorch's.

Optimizers are plain Python with PyTorch's single-tensor formulas (PyTorch's default on CPU; ``foreach``/
``fused``/``capturable`` are accepted and kept in the groups so state dicts move both ways, but there is one
implementation). A step is one pass over the flat list of the parameters that have a gradient. Each formula
is written once, with operators and the functions the backend's array namespace and xtensor share
(``sqrt``, ``maximum``, ``where``...), and runs in one of two ways (``_ARRAYS``/``_TENSORS``): on the raw
backend arrays, written back into the parameter and state tensors (their version counters move, as an in-place
op's do), when no graph is wanted -- the common case, and the fast one --, or on tensors when
``differentiable=True``, so the update joins the autograd graph. On a backend that compiles (jax) the first
way runs as one cached program for all the groups (``_fused.py``: the same formulas, traced with the tensors as
the program's inputs), where the optimizer declares its update fit for it (``_fusable``). Per-parameter ``step``
counters are 0-d tensors, as PyTorch keeps them, on the parameter's backend: under ``xtensor.compile`` they are
traced values, and the update reads them as traced arrays instead of Python numbers (PyTorch's ``_get_value``).
"""
from collections import defaultdict
from copy import deepcopy
from itertools import chain
from weakref import WeakKeyDictionary

from .. import _dtypes
from .._compile import _is_tracer
from .._dispatch import wrap
from .._tensor import Tensor
from ..autograd import grad_mode
from ._fused import FusedUpdate

_FUSED = WeakKeyDictionary()  # optimizer -> its FusedUpdate

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """The default of a hyperparameter a group must give (PyTorch's ``optim.optimizer.required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _get_value(x):
    """A 0-d tensor as a Python number, except under ``xtensor.compile``'s trace, where it stays a tensor."""
    if isinstance(x, Tensor):
        return x if _is_tracer(x._value) else x.item()
    return x


class _Arrays:
    """Formulas on backend arrays: tensors are read as their arrays and written back in place."""

    @staticmethod
    def read(t):
        return t._value

    @staticmethod
    def write(t, value):
        t._write(value)

    @staticmethod
    def ns(t):
        return t._backend.xp

    @staticmethod
    def scalar(x):
        """A hyperparameter or a 0-d state tensor as a number (a traced array under ``xtensor.compile``)."""
        if isinstance(x, Tensor):
            value = x._value  # (traced: read as the Python number .item() gives would act, as the fused step reads it)
            return x._backend.python_scalar(value) if _is_tracer(value) else x.item()
        return x


class _Tensors:
    """Formulas on tensors, written with ``copy_``: the update is recorded when grad mode is on. A tensor is
    read as a clone, so that writing it later does not invalidate what the graph saved of its old value."""

    @staticmethod
    def read(t):
        return t.clone()

    @staticmethod
    def write(t, value):
        t.copy_(value)

    @staticmethod
    def ns(t):
        import xtensor
        return xtensor

    scalar = staticmethod(_get_value)


_ARRAYS, _TENSORS = _Arrays(), _Tensors()


def _lerp(start, end, weight):
    """PyTorch's ``lerp`` formula (two forms, for accuracy on either side of ``weight = 0.5``)."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


# On an immutable backend, the step counters of one step share their arrays: the counters made together hold one zero,
# and counting a counter that holds the array the last one counted held gives the array the last one got (both the
# same value: the arrays cannot change). Each parameter keeps its own ``step`` tensor, as PyTorch's; a compiled program
# reading them then has one input and one count for them all instead of one per parameter (``_compile/gather.sharers``).
_last_made = None  # (backend, device, dtype, the zero it holds): the last counter made
_last_count = (None, None)  # (the array a counter held, the one it got): the last counter counted


def _new_step(param):
    """A fresh step counter: a 0-d tensor of PyTorch's scalar dtype, on the parameter's backend."""
    global _last_made
    dtype, backend = _scalar_dtype(), param._backend
    if backend.mutable:
        return param.new_zeros((), dtype=dtype)
    last, device = _last_made, param.device
    if last is not None and last[0] is backend and last[1] == device and last[2] is dtype:
        return wrap(last[3], backend, dtype)
    step = param.new_zeros((), dtype=dtype)
    _last_made = (backend, device, dtype, step._value)
    return step


def _forget_counters():
    """Drop the arrays (or traced values) the last step's counters were made or counted with."""
    global _last_made, _last_count
    _last_made, _last_count = None, (None, None)


def _scalar_dtype():
    return _dtypes.float64 if _dtypes.get_default_dtype() is _dtypes.float64 else _dtypes.float32


def _gradient(param, group, ops, coupled_decay=True):
    """The gradient a formula uses: negated when ``maximize``, plus ``weight_decay * param`` unless the
    optimizer decays the weights itself (``coupled_decay=False``)."""
    grad = ops.read(param._grad)
    if group["maximize"]:
        grad = -grad
    if coupled_decay and group["weight_decay"] != 0:
        grad = grad + group["weight_decay"] * ops.read(param)
    return grad


def _count_step(state, ops):
    """``state['step'] += 1``; the new count, as a number (a traced array under ``xtensor.compile``)."""
    global _last_count
    step = state["step"]
    value, last = ops.read(step), _last_count
    if value is last[0]:  # (an immutable array: the same count)
        counted = last[1]
    else:
        counted = value + 1
        if not step._backend.mutable:
            _last_count = (value, counted)
    ops.write(step, counted)
    return ops.scalar(step)


class Optimizer:
    """Base class of the optimizers: ``param_groups`` (dicts holding ``params`` and the hyperparameters),
    ``state`` (per parameter tensor), ``zero_grad``, ``add_param_group``, ``state_dict``/``load_state_dict``.

    Subclasses give ``defaults`` and implement ``_update(group, params, ops)`` for the parameters of one group.
    ``_fusable``: the update reads and writes tensors only through ``ops`` and branches only on hyperparameters
    and on the state's structure, never on values, so that on a backend that compiles an eager step runs as one
    cached program (``_fused.py``)."""

    _fusable = False

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + params.type())
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        return "\n".join(lines) + "\n)"

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def step(self, closure=None):
        """One update of every parameter that has a ``.grad``; ``closure`` re-evaluates the loss (with grad on)
        and its value is returned."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        differentiable = bool(self.defaults.get("differentiable", False))
        with grad_mode.set_grad_enabled(differentiable):
            groups = []
            for group in self.param_groups:
                params = [p for p in group["params"] if p._grad is not None]
                if params:
                    self._check_gradients(params)
                    groups.append((group, params))
            if differentiable:
                self._update_groups(groups, _TENSORS)
            elif groups and not (self._fusable and self._fused_update().run(self, groups)):
                self._update_groups(groups)
        _forget_counters()
        return loss

    def _update_groups(self, groups, ops=_ARRAYS):
        """The eager update of ``groups`` (``[(group, its parameters with a gradient)]``)."""
        for group, params in groups:
            self._update(group, params, ops)

    def _fused_update(self):
        """This optimizer's compiled updates (``_fused.FusedUpdate``), made on first use. They are kept outside its
        attributes: not part of its state, and invisible to ``xtensor.compile``'s walk of the optimizer."""
        fused = _FUSED.get(self)
        if fused is None:
            fused = _FUSED[self] = FusedUpdate()
        return fused

    def _check_gradients(self, params):
        """Refuse sparse gradients (only ``SparseAdam`` reads them here; PyTorch's SGD and Adagrad also do)."""
        if any(p._grad.is_sparse for p in params):
            raise RuntimeError(f"{type(self).__name__} does not support sparse gradients, please consider "
                               "SparseAdam instead")

    def _update(self, group, params, ops):
        """Update ``params`` (those of ``group`` with a gradient) by the formulas run through ``ops``."""
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's ``.grad``: drop it (the default) or fill it with zeros."""
        if set_to_none:
            for group in self.param_groups:
                for p in group["params"]:
                    p._grad = None
            return
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def add_param_group(self, param_group):
        """Add a group of parameters (with its own hyperparameters; missing ones come from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + f"{type(param).__module__}.{type(param).__qualname__}")
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(param_group["params"]) != len(set(param_group["params"])):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``: parameters are
        numbered in group order, so the dict is independent of the tensors' identity (PyTorch's layout)."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load what ``state_dict`` (here or PyTorch's) returned: groups must match in number and sizes;
        floating state tensors take their parameter's dtype, and all take its backend and device."""
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        params_of = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                             chain.from_iterable(g["params"] for g in self.param_groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in params_of:
                param = params_of[key]
                state[param] = _cast_state(param, value)
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _cast_state(param, value, key=None):
    """A loaded state value placed like ``param`` (PyTorch's policy: ``step`` keeps its dtype)."""
    if isinstance(value, Tensor):
        dtype = param.dtype if key != "step" and param.is_floating_point() else None
        return value.to(backend=param.backend, device=param.device, dtype=dtype)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value
