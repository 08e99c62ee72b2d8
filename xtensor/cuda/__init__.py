"""``torch.cuda``: the CUDA devices of the default backend (jax on a GPU machine has them; numpy and the
generic adapter never do).

Without CUDA every function behaves as PyTorch's CPU-only build: the queries a script makes unguarded
(``is_available``, ``device_count``, ``manual_seed``, ``empty_cache``, ``memory_allocated``...) answer
quietly, the ones that need a device raise PyTorch's ``AssertionError: Torch not compiled with CUDA
enabled``. With jax GPUs the answers come from jax (``device_kind``, ``memory_stats()``).

Every device draws random numbers from the one host generator ``xtensor.manual_seed`` seeds, so the CUDA
seeding functions have nothing of their own to seed. XLA keeps its memory pool to itself: ``empty_cache``
frees nothing, and peaks after ``reset_peak_memory_stats`` are known only when they exceed the earlier peak
(else the larger of the use at the reset and now is reported).
"""
import collections
import types

from .._backend import get_default_backend
from . import amp

__all__ = ["is_available", "device_count", "current_device", "set_device", "device", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "set_rng_state",
           "get_rng_state_all", "set_rng_state_all", "synchronize", "empty_cache", "is_bf16_supported",
           "is_tf32_supported", "get_device_name", "get_device_capability", "get_device_properties",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "memory_stats", "mem_get_info",
           "is_initialized", "init", "get_arch_list", "ipc_collect", "OutOfMemoryError", "amp"]


class OutOfMemoryError(RuntimeError):
    """``torch.cuda.OutOfMemoryError`` (``torch.OutOfMemoryError``)."""


def _gpus():
    """The default backend's CUDA devices, as jax devices."""
    backend = get_default_backend()
    return [backend.jax_device(_device("cuda", index)) for kind, index in backend.devices() if kind == "cuda"]


def _device(kind, index):
    from .._tensor import device as make
    return make(kind, index)


def _index(device):
    """The device index ``device`` names: an int, ``"cuda:1"``, a ``device``; None or ``"cuda"``: the current one."""
    if device is None or isinstance(device, int):
        index = device
    else:
        index = (_device(device, None) if isinstance(device, str) else device).index
    return _current[0] if index is None else index


def _gpu(device=None):
    """The jax device ``device`` names; PyTorch's error where there is no CUDA."""
    gpus = _gpus()
    if not gpus:
        raise AssertionError("Torch not compiled with CUDA enabled")
    index = _index(device)
    if not 0 <= index < len(gpus):
        raise RuntimeError(f"Invalid device id: {index} (there are {len(gpus)} CUDA devices)")
    return gpus[index]


_current = [0]


def is_available():
    return device_count() > 0


def device_count():
    return len(_gpus())


def is_initialized():
    return is_available()


def init():
    _gpu()


def current_device():
    _gpu()
    return _current[0]


def set_device(device):
    """Record the current device; xtensor's factories still place tensors by their ``device=`` argument."""
    _gpu(device)
    _current[0] = _index(device)


class device:
    """``with torch.cuda.device(i):`` — makes ``i`` the current device inside."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        self.prev_idx = _current[0]
        if self.idx is not None:
            set_device(self.idx)

    def __exit__(self, *exc):
        _current[0] = self.prev_idx
        return False


def manual_seed(seed):
    """Nothing to seed: every device draws from the host generator ``xtensor.manual_seed`` seeds."""


manual_seed_all = manual_seed


def seed():
    """Nothing to seed: every device draws from the host generator ``xtensor.seed`` seeds."""


seed_all = seed


def initial_seed():
    _gpu()
    from .._creation import initial_seed as host_initial_seed
    return host_initial_seed()


def get_rng_state(device="cuda"):
    _gpu(device)
    from .._creation import get_rng_state as host_state
    return host_state()


def set_rng_state(new_state, device="cuda"):
    """Nothing to set without CUDA, as PyTorch's lazy call; with CUDA the host generator's state."""
    if is_available():
        from .._creation import set_rng_state as set_host_state
        set_host_state(new_state)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


def synchronize(device=None):
    """Wait for every computation on ``device`` (jax dispatches asynchronously)."""
    gpu = _gpu(device)
    import jax
    for array in jax.live_arrays():
        if gpu in array.devices():
            array.block_until_ready()


def empty_cache():
    """XLA keeps its memory pool: nothing to release."""


def ipc_collect():
    _gpu()


def is_bf16_supported(including_emulation=True):
    return is_available() and get_device_capability() >= (8, 0)


def is_tf32_supported():
    return is_available() and get_device_capability() >= (8, 0)


def get_device_name(device=None):
    return _gpu(device).device_kind


def get_device_capability(device=None):
    major, _, minor = str(getattr(_gpu(device), "compute_capability", "0.0")).partition(".")
    return int(major), int(minor or 0)


def get_device_properties(device=None):
    gpu = _gpu(device)
    major, minor = get_device_capability(device)
    return types.SimpleNamespace(name=gpu.device_kind, major=major, minor=minor,
                                 total_memory=(gpu.memory_stats() or {}).get("bytes_limit", 0),
                                 multi_processor_count=getattr(gpu, "core_count", 0))


def get_arch_list():
    return []


def _stats(device):
    """jax's memory statistics of ``device``; None without CUDA."""
    if not is_available():
        return None
    return _gpu(device).memory_stats() or {}


_peak_reset = {}  # jax device -> (its peak, its use) when reset_peak_memory_stats was called


def memory_allocated(device=None):
    stats = _stats(device)
    return 0 if stats is None else stats.get("bytes_in_use", 0)


def max_memory_allocated(device=None):
    stats = _stats(device)
    if stats is None:
        return 0
    peak = stats.get("peak_bytes_in_use", 0)
    old_peak, use_at_reset = _peak_reset.get(_gpu(device), (-1, 0))
    return peak if peak > old_peak else max(use_at_reset, stats.get("bytes_in_use", 0))


def memory_reserved(device=None):
    stats = _stats(device)
    return 0 if stats is None else stats.get("pool_bytes", stats.get("bytes_reserved", stats.get("bytes_in_use", 0)))


def max_memory_reserved(device=None):
    stats = _stats(device)
    return 0 if stats is None else stats.get("peak_pool_bytes", max_memory_allocated(device))


def reset_peak_memory_stats(device=None):
    stats = _stats(device)
    if stats is None:
        raise AssertionError("Torch not compiled with CUDA enabled")
    _peak_reset[_gpu(device)] = (stats.get("peak_bytes_in_use", 0), stats.get("bytes_in_use", 0))


reset_max_memory_allocated = reset_peak_memory_stats


def memory_stats(device=None):
    """PyTorch's keys for the numbers jax has (``allocated_bytes.all.current``...); empty without CUDA."""
    stats = _stats(device)
    if stats is None:
        return collections.OrderedDict()
    return collections.OrderedDict([("allocated_bytes.all.current", memory_allocated(device)),
                                    ("allocated_bytes.all.peak", max_memory_allocated(device)),
                                    ("reserved_bytes.all.current", memory_reserved(device)),
                                    ("reserved_bytes.all.peak", max_memory_reserved(device))])


def mem_get_info(device=None):
    """``(free, total)`` bytes of ``device``."""
    stats = _gpu(device).memory_stats() or {}
    total = stats.get("bytes_limit", 0)
    return total - stats.get("bytes_in_use", 0), total
