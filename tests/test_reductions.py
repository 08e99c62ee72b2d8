"""Reductions, statistics, sorting, searching, set and utility functions beyond the OpInfo records:
PyTorch's node names per overload, named results, gradient conventions at ties and zeros, the
legacy ``unbiased`` forms, bad input, and the array API's dtype rules and result tuples -- on every
backend, against real PyTorch where it decides."""
import math
import warnings

import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

torch = pytest.importorskip("torch")


def _pair(values, dtype="float64", requires_grad=True):
    """The same values as an xtensor tensor (default backend) and a torch tensor."""
    return (xt.tensor(values, dtype=getattr(xt, dtype), requires_grad=requires_grad),
            torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad))


def _node(t):
    return type(t.grad_fn).__name__


# ------------------------------------------------------------------ node names
NODE_CASES = {
    "sum": lambda ns, x: x.sum(), "sum_dim": lambda ns, x: x.sum(0), "mean": lambda ns, x: x.mean(),
    "mean_dim": lambda ns, x: x.mean(1), "prod": lambda ns, x: x.prod(), "prod_dim": lambda ns, x: x.prod(1),
    "std": lambda ns, x: x.std(), "var_dim": lambda ns, x: x.var(0), "median": lambda ns, x: x.median(),
    "median_dim": lambda ns, x: x.median(1).values, "nanmedian": lambda ns, x: x.nanmedian(),
    "nanmedian_dim": lambda ns, x: x.nanmedian(0).values, "mode": lambda ns, x: x.mode(1).values,
    "kthvalue": lambda ns, x: x.kthvalue(2).values, "topk": lambda ns, x: x.topk(2).values,
    "sort": lambda ns, x: x.sort().values, "msort": lambda ns, x: ns.msort(x), "cumsum": lambda ns, x: x.cumsum(0),
    "cumprod": lambda ns, x: x.cumprod(1), "cummax": lambda ns, x: x.cummax(0).values,
    "cummin": lambda ns, x: x.cummin(1).values, "logsumexp": lambda ns, x: x.logsumexp(1),
    "dist": lambda ns, x: ns.dist(x, x * 2), "nansum": lambda ns, x: x.nansum(), "nanmean": lambda ns, x: x.nanmean(),
    "diff": lambda ns, x: ns.diff(x), "std_mean": lambda ns, x: ns.std_mean(x, 0)[1],
}


@pytest.mark.parametrize("case", list(NODE_CASES))
def test_node_names_match_torch(case, backend):
    rng = np.random.default_rng(0)
    x, tx = _pair(rng.uniform(0.5, 1.5, (3, 4)))
    f = NODE_CASES[case]
    assert _node(f(xt, x * 1)) == _node(f(torch, tx * 1))


# ------------------------------------------------------------------ named results
@pytest.mark.parametrize("name, call", [
    ("sort", lambda ns, x: x.sort(1)), ("topk", lambda ns, x: x.topk(2)), ("kthvalue", lambda ns, x: x.kthvalue(1)),
    ("median", lambda ns, x: x.median(0)), ("nanmedian", lambda ns, x: x.nanmedian(0)),
    ("mode", lambda ns, x: x.mode(1)), ("cummax", lambda ns, x: x.cummax(1)), ("cummin", lambda ns, x: x.cummin(0))])
def test_named_results_print_and_unpack_as_torch(name, call, backend):
    values = [[3.0, 1.0, 2.0], [0.5, 5.0, 4.0]]
    r, tr = call(xt, xt.tensor(values)), call(torch, torch.tensor(values))
    assert type(r).__name__ == name and r._fields == ("values", "indices")
    values_, indices = r
    assert values_ is r.values and indices is r[1]
    assert repr(r) == repr(tr).replace("torch.", "xtensor.")


