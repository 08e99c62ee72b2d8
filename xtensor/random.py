"""``torch.random``: the global generator's seed and state (xtensor's one host generator, which every backend
draws from), and ``fork_rng``, which restores that state on leaving its block."""
import contextlib

from ._creation import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Run the block with the generator's state saved and put back afterwards (draws inside do not advance the
    program's random stream); ``enabled=False`` does nothing, as torch's. xtensor has one host generator, so
    ``devices``/``device_type`` pick nothing more to save."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator():
    """The generator DataLoader thread workers own; None (the global generator), since xtensor's DataLoader runs
    its workers as processes or in the main process, where torch returns None too."""
    return None
