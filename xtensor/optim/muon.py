"""Muon (PyTorch's ``Muon``: momentum updates orthogonalized by a Newton-Schulz iteration, for 2-D parameters)."""
import math

from .. import _dtypes
from .._creation import zeros_like
from .optimizer import Optimizer, _lerp

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315  # Keller Jordan's quintic coefficients, as PyTorch's
DEFAULT_NS_STEPS = 5


class Muon(Optimizer):
    """The momentum buffer ``b = lerp(b, g, 1 - momentum)`` (looked ahead as ``lerp(g, b, momentum)`` with
    ``nesterov``) is orthogonalized by ``ns_steps`` quintic Newton-Schulz steps in bfloat16, as PyTorch's;
    ``p`` shrinks by ``1 - lr * weight_decay`` and moves by ``-lr * ratio`` times it, ``ratio`` from
    ``adjust_lr_fn`` (``sqrt(max(1, rows / cols))``, or ``0.2 * sqrt(max(rows, cols))`` for "match_rms_adamw").
    The iteration rounds as bfloat16 on every backend (array_api_strict has no bfloat16 dtype)."""

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def _update(self, group, params, ops):
        lr, momentum = ops.scalar(group["lr"]), group["momentum"]
        for param in params:
            if param.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            state = self.state[param]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros_like(param)
            grad = ops.read(param._grad)
            buf = _lerp(ops.read(state["momentum_buffer"]), grad, 1 - momentum)
            ops.write(state["momentum_buffer"], buf)
            direction = param._grad.new_empty(param.shape)  # the iteration is written with tensor ops
            ops.write(direction, _lerp(grad, buf, momentum) if group["nesterov"] else buf)
            orthogonal = _zeropower_via_newtonschulz(direction, group["ns_coefficients"], group["ns_steps"],
                                                     group["eps"])
            ratio = _lr_ratio(group["adjust_lr_fn"], *param.shape)
            ops.write(param, ops.read(param) * (1 - lr * group["weight_decay"]) - lr * ratio * ops.read(orthogonal))


def _zeropower_via_newtonschulz(grad, coefficients, steps, eps):
    """``grad`` (a tensor) with its singular values pushed towards 1: ``X <- a X + (b A + c A @ A) @ X`` with
    ``A = X @ X.T`` (on the wide orientation, after scaling ``X`` to norm 1), with PyTorch's bfloat16 roundings:
    each step (the norm, the division, the product, each ``addmm``) is computed in float32 and rounded once to
    bfloat16's precision. The iteration is sensitive enough that rounding each product of an ``addmm`` apart
    drifts by tenths, so this follows PyTorch's CPU kernels rather than composing bfloat16 ops."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    x = _bfloat16_rounded(grad.to(_dtypes.float32))
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    x = _bfloat16_rounded(x / _bfloat16_rounded(x.norm()).clamp(min=eps))
    for _ in range(steps):
        gram = _bfloat16_rounded(x @ x.T)
        x = _bfloat16_rounded(a * x + _bfloat16_rounded(b * gram + c * (gram @ gram)) @ x)
    return (x.T if tall else x).to(grad.dtype)


def _bfloat16_rounded(x):
    """float32 ``x`` rounded to the nearest bfloat16 (8 significant bits), kept as float32: Veltkamp's split by
    ``2**16 + 1`` leaves the high 8 bits, so every backend rounds the same way, with or without a bfloat16."""
    scaled = x * 65537.0
    return scaled - (scaled - x)


def _lr_ratio(adjust_lr_fn, rows, cols):
    """How much ``lr`` is scaled for a ``rows x cols`` parameter (PyTorch's ``_adjust_lr``)."""
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, rows / cols))
    return 0.2 * math.sqrt(max(rows, cols))
