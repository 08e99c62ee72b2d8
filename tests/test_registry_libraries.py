"""PyTorch libraries from the registry, unchanged, with xtensor standing in for torch.

Each case builds a library's model (or calls its functions), trains it a few steps and records every loss,
every gradient and the final state. It runs twice from the same start: here on PyTorch itself (the oracle),
which also records the initial state dict, then in a fresh process where ``xtensor.install_as_torch()`` makes
the library's own ``import torch`` give xtensor and the model is loaded with PyTorch's initial state dict. The
two runs must agree to float32 tolerance. No library code is copied here: the libraries come from the ``test``
extra (pyproject.toml), at the versions these cases were written against.

Run one case's xtensor side by hand: ``python tests/test_registry_libraries.py CASE INIT.pkl OUT.pkl``.
"""
import os
import pickle
import subprocess
import sys
import traceback

import numpy as np
import pytest

CASES = {}


def case(*libraries):
    """Register a case; it is skipped where one of ``libraries`` (importable names) is not installed."""
    def register(function):
        CASES[function.__name__] = (function, libraries)
        return function
    return register


def _data(torch, *shape, classes=None, seed=0):
    """Inputs from numpy's generator, so both runs see the same numbers whatever their own RNG does."""
    rng = np.random.default_rng(seed)
    if classes:
        return torch.tensor(rng.integers(0, classes, size=shape))
    return torch.tensor(rng.standard_normal(shape).astype(np.float32))


def _numpy(tensor):
    return tensor.detach().cpu().numpy().copy()


def _train(torch, model, init, loss_of, steps=3, optimizer=None):
    """Start ``model`` from ``init`` (PyTorch's initial state dict; None on the PyTorch run, which records it), take
    ``steps`` optimizer steps on ``loss_of(model)`` and return the trace: initial state, losses, gradients, final state."""
    if init is None:
        init = {name: _numpy(value) for name, value in model.state_dict().items()}
    else:
        model.load_state_dict({name: torch.tensor(value) for name, value in init.items()})
    model.train()
    optimizer = (optimizer or (lambda params: torch.optim.SGD(params, lr=0.1)))(model.parameters())
    losses, grads = [], []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_of(model)
        loss.backward()
        losses.append(loss.item())
        grads.append({name: _numpy(p.grad) for name, p in model.named_parameters() if p.grad is not None})
        optimizer.step()
    final = {name: _numpy(value) for name, value in model.state_dict().items()}
    return {"init": init, "losses": losses, "grads": grads, "final": final}


# ------------------------------------------------------------------ the cases

@case("einops")
def einops_patch_mixer(torch, init):
    """einops' layers and functions (rearrange, reduce, repeat, einsum, pack/unpack) in an MLP-mixer-like model."""
    import einops
    from einops.layers.torch import EinMix, Rearrange, Reduce

    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2), nn.Linear(8, 12),
                          EinMix("b n d -> b n e", weight_shape="d e", bias_shape="e", d=12, e=6), nn.GELU(),
                          Reduce("b n d -> b d", "mean"), nn.Linear(6, 3))
    images, targets = _data(torch, 4, 2, 4, 4), _data(torch, 4, classes=3)

    def loss_of(model):
        logits = model(images)
        packed, shapes = einops.pack([logits, einops.repeat(logits.mean(0), "d -> b d", b=4)], "b *")
        first, second = einops.unpack(packed, shapes, "b *")
        similarity = einops.einsum(first, second, "b d, b d -> b")
        return nn.functional.cross_entropy(logits, targets) + 0.1 * einops.reduce(similarity ** 2, "b ->", "mean")
    return _train(torch, model, init, loss_of)


@case("entmax")
def entmax_sparse_attention_classifier(torch, init):
    """entmax's custom autograd Functions (entmax15, sparsemax, bisection entmax) and its losses."""
    from entmax import Entmax15Loss, SparsemaxLoss, entmax15, entmax_bisect, sparsemax

    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 5))
    x, y = _data(torch, 8, 6), _data(torch, 8, classes=5)

    def loss_of(model):
        logits = model(x)
        attention = entmax15(logits, dim=-1) + sparsemax(logits, dim=-1) + entmax_bisect(logits, alpha=1.3, dim=-1)
        return (Entmax15Loss()(logits, y).mean() + SparsemaxLoss()(logits, y).mean()
                + (attention * logits).sum(-1).mean())
    return _train(torch, model, init, loss_of)


