"""``nn.parallel``: ``DataParallel`` and ``DistributedDataParallel`` as single-process wrappers, as PyTorch's
``torch.nn.parallel`` runs them on one CPU process.

xtensor drives every device from one program (jax's model; see ``xtensor.distributed``), so there is nothing to
replicate per device or all-reduce per process: in a world of one process both wrappers call the wrapped module
and keep PyTorch's attributes (``.module``; ``module.``-prefixed ``state_dict`` keys). Across several processes
DDP would have to all-reduce gradients, which xtensor does not do: it refuses, naming
``xtensor.distributed.data_parallel`` (one compiled step over a device mesh) instead.
"""
from . import distributed  # noqa: F401
from .data_parallel import DataParallel, data_parallel  # the function shadows its module, as in PyTorch
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
