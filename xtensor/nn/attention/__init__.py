"""``torch.nn.attention``: ``SDPBackend`` and the ``sdpa_kernel`` context manager choosing which kernels
``scaled_dot_product_attention`` may use.

The choice is the same state as ``backends.cuda.enable_{flash,mem_efficient,math,cudnn}_sdp``, as in torch. On
CPU torch has two kernels, MATH and FLASH_ATTENTION, which give the same values; xtensor computes one way (the math
formula) for either, and raises torch's "No viable backend" RuntimeError when neither is enabled. ``set_priority``
orders kernels torch may pick among; with one computation it changes nothing.
"""
import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The kernels of ``scaled_dot_product_attention`` (torch's names and values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_FLAGS = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
          SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}
_CPU_KERNELS = ("math", "flash")


def cpu_kernel_enabled():
    """Whether ``scaled_dot_product_attention`` has a kernel on CPU (MATH or FLASH_ATTENTION enabled)."""
    return any(_cuda._sdp[flag] for flag in _CPU_KERNELS)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, only ``backends`` (one SDPBackend or a list) may run ``scaled_dot_product_attention``."""
    chosen = backends if isinstance(backends, list) else [backends]
    for backend in chosen:
        if not isinstance(backend, SDPBackend):
            raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                                 f"{type(backend).__name__}")
    saved = dict(_cuda._sdp)
    for backend, flag in _FLAGS.items():
        _cuda._sdp[flag] = backend in chosen
    try:
        yield {}
    finally:
        _cuda._sdp.update(saved)
