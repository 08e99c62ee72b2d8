"""Indexing beyond the OpInfo records: advanced indexing and setitem on every backend, PyTorch's
in-place spellings and accumulation semantics, PyTorch's errors for bad indices, node names, and
gathers/scatters under ``jax.jit`` with traced index tensors.

Values come from numpy (the reference for indexing semantics) or from real PyTorch.
"""
import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

torch = pytest.importorskip("torch")


def _x(backend, shape=(3, 4), requires_grad=False, array_api=False):
    """``array_api``: a tensor of ``xtensor.array_api``, whose negative slice steps reverse (PyTorch's raise)."""
    values = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    x = xa.asarray(values, copy=True) if array_api else xt.tensor(values, backend=backend)
    return values, x.requires_grad_(requires_grad)


def _host(t):
    return np.asarray(t.detach())


# --------------------------------------------------------------------------- advanced indexing
ADVANCED = {
    "int-array": lambda i: (i([2, 0, 2]),),
    "two-arrays": lambda i: (i([0, 2]), i([1, 3])),
    "array-slice": lambda i: (i([2, 0]), slice(1, 3)),
    "slice-array": lambda i: (slice(None), i([[3, 0], [1, 1]])),
    "none-array-ellipsis": lambda i: (None, i([1]), Ellipsis),
    "array-int": lambda i: (i([0, 1]), -1),
    "split-arrays": lambda i: (i([0, 2]), slice(None), i([1, 0])),  # separated: the indexed dims go first
    "mask": lambda i: (np.arange(12).reshape(3, 4) % 3 == 0,),
    "row-mask-slice": lambda i: (np.array([True, False, True]), slice(1, None)),
    "negative": lambda i: (i([-1, -3]),),
    "reversed-slice": lambda i: (slice(None, None, -1), slice(3, 0, -2)),
}


def _index(case, backend, as_tensor):
    """The index of ``case``: int lists as xtensor tensors (``as_tensor``) or as numpy arrays."""
    wrap = (lambda v: xt.tensor(v, backend=backend)) if as_tensor else np.asarray
    index = ADVANCED[case](wrap)
    if as_tensor:
        index = tuple(xt.tensor(i, backend=backend) if isinstance(i, np.ndarray) else i for i in index)
    return index


def _np_index(index):
    return tuple(_host(i) if isinstance(i, xt.Tensor) else i for i in index)


@pytest.mark.parametrize("case", list(ADVANCED))
def test_advanced_getitem_matches_numpy(backend, case):
    shape = (3, 4, 2) if case == "split-arrays" else (3, 4)
    values, x = _x(backend, shape, array_api=case == "reversed-slice")
    index = _index(case, backend, as_tensor=True)
    np.testing.assert_array_equal(_host(x[index]), values[_np_index(index)])


@pytest.mark.parametrize("case", list(ADVANCED))
def test_advanced_getitem_gradient_adds_over_repeats(backend, case):
    shape = (3, 4, 2) if case == "split-arrays" else (3, 4)
    values, x = _x(backend, shape, requires_grad=True, array_api=case == "reversed-slice")
    index = _index(case, backend, as_tensor=True)
    out = x[index]
    ct = np.random.default_rng(0).standard_normal(tuple(out.shape))
    (g,) = xt.autograd.grad(out, [x], grad_outputs=xt.tensor(ct, backend=backend))
    expected = np.zeros(shape)
    np.add.at(expected, _np_index(index), ct)
    np.testing.assert_allclose(_host(g), expected)


@pytest.mark.parametrize("case", [c for c in ADVANCED if c != "reversed-slice"])
def test_setitem_with_index_tensors_and_masks_matches_numpy(backend, case):
    shape = (3, 4, 2) if case == "split-arrays" else (3, 4)
    values, x = _x(backend, shape)
    index = _index(case, backend, as_tensor=True)
    expected = values.copy()
    expected[_np_index(index)] = -7.0
    x[index] = -7.0
    np.testing.assert_array_equal(_host(x), expected)


