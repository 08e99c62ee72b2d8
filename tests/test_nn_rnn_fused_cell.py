"""The LSTM's fused cell (one ThnnFusedLstmCellBackward0 node per step in place of PyTorch's ten CPU ops): its values
and gradients are those of the ten ops -- bitwise for first-order gradients, on every backend -- and its second-order
gradients are PyTorch's. ``nn.LSTM`` runs it in its step-by-step path (packed input; tests/test_nn_rnn_fused_layer.py
has the whole-layer node it takes otherwise), which these tests take for padded input too."""
import numpy as np
import pytest

import xtensor as xt
from xtensor import nn
from xtensor.nn.modules.rnn import _RNNBase

torch = pytest.importorskip("torch")


def _ten_op_cell(projected, state, w_hh_t):
    """PyTorch's CPU LSTM cell, op by op: the specification of the fused node."""
    h, c = state
    i, f, g, o = xt.addmm(projected, h, w_hh_t).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _values_and_grads(module, x, cotangent):
    out, (h, c) = module(x)
    assert "MkldnnRnnLayerBackward0" not in {fn.name() for fn, _ in out.grad_fn.next_functions}  # step by step
    (out * cotangent).sum().backward()  # the final states get no gradient, as in a language model
    return [out, h, c, x.grad] + [p.grad for p in module.parameters()]


@pytest.fixture
def step_by_step(monkeypatch):
    """``nn.LSTM`` over padded input through its step-by-step path (one cell node per step)."""
    monkeypatch.setattr(nn.LSTM, "_layer", _RNNBase._layer)


def test_lstm_values_and_gradients_are_the_ten_op_cells_bitwise(backend, monkeypatch, step_by_step):
    r = np.random.default_rng(0)
    data, cotangent = r.standard_normal((4, 2, 3)), r.standard_normal((4, 2, 10))
    results = []
    for cell in (None, lambda self, projected, state, w_hh_t, b_hh: _ten_op_cell(projected, state, w_hh_t)):
        if cell is not None:
            monkeypatch.setattr(nn.LSTM, "_cell", cell)
        xt.manual_seed(0)
        module = nn.LSTM(3, 5, bidirectional=True)
        x = xt.tensor(data, dtype=xt.float32, requires_grad=True)
        results.append([t.detach().numpy() for t in _values_and_grads(module, x, xt.tensor(cotangent, dtype=x.dtype))])
    for fused, ten_ops in zip(*results):
        np.testing.assert_array_equal(fused, ten_ops)


def test_lstm_step_is_one_fused_node_after_the_recurrent_product():
    cell = nn.LSTMCell(3, 4)
    h, c = cell(xt.randn(2, 3))
    assert h.grad_fn is c.grad_fn and h.grad_fn.name() == "ThnnFusedLstmCellBackward0"
    # the gates' product, and the zero initial state (no gradient)
    assert [None if fn is None else fn.name() for fn, _ in h.grad_fn.next_functions] == ["AddmmBackward0", None]


def test_lstm_second_order_gradients_match_torch(step_by_step):
    theirs = torch.nn.LSTM(2, 3, num_layers=2).double()
    ours = nn.LSTM(2, 3, num_layers=2).double()
    ours.load_state_dict({k: xt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    data = np.random.default_rng(1).standard_normal((4, 2, 2))
    grads = []
    for lib, module in ((xt, ours), (torch, theirs)):
        x = lib.tensor(data, requires_grad=True)
        out, (h, c) = module(x)
        params = [x, *module.parameters()]
        first = lib.autograd.grad((out * out).sum() + c.sum(), params, create_graph=True)
        grads.append(lib.autograd.grad(sum((g * g).sum() for g in first), params))
    for ours_grad, torch_grad in zip(*grads):
        np.testing.assert_allclose(ours_grad.numpy(), torch_grad.numpy(), rtol=1e-9, atol=1e-12)
