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


# (logits shape, class targets, cross_entropy keywords): the fused node's cases -- reductions, class weights,
# ignored samples, spatial and unbatched inputs
CROSS_ENTROPY_CASES = [
    ((6, 4), [0, 3, 1, 1, 2, 0], {}),
    ((6, 4), [0, 3, 1, 1, 2, 0], {"weight": [0.5, 1.5, 1.0, 2.0], "ignore_index": 1, "reduction": "sum"}),
    ((2, 3, 4), [[0, 2, 1, 1], [2, 2, 0, 1]], {"ignore_index": 2, "reduction": "none"}),
    ((5,), 3, {}),
]


@pytest.mark.parametrize("shape, target, options", CROSS_ENTROPY_CASES, ids=["mean", "weighted-ignored-sum",
                                                                             "spatial-none", "unbatched"])
def test_cross_entropy_is_one_node_with_the_two_ops_values_and_gradients(backend, shape, target, options):
    """``cross_entropy`` over class indices records one node, named as PyTorch's outer node (``NllLossBackward0``;
    its ``next_functions`` lead to the logits' node, PyTorch's pass through ``LogSoftmaxBackward0``), and gives the
    values and gradients of ``nll_loss(log_softmax(x))`` -- the same floating-point operations, so the same bits."""
    logits = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    keywords = {k: xtensor.tensor(v, dtype=xtensor.float32) if k == "weight" else v for k, v in options.items()}
    results = []
    for fused in (True, False):
        x = xtensor.tensor(logits, requires_grad=True)
        leaf = x * 1.0
        if fused:
            loss = xtensor.nn.functional.cross_entropy(leaf, xtensor.tensor(target), **keywords)
        else:
            loss = xtensor.nn.functional.nll_loss(leaf.log_softmax(min(len(shape) - 1, 1)), xtensor.tensor(target),
                                                  **keywords)
        loss.backward(xtensor.ones_like(loss))
        results.append((loss.detach().numpy(), x.grad.numpy()))
        if fused:
            node = loss.grad_fn if loss.grad_fn.name().startswith("Nll") else loss.grad_fn.next_functions[0][0]
            torch_loss = torch.nn.functional.cross_entropy(
                torch.tensor(logits, requires_grad=True), torch.tensor(target),
                **{k: torch.tensor(v, dtype=torch.float32) if k == "weight" else v for k, v in options.items()})
            assert loss.grad_fn.name() == torch_loss.grad_fn.name()
            assert node.next_functions[0][0] is leaf.grad_fn
    for fused, composed in zip(*results):
        np.testing.assert_array_equal(fused, composed)


@pytest.mark.parametrize("m, k, n", [(64, 64, 128), (16, 64, 512), (64, 128, 10), (256, 64, 128)])
def test_numpy_product_with_a_transposed_right_operand_is_numpys(m, k, n):
    """The numpy adapter's ``matmul`` (which copies a small left operand into Fortran order where OpenBLAS's kernel
    for a transposed right operand is slow) gives numpy's product, C-contiguous, in float32."""
    xp = xtensor.get_backend("numpy").xp
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((n, k)).astype(np.float32)
    got = xp.matmul(a, w.T)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_allclose(got, np.matmul(a, w.T), rtol=1e-5, atol=1e-5)


def _logits_with_extremes(shape):
    """float32 logits with a -inf entry, a row of -inf (its softmax is NaN) and a +inf entry, where the shape has them."""
    logits = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    if logits.ndim == 2 and logits.shape[0] > 3:
        logits[0, 1], logits[1], logits[2, 0] = -np.inf, -np.inf, np.inf
    return logits


def _on_backend(name, fn, logits):
    """``fn``'s result and its gradient at ``logits`` (its result's sum backpropagated), as numpy arrays."""
    with xtensor.use_backend(name):
        x = xtensor.tensor(logits, requires_grad=True)
        out = fn(x)
        out.backward(xtensor.ones_like(out))
        return np.asarray(out.detach().numpy()), np.asarray(x.grad.numpy())


@pytest.mark.parametrize("shape, dim", [((40, 50), 1), ((6, 200), 1), ((6, 5), 0), ((2, 3, 4), 1), ((7,), 0)],
                         ids=["rows", "long-rows", "columns", "3d", "vector"])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "cross_entropy"])