def test_setitem_with_a_reversed_slice_writes_in_reverse_on_an_array_api_tensor(backend):
    values, x = _x(backend, array_api=True)
    x[::-1, 0] = xt.tensor([10.0, 20.0, 30.0], backend=backend)
    expected = values.copy()
    expected[::-1, 0] = [10.0, 20.0, 30.0]
    np.testing.assert_array_equal(_host(x), expected)


def test_setitem_through_a_view_reaches_the_base(backend):
    values, x = _x(backend)
    view = x[1:]
    view[xt.tensor([1, 0], backend=backend), 2] = xt.tensor([5.0, 6.0], backend=backend)
    expected = values.copy()
    expected[1:][[1, 0], 2] = [5.0, 6.0]
    np.testing.assert_array_equal(_host(x), expected)


def test_setitem_broadcasts_a_tensor_value(backend):
    values, x = _x(backend)
    mask = xt.tensor([True, False, True], backend=backend)
    x[mask] = xt.tensor([1.0, 2.0, 3.0, 4.0], backend=backend)
    expected = values.copy()
    expected[[True, False, True]] = [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(_host(x), expected)


def test_setitem_gradient_flows_to_value_and_base(backend):
    base = xt.tensor(np.ones((3, 4)), backend=backend, requires_grad=True)
    value = xt.tensor([2.0, 3.0], backend=backend, requires_grad=True)
    y = base * 1
    y[xt.tensor([0, 2], backend=backend), 1] = value
    (y * y).sum().backward()
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"
    expected = np.full((3, 4), 2.0)
    expected[[0, 2], 1] = 0.0
    np.testing.assert_allclose(_host(base.grad), expected)
    np.testing.assert_allclose(_host(value.grad), [4.0, 6.0])


# Index writes whose node keeps the caller's index tensors (PyTorch's IndexPutBackward0 saves ``indices``): each
# program writes into one index tensor after the op; a 0-d integer index is a plain number there (a select).
_INDEX_WRITES = {
    "setitem-tensor": lambda ns, y, i, m, n: (y.__setitem__(i, 1.0), i.mul_(1)),
    "setitem-tensor-slice": lambda ns, y, i, m, n: (y.__setitem__((i, slice(1, None)), 1.0), i.mul_(1)),
    "setitem-mask": lambda ns, y, i, m, n: (y.__setitem__(m, 1.0), m.logical_and_(m)),
    "setitem-0d-and-tensor": lambda ns, y, i, m, n: (y.__setitem__((n, i), 1.0), n.mul_(1)),
    "index_put_": lambda ns, y, i, m, n: (y.index_put_((i,), ns.tensor(1.0, dtype=ns.float64)), i.mul_(1)),
    "index_put_-accumulate": lambda ns, y, i, m, n: (
        y.index_put_((n, i), ns.tensor(1.0, dtype=ns.float64), accumulate=True), n.mul_(1)),
}


def _index_write_outcome(ns, program, **on):
    y = ns.ones(3, 4, dtype=ns.float64, requires_grad=True) * 1
    program(ns, y, ns.tensor([2, 0], **on), ns.tensor([True, False, True], **on), ns.tensor(1, **on))
    try:
        y.sum().backward()
    except RuntimeError as e:
        return "modified by an inplace operation" in str(e)
    return None


@pytest.mark.parametrize("case", list(_INDEX_WRITES))
def test_writing_into_an_index_tensor_after_an_index_write_fails_backward_as_torch(backend, case):
    ours = _index_write_outcome(xt, _INDEX_WRITES[case], backend=backend)
    assert ours == _index_write_outcome(torch, _INDEX_WRITES[case])


# --------------------------------------------------------------------------- in-place spellings and accumulation
def test_index_put_accumulates_repeated_indices(backend):
    x = xt.zeros(4, backend=backend)
    x.index_put_((xt.tensor([1, 1, 3, 1], backend=backend),), xt.tensor([1.0, 2.0, 3.0, 4.0], backend=backend),
                 accumulate=True)
    np.testing.assert_array_equal(_host(x), [0.0, 7.0, 0.0, 3.0])


def test_index_add_accumulates_repeated_indices_with_alpha(backend):
    x = xt.ones(2, 3, backend=backend)
    x.index_add_(1, xt.tensor([2, 2], backend=backend), xt.tensor([[1.0, 2.0], [3.0, 4.0]], backend=backend),
                 alpha=-1)
    np.testing.assert_array_equal(_host(x), [[1.0, 1.0, -2.0], [1.0, 1.0, -6.0]])


@pytest.mark.parametrize("op", ["index_add", "scatter_add"])
def test_adding_bools_at_an_index_is_a_logical_or_as_torch(backend, op):
    """Found by the differential fuzzer: jax and array_api_strict refused adding bools (a backend error)."""
    def run(m):
        base, src = m.tensor([False, True, False, False]), m.tensor([True, True, False])
        index = m.tensor([1, 2, 2])
        return (base.index_add(0, index, src) if op == "index_add" else base.scatter_add(0, index, src)).tolist()
    with xt.use_backend(backend):
        ours = run(xt)
    assert ours == run(torch)


def test_scatter_add_accumulates_repeated_indices(backend):
    x = xt.zeros(3, dtype=xt.int64, backend=backend)
    out = x.scatter_add(0, xt.tensor([0, 0, 2, 0], backend=backend), xt.tensor([1, 2, 3, 4], backend=backend))
    np.testing.assert_array_equal(_host(out), [7, 0, 3])


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(backend, reduce, include_self):
    x, src = np.array([5.0, -1.0, 2.0, 4.0]), np.array([1.0, 3.0, -2.0, 6.0, 0.5])
    index = np.array([0, 0, 2, 0, 2])
    expected = torch.from_numpy(x).scatter_reduce(0, torch.from_numpy(index), torch.from_numpy(src), reduce,
                                                  include_self=include_self).numpy()
    out = xt.tensor(x, backend=backend).scatter_reduce(0, xt.tensor(index, backend=backend),
                                                       xt.tensor(src, backend=backend), reduce,
                                                       include_self=include_self)
    np.testing.assert_allclose(_host(out), expected)


def test_scatter_reduce_mean_of_integers_floors_as_torch(backend):
    x, src, index = [-5, 7, 1], [2, -4, 3], [0, 0, 2]
    expected = torch.tensor(x).scatter_reduce(0, torch.tensor(index), torch.tensor(src), "mean").numpy()
    out = xt.tensor(x, backend=backend).scatter_reduce(0, xt.tensor(index, backend=backend),
                                                       xt.tensor(src, backend=backend), "mean")
    np.testing.assert_array_equal(_host(out), expected)


@pytest.mark.parametrize("reduce,torch_name", [("add", "sum"), ("multiply", "prod")])
def test_scatter_with_reduce_combines_repeats(backend, reduce, torch_name):
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = np.array([[0, 0], [2, 2]])
    expected = torch.from_numpy(x).scatter(1, torch.from_numpy(index), 2.0, reduce=reduce).numpy()
    out = xt.tensor(x, backend=backend).scatter(1, xt.tensor(index, backend=backend), 2.0, reduce=reduce)
    np.testing.assert_array_equal(_host(out), expected)


def test_masked_fill_inplace_with_a_0d_tensor_value(backend):
    x = xt.zeros(2, 3, dtype=xt.int64, backend=backend)
    r = x.masked_fill_(xt.tensor([True, False, True], backend=backend), xt.tensor(7.9, backend=backend))
    assert r is x and x.dtype is xt.int64
    np.testing.assert_array_equal(_host(x), [[7, 0, 7], [7, 0, 7]])


def test_masked_scatter_inplace_takes_source_in_order(backend):
    x = xt.zeros(2, 3, backend=backend)
    x.masked_scatter_(xt.tensor([[True, False, True], [False, True, False]], backend=backend),
                      xt.tensor([1.0, 2.0, 3.0, 4.0], backend=backend))
    np.testing.assert_array_equal(_host(x), [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])


def test_put_inplace_with_negative_indices(backend):
    x = xt.zeros(2, 3, backend=backend)
    x.put_(xt.tensor([-1, 0], backend=backend), xt.tensor([4.0, 5.0], backend=backend))
    np.testing.assert_array_equal(_host(x), [[5.0, 0.0, 0.0], [0.0, 0.0, 4.0]])


def test_index_copy_and_index_fill_inplace(backend):
    x = xt.zeros(3, 2, backend=backend)
    x.index_copy_(0, xt.tensor([2, 0], backend=backend), xt.tensor([[1.0, 2.0], [3.0, 4.0]], backend=backend))
    x.index_fill_(1, xt.tensor([1], backend=backend), -1.0)
    np.testing.assert_array_equal(_host(x), [[3.0, -1.0], [0.0, -1.0], [1.0, -1.0]])


@pytest.mark.parametrize("form", ["three", "scalars", "condition-only"])
def test_where_forms_match_torch(backend, form):
    c = np.array([[True, False], [False, True]])
    x, y = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[-1.0, -2.0], [-3.0, -4.0]])
    tc = xt.tensor(c, backend=backend)
    if form == "three":
        ours, theirs = xt.where(tc, xt.tensor(x, backend=backend), xt.tensor(y, backend=backend)), \
            torch.where(torch.from_numpy(c), torch.from_numpy(x), torch.from_numpy(y))
    elif form == "scalars":
        ours, theirs = xt.where(tc, 1.5, 0), torch.where(torch.from_numpy(c), 1.5, 0)
    else:
        ours, theirs = xt.where(tc), torch.where(torch.from_numpy(c))
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(_host(a), b.numpy())
        return
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(_host(ours), theirs.numpy())


