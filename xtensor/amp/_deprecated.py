"""PyTorch's deprecated per-device spellings ``torch.<device>.amp.autocast`` / ``GradScaler``: the ``torch.amp``
classes bound to one device, each warning torch's FutureWarning. One definition serves ``cpu.amp`` and ``cuda.amp``."""
import warnings

from . import autocast_mode, grad_scaler


def device_spellings(device, module):
    """``(autocast, GradScaler)`` for ``device``, named as members of ``module`` (``torch.cuda.amp``...)."""

    class autocast(autocast_mode.autocast):
        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            warnings.warn(f"`torch.{device}.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast("
                          f"'{device}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class GradScaler(grad_scaler.GradScaler):
        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            warnings.warn(f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use `torch.amp."
                          f"GradScaler('{device}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)

    for cls in (autocast, GradScaler):
        cls.__module__, cls.__qualname__ = module, cls.__name__
    return autocast, GradScaler
