"""``torch.backends.cpu``: the CPU's vector capability, as PyTorch reports it."""
import numpy as np

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """``"AVX512"``, ``"AVX2"``, or ``"DEFAULT"``, from the SIMD extensions numpy found on this CPU."""
    features = np._core._multiarray_umath.__cpu_features__
    if features.get("AVX512F") and features.get("AVX512BW"):
        return "AVX512"
    if features.get("AVX2"):
        return "AVX2"
    return "DEFAULT"
