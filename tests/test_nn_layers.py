"""Every layer of xtensor.nn against PyTorch on each backend: the torch module's parameters are copied in
(through numpy), then outputs, input and parameter gradients, buffers, repr and state_dict keys must match."""
import numpy as np
import pytest

import xtensor as xt
from xtensor import nn

torch = pytest.importorskip("torch")

R = np.random.default_rng(0)


def x(*shape):
    return R.standard_normal(shape)


def longs(high, *shape):
    return R.integers(0, high, shape)


# (id, constructor over a namespace, inputs as numpy arrays, keyword inputs)
CASES = [
    ("Identity", lambda ns: ns.Identity(), (x(2, 3),), {}),
    ("Linear", lambda ns: ns.Linear(4, 3), (x(2, 5, 4),), {}),
    ("Linear-nobias", lambda ns: ns.Linear(4, 3, bias=False), (x(4),), {}),
    ("Bilinear", lambda ns: ns.Bilinear(3, 2, 4), (x(5, 3), x(5, 2)), {}),
    ("Embedding", lambda ns: ns.Embedding(6, 3, padding_idx=1), (longs(6, 2, 4),), {}),
    ("Conv1d", lambda ns: ns.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (x(2, 4, 9),), {}),
    ("Conv2d", lambda ns: ns.Conv2d(3, 4, (3, 2), stride=(1, 2), padding=(1, 0), dilation=(2, 1)), (x(2, 3, 7, 6),),
     {}),
    ("Conv2d-same-reflect", lambda ns: ns.Conv2d(2, 3, 3, padding="same", padding_mode="reflect", bias=False),
     (x(2, 5, 5),), {}),
    ("Conv2d-circular", lambda ns: ns.Conv2d(2, 2, 3, padding=1, padding_mode="circular"), (x(1, 2, 4, 4),), {}),
    ("MaxPool1d", lambda ns: ns.MaxPool1d(3, 2, padding=1), (x(2, 3, 8),), {}),
    ("MaxPool2d", lambda ns: ns.MaxPool2d(2, ceil_mode=True), (x(2, 3, 5, 5),), {}),
    ("AvgPool1d", lambda ns: ns.AvgPool1d(3, 2, padding=1, count_include_pad=False), (x(2, 3, 8),), {}),
    ("AvgPool2d", lambda ns: ns.AvgPool2d(3, 2, padding=1, ceil_mode=True), (x(2, 3, 6, 5),), {}),
    ("AdaptiveAvgPool2d", lambda ns: ns.AdaptiveAvgPool2d((2, 3)), (x(2, 3, 5, 7),), {}),
    ("BatchNorm1d", lambda ns: ns.BatchNorm1d(3), (x(4, 3, 2),), {}),
    ("BatchNorm2d", lambda ns: ns.BatchNorm2d(3, momentum=None), (x(2, 3, 2, 2),), {}),
    ("LayerNorm", lambda ns: ns.LayerNorm((3, 4)), (x(2, 3, 4),), {}),
    ("GroupNorm", lambda ns: ns.GroupNorm(2, 4), (x(2, 4, 3),), {}),
    ("Dropout-eval", lambda ns: ns.Dropout(0.3).eval(), (x(3, 4),), {}),
    ("Flatten", lambda ns: ns.Flatten(), (x(2, 3, 4),), {}),
    ("Unflatten", lambda ns: ns.Unflatten(1, (2, 3)), (x(2, 6),), {}),
    ("RNN", lambda ns: ns.RNN(3, 4, num_layers=2, nonlinearity="relu"), (x(5, 2, 3),), {}),
    ("LSTM", lambda ns: ns.LSTM(3, 4, bidirectional=True, batch_first=True), (x(2, 5, 3),), {}),
    ("GRU", lambda ns: ns.GRU(3, 4, num_layers=2, bidirectional=True), (x(5, 3), x(4, 4)), {}),
    ("Conv3d", lambda ns: ns.Conv3d(2, 4, (2, 3, 2), padding=(1, 0, 1), groups=2, padding_mode="circular"),
     (x(1, 2, 3, 4, 3),), {}),
    ("ConvTranspose1d", lambda ns: ns.ConvTranspose1d(4, 6, 3, stride=2, output_padding=1, groups=2),
     (x(2, 4, 5),), {}),
    ("ConvTranspose2d-output-size", lambda ns: ns.ConvTranspose2d(2, 3, (3, 2), stride=2, padding=1),
     (x(1, 2, 3, 4),), {"output_size": (6, 7)}),
    ("BatchNorm3d", lambda ns: ns.BatchNorm3d(2), (x(2, 2, 2, 3, 2),), {}),
    ("InstanceNorm1d-unbatched", lambda ns: ns.InstanceNorm1d(3), (x(3, 5),), {}),
    ("InstanceNorm2d-tracked", lambda ns: ns.InstanceNorm2d(3, affine=True, track_running_stats=True),
     (x(2, 3, 3, 2),), {}),
    ("RMSNorm", lambda ns: ns.RMSNorm((3, 4), eps=1e-3), (x(2, 3, 4),), {}),
    ("LocalResponseNorm", lambda ns: ns.LocalResponseNorm(3, 0.1, k=2.0), (x(2, 5, 3),), {}),
    ("MaxPool3d", lambda ns: ns.MaxPool3d(2, 1), (x(1, 2, 3, 3, 3),), {}),
    ("AvgPool3d", lambda ns: ns.AvgPool3d(2, padding=1, count_include_pad=False), (x(1, 2, 3, 3, 3),), {}),
    ("LPPool2d", lambda ns: ns.LPPool2d(2, 2, stride=1), (x(1, 2, 4, 4),), {}),
    ("AdaptiveMaxPool2d-indices", lambda ns: ns.AdaptiveMaxPool2d((3, 2), return_indices=True), (x(1, 2, 5, 4),),
     {}),
    ("AdaptiveAvgPool3d", lambda ns: ns.AdaptiveAvgPool3d((2, 1, 3)), (x(1, 2, 3, 3, 4),), {}),
    ("EmbeddingBag", lambda ns: ns.EmbeddingBag(6, 3, mode="sum", padding_idx=1),
     (np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 2])), {}),
    ("ReflectionPad2d", lambda ns: ns.ReflectionPad2d((1, 0, 2, 1)), (x(1, 2, 3, 3),), {}),
    ("ConstantPad1d", lambda ns: ns.ConstantPad1d((1, 2), 0.5), (x(2, 3),), {}),
    ("CircularPad1d", lambda ns: ns.CircularPad1d(2), (x(1, 2, 3),), {}),
    ("PixelShuffle", lambda ns: ns.PixelShuffle(2), (x(1, 8, 2, 3),), {}),
    ("Fold", lambda ns: ns.Fold((5, 6), (2, 3), stride=2, padding=1), (x(1, 12, 9),), {}),
    ("Upsample-bilinear", lambda ns: ns.UpsamplingBilinear2d(scale_factor=2), (x(1, 2, 3, 3),), {}),
    ("Softmax2d", lambda ns: ns.Softmax2d(), (x(3, 2, 2),), {}),
    ("MaxUnpool2d", lambda ns: ns.MaxUnpool2d(2), (x(1, 2, 2, 2), np.stack([R.permutation(16)[:4] for _ in range(2)])
                                                   .reshape(1, 2, 2, 2)), {}),
    ("RNNCell-relu", lambda ns: ns.RNNCell(3, 4, nonlinearity="relu"), (x(2, 3), x(2, 4)), {}),
    ("LSTMCell-unbatched", lambda ns: ns.LSTMCell(3, 4, bias=False), (x(3),), {}),
    ("GRUCell", lambda ns: ns.GRUCell(3, 4), (x(2, 3), x(2, 4)), {}),
    ("PairwiseDistance", lambda ns: ns.PairwiseDistance(3.0, keepdim=True), (x(4, 3), x(4, 3)), {}),
    ("LSTM-proj", lambda ns: ns.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2), (x(5, 2, 3),), {}),
    ("MultiheadAttention", lambda ns: ns.MultiheadAttention(4, 2, batch_first=True), (x(2, 3, 4), x(2, 5, 4),
                                                                                       x(2, 5, 4)),
     {"key_padding_mask": np.array([[False] * 4 + [True], [False] * 5])}),
    ("MultiheadAttention-kvdim", lambda ns: ns.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True),
     (x(3, 2, 4), x(5, 2, 3), x(5, 2, 2)), {"attn_mask": np.triu(np.ones((3, 5), bool), 1),
                                            "average_attn_weights": False}),
    ("TransformerEncoderLayer", lambda ns: ns.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True),
     (x(2, 3, 4),), {"src_mask": np.triu(np.ones((3, 3), bool), 1), "is_causal": True}),
    ("TransformerEncoderLayer-norm-first", lambda ns: ns.TransformerEncoderLayer(4, 2, 8, dropout=0.0,
                                                                                 activation="gelu", norm_first=True),
     (x(3, 2, 4),), {}),
    ("TransformerDecoderLayer", lambda ns: ns.TransformerDecoderLayer(4, 2, 8, dropout=0.0, batch_first=True),
     (x(2, 3, 4), x(2, 5, 4)), {"tgt_mask": np.triu(np.ones((3, 3), bool), 1), "tgt_is_causal": True,
                                "memory_key_padding_mask": np.array([[False] * 4 + [True], [False] * 5])}),
    ("TransformerDecoderLayer-norm-first", lambda ns: ns.TransformerDecoderLayer(4, 2, 8, dropout=0.0,
                                                                                 activation="gelu", norm_first=True),
     (x(3, 2, 4), x(5, 2, 4)), {"memory_mask": np.triu(np.ones((3, 5), bool), 2)}),
    ("TransformerEncoder", lambda ns: ns.TransformerEncoder(ns.TransformerEncoderLayer(4, 2, 8, dropout=0.0), 2,
                                                            ns.LayerNorm(4), enable_nested_tensor=False),
     (x(3, 2, 4),), {"mask": np.triu(np.full((3, 3), -np.inf), 1)}),  # a causal float mask, no is_causal hint
    ("Transformer", lambda ns: ns.Transformer(4, 2, 1, 2, 8, dropout=0.0, batch_first=True),
     (x(2, 5, 4), x(2, 3, 4)), {"tgt_mask": np.triu(np.full((3, 3), -np.inf), 1),
                                "src_key_padding_mask": np.array([[False] * 3 + [True] * 2, [False] * 5])}),
]
ACTIVATIONS = [
    ("ReLU", lambda ns: ns.ReLU()), ("ReLU6", lambda ns: ns.ReLU6()), ("LeakyReLU", lambda ns: ns.LeakyReLU(0.2)),
    ("ELU", lambda ns: ns.ELU(alpha=0.5)), ("GELU", lambda ns: ns.GELU()),
    ("GELU-tanh", lambda ns: ns.GELU(approximate="tanh")), ("SiLU", lambda ns: ns.SiLU()),
    ("Softplus", lambda ns: ns.Softplus(beta=2.0, threshold=3.0)), ("Tanh", lambda ns: ns.Tanh()),
    ("Sigmoid", lambda ns: ns.Sigmoid()), ("Hardtanh", lambda ns: ns.Hardtanh(-0.5, 1.5)),
    ("Softmax", lambda ns: ns.Softmax(dim=1)), ("LogSoftmax", lambda ns: ns.LogSoftmax(dim=0)),
    ("SELU", lambda ns: ns.SELU()), ("CELU", lambda ns: ns.CELU(0.7)), ("Mish", lambda ns: ns.Mish()),
    ("Hardswish", lambda ns: ns.Hardswish()), ("Hardsigmoid", lambda ns: ns.Hardsigmoid()),
    ("LogSigmoid", lambda ns: ns.LogSigmoid()), ("Softsign", lambda ns: ns.Softsign()),
    ("GLU", lambda ns: ns.GLU()), ("Threshold", lambda ns: ns.Threshold(0.1, 20.0)),
    ("Hardshrink", lambda ns: ns.Hardshrink(0.3)), ("Softshrink", lambda ns: ns.Softshrink(0.7)),
    ("RReLU-eval", lambda ns: ns.RReLU(0.1, 0.3).eval()), ("PReLU", lambda ns: ns.PReLU(4, 0.1)),
]
CASES += [(name, make, (x(3, 4) * 3,), {}) for name, make in ACTIVATIONS]


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _xt_value(a, grad):
    t = xt.tensor(a)
    return t.requires_grad_() if grad and t.is_floating_point() else t


