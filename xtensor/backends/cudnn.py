"""``torch.backends.cudnn``: cuDNN's flags with PyTorch's defaults (``enabled``, ``benchmark``,
``deterministic``, ``allow_tf32``...), settable as module attributes or for a block with ``flags()``.
Available where jax runs on CUDA GPUs (jax's convolutions go through cuDNN); xtensor asks XLA for full
float32 precision and deterministic results, so the flags change nothing it computes.
"""
import contextlib
import sys

from .. import cuda as _cuda

__all__ = ["is_available", "version", "flags", "enabled", "benchmark", "benchmark_limit", "deterministic",
           "allow_tf32"]

enabled = True
benchmark = False
benchmark_limit = 10 if _cuda.is_available() else None
deterministic = False
allow_tf32 = True
fp32_precision = "none"


def is_available():
    return _cuda.is_available()


def version():
    """cuDNN's version as an int (PyTorch's form), where jax runs on CUDA; else None."""
    if not is_available():
        return None
    from jax._src.lib import cuda_versions
    return cuda_versions.cudnn_get_version() if cuda_versions is not None else None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none"):
    """Set the flags for a block, then restore them."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32", "fp32_precision")
    before = {name: getattr(module, name) for name in names}
    values = dict(zip(names, (enabled, benchmark, deterministic, allow_tf32, fp32_precision)))
    vars(module).update(values)
    try:
        yield
    finally:
        vars(module).update(before)
