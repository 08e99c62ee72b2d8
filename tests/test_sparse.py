"""Sparse COO tensors (``xtensor.sparse``) against PyTorch 2.13: construction, coalescing, conversions, reprs,
products, the elementwise ops PyTorch runs on COO tensors, errors, and gradients (``torch.sparse.mm``'s
documented ones included). Each case is one function of the library (``torch`` or ``xtensor``), run on both; the
``backend`` fixture runs xtensor's side on numpy, jax and array_api_strict."""
import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled")

# three stored values at (0, 2), (1, 0), (1, 2), and a duplicate of (0, 2): an uncoalesced tensor
INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]
VALUES = [3.0, 4.0, 5.0, 1.0]


def _np(t):
    if t.layout != getattr(t, "layout", None) or t.is_sparse:
        t = t.to_dense()
    return np.asarray(t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach())


def _uncoalesced(lib, dtype=None, requires_grad=False):
    values = lib.tensor(VALUES, dtype=dtype or lib.float64, requires_grad=requires_grad)
    return lib.sparse_coo_tensor(lib.tensor(INDICES), values, (2, 3)), values


def _both(case):
    """``case(torch)`` and ``case(xtensor)``."""
    return case(torch), case(xt)


def _same_sparse(expected, got, flag=True):
    """Same indices, values, size, dtype, layout and (``flag``) coalesced flag."""
    assert got.is_sparse and got.layout is xt.sparse_coo
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype.name == str(expected.dtype).split(".")[-1]
    assert not flag or got.is_coalesced() == expected.is_coalesced()
    np.testing.assert_array_equal(np.asarray(got._indices()), expected._indices().numpy())
    np.testing.assert_allclose(np.asarray(got._values().detach()), expected._values().detach().numpy(), rtol=1e-6)


def _weighted_sum(lib, out):
    """A loss that gives each element of ``out`` (dense or sparse) a gradient of its own."""
    dense = out.to_dense() if out.is_sparse else out
    return (dense * lib.arange(float(dense.numel()), dtype=dense.dtype).reshape(dense.shape)).sum()


def _same_output_and_gradient(case, sparse_exactly=False):
    """``case(lib)`` returns ``(output, gradient)``: same values, layout and node name, and (where PyTorch has
    one) the same gradient; ``sparse_exactly``: the same stored indices and values too."""
    (out_t, grad_t), (out_x, grad_x) = _both(case)
    assert out_x.is_sparse == out_t.is_sparse and out_x.grad_fn.name() == out_t.grad_fn.name()
    if sparse_exactly:
        _same_sparse(out_t, out_x)
    np.testing.assert_allclose(_np(out_x), _np(out_t), rtol=1e-6)
    if grad_t is not None:
        np.testing.assert_allclose(_np(grad_x), _np(grad_t), rtol=1e-6)


def _same_error(case):
    """xtensor raises PyTorch's exception type with PyTorch's message (its first sentence)."""
    with pytest.raises(Exception) as expected:
        case(torch)
    with pytest.raises(type(expected.value)) as got:
        case(xt)
    assert str(expected.value).split(". ")[0].split(" with arguments")[0] in str(got.value)


# --------------------------------------------------------------------------- construction and attributes
def test_construction_keeps_indices_values_and_size(backend):
    expected, got = _both(lambda lib: _uncoalesced(lib)[0])
    _same_sparse(expected, got)
    assert got.backend == backend and got._values().backend == backend
    assert isinstance(got, xt.Tensor) and got._nnz() == 4 and got.sparse_dim() == 2 and got.dense_dim() == 0


def test_construction_infers_the_size_and_converts_list_and_int32_inputs(backend):
    expected, got = _both(lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES, dtype=lib.int32), [1, 2, 3, 4]))
    _same_sparse(expected, got)
    assert got._indices().dtype is xt.int64


def test_hybrid_tensor_has_dense_dims(backend):
    expected, got = _both(lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(4, 2), (2, 3, 2)))
    _same_sparse(expected, got)
    assert got.dense_dim() == 1
    np.testing.assert_array_equal(_np(got.to_dense()), _np(expected.to_dense()))


