"""``DataLoader`` and PyTorch's default collate.

Loading happens in the calling process. ``num_workers > 0`` is accepted so PyTorch code runs unchanged, and
gives the same batches in the same order as PyTorch's (in-order) worker loading; a warning says that no
worker processes are started (xtensor tensors are cheap to make in-process, and worker processes would
have to re-import the backends). Shuffling draws from xtensor's generators: ``generator=`` (or the
default generator after ``manual_seed``) makes the order reproducible on every backend.
"""
import collections.abc
import copy
import itertools
import math
import re
import warnings

import numpy as np

from ... import _creation, _dtypes
from ..._variants import torch_functions
from ..._tensor import Tensor
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

stack = torch_functions["stack"]  # (the generated torch function, resolved once)

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


_STRING_OR_OBJECT_DTYPE = re.compile(r"[SaUO]")
_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy(value):
    return type(value).__module__ == "numpy" and type(value).__name__ not in ("str_", "string_")


def _rebuild(template, items):
    """A container of ``template``'s type holding ``items`` (a plain list/dict where the type cannot be built)."""
    if isinstance(template, collections.abc.Mapping):
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)
            clone.update(items)
            return clone
        try:
            return type(template)(items)
        except TypeError:
            return dict(items)
    if isinstance(template, collections.abc.MutableSequence):
        clone = copy.copy(template)
        clone[:] = items
        return clone
    try:
        return type(template)(items)
    except TypeError:
        return list(items)


def default_convert(data):
    """Numpy arrays and scalars inside ``data`` become tensors (what ``batch_size=None`` loading applies)."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _STRING_OR_OBJECT_DTYPE.search(data.dtype.str):
            return data
        return _creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def default_collate(batch):
    """PyTorch's default collate: tensors (and numpy arrays) are stacked, Python floats become a float64
    tensor and ints an int64 tensor, strings stay a list, and dicts, named tuples, tuples (as lists) and
    lists are collated field by field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if _is_numpy(elem):
        if isinstance(elem, np.ndarray):
            if _STRING_OR_OBJECT_DTYPE.search(elem.dtype.str):
                raise TypeError(_COLLATE_ERROR.format(elem.dtype))
            return stack([_creation.as_tensor(b) for b in batch], 0)
        if isinstance(elem, (np.bool_, np.number, np.object_)):
            return _creation.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return _creation.tensor(batch, dtype=_dtypes.float64)
    if isinstance(elem, int):
        return _creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(samples) for samples in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuild(elem, fields)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def get_worker_info():
    """Always ``None``: data is loaded in the calling process."""
    return None


class DataLoader:
    """Batches of a dataset: ``batch_size``, ``shuffle`` (with ``generator``), ``drop_last``, ``sampler``,
    ``batch_sampler``, ``collate_fn`` (default: ``default_collate``; ``batch_size=None`` converts single
    samples with ``default_convert``). Iterating it again starts a new epoch (a new shuffle)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if num_workers > 0:
            warnings.warn(f"xtensor's DataLoader loads data in the calling process: num_workers={num_workers} starts "
                          "no worker processes (the batches and their order are the same)"
                          + (", and worker_init_fn is not called" if worker_init_fn is not None else ""), stacklevel=2)
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        if isinstance(dataset, IterableDataset):
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        elif sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = None
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and sampler is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (isinstance(self.dataset, IterableDataset)
                                                  and self.batch_size is not None)

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            return self._iterate_stream()
        return self._iterate_map()

    def _iterate_map(self):
        if not self._auto_collation:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        fetch_many = getattr(self.dataset, "__getitems__", None)
        gathering = self._gathers_rows()
        for indices in self.batch_sampler:
            positions = np.asarray(indices) if gathering else None
            if positions is not None and positions.ndim == 1 and positions.dtype.kind in "iu":
                positions = positions.astype(np.int64, copy=False)  # (uint8 positions index as a mask: rows here)
                yield [t[positions] for t in self.dataset.tensors]
                continue
            samples = fetch_many(indices) if callable(fetch_many) else [self.dataset[i] for i in indices]
            yield self.collate_fn(samples)

    def _gathers_rows(self):
        """Whether a batch of the dataset is one gather per tensor: a plain ``TensorDataset`` collated by
        ``default_collate`` (stacking its rows gives the same values, dtypes and fresh tensors) whose tensors take no
        gradient (a stack would record another node). A slice per sample costs a dispatch each: on jax 0.5 ms on
        a GPU, and half of the demo's epoch on numpy."""
        return (type(self.dataset) is TensorDataset and self.collate_fn is default_collate
                and not any(t.requires_grad for t in self.dataset.tensors))

    def _iterate_stream(self):
        stream = iter(self.dataset)
        if not self._auto_collation:
            yield from (self.collate_fn(sample) for sample in stream)
            return
        while True:
            batch = list(itertools.islice(stream, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self.batch_sampler if self._auto_collation else self.sampler)
