"""Global settings PyTorch scripts set and read (``torch.use_deterministic_algorithms``,
``set_warn_always``, ``get_default_device``...), kept in one place.

Every xtensor op is deterministic on every backend, so ``use_deterministic_algorithms`` only records the
setting that ``are_deterministic_algorithms_enabled`` reports, as PyTorch does on a build whose kernels are
all deterministic.
"""
from . import _creation

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled", "get_default_device"]


class _Settings:
    deterministic = False
    warn_only = False
    warn_always = False


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Recorded only: every xtensor op is deterministic on every backend."""
    _Settings.deterministic, _Settings.warn_only = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _Settings.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _Settings.warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    return 0 if not _Settings.deterministic else 1 if _Settings.warn_only else 2


def set_warn_always(b):
    """Recorded only: xtensor has no warn-once warnings for it to turn into warn-always."""
    _Settings.warn_always = bool(b)


def is_warn_always_enabled():
    return _Settings.warn_always


def get_default_device():
    """Where factories put new tensors: the default backend's default device."""
    return _creation.zeros(()).device
