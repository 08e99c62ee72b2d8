"""xtensor.utils.data against PyTorch 2.13's torch.utils.data: datasets, samplers, DataLoader batching and
default collate (structures, dtypes, errors); shuffling reproducible from xtensor's generators on every backend."""
import collections

import numpy as np
import pytest

import xtensor as xt
from xtensor.utils import data

torch = pytest.importorskip("torch")
import torch.utils.data as tdata  # noqa: E402

FEATURES = np.arange(30, dtype=np.float32).reshape(10, 3)
LABELS = np.arange(10) % 3


def _plain(value):
    """A batch as nested Python containers of (dtype name, values), to compare both libraries' output."""
    if isinstance(value, (xt.Tensor, torch.Tensor)):
        return (str(value.dtype).split(".")[-1], value.tolist())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    return value


def _datasets():
    return (data.TensorDataset(xt.tensor(FEATURES), xt.tensor(LABELS)),
            tdata.TensorDataset(torch.tensor(FEATURES), torch.tensor(LABELS)))


@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (3, False), (3, True), (10, False), (4, True)])
def test_sequential_batches_are_pytorchs(backend, batch_size, drop_last):
    ours, theirs = _datasets()
    loader = data.DataLoader(ours, batch_size=batch_size, drop_last=drop_last)
    reference = tdata.DataLoader(theirs, batch_size=batch_size, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(reference) == len(batches)
    assert [_plain(b) for b in batches] == [_plain(b) for b in reference]
    assert batches[0][0].backend == backend


def test_batches_of_tensors_taking_gradients_record_pytorchs_stack():
    ours = data.TensorDataset(xt.tensor(FEATURES, requires_grad=True))
    theirs = tdata.TensorDataset(torch.tensor(FEATURES, requires_grad=True))
    (batch,), (reference,) = next(iter(data.DataLoader(ours, batch_size=4))), next(iter(tdata.DataLoader(theirs,
                                                                                                      batch_size=4)))
    assert type(batch.grad_fn).__name__ == type(reference.grad_fn).__name__ == "StackBackward0"


def test_byte_positions_from_a_batch_sampler_address_rows_as_each_sample_read_does():
    """A uint8 index array is PyTorch's mask, but a batch sampler's uint8 positions name samples, as ``dataset[i]``
    reads each."""
    ours, _ = _datasets()
    batches = [np.array([3, 0, 3], dtype=np.uint8), np.array([9, 1], dtype=np.uint8)]
    loaded = list(data.DataLoader(ours, batch_sampler=batches))
    assert [x.tolist() for x, _ in loaded] == [FEATURES[b.astype(int)].tolist() for b in batches]
    assert [y.tolist() for _, y in loaded] == [LABELS[b.astype(int)].tolist() for b in batches]


def test_a_tensor_dataset_subclass_is_read_sample_by_sample():
    class Doubled(data.TensorDataset):
        def __getitem__(self, index):
            return tuple(2 * t[index] for t in self.tensors)
    (batch,) = next(iter(data.DataLoader(Doubled(xt.tensor(FEATURES)), batch_size=4)))
    assert batch.tolist() == (2 * FEATURES[:4]).tolist()


def test_shuffle_with_a_generator_is_a_reproducible_permutation_per_epoch(backend):
    ours, _ = _datasets()

    def epochs(seed):
        loader = data.DataLoader(ours, batch_size=4, shuffle=True, generator=xt.Generator().manual_seed(seed))
        return [[label for _, y in loader for label in y.tolist()] for _ in range(3)]

    first = epochs(7)
    assert first == epochs(7)
    assert all(sorted(order) == sorted(LABELS.tolist()) for order in first)
    assert first[0] != LABELS.tolist()
    assert first[0] != first[1]  # a new permutation each epoch
    assert epochs(8) != first


def test_shuffle_order_is_the_same_on_every_backend(backend):
    xt.manual_seed(3)
    with xt.use_backend("numpy"):
        expected = [x.tolist() for x, _ in data.DataLoader(data.TensorDataset(xt.tensor(FEATURES), xt.tensor(LABELS)),
                                                            batch_size=3, shuffle=True)]
    xt.manual_seed(3)
    ours, _ = _datasets()
    assert [x.tolist() for x, _ in data.DataLoader(ours, batch_size=3, shuffle=True)] == expected


SAMPLES = {
    "tensors": [(np.float32(i), i) for i in range(3)],
    "floats-ints-bools-strings": [(1.5 * i, i, i % 2 == 0, f"s{i}") for i in range(3)],
    "numpy": [(np.full((2, 2), i, dtype=np.float64), np.int32(i), np.bool_(i)) for i in range(3)],
    "dicts": [{"x": [float(i), 2.0], "y": {"z": i}} for i in range(3)],
    "namedtuples": [collections.namedtuple("Point", "x y")(i, float(i)) for i in range(3)],
    "lists": [[i, [i, i + 1]] for i in range(3)],
}


@pytest.mark.parametrize("kind", SAMPLES)
def test_default_collate_is_pytorchs(kind):
    samples = SAMPLES[kind]
    assert _plain(data.default_collate(samples)) == _plain(tdata.default_collate(samples))
    assert _plain(data.default_convert(samples[0])) == _plain(tdata.default_convert(samples[0]))


def test_default_collate_stacks_tensors_on_their_backend(backend):
    batch = data.default_collate([xt.ones(2, 3) * i for i in range(4)])
    assert batch.shape == (4, 2, 3) and batch.backend == backend and batch[3, 0, 0].item() == 3


@pytest.mark.parametrize("samples, error, message", [
    ([object(), object()], TypeError, "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                      "lists; found <class 'object'>"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "default_collate: batch must contain tensors, numpy arrays"),
    ([[1, 2], [1]], RuntimeError, "each element in list of batch should be of equal size"),
])
def test_default_collate_errors_are_pytorchs(samples, error, message):
    with pytest.raises(error, match=message):
        tdata.default_collate(samples)
    with pytest.raises(error, match=message):
        data.default_collate(samples)


def test_samplers_and_batch_samplers_drive_the_loader():
    ours, theirs = _datasets()
    for lib, dataset in ((data, ours), (tdata, theirs)):
        backwards = list(range(9, -1, -2))
        by_sampler = lib.DataLoader(dataset, batch_size=2, sampler=backwards)
        assert [y.tolist() for _, y in by_sampler] == [[0, 1], [2, 0], [1]]
        by_batches = lib.DataLoader(dataset, batch_sampler=[[0, 1, 2], [9]])
        assert [y.tolist() for _, y in by_batches] == [[0, 1, 2], [0]] and len(by_batches) == 2
        single = lib.DataLoader(dataset, batch_size=None)
        assert len(single) == 10 and next(iter(single))[0].shape == (3,)
    batches = list(data.BatchSampler(data.SequentialSampler(range(7)), 3, drop_last=False))
    assert batches == list(tdata.BatchSampler(tdata.SequentialSampler(range(7)), 3, drop_last=False))


def test_random_sampler_with_replacement_and_subset_random_sampler():
    gen = xt.Generator().manual_seed(0)
    drawn = list(data.RandomSampler(range(5), replacement=True, num_samples=40, generator=gen))
    assert len(drawn) == 40 and set(drawn) <= set(range(5))
    assert sorted(data.SubsetRandomSampler([3, 7, 9], generator=gen)) == [3, 7, 9]
    assert len(list(data.RandomSampler(range(5), num_samples=12))) == 12


@pytest.mark.parametrize("kwargs, message", [
    (dict(shuffle=True, sampler=[0, 1]), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_size=2, batch_sampler=[[0]]), "batch_sampler option is mutually exclusive with batch_size"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(batch_size=0), "batch_size should be a positive integer value, but got batch_size=0"),
])
def test_bad_loader_options_raise_pytorchs_errors(kwargs, message):
    ours, theirs = _datasets()
    with pytest.raises(ValueError, match=message):
        tdata.DataLoader(theirs, **kwargs)
    with pytest.raises(ValueError, match=message):
        data.DataLoader(ours, **kwargs)


def test_workers_load_in_process_with_a_warning_and_the_same_batches():
    ours, _ = _datasets()
    with pytest.warns(UserWarning, match="num_workers=2 starts no worker processes"):
        loader = data.DataLoader(ours, batch_size=4, num_workers=2, persistent_workers=True, prefetch_factor=2)
    assert [_plain(b) for b in loader] == [_plain(b) for b in data.DataLoader(ours, batch_size=4)]
    assert data.get_worker_info() is None


def test_random_split_is_a_reproducible_partition():
    ours, theirs = _datasets()
    parts = data.random_split(ours, [0.5, 0.3, 0.2], generator=xt.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [len(p) for p in tdata.random_split(theirs, [0.5, 0.3, 0.2])] == [5, 3, 2]
    indices = [i for p in parts for i in p.indices]
    assert sorted(indices) == list(range(10))
    again = data.random_split(ours, [5, 3, 2], generator=xt.Generator().manual_seed(1))
    assert [p.indices for p in again] == [p.indices for p in parts]
    assert parts[1][0][1].item() == LABELS[parts[1].indices[0]]
    for lib, dataset in ((tdata, theirs), (data, ours)):
        with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
            lib.random_split(dataset, [3, 3])
        with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
            lib.random_split(dataset, [0.5, 1.5, -1.0])


def test_subset_and_concat_datasets_index_as_pytorch():
    ours, theirs = _datasets()
    for lib, dataset in ((data, ours), (tdata, theirs)):
        joined = lib.ConcatDataset([lib.Subset(dataset, [4, 2]), dataset])
        assert len(joined) == 12
        assert [joined[i][1].item() for i in (0, 1, 2, -1)] == [1, 2, 0, 0]
        assert [y.tolist() for _, y in lib.DataLoader(joined, batch_size=5)][0] == [1, 2, 0, 1, 2]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(xt.zeros(3), xt.zeros(4))
    assert len(ours + ours) == 20


def test_iterable_datasets_are_batched_in_order():
    class Counter(data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in data.DataLoader(Counter(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in data.DataLoader(Counter(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        data.DataLoader(Counter(), shuffle=True)


# ------------------------------------------------------------------ DistributedSampler
@pytest.mark.parametrize("size, replicas, drop_last", [(10, 3, False), (10, 3, True), (2, 4, False), (8, 4, True)])
def test_distributed_sampler_without_shuffle_gives_each_rank_pytorchs_share(size, replicas, drop_last):
    for rank in range(replicas):
        ours = data.DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=False,
                                       drop_last=drop_last)
        theirs = tdata.DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=False,
                                          drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_shuffles_one_permutation_per_epoch_split_over_the_ranks():
    def shares(epoch, seed=0):
        samplers = [data.DistributedSampler(range(9), num_replicas=3, rank=r, seed=seed) for r in range(3)]
        for s in samplers:
            s.set_epoch(epoch)
        return [list(s) for s in samplers]
    first = shares(0)
    assert sorted(i for share in first for i in share) == list(range(9))  # disjoint, and together all of it
    assert first == shares(0) and first != shares(1) and first != shares(0, seed=1)


def test_distributed_sampler_rejects_a_rank_outside_the_world_as_pytorch():
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        data.DistributedSampler(range(4), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        tdata.DistributedSampler(range(4), num_replicas=3, rank=3)


# ------------------------------------------------------------------ WeightedRandomSampler, ChainDataset
def test_weighted_sampler_draws_only_weighted_indices_reproducibly(backend):
    def draw(seed):
        return list(data.WeightedRandomSampler([0.2, 0.0, 0.8], 30, generator=xt.Generator().manual_seed(seed)))
    drawn = draw(0)
    assert len(drawn) == 30 and set(drawn) <= {0, 2} and drawn == draw(0)
    assert sorted(data.WeightedRandomSampler([1.0, 1.0, 0.0, 1.0], 3, replacement=False)) == [0, 1, 3]


@pytest.mark.parametrize("args, message", [(([[1.0]], 3), "weights should be a 1d sequence"),
                                           (([1.0], 0), "num_samples should be a positive integer"),
                                           (([1.0], 2, 1), "replacement should be a boolean")])
def test_weighted_sampler_errors_are_pytorchs(args, message):
    for lib in (data, tdata):
        with pytest.raises(ValueError, match=message):
            lib.WeightedRandomSampler(*args)


def test_chain_dataset_reads_streams_in_turn_as_pytorch():
    def streams(lib):
        class Stream(lib.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n))

            def __len__(self):
                return self.n
        return lib.ChainDataset([Stream(2), Stream(3)])
    ours, theirs = streams(data), streams(tdata)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(data.ChainDataset([data.TensorDataset(xt.zeros(2))]))
