"""Adagrad (PyTorch's ``Adagrad``: learning-rate decay, weight decay, initial accumulator)."""
from .._creation import full_like
from .optimizer import Optimizer, _count_step, _gradient, _new_step

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``s += g * g``; ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)``. Its state is made at
    construction, as PyTorch's."""

    _fusable = True

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for param in group["params"]:
                self._init_state(param, group)

    def _init_state(self, param, group):
        state = self.state[param]
        if not state:
            state["step"] = _new_step(param)
            state["sum"] = full_like(param, group["initial_accumulator_value"])
        return state

    def _update(self, group, params, ops):
        lr = ops.scalar(group["lr"])
        for param in params:
            state = self._init_state(param, group)  # a group added later gets its state on its first step
            step = _count_step(state, ops)
            grad = _gradient(param, group, ops)
            total = ops.read(state["sum"]) + grad * grad
            ops.write(state["sum"], total)
            std = ops.ns(param).sqrt(total) + group["eps"]
            ops.write(param, ops.read(param) - lr / (1 + (step - 1) * group["lr_decay"]) * (grad / std))