def _torch_value(a, grad):
    t = torch.tensor(a)
    return t.requires_grad_() if grad and t.is_floating_point() else t


def _run(module, inputs, kwargs, value):
    args = [value(a, True) for a in inputs]
    kw = {k: value(v, False) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return args, _flat(module(*args, **kw))


@pytest.mark.parametrize("name, make, inputs, kwargs", CASES, ids=[c[0] for c in CASES])
def test_layer_matches_torch(backend, name, make, inputs, kwargs):
    theirs = make(torch.nn).double()
    ours = make(nn).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: xt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    t_args, t_out = _run(theirs, inputs, kwargs, _torch_value)
    args, out = _run(ours, inputs, kwargs, _xt_value)
    assert len(out) == len(t_out)
    cotangents = [R.standard_normal(tuple(t.shape)) for t in t_out]
    for o, t in zip(out, t_out):
        assert o.backend == backend and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
    sum((o * xt.tensor(c)).sum() for o, c, t in zip(out, cotangents, t_out) if t.requires_grad).backward()
    sum((t * torch.tensor(c)).sum() for c, t in zip(cotangents, t_out) if t.requires_grad).backward()
    # PyTorch's CELU and Hardsigmoid backwards use a float32 constant (1/alpha, 1/6) on float64 too
    rtol = 1e-6 if name in ("CELU", "Hardsigmoid") else 1e-9
    for a, t in zip(args + list(ours.parameters()), t_args + list(theirs.parameters())):
        if t.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-12)
    for (n, b), (_, tb) in zip(ours.named_buffers(), theirs.named_buffers()):  # running statistics
        np.testing.assert_allclose(b.numpy(), tb.numpy(), rtol=1e-10, err_msg=n)


