"""xtensor.compile: a whole training step (forward, backward, in-place updates) as one jitted program on
jax, its writes landing in the same Tensor objects; eager on backends that cannot compile.

Modules and optimizers here are duck-typed stand-ins (``parameters()``, ``param_groups``/``state``), as
compile only relies on those. Each compilation costs a fraction of a second: shapes are tiny.
"""
import sys
import sysconfig

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import xtensor as t  # noqa: E402
from xtensor._compile import guards  # noqa: E402

X = [[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]
Y = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
W0 = [[0.5, -0.2], [0.1, 0.3]]


@pytest.fixture
def on_jax():
    with t.use_backend("jax"):
        yield


class Linear:
    """A duck-typed module: compile finds its tensors through its attributes."""

    def __init__(self, weight, bias):
        self.weight = t.tensor(weight, requires_grad=True)
        self.bias = t.tensor(bias, requires_grad=True)
        self.training = True

    def parameters(self):
        return [self.weight, self.bias]

    def __call__(self, x):
        return x @ self.weight.T + self.bias


class Adam:
    """A duck-typed optimizer with PyTorch's Adam update; its state is made on the first step."""

    def __init__(self, params, lr=0.1, betas=(0.9, 0.999), eps=1e-8):
        self.param_groups = [{"params": list(params), "lr": lr, "betas": betas, "eps": eps}]
        self.state = {}

    def zero_grad(self):
        for p in self.param_groups[0]["params"]:
            p.grad = None

    def step(self):
        group = self.param_groups[0]
        (b1, b2), lr, eps = group["betas"], group["lr"], group["eps"]
        with t.no_grad():
            for p in group["params"]:
                state = self.state.setdefault(p, {})
                if not state:
                    state.update(step=t.zeros(()), m=t.zeros_like(p), v=t.zeros_like(p))
                state["step"] += 1
                state["m"].mul_(b1).add_(p.grad * (1 - b1))
                state["v"].mul_(b2).add_(p.grad * p.grad * (1 - b2))
                m_hat = state["m"] / (1 - b1 ** state["step"])
                v_hat = state["v"] / (1 - b2 ** state["step"])
                p.sub_(lr * m_hat / (v_hat.sqrt() + eps))


def sgd_step(params, x, y, lr):
    """A hand-written training step: forward, backward, and ``p -= lr * p.grad`` under no_grad."""
    w, b = params
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with t.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad.zero_()
    return loss


def _leaf_params():
    return [t.tensor(W0, requires_grad=True), t.zeros(2, requires_grad=True)]


def test_compiled_sgd_step_matches_eager_values_and_gradients(backend):
    eager, compiled = _leaf_params(), _leaf_params()
    step = t.compile(sgd_step)
    x, y = t.tensor(X), t.tensor(Y)
    for _ in range(3):
        expected = sgd_step(eager, x, y, 0.1)
        got = step(compiled, x, y, 0.1)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5)
    for p, q in zip(compiled, eager):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5)
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    assert step.compilations == (2 if backend == "jax" else 0)  # no .grad yet, then .grad present


def test_a_step_written_in_an_installed_package_gathers_its_closure(on_jax):
    """Code of installed packages is not walked for state, except the step itself (the demo's is in xtensor.cli)."""
    source = ("def make_step(params, lr):\n"
              "    def step(x, y):\n"
              "        return sgd_step(params, x, y, lr)\n"
              "    return step\n")
    namespace = {"sgd_step": sgd_step}
    exec(compile(source, "/venv/lib/python3.12/site-packages/trainer/steps.py", "exec"), namespace)
    eager, compiled = _leaf_params(), _leaf_params()
    step = t.compile(namespace["make_step"](compiled, 0.1))
    x, y = t.tensor(X), t.tensor(Y)
    for _ in range(3):
        expected, got = sgd_step(eager, x, y, 0.1), step(x, y)
        assert got.item() == pytest.approx(expected.item(), rel=1e-6)
    for p, q in zip(compiled, eager):  # atol: an entry near 0 after cancellation (XLA on a GPU fuses, one ulp off)
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert step.compilations == 2


