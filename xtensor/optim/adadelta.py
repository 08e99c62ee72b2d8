"""Adadelta (PyTorch's ``Adadelta``)."""
from .._creation import zeros_like
from .optimizer import Optimizer, _count_step, _gradient, _new_step

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``v = rho * v + (1 - rho) * g * g``; ``delta = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho * u + (1 - rho) * delta * delta``; ``p -= lr * delta``."""

    _fusable = True

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _update(self, group, params, ops):
        lr, rho, eps = ops.scalar(group["lr"]), group["rho"], group["eps"]
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = _new_step(param)
                state["square_avg"], state["acc_delta"] = zeros_like(param), zeros_like(param)
            _count_step(state, ops)
            grad = _gradient(param, group, ops)
            xp = ops.ns(param)
            square_avg = ops.read(state["square_avg"]) * rho + (1 - rho) * grad * grad
            delta = xp.sqrt(ops.read(state["acc_delta"]) + eps) / xp.sqrt(square_avg + eps) * grad
            ops.write(state["square_avg"], square_avg)
            ops.write(state["acc_delta"], ops.read(state["acc_delta"]) * rho + (1 - rho) * delta * delta)
            ops.write(param, ops.read(param) - lr * delta)
