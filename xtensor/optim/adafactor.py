"""Adafactor (PyTorch's ``Adafactor``: second moments factored into row and column averages)."""
from .. import _dtypes
from .._creation import zeros_like
from .optimizer import Optimizer, _count_step, _gradient, _lerp, _new_step

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """For a matrix (or a stack of them) the second moment is kept as its row means ``R`` and column means
    ``C`` (``lerp``-ed towards ``mean(g * g)`` along each axis by ``t ** beta2_decay``) and estimated as
    ``R @ C / mean(R)``; a vector keeps its full second moment. The update ``g / sqrt(max(v, eps1 ** 2))`` is
    clipped to an RMS of ``d`` and scaled by ``max(eps2, RMS(p)) * min(lr, 1 / sqrt(t))``; ``weight_decay``
    shrinks ``p`` by ``1 - lr * weight_decay`` first. ``eps1=None`` means the parameter dtype's epsilon.
    Each step reads two root mean squares as Python numbers (PyTorch's ``.item()``), so it is an eager step."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def _update(self, group, params, ops):
        lr, (eps1, eps2), d = ops.scalar(group["lr"]), group["eps"], group["d"]
        for param in params:
            if param.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            state = self.state[param]
            if not state:
                _new_second_moments(state, param)
            xp, grad = ops.ns(param), _gradient(param, group, ops, coupled_decay=False)
            step = _count_step(state, ops)
            weight = step ** group["beta2_decay"]
            floor = _dtypes.finfo(param.dtype).eps if eps1 is None else eps1
            value = ops.read(param)
            alpha = max(eps2, _rms(xp, value)) * min(lr, 1 / step ** 0.5)
            if group["weight_decay"] != 0:
                value = value * (1 - lr * group["weight_decay"])
            squared = grad * grad
            if param.ndim > 1:
                row_var = _lerp(ops.read(state["row_var"]), xp.mean(squared, axis=-1, keepdims=True), weight)
                col_var = _lerp(ops.read(state["col_var"]), xp.mean(squared, axis=-2, keepdims=True), weight)
                ops.write(state["row_var"], row_var)
                ops.write(state["col_var"], col_var)
                variance = (row_var @ col_var) / xp.clip(xp.mean(row_var, axis=-2, keepdims=True), min=floor)
            else:
                variance = _lerp(ops.read(state["variance"]), squared, weight)
                ops.write(state["variance"], variance)
            update = grad / xp.sqrt(xp.clip(variance, min=floor * floor))
            ops.write(param, value - alpha / max(1.0, _rms(xp, update) / d) * update)


def _new_second_moments(state, param):
    """A fresh state: the step counter and the row/column means of ``g * g`` (a vector's: ``g * g`` itself)."""
    state["step"] = _new_step(param)
    if param.ndim > 1:
        state["row_var"] = param.new_zeros((*param.shape[:-1], 1))
        state["col_var"] = param.new_zeros((*param.shape[:-2], 1, param.shape[-1]))
    else:
        state["variance"] = zeros_like(param)


def _rms(xp, x):
    """The root mean square of ``x`` as a Python number (PyTorch's ``norm(2) / sqrt(numel)``, read with ``item``)."""
    return float(xp.sqrt(xp.mean(x * x)))
