"""``DistributedSampler``: each of ``num_replicas`` processes reads its own share of a dataset, as PyTorch's.

The indices (shuffled per epoch from ``seed + epoch`` when ``shuffle``) are padded by repeating from the start to a
multiple of ``num_replicas`` (or cut to one with ``drop_last``), and replica ``rank`` takes every
``num_replicas``-th index from position ``rank``. With ``num_replicas`` and ``rank`` given it needs no process group;
otherwise it asks ``xtensor.distributed`` for the world size and rank.
"""
import math

from ... import _creation
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed
            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        if self.shuffle:
            generator = _creation.Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = _creation.randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Reshuffle differently in ``epoch`` (the same order on every replica, so their shares stay disjoint)."""
        self.epoch = epoch
