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
    # activations
    ("hardshrink", "hardshrink", (x(3, 4),), {"lambd": 0.4}),
    ("softshrink", "softshrink", (x(3, 4),), {"lambd": 0.4}),
    ("rrelu-eval", "rrelu", (x(3, 4),), {"lower": 0.1, "upper": 0.3}),
    ("prelu-channels", "prelu", (x(2, 3, 4), x(3)), {}),
    ("prelu-shared", "prelu", (x(2, 3), x(1)), {}),
    ("elu_", lambda f, a: f.elu_(a * 1, 0.7), (x(3, 4),), {}),
    ("threshold_", lambda f, a: f.threshold_(a * 1, 0.1, -2.0), (x(3, 4),), {}),
    # normalisation, distances
    ("instance_norm", lambda f, a, w, b: f.instance_norm(a, weight=w, bias=b), (x(2, 3, 5), x(3), x(3)), {}),
    ("local_response_norm", "local_response_norm", (x(2, 5, 3, 2),), {"size": 3, "alpha": 0.1, "k": 2.0}),
    ("rms_norm", lambda f, a, w: f.rms_norm(a, (4,), w), (x(2, 3, 4), x(4)), {}),
    ("pairwise_distance", "pairwise_distance", (x(4, 3), x(4, 3)), {"p": 3.0}),
    ("pdist", "pdist", (x(4, 3),), {"p": 1.5}),
    # convolution and pooling in 3d, lp and adaptive max pooling
    ("conv3d", "conv3d", (x(1, 2, 4, 3, 4), x(2, 1, 2, 2, 3)), {"padding": (1, 0, 1), "groups": 2}),
    ("conv_transpose1d", "conv_transpose1d", (x(2, 4, 5), x(4, 3, 3), x(6)), {"stride": 2, "padding": 1,
                                                                             "output_padding": 1, "groups": 2}),
    ("conv_transpose2d-unbatched", "conv_transpose2d", (x(2, 4, 3), x(2, 3, 3, 2)), {"stride": (2, 3),
                                                                                      "padding": (2, 0),
                                                                                      "dilation": (1, 2)}),
    ("conv_tbc", "conv_tbc", (x(7, 2, 3), x(3, 3, 4), x(4)), {"pad": 1}),
    ("max_unpool2d", "max_unpool2d", (x(2, 3, 2, 2), np.stack([R.permutation(20)[:4] for _ in range(6)]).reshape(
        2, 3, 2, 2)), {"kernel_size": 2, "output_size": (5, 4)}),
    ("max_pool3d", "max_pool3d", (x(1, 2, 4, 3, 4),), {"kernel_size": 2, "stride": 1}),
    ("avg_pool3d", "avg_pool3d", (x(1, 2, 4, 3, 4),), {"kernel_size": (2, 1, 3), "padding": (1, 0, 1)}),
    ("adaptive_avg_pool3d", "adaptive_avg_pool3d", (x(1, 2, 5, 3, 4),), {"output_size": (2, 3, 3)}),
    ("lp_pool2d", "lp_pool2d", (x(2, 2, 5, 4),), {"norm_type": 2.0, "kernel_size": 2}),
    ("lp_pool1d", "lp_pool1d", (np.abs(x(2, 7)) + 0.1,), {"norm_type": 3.0, "kernel_size": 3, "stride": 2}),
    ("adaptive_max_pool1d", "adaptive_max_pool1d", (x(2, 3, 7),), {"output_size": 3}),
    ("adaptive_max_pool2d", "adaptive_max_pool2d", (x(2, 5, 4),), {"output_size": (3, 2)}),
    # rearrangements and resampling
    ("pixel_shuffle", "pixel_shuffle", (x(1, 8, 2, 3),), {"upscale_factor": 2}),
    ("pixel_unshuffle", "pixel_unshuffle", (x(2, 4, 6),), {"downscale_factor": 2}),
    ("channel_shuffle", "channel_shuffle", (x(2, 6, 2),), {"groups": 3}),
    ("unfold", "unfold", (x(2, 2, 5, 4),), {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": 2}),
    ("fold", "fold", (x(2, 12, 9),), {"output_size": (5, 6), "kernel_size": (2, 3), "stride": 2, "padding": 1}),
    ("interpolate-nearest", "interpolate", (x(1, 2, 5, 4),), {"scale_factor": 1.7}),
    ("interpolate-linear", "interpolate", (x(2, 3, 5),), {"scale_factor": 2.5, "mode": "linear"}),
    ("interpolate-bilinear-corners", "interpolate", (x(1, 2, 5, 4),), {"size": (7, 3), "mode": "bilinear",
                                                                        "align_corners": True}),
    ("affine_grid", lambda f, theta: f.affine_grid(theta, (2, 3, 4, 5), align_corners=False), (x(2, 2, 3),), {}),
    ("affine_grid-3d", lambda f, theta: f.affine_grid(theta, (1, 2, 2, 3, 4), align_corners=True), (x(1, 3, 4),),
     {}),
    ("grid_sample-zeros", "grid_sample", (x(2, 3, 4, 5), np.tanh(x(2, 3, 6, 2)) * 1.3), {"align_corners": False}),
    ("grid_sample-reflection", "grid_sample", (x(1, 2, 4, 5), np.tanh(x(1, 3, 2, 2)) * 1.8),
     {"padding_mode": "reflection", "align_corners": True}),
    ("grid_sample-nearest-border", lambda f, a, g: f.grid_sample(a, g.detach(), "nearest", "border", False),
     (x(1, 2, 4, 5), np.tanh(x(1, 3, 2, 2)) * 1.3), {}),
    ("interpolate-area", "interpolate", (x(1, 2, 5, 4),), {"size": (3, 2), "mode": "area"}),
    ("embedding_bag-mean", "embedding_bag", (np.array([1, 2, 4, 5, 4, 3, 2, 0]), x(6, 3), np.array([0, 3, 3, 5])),
     {"padding_idx": 2}),
    ("embedding_bag-max", "embedding_bag", (np.array([[1, 2, 4], [5, 4, 3]]), x(6, 3)), {"mode": "max"}),
    # losses
    ("linear_cross_entropy", lambda f, a, w, b, t: f.linear_cross_entropy(a, w, t, linear_bias=b, label_smoothing=0.1),
     (x(4, 3), x(5, 3), x(5), np.array([0, 4, 2, 2])), {}),
    ("margin_ranking_loss", "margin_ranking_loss", (x(4), x(4), np.sign(x(4))), {"margin": 0.2}),
    ("hinge_embedding_loss", "hinge_embedding_loss", (x(4, 3), np.sign(x(4, 3))), {"margin": 0.5}),
    ("soft_margin_loss", lambda f, a, t: f.soft_margin_loss(a, t.detach()), (x(4, 3), np.sign(x(4, 3))), {}),
    ("multilabel_soft_margin_loss", lambda f, a, t, w: f.multilabel_soft_margin_loss(a, t.detach(), w.detach()),
     (x(4, 3), (x(4, 3) > 0) * 1.0, x(3)), {}),
    ("multilabel_margin_loss", "multilabel_margin_loss", (x(3, 4), np.array([[3, 0, -1, 1], [1, 2, 3, -1],
                                                                             [-1, 0, 0, 0]])), {}),
    ("multi_margin_loss", lambda f, a, t, w: f.multi_margin_loss(a, t, 2, 0.7, w.detach(), reduction="sum"),
     (x(3, 4), np.array([2, 0, 3]), np.abs(x(4))), {}),
    ("poisson_nll_loss-full", "poisson_nll_loss", (x(4, 3), np.abs(x(4, 3)) * 3), {"full": True}),
    ("gaussian_nll_loss", "gaussian_nll_loss", (x(4, 3), x(4, 3), np.abs(x(4))), {"full": True}),
    ("triplet_margin_loss-swap", "triplet_margin_loss", (x(4, 3), x(4, 3), x(4, 3)), {"swap": True, "p": 1.5}),
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


@pytest.mark.parametrize("p", [0.25, 1.0])
def test_dropout_records_one_product_with_the_rescaled_mask_as_torch(backend, p):
    ours = F.dropout(xt.ones(4, 5, requires_grad=True), p)
    theirs = TF.dropout(torch.ones(4, 5, requires_grad=True), p)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "MulBackward0"
    assert [n is None for n, _ in ours.grad_fn.next_functions] == [n is None for n, _ in theirs.grad_fn.next_functions]
    kept = ours.detach().numpy()
    assert set(np.unique(kept)) <= {0.0, np.float32(1 / (1 - p))} if p < 1 else not kept.any()


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
    ("pixel_shuffle-channels", "pixel_shuffle", (x(1, 3, 2, 2),), {"upscale_factor": 2}),
    ("channel_shuffle-groups", "channel_shuffle", (x(2, 5, 3),), {"groups": 2}),
    ("interpolate-linear-4d", "interpolate", (x(1, 3, 2, 2),), {"scale_factor": 2, "mode": "linear"}),
    ("interpolate-nearest-corners", "interpolate", (x(1, 3, 2, 2),), {"scale_factor": 2, "align_corners": True}),
    ("interpolate-no-size", "interpolate", (x(1, 3, 2, 2),), {}),
    ("softshrink-negative", "softshrink", (x(2, 3),), {"lambd": -1.0}),
    ("multi_margin_loss-p", "multi_margin_loss", (x(2, 3), np.array([0, 1])), {"p": 3}),
    ("multi_margin_loss-3d", "multi_margin_loss", (x(2, 3, 4), np.array([0, 1])), {}),
    ("multilabel_margin_loss-target", "multilabel_margin_loss", (x(2, 3), np.array([0, 1])), {}),
    ("gaussian_nll_loss-var", "gaussian_nll_loss", (x(2, 3), x(2, 3), np.ones(3)), {}),
    ("fold-blocks", "fold", (x(2, 12, 10),), {"output_size": (5, 6), "kernel_size": (2, 3), "stride": 2,
                                               "padding": 1}),
    ("prelu-channels", "prelu", (x(2, 3), x(2)), {}),
]


@pytest.mark.parametrize("name, fn, inputs, kwargs", BAD, ids=[c[0] for c in BAD])
def test_bad_input_errors_match_torch(name, fn, inputs, kwargs):
    ours = _error(getattr(F, fn), *map(xt.tensor, inputs), **kwargs)
    theirs = _error(getattr(TF, fn), *map(torch.tensor, inputs), **kwargs)
    assert ours == theirs


def test_channel_dropouts_zero_whole_channels_and_rescale_the_rest(backend):
    xt.manual_seed(0)
    for out, count in ((F.dropout1d(xt.ones(6, 5), 0.5), 6), (F.dropout2d(xt.ones(2, 6, 3, 3), 0.5), 12),
                       (F.dropout3d(xt.ones(6, 2, 2, 2), 0.5), 6)):  # unbatched, batched, unbatched
        channels = out.numpy().reshape(count, -1)
        assert set(np.unique(channels)) <= {0.0, 2.0} and (channels == channels[:, :1]).all()
        assert 0 < (channels[:, 0] == 0).sum() < len(channels)


def test_alpha_dropout_sets_dropped_units_to_one_value_and_keeps_mean_and_variance(backend):
    xt.manual_seed(0)
    data = R.standard_normal(20000)
    out = F.alpha_dropout(xt.tensor(data), 0.2, training=True).numpy()
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(out, a * (0.2 - 1) * 1.7580993408473766)
    np.testing.assert_allclose(out[~dropped], a * data[~dropped] + a * 0.2 * 1.7580993408473766)
    assert abs(dropped.mean() - 0.2) < 0.02 and abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05
    evaluated = xt.tensor(data)
    assert F.alpha_dropout(evaluated) is evaluated  # training=False by default


def test_rrelu_draws_each_negative_slope_between_lower_and_upper(backend):
    xt.manual_seed(0)
    data = xt.tensor(-np.abs(R.standard_normal(1000)) - 0.1, requires_grad=True)
    out = F.rrelu(data, 0.1, 0.3, training=True)
    out.sum().backward()
    slopes = out.detach().numpy() / data.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_allclose(data.grad.numpy(), slopes)


def test_gumbel_softmax_hard_sample_is_one_hot_with_the_soft_sample_gradient(backend):
    logits = xt.tensor(R.standard_normal((5, 4)), requires_grad=True)
    xt.manual_seed(1)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    xt.manual_seed(1)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.detach().numpy().sum(1), np.ones(5))
    np.testing.assert_array_equal(hard.detach().numpy(), np.eye(4)[soft.detach().numpy().argmax(1)])
    weights = xt.tensor(R.standard_normal((5, 4)))
    (g_hard,) = xt.autograd.grad((hard * weights).sum(), logits)
    (g_soft,) = xt.autograd.grad((soft * weights).sum(), logits)
    np.testing.assert_allclose(g_hard.numpy(), g_soft.numpy())


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_an_empty_tensor_is_empty(fn, backend):
    """Found by the differential fuzzer: numpy's max of an empty axis raised."""
    out = getattr(xt, fn)(xt.zeros(2, 0), -1)
    assert tuple(out.shape) == tuple(getattr(torch, fn)(torch.zeros(2, 0), -1).shape) == (2, 0)


def test_embedding_gradient_adds_repeated_rows_in_index_order(backend):
    """The rows' gradients reach the weight added one by one in index order (numpy's ``np.add.at``, PyTorch's CPU
    order), to the bit in float32 where the order shows: magnitudes over six decades, every row index repeated."""
    r = np.random.default_rng(3)
    indices = r.integers(0, 5, (6, 7))
    upstream = (r.standard_normal((6, 7, 4)) * 10.0 ** r.uniform(-3, 3, (6, 7, 1))).astype(np.float32)
    weight = xt.tensor(np.zeros((5, 4), np.float32), requires_grad=True)
    F.embedding(xt.tensor(indices), weight).backward(xt.tensor(upstream))
    expected = np.zeros((5, 4), np.float32)
    np.add.at(expected, indices.reshape(-1), upstream.reshape(-1, 4))
    np.testing.assert_array_equal(weight.grad.numpy(), expected)
    theirs = torch.zeros(5, 4, requires_grad=True)
    TF.embedding(torch.tensor(indices), theirs).backward(torch.tensor(upstream))
    np.testing.assert_array_equal(theirs.grad.numpy(), expected)
