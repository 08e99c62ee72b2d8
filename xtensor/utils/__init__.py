"""``xtensor.utils``: ``utils.data`` (datasets, samplers, DataLoader), as PyTorch's ``torch.utils``."""
from . import data  # noqa: F401
