"""An eager ``optimizer.step()`` on jax runs as one cached program (``xtensor/optim/_fused.py``): the same parameters
and state as the step run op by op and as PyTorch 2.13, a learning-rate schedule without recompiling, arrays shared
with other tensors left intact, hyperparameters changed between steps honoured."""
import warnings

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")
pytest.importorskip("jax")

START = {"weight": np.linspace(-1.0, 1.2, 12).reshape(3, 4), "bias": np.array([0.3, -0.7, 0.05, 1.1])}
FUSED = {
    "sgd-nesterov-decay": lambda o, p: o.SGD(p, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01),
    "adamw-amsgrad": lambda o, p: o.AdamW(p, lr=0.05, weight_decay=0.3, amsgrad=True),
    "nadam-decoupled": lambda o, p: o.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "adagrad-decays": lambda o, p: o.Adagrad(p, lr=0.1, lr_decay=0.05, initial_accumulator_value=0.2),
    "rmsprop-centered": lambda o, p: o.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "rprop": lambda o, p: o.Rprop(p, lr=0.05),
}


def _loss(weight, bias):
    return (weight @ bias).tanh().sum() + 0.1 * (weight ** 2).sum() + (bias.sin() * bias).sum()


def _params(lib, dtype):
    return [lib.tensor(START[name], dtype=getattr(lib, dtype), requires_grad=True) for name in ("weight", "bias")]


def _train(lib, make_optimizer, steps, dtype="float32", fused=True, schedule=None):
    params = _params(lib, dtype)
    optimizer = make_optimizer(lib.optim, params)
    if not fused:
        optimizer._fusable = False
    scheduler = schedule(lib.optim.lr_scheduler, optimizer) if schedule else None
    for _ in range(steps):
        optimizer.zero_grad()
        _loss(*params).backward()
        optimizer.step()
        if scheduler:
            scheduler.step()
    return params, optimizer


def _programs(optimizer):
    return len(optimizer._fused_update().programs)


def _assert_same(ours, theirs, rtol=1e-6, atol=1e-7):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a.detach().numpy(), np.float64),
                                   np.asarray(b.detach().numpy(), np.float64), rtol=rtol, atol=atol)


def _states(optimizer):
    return [v for state in optimizer.state_dict()["state"].values() for v in state.values()]


@pytest.mark.parametrize("config", FUSED)
def test_the_eager_step_on_jax_is_one_program_with_the_per_op_steps_results(config):
    with xt.use_backend("jax"):
        params, optimizer = _train(xt, FUSED[config], steps=5)
        per_op, reference = _train(xt, FUSED[config], steps=5, fused=False)
    assert _programs(optimizer) == 1 and _programs(reference) == 0
    _assert_same(params, per_op)
    _assert_same(_states(optimizer), _states(reference))


@pytest.mark.parametrize("config", ["adamw-amsgrad", "nadam-decoupled"])
def test_float64_steps_round_their_bias_corrections_as_pytorch(config):
    """The step counters enter the program as float64 Python numbers would (weakly typed): 1e-12 from PyTorch."""
    with xt.use_backend("jax"):
        params, optimizer = _train(xt, FUSED[config], steps=6, dtype="float64")
    expected, _ = _train(torch, FUSED[config], steps=6, dtype="float64")
    assert _programs(optimizer) == 1
    _assert_same(params, expected, rtol=1e-12, atol=1e-12)


def test_a_learning_rate_schedule_runs_one_program_and_gives_pytorchs_parameters():
    def schedule(s, o):
        return s.ExponentialLR(o, gamma=0.7)
    with xt.use_backend("jax"):
        params, optimizer = _train(xt, FUSED["adamw-amsgrad"], steps=6, schedule=schedule)
    expected, _ = _train(torch, FUSED["adamw-amsgrad"], steps=6, schedule=schedule)
    assert _programs(optimizer) == 1
    _assert_same(params, expected, rtol=1e-5, atol=1e-6)


def test_a_tensor_learning_rate_is_an_input_of_the_program():
    def make(o, p):
        return o.Adam(p, lr=(xt if o is xt.optim else torch).tensor(0.05))
    with xt.use_backend("jax"):
        params, optimizer = _train(xt, make, steps=4)
    expected, _ = _train(torch, make, steps=4)
    assert _programs(optimizer) == 1
    _assert_same(params, expected, rtol=1e-5, atol=1e-6)