def test_compiled_adam_step_on_a_module_matches_torch(on_jax):
    torch = pytest.importorskip("torch")
    model = Linear(W0, [0.0, 0.1])
    optimizer = Adam(model.parameters(), lr=0.05)

    @t.compile
    def train_step(x, y):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    reference = torch.nn.Linear(2, 2)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(W0))
        reference.bias.copy_(torch.tensor([0.0, 0.1]))
    torch_optimizer = torch.optim.Adam(reference.parameters(), lr=0.05)
    x, y = t.tensor(X), t.tensor(Y)
    for _ in range(4):
        loss = train_step(x, y)
        torch_optimizer.zero_grad()
        torch_loss = ((reference(torch.tensor(X)) - torch.tensor(Y)) ** 2).mean()
        torch_loss.backward()
        torch_optimizer.step()
        assert loss.item() == pytest.approx(torch_loss.item(), rel=1e-5)
    np.testing.assert_allclose(model.weight.detach().numpy(), reference.weight.detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(model.bias.grad.numpy(), reference.bias.grad.numpy(), atol=1e-5)
    state, torch_state = optimizer.state[model.weight], torch_optimizer.state[reference.weight]
    np.testing.assert_allclose(state["v"].numpy(), torch_state["exp_avg_sq"].numpy(), atol=1e-6)
    assert state["step"].item() == torch_state["step"].item() == 4
    assert train_step.compilations == 2  # the first step (makes the state, used once), then the steady step


def test_same_signature_hits_the_cache_and_a_new_shape_or_dtype_recompiles(on_jax):
    column_sums = t.compile(lambda x: (x * 2).sum(0))
    assert column_sums(t.ones(3, 2)).tolist() == [6.0, 6.0]
    assert column_sums(t.full((3, 2), 2.0)).tolist() == [12.0, 12.0] and column_sums.compilations == 1
    assert column_sums(t.ones(5, 2)).tolist() == [10.0, 10.0] and column_sums.compilations == 2
    assert column_sums(t.ones(3, 2, dtype=t.float64)).dtype == t.float64 and column_sums.compilations == 3
    column_sums(t.zeros(5, 2))
    assert column_sums.compilations == 3


def test_a_changed_python_number_recompiles_with_the_new_value(on_jax):
    w = t.ones(2)
    step = t.compile(lambda lr: w.sub_(lr))
    step(0.5)
    step(0.5)
    step(0.25)
    assert w.tolist() == [-0.25, -0.25] and step.compilations == 2


def test_overwritten_storage_is_donated_and_the_tensor_holds_the_result(on_jax):
    source = jnp.zeros(3)
    p = t.as_tensor(source)  # shares the jax buffer
    step = t.compile(lambda: p.add_(1))
    assert step() is p
    assert p.tolist() == [1.0, 1.0, 1.0] and source.is_deleted()


def test_writes_through_views_reach_the_base_and_every_alias(on_jax):
    base = t.zeros(2, 3)
    row, column = base[0], base[:, 1]

    @t.compile
    def bump():
        row.add_(1)
        base[1] = 5

    bump()
    bump()
    assert base.tolist() == [[2.0, 2.0, 2.0], [5.0, 5.0, 5.0]]
    assert row.tolist() == [2.0, 2.0, 2.0] and column.tolist() == [2.0, 5.0]
    assert base._storage.version >= 2


def test_data_assignment_rebinds_the_tensor_on_every_call(on_jax):
    q = t.ones(2)

    @t.compile
    def triple():
        q.data = q.data * 3

    triple()
    triple()
    assert q.tolist() == [9.0, 9.0] and triple.compilations == 1


def test_array_arguments_are_inputs_not_constants(on_jax):
    double = t.compile(lambda a: t.as_tensor(a) * 2)
    assert double(np.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
    assert double(np.arange(3.0) + 1).tolist() == [2.0, 4.0, 6.0]
    assert double(jnp.ones(3)).tolist() == [2.0, 2.0, 2.0] and double.compilations == 1


def test_compiled_module_forward_matches_the_module_and_keeps_its_attributes(on_jax):
    model = Linear(W0, [0.0, 0.1])
    compiled = t.compile(model)
    with t.no_grad():
        out = compiled(t.tensor(X))
        np.testing.assert_allclose(out.numpy(), model(t.tensor(X)).numpy(), rtol=1e-6)
    assert compiled.weight is model.weight and compiled._orig_mod is model
    assert out.grad_fn is None


def test_compiled_step_inside_jax_jit_runs_inline(on_jax):
    double = t.compile(lambda x: x * 2)
    out = jax.jit(lambda x: double(x))(t.ones(2))
    assert out.tolist() == [2.0, 2.0] and double.compilations == 0


def test_disable_runs_eagerly(on_jax):
    w = t.ones(2)
    step = t.compile(lambda: w.add_(1).sum().item(), disable=True)
    assert step() == 4.0 and step.compilations == 0


@pytest.mark.parametrize("read, call", [
    (lambda x: x.sum().item(), "item()"),
    (lambda x: bool(x.sum() > 0), "bool(tensor)"),
    (lambda x: float(x.sum()), "float(tensor)"),
    (lambda x: x[x > 0], "tensor[index] with a mask"),
    (lambda x: x.nonzero(), "nonzero()"),
])
def test_host_read_under_compile_names_the_call_and_the_way_out(on_jax, read, call):
    with pytest.raises(RuntimeError) as info:
        t.compile(read)(t.ones(3))
    message = str(info.value)
    assert message.startswith(f"xtensor.compile: {call}") and "test_compile.py:" in message
    assert "read it after the call" in message and "disable=True" in message


def test_random_numbers_in_a_step_are_refused_and_the_generator_is_untouched(on_jax):
    t.manual_seed(0)
    expected = t.rand(2).tolist()
    t.manual_seed(0)
    with pytest.raises(RuntimeError, match="draws random numbers.*pass them in"):
        t.compile(lambda x: x + t.rand(3))(t.ones(3))
    assert t.rand(2).tolist() == expected


def test_a_tensor_with_history_is_refused(on_jax):
    w = t.ones(2, requires_grad=True)
    h = w * 2
    with pytest.raises(RuntimeError, match=r"carries autograd history \(grad_fn=<MulBackward0>"):
        t.compile(lambda: h.sum())()


def test_every_python_object_is_restored_after_a_failed_trace(on_jax):
    w = t.ones(2, requires_grad=True)
    (w * 3).sum().backward()
    before = w.grad

    def fails():
        w.grad = None
        with t.no_grad():
            w.add_(1)
        return w.sum().item()

    with pytest.raises(RuntimeError, match="item()"):
        t.compile(fails)()
    assert w.grad is before and w.tolist() == [1.0, 1.0] and w.grad.tolist() == [3.0, 3.0]


# --------------------------------------------------------------------------- a warm step sees every change
class Shifted(t.nn.Module):
    """A linear layer that adds ``self.shift`` when the module has one (a tensor attribute set later)."""

    def __init__(self):
        super().__init__()
        self.linear = t.nn.Linear(2, 2)

    def forward(self, x):
        out = self.linear(x)
        return out + self.shift if hasattr(self, "shift") else out


def _step(model, optimizer, zero_grad=True):
    def train_step(x, y):
        if zero_grad:
            optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss
    return train_step


def _weight(model):
    return model.linear.weight


# name -> (the optimizer's parameters and options, whether the step zeroes the grads, the change made
# between two calls, identically, to the eager and to the compiled twin)
CHANGES = {
    "a parameter replaced": (lambda m: ([_weight(m), m.linear.bias], {}), True,
                             lambda m, o: setattr(m.linear, "weight", t.nn.Parameter(t.full((2, 2), 0.25)))),
    "a param group added": (lambda m: ([_weight(m)], {}), True,
                            lambda m, o: o.add_param_group({"params": [m.linear.bias], "lr": 0.5})),
    "a hyperparameter changed": (lambda m: (m.parameters(), {}), True,
                                 lambda m, o: o.param_groups[0].__setitem__("lr", 0.01)),
    ".grad set to None": (lambda m: (m.parameters(), {}), False,  # the step accumulates grads
                          lambda m, o: setattr(_weight(m), "grad", None)),
    "a new tensor attribute on a module": (lambda m: (m.parameters(), {}), True,
                                           lambda m, o: setattr(m, "shift", t.full((2,), 0.5))),
    "a tensor replaced in the optimizer state": (
        lambda m: (m.parameters(), {"momentum": 0.9}), True,
        lambda m, o: o.state[_weight(m)].__setitem__("momentum_buffer", t.ones(2, 2))),
    "a parameter written in place": (lambda m: (m.parameters(), {}), True,
                                     lambda m, o: _weight(m).data.mul_(-1.0)),
    "requires_grad turned off": (lambda m: (m.parameters(), {}), True,
                                 lambda m, o: _weight(m).requires_grad_(False)),
    "a submodule replaced": (lambda m: (m.parameters(), {}), True,
                             lambda m, o: (t.manual_seed(1), setattr(m, "linear", t.nn.Linear(2, 2)))),
    # changes that bypass Module.__setattr__ and the optimizer's methods (a counter bumped there would miss them)
    "a tensor attribute written into a module's __dict__": (
        lambda m: (m.parameters(), {}), True, lambda m, o: m.__dict__.__setitem__("shift", t.full((2,), 0.5))),
    "a parameter put into _parameters directly": (
        lambda m: ([_weight(m), m.linear.bias], {}), True,
        lambda m, o: m.linear._parameters.__setitem__("weight", t.nn.Parameter(t.full((2, 2), 0.25)))),
    "a module's __dict__ replaced": (
        lambda m: (m.parameters(), {}), True,
        lambda m, o: setattr(m, "__dict__", {**m.__dict__, "shift": t.full((2,), 0.5)})),
    "a hyperparameter written with dict.update": (lambda m: (m.parameters(), {}), True,
                                                  lambda m, o: o.param_groups[0].update(lr=0.01)),
    "the optimizer state cleared": (lambda m: (m.parameters(), {"momentum": 0.9}), True,
                                    lambda m, o: o.state.clear()),
    "a forward hook registered (an empty hook dict filled)": (
        lambda m: (m.parameters(), {}), True,
        lambda m, o: m.register_forward_hook(lambda module, inputs, out: out * 2)),
    "a param group's params list changed in place": (
        lambda m: (m.parameters(), {}), True, lambda m, o: o.param_groups[0]["params"].pop()),
}


@pytest.mark.parametrize("detection", ["this interpreter's", "items read"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_to_the_state_between_calls_gives_the_eager_result(on_jax, change, detection, monkeypatch):
    """The compiled step reuses its last walk of the state while nothing changed (checked cheaply each call);
    every kind of change must be seen: after it the step computes what eager PyTorch-style code computes. Dicts
    are checked by CPython's version tags where the interpreter has them, else by reading their items: both."""
    if detection == "items read":
        monkeypatch.setattr(guards, "_dict_versions", lambda: False)
    make_params, zero_grad, mutate = CHANGES[change]
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = Shifted()
        params, options = make_params(model)
        optimizer = t.optim.SGD(params, lr=0.1, **options)
        twins.append((model, optimizer, _step(model, optimizer, zero_grad)))
    (eager_model, eager_opt, eager), (model, optimizer, step) = twins
    step = t.compile(step)
    x, y = t.tensor(X), t.tensor(Y)
    for call in range(6):
        if call == 3:
            assert step._fast is not None  # the cheap path was in use: the change below must invalidate it
            mutate(eager_model, eager_opt)
            mutate(model, optimizer)
        expected, got = eager(x, y), step(x, y)
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), call
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5)
        assert (p.grad is None) == (q.grad is None)


@pytest.mark.skipif(sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 13)
                    or bool(sysconfig.get_config_var("Py_GIL_DISABLED")), reason="dict version tags: CPython 3.11-3.13")
def test_the_warm_guard_reads_dicts_version_tags_on_cpython(on_jax):
    """Where CPython keeps a version tag per dict (PEP 509) and every write moves it, the guard reads one number
    per dict instead of its items (the cheap path this interpreter is timed with); an empty one, its length."""
    model = Shifted()
    optimizer = t.optim.SGD(model.parameters(), lr=0.1)
    step = t.compile(_step(model, optimizer))
    for _ in range(2):
        step(t.tensor(X), t.tensor(Y))
    guard = step._fast.guard
    assert guards._dict_versions() and len(guard.versions) > 0 and not any(guard.counted)
    assert len(guard.versions) + len(guard.counted) == len(guard.dicts) + len(guard.mappings)


def test_forward_hooks_reordered_between_calls_run_in_the_new_order(on_jax):
    """Reordering an OrderedDict (``move_to_end``) moves no version tag: the guard still reads the items of the
    ordered mappings that hold any (here the hooks, which then run in their new order)."""
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = t.nn.Linear(2, 2)
        model.register_forward_hook(lambda module, inputs, out: out * 2)
        handle = model.register_forward_hook(lambda module, inputs, out: out + 1)
        twins.append((model, handle, lambda x, model=model: model(x).sum()))
    (eager_model, eager_handle, eager), (model, handle, step) = twins[0], (*twins[1][:2], t.compile(twins[1][2]))
    x = t.tensor(X)
    for call in range(5):
        if call == 2:
            eager_model._forward_hooks.move_to_end(eager_handle.id, last=False)
            model._forward_hooks.move_to_end(handle.id, last=False)
        assert step(x).item() == pytest.approx(eager(x).item(), rel=1e-6), call


def test_new_batches_each_call_and_a_smaller_last_batch_give_the_eager_result(on_jax):
    """A data loader hands the step new tensors every call (the reused walk takes them as they come)."""
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = Shifted()
        optimizer = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        twins.append(_step(model, optimizer))
    eager, step = twins[0], t.compile(twins[1])
    rng = np.random.default_rng(0)
    for size in (4, 4, 4, 4, 3, 4):
        x = rng.standard_normal((size, 2), dtype=np.float32)
        y = rng.standard_normal((size, 2), dtype=np.float32)
        expected, got = eager(t.tensor(x), t.tensor(y)), step(t.tensor(x), t.tensor(y))
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), size


