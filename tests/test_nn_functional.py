"""nn.functional against PyTorch on each backend: values and gradients of the functions the modules do not
cover on their own (padding modes, one_hot, normalize, attention, pooling indices, convolution options),
top-level softmax/log_softmax, and PyTorch's errors."""
import numpy as np
import pytest

import xtensor as xt
from xtensor.nn import functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

R = np.random.default_rng(2)


def x(*shape):
    return R.standard_normal(shape)


CASES = [
    ("pad-constant", "pad", (x(2, 3, 4),), {"pad": (1, 2, 0, 1), "value": 0.5}),
    ("pad-negative", "pad", (x(2, 3, 4),), {"pad": (-1, 2)}),
    ("pad-reflect", "pad", (x(1, 2, 5, 4),), {"pad": (2, 1, 3, 0), "mode": "reflect"}),
    ("pad-replicate", "pad", (x(2, 3, 4),), {"pad": (2, 1), "mode": "replicate"}),
    ("pad-circular", "pad", (x(1, 2, 3, 4),), {"pad": (1, 2, 3, 0), "mode": "circular"}),
    ("normalize", "normalize", (x(3, 4),), {"p": 3.0, "dim": 0}),
    ("cosine_similarity", "cosine_similarity", (x(3, 4), x(3, 4)), {"dim": 1}),
    ("linear", "linear", (x(2, 3), x(4, 3), x(4)), {}),
    ("softplus-extreme", "softplus", (np.array([-1e4, -30.0, 0.0, 5.0, 30.0, 1e4]),), {"beta": 2.0}),
    ("logsigmoid-extreme", "logsigmoid", (np.array([-1e4, -30.0, 0.0, 30.0, 1e4]),), {}),
    ("gelu", "gelu", (x(3, 4),), {}),
    ("silu", "silu", (x(3, 4),), {}),
    ("elu", "elu", (x(3, 4),), {"alpha": 1.3}),
    ("leaky_relu", "leaky_relu", (x(3, 4),), {"negative_slope": 0.3}),
    ("softmax", "softmax", (x(3, 4),), {"dim": 0}),
    ("log_softmax-dtype", "log_softmax", (x(3, 4),), {"dim": 1, "dtype": "float32"}),
    ("softmin", "softmin", (x(3, 4),), {"dim": 1}),
    ("layer_norm", lambda f, a, w, b: f.layer_norm(a, (4,), w, b), (x(2, 3, 4), x(4), x(4)), {}),
    ("group_norm", lambda f, a, w, b: f.group_norm(a, 3, w, b), (x(2, 6, 3), x(6), x(6)), {}),
    ("batch_norm-eval", lambda f, a, m, v, w, b: f.batch_norm(a, m.detach(), v.detach(), w, b),
     (x(4, 3), x(3), np.abs(x(3)) + 0.5, x(3), x(3)), {}),
    ("batch_norm-training", lambda f, a, w, b: f.batch_norm(a, None, None, w, b, training=True),
     (x(4, 3, 2), x(3), x(3)), {}),
    ("conv2d-groups-dilation", "conv2d", (x(2, 4, 7, 6), x(6, 2, 3, 2), x(6)),
     {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2}),
    ("conv2d-same-even-kernel", "conv2d", (x(1, 2, 5, 6), x(3, 2, 2, 4)), {"padding": "same", "dilation": (2, 1)}),
    ("conv1d-valid", "conv1d", (x(3, 6), x(2, 3, 3)), {"padding": "valid", "stride": 2}),
    ("max_pool2d-dilation", "max_pool2d", (x(2, 2, 7, 7),), {"kernel_size": 3, "stride": 2, "padding": 1,
                                                           "dilation": 2, "ceil_mode": True}),
    ("avg_pool2d-divisor", "avg_pool2d", (x(2, 2, 6, 5),), {"kernel_size": 2, "divisor_override": 3}),
    ("adaptive_avg_pool1d", "adaptive_avg_pool1d", (x(2, 3, 7),), {"output_size": 3}),
    ("sdpa-causal", "scaled_dot_product_attention", (x(2, 3, 4, 5), x(2, 3, 6, 5), x(2, 3, 6, 2)),
     {"is_causal": True}),
    ("sdpa-mask-scale", "scaled_dot_product_attention", (x(2, 4, 5), x(2, 3, 5), x(2, 3, 2), x(4, 3)),
     {"scale": 0.3}),
    ("sdpa-bool-mask", "scaled_dot_product_attention", (x(2, 4, 5), x(2, 3, 5), x(2, 3, 2),
                                                        np.array([[True, False, True]] * 4)), {}),
    ("bilinear", "bilinear", (x(4, 3), x(4, 2), x(5, 3, 2), x(5)), {}),
    ("glu", "glu", (x(3, 4),), {"dim": 1}),
]


def _dtype(ns, kwargs):
    return {k: getattr(ns, v) if k == "dtype" else v for k, v in kwargs.items()}


@pytest.mark.parametrize("name, fn, inputs, kwargs", CASES, ids=[c[0] for c in CASES])
def test_function_matches_torch(backend, name, fn, inputs, kwargs):
    args = [xt.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    t_args = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    call = fn if callable(fn) else (lambda f, *a, **k: getattr(f, fn)(*a, **k))
    out = call(F, *args, **_dtype(xt, kwargs))
    t_out = call(TF, *t_args, **_dtype(torch, kwargs))
    assert out.backend == backend and out.dtype.name == str(t_out.dtype).split(".")[-1]
    tol = {"rtol": 1e-6, "atol": 1e-6} if out.dtype is xt.float32 else {"rtol": 1e-10, "atol": 1e-12}
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), **tol)
    cotangent = R.standard_normal(tuple(t_out.shape))
    (out * xt.tensor(cotangent, dtype=out.dtype)).sum().backward()
    (t_out * torch.tensor(cotangent, dtype=t_out.dtype)).sum().backward()
    for a, t in zip(args, t_args):
        if t.grad is not None:
            assert np.isfinite(a.grad.numpy()).all()
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), **tol)


