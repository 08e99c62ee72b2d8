"""``torch.cpu``: the host device (always there, one of it) and its autocast spelling ``torch.cpu.amp``."""
from . import amp

__all__ = ["is_available", "device_count", "current_device", "synchronize", "is_initialized", "amp"]


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Host ops finish before they return: nothing to wait for."""


def is_initialized():
    return True
