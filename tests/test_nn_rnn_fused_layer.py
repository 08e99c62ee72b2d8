"""``nn.LSTM`` runs each layer and direction as one node (MkldnnRnnLayerBackward0, PyTorch's CPU LSTM node): its values
are the step-by-step path's to the bit on every backend and its gradients that path's to rounding; both are PyTorch's,
to first and second order; its graph is named as PyTorch's; packed input keeps the step-by-step path. (GRU and RNN:
test_nn_rnn_layer_nodes.py; on jax, the LSTM's and the GRU's compiled loop here.)"""
import numpy as np
import pytest

import xtensor as xt
from xtensor import nn
from xtensor.nn.modules import rnn
from xtensor.nn.modules.rnn import _RNNBase

torch = pytest.importorskip("torch")

CONFIGS = {"plain": {}, "batch_first": {"batch_first": True}, "two_layers": {"num_layers": 2},
           "bidirectional": {"bidirectional": True}, "no_bias": {"bias": False}, "proj": {"proj_size": 2},
           "deep_bidirectional_proj": {"num_layers": 2, "bidirectional": True, "proj_size": 3}}


def _lstm_and_inputs(lib, kwargs, dtype, with_state, weights=None):
    """An LSTM(3, 5) of ``lib`` (xtensor or torch) over a (time 4, batch 2) input, with (h0, c0) when ``with_state``;
    ``weights``: a state dict to load (numpy arrays)."""
    module = lib.nn.LSTM(3, 5, **kwargs).to(getattr(lib, dtype))
    if weights is not None:
        module.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
    r = np.random.default_rng(1)
    data = r.standard_normal((2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3))
    states = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    hx = (r.standard_normal((states, 2, kwargs.get("proj_size") or 5)), r.standard_normal((states, 2, 5)))
    x = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
    hx = tuple(lib.tensor(h, dtype=getattr(lib, dtype), requires_grad=True) for h in hx) if with_state else None
    return module, x, hx


def _values_and_grads(module, x, hx):
    out, (h, c) = module(x, hx)
    ((out * out).sum() + (h * 2).sum() + (c * c).sum()).backward()
    return [out, h, c, x.grad] + ([] if hx is None else [s.grad for s in hx]) + [p.grad for p in module.parameters()]


def _weights(kwargs, dtype):
    xt.manual_seed(0)
    return {k: v.numpy() for k, v in nn.LSTM(3, 5, **kwargs).to(getattr(xt, dtype)).state_dict().items()}


@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("config", CONFIGS)
def test_lstm_values_and_gradients_match_torch(config, with_state):
    kwargs, weights = CONFIGS[config], _weights(CONFIGS[config], "float64")
    ours = _values_and_grads(*_lstm_and_inputs(xt, kwargs, "float64", with_state, weights))
    theirs = _values_and_grads(*_lstm_and_inputs(torch, kwargs, "float64", with_state, weights))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_dropout_between_layers_feeds_the_next_layer_node():
    """With ``dropout=1`` the second layer sees zeros in training (deterministic, so comparable with torch's)."""
    kwargs = {"num_layers": 2, "dropout": 1.0}
    weights = _weights(kwargs, "float64")
    ours = _values_and_grads(*_lstm_and_inputs(xt, kwargs, "float64", True, weights))
    theirs = _values_and_grads(*_lstm_and_inputs(torch, kwargs, "float64", True, weights))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_lstm_float32_matches_torch():
    kwargs = CONFIGS["bidirectional"]
    weights = _weights(kwargs, "float32")
    ours = _values_and_grads(*_lstm_and_inputs(xt, kwargs, "float32", True, weights))
    theirs = _values_and_grads(*_lstm_and_inputs(torch, kwargs, "float32", True, weights))
    for a, b in zip(ours, theirs):
        assert a.dtype == xt.float32
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("config, dtype", [("deep_bidirectional_proj", "float32"), ("batch_first", "float64")])
def test_lstm_layer_node_is_the_step_by_step_path(backend, monkeypatch, config, dtype):
    """Values bitwise (the same operations in the same order); gradients to rounding (the weights' gradients are one
    product over all steps instead of one per step)."""
    kwargs = CONFIGS[config]
    weights = _weights(kwargs, dtype)
    fused = _values_and_grads(*_lstm_and_inputs(xt, kwargs, dtype, True, weights))
    assert fused[0].grad_fn.name() in ("MkldnnRnnLayerBackward0", "CatBackward0", "TransposeBackward0")
    monkeypatch.setattr(nn.LSTM, "_layer", _RNNBase._steps)
    steps = _values_and_grads(*_lstm_and_inputs(xt, kwargs, dtype, True, weights))
    for a, b in zip(fused[:3], steps[:3]):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(fused[3:], steps[3:]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tolerance, atol=tolerance)