def test_state_reached_through_default_arguments_is_gathered(on_jax):
    """``def step(x, y, model=model)`` (a loop binding its variables) reads its state through its defaults,
    and a tensor of that state (the bias's accumulated grad) can also come in as an argument."""
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = Shifted()
        optimizer = t.optim.SGD(model.parameters(), lr=0.1)

        def train_step(x, y, optimizer=optimizer, model=model):
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            return loss
        twins.append((model, train_step))
    (eager_model, eager), (model, step) = twins[0], (twins[1][0], t.compile(twins[1][1]))
    x = t.tensor(X)
    for call in range(7):
        if call in (3, 4):  # the bias's accumulated grad, fed back as the target; then the data again
            expected = eager(x, eager_model.linear.bias.grad)
            got = step(x, model.linear.bias.grad)
        else:
            expected, got = eager(x, t.tensor([1.0, 0.5])), step(x, t.tensor([1.0, 0.5]))  # the grad's shape
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), call


def test_an_argument_that_was_a_state_tensor_last_call_is_not_taken_for_it(on_jax):
    """A parameter's .grad passed as the argument for two calls, then a new tensor: the program must read the
    .grad from the parameter again, not from the argument's place."""
    eager_w, w = t.tensor(W0, requires_grad=True), t.tensor(W0, requires_grad=True)
    eager_w.grad, w.grad = t.ones(2, 2), t.ones(2, 2)

    def make(param):
        def apply(scale):  # the update reads the grad through the closure; the argument scales it
            with t.no_grad():
                param.sub_(0.1 * param.grad * scale)
            return param.sum()
        return apply
    eager, step = make(eager_w), t.compile(make(w))
    for call in range(6):
        if call in (2, 3):
            expected, got = eager(eager_w.grad), step(w.grad)
        else:
            expected, got = eager(t.full((2, 2), 2.0)), step(t.full((2, 2), 2.0))
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), call
    np.testing.assert_allclose(w.detach().numpy(), eager_w.detach().numpy(), rtol=1e-6)


