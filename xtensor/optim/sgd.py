"""Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay (PyTorch's ``SGD``)."""
from .optimizer import Optimizer, _add_, _get_value

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * g`` where ``g`` is the gradient (negated when ``maximize``) plus ``weight_decay * p``, run
    through a momentum buffer ``b = momentum * b + (1 - dampening) * g`` (the first buffer is ``g`` itself)
    and, with ``nesterov``, looked ahead as ``g + momentum * b``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, group):
        lr, momentum, weight_decay = _get_value(group["lr"]), group["momentum"], group["weight_decay"]
        for param in group["params"]:
            if param.grad is None:
                continue
            grad = -param.grad if group["maximize"] else param.grad
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            _add_(param, grad, -lr)