def test_unique_all_is_the_standards_named_tuple(backend):
    r = xa.unique_all(xa.asarray([3.0, 1.0, 3.0, float("nan"), float("nan")]))
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    assert xa.unique_counts(xa.asarray([1, 1]))._fields == ("values", "counts")
    assert xa.unique_inverse(xa.asarray([1, 1]))._fields == ("values", "inverse_indices")
    assert r.values.shape == (4,)  # NaNs are distinct
    np.testing.assert_array_equal(np.asarray(r.counts), [1, 2, 1, 1])
    np.testing.assert_array_equal(np.asarray(r.values[:2]), [1.0, 3.0])
    np.testing.assert_array_equal(np.asarray(r.values[r.inverse_indices][:3]), [3.0, 1.0, 3.0])


def test_unique_inverse_keeps_the_input_shape(backend):
    r = xa.unique_inverse(xa.asarray([[2, 1], [1, 2]]))
    assert r.inverse_indices.shape == (2, 2) and r.inverse_indices.dtype == xa.int64


def test_unique_with_dim_matches_torch(backend):
    values = [[1, 2], [0, 5], [1, 2]]
    ours = xt.unique(xt.tensor(values), dim=0, return_inverse=True, return_counts=True)
    theirs = torch.unique(torch.tensor(values), dim=0, return_inverse=True, return_counts=True)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(np.asarray(a), b.numpy())
    assert ours[0].backend == backend


# ------------------------------------------------------------------ gradient conventions
GRAD_CASES = {
    "amax_ties": ([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], lambda x: x.amax()),
    "max_ties_share": ([[1.0, 3.0, 3.0], [3.0, 2.0, 0.0]], lambda x: x.max()),
    "max_dim_ties_to_index": ([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], lambda x: x.max(1).values),
    "median_ties_share": ([1.0, 2.0, 2.0, 3.0], lambda x: x.median()),
    "prod_one_zero": ([[3.0, 0.0, 2.0], [1.5, 2.0, 4.0]], lambda x: x.prod()),
    "prod_two_zeros": ([[3.0, 0.0, 2.0], [0.0, 2.0, 4.0]], lambda x: x.prod()),
    "prod_dim_zeros": ([[3.0, 0.0, 2.0], [0.0, 2.0, 0.0]], lambda x: x.prod(1)),
    "cumprod_zeros": ([[1.0, 0.0, 2.0, 0.0, 3.0], [2.0, 3.0, 0.0, 4.0, 5.0]], lambda x: x.cumprod(1)),
    "norm_at_zero": ([0.0, 0.0, 0.0], lambda x: x.norm()),
    "std_of_constant": ([2.0, 2.0, 2.0], lambda x: x.std()),
    "norm_inf_ties": ([1.0, -2.0, 2.0], lambda x: x.norm(float("inf"))),
    "sort_ties": ([2.0, 1.0, 2.0, 1.0], lambda x: x.sort(stable=True).values),
    "cummax_ties": ([3.0, 1.0, 3.0, 2.0, 3.0], lambda x: x.cummax(0).values),
    "topk": ([[1.0, 4.0, 2.0, 8.0]], lambda x: x.topk(2).values),
    "logsumexp": ([[1.0, 4.0], [-2.0, 0.5]], lambda x: x.logsumexp(1)),
    "var_correction": ([[1.0, 4.0, 2.0], [-2.0, 0.5, 1.0]], lambda x: x.var(1, correction=0)),
}


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_gradient_conventions_match_torch(case, backend):
    values, f = GRAD_CASES[case]
    x, tx = _pair(values)
    out, tout = f(x), f(tx)
    ct = np.arange(1, tout.numel() + 1, dtype=np.float64).reshape(tuple(tout.shape))
    (g,) = xt.autograd.grad(out, [x], grad_outputs=xt.tensor(ct))
    (tg,) = torch.autograd.grad(tout, [tx], grad_outputs=torch.from_numpy(ct))
    np.testing.assert_allclose(np.asarray(g), tg.numpy(), rtol=1e-12, atol=1e-12)


