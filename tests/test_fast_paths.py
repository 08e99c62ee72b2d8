"""Fast paths of the tape (issue 12) give exactly what the general paths and PyTorch give.

Each behaviour is checked against PyTorch (the API oracle) or ``np.where`` (the values oracle), on every
backend where the fast path exists; the timings themselves live in benchmarks/.
"""
import math

import numpy as np
import pytest
import torch

import xtensor
from xtensor._ns import raw_ns

SPECIAL = [-1.0, -0.0, 0.0, 2.0, math.nan, math.inf, -math.inf]


def test_relu_keeps_nan_and_signed_zero_as_pytorch(backend):
    got = xtensor.tensor(SPECIAL).relu()
    want = torch.tensor(SPECIAL).relu()
    np.testing.assert_array_equal(got.tolist(), want.tolist())  # NaN compares equal here, 0.0 == -0.0


def test_relu_gradient_is_zero_where_the_output_is_not_positive(backend):
    x = xtensor.tensor(SPECIAL[:4] + [3.0], requires_grad=True)
    x.relu().backward(xtensor.tensor([math.inf, 1.0, 1.0, 1.0, 1.0]))  # inf where relu is flat: 0, not NaN
    t = torch.tensor(SPECIAL[:4] + [3.0], requires_grad=True)
    t.relu().backward(torch.tensor([math.inf, 1.0, 1.0, 1.0, 1.0]))
    assert x.grad.tolist() == t.grad.tolist()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "uint8", "int64"])
def test_numpy_where_zero_is_np_where(dtype):
    ns = raw_ns(xtensor.get_backend("numpy"))
    rng = np.random.default_rng(0)
    g = (rng.standard_normal((5, 7)) * 50).astype(dtype)
    if g.dtype.kind == "f":
        g.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    cond = rng.random((5, 7)) < 0.5
    got = ns.where_zero(cond, g)
    want = np.where(cond, g, np.zeros_like(g))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("index", [
    (slice(1, 3),), (slice(None), 2), (1,), (slice(None, None, 2),), (slice(1, 3), slice(1, 3)), (Ellipsis, 0),
], ids=["rows", "column", "row", "step", "block", "last"])
def test_augmented_write_through_a_basic_index_is_pytorchs(backend, index):
    x = xtensor.arange(24.0).reshape(4, 6)
    t = torch.arange(24.0).reshape(4, 6)
    alias, t_alias = x[1:], t[1:]
    x[index] += 1.5
    t[index] += 1.5
    assert x.tolist() == t.tolist()
    assert alias.tolist() == t_alias.tolist()
    assert x._storage.version == t._version


def test_write_through_a_transposed_view_reaches_the_base(backend):
    x = xtensor.arange(12.0).reshape(3, 4)
    t = torch.arange(12.0).reshape(3, 4)
    x.t()[1:3] += 1.0
    t.t()[1:3] += 1.0
    assert x.tolist() == t.tolist()


def test_assigning_a_view_to_its_own_place_bumps_the_version_once(backend):
    x = xtensor.arange(6.0).reshape(2, 3)
    t = torch.arange(6.0).reshape(2, 3)
    x[0] = x[0]
    t[0] = t[0]
    assert x.tolist() == t.tolist()
    assert x._storage.version == t._version == 1


def test_assigning_into_an_expanded_view_is_still_refused(backend):
    x = xtensor.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element"):
        x[0:2] = xtensor.ones(2, 3)


def test_assigning_an_expanded_view_its_own_memory_writes_nothing_as_pytorch(backend):
    x = xtensor.zeros(3).expand(2, 3)
    x[0:2] = x[0:2]
    assert x.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("dim", [0, 1])
def test_gather_gradient_adds_up_repeated_indices_as_pytorch(backend, dim):
    values = np.arange(12.0).reshape(3, 4)
    index = np.array([[0, 2, 2, 1], [2, 2, 0, 0]]) if dim == 0 else np.array([[3, 3, 0], [1, 1, 1], [0, 2, 3]])
    weights = np.arange(1.0, index.size + 1).reshape(index.shape)
    x = xtensor.tensor(values, requires_grad=True)
    (x.gather(dim, xtensor.tensor(index)) * xtensor.tensor(weights)).sum().backward()
    t = torch.tensor(values, requires_grad=True)
    (t.gather(dim, torch.tensor(index)) * torch.tensor(weights)).sum().backward()
    assert x.grad.tolist() == t.grad.tolist()


@pytest.mark.parametrize("index", [
    (slice(1, 3),), (slice(None), 2), (1,), (slice(None, None, 2),), (slice(1, 3), None, slice(0, 2)), (-1,),
], ids=["rows", "column", "row", "step", "newaxis", "last-row"])
def test_assignment_through_a_basic_index_is_numpys(backend, index):
    want = np.arange(24.0).reshape(4, 6)
    x = xtensor.tensor(want.copy())
    alias = x[1:]
    values = np.arange(100.0, 100.0 + want[index].size).reshape(want[index].shape)
    x[index] = xtensor.tensor(values)
    want[index] = values
    assert x.tolist() == want.tolist()
    assert alias.tolist() == want[1:].tolist()
