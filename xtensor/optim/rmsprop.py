"""RMSprop (PyTorch's ``RMSprop``: centered, momentum, weight decay)."""
from .._creation import zeros_like
from .optimizer import Optimizer, _add_, _addcdiv_, _get_value, _new_step

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``v = alpha * v + (1 - alpha) * g * g``; the step is ``g / (sqrt(v - mean(g)**2 if centered else v) + eps)``,
    taken directly or through a momentum buffer."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, group):
        lr, alpha, eps, momentum = _get_value(group["lr"]), group["alpha"], group["eps"], group["momentum"]
        for param in group["params"]:
            if param.grad is None:
                continue
            state = self.state[param]
            if not state:
                state["step"] = _new_step(param)
                state["square_avg"] = zeros_like(param)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(param)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(param)
            grad = -param.grad if group["maximize"] else param.grad
            state["step"] += 1
            if group["weight_decay"] != 0:
                grad = grad.add(param, alpha=group["weight_decay"])
            square_avg = state["square_avg"].mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"].lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"].mul_(momentum).addcdiv_(grad, avg)
                _add_(param, buf, -lr)
            else:
                _addcdiv_(param, grad, avg, -lr)