def test_attributes_are_pytorchs():
    s, _ = _uncoalesced(xt, requires_grad=True)
    t, _ = _uncoalesced(torch, requires_grad=True)
    assert (s.is_sparse, str(s.layout), s.shape, s.requires_grad, s.is_leaf) == \
        (t.is_sparse, str(t.layout).replace("torch", "xtensor"), xt.Size(t.shape), t.requires_grad, t.is_leaf)
    assert (s.stride(), s.is_contiguous(), s.dim(), s.numel(), len(s)) == \
        (t.stride(), t.is_contiguous(), t.dim(), t.numel(), len(t))
    dense = xt.ones(2)
    assert not dense.is_sparse and dense.layout is xt.strided and dense.to_dense() is dense


@pytest.mark.parametrize("case", [
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(3), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([0, 1]), lib.ones(2), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(4), (2, 3, 4)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(4), (1, 3), check_invariants=True),
], ids=["nnz-mismatch", "one-dim-indices", "size-rank", "index-out-of-size"])
def test_bad_construction_raises_pytorchs_error(case):
    _same_error(case)


# --------------------------------------------------------------------------- coalesce, indices, values
def test_coalesce_sums_duplicates_and_sorts(backend):
    expected, got = _both(lambda lib: _uncoalesced(lib)[0].coalesce())
    _same_sparse(expected, got)
    assert got.coalesce() is got


def test_indices_and_values_of_an_uncoalesced_tensor_are_refused():
    _same_error(lambda lib: _uncoalesced(lib)[0].indices())
    _same_error(lambda lib: _uncoalesced(lib)[0].values())


def test_values_of_a_coalesced_tensor_flow_gradient_back(backend):
    grads = []
    for lib in (torch, xt):
        s, v = _uncoalesced(lib, requires_grad=True)
        out = s.coalesce().values()
        assert out.grad_fn.name() == "ValuesBackward0"
        (out * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        grads.append(_np(v.grad))
    np.testing.assert_array_equal(grads[1], grads[0])


def test_to_dense_sums_duplicates(backend):
    expected, got = _both(lambda lib: _uncoalesced(lib)[0].to_dense())
    assert not got.is_sparse and got.backend == backend
    np.testing.assert_array_equal(_np(got), _np(expected))


@pytest.mark.parametrize("sparse_dim", [None, 1])
def test_to_sparse_keeps_the_nonzero_positions(backend, sparse_dim):
    data = [[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 3.0]]
    expected, got = _both(lambda lib: lib.tensor(data).to_sparse(*([] if sparse_dim is None else [sparse_dim])))
    _same_sparse(expected, got)
    assert xt.tensor(data).to_sparse_coo().is_sparse


def test_to_sparse_gradient_is_the_dense_gradient_at_its_positions(backend):
    def case(lib):
        x = lib.tensor([[1.0, 0.0], [0.0, 2.0]], dtype=lib.float64, requires_grad=True)
        s = x.to_sparse()
        (s.to_dense() * lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)).sum().backward()
        return (s.grad_fn.name(), x.to_sparse(1).grad_fn.name()), x.grad
    (names_t, grad_t), (names_x, grad_x) = _both(case)
    assert names_x == names_t
    np.testing.assert_array_equal(_np(grad_x), _np(grad_t))


def test_sparse_mask_reads_a_dense_tensor_at_the_stored_positions(backend):
    def case(lib):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        out = x.sparse_mask(_uncoalesced(lib)[0])
        _weighted_sum(lib, out).backward()
        return out, x.grad
    _same_output_and_gradient(case, sparse_exactly=True)


@pytest.mark.parametrize("method", ["coalesce", "is_coalesced", "indices", "values", "_indices", "_values", "_nnz"])
def test_sparse_accessors_of_a_strided_tensor_raise_pytorchs_error(method):
    _same_error(lambda lib: getattr(lib.ones(2, 3), method)())
    assert (xt.ones(2, 3).sparse_dim(), xt.ones(2, 3).dense_dim()) == (0, 2)