def _final_state_grads(module, x, hx):
    """The final states alone get gradients (the output's is None): the states' gradients carried back from the end."""
    _, (h, c) = module(x, hx)
    (h.sum() + (c * c).sum()).backward()
    return [h, c, x.grad] + [s.grad for s in hx] + [p.grad for p in module.parameters()]


@pytest.mark.parametrize("loss", [_values_and_grads, _final_state_grads], ids=["all_outputs", "final_states"])
@pytest.mark.parametrize("config, dtype", [("bidirectional", "float32"), ("two_layers", "float64"),
                                           ("no_bias", "float32"), ("plain", "float16")])
def test_numpy_kernels_are_the_generic_layer(monkeypatch, config, dtype, loss):
    """On numpy (float arrays, no projection) the layer runs its own kernels: values bitwise the generic forward's,
    gradients the generic VJP's to rounding."""
    kwargs = CONFIGS[config]
    weights = _weights(kwargs, dtype)
    calls = []
    kernel = rnn._lstm_numpy_vjp
    monkeypatch.setattr(rnn, "_lstm_numpy_vjp", lambda *args: calls.append(1) or kernel(*args))
    kernels = loss(*_lstm_and_inputs(xt, kwargs, dtype, True, weights))
    assert calls  # (the kernels ran)
    monkeypatch.setattr(rnn, "_numpy_kernel", lambda x: False)
    generic = loss(*_lstm_and_inputs(xt, kwargs, dtype, True, weights))
    values = 3 if loss is _values_and_grads else 2
    for a, b in zip(kernels[:values], generic[:values]):
        assert a.dtype == b.dtype == getattr(xt, dtype)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    tolerance = {"float16": 1e-2, "float32": 1e-5, "float64": 1e-12}[dtype]
    for a, b in zip(kernels[values:], generic[values:]):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_kernels_are_the_generic_layer_on_one_unbatched_sequence(monkeypatch, dtype):
    """Batch 1 (an unbatched sequence), where BLAS may take a product's vector path: the recurrent products keep
    the generic forward's bits."""
    module = nn.LSTM(3, 5).to(getattr(xt, dtype))
    data = np.random.default_rng(4).standard_normal((6, 3))
    calls, kernel = [], rnn._lstm_numpy_fwd
    monkeypatch.setattr(rnn, "_lstm_numpy_fwd", lambda *args: calls.append(1) or kernel(*args))
    kernels, _ = module(xt.tensor(data, dtype=getattr(xt, dtype)))
    assert calls  # (the kernel ran)
    monkeypatch.setattr(rnn, "_numpy_kernel", lambda x: False)
    generic, _ = module(xt.tensor(data, dtype=getattr(xt, dtype)))
    np.testing.assert_array_equal(kernels.detach().numpy(), generic.detach().numpy())


def _graph(lib, kwargs, with_state):
    """``out.grad_fn``'s and ``h_n.grad_fn``'s names and their next_functions' (PyTorch's leaf node spelled as ours)."""
    module, x, hx = _lstm_and_inputs(lib, kwargs, "float32", with_state)
    out, (h, c) = module(x, hx)

    def named(fn):
        return [fn.name()] + [None if f is None else (f.name().replace("torch::autograd::", ""), nr)
                              for f, nr in fn.next_functions]
    return named(out.grad_fn), named(h.grad_fn), named(c.grad_fn)


@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("config", ["plain", "batch_first", "two_layers", "bidirectional", "no_bias"])
def test_lstm_graph_is_named_as_torch(config, with_state):
    """PyTorch's CPU LSTM (float32, no projection, unpacked): one MkldnnRnnLayerBackward0 per layer and direction over
    (input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx), the final states stacked from its outputs 1 and 2."""
    assert _graph(xt, CONFIGS[config], with_state) == _graph(torch, CONFIGS[config], with_state)


