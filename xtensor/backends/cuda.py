"""``torch.backends.cuda``: cuBLAS's ``matmul`` flags and the scaled-dot-product-attention kernel switches.

``matmul.allow_tf32`` is ``torch.get_float32_matmul_precision() != "highest"`` and sets it, as PyTorch's;
xtensor's attention is one composite on every device, so the SDP switches only record the choice.
"""
import contextlib
import warnings

from .. import _settings
from .. import cuda as _cuda

__all__ = ["matmul", "is_built", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled",
           "enable_cudnn_sdp", "preferred_linalg_library", "sdp_kernel"]


class cuBLASModule:
    """``torch.backends.cuda.matmul``: attributes PyTorch knows; any other name is an AttributeError."""
    _FLAGS = {"allow_fp16_reduced_precision_reduction": True, "allow_bf16_reduced_precision_reduction": True,
              "allow_fp16_reduced_precision_reduction_split_k": True,
              "allow_bf16_reduced_precision_reduction_split_k": True, "allow_fp16_accumulation": False}

    def __init__(self):
        object.__setattr__(self, "_flags", dict(self._FLAGS))

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _settings.get_float32_matmul_precision() != "highest"
        if name == "fp32_precision":
            return "tf32" if self.allow_tf32 else "ieee"
        if name in self._flags:
            return self._flags[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            return _settings.set_float32_matmul_precision("high" if value else "highest")
        if name == "fp32_precision":
            return _settings.set_float32_matmul_precision("high" if value == "tf32" else "highest")
        if name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
            allow, split_k = (value, True) if isinstance(value, bool) else (tuple(value) + (True,))[:2]
            self._flags[name], self._flags[name + "_split_k"] = allow, split_k
            return None
        if name == "allow_fp16_accumulation":
            self._flags[name] = value
            return None
        raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def is_built():
    """Whether the default backend can run on CUDA (jax with GPUs)."""
    return _cuda.is_available()


def flash_sdp_enabled():
    return _sdp["flash"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = enabled


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = enabled


def math_sdp_enabled():
    return _sdp["math"]


def enable_math_sdp(enabled):
    _sdp["math"] = enabled


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled):
    _sdp["cudnn"] = enabled


def preferred_linalg_library(backend=None):
    """Recorded only: jax picks its own linear-algebra library."""
    return "default"


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """PyTorch's deprecated spelling of ``nn.attention.sdpa_kernel`` (with its FutureWarning): within the block,
    only the enabled kernels may run ``scaled_dot_product_attention``."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    from ..nn.attention import SDPBackend, sdpa_kernel
    enabled = [(enable_flash, SDPBackend.FLASH_ATTENTION), (enable_mem_efficient, SDPBackend.EFFICIENT_ATTENTION),
               (enable_math, SDPBackend.MATH), (enable_cudnn, SDPBackend.CUDNN_ATTENTION)]
    with sdpa_kernel([backend for on, backend in enabled if on]) as context:
        yield context
