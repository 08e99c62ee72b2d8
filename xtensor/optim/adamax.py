"""Adamax (PyTorch's ``Adamax``): Adam with the infinity norm in place of the second moment."""
from .._creation import zeros_like
from .adam import _check_adam_arguments
from .optimizer import Optimizer, _count_step, _gradient, _lerp, _new_step

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 * u, |g| + eps)``, ``p -= lr / (1 - beta1**t) * m / u``."""

    _fusable = True

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_arguments(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, group, params, ops):
        (beta1, beta2), lr, eps = group["betas"], ops.scalar(group["lr"]), group["eps"]
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = _new_step(param)
                state["exp_avg"], state["exp_inf"] = zeros_like(param), zeros_like(param)
            step = _count_step(state, ops)
            grad = _gradient(param, group, ops)
            xp = ops.ns(param)
            exp_avg = _lerp(ops.read(state["exp_avg"]), grad, 1 - beta1)
            exp_inf = xp.maximum(ops.read(state["exp_inf"]) * beta2, xp.abs(grad) + eps)
            ops.write(state["exp_avg"], exp_avg)
            ops.write(state["exp_inf"], exp_inf)
            ops.write(param, ops.read(param) - lr / (1 - beta1 ** step) * (exp_avg / exp_inf))