def test_a_tensor_sharing_a_parameters_array_keeps_its_value():
    """jax arrays are immutable and shared between tensors (``copy_``): such an array is not donated to the program."""
    with xt.use_backend("jax"):
        params = _params(xt, "float32")
        snapshot = xt.zeros(3, 4)
        snapshot.copy_(params[0].detach())
        optimizer = xt.optim.SGD(params, lr=0.1, momentum=0.9)
        for _ in range(3):
            optimizer.zero_grad()
            _loss(*params).backward()
            optimizer.step()
        assert _programs(optimizer) == 1
        np.testing.assert_array_equal(snapshot.numpy(), START["weight"].astype(np.float32))


def test_a_hyperparameter_changed_between_steps_gives_the_per_op_result():
    def cycled(lib):
        def train(momenta):
            params = _params(lib, "float32")
            optimizer = lib.optim.SGD(params, lr=0.05, momentum=0.9)
            if lib is xt and not momenta[1]:
                optimizer._fusable = False
            for momentum in momenta[0]:
                optimizer.param_groups[0]["momentum"] = momentum
                optimizer.zero_grad()
                _loss(*params).backward()
                optimizer.step()
            return params, optimizer
        return train
    momenta = [0.9, 0.9, 0.9, 0.5, 0.5, 0.5, 0.8, 0.7, 0.6]  # changed once, then every step
    with xt.use_backend("jax"), warnings.catch_warnings():
        warnings.simplefilter("error")
        params, optimizer = cycled(xt)((momenta, True))
        per_op, _ = cycled(xt)((momenta, False))
    assert _programs(optimizer) == 2  # momentum 0.9 and 0.5, each once stable; the cycled steps ran op by op
    _assert_same(params, per_op)


def test_after_eight_programs_the_optimizer_warns_once_and_stays_eager(monkeypatch):
    with xt.use_backend("jax"):
        params = _params(xt, "float32")
        optimizer = xt.optim.SGD(params, lr=0.05)
        with pytest.warns(UserWarning, match="8 programs compiled for this optimizer") as caught:
            for decay in np.repeat(np.linspace(0.0, 0.09, 10), 2):  # each value kept two steps: compiled
                optimizer.param_groups[0]["weight_decay"] = float(decay)
                optimizer.zero_grad()
                _loss(*params).backward()
                optimizer.step()
    assert len(caught) == 1 and _programs(optimizer) == 8


def test_a_step_inside_xtensor_compile_is_part_of_the_outer_program():
    """Inside a compiled step the arrays are tracers: the update is traced op by op into the outer program."""
    with xt.use_backend("jax"):
        params = _params(xt, "float32")
        optimizer = xt.optim.SGD(params, lr=0.1)

        @xt.compile
        def train_step():
            optimizer.zero_grad()
            loss = _loss(*params)
            loss.backward()
            optimizer.step()
            return loss

        for _ in range(4):
            train_step()
        eager, _ = _train(xt, lambda o, p: o.SGD(p, lr=0.1), steps=4, fused=False)
    assert train_step.compilations == 2 and _programs(optimizer) == 0  # without .grad, then with it
    _assert_same(params, eager)


def test_parameters_alternately_with_and_without_a_gradient_compile_both_structures():
    def train(fused):
        params = _params(xt, "float32")
        optimizer = xt.optim.Adam(params, lr=0.05)
        optimizer._fusable = fused
        for step in range(8):
            optimizer.zero_grad()
            (_loss(*params) if step % 2 else (params[0] ** 2).sum()).backward()
            optimizer.step()
        return params, optimizer
    with xt.use_backend("jax"):
        params, optimizer = train(True)
        per_op, _ = train(False)
    assert _programs(optimizer) == 2
    _assert_same(params, per_op)


def test_step_counters_count_together_and_each_stays_its_own():
    """The parameters' ``step`` counters, made and counted together, hold one array: one input and one count of the
    program (its outputs repeat it); each stays its own tensor, so one changed in place counts on its own."""
    with xt.use_backend("jax"):
        runs = []
        for fused in (True, False):
            params = _params(xt, "float32")
            optimizer = xt.optim.Adam(params, lr=0.05)
            if not fused:
                optimizer._fusable = False
            for call in range(6):
                if call == 3:
                    optimizer.state[params[0]]["step"].fill_(10.0)
                optimizer.zero_grad()
                _loss(*params).backward()
                optimizer.step()
                counters = [optimizer.state[p]["step"] for p in params]
                if call in (2, 5):
                    assert (counters[0]._value is counters[1]._value) == (call == 2)
            runs.append((params, optimizer))
    (params, optimizer), (per_op, reference) = runs
    assert [s["step"].item() for s in optimizer.state_dict()["state"].values()] == [13.0, 6.0]
    assert any(program.repeats for program in optimizer._fused_update().programs.values())  # the shared count
    _assert_same(params, per_op)
    _assert_same(_states(optimizer), _states(reference))