def test_top_level_softmax_spellings_match_torch(backend):
    data = x(3, 4)
    for ours, theirs in [(xt.softmax(xt.tensor(data), 1), torch.softmax(torch.tensor(data), 1)),
                         (xt.log_softmax(xt.tensor(data), dim=0), torch.log_softmax(torch.tensor(data), dim=0)),
                         (xt.tensor(data).softmax(-1), torch.tensor(data).softmax(-1))]:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert xt.tensor(data, requires_grad=True).log_softmax(0).grad_fn.name() == "LogSoftmaxBackward0"


def test_softmax_without_dim_warns_and_picks_torch_dim():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        out = F.softmax(xt.tensor(x(2, 3)))
    np.testing.assert_allclose(out.sum(1).numpy(), np.ones(2))


def test_max_pool_indices_match_torch(backend):
    data = x(2, 3, 7, 6)
    values, indices = F.max_pool2d(xt.tensor(data), 3, 2, 1, dilation=(1, 2), return_indices=True)
    t_values, t_indices = TF.max_pool2d(torch.tensor(data), 3, 2, 1, dilation=(1, 2), return_indices=True)
    np.testing.assert_array_equal(indices.numpy(), t_indices.numpy())
    np.testing.assert_array_equal(values.numpy(), t_values.numpy())


def test_max_pool_gives_a_tied_window_gradient_to_its_first_maximum():
    data = np.ones((1, 1, 2, 4))
    ours, theirs = xt.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    F.max_pool2d(ours, 2).sum().backward()
    TF.max_pool2d(theirs, 2).sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_one_hot_matches_torch(backend):
    labels = np.array([[0, 2], [1, 3]])
    np.testing.assert_array_equal(F.one_hot(xt.tensor(labels)).numpy(), TF.one_hot(torch.tensor(labels)).numpy())
    out = F.one_hot(xt.tensor(labels), 5)
    assert out.dtype is xt.int64 and tuple(out.shape) == (2, 2, 5)


def test_embedding_padding_row_gets_no_gradient(backend):
    weight = xt.tensor(x(4, 3), requires_grad=True)
    F.embedding(xt.tensor([[0, 1], [1, 3]]), weight, padding_idx=1).sum().backward()
    np.testing.assert_array_equal(weight.grad.numpy(), [[1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1]])


def test_dropout_functional_respects_training_flag_and_probability(backend):
    data = xt.ones(4, 5)
    assert F.dropout(data, 0.5, training=False) is data
    np.testing.assert_array_equal(F.dropout(data, 1.0).numpy(), np.zeros((4, 5)))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(data, 1.5)


def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


BAD = [
    ("pad-odd", "pad", (x(2, 3),), {"pad": (1,)}),
    ("pad-too-long", "pad", (x(2, 3),), {"pad": (1, 1, 1, 1, 1, 1)}),
    ("pad-reflect-too-large", "pad", (x(1, 2, 3),), {"pad": (3, 3), "mode": "reflect"}),
    ("pad-circular-wraps", "pad", (x(1, 2, 3),), {"pad": (4, 3), "mode": "circular"}),
    ("one_hot-too-large", "one_hot", (np.array([1, 5]),), {"num_classes": 3}),
    ("one_hot-negative", "one_hot", (np.array([1, -1]),), {"num_classes": 3}),
    ("one_hot-float", "one_hot", (np.array([1.0, 1.0]),), {"num_classes": 3}),
    ("conv2d-groups", "conv2d", (x(1, 4, 5, 5), x(3, 2, 3, 3)), {"groups": 2}),
    ("conv2d-same-strided", "conv2d", (x(1, 4, 5, 5), x(4, 4, 3, 3)), {"stride": 2, "padding": "same"}),
    ("conv2d-padding-string", "conv2d", (x(1, 4, 5, 5), x(4, 4, 3, 3)), {"padding": "foo"}),
    ("conv2d-bias", "conv2d", (x(1, 4, 5, 5), x(4, 4, 3, 3), x(3)), {}),
    ("max_pool2d-padding", "max_pool2d", (x(1, 4, 5, 5),), {"kernel_size": 3, "padding": 2}),
    ("softmax-integer", "softmax", (np.array([1, 2]),), {"dim": 0}),
    ("log_softmax-integer-dim-out-of-range", "log_softmax", (np.array(3),), {"dim": 1}),  # the dim is checked first
    ("glu-odd", "glu", (x(3, 5),), {}),
]


@pytest.mark.parametrize("name, fn, inputs, kwargs", BAD, ids=[c[0] for c in BAD])
def test_bad_input_errors_match_torch(name, fn, inputs, kwargs):
    ours = _error(getattr(F, fn), *map(xt.tensor, inputs), **kwargs)
    theirs = _error(getattr(TF, fn), *map(torch.tensor, inputs), **kwargs)
    assert ours == theirs


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_an_empty_tensor_is_empty(fn, backend):
    """Found by the differential fuzzer: numpy's max of an empty axis raised."""
    out = getattr(xt, fn)(xt.zeros(2, 0), -1)
    assert tuple(out.shape) == tuple(getattr(torch, fn)(torch.zeros(2, 0), -1).shape) == (2, 0)