@case("torchdiffeq")
def torchdiffeq_neural_ode(torch, init):
    """A neural ODE integrated by torchdiffeq (fixed-step rk4, adaptive dopri5, and the adjoint method)."""
    from torchdiffeq import odeint, odeint_adjoint

    nn = torch.nn

    class ODEFunc(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))

        def forward(self, t, y):
            return self.net(y ** 3)

    torch.manual_seed(0)
    func = ODEFunc().double()
    y0, t = torch.tensor([[2.0, 0.0]], dtype=torch.float64), torch.linspace(0.0, 1.0, 5, dtype=torch.float64)
    target = torch.tensor(np.random.default_rng(0).standard_normal((5, 1, 2)))

    def loss_of(func):
        fixed = odeint(func, y0, t, method="rk4", options={"step_size": 0.1})
        adaptive = odeint(func, y0, t, method="dopri5", rtol=1e-6, atol=1e-8)
        adjoint = odeint_adjoint(func, y0, t[:3], method="rk4", options={"step_size": 0.25})
        return (fixed - target).abs().mean() + (adaptive - target).square().mean() + adjoint.square().mean()
    return _train(torch, func, init, loss_of, steps=2, optimizer=lambda params: torch.optim.Adam(params, lr=0.01))


@case("lion_pytorch")
def lion_optimizer_trains_a_regression(torch, init):
    """lion-pytorch's Lion (a torch.optim.Optimizer subclass) with weight decay, next to its loss."""
    from lion_pytorch import Lion

    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
    x, y = _data(torch, 16, 5), _data(torch, 16, 1, seed=1)
    return _train(torch, model, init, lambda model: nn.functional.mse_loss(model(x), y), steps=4,
                  optimizer=lambda params: Lion(params, lr=1e-2, weight_decay=0.1))


@case("rotary_embedding_torch")
def rotary_embedding_attention(torch, init):
    """rotary-embedding-torch's RotaryEmbedding applied to queries and keys of a small attention layer."""
    from rotary_embedding_torch import RotaryEmbedding

    nn = torch.nn

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv, self.out, self.rotary = nn.Linear(8, 24), nn.Linear(8, 8), RotaryEmbedding(dim=4)

        def forward(self, x):
            q, k, v = self.qkv(x).view(x.shape[0], x.shape[1], 3, 2, 4).permute(2, 0, 3, 1, 4)
            q, k = self.rotary.rotate_queries_or_keys(q), self.rotary.rotate_queries_or_keys(k)
            attended = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.out(attended.transpose(1, 2).reshape(x.shape))

    torch.manual_seed(0)
    x = _data(torch, 2, 6, 8)
    return _train(torch, Attention(), init, lambda model: model(x).square().mean())


@case("x_transformers")
def x_transformers_decoder_language_model(torch, init):
    """x-transformers' TransformerWrapper over a Decoder (rotary positions, causal), trained autoregressively."""
    from x_transformers import AutoregressiveWrapper, Decoder, TransformerWrapper

    torch.manual_seed(0)
    model = AutoregressiveWrapper(TransformerWrapper(
        num_tokens=16, max_seq_len=8, attn_layers=Decoder(dim=16, depth=1, heads=2, rotary_pos_emb=True)))
    tokens = _data(torch, 3, 8, classes=16)
    return _train(torch, model, init, lambda model: model(tokens),
                  optimizer=lambda params: torch.optim.AdamW(params, lr=1e-3))


@case("vector_quantize_pytorch")
def vector_quantize_autoencoder(torch, init):
    """vector-quantize-pytorch's VectorQuantize (EMA codebook updates in training) and FSQ in an autoencoder."""
    from vector_quantize_pytorch import FSQ, VectorQuantize

    nn = torch.nn

    class Autoencoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encode, self.decode = nn.Linear(6, 4), nn.Linear(4, 6)
            self.vq = VectorQuantize(dim=4, codebook_size=8, decay=0.8, commitment_weight=0.5)
            self.fsq = FSQ(levels=[5, 3], dim=4)

        def forward(self, x):
            z = self.encode(x)
            quantized, _, commitment = self.vq(z)
            return nn.functional.mse_loss(self.decode(quantized + self.fsq(z)[0]), x) + commitment.sum()

    torch.manual_seed(0)
    x = _data(torch, 2, 10, 6)
    return _train(torch, Autoencoder(), init, lambda model: model(x))