def test_batch_norm_eval_uses_running_statistics(backend):
    ours, theirs = nn.BatchNorm2d(2).double(), torch.nn.BatchNorm2d(2).double()
    data = x(3, 2, 2, 2)
    for _ in range(2):
        ours(xt.tensor(data))
        theirs(torch.tensor(data))
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(xt.tensor(data + 1)).detach().numpy(), theirs(torch.tensor(data + 1)).detach().numpy(),
                               rtol=1e-10)
    assert int(ours.num_batches_tracked) == 2


def test_default_dtype_layers_run_in_float32(backend):
    out = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4, 3))(xt.randn(4, 1, 4, 3))
    assert out.dtype is xt.float32 and tuple(out.shape) == (4, 3)


def test_dropout_zeroes_and_rescales_in_training(backend):
    xt.manual_seed(0)
    out = nn.Dropout(0.25)(xt.ones(2000))
    values = out.numpy()
    assert np.all((values == 0) | np.isclose(values, 1 / 0.75))
    assert 0.2 < (values == 0).mean() < 0.3


def _error(make, *inputs):
    with pytest.raises(Exception) as info:
        make(*inputs)
    return type(info.value), str(info.value)


WRONG_INPUTS = [
    ("Linear", lambda ns: ns.Linear(3, 4), (2, 5)),
    ("Conv2d-channels", lambda ns: ns.Conv2d(3, 4, 3), (1, 2, 5, 5)),
    ("Conv2d-rank", lambda ns: ns.Conv2d(3, 4, 3), (5, 5)),
    ("Conv2d-small", lambda ns: ns.Conv2d(2, 4, 3), (1, 2, 2, 2)),
    ("Conv1d-rank", lambda ns: ns.Conv1d(4, 4, 3), (1, 4, 5, 5)),
    ("MaxPool2d-small", lambda ns: ns.MaxPool2d(3), (1, 4, 2, 2)),
    ("BatchNorm2d-rank", lambda ns: ns.BatchNorm2d(3), (2, 3, 4)),
    ("BatchNorm1d-features", lambda ns: ns.BatchNorm1d(3), (2, 4)),
    ("BatchNorm1d-one-value", lambda ns: ns.BatchNorm1d(3), (1, 3)),
    ("LayerNorm", lambda ns: ns.LayerNorm(4), (3, 5)),
    ("GroupNorm", lambda ns: ns.GroupNorm(2, 6), (2, 5, 4)),
    ("LSTM-features", lambda ns: ns.LSTM(3, 4), (2, 2, 5)),
    ("RNN-rank", lambda ns: ns.RNN(3, 4), (2, 2, 2, 3)),
    ("GRUCell-rank", lambda ns: ns.GRUCell(3, 4), (2, 2, 3)),
    ("LSTMCell-features", lambda ns: ns.LSTMCell(3, 4), (2, 5)),
]