def test_nonzero_as_tuple_matches_torch(backend):
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    ours = xt.nonzero(xt.tensor(x, backend=backend), as_tuple=True)
    theirs = torch.nonzero(torch.from_numpy(x), as_tuple=True)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype is xt.int64
        np.testing.assert_array_equal(_host(a), b.numpy())


# --------------------------------------------------------------------------- node names
_NODES = {
    "gather": lambda ns, x, i: x.gather(1, i),
    "take_along_dim": lambda ns, x, i: ns.take_along_dim(x, i, 1),
    "take": lambda ns, x, i: ns.take(x, i),
    "index_select": lambda ns, x, i: x.index_select(1, i[0]),
    "masked_fill": lambda ns, x, i: x.masked_fill(x > 2, 0.0),
    "masked_fill_tensor": lambda ns, x, i: x.masked_fill(x > 2, ns.tensor(1.0, dtype=ns.float64)),
    "index_fill": lambda ns, x, i: x.index_fill(1, i[0], 2.0),
    "index_fill_tensor": lambda ns, x, i: x.index_fill(1, i[0], ns.tensor(2.0, dtype=ns.float64)),
    "scatter_value": lambda ns, x, i: x.scatter(1, i, 2.0),
    "scatter_src": lambda ns, x, i: x.scatter(1, i, x),
    "scatter_add": lambda ns, x, i: x.scatter_add(1, i, x),
    "scatter_reduce": lambda ns, x, i: x.scatter_reduce(1, i, x, "amax"),
    "index_add": lambda ns, x, i: x.index_add(1, i[0], x[:, :2]),
    "index_copy": lambda ns, x, i: x.index_copy(1, i[0], x[:, :2]),
    "index_put": lambda ns, x, i: x.index_put((i[0],), ns.tensor(1.0, dtype=ns.float64)),
    "index_put_accumulate": lambda ns, x, i: x.index_put((i[0],), ns.tensor(1.0, dtype=ns.float64), accumulate=True),
    "put": lambda ns, x, i: x.put(i, x[:, :2]),
    "masked_scatter": lambda ns, x, i: x.masked_scatter(x > 2, x),
    "masked_select": lambda ns, x, i: ns.masked_select(x, x > 2),
    "index_tensor": lambda ns, x, i: x[i],
    "index_mask": lambda ns, x, i: x[x > 2],
}


