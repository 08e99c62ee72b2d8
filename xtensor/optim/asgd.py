"""ASGD (PyTorch's ``ASGD``: averaged stochastic gradient descent)."""
from .._creation import zeros_like
from .optimizer import Optimizer, _count_step, _gradient, _new_step

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """SGD with a decaying step ``eta_t = lr / (1 + lambd * lr * t)**alpha`` and weight shrinking by
    ``1 - lambd * eta``; ``ax`` (the state) is the running average of the iterates from step ``t0`` on."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, group, params, ops):
        lr, lambd = ops.scalar(group["lr"]), group["lambd"]
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = _new_step(param)
                state["eta"] = state["step"].new_full((), lr)
                state["mu"] = state["step"].new_ones(())
                state["ax"] = zeros_like(param)
            step = _count_step(state, ops)
            grad = _gradient(param, group, ops)
            eta, mu = ops.scalar(state["eta"]), ops.scalar(state["mu"])
            value = ops.read(param) * (1 - lambd * eta) - eta * grad
            ops.write(param, value)
            ax = ops.read(state["ax"])
            ops.write(state["ax"], ax + (value - ax) * mu if mu != 1 else value)
            state["eta"].fill_(lr / ((1 + lambd * lr * step) ** group["alpha"]))
            state["mu"].fill_(1 / max(1, step - group["t0"]))
