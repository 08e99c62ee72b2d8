"""The ``Optimizer`` base class: parameter groups, per-parameter state and their state dict, as PyTorch's.

Optimizers are plain Python over the Tensor API, updating parameters in place under ``no_grad`` with
PyTorch's single-tensor formulas (``foreach``/``fused`` are accepted and kept in the groups so state
dicts move both ways, but there is one implementation). Per-parameter ``step`` counters are 0-d
tensors, as PyTorch keeps them, on the parameter's backend: under ``xtensor.compile`` they are traced
values, and the update reads them as tensors instead of Python numbers (PyTorch's ``_get_value``).
"""
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from .. import _dtypes
from .._compile import _is_tracer
from .._tensor import Tensor
from ..autograd import grad_mode

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


def _add_(param, update, alpha):
    """``param += alpha * update``; ``alpha`` may be a traced 0-d tensor."""
    if isinstance(alpha, Tensor):
        return param.add_(update * alpha)
    return param.add_(update, alpha=alpha)


def _addcdiv_(param, numerator, denominator, value):
    """``param += value * numerator / denominator``; ``value`` may be a traced 0-d tensor."""
    if isinstance(value, Tensor):
        return param.add_(numerator / denominator * value)
    return param.addcdiv_(numerator, denominator, value=value)


def _new_step(param):
    """A fresh step counter: a 0-d tensor of PyTorch's scalar dtype, on the parameter's backend."""
    dtype = _dtypes.float64 if _dtypes.get_default_dtype() is _dtypes.float64 else _dtypes.float32
    return param.new_zeros((), dtype=dtype)


class Optimizer:
    """Base class of the optimizers: ``param_groups`` (dicts holding ``params`` and the hyperparameters),
    ``state`` (per parameter tensor), ``zero_grad``, ``add_param_group``, ``state_dict``/``load_state_dict``.

    Subclasses give ``defaults`` and implement ``_update(group)`` for the parameters of one group."""

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
        with grad_mode.set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                self._update(group)
        return loss

    def _update(self, group):
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's ``.grad``: drop it (the default) or fill it with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

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
