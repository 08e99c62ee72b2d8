"""``torch.amp.GradScaler``: loss scaling for float16 training, PyTorch's algorithm and messages.

``scale`` multiplies the loss by the scale; ``step`` unscales the gradients (once, or after the user's own
``unscale_``), skips ``optimizer.step()`` when any gradient is inf/NaN; ``update`` halves the scale after a
skipped step and doubles it after ``growth_interval`` clean ones. ``enabled=False`` makes every method the
identity (``scale`` returns its argument, ``step`` is ``optimizer.step()``), as PyTorch; so does
``device="cuda"`` on a machine without CUDA (with PyTorch's warning).
"""
import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf": None}


def _float32(value):
    """A scale as PyTorch keeps it: a float32 value."""
    return float(np.float32(value))


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # set by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _check_started(self, funcname):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did "
                                 "not use scaler.scale(loss or outputs) earlier in the iteration.")

    def scale(self, outputs):
        """``outputs`` (a tensor or an iterable of tensors) multiplied by the scale."""
        if not self._enabled:
            return outputs
        from .._creation import full
        from .._dtypes import float32
        from .._tensor import Tensor
        if self._scale is None:
            self._scale, self._growth_tracker = _float32(self._init_scale), self._init_growth_tracker

        def scaled(value):
            if isinstance(value, Tensor):
                return value * full((), self._scale, dtype=float32, backend=value._backend, device=value.device)
            if isinstance(value, (list, tuple)) or hasattr(value, "__iter__"):
                result = [scaled(v) for v in value]
                return type(value)(result) if isinstance(value, (list, tuple)) else iter(result)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return scaled(outputs)

    def _gradients(self, optimizer):
        return [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place, recording whether any is inf/NaN."""
        if not self._enabled:
            return
        self._check_started("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = _float32(1.0 / self._scale)  # the reciprocal in float64, as PyTorch
        found_inf = False
        for grad in self._gradients(optimizer):
            if grad.dtype.name == "float16":
                raise ValueError("Attempting to unscale FP16 gradients.")
            found_inf = found_inf or not bool(grad.isfinite().all())
            grad.mul_(inverse)
        state["found_inf"] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients hold inf/NaN (then the step is skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_started("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Back the scale off after a skipped step, grow it after ``growth_interval`` clean ones (or set it)."""
        if not self._enabled:
            return
        self._check_started("update")
        if new_scale is not None:
            if not isinstance(new_scale, float):
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                new_scale = new_scale.item()
            self._scale = _float32(new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale, self._growth_tracker = _float32(self._scale * self._backoff_factor), 0
            elif self._growth_tracker + 1 == self._growth_interval:
                self._scale, self._growth_tracker = _float32(self._scale * self._growth_factor), 0
            else:
                self._growth_tracker += 1
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return _float32(self._init_scale) if self._scale is None else self._scale

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """PyTorch's five entries; empty when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = _float32(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]
