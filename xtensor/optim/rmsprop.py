"""RMSprop (PyTorch's ``RMSprop``: centered, momentum, weight decay)."""
from .._creation import zeros_like
from .optimizer import Optimizer, _count_step, _gradient, _lerp, _new_step

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``v = alpha * v + (1 - alpha) * g * g``; the step is ``g / (sqrt(v - mean(g)**2 if centered else v) + eps)``,
    taken directly or through a momentum buffer."""

    _fusable = True

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, group, params, ops):
        lr, alpha, eps, momentum = ops.scalar(group["lr"]), group["alpha"], group["eps"], group["momentum"]
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = _new_step(param)
                state["square_avg"] = zeros_like(param)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(param)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(param)
            _count_step(state, ops)
            grad = _gradient(param, group, ops)
            square_avg = ops.read(state["square_avg"]) * alpha + (1 - alpha) * grad * grad
            ops.write(state["square_avg"], square_avg)
            if group["centered"]:
                grad_avg = _lerp(ops.read(state["grad_avg"]), grad, 1 - alpha)
                ops.write(state["grad_avg"], grad_avg)
                square_avg = square_avg + -1 * grad_avg * grad_avg
            avg = ops.ns(param).sqrt(square_avg) + eps
            if momentum > 0:
                buf = ops.read(state["momentum_buffer"]) * momentum + grad / avg
                ops.write(state["momentum_buffer"], buf)
                ops.write(param, ops.read(param) - lr * buf)
            else:
                ops.write(param, ops.read(param) - lr * (grad / avg))