def test_is_coalesced_keyword_is_trusted_and_detach_drops_history():
    s = xt.sparse_coo_tensor(xt.tensor([[0, 1], [1, 0]]), xt.ones(2, requires_grad=True), (2, 2), is_coalesced=True)
    t = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.ones(2), (2, 2), is_coalesced=True)
    assert s.is_coalesced() == t.is_coalesced() and s.requires_grad
    d = s.detach()
    assert d.is_sparse and not d.requires_grad and d.grad_fn is None


def test_to_moves_values_and_indices_between_backends_with_gradient():
    s, values = _uncoalesced(xt, requires_grad=True)
    moved = s.to("jax")
    assert moved.backend == "jax" and moved._indices().backend == "jax" and moved.grad_fn.name() == "ToCopyBackward0"
    assert s.to("cpu") is s and s.cpu() is s
    (moved.to_dense() * xt.arange(6.0, dtype=xt.float64, backend="jax").reshape(2, 3)).sum().backward()
    np.testing.assert_array_equal(_np(values.grad), [2.0, 3.0, 5.0, 2.0])


def test_pickle_round_trips_a_sparse_tensor():
    import pickle
    s, _ = _uncoalesced(xt)
    back = pickle.loads(pickle.dumps(s))
    assert repr(back) == repr(s)


def test_autograd_grad_of_a_sparse_leaf_is_sparse(backend):
    def case(lib):
        leaf = _uncoalesced(lib)[0].coalesce().requires_grad_()
        return lib.autograd.grad(lib.sparse.mm(leaf, lib.ones(3, 2, dtype=lib.float64)).sum(), leaf)[0]
    expected, got = _both(case)
    _same_sparse(expected, got, flag=False)  # (PyTorch flags this one coalesced, the same gradient via backward() not)


# --------------------------------------------------------------------------- printing
@pytest.mark.parametrize("case", [
    lambda lib: _uncoalesced(lib, dtype=lib.float32)[0],
    lambda lib: _uncoalesced(lib)[0].coalesce(),
    lambda lib: _uncoalesced(lib, dtype=lib.float32, requires_grad=True)[0],
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor([1, 2, 3, 4]), (2, 3), requires_grad=False),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(4, 2), (2, 3, 2), requires_grad=True),
], ids=["float32", "float64-coalesced", "grad_fn", "int64", "empty", "hybrid-leaf"])
def test_repr_is_pytorchs(case):
    expected, got = _both(case)
    assert repr(got) == repr(expected).replace("torch.", "xtensor.")


# --------------------------------------------------------------------------- products
_PRODUCTS = {
    "sparse.mm": lambda lib, s, d: lib.sparse.mm(s, d),
    "mm": lambda lib, s, d: lib.mm(s, d),
    "spmm": lambda lib, s, d: lib.spmm(s, d),
    "matmul": lambda lib, s, d: lib.matmul(s, d),
    "@": lambda lib, s, d: s @ d,
    "@ vector": lambda lib, s, d: s @ d[:, 0],
    "dense @": lambda lib, s, d: d.T @ s.t(),
    "Tensor.mm": lambda lib, s, d: s.mm(d),
}


@pytest.mark.parametrize("name", list(_PRODUCTS))
def test_sparse_dense_product_matches_pytorch(backend, name):
    def case(lib):
        s, _ = _uncoalesced(lib)
        return _PRODUCTS[name](lib, s, lib.arange(12.0, dtype=lib.float64).reshape(3, 4))
    expected, got = _both(case)
    assert not got.is_sparse and got.backend == backend
    np.testing.assert_allclose(_np(got), _np(expected))


def test_sparse_times_sparse_is_sparse(backend):
    expected, got = _both(lambda lib: lib.sparse.mm(_uncoalesced(lib)[0], _uncoalesced(lib)[0].t()))
    assert got.is_sparse
    np.testing.assert_allclose(_np(got), _np(expected))