@pytest.mark.parametrize("name, make, shape", WRONG_INPUTS, ids=[c[0] for c in WRONG_INPUTS])
def test_wrong_input_shape_error_matches_torch(name, make, shape):
    data = np.ones(shape, np.float32)
    kind, message = _error(make(nn), xt.tensor(data))
    t_kind, t_message = _error(make(torch.nn), torch.tensor(data))
    assert kind is t_kind
    assert message == t_message.replace("torch.Size", "xtensor.Size")


def test_wrong_hidden_state_errors_match_torch():
    data = np.ones((2, 2, 3), np.float32)
    for make, hidden in [(lambda ns: ns.LSTM(3, 4), ((1, 3, 4), (1, 3, 4))), (lambda ns: ns.GRU(3, 4), (2, 2, 4)),
                         (lambda ns: ns.RNN(3, 4), (2, 4)), (lambda ns: ns.LSTM(3, 4, proj_size=2), ((1, 2, 4),
                                                                                                  (1, 2, 4))),
                         (lambda ns: ns.LSTM(3, 4, proj_size=2), ((1, 2, 2), (1, 2, 2)))]:
        h = tuple(np.ones(s, np.float32) for s in hidden) if isinstance(hidden[0], tuple) else np.ones(hidden, np.float32)
        as_xt = tuple(map(xt.tensor, h)) if isinstance(h, tuple) else xt.tensor(h)
        as_torch = tuple(map(torch.tensor, h)) if isinstance(h, tuple) else torch.tensor(h)
        assert _error(make(nn), xt.tensor(data), as_xt) == _error(make(torch.nn), torch.tensor(data), as_torch)