@pytest.mark.parametrize("case", list(_NODES))
def test_grad_fn_names_match_torch(case):
    values = np.arange(6.0).reshape(2, 3)
    index = np.array([[0, 1], [1, 0]])
    ours = _NODES[case](xt, xt.tensor(values, requires_grad=True) * 1, xt.tensor(index))
    theirs = _NODES[case](torch, torch.tensor(values, requires_grad=True) * 1, torch.tensor(index))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


# --------------------------------------------------------------------------- errors (PyTorch's types)
_ERRORS = {
    "getitem-out-of-range": lambda ns, x: x[ns.tensor([3])],
    "getitem-int-out-of-range": lambda ns, x: x[0, 7],
    "getitem-float-index": lambda ns, x: x[ns.tensor([1.0])],
    "getitem-too-many": lambda ns, x: x[0, 0, 0],
    "getitem-mask-shape": lambda ns, x: x[ns.tensor([True, False])],
    "setitem-shape-mismatch": lambda ns, x: x.__setitem__(ns.tensor([0, 1]), ns.ones(3, 5, dtype=ns.float64)),
    # values that broadcast with the indexing result but not to it (found by fuzzing)
    "setitem-value-broadcasts-past-result": lambda ns, x: x[None].__setitem__(ns.tensor([0]), ns.ones(3, 3, 1)),
    "index_put-value-broadcasts-past-result": lambda ns, x: x[:, None].index_put_((ns.tensor([1]),),
                                                                                 ns.ones(3, 4, dtype=ns.float64)),
    "gather-out-of-range": lambda ns, x: x.gather(1, ns.tensor([[5]])),
    "gather-negative": lambda ns, x: x.gather(1, ns.tensor([[-1]])),
    "gather-float-index": lambda ns, x: x.gather(1, ns.tensor([[1.0]])),
    "gather-ndim": lambda ns, x: x.gather(1, ns.tensor([1])),
    "gather-too-large": lambda ns, x: x.gather(1, ns.tensor([[0], [0], [0], [0]])),
    "index_select-out-of-range": lambda ns, x: x.index_select(1, ns.tensor([5])),
    "index_select-dim0-out-of-range": lambda ns, x: x.index_select(0, ns.tensor([-4])),
    "index_select-last-dim-out-of-range": lambda ns, x: x[None].index_select(2, ns.tensor([4])),  # found by fuzzing
    "index_select-2d-index": lambda ns, x: x.index_select(1, ns.tensor([[1]])),
    "index_select-float-index": lambda ns, x: x.index_select(1, ns.tensor([0.0])),
    "scatter-out-of-range": lambda ns, x: x.scatter(1, ns.tensor([[5]]), 1.0),
    "scatter-float-index": lambda ns, x: x.scatter(1, ns.tensor([[1.0]]), 1.0),
    "scatter-dtype": lambda ns, x: x.scatter(1, ns.tensor([[1]]), ns.ones(1, 1, dtype=ns.float32)),
    "scatter_reduce-bad-reduce": lambda ns, x: x.scatter_reduce(1, ns.tensor([[1]]), x, "foo"),
    "index_add-count": lambda ns, x: x.index_add(1, ns.tensor([1]), x[:, :2]),
    "index_add-out-of-range": lambda ns, x: x.index_add(1, ns.tensor([5]), x[:, :1]),
    "index_copy-count": lambda ns, x: x.index_copy(1, ns.tensor([0, 1]), x[:, :1]),
    "index_copy-out-of-range": lambda ns, x: x.index_copy(1, ns.tensor([5]), x[:, :1]),
    "index_add-vector-negative": lambda ns, x: x[0].index_add(0, ns.tensor([-1]), x[0, :1]),  # found by fuzzing
    "index_add-inner-dim-negative": lambda ns, x: x[None].index_add(1, ns.tensor([-1]), x[None, :1]),
    "index_fill-out-of-range": lambda ns, x: x.index_fill(1, ns.tensor([5]), 1.0),
    "masked_fill-float-mask": lambda ns, x: x.masked_fill(ns.ones(3, 4), 1.0),
    "masked_fill-1d-value": lambda ns, x: x.masked_fill(x > 1, ns.ones(2, dtype=ns.float64)),
    "take-out-of-range": lambda ns, x: ns.take(x, ns.tensor([12])),
    "put-out-of-range": lambda ns, x: x.put(ns.tensor([12]), ns.tensor([1.0], dtype=ns.float64)),
    "index_put-dtype": lambda ns, x: x.index_put((ns.tensor([0]),), ns.tensor([1.0], dtype=ns.float32)),
    "masked_scatter-short-source": lambda ns, x: x.masked_scatter(x > -1, ns.ones(3, dtype=ns.float64)),
    "take_along_dim-ndim": lambda ns, x: ns.take_along_dim(x, ns.tensor([1]), 1),
}