@pytest.mark.parametrize("case", [
    lambda lib: lib.sparse.mm(_uncoalesced(lib)[0], lib.ones(4, 2, dtype=lib.float64)),
    lambda lib: lib.mm(_uncoalesced(lib)[0], lib.ones(3, 2, dtype=lib.float32)),
    lambda lib: lib.mm(_uncoalesced(lib)[0], lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.sparse.mm(_uncoalesced(lib)[0], lib.ones(3, 2, 2, dtype=lib.float64)),
], ids=["shapes", "dtypes", "vector", "3d"])
def test_bad_products_raise_pytorchs_error(case):
    _same_error(case)


def test_addmm_adds_the_scaled_product(backend):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        out = lib.sparse.addmm(lib.ones(2, 2, dtype=lib.float64), s, lib.ones(3, 2, dtype=lib.float64), beta=2, alpha=3)
        _weighted_sum(lib, out).backward()
        return out, values.grad
    _same_output_and_gradient(case)


@pytest.mark.parametrize("args", [("indices", "values", (2, 3)), ("indices", "values"), (2, 3)])
def test_legacy_sparse_constructors_build_coo_tensors(args):
    def case(lib):
        parts = {"indices": lib.tensor(INDICES), "values": lib.tensor(VALUES)}
        return lib.sparse.FloatTensor(*[parts.get(a, a) if isinstance(a, str) else a for a in args])
    expected, got = _both(case)
    _same_sparse(expected, got)


# --------------------------------------------------------------------------- gradients
def _grads(lib, product, sparse_leaf=False):
    """Gradients of a weighted sum of ``product(sparse, dense)`` w.r.t. the values (or the sparse leaf) and the
    dense operand, with the node names on the way."""
    if sparse_leaf:
        s, values = _uncoalesced(lib)[0].coalesce().requires_grad_(), None
    else:
        s, values = _uncoalesced(lib, requires_grad=True)
    d = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
    out = product(lib, s, d)
    _weighted_sum(lib, out).backward()
    return out.grad_fn.name(), s.grad if sparse_leaf else values.grad, d.grad


@pytest.mark.parametrize("name", ["sparse.mm", "mm", "spmm", "@", "@ vector", "dense @"])
def test_product_gradients_match_pytorch(backend, name):
    (node_t, gv_t, gd_t), (node_x, gv_x, gd_x) = _both(lambda lib: _grads(lib, _PRODUCTS[name]))
    assert node_x == node_t
    np.testing.assert_allclose(_np(gv_x), _np(gv_t))
    np.testing.assert_allclose(_np(gd_x), _np(gd_t))


@pytest.mark.parametrize("name, sparse_grad", [("sparse.mm", True), ("mm", False)])
def test_gradient_of_a_sparse_leaf_is_sparse_for_sparse_mm_and_dense_for_mm(backend, name, sparse_grad):
    (_, gs_t, _), (_, gs_x, _) = _both(lambda lib: _grads(lib, _PRODUCTS[name], sparse_leaf=True))
    assert gs_x.is_sparse == gs_t.is_sparse == sparse_grad
    if sparse_grad:
        _same_sparse(gs_t, gs_x)
    np.testing.assert_allclose(_np(gs_x), _np(gs_t))


@pytest.mark.parametrize("sparse_first", [True, False])
def test_sparse_and_dense_gradient_parts_of_a_sparse_leaf_add_up_to_a_dense_gradient(sparse_first):
    def case(lib):
        leaf = _uncoalesced(lib)[0].coalesce().requires_grad_()
        d = lib.arange(12.0, dtype=lib.float64).reshape(3, 4)
        parts = [lib.sparse.mm(leaf, d).sum() * 3, lib.mm(leaf, d).sum()]
        (parts[0] + parts[1] if sparse_first else parts[1] + parts[0]).backward()
        return leaf.grad
    expected, got = _both(case)
    assert got.is_sparse == expected.is_sparse
    np.testing.assert_allclose(_np(got), _np(expected))


def test_second_order_gradient_through_sparse_mm(backend):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        d = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        (gd,) = lib.autograd.grad((lib.sparse.mm(s, d) ** 2).sum(), d, create_graph=True)
        (gd ** 2).sum().backward()
        return values.grad, d.grad
    (gv_t, gd_t), (gv_x, gd_x) = _both(case)
    np.testing.assert_allclose(_np(gv_x), _np(gv_t))
    np.testing.assert_allclose(_np(gd_x), _np(gd_t))


def test_to_dense_gradient_reaches_values_and_sparse_leaves(backend):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        leaf = _uncoalesced(lib)[0].requires_grad_()
        dense = s.to_dense()
        assert dense.grad_fn.name() == "ToDenseBackward0"
        _weighted_sum(lib, dense).backward()
        (leaf.to_dense() ** 2).sum().backward()
        return values.grad, leaf.grad
    (gv_t, gl_t), (gv_x, gl_x) = _both(case)
    np.testing.assert_allclose(_np(gv_x), _np(gv_t))
    _same_sparse(gl_t, gl_x)


def test_two_layer_gcn_matches_pytorch_from_the_same_weights(backend):
    """adj = sparse_coo_tensor(edges.T, ones(E), (V, V)); h = relu(sparse.mm(adj, x @ W1)); out = spmm(adj, h @ W2)."""
    rng = np.random.default_rng(0)
    edges = rng.integers(0, 6, size=(14, 2))
    x0, w1, w2 = rng.standard_normal((6, 4)), rng.standard_normal((4, 5)), rng.standard_normal((5, 3))

    def case(lib):
        adj = lib.sparse_coo_tensor(lib.tensor(edges).T, lib.ones(len(edges), dtype=lib.float64), (6, 6))
        x = lib.tensor(x0)
        weights = [lib.tensor(w, requires_grad=True) for w in (w1, w2)]
        h = lib.relu(lib.sparse.mm(adj, x @ weights[0]))
        out = lib.spmm(adj, h @ weights[1])
        loss = lib.nn.functional.cross_entropy(out, lib.tensor([0, 1, 2, 0, 1, 2]))
        loss.backward()
        return loss, [w.grad for w in weights]
    (loss_t, grads_t), (loss_x, grads_x) = _both(case)
    np.testing.assert_allclose(_np(loss_x), _np(loss_t), rtol=1e-12)
    for g_x, g_t in zip(grads_x, grads_t):
        np.testing.assert_allclose(_np(g_x), _np(g_t), rtol=1e-10)


# --------------------------------------------------------------------------- elementwise ops and sums
def _single(lib):
    """One stored value, at (0, 1): coalesced."""
    return lib.sparse_coo_tensor(lib.tensor([[0], [1]]), lib.tensor([7.0], dtype=lib.float64), (2, 3))


_ELEMENTWISE = {
    "neg": lambda lib, s: -s,
    "mul-scalar": lambda lib, s: s * 2,
    "scalar-mul": lambda lib, s: 2 * s,
    "mul-0d": lambda lib, s: s * lib.tensor(2.0, dtype=lib.float64),
    "div-scalar": lambda lib, s: s / 4,
    "relu": lambda lib, s: lib.relu(s),
    "log1p": lambda lib, s: s.log1p(),
    "square": lambda lib, s: lib.square(s),
    "abs-method": lambda lib, s: (-s).abs(),
    "add-sparse": lambda lib, s: s + s,
    "add-coalesced": lambda lib, s: s.coalesce() + _single(lib),
    "add-other-pattern": lambda lib, s: s + _single(lib),
    "sub-sparse": lambda lib, s: s - 2 * s,
    "mul-dense": lambda lib, s: s * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64),
    "mul-sparse": lambda lib, s: s * s.t().t(),
    "mul-other-pattern": lambda lib, s: s * lib.sparse_coo_tensor(lib.tensor([[0, 1], [1, 2]]),
                                                                   lib.tensor([7.0, 2.0], dtype=lib.float64), (2, 3)),
    "to-float32": lambda lib, s: s.float(),
    "t": lambda lib, s: s.t(),
    "transpose": lambda lib, s: s.transpose(0, 1),
    "coalesce": lambda lib, s: s.coalesce(),
    "clone": lambda lib, s: s.clone(),
}


