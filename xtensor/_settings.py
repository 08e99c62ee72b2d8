"""Global settings PyTorch scripts set and read (``torch.use_deterministic_algorithms``,
``set_warn_always``, ``get_default_device``, ``set_float32_matmul_precision``, ``set_num_threads``, anomaly mode's
torch-namespace spellings...), kept in one place.

Every xtensor op is deterministic on every backend, so ``use_deterministic_algorithms`` only records the
setting that ``are_deterministic_algorithms_enabled`` reports, as PyTorch does on a build whose kernels are
all deterministic.
"""
import builtins
import os
import sys
import warnings

import threadpoolctl

from . import _creation
from ._tensor import default_devices, device as _device
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled", "get_default_device",
           "set_default_device", "set_float32_matmul_precision", "get_float32_matmul_precision", "get_num_threads",
           "set_num_threads", "get_num_interop_threads", "set_num_interop_threads", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]


class _Settings:
    deterministic = False
    warn_only = False
    warn_always = False
    matmul_precision = "highest"
    interop_threads = os.cpu_count()


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
    """Where factories put new tensors (made as PyTorch finds out: by making one)."""
    return _creation.zeros(()).device


def set_default_device(device):
    """Factories without ``device=`` put their tensors on ``device`` (``None``: the backend's default again); a
    device the backend lacks raises when a factory uses it, as PyTorch's CUDA default does on a CPU build."""
    default_devices[0] = None if device is None else _device(device)


# ------------------------------------------------------------------ float32 matmul precision
_MATMUL_PRECISIONS = ("highest", "high", "medium")
_JAX_PRECISIONS = {"highest": "float32", "high": "tensorfloat32", "medium": "bfloat16"}


def set_float32_matmul_precision(precision):
    """PyTorch's float32 matmul precision: ``"highest"`` (the default: full float32), ``"high"`` (TF32 allowed),
    ``"medium"`` (bfloat16 allowed). It sets ``backends.cuda.matmul.allow_tf32`` as PyTorch does and, once jax
    is loaded, jax's default matmul precision (on CPUs every choice computes in float32, as PyTorch's)."""
    if precision not in _MATMUL_PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _Settings.matmul_precision = precision
    if "jax" in sys.modules:
        sys.modules["jax"].config.update("jax_default_matmul_precision", jax_matmul_precision())


def get_float32_matmul_precision():
    return _Settings.matmul_precision


def jax_matmul_precision():
    """jax's name for the current precision; the jax adapter sets it when it loads, because XLA's own default on
    GPUs is TF32 (a float32 product ~3e-4 off where PyTorch's, "highest" by default, is ~1e-6 off on an H100)."""
    return _JAX_PRECISIONS[_Settings.matmul_precision]


def jax_compilation_cache():
    """The folder where the jax backend keeps the programs it compiles, or None for none: ``XTENSOR_JAX_CACHE``
    (a folder, or ``0``/``off`` for none), else ``xtensor/jax`` in the user's cache folder (``XDG_CACHE_HOME``,
    else ``~/.cache``). Safe to delete at any time."""
    chosen = os.environ.get("XTENSOR_JAX_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "0", "off", "false", "no") else chosen
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                        "xtensor", "jax")


# ------------------------------------------------------------------ threads
def get_num_threads():
    """The threads numpy's BLAS uses for one op (PyTorch's intra-op threads)."""
    counts = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    return max(counts) if counts else os.cpu_count()


def set_num_threads(int):
    """Limit numpy's BLAS to ``int`` threads (through threadpoolctl). jax's XLA fixes its thread pool at start
    (``XLA_FLAGS``), so jax ops keep theirs."""
    _check_thread_count(int, "set_num_threads")
    threadpoolctl.threadpool_limits(limits=int, user_api="blas")


def get_num_interop_threads():
    return _Settings.interop_threads


def set_num_interop_threads(int):
    """Recorded only: xtensor runs independent ops one after another (no inter-op pool)."""
    _check_thread_count(int, "set_num_interop_threads")
    _Settings.interop_threads = int


def _check_thread_count(value, name):
    if not isinstance(value, builtins.int) or isinstance(value, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled``: ``autograd.set_detect_anomaly`` under its torch-namespace name."""
    set_detect_anomaly(enabled, check_nan)