@pytest.mark.parametrize("case", list(_ERRORS))
def test_bad_indices_raise_torch_error_types(backend, case):
    with pytest.raises(Exception) as theirs:
        _ERRORS[case](torch, torch.arange(12.0, dtype=torch.float64).reshape(3, 4))
    with pytest.raises(theirs.type) as ours:
        with xt.use_backend(backend):
            _ERRORS[case](xt, xt.arange(12.0, dtype=xt.float64).reshape(3, 4))
    assert str(ours.value), "an error must say what is wrong"


@pytest.mark.parametrize("case", ["getitem-out-of-range", "getitem-float-index", "gather-out-of-range",
                                  "gather-negative", "scatter-out-of-range", "index_select-out-of-range",
                                  "index_select-dim0-out-of-range", "take-out-of-range",
                                  "masked_fill-1d-value", "index_add-count", "scatter_reduce-bad-reduce",
                                  "gather-ndim", "index_select-2d-index", "index_put-dtype",
                                  "index_copy-out-of-range", "index_add-vector-negative",
                                  "index_add-inner-dim-negative", "index_select-last-dim-out-of-range",
                                  "setitem-value-broadcasts-past-result", "index_put-value-broadcasts-past-result"])
def test_bad_index_messages_match_torch(case):
    with pytest.raises(Exception) as theirs:
        _ERRORS[case](torch, torch.arange(12.0, dtype=torch.float64).reshape(3, 4))
    with pytest.raises(theirs.type) as ours:
        _ERRORS[case](xt, xt.arange(12.0, dtype=xt.float64).reshape(3, 4))
    assert str(ours.value) == str(theirs.value)