@pytest.mark.parametrize("name", list(_ELEMENTWISE))
def test_elementwise_op_on_sparse_matches_pytorch(backend, name):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        out = _ELEMENTWISE[name](lib, s)
        _weighted_sum(lib, out).backward()
        return out, values.grad
    _same_output_and_gradient(case)
    expected, got = _both(lambda lib: _ELEMENTWISE[name](lib, _uncoalesced(lib)[0]))
    assert (got.is_coalesced(), got._nnz()) == (expected.is_coalesced(), expected._nnz())


@pytest.mark.parametrize("name, args", [("mul_", (2.0,)), ("div_", (4.0,)), ("add_", ("self",)), ("neg_", ()),
                                        ("zero_", ())])
def test_in_place_op_on_sparse_matches_pytorch(backend, name, args):
    """(Without autograd: PyTorch's backward through an in-place op on a COO tensor fails its version check.)"""
    def case(lib):
        s = _uncoalesced(lib)[0]
        assert getattr(s, name)(*[s.clone() if a == "self" else a for a in args]) is s
        return s
    expected, got = _both(case)
    assert got._nnz() == expected._nnz()
    np.testing.assert_array_equal(_np(got), _np(expected))


def test_in_place_op_on_a_sparse_leaf_that_requires_grad_is_refused():
    _same_error(lambda lib: _uncoalesced(lib)[0].requires_grad_().mul_(2))


