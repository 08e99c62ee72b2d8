"""``torch.backends.mkldnn``: oneDNN's flags with PyTorch's defaults. xtensor calls no oneDNN kernels, so
``is_available()`` is False and the flags are recorded only."""

__all__ = ["is_available", "enabled", "deterministic", "fp32_precision"]

enabled = True
deterministic = False
fp32_precision = "none"


def is_available():
    return False
