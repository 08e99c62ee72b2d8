"""``xtensor.utils``: ``utils.data`` (datasets, samplers, DataLoader), ``utils.checkpoint``, ``utils.hooks`` and
``utils._pytree``, as PyTorch's ``torch.utils``."""
from . import _pytree, checkpoint, data, hooks  # noqa: F401
