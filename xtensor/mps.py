"""``torch.mps``: Apple's Metal devices, which no xtensor backend targets — PyTorch's answers on a machine
without MPS (``is_available()`` False, ``manual_seed`` quietly nothing, the rest its RuntimeError)."""

__all__ = ["is_available", "device_count", "manual_seed", "seed", "synchronize", "empty_cache",
           "current_allocated_memory", "driver_allocated_memory", "recommended_max_memory", "get_rng_state",
           "set_rng_state"]


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Nothing to seed (PyTorch's lazy call, dropped without MPS)."""


def _without_mps(name, what):
    def function(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")
    function.__name__ = name
    return function


seed = _without_mps("seed", "getDefaultGenerator")
get_rng_state = _without_mps("get_rng_state", "getDefaultGenerator")
set_rng_state = _without_mps("set_rng_state", "getDefaultGenerator")
synchronize = _without_mps("synchronize", "deviceSynchronize")
empty_cache = _without_mps("empty_cache", "emptyCache")
current_allocated_memory = _without_mps("current_allocated_memory", "getCurrentAllocatedMemory")
driver_allocated_memory = _without_mps("driver_allocated_memory", "getDriverAllocatedMemory")
recommended_max_memory = _without_mps("recommended_max_memory", "getRecommendedMaxMemory")
