"""NAdam (PyTorch's ``NAdam``: Nesterov-accelerated Adam with momentum decay, coupled or decoupled weight decay)."""
from .adam import _check_adam_arguments, _decayed, _moments, _new_moments
from .optimizer import Optimizer, _count_step, _gradient

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam's moments with a momentum schedule ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay))``: the
    step mixes the gradient (weight ``(1 - mu_t) / (1 - prod mu)``) and the next momentum (weight
    ``mu_{t+1} / (1 - prod mu * mu_{t+1})``) over ``sqrt(v / (1 - beta2**t)) + eps``."""

    _fusable = True

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_arguments(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, group, params, ops):
        (beta1, beta2), lr, decay = group["betas"], ops.scalar(group["lr"]), group["momentum_decay"]
        for param in params:
            state = self.state[param]
            if not state:
                _new_moments(state, param)
                state["mu_product"] = state["step"].new_ones(())
            step = _count_step(state, ops)
            grad = _gradient(param, group, ops, coupled_decay=not group["decoupled_weight_decay"])
            value = _decayed(param, group, lr, ops)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
            ops.write(state["mu_product"], ops.read(state["mu_product"]) * mu)
            mu_product = ops.scalar(state["mu_product"])
            m, v = _moments(state, grad, group["betas"], ops)
            denom = ops.ns(param).sqrt(v / (1 - beta2 ** step)) + group["eps"]
            value = value + (-lr * (1.0 - mu) / (1.0 - mu_product)) * (grad / denom)
            ops.write(param, value + (-lr * mu_next) / (1.0 - mu_product * mu_next) * (m / denom))
