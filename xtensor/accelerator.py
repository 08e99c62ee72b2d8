"""``torch.accelerator``: the current accelerator, device-agnostically — CUDA where the default backend has
GPUs (jax on a GPU machine), else none, with PyTorch's errors when a function needs one that is not there."""
from . import cuda as _cuda

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
           "synchronize", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "memory_stats", "get_memory_info"]


def is_available():
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """``device("cuda")`` where there is a GPU, else None."""
    if not is_available():
        return None
    from ._tensor import device
    return device("cuda")


def device_count():
    return _cuda.device_count()


def _need_one():
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def _forwarded(name):
    def function(*args, **kwargs):
        _need_one()
        return getattr(_cuda, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.cuda.{name}`` on the current accelerator; an error where there is none."
    return function


current_device_index = current_device_idx = _forwarded("current_device")
set_device_index = set_device_idx = _forwarded("set_device")
synchronize = _forwarded("synchronize")
empty_cache = _forwarded("empty_cache")
memory_allocated = _forwarded("memory_allocated")
max_memory_allocated = _forwarded("max_memory_allocated")
memory_reserved = _forwarded("memory_reserved")
max_memory_reserved = _forwarded("max_memory_reserved")
reset_peak_memory_stats = _forwarded("reset_peak_memory_stats")
memory_stats = _forwarded("memory_stats")
get_memory_info = _forwarded("mem_get_info")