# --------------------------------------------------------------------------- jax.jit with traced indices
def test_gathers_and_scatters_compile_under_jit_with_traced_indices():
    jax = pytest.importorskip("jax")
    values, x = _x("jax")
    index = np.array([[0, 2], [1, 0], [2, 3]])

    @jax.jit
    def step(x, i):
        y = x.clone()
        y[i[:, 0], i[:, 1]] = -1.0
        return (x.gather(1, i), x.scatter_add(1, i, x[:, :2]), x[i[:, 0]], y, xt.take(x, i),
                x.index_put((i[0],), xt.tensor(1.0, dtype=xt.float64, backend="jax"), accumulate=True))

    gathered, added, rows, written, taken, put = step(x, xt.tensor(index, backend="jax"))
    np.testing.assert_array_equal(_host(gathered), np.take_along_axis(values, index, 1))
    expected = values.copy()
    np.add.at(expected, (np.arange(3)[:, None], index), values[:, :2])
    np.testing.assert_array_equal(_host(added), expected)
    np.testing.assert_array_equal(_host(rows), values[index[:, 0]])
    expected = values.copy()
    expected[index[:, 0], index[:, 1]] = -1.0
    np.testing.assert_array_equal(_host(written), expected)
    np.testing.assert_array_equal(_host(taken), values.reshape(-1)[index])
    expected = values.copy()
    np.add.at(expected, (index[0],), 1.0)
    np.testing.assert_array_equal(_host(put), expected)


def test_gradient_through_traced_indices_under_jit():
    jax = pytest.importorskip("jax")
    _, x = _x("jax")
    index = np.array([[0, 2], [1, 0], [0, 3]])

    @jax.jit
    def grad_of(x, i):
        x = x.requires_grad_()
        (g,) = xt.autograd.grad((x[i[:, 0]] * 2).sum() + x.gather(1, i).sum(), [x])
        return g

    expected = np.zeros((3, 4))
    np.add.at(expected, index[:, 0], 2.0)
    np.add.at(expected, (np.arange(3)[:, None], index), 1.0)
    np.testing.assert_array_equal(_host(grad_of(x, xt.tensor(index, backend="jax"))), expected)