def test_permute_and_T_reorder_sparse_dims(backend):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        out = s.T.permute(1, 0).mT
        _weighted_sum(lib, out).backward()
        return out, values.grad
    _same_output_and_gradient(case, sparse_exactly=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(4, 2), (2, 3, 2)).permute(2, 0, 1),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.ones(4, 2), (2, 3, 2)).transpose(1, 2),
], ids=["permute", "transpose"])
def test_moving_a_dense_dim_among_sparse_ones_is_refused(case):
    _same_error(case)


def test_dense_plus_sparse_is_dense(backend):
    expected, got = _both(lambda lib: lib.ones(2, 3, dtype=lib.float64) - _uncoalesced(lib)[0])
    assert not got.is_sparse
    np.testing.assert_array_equal(_np(got), _np(expected))


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
def test_sparse_sum_matches_pytorch(backend, dim):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        out = lib.sparse.sum(s) if dim is None else lib.sparse.sum(s, dim)
        _weighted_sum(lib, out).backward()
        return out, values.grad
    _same_output_and_gradient(case)


@pytest.mark.parametrize("dim", [None, 0, (0, 1)])
def test_tensor_sum_of_sparse_matches_pytorch(backend, dim):
    def case(lib):
        s, values = _uncoalesced(lib, requires_grad=True)
        out = s.sum() if dim is None else lib.sum(s, dim)
        if not out.is_sparse:  # (PyTorch cannot differentiate a sparse result of sum(dim): "expand is unsupported")
            out.sum().backward()
        return out, values.grad
    _same_output_and_gradient(case)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_sparse_softmax_runs_over_stored_values(backend, name):
    def case(lib):
        values = lib.tensor([3.0, 4.0, 5.0, 1.0], dtype=lib.float64, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor([[0, 1, 1, 1], [2, 0, 2, 1]]), values, (2, 3)).coalesce()
        out = getattr(lib.sparse, name)(s, 1)
        _weighted_sum(lib, out).backward()
        return out, values.grad
    _same_output_and_gradient(case, sparse_exactly=True)


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("case", [
    lambda lib: lib.exp(_uncoalesced(lib)[0]),
    lambda lib: _uncoalesced(lib)[0].view(6),
    lambda lib: _uncoalesced(lib)[0].reshape(6),
    lambda lib: _uncoalesced(lib)[0] + 1,
    lambda lib: _uncoalesced(lib)[0] + lib.ones(2, 3, dtype=lib.float64),
    lambda lib: _uncoalesced(lib)[0] / _uncoalesced(lib)[0],
    lambda lib: _uncoalesced(lib)[0].numpy(),
    lambda lib: _uncoalesced(lib)[0].data_ptr(),
    lambda lib: _uncoalesced(lib)[0].untyped_storage(),
    lambda lib: lib.sparse.sum(lib.ones(2)),
], ids=["exp", "view", "reshape", "add-scalar", "add-dense", "div-sparse", "numpy", "data_ptr", "storage",
        "sum-dense"])
def test_unsupported_op_raises_pytorchs_error(case):
    _same_error(case)