def test_prod_second_order_with_one_zero_matches_torch(backend):
    x, tx = _pair([3.0, 0.0, 2.0, 5.0])
    (g,) = xt.autograd.grad(x.prod(), [x], create_graph=True)
    (tg,) = torch.autograd.grad(tx.prod(), [tx], create_graph=True)
    (h,) = xt.autograd.grad((g * xt.tensor([1.0, 2.0, 3.0, 4.0], dtype=xt.float64)).sum(), [x])
    (th,) = torch.autograd.grad((tg * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum(), [tx])
    np.testing.assert_allclose(np.asarray(h), th.numpy(), rtol=1e-12)


# ------------------------------------------------------------------ forms and values PyTorch decides
@pytest.mark.parametrize("call", [
    lambda ns, x: ns.var(x, 1, False), lambda ns, x: x.var(False), lambda ns, x: x.std(0, unbiased=True),
    lambda ns, x: x.std(dim=1, correction=0, keepdim=True), lambda ns, x: ns.var_mean(x, 1, correction=2)[0]],
    ids=["dim,unbiased", "unbiased", "unbiased-kw", "correction,keepdim", "var_mean"])
def test_var_std_forms_match_torch(call, backend):
    values = [[1.0, 4.0, 2.0, 0.5], [-2.0, 0.5, 1.0, 3.0]]
    np.testing.assert_allclose(np.asarray(call(xt, xt.tensor(values))), call(torch, torch.tensor(values)).numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda ns, x: x.median(), lambda ns, x: x.median(0).indices, lambda ns, x: x.nanmedian(),
    lambda ns, x: x.nanmedian(1).values, lambda ns, x: x.cummax(1).indices, lambda ns, x: x.sort(1).values],
    ids=["median", "median_dim_index", "nanmedian", "nanmedian_dim", "cummax_index", "sort"])
def test_nan_handling_matches_torch(call, backend):
    nan = float("nan")
    values = [[1.0, nan, 3.0, 0.5], [nan, nan, 2.0, 1.0], [4.0, 2.0, 1.0, 3.0]]
    np.testing.assert_array_equal(np.asarray(call(xt, xt.tensor(values))), call(torch, torch.tensor(values)).numpy())


def test_mode_picks_the_smallest_most_frequent_value_and_its_last_index(backend):
    values = [[1.0, 2.0, 2.0, 3.0, 3.0, 1.0], [5.0, 5.0, 4.0, 4.0, 0.0, 0.0]]
    r, tr = xt.tensor(values).mode(1), torch.tensor(values).mode(1)
    np.testing.assert_array_equal(np.asarray(r.values), tr.values.numpy())
    np.testing.assert_array_equal(np.asarray(r.indices), tr.indices.numpy())


def test_all_any_keep_uint8_as_torch(backend):
    x = xt.tensor([1, 2, 0], dtype=xt.uint8)
    assert x.all().dtype is xt.uint8 and x.any(0).dtype is xt.uint8
    assert xt.tensor([1.0, 2.0]).all().dtype is xt.bool


def test_searchsorted_batched_and_sides_match_torch(backend):
    seq = [[1.0, 3.0, 5.0, 7.0], [2.0, 2.0, 4.0, 6.0]]
    vals = [[3.0, 8.0], [2.0, 0.0]]
    for kw in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
        ours = xt.searchsorted(xt.tensor(seq), xt.tensor(vals), **kw)
        theirs = torch.searchsorted(torch.tensor(seq), torch.tensor(vals), **kw)
        assert ours.dtype.name == str(theirs.dtype).split(".")[1]
        np.testing.assert_array_equal(np.asarray(ours), theirs.numpy())


