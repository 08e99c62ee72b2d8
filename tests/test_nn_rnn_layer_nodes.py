"""``nn.GRU`` and ``nn.RNN`` run each layer and direction over a padded batch as one node, as ``nn.LSTM`` does
(GruLayerBackward, RnnTanhLayerBackward, RnnReluLayerBackward: xtensor's own names, PyTorch's CPU GRU and RNN record
their step-by-step ops): values are the step-by-step path's to the bit on every backend, gradients that path's to
rounding; both are PyTorch's, to first and second order; packed input keeps the step-by-step path. (jax's compiled
loop: test_nn_rnn_fused_layer.py.)"""
import numpy as np
import pytest

import xtensor as xt
from xtensor import nn
from xtensor.nn.modules.rnn import _RNNBase

torch = pytest.importorskip("torch")

CONFIGS = {"gru": ("GRU", {}), "gru_batch_first": ("GRU", {"batch_first": True}),
           "gru_deep_bidirectional": ("GRU", {"num_layers": 2, "bidirectional": True}),
           "gru_no_bias": ("GRU", {"bias": False}), "rnn_tanh_bidirectional": ("RNN", {"bidirectional": True}),
           "rnn_relu_deep_no_bias": ("RNN", {"nonlinearity": "relu", "num_layers": 2, "bias": False})}


def _weights(config, dtype):
    kind, kwargs = CONFIGS[config]
    xt.manual_seed(0)
    return {k: v.numpy() for k, v in getattr(nn, kind)(3, 5, **kwargs).to(getattr(xt, dtype)).state_dict().items()}


def _layer_and_inputs(lib, config, dtype, weights):
    """The layer (3 -> 5) of ``config`` for ``lib`` (xtensor or torch) with ``weights``, a (time 4, batch 2) input
    and an initial state, both requiring gradients."""
    kind, kwargs = CONFIGS[config]
    module = getattr(lib.nn, kind)(3, 5, **kwargs).to(getattr(lib, dtype))
    module.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
    r = np.random.default_rng(1)
    data = r.standard_normal((2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3))
    states = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    x, h0 = (lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
             for a in (data, r.standard_normal((states, 2, 5))))
    return module, x, h0


def _values_and_grads(module, x, h0):
    out, h = module(x, h0)
    ((out * out).sum() + (h * 2).sum()).backward()
    return [out, h, x.grad, h0.grad] + [p.grad for p in module.parameters()]


