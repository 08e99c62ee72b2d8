"""RAdam (PyTorch's ``RAdam``: rectified Adam, coupled or decoupled weight decay)."""
from .adam import _check_adam_arguments, _decayed, _moments, _new_moments
from .optimizer import Optimizer, _count_step, _gradient

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Adam whose adaptive step is switched on, scaled by the variance rectification ``r_t``, only once the
    length of the approximated simple moving average ``rho_t`` exceeds 5; before that the step is plain
    momentum ``p -= lr * m / (1 - beta1**t)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_arguments(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _update(self, group, params, ops):
        (beta1, beta2), lr = group["betas"], ops.scalar(group["lr"])
        rho_inf = 2 / (1 - beta2) - 1
        for param in params:
            state = self.state[param]
            if not state:
                _new_moments(state, param)
            step = _count_step(state, ops)
            grad = _gradient(param, group, ops, coupled_decay=not group["decoupled_weight_decay"])
            value = _decayed(param, group, lr, ops)
            m, v = _moments(state, grad, group["betas"], ops)
            bias_correction2 = 1 - beta2 ** step
            corrected = m / (1 - beta1 ** step)
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive = (bias_correction2 ** 0.5) / (ops.ns(param).sqrt(v) + group["eps"])
                ops.write(param, value + -1.0 * (corrected * lr * adaptive * rect))
            else:
                ops.write(param, value + -1.0 * (corrected * lr))