@case("torchmetrics")
def torchmetrics_during_training(torch, init):
    """torchmetrics' stateful metrics updated batch by batch, and a differentiable functional metric as the loss."""
    import torchmetrics
    from torchmetrics.functional import mean_squared_error, pearson_corrcoef

    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
    x, y = _data(torch, 12, 4), _data(torch, 12, classes=3)
    accuracy = torchmetrics.Accuracy(task="multiclass", num_classes=3)
    f1 = torchmetrics.F1Score(task="multiclass", num_classes=3, average="macro")
    seen = []

    def loss_of(model):
        logits = model(x)
        probabilities = logits.softmax(-1)
        accuracy.update(probabilities, y)
        seen.append(f1(probabilities, y).item())
        one_hot = nn.functional.one_hot(y, 3).float()
        return mean_squared_error(probabilities, one_hot) - pearson_corrcoef(logits[:, 0], one_hot[:, 0])
    trace = _train(torch, model, init, loss_of)
    trace["metrics"] = [accuracy.compute().item(), *seen]
    return trace


@case("skorch", "sklearn")
def skorch_classifier_fit(torch, init):
    """skorch's NeuralNetClassifier: scikit-learn's fit/predict_proba over a PyTorch module and optimizer."""
    from skorch import NeuralNetClassifier

    nn = torch.nn
    torch.manual_seed(0)
    net = NeuralNetClassifier(nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)), criterion=nn.CrossEntropyLoss,
                              max_epochs=3, lr=0.1, batch_size=8, train_split=None, iterator_train__shuffle=False,
                              verbose=0)
    net.initialize()
    if init is None:
        init = {name: _numpy(value) for name, value in net.module_.state_dict().items()}
    else:
        net.module_.load_state_dict({name: torch.tensor(value) for name, value in init.items()})
    x, y = _data(torch, 20, 5).numpy(), _data(torch, 20, classes=3).numpy()
    net.partial_fit(x, y)
    return {"init": init, "losses": [float(loss) for loss in net.history[:, "train_loss"]],
            "probabilities": net.predict_proba(x),
            "final": {name: _numpy(value) for name, value in net.module_.state_dict().items()}}


# ------------------------------------------------------------------ the comparison

def _run_on_xtensor(name, init, tmp_path):
    """The case's xtensor side, in a fresh process whose ``import torch`` gives xtensor (this one has PyTorch)."""
    given, received = tmp_path / "init.pkl", tmp_path / "trace.pkl"
    given.write_bytes(pickle.dumps(init))
    done = subprocess.run([sys.executable, __file__, name, str(given), str(received)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": _REPOSITORY})
    assert done.returncode == 0, f"the xtensor run of {name} failed:\n{done.stderr[-4000:]}"
    return pickle.loads(received.read_bytes())


def _assert_same_trace(actual, expected, path="trace"):
    """Every number of the xtensor trace matches PyTorch's (float32 tolerance; the same keys at every level)."""
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), f"{path}: keys differ"
        for key in expected:
            _assert_same_trace(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, list):
        assert len(actual) == len(expected), f"{path}: lengths differ"
        for i, (a, e) in enumerate(zip(actual, expected)):
            _assert_same_trace(a, e, f"{path}[{i}]")
    else:
        expected = np.asarray(expected)
        assert np.asarray(actual).dtype == expected.dtype, f"{path}: dtype"
        np.testing.assert_allclose(actual, expected, rtol=2e-4, atol=2e-5, err_msg=path)


_REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this checkout's xtensor, not another
MISSING = {  # cases that stop today only on torch features xtensor lacks (the first one each meets; then the next)
}


def test_trace_comparison_notices_one_changed_gradient_entry():
    trace = {"losses": [1.0, 0.5], "grads": [{"w": np.ones((2, 2), np.float32)}]}
    changed = {"losses": [1.0, 0.5], "grads": [{"w": np.array([[1, 1], [1, 1.01]], np.float32)}]}
    _assert_same_trace(trace, trace)
    with pytest.raises(AssertionError, match=r"trace\['grads'\]\[0\]\['w'\]"):
        _assert_same_trace(changed, trace)


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=MISSING[name]))
                                  if name in MISSING else name for name in CASES])
def test_library_trains_as_on_pytorch(name, tmp_path):
    function, libraries = CASES[name]
    for library in ("torch", *libraries):
        pytest.importorskip(library)
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny models: two threads per test worker on two cores spin longer than they compute
    try:
        expected = function(torch, None)
    finally:
        torch.set_num_threads(threads)
    actual = _run_on_xtensor(name, expected["init"], tmp_path)
    _assert_same_trace(actual, expected)


if __name__ == "__main__":
    import xtensor

    xtensor.install_as_torch()
    import torch

    name, given, received = sys.argv[1:]
    with open(given, "rb") as f:
        init = pickle.load(f)
    try:
        trace = CASES[name][0](torch, init)
    except Exception:
        traceback.print_exc()
        sys.exit(1)
    with open(received, "wb") as f:
        pickle.dump(trace, f)