def test_a_tensor_replaced_by_an_equal_one_is_a_new_tensor(on_jax):
    """The reused walk compares what it read by identity where ``==`` compares values: a learning-rate tensor
    replaced by another of the same value, then changed in place, must be the one the next step reads."""
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = Shifted()
        optimizer = t.optim.SGD(model.parameters(), lr=t.tensor(0.1))
        twins.append((optimizer, _step(model, optimizer)))
    (eager_opt, eager), (optimizer, step) = twins[0], (twins[1][0], t.compile(twins[1][1]))
    x, y = t.tensor(X), t.tensor(Y)
    for call in range(6):
        if call == 3:
            for opt in (eager_opt, optimizer):
                opt.param_groups[0]["lr"] = t.tensor(0.1)
        if call == 4:
            for opt in (eager_opt, optimizer):
                opt.param_groups[0]["lr"].fill_(-0.5)
        expected, got = eager(x, y), step(x, y)
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), call


def test_a_python_value_the_step_changes_is_seen_on_the_next_call(on_jax):
    """The walk's record is taken before the step runs: an attribute the step itself changes (an int counter)
    differs on the next call, which traces again with the new value (documented: recompiled every call)."""
    class Counter:
        calls = 0

    def make(counter):
        def scaled_sum(x):
            counter.calls += 1
            return (x * counter.calls).sum()
        return scaled_sum
    eager, step = make(Counter()), t.compile(make(Counter()))
    x = t.tensor(X)
    for call in range(4):
        assert step(x).item() == pytest.approx(eager(x).item()), call
    assert step.compilations == 4