def test_embedding_index_out_of_range_raises_as_torch():
    kind, message = _error(nn.Embedding(3, 2), xt.tensor([1, 5]))
    assert (kind, message) == _error(torch.nn.Embedding(3, 2), torch.tensor([1, 5]))


def test_multihead_attention_head_count_must_divide():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


@pytest.mark.parametrize("make", [lambda ns: ns.GRU(3, 4, proj_size=2), lambda ns: ns.LSTM(3, 4, proj_size=-1),
                                  lambda ns: ns.LSTM(3, 4, proj_size=4)], ids=["GRU", "negative", "too-large"])
def test_bad_proj_size_errors_match_torch(make):
    assert _error(make, nn) == _error(make, torch.nn)


def test_lstm_proj_size_takes_projected_initial_states_as_torch(backend):
    theirs = torch.nn.LSTM(3, 4, bias=False, batch_first=True, proj_size=3).double()
    ours = nn.LSTM(3, 4, bias=False, batch_first=True, proj_size=3).double()
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight_ih_l0", "weight_hh_l0", "weight_hr_l0"]
    ours.load_state_dict({k: xt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    data, h0, c0 = x(2, 5, 3), x(1, 2, 3), x(1, 2, 4)
    out, (h, c) = ours(xt.tensor(data), (xt.tensor(h0), xt.tensor(c0)))
    t_out, (t_h, t_c) = theirs(torch.tensor(data), (torch.tensor(h0), torch.tensor(c0)))
    for o, t in ((out, t_out), (h, t_h), (c, t_c)):
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert [len(w) for w in ours.all_weights] == [len(w) for w in theirs.all_weights] == [3]


def test_square_subsequent_mask_matches_torch(backend):
    ours = nn.Transformer.generate_square_subsequent_mask(4, dtype=xt.float64)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    assert ours.dtype is xt.float64 and ours.backend == backend
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("src, tgt", [((5, 2, 4), (3, 3, 4)), ((5, 2, 4), (3, 2, 6))], ids=["batch", "d_model"])
def test_transformer_shape_errors_match_torch(src, tgt):
    def call(ns):
        model = ns.Transformer(4, 2, 1, 1, 8, dropout=0.0)
        lib = xt if ns is nn else torch
        return model(lib.zeros(*src), lib.zeros(*tgt))
    assert _error(call, nn) == _error(call, torch.nn)


def test_unknown_transformer_activation_errors_as_torch():
    make = lambda ns: ns.TransformerDecoderLayer(4, 2, activation="tanh")  # noqa: E731
    assert _error(make, nn) == _error(make, torch.nn)


def _mha_arguments(lib, separate):
    """multi_head_attention_forward's arguments for E=4, 2 heads, L=3, S=5, N=2 (head_dim 2), as ``lib`` tensors."""
    r = np.random.default_rng(5)
    t = lambda *shape: lib.tensor(r.standard_normal(shape), requires_grad=True)  # noqa: E731
    inputs = [t(3, 2, 4), t(5, 2, 4), t(5, 2, 4)]
    weights = dict(in_proj_weight=None if separate else t(12, 4), in_proj_bias=t(12), out_proj_weight=t(4, 4),
                   out_proj_bias=t(4))
    if separate:
        weights.update(use_separate_proj_weight=True, q_proj_weight=t(4, 4), k_proj_weight=t(4, 4),
                       v_proj_weight=t(4, 4), static_k=t(4, 6, 2), static_v=t(4, 6, 2))
    return inputs, weights


@pytest.mark.parametrize("separate", [False, True], ids=["packed", "separate-static-kv"])
def test_multi_head_attention_forward_matches_torch(backend, separate):
    results = []
    for lib, F in ((xt, nn.functional), (torch, torch.nn.functional)):
        inputs, weights = _mha_arguments(lib, separate)
        masks = ({"key_padding_mask": lib.tensor(np.arange(6) > [[4], [5]])} if separate else  # (N, static S)
                 {"attn_mask": lib.tensor(np.triu(np.ones((3, 5), bool), 2))})
        out, attention = F.multi_head_attention_forward(*inputs, 4, 2, bias_k=None, bias_v=None, add_zero_attn=False,
                                                        dropout_p=0.0, average_attn_weights=False, **masks, **weights)
        (out.sum() + (attention * attention).sum()).backward()
        leaves = inputs + [w for w in weights.values() if hasattr(w, "grad")]
        results.append([out, attention] + [leaf.grad for leaf in leaves])
    for ours, theirs in zip(*results):
        if theirs is None:
            assert ours is None
        else:
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_multi_head_attention_forward_refuses_bias_with_static_keys_as_torch():
    def call(lib, F):
        inputs, weights = _mha_arguments(lib, True)
        bias = lib.zeros(1, 1, 4)
        return F.multi_head_attention_forward(*inputs, 4, 2, bias_k=bias, bias_v=bias, add_zero_attn=False,
                                              dropout_p=0.0, **weights)
    assert _error(call, xt, nn.functional) == _error(call, torch, torch.nn.functional)


@pytest.mark.parametrize("shape", [(2, 3), (5, 2, 3), (3,)])
def test_linear_with_bias_graph_is_named_as_torch(shape):
    """With a bias, one ``addmm`` (AddmmBackward0 over the bias, the input and ``weight.t()``; other ranks viewed as a
    batch of vectors and back), as PyTorch builds it; values and gradients agree."""
    def run(lib):
        layer = lib.nn.Linear(3, 4)
        with lib.no_grad():
            for p in layer.parameters():
                p.copy_(lib.tensor(np.linspace(-1, 1, p.numel(), dtype=np.float32).reshape(tuple(p.shape))))
        x = lib.tensor(np.linspace(0, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape), requires_grad=True)
        out = layer(x)
        fn = out.grad_fn
        names = [fn.name()] + [None if f is None else f.name().replace("torch::autograd::", "")
                               for f, _ in fn.next_functions]
        (out * out).sum().backward()
        return names, out.detach().numpy(), x.grad.numpy(), layer.weight.grad.numpy()
    ours, theirs = run(xt), run(torch)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