def test_equal_allclose_isclose_match_torch(backend):
    a, b = [1.0, float("nan"), float("inf")], [1.0 + 1e-9, float("nan"), float("inf")]
    assert xt.equal(xt.tensor(a[:1]), xt.tensor(a[:1])) is True
    assert xt.equal(xt.tensor([1.0]), xt.tensor([1.0, 1.0])) is False
    assert xt.allclose(xt.tensor(a), xt.tensor(b)) is torch.allclose(torch.tensor(a), torch.tensor(b))
    assert xt.allclose(xt.tensor(a), xt.tensor(b), equal_nan=True) is True
    np.testing.assert_array_equal(np.asarray(xt.isclose(xt.tensor(a), xt.tensor(b))),
                                  torch.isclose(torch.tensor(a), torch.tensor(b)).numpy())


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("call, error, words", [
    (lambda ns: ns.tensor([1.0, 2.0]).kthvalue(3), RuntimeError, "out of range"),
    (lambda ns: ns.tensor([1.0, 2.0]).topk(3), RuntimeError, "out of range"),
    (lambda ns: ns.bincount(ns.tensor([1, -1])), RuntimeError, "non-negative"),
    (lambda ns: ns.tensor([1, 2]).std(), RuntimeError, "floating point"),
    (lambda ns: ns.tensor([1.0, 2.0]).var(unbiased=True, correction=0), TypeError, "invalid combination"),
    (lambda ns: ns.zeros(0, 3).median(0), IndexError, "non-zero size"),
    (lambda ns: ns.tensor([1, 2]).mean(), RuntimeError, "floating point"),
    (lambda ns: ns.searchsorted(ns.zeros(2, 3), ns.zeros(3, 1)), RuntimeError, "boundaries"),
    (lambda ns: ns.diff(ns.tensor(1.0)), RuntimeError, "one-dimensional"),
    (lambda ns: ns.cumsum(ns.tensor(3), 1), IndexError, r"range of \[-1, 0\], but got 1"),  # found by fuzzing
    (lambda ns: ns.tensor(1.0).sort(-2), IndexError, r"range of \[-1, 0\], but got -2"),
    (lambda ns: ns.argmin(ns.tensor(1.0), dim=-2), IndexError, r"range of \[-1, 0\], but got -2"),  # found by fuzzing
    (lambda ns: ns.tensor([[True]]).argmax(dim=5), RuntimeError, "does not support bool"),  # the dtype first
    (lambda ns: ns.tensor([[True]]).topk(1, dim=2), IndexError, "Dimension out of range"),  # topk: the dim first
    (lambda ns: ns.tensor([True]).median(1), IndexError, r"range of \[-1, 0\], but got 1"),
    (lambda ns: ns.zeros(0, 3).max(), RuntimeError, "Expected reduction dim to be specified"),  # found by fuzzing
    (lambda ns: ns.zeros(0, 3).amin(0), IndexError, "Expected reduction dim 0 to have non-zero size")],
    ids=["kthvalue-k", "topk-k", "bincount-negative", "std-int", "var-both", "median-empty", "mean-int",
         "searchsorted-batch", "diff-0d", "cumsum-0d-dim", "sort-0d-dim", "argmin-0d-dim", "argmax-bool-bad-dim", "topk-bool-bad-dim",
         "median-bool-dim-out-of-range", "max-empty", "amin-empty-dim"])
def test_bad_input_raises_as_torch(call, error, words, backend):
    with pytest.raises(error, match=words):
        call(xt)
    with pytest.raises(error):
        call(torch)


# ------------------------------------------------------------------ the array API's rules
@pytest.mark.parametrize("dtype, expected", [("int32", "int64"), ("int8", "int64"), ("uint8", "uint64"),
                                             ("bool", "int64"), ("float32", "float32"), ("float64", "float64")])
def test_api_sum_prod_cumulative_sum_accumulate_in_the_default_dtype(dtype, expected, backend):
    x = xa.asarray([1, 2, 3], dtype=getattr(xa, dtype))
    for f in (xa.sum, xa.prod, xa.cumulative_sum, xa.cumulative_prod):
        assert f(x).dtype is getattr(xa, expected), f.__name__
    assert xa.sum(x, dtype=xa.float64).dtype is xa.float64