def test_numpy_softmaxes_in_place_give_the_generic_codes_bits(shape, dim, fn):
    """numpy's softmax, log_softmax and fused cross_entropy (row maxima down a transposed copy, the exponentials,
    logarithm and gradient scale written in place) give, bit for bit, array_api_strict's values and gradients: the
    standard's generic code over numpy's same kernels."""
    logits = _logits_with_extremes(shape)
    if fn == "cross_entropy":
        classes = min(len(shape) - 1, 1)  # (cross_entropy's class dim)
        target = np.arange(math.prod(shape) // shape[classes]).reshape(shape[:classes] + shape[classes + 1:]) % \
            shape[classes]
        call = (lambda x: xtensor.nn.functional.cross_entropy(x, xtensor.tensor(target), reduction="none"))
    else:
        call = (lambda x: getattr(x, fn)(dim))
    with np.errstate(all="ignore"):
        got, want = _on_backend("numpy", call, logits), _on_backend("array_api_strict", call, logits)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_numpy_addmm_adds_the_bias_into_the_product_with_the_generic_codes_bits():
    """A linear layer's ``addmm`` on numpy adds its bias row into the fresh product in place: array_api_strict's
    values and gradients, bit for bit."""
    rng = np.random.default_rng(2)
    inputs, weight, bias = (rng.standard_normal(s).astype(np.float32) for s in ((12, 16), (10, 16), (10,)))
    results = []
    for name in ("numpy", "array_api_strict"):
        with xtensor.use_backend(name):
            leaves = [xtensor.tensor(a, requires_grad=True) for a in (inputs, weight, bias)]
            out = xtensor.nn.functional.linear(*leaves)
            (out * out).sum().backward()
            results.append([out.detach().numpy(), *(leaf.grad.numpy() for leaf in leaves)])
    for got, want in zip(*results):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# x.sum(), x.mean(), x.prod(), x.amax(), x.max()... with the tensor alone run the reduction's forward straight on the
# array (``apply_whole``; on numpy one C call, ``Op.host_whole``): the bits must be the generic forward's
_WHOLE_REDUCTIONS = {"sum": "_sum", "mean": "_mean", "prod": "_prod", "amax": "amax", "amin": "amin", "max": "amax",
                     "min": "amin"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["rows", "transposed", "0-d"])
@pytest.mark.parametrize("name", list(_WHOLE_REDUCTIONS))
def test_a_reduction_of_every_element_has_the_generic_forwards_bits(backend, name, layout, dtype):
    from xtensor._registry import TABLE
    rng = np.random.default_rng(3)
    values = (rng.standard_normal(()) if layout == "0-d" else rng.standard_normal((37, 29)) * 1e3).astype(dtype)
    x = xtensor.tensor(values)
    if layout == "transposed":  # a strided view: numpy's reduction order depends on the dims it is given
        x = x.t()
    op = TABLE[_WHOLE_REDUCTIONS[name]].op
    with np.errstate(all="ignore"):  # (a product of 1,073 such values overflows: inf in both)
        generic = op.fwd(x._backend.xp, x._value, tuple(range(x.ndim)), *op.whole)
    got = getattr(x, name)()
    assert got.dtype is x.dtype
    np.testing.assert_array_equal(got.numpy(), np.asarray(x._backend.to_numpy(generic)), strict=True)
    assert getattr(xtensor, name)(x).tolist() == got.tolist()


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "max"])
def test_a_reduction_of_every_element_names_its_node_and_gradient_as_pytorch(backend, name):
    values = [[1.5, -2.0, 3.0], [0.5, 3.0, -1.0]]
    x = xtensor.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    got, want = getattr(x, name)(), getattr(t, name)()
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    got.backward()
    want.backward()
    assert got.item() == pytest.approx(want.item())
    assert x.grad.tolist() == t.grad.tolist()


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "max"])
def test_a_reduction_of_every_element_of_an_empty_or_integer_tensor_answers_as_pytorch(backend, name):
    for make in (lambda lib: lib.zeros(0), lambda lib: lib.arange(5)):
        try:
            want = getattr(make(torch), name)()
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e).split(":")[1].split(".")[0].strip()):
                getattr(make(xtensor), name)()
            continue
        got = getattr(make(xtensor), name)()
        assert got.dtype.name == str(want.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("used_as", ["x @ w.T", "w.T @ x"])
def test_numpy_a_transposed_operands_gradient_comes_in_its_layout(monkeypatch, used_as):
    """A weight used transposed (``nn.Linear``'s ``x @ w.T``, either side) gets its gradient through
    ``(b.T @ a.T).T``, PyTorch's ``mm_mat2_backward``: C-ordered after the transpose's VJP, so ``.grad`` copies it
    plainly instead of transposing 1 MB (a 512x512 layer's step: 1.66 -> 1.18 ms); the values are PyTorch's."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((48, 32)).astype(np.float32)
    x0 = rng.standard_normal((16, 32) if used_as == "x @ w.T" else (48, 16)).astype(np.float32)
    backend = xtensor.get_backend("numpy")
    copied, copy = [], backend.contiguous_copy
    monkeypatch.setattr(backend, "contiguous_copy", lambda a: copied.append(a.flags.c_contiguous) or copy(a))
    results = []
    for m in (xtensor, torch):
        w, x = m.tensor(w0, requires_grad=True), m.tensor(x0)
        (x @ w.T if used_as == "x @ w.T" else w.T @ x).square().sum().backward()
        results.append(w.grad.numpy())
    assert copied == [True]
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6 * np.abs(results[1]).max())
