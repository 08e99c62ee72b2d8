"""``compile(module)``: on jax the module's call is one tape node (forward one program, backward jax's VJP of it), so
an ordinary eager loop -- ``loss = model(x, y); loss.backward(); optimizer.step()`` -- around a compiled model gives
the eager model's values, gradients, parameters and buffers; hooks and untraceable forwards fall back to eager with
one warning; numpy and array-API backends stay eager. Models are tiny: each compilation costs ~0.1-0.3 s.
"""
import copy
import warnings

import numpy as np
import pytest

pytest.importorskip("jax")

import xtensor as t  # noqa: E402
import xtensor.nn.functional as F  # noqa: E402


class Net(t.nn.Module):
    """Linear-BatchNorm-ReLU-Dropout-Linear, returning ``(logits, loss)`` as a GPT's forward does (loss None
    without targets). The first Linear has no bias: before BatchNorm its gradient is zero, and Adam would blow the
    rounding noise of two computations of zero up to whole steps."""

    def __init__(self, p=0.0):
        super().__init__()
        self.fc1, self.bn = t.nn.Linear(4, 8, bias=False), t.nn.BatchNorm1d(8)
        self.drop, self.fc2 = t.nn.Dropout(p), t.nn.Linear(8, 3)

    def forward(self, x, targets=None):
        logits = self.fc2(self.drop(F.relu(self.bn(self.fc1(x)))))
        return logits, None if targets is None else F.cross_entropy(logits, targets)


X = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
Y = np.array([0, 1, 2, 1, 0, 2])


def _twins(p=0.0, seed=0):
    """An eager model and a compiled copy of it, with the same weights."""
    t.manual_seed(seed)
    model = Net(p)
    return model, t.compile(copy.deepcopy(model))


def _params(model):
    return [p.detach().numpy() for p in model.parameters()]


@pytest.fixture
def on_jax():
    with t.use_backend("jax"):
        yield


def test_the_call_is_one_node_whose_values_and_gradients_are_the_eager_ones(on_jax):
    model, compiled = _twins()
    x, y = t.tensor(X), t.tensor(Y)
    logits, loss = model(x, y)
    c_logits, c_loss = compiled(x, y)
    assert type(c_loss.grad_fn).__name__ == "CompiledFunctionBackward" and c_logits.grad_fn is c_loss.grad_fn
    assert c_loss.grad_fn.next_functions[0][0].variable is compiled.fc1.weight
    np.testing.assert_allclose(c_logits.detach().numpy(), logits.detach().numpy(), rtol=1e-5, atol=1e-6)
    (loss + logits.sum()).backward()
    (c_loss + c_logits.sum()).backward()  # gradient flows into both outputs of the node
    for a, b in zip(model.parameters(), compiled.parameters()):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_the_module_math_matches_torch(on_jax):
    torch = pytest.importorskip("torch")
    _, compiled = _twins()
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8, bias=False), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                              torch.nn.Linear(8, 3))
    with torch.no_grad():
        for p, q in zip(ref.parameters(), compiled.parameters()):
            p.copy_(torch.from_numpy(q.detach().numpy()))
    loss = torch.nn.functional.cross_entropy(ref(torch.from_numpy(X)), torch.from_numpy(Y))
    loss.backward()
    _, c_loss = compiled(t.tensor(X), t.tensor(Y))
    c_loss.backward()
    assert c_loss.item() == pytest.approx(loss.item(), rel=1e-5)
    for p, q in zip(ref.parameters(), compiled.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_parameters_and_buffers_after_optimizer_steps_are_the_eager_ones(on_jax):
    model, compiled = _twins()
    for m in (model, compiled):
        optimizer = t.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(3):
            _, loss = m(t.tensor(X), t.tensor(Y))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    for a, b in zip(_params(model), _params(compiled)):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(compiled.bn, name).numpy(), getattr(model.bn, name).numpy(), rtol=1e-5)
    assert compiled.bn.num_batches_tracked.item() == model.bn.num_batches_tracked.item() == 3
    assert compiled.compilations == 1


def test_a_written_buffer_bumps_its_version_as_an_eager_write(on_jax):
    _, compiled = _twins()
    before = compiled.bn.running_mean._storage.version
    compiled(t.tensor(X))
    assert compiled.bn.running_mean._storage.version > before


def test_dropout_draws_the_eager_mask_for_the_same_seed(on_jax):
    model, compiled = _twins(p=0.5)
    t.manual_seed(7)
    logits, _ = model(t.tensor(X))
    t.manual_seed(7)
    c_logits, _ = compiled(t.tensor(X))
    np.testing.assert_allclose(c_logits.detach().numpy(), logits.detach().numpy(), rtol=1e-5, atol=1e-6)
    again, _ = compiled(t.tensor(X))  # the next call draws a new mask, as the eager call would
    assert not np.allclose(again.detach().numpy(), c_logits.detach().numpy())