def test_a_grad_kept_by_the_caller_keeps_its_values_and_the_next_call_makes_a_new_one(on_jax):
    """A warm step refills the ``.grad`` tensors it made last call when nothing else holds them; a ``.grad`` the
    caller kept (or a view of it) must keep the values it had, as eager code's fresh ``.grad`` leaves the old one."""
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = Shifted()
        optimizer = t.optim.SGD(model.parameters(), lr=0.1)
        twins.append((model, _step(model, optimizer)))
    (eager_model, eager), (model, step) = twins[0], (twins[1][0], t.compile(twins[1][1]))
    x, y = t.tensor(X), t.tensor(Y)
    for call in range(7):
        if call == 3:
            kept = _weight(model).grad
        if call == 5:
            kept = _weight(model).grad.view(-1)
        if call in (3, 5):
            values = kept.tolist()
        expected, got = eager(x, y), step(x, y)
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), call
        np.testing.assert_allclose(_weight(model).grad.numpy(), _weight(eager_model).grad.numpy(), rtol=1e-5)
        if call in (3, 5):
            assert kept.tolist() == values and _weight(model).grad is not kept, call
        if call == 2:  # two warm calls in a row: the first refilled the .grad tensors it had made
            assert step._fast is not None


def test_adam_step_counters_count_together_and_each_stays_its_own(on_jax):
    """Adam's per-parameter ``step`` counters, made and counted together, are one input and one count of the compiled
    program (they hold one array); each stays its own tensor: one changed in place between calls counts on its own,
    as in the eager step, and the state dict keeps a ``step`` per parameter."""
    twins = []
    for _ in range(2):
        t.manual_seed(0)
        model = Shifted()
        optimizer = t.optim.Adam(model.parameters(), lr=0.1)
        twins.append((model, optimizer, _step(model, optimizer)))
    (eager_model, eager_opt, eager), (model, optimizer, step) = twins
    step = t.compile(step)
    x, y = t.tensor(X), t.tensor(Y)
    for call in range(6):
        if call == 3:
            assert len(step._fast.program.donated) < len(step._fast.written)  # the counters: one donated input
            for opt, m in ((eager_opt, eager_model), (optimizer, model)):
                opt.state[_weight(m)]["step"].fill_(10.0)
        expected, got = eager(x, y), step(x, y)
        assert got.item() == pytest.approx(expected.item(), rel=1e-5), call
    assert [s["step"].item() for s in optimizer.state_dict()["state"].values()] == [13.0, 6.0]
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5)
