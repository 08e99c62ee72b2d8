"""Samplers: the index orders a ``DataLoader`` draws (sequential, random, subset-random, batched)."""
import itertools

from ... import _creation, _dtypes

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


class Sampler:
    """An iterable of dataset indices (or of lists of indices, for a batch sampler)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    """A generator seeded from the default one, so an unseeded sampler still follows ``manual_seed``."""
    generator = _creation.Generator()
    generator.manual_seed(int(_creation.empty((), dtype=_dtypes.int64).random_().item()))
    return generator


class RandomSampler(Sampler):
    """Indices in random order (a fresh permutation per epoch), or drawn with ``replacement``."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from _creation.randint(0, n, (32,), generator=generator).tolist()
            yield from _creation.randint(0, n, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _creation.randperm(n, generator=generator).tolist()
            yield from _creation.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with or without
    ``replacement``), as PyTorch's (``multinomial`` over the weights, from ``generator``)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = _creation.as_tensor(weights, dtype=_dtypes.float64)
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = weights, num_samples, replacement, generator

    def __iter__(self):
        yield from self.weights.multinomial(self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _creation.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[indices] * self.batch_size))
            return
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