def _compare(config, dtype, tolerance):
    weights = _weights(config, dtype)
    ours = _values_and_grads(*_layer_and_inputs(xt, config, dtype, weights))
    theirs = _values_and_grads(*_layer_and_inputs(torch, config, dtype, weights))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == getattr(xt, dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("config", CONFIGS)
def test_values_and_gradients_match_torch(config):
    _compare(config, "float64", 1e-11)


@pytest.mark.parametrize("config", ["gru_deep_bidirectional", "rnn_tanh_bidirectional"])
def test_float32_matches_torch(config):
    _compare(config, "float32", 2e-5)


@pytest.mark.parametrize("config, dtype", [("gru_deep_bidirectional", "float32"), ("rnn_relu_deep_no_bias", "float64")])
def test_layer_node_is_the_step_by_step_path(backend, monkeypatch, config, dtype):
    """Values bitwise (the same operations in the same order); gradients to rounding (the weights' gradients are one
    product over all steps instead of one per step, the backward's factors are grouped apart)."""
    weights = _weights(config, dtype)
    module, x, h0 = _layer_and_inputs(xt, config, dtype, weights)
    fused = _values_and_grads(module, x, h0)
    assert "LayerBackward" in fused[1].grad_fn.next_functions[0][0].name()
    kind = getattr(nn, CONFIGS[config][0])
    monkeypatch.setattr(kind, "_layer", _RNNBase._steps)
    steps = _values_and_grads(*_layer_and_inputs(xt, config, dtype, weights))
    for a, b in zip(fused[:2], steps[:2]):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(fused[2:], steps[2:]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("kind, kwargs, node", [("GRU", {}, "GruLayerBackward"),
                                                 ("RNN", {}, "RnnTanhLayerBackward"),
                                                 ("RNN", {"nonlinearity": "relu"}, "RnnReluLayerBackward")])
def test_layer_is_one_node_over_its_inputs_where_torch_records_each_step(kind, kwargs, node):
    """The node's inputs are (input, weight_ih, weight_hh, bias_ih, bias_hh, hx), the LSTM node's order; the final
    state is stacked from its output 1, as PyTorch's. PyTorch's CPU layer records a stack of per-step ops instead
    (no PyTorch node is a whole GRU or RNN layer), so the node's name is xtensor's own."""
    theirs = getattr(torch.nn, kind)(3, 5, **kwargs)(torch.randn(4, 2, 3))
    assert [t.grad_fn.name() for t in (theirs[0], theirs[1])] == ["StackBackward0", "StackBackward0"]
    module = getattr(nn, kind)(3, 5, **kwargs)
    x, h0 = xt.randn(4, 2, 3, requires_grad=True), xt.randn(1, 2, 5, requires_grad=True)
    out, h = module(x, h0)
    assert out.grad_fn.name() == node
    *leaves, (select, _) = out.grad_fn.next_functions
    assert [f.variable for f, _ in leaves] == [x, module.weight_ih_l0, module.weight_hh_l0, module.bias_ih_l0,
                                               module.bias_hh_l0]
    assert select.name() == "SelectBackward0" and select.next_functions[0][0].variable is h0  # hx[0]
    assert h.grad_fn.name() == "StackBackward0" and h.grad_fn.next_functions == ((out.grad_fn, 1),)


def test_packed_gru_keeps_the_step_by_step_path():
    packed = nn.utils.rnn.pack_padded_sequence(xt.randn(4, 2, 3), [4, 3])
    out, _ = nn.GRU(3, 5)(packed)
    assert out.data.grad_fn.name() == "CatBackward0"
    assert {f.name() for f, _ in out.data.grad_fn.next_functions} == {"AddBackward0"}


@pytest.mark.parametrize("config", ["gru_deep_bidirectional", "gru_no_bias", "rnn_relu_deep_no_bias"])
def test_second_order_gradients_match_torch(config):
    """Under create_graph the VJP runs on xtensor ops, the GRU's workspace (r, z, n, W_hn h + b_hn) read as outputs of
    the node: the gradient of a gradient flows back through the node again, with gradients for its workspace."""
    weights = _weights(config, "float64")
    grads = []
    for lib in (xt, torch):
        module, x, h0 = _layer_and_inputs(lib, config, "float64", weights)
        out, h = module(x, h0)
        wrt = [x, h0, *module.parameters()]
        first = lib.autograd.grad((out * out).sum() + (h * h).sum(), wrt, create_graph=True)
        grads.append(lib.autograd.grad(sum((g * g).sum() for g in first), wrt))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-12)


def _graph(fn, depth):
    """The node names of the graph from ``fn``, ``depth`` levels down, depth first."""
    if fn is None or depth < 0:
        return []
    return [fn.name()] + [name for child, _ in fn.next_functions for name in _graph(child, depth - 1)]


def test_gru_step_updates_the_state_as_torch():
    """The step-by-step path (packed input, ``GRUCell``) and the layer node compute ``h' = (h - n) z + n``, PyTorch's
    three ops (not ``(1 - z) n + z h``'s four)."""
    graphs = []
    for lib in (xt, torch):
        cell = lib.nn.GRUCell(3, 4)
        graphs.append(_graph(cell(lib.randn(2, 3), lib.randn(2, 4, requires_grad=True)).grad_fn, 2))
    assert graphs[0] == graphs[1] == ["AddBackward0", "MulBackward0", "SubBackward0", "SigmoidBackward0",
                                      "TanhBackward0", "AddBackward0"]


def _error(lib, call):
    try:
        call(lib)
    except Exception as e:  # noqa: BLE001 (the error itself is compared)
        return type(e), str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.RNN(3, 4).double()(lib.randn(5, 2, 3, dtype=lib.float64), lib.zeros(1, 2, 4)),
    lambda lib: lib.nn.GRU(3, 4)(lib.randn(5, 2, 3), lib.zeros(1, 3, 4)),
    lambda lib: lib.nn.RNN(3, 4, nonlinearity="relu")(lib.randn(5, 2, 2)),
], ids=["rnn-state-dtype", "gru-state-size", "rnn-input-size"])
def test_bad_input_raises_torchs_error(call):
    """(The node would compute in the promoted dtype: dtypes are checked up front, as PyTorch does.)"""
    theirs = _error(torch, call)
    assert theirs is not None and _error(xt, call) == theirs
