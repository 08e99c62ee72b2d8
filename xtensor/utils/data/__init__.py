"""``xtensor.utils.data``: datasets, samplers, ``DataLoader``, PyTorch's default collate and
``DistributedSampler``, laid out as PyTorch's ``torch.utils.data`` package (``dataset``, ``sampler``,
``dataloader``, ``distributed``)."""
from . import dataloader, dataset, distributed, sampler  # noqa: F401
from .dataloader import *  # noqa: F401,F403
from .dataset import *  # noqa: F401,F403
from .distributed import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403

__all__ = [*dataset.__all__, *sampler.__all__, *dataloader.__all__, *distributed.__all__]
