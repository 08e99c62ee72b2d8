"""Rprop (PyTorch's ``Rprop``: resilient backpropagation)."""
from .._creation import full_like, zeros_like
from .optimizer import Optimizer, _count_step, _gradient, _new_step

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Per-element step sizes that grow by ``etaplus`` while the gradient keeps its sign and shrink by
    ``etaminus`` when it flips (within ``step_sizes``); the parameter moves by ``-sign(g) * step_size``, and a
    gradient that flipped sign is forgotten for the next step."""

    _fusable = True

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, group, params, ops):
        (etaminus, etaplus), (step_size_min, step_size_max) = group["etas"], group["step_sizes"]
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = _new_step(param)
                state["prev"] = zeros_like(param)
                state["step_size"] = full_like(param, ops.scalar(group["lr"]))
            _count_step(state, ops)
            grad = _gradient(param, group, ops, coupled_decay=False)
            xp = ops.ns(param)
            sign = xp.sign(grad * ops.read(state["prev"]))
            factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, xp.ones_like(sign)))
            step_size = xp.clip(ops.read(state["step_size"]) * factor, step_size_min, step_size_max)
            grad = xp.where(factor == etaminus, 0.0, grad)
            ops.write(state["step_size"], step_size)
            ops.write(param, ops.read(param) + -1 * xp.sign(grad) * step_size)
            ops.write(state["prev"], grad)