def test_lstm_with_projection_is_one_node_with_weight_hr_as_last_input():
    """(PyTorch records the step-by-step ops here: its oneDNN layer has no projection; this layer takes weight_hr.)"""
    module = nn.LSTM(3, 5, proj_size=2)
    out, _ = module(xt.randn(4, 2, 3))
    fn = out.grad_fn
    assert fn.name() == "MkldnnRnnLayerBackward0"
    assert [f.variable for f, _ in fn.next_functions if f is not None] == [
        module.weight_ih_l0, module.weight_hh_l0, module.bias_ih_l0, module.bias_hh_l0, module.weight_hr_l0]


def test_packed_lstm_keeps_the_step_by_step_path():
    module = nn.LSTM(3, 5)
    packed = nn.utils.rnn.pack_padded_sequence(xt.randn(4, 2, 3), [4, 3])
    out, (h, c) = module(packed)
    assert out.data.grad_fn.name() == "CatBackward0"
    assert {f.name() for f, _ in out.data.grad_fn.next_functions} == {"ThnnFusedLstmCellBackward0"}


def _layer_nodes(fn, found=None):
    """Every MkldnnRnnLayerBackward0 node the graph from ``fn`` reaches."""
    found = [] if found is None else found
    if fn is not None and fn not in found:
        if fn.name() == "MkldnnRnnLayerBackward0":
            found.append(fn)
        for child, _ in fn.next_functions:
            _layer_nodes(child, found)
    return found


def test_node_hook_runs_the_vjp_on_tensors_with_the_raw_gradients():
    """A hook on the node makes the engine run its VJP on Tensors (the create_graph code) instead of raw arrays."""
    kwargs, weights = CONFIGS["deep_bidirectional_proj"], _weights(CONFIGS["deep_bidirectional_proj"], "float64")
    raw = _values_and_grads(*_lstm_and_inputs(xt, kwargs, "float64", True, weights))
    module, x, hx = _lstm_and_inputs(xt, kwargs, "float64", True, weights)
    out, (h, c) = module(x, hx)
    seen = []
    nodes = _layer_nodes(out.grad_fn)
    for node in nodes:
        node.register_hook(lambda grad_inputs, grad_outputs: seen.append(type(grad_inputs[0])))
    ((out * out).sum() + (h * 2).sum() + (c * c).sum()).backward()
    assert len(nodes) == 4 and seen == [xt.Tensor] * 4
    on_tensors = [out, h, c, x.grad, *(s.grad for s in hx), *(p.grad for p in module.parameters())]
    for a, b in zip(raw, on_tensors):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_input_modified_in_place_after_the_forward_is_refused():
    module = nn.LSTM(3, 5)
    x = xt.randn(4, 2, 3, requires_grad=True)
    seq = x * 1
    out, _ = module(seq)
    seq.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("config", ["deep_bidirectional_proj", "batch_first"])
def test_lstm_second_order_gradients_match_torch(config):
    """Under create_graph the layer's VJP runs on xtensor ops, its workspace read as outputs of the node: the gradient
    of a gradient flows back through the node again, with gradients for its workspace."""
    kwargs, weights = CONFIGS[config], _weights(CONFIGS[config], "float64")
    grads = []
    for lib in (xt, torch):
        module, x, hx = _lstm_and_inputs(lib, kwargs, "float64", True, weights)
        out, (h, c) = module(x, hx)
        wrt = [x, *hx, *module.parameters()]
        first = lib.autograd.grad((out * out).sum() + (c * c).sum() + h.sum(), wrt, create_graph=True)
        grads.append(lib.autograd.grad(sum((g * g).sum() for g in first), wrt))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-12)


def _error(lib, make, call):
    module = make(lib)
    try:
        call(lib, module)
    except Exception as e:  # noqa: BLE001 (the error itself is compared)
        return type(e), str(e)
    return None


