"""Adam (PyTorch's ``Adam``: AMSGrad, coupled or decoupled weight decay)."""
from .._creation import zeros_like
from .optimizer import Optimizer, _count_step, _gradient, _lerp, _new_step

__all__ = ["Adam"]


def _check_adam_arguments(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _new_moments(state, param):
    """A fresh state: the step counter and Adam's two moments."""
    state["step"] = _new_step(param)
    state["exp_avg"], state["exp_avg_sq"] = zeros_like(param), zeros_like(param)


def _moments(state, grad, betas, ops):
    """Adam's moments ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``, updated and returned."""
    (beta1, beta2), exp_avg, exp_avg_sq = betas, state["exp_avg"], state["exp_avg_sq"]
    m = _lerp(ops.read(exp_avg), grad, 1 - beta1)
    v = ops.read(exp_avg_sq) * beta2 + (1 - beta2) * grad * grad
    ops.write(exp_avg, m)
    ops.write(exp_avg_sq, v)
    return m, v


def _decayed(param, group, lr, ops):
    """The parameter's value, shrunk by ``1 - lr * weight_decay`` when the decay is decoupled (AdamW)."""
    value = ops.read(param)
    if group["weight_decay"] != 0 and group["decoupled_weight_decay"]:
        value = value * (1 - lr * group["weight_decay"])
    return value


class Adam(Optimizer):
    """Moments ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``, then
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``; ``amsgrad`` uses the running
    maximum of ``v``. ``weight_decay`` adds ``weight_decay * p`` to the gradient, or with
    ``decoupled_weight_decay`` (AdamW) shrinks ``p`` by ``1 - lr * weight_decay`` first."""

    _fusable = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_adam_arguments(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, group, params, ops):
        (beta1, beta2), lr, eps = group["betas"], ops.scalar(group["lr"]), group["eps"]
        for param in params:
            state = self.state[param]
            if not state:
                _new_moments(state, param)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(param)
            grad = _gradient(param, group, ops, coupled_decay=not group["decoupled_weight_decay"])
            step = _count_step(state, ops)
            value = _decayed(param, group, lr, ops)
            m, v = _moments(state, grad, group["betas"], ops)
            if group["amsgrad"]:
                v = ops.ns(param).maximum(ops.read(state["max_exp_avg_sq"]), v)
                ops.write(state["max_exp_avg_sq"], v)
            denom = ops.ns(param).sqrt(v) / (1 - beta2 ** step) ** 0.5 + eps
            ops.write(param, value - lr / (1 - beta1 ** step) * (m / denom))
