"""Datasets: map-style and iterable, tensors, stacks, concatenations, subsets and ``random_split``."""
import bisect
import itertools
import math
import warnings

from ... import _creation

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]


class Dataset:
    """A map-style dataset: ``__getitem__(index)`` and usually ``__len__``; ``+`` concatenates."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream (``__iter__``); the DataLoader batches it in order."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples are tuples (positional datasets) or dicts (keyword datasets) of the datasets' samples."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        parts = list(args or kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class ChainDataset(IterableDataset):
    """Iterable datasets read one after another (the ``ConcatDataset`` of streams)."""

    def __init__(self, datasets):
        self.datasets = datasets

    def _streams(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield dataset

    def __iter__(self):
        for dataset in self._streams():
            yield from dataset

    def __len__(self):
        return sum(len(dataset) for dataset in self._streams())


class ConcatDataset(Dataset):
    """The datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[which][idx - (self.cumulative_sizes[which - 1] if which else 0)]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or fractions summing to 1);
    ``generator`` (default: xtensor's default generator) makes the split reproducible."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * fraction))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2)
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _creation.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(itertools.accumulate(lengths), lengths)]