@pytest.mark.parametrize("make, call", [
    (lambda lib: lib.nn.GRU(3, 4), lambda lib, m: m(lib.randn(0, 2, 3))),
    (lambda lib: lib.nn.LSTM(3, 4), lambda lib, m: m(lib.randn(0, 3))),
    (lambda lib: lib.nn.GRU(3, 4).double(),
     lambda lib, m: m(lib.randn(5, 2, 3, dtype=lib.float64), lib.zeros(1, 2, 4))),
    (lambda lib: lib.nn.LSTM(3, 4, proj_size=2).double(),
     lambda lib, m: m(lib.randn(5, 2, 3, dtype=lib.float64), (lib.zeros(1, 2, 2), lib.zeros(1, 2, 4)))),
], ids=["empty-sequence", "empty-unbatched", "gru-state-dtype", "lstm-state-dtype"])
def test_bad_sequences_and_states_raise_torchs_error(make, call):
    """(An LSTM's layer node would compute in the promoted dtype: the state's dtype is checked up front.)"""
    theirs = _error(torch, make, call)
    assert theirs is not None and _error(xt, make, call) == theirs


def _outputs_and_grads(module, x, hx):
    """A recurrent layer's output, final states (one or two) and the gradients of a loss of them."""
    out, final = module(x, hx if len(hx) > 1 else hx[0])
    final = final if isinstance(final, tuple) else (final,)
    ((out * out).sum() + sum((f * f).sum() for f in final)).backward()
    return [out, *final, x.grad, *(h.grad for h in hx), *(p.grad for p in module.parameters())]


@pytest.mark.parametrize("kind, kwargs, states", [
    ("LSTM", {"proj_size": 2, "input_size": 7, "hidden_size": 6}, [(1, 3, 2), (1, 3, 6)]),
    ("GRU", {"input_size": 7, "hidden_size": 4}, [(1, 3, 4)])])
def test_jax_repeated_layer_is_one_compiled_loop_with_the_eager_results(monkeypatch, kind, kwargs, states):
    """On jax, from the second call with the same shapes on, the layer's forward and VJP each run as one compiled
    program whose time loop is one ``lax.scan``; its results are the first (eager) call's, to rounding."""
    pytest.importorskip("jax")
    adapter = type(xt.get_backend("jax"))
    scans, scan = [], adapter.scan
    monkeypatch.setattr(adapter, "scan", lambda self, *args, **kwargs: scans.append(1) or scan(self, *args, **kwargs))
    # (shapes of this test alone: the repeat traces afresh)
    xt.manual_seed(0)
    weights = {k: v.numpy() for k, v in getattr(nn, kind)(**kwargs).double().state_dict().items()}
    data = np.random.default_rng(2).standard_normal((5, 3, 7))
    runs = []
    with xt.use_backend("jax"):
        for _ in range(3):
            module = getattr(nn, kind)(**kwargs).double()
            module.load_state_dict({k: xt.tensor(v) for k, v in weights.items()})
            hx = tuple(xt.zeros(*shape, dtype=xt.float64, requires_grad=True) for shape in states)
            runs.append(_outputs_and_grads(module, xt.tensor(data, requires_grad=True), hx))
    assert len(scans) == 2  # traced once each: the forward and the VJP
    for eager, compiled in zip(runs[0], runs[2]):
        np.testing.assert_allclose(compiled.detach().numpy(), eager.detach().numpy(), rtol=1e-12, atol=1e-14)


def _under_cpu_autocast(lib, kind):
    """A layer's output, final state(s) and input gradient run in a CPU autocast region, from fixed weights."""
    module = getattr(lib.nn, kind)(4, 3)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(np.linspace(-0.5, 0.5, p.numel()).reshape(tuple(p.shape)), dtype=lib.float32))
    x = lib.tensor(np.linspace(-1, 1, 40).reshape(5, 2, 4), dtype=lib.float32, requires_grad=True)
    with lib.autocast("cpu"):
        out, state = module(x)
    out.float().sum().backward()
    return [out, *(state if isinstance(state, tuple) else (state,)), x.grad]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_cpu_autocast_gives_torchs_dtypes_and_values(kind):
    """PyTorch's CPU autocast runs its LSTM layer in bfloat16 (its GRU step by step, in float32): xtensor's too, to
    bfloat16 rounding (an ulp is 2**-7 relative: the two libraries round their bfloat16 intermediates in other
    places)."""
    ours, theirs = _under_cpu_autocast(xt, kind), _under_cpu_autocast(torch, kind)
    assert [str(t.dtype).split(".")[-1] for t in ours] == [str(t.dtype).split(".")[-1] for t in theirs]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().float().numpy(), b.detach().float().numpy(), rtol=1e-2, atol=4e-3)