def test_torch_sum_of_uint8_is_int64(backend):
    assert xt.tensor([200, 100], dtype=xt.uint8).sum().dtype is xt.int64
    assert int(xt.tensor([200, 100], dtype=xt.uint8).sum()) == 300


@pytest.mark.parametrize("f, initial", [("cumulative_sum", 0), ("cumulative_prod", 1)])
def test_api_cumulative_include_initial(f, initial, backend):
    x = xa.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = getattr(xa, f)(x, axis=1, include_initial=True)
    assert r.shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(r[:, 0]), [initial, initial])
    np.testing.assert_array_equal(np.asarray(r[:, 1:]), np.asarray(getattr(xa, f)(x, axis=1)))


def test_api_cumulative_sum_gradient_with_include_initial(backend):
    x = xt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    xa.cumulative_sum(x, include_initial=True).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [3.0, 2.0, 1.0])


def test_api_sort_descending_is_stable(backend):
    x = xa.asarray([1, 3, 1, 3, 2])
    np.testing.assert_array_equal(np.asarray(xa.argsort(x, descending=True)), [1, 3, 4, 0, 2])
    np.testing.assert_array_equal(np.asarray(xa.sort(x, descending=True)), [3, 3, 2, 1, 1])


def test_api_searchsorted_gives_the_default_index_dtype(backend):
    r = xa.searchsorted(xa.asarray([1.0, 2.0, 3.0]), xa.asarray([2.5, 0.0]), side="right")
    assert r.dtype is xa.int64
    np.testing.assert_array_equal(np.asarray(r), [2, 0])


def test_api_all_any_answer_in_bool(backend):
    x = xa.asarray([1, 0], dtype=xa.uint8)
    assert xa.all(x).dtype is xa.bool and xa.any(x, axis=0, keepdims=True).shape == (1,)


def test_api_reductions_over_no_axes_keep_the_shape(backend):
    x = xa.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert xa.sum(x, axis=()).shape == (2, 2)
    assert xa.all(x, axis=()).shape == (2, 2)


def test_api_std_var_take_a_float_correction(backend):
    x = xa.asarray([1.0, 2.0, 4.0, 7.0])
    assert math.isclose(float(xa.var(x, correction=1.5)), float(np.var([1.0, 2.0, 4.0, 7.0], ddof=1.5)))


@pytest.mark.parametrize("call", [
    lambda ns, b: ns.maximum(b, ~b), lambda ns, b: ns.fmin(b, ~b), lambda ns, b: b.amax(), lambda ns, b: b.amin(0),
    lambda ns, b: b.max(0).values, lambda ns, b: b.sort(descending=True).indices, lambda ns, b: b.argsort(),
    lambda ns, b: b.cummin(0).values],
    ids=["maximum", "fmin", "amax", "amin", "max-dim", "sort", "argsort", "cummin"])
def test_orderings_of_bools_as_torch(call, backend):
    """Found by the differential fuzzer: array_api_strict orders numbers only, so these went through as uint8."""
    data = [True, False, True]
    ours, theirs = call(xt, xt.tensor(data)), call(torch, torch.tensor(data))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "xtensor")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("correction", [2, 3])
def test_var_std_without_degrees_of_freedom_as_torch(op, correction, backend):
    """Found by the differential fuzzer: PyTorch divides by max(0, n - correction) -- inf, where jax gave NaN --
    and its gradient keeps 2 / (n - correction) (finite for a negative one)."""
    data = [[1.0, 2.0], [4.0, 3.0]]
    x, tx = _pair(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, tout = getattr(x, op)(0, correction=correction), getattr(tx, op)(0, correction=correction)
        out.sum().backward()
        tout.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