def test_eval_mode_and_no_grad_run_without_a_node(on_jax):
    model, compiled = _twins(p=0.5)
    model.eval(), compiled.eval()
    with t.no_grad():
        logits, _ = compiled(t.tensor(X))
    assert logits.grad_fn is None
    np.testing.assert_allclose(logits.numpy(), model(t.tensor(X))[0].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_new_input_shape_compiles_again_and_the_same_one_reuses(on_jax):
    _, compiled = _twins()
    compiled(t.tensor(X))
    compiled(t.tensor(X + 1))
    assert compiled.compilations == 1
    compiled(t.tensor(X[:4]))
    assert compiled.compilations == 2


def test_gradient_flows_back_into_an_eager_input(on_jax):
    model, compiled = _twins()
    x, cx = t.tensor(X, requires_grad=True), t.tensor(X, requires_grad=True)
    model(x * 2)[0].sum().backward()
    compiled(cx * 2)[0].sum().backward()
    np.testing.assert_allclose(cx.grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_hooks_fall_back_to_eager_with_one_warning(on_jax):
    model, compiled = _twins()
    seen = []
    compiled.fc1.register_forward_hook(lambda module, args, out: seen.append(out.shape))
    with pytest.warns(UserWarning, match="Net runs eagerly: Linear has hooks") as record:
        compiled(t.tensor(X))
        logits, _ = compiled(t.tensor(X))
    assert len(record) == 1 and len(seen) == 2 and logits.grad_fn is not None
    np.testing.assert_allclose(logits.detach().numpy(), model(t.tensor(X))[0].detach().numpy(), rtol=1e-6)


def test_a_host_read_in_forward_falls_back_naming_the_call(on_jax):
    class Reads(t.nn.Module):
        def forward(self, x):
            return x * 2 if x.sum().item() > 0 else x

    compiled = t.compile(Reads())
    with pytest.warns(UserWarning, match=r"Reads runs eagerly: .*item\(\)"):
        assert compiled(t.ones(2)).tolist() == [2.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the signature stays eager, warned once
        assert compiled(t.ones(2)).tolist() == [2.0, 2.0]


def test_create_graph_through_a_compiled_module_raises(on_jax):
    _, compiled = _twins()
    x = t.tensor(X, requires_grad=True)
    (g,) = t.autograd.grad(compiled(x)[0].sum(), x, create_graph=False)
    assert g.shape == x.shape
    with pytest.raises(RuntimeError, match="cannot be differentiated again"):
        t.autograd.grad(compiled(x)[0].sum(), x, create_graph=True)


def test_backward_twice_without_retain_graph_raises(on_jax):
    _, compiled = _twins()
    _, loss = compiled(t.tensor(X), t.tensor(Y))
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_a_compiled_optimizer_step_updates_as_the_eager_one(on_jax):
    model, compiled = _twins()
    eager_opt = t.optim.Adam(model.parameters(), lr=0.01)
    opt = t.compile(t.optim.Adam(compiled.parameters(), lr=0.01))
    for m, o in ((model, eager_opt), (compiled, opt)):
        for _ in range(3):
            _, loss = m(t.tensor(X), t.tensor(Y))
            o.zero_grad()
            loss.backward()
            o.step()
    for a, b in zip(_params(model), _params(compiled)):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)


def test_state_dict_keys_carry_the_original_module_prefix_as_torch():
    """PyTorch's ``torch.compile(nn.Linear(2, 2)).state_dict()`` keys (importing torch._dynamo costs ~10 s)."""
    compiled = t.compile(t.nn.Linear(2, 2))
    assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert compiled.weight is compiled._orig_mod.weight and compiled.in_features == 2


@pytest.mark.parametrize("name", ["numpy", "array_api_strict"])
def test_backends_that_cannot_compile_run_eagerly_with_identical_results(name):
    pytest.importorskip(name)
    with t.use_backend(name):
        model, compiled = _twins(p=0.5)
        t.manual_seed(3)
        logits, loss = model(t.tensor(X), t.tensor(Y))
        t.manual_seed(3)
        c_logits, c_loss = compiled(t.tensor(X), t.tensor(Y))
        loss.backward(), c_loss.backward()
    np.testing.assert_array_equal(np.asarray(c_logits.detach().numpy()), np.asarray(logits.detach().numpy()))
    np.testing.assert_array_equal(compiled.fc1.weight.grad.numpy(), model.fc1.weight.grad.numpy())
    assert compiled.compilations == 0


def test_a_parameter_replaced_between_calls_is_read_as_the_eager_call_reads_it(on_jax):
    model, compiled = _twins()
    compiled(t.tensor(X))
    for m in (model, compiled):
        m.fc2.weight = t.nn.Parameter(t.full((3, 8), 0.5))
    np.testing.assert_allclose(compiled(t.tensor(X))[0].detach().numpy(), model(t.tensor(X))[0].detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert compiled.compilations == 1  # same shapes: the new tensor is an input of the same program


def test_autocast_is_part_of_the_signature(on_jax):
    compiled = t.compile(t.nn.Linear(4, 3))
    assert compiled(t.tensor(X)).dtype == t.float32
    with t.autocast("cpu", dtype=t.bfloat16):
        assert compiled(t.tensor(X)).dtype == t.bfloat16
    assert compiled(t.tensor(X)).dtype == t.float32 and compiled.compilations == 2


@pytest.mark.parametrize("scheduler_first", [False, True])
def test_a_compiled_optimizer_step_stays_compiled_under_a_learning_rate_scheduler(on_jax, scheduler_first):
    w = t.nn.Parameter(t.tensor([1.0, 2.0]))
    eager_w = t.nn.Parameter(t.tensor([1.0, 2.0]))
    eager = t.optim.SGD([eager_w], lr=t.tensor(0.1))
    eager_scheduler = t.optim.lr_scheduler.StepLR(eager, step_size=1, gamma=0.5)
    optimizer = t.optim.SGD([w], lr=t.tensor(0.1))
    if scheduler_first:
        scheduler = t.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
        compiled_step = t.compile(optimizer).step
    else:
        compiled_step = t.compile(optimizer).step
        scheduler = t.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)  # wraps the compiled step
    for p, o, s in ((eager_w, eager, eager_scheduler), (w, optimizer, scheduler)):
        for _ in range(3):
            o.zero_grad()
            (p * p).sum().backward()
            o.step()
            s.step()
    np.testing.assert_allclose(w.detach().numpy(), eager_w.detach().numpy(), rtol=1e-6)
    assert compiled_step.compilations >= 1  # the steps ran compiled, not around it


def test_past_the_cache_size_limit_new_signatures_run_eagerly_with_a_warning(on_jax, monkeypatch):
    from xtensor._compile import module

    monkeypatch.setattr(module, "CACHE_SIZE_LIMIT", 2)  # torch's 8, made small to keep the test cheap
    identity = t.compile(t.nn.Identity())
    identity(t.ones(1)), identity(t.ones(2))
    with pytest.warns(UserWarning, match="recompiled 2 times"):
        assert identity(t.ones(3)).tolist() == [1.0, 1.0, 1.0]
    assert identity.compilations == 2


def _fused_step(model, x, y, backward):
    """One forward of ``model`` and ``backward(logits, loss)``, from no gradients; whether the forward computed the
    loss's gradients already (a compiled module's fused program)."""
    for p in model.parameters():
        p.grad = None
    logits, loss = model(x, y)
    fused = getattr(loss.grad_fn, "_fused", None) is not None
    backward(logits, loss)
    return fused


def _assert_same_grads(model, compiled):
    for a, b in zip(model.parameters(), compiled.parameters()):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_after_a_loss_backward_the_next_calls_run_forward_and_backward_as_one_program(on_jax):
    """``loss.backward()`` right after the call (the other output unused) is learned: the next calls compute the
    loss's gradients in the forward's program (no residuals kept), and they are the eager ones."""
    model, compiled = _twins()
    x, y = t.tensor(X), t.tensor(Y)
    for call in range(3):
        _fused_step(model, x, y, lambda logits, loss: loss.backward())
        assert _fused_step(compiled, x, y, lambda logits, loss: loss.backward()) == (call > 0)
        _assert_same_grads(model, compiled)


@pytest.mark.parametrize("backward, fused_next", [
    (lambda logits, loss: (loss * 0.5).backward(), True),  # the loss's cotangent scales the kept gradients
    (lambda logits, loss: (loss + logits.sum()).backward(), False),  # the other output too: the forward again
    (lambda logits, loss: loss.backward(retain_graph=True) or loss.backward(), True),  # twice: accumulated
])
def test_a_fused_call_answers_every_backward_as_the_eager_model(on_jax, backward, fused_next):
    model, compiled = _twins()
    x, y = t.tensor(X), t.tensor(Y)
    for m in (model, compiled):
        _fused_step(m, x, y, lambda logits, loss: loss.backward())  # (learned: the next call is fused)
        _fused_step(m, x, y, backward)
    _assert_same_grads(model, compiled)
    _, loss = compiled(x, y)
    assert (loss.grad_fn._fused is not None) == fused_next


def test_a_forward_without_backward_ends_the_fusion(on_jax):
    """A fused forward whose gradients nobody asks for (evaluation without ``no_grad``) wasted its backward: the
    next call runs the forward alone again."""
    _, compiled = _twins()
    x, y = t.tensor(X), t.tensor(Y)
    compiled(x, y)[1].backward()
    assert compiled(x, y)[1].grad_fn._fused is not None  # (never backpropagated)
    assert compiled(x, y)[1].grad_fn._fused is None
