"""Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay (PyTorch's ``SGD``)."""
from .optimizer import Optimizer, _gradient

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * g`` where ``g`` is the gradient (negated when ``maximize``) plus ``weight_decay * p``, run
    through a momentum buffer ``b = momentum * b + (1 - dampening) * g`` (the first buffer is ``g`` itself)
    and, with ``nesterov``, looked ahead as ``g + momentum * b``."""

    _fusable = True

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

    def _update(self, group, params, ops):
        lr, momentum, dampening = ops.scalar(group["lr"]), group["momentum"], group["dampening"]
        for param in params:
            grad = _gradient(param, group, ops)
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    state["momentum_buffer"] = param._grad.detach().clone()
                    ops.write(state["momentum_buffer"], grad)
                    velocity = grad
                else:  # (a gradient scaled by 1 - 0 is the gradient: one array operation fewer)
                    velocity = ops.read(buf) * momentum + (grad if dampening == 0 else (1 - dampening) * grad)
                    ops.write(buf, velocity)
                grad = grad + momentum * velocity if group["nesterov"] else velocity
            ops.write(param, ops.read(param) - lr * grad)
