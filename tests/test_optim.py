"""xtensor.optim against PyTorch 2.13: the same start and the same loss give PyTorch's parameters and
optimizer state after several steps, on every backend; groups, state dicts (both ways), zero_grad and errors."""
import numpy as np
import pytest

import xtensor as xt
from xtensor import optim

torch = pytest.importorskip("torch")

START = {"weight": np.linspace(-1.0, 1.2, 12).reshape(3, 4), "bias": np.array([0.3, -0.7, 0.05, 1.1])}


def _loss(lib, weight, bias):
    """A non-quadratic loss of two parameters, written once for both libraries."""
    return (weight @ bias).tanh().sum() + 0.1 * (weight ** 2).sum() + (bias.sin() * bias).sum()


def _params(lib, dtype="float32"):
    return [lib.tensor(START[name], dtype=getattr(lib, dtype), requires_grad=True) for name in ("weight", "bias")]


def _run(lib, make_optimizer, steps, dtype="float32"):
    params = _params(lib, dtype)
    optimizer = make_optimizer(getattr(lib, "optim"), params)
    for _ in range(steps):
        optimizer.zero_grad()
        _loss(lib, *params).backward()
        optimizer.step()
    return params, optimizer


def _assert_close(ours, theirs, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(ours.detach().numpy(), dtype=np.float64),
                               theirs.detach().numpy().astype(np.float64), rtol=rtol, atol=atol)


def _assert_state_matches(optimizer, reference):
    ours, theirs = optimizer.state_dict(), reference.state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys()
    for index, state in theirs["state"].items():
        assert ours["state"][index].keys() == state.keys()
        for key, value in state.items():
            _assert_close(ours["state"][index][key], value)
            assert str(ours["state"][index][key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1]


CONFIGS = {
    "sgd": lambda o, p: o.SGD(p, lr=0.1),
    "sgd-momentum": lambda o, p: o.SGD(p, lr=0.1, momentum=0.9),
    "sgd-dampening-decay": lambda o, p: o.SGD(p, lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.01),
    "sgd-nesterov-maximize": lambda o, p: o.SGD(p, lr=0.05, momentum=0.8, nesterov=True, maximize=True),
    "adam": lambda o, p: o.Adam(p, lr=0.05),
    "adam-amsgrad-decay": lambda o, p: o.Adam(p, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True),
    "adam-maximize": lambda o, p: o.Adam(p, lr=0.01, maximize=True),
    "adamw": lambda o, p: o.AdamW(p, lr=0.05),
    "adamw-amsgrad": lambda o, p: o.AdamW(p, lr=0.05, weight_decay=0.3, amsgrad=True),
    "rmsprop": lambda o, p: o.RMSprop(p, lr=0.01),
    "rmsprop-centered-momentum": lambda o, p: o.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True),
    "rmsprop-decay-maximize": lambda o, p: o.RMSprop(p, lr=0.01, weight_decay=0.1, maximize=True),
    "adagrad": lambda o, p: o.Adagrad(p, lr=0.1),
    "adagrad-decays": lambda o, p: o.Adagrad(p, lr=0.1, lr_decay=0.05, weight_decay=0.1,
                                             initial_accumulator_value=0.2),
    "adagrad-maximize": lambda o, p: o.Adagrad(p, lr=0.1, maximize=True),
    "adam-decoupled-decay": lambda o, p: o.Adam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "adamax": lambda o, p: o.Adamax(p, lr=0.05),
    "adamax-decay-maximize": lambda o, p: o.Adamax(p, lr=0.05, betas=(0.7, 0.9), weight_decay=0.1, maximize=True),
    "nadam": lambda o, p: o.NAdam(p, lr=0.05),
    "nadam-decoupled-decay": lambda o, p: o.NAdam(p, lr=0.05, betas=(0.8, 0.95), weight_decay=0.1,
                                                  momentum_decay=0.01, decoupled_weight_decay=True),
    "nadam-decay-maximize": lambda o, p: o.NAdam(p, lr=0.05, weight_decay=0.1, maximize=True),
    "radam": lambda o, p: o.RAdam(p, lr=0.05, betas=(0.9, 0.9)),  # rectified from step 6 on
    "radam-decoupled-decay-maximize": lambda o, p: o.RAdam(p, lr=0.05, betas=(0.3, 0.9), weight_decay=0.1,
                                                           decoupled_weight_decay=True, maximize=True),
    "radam-decay": lambda o, p: o.RAdam(p, lr=0.05, weight_decay=0.1),
    "adadelta": lambda o, p: o.Adadelta(p),
    "adadelta-decay-maximize": lambda o, p: o.Adadelta(p, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1,
                                                       maximize=True),
    "asgd": lambda o, p: o.ASGD(p, lr=0.05),
    "asgd-averaging": lambda o, p: o.ASGD(p, lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.05),
    "asgd-maximize": lambda o, p: o.ASGD(p, lr=0.05, t0=0, maximize=True),
    "rprop": lambda o, p: o.Rprop(p, lr=0.05),
    "rprop-bounds-maximize": lambda o, p: o.Rprop(p, lr=0.05, etas=(0.4, 1.5), step_sizes=(0.01, 0.08),
                                                  maximize=True),
}


@pytest.mark.parametrize("config", CONFIGS)
def test_steps_give_pytorchs_parameters_and_state(backend, config):
    params, optimizer = _run(xt, CONFIGS[config], steps=7)
    expected, reference = _run(torch, CONFIGS[config], steps=7)
    assert params[0].backend == backend
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs)
    _assert_state_matches(optimizer, reference)


@pytest.mark.parametrize("config", ["sgd-momentum", "adam-amsgrad-decay", "rmsprop-centered-momentum", "adagrad",
                                    "adamax-decay-maximize", "nadam-decoupled-decay", "radam", "adadelta",
                                    "asgd-averaging", "rprop-bounds-maximize"])
def test_float64_parameters_follow_pytorch_closely(config):
    params, optimizer = _run(xt, CONFIGS[config], steps=7, dtype="float64")
    expected, reference = _run(torch, CONFIGS[config], steps=7, dtype="float64")
    for ours, theirs in zip(params, expected):
        assert ours.dtype == xt.float64
        _assert_close(ours, theirs, rtol=1e-12, atol=1e-12)
    _assert_state_matches(optimizer, reference)


def _grouped(o, p):
    return o.SGD([{"params": [p[0]], "lr": 0.2}, {"params": [p[1]], "momentum": 0.5}], lr=0.05)


def test_param_groups_keep_their_own_hyperparameters(backend):
    params, optimizer = _run(xt, _grouped, steps=4)
    expected, reference = _run(torch, _grouped, steps=4)
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs)
    assert [g["lr"] for g in optimizer.param_groups] == [0.2, 0.05]
    _assert_state_matches(optimizer, reference)


def test_add_param_group_takes_the_defaults_and_optimizes_the_new_group(backend):
    def run(lib):
        weight, bias = _params(lib)
        optimizer = lib.optim.Adam([weight], lr=0.05)
        optimizer.add_param_group({"params": bias, "lr": 0.01})
        for _ in range(3):
            optimizer.zero_grad()
            _loss(lib, weight, bias).backward()
            optimizer.step()
        return (weight, bias), optimizer

    (weight, bias), optimizer = run(xt)
    (t_weight, t_bias), reference = run(torch)
    _assert_close(weight, t_weight)
    _assert_close(bias, t_bias)
    assert optimizer.param_groups[1]["betas"] == (0.9, 0.999) and optimizer.param_groups[1]["lr"] == 0.01
    _assert_state_matches(optimizer, reference)


def _to_xtensor(value):
    if isinstance(value, torch.Tensor):
        return xt.tensor(value.numpy())
    if isinstance(value, dict):
        return {k: _to_xtensor(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("config", ["sgd-momentum", "adam-amsgrad-decay", "rmsprop-centered-momentum", "adagrad",
                                    "nadam", "asgd-averaging", "rprop"])
def test_a_pytorch_state_dict_loads_and_training_continues_as_in_pytorch(backend, config):
    expected, reference = _run(torch, CONFIGS[config], steps=3)
    params = [xt.tensor(p.detach().numpy(), requires_grad=True) for p in expected]
    optimizer = CONFIGS[config](optim, params)
    optimizer.load_state_dict(_to_xtensor(reference.state_dict()))
    for state in optimizer.state.values():
        assert all(v.backend == backend for v in state.values() if isinstance(v, xt.Tensor))
    for _ in range(3):
        for opt, ps, lib in ((optimizer, params, xt), (reference, expected, torch)):
            opt.zero_grad()
            _loss(lib, *ps).backward()
            opt.step()
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs)
    _assert_state_matches(optimizer, reference)


def test_loaded_state_takes_the_parameters_dtype_but_step_keeps_its_own():
    params, optimizer = _run(xt, CONFIGS["adam"], steps=2)
    doubles = [p.detach().double().requires_grad_() for p in params]
    restored = optim.Adam(doubles, lr=0.05)
    restored.load_state_dict(optimizer.state_dict())
    state = restored.state[doubles[0]]
    assert state["exp_avg"].dtype == xt.float64 and state["step"].dtype == xt.float32


def test_load_state_dict_refuses_mismatched_groups():
    _, optimizer = _run(xt, CONFIGS["adam"], steps=1)
    weight, bias = _params(xt)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.Adam([{"params": [weight]}, {"params": [bias]}]).load_state_dict(optimizer.state_dict())
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optim.Adam([weight]).load_state_dict(optimizer.state_dict())


def test_zero_grad_drops_the_gradients_or_zeroes_them():
    params, optimizer = _run(xt, CONFIGS["sgd"], steps=1)
    _loss(xt, *params).backward()
    optimizer.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in params)
    optimizer.zero_grad()
    assert all(p.grad is None for p in params)


def test_parameters_without_a_gradient_are_left_alone():
    weight, bias = _params(xt)
    optimizer = optim.Adam([weight, bias], lr=0.1)
    (weight ** 2).sum().backward()
    optimizer.step()
    assert bias.tolist() == pytest.approx(START["bias"].tolist()) and bias not in optimizer.state
    assert weight in optimizer.state


def test_step_returns_the_closures_loss_computed_with_grad_enabled():
    weight, bias = _params(xt)
    optimizer = optim.SGD([weight, bias], lr=0.1)

    def closure():
        optimizer.zero_grad()
        loss = _loss(xt, weight, bias)
        loss.backward()
        return loss

    with xt.no_grad():
        loss = optimizer.step(closure)
    assert loss.item() == pytest.approx(_loss(torch, *_params(torch)).item(), rel=1e-6)


@pytest.mark.parametrize("config", ["sgd-dampening-decay", "adam", "adamw-amsgrad", "rmsprop", "adagrad-decays",
                                    "adamax", "nadam", "radam", "adadelta", "asgd", "rprop"])
def test_repr_is_pytorchs(config):
    assert repr(CONFIGS[config](optim, _params(xt))) == repr(CONFIGS[config](torch.optim, _params(torch)))


def test_parameters_of_a_module_and_named_parameters_are_accepted():
    model = xt.nn.Linear(3, 2)
    assert len(optim.SGD(model.parameters(), lr=0.1).param_groups[0]["params"]) == 2
    group = optim.SGD(model.named_parameters(), lr=0.1).param_groups[0]
    assert group["param_names"] == ["weight", "bias"] and group["params"][0] is model.weight


@pytest.mark.parametrize("make, error, message", [
    (lambda o, p: o.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (lambda o, p: o.SGD([p[0] * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda o, p: o.SGD(p[0], lr=0.1), TypeError, "params argument given to the optimizer should be an iterable"),
    (lambda o, p: o.SGD([p[0], 1.0], lr=0.1), TypeError, "optimizer can only optimize Tensors"),
    (lambda o, p: o.SGD([{"params": {p[0]}}], lr=0.1), TypeError, "organized in ordered collections"),
    (lambda o, p: o.SGD([{"params": [p[0]]}, {"params": [p[0]]}]), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda o, p: o.SGD(p, lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
    (lambda o, p: o.SGD(p, lr=0.1, nesterov=True), ValueError, "Nesterov momentum requires a momentum"),
    (lambda o, p: o.Adam(p, betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
    (lambda o, p: o.RMSprop(p, alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda o, p: o.Adagrad(p, lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda o, p: o.NAdam(p, momentum_decay=-1), ValueError, "Invalid momentum_decay value: -1"),
    (lambda o, p: o.Adadelta(p, rho=1.5), ValueError, "Invalid rho value: 1.5"),
    (lambda o, p: o.Rprop(p, etas=(1.5, 1.2)), ValueError, "Invalid eta values: 1.5, 1.2"),
    (lambda o, p: o.SparseAdam(p, lr=0.0), ValueError, "Invalid learning rate: 0.0"),
    (lambda o, p: o.LBFGS([{"params": p[:1]}, {"params": p[1:]}]), ValueError,
     "LBFGS doesn't support per-parameter options"),
])
def test_bad_arguments_raise_pytorchs_errors(make, error, message):
    with pytest.raises(error, match=message):
        make(torch.optim, _params(torch))
    with pytest.raises(error, match=message):
        make(optim, _params(xt))


def test_an_adam_step_compiles_on_jax_and_matches_pytorch():
    pytest.importorskip("jax")
    with xt.use_backend("jax"):
        params = _params(xt)
        optimizer = optim.Adam(params, lr=0.05, amsgrad=True)

        @xt.compile
        def train_step():
            optimizer.zero_grad()
            loss = _loss(xt, *params)
            loss.backward()
            optimizer.step()
            return loss

        for _ in range(4):
            train_step()
    expected, reference = _run(torch, lambda o, p: o.Adam(p, lr=0.05, amsgrad=True), steps=4)
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs)
    _assert_state_matches(optimizer, reference)
    assert train_step.compilations == 2  # the step that makes the state, then the steady step


# -------------------------------------------------------------------------------------------------------- LBFGS
LBFGS_CONFIGS = {
    "fixed-step": dict(lr=0.5, max_iter=5),
    "strong-wolfe": dict(lr=1, max_iter=6, history_size=3, line_search_fn="strong_wolfe"),
}


def _run_lbfgs(lib, options, steps, dtype="float64"):
    """LBFGS as the PyTorch docs use it: ``step(closure)``, the closure zeroing, evaluating, backpropagating."""
    params = _params(lib, dtype)
    optimizer = lib.optim.LBFGS(params, **options)
    calls, losses = [0], []

    def closure():
        calls[0] += 1
        optimizer.zero_grad()
        loss = _loss(lib, *params)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(optimizer.step(closure).item())
    return params, optimizer, losses, calls[0]


@pytest.mark.parametrize("config", LBFGS_CONFIGS)
def test_lbfgs_iterates_calls_the_closure_and_keeps_state_as_pytorch(backend, config):
    params, optimizer, losses, calls = _run_lbfgs(xt, LBFGS_CONFIGS[config], steps=2)
    expected, reference, expected_losses, expected_calls = _run_lbfgs(torch, LBFGS_CONFIGS[config], steps=2)
    assert calls == expected_calls and params[0].backend == backend
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-10)
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs, rtol=1e-9, atol=1e-10)
    ours_state, theirs_state = optimizer.state[params[0]], reference.state[expected[0]]
    assert ours_state.keys() == theirs_state.keys()
    assert (ours_state["func_evals"], ours_state["n_iter"]) == (theirs_state["func_evals"], theirs_state["n_iter"])
    for key in ("d", "prev_flat_grad"):
        _assert_close(ours_state[key], theirs_state[key], rtol=1e-9, atol=1e-10)
    assert len(ours_state["old_dirs"]) == len(theirs_state["old_dirs"])
    assert float(ours_state["t"]) == pytest.approx(float(theirs_state["t"]), rel=1e-9)


def test_lbfgs_stops_at_once_when_the_gradient_is_below_tolerance():
    weight = xt.zeros(3, dtype=xt.float64, requires_grad=True)
    optimizer = optim.LBFGS([weight])

    def closure():
        optimizer.zero_grad()
        loss = (weight ** 2).sum()
        loss.backward()
        return loss

    assert optimizer.step(closure).item() == 0.0
    assert optimizer.state[weight] == {"func_evals": 1, "n_iter": 0}


# --------------------------------------------------------------------------------------- options and layout
DIFFERENTIABLE = {
    "sgd-nesterov-maximize": lambda o, p: o.SGD(p, lr=0.05, momentum=0.8, nesterov=True, maximize=True,
                                                differentiable=True),
    "adam-amsgrad-decay": lambda o, p: o.Adam(p, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True,
                                              differentiable=True),
    "nadam-decoupled-decay": lambda o, p: o.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True,
                                                  differentiable=True),
}


@pytest.mark.parametrize("config", DIFFERENTIABLE)
def test_differentiable_updates_carry_gradients_to_what_the_parameters_came_from_as_pytorch(config):
    def run(lib):
        leaf = lib.tensor(START["bias"], dtype=lib.float64, requires_grad=True)
        param = leaf * 1.5  # a non-leaf: the update joins its graph
        param.grad = lib.tensor([0.1, -0.2, 0.3, 0.05], dtype=lib.float64)
        DIFFERENTIABLE[config](lib.optim, [param]).step()
        (param ** 2).sum().backward()
        return param, leaf.grad

    (param, grad), (expected, expected_grad) = run(xt), run(torch)
    assert param.grad_fn is not None
    # PyTorch's differentiable formulas take the bias corrections as float32 0-d tensors; ours as Python floats
    _assert_close(param, expected, rtol=1e-6, atol=1e-9)
    _assert_close(grad, expected_grad, rtol=1e-6, atol=1e-9)


SPARSE_GRADIENTS = [([[1, 3, 1]], [[0.5, -1.0], [2.0, 0.25], [-0.5, 1.5]]),  # row 1 twice: coalesced
                    ([[4, 0]], [[1.0, 1.0], [-2.0, 0.5]]),
                    ([[3]], [[0.75, -0.25]])]


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_moves_only_the_rows_a_sparse_gradient_holds_as_pytorch(backend, maximize):
    def run(lib):
        param = lib.tensor(np.linspace(-1.0, 1.0, 10).reshape(5, 2), dtype=lib.float64, requires_grad=True)
        optimizer = lib.optim.SparseAdam([param], lr=0.1, betas=(0.8, 0.9), maximize=maximize)
        for indices, values in SPARSE_GRADIENTS:
            param.grad = lib.sparse_coo_tensor(indices, lib.tensor(values, dtype=lib.float64), (5, 2))
            optimizer.step()
        return param, optimizer.state[param]

    (param, state), (expected, expected_state) = run(xt), run(torch)
    assert param.backend == backend and state["step"] == expected_state["step"] == 3
    _assert_close(param, expected, rtol=1e-12, atol=1e-12)
    for key in ("exp_avg", "exp_avg_sq"):
        _assert_close(state[key], expected_state[key], rtol=1e-12, atol=1e-12)


def test_sparse_adam_refuses_dense_gradients_as_pytorch():
    for lib in (xt, torch):
        params = _params(lib)
        optimizer = lib.optim.SparseAdam(params, lr=0.1)
        _loss(lib, *params).backward()
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
            optimizer.step()


OPTIMIZERS = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "NAdam", "RAdam", "RMSprop", "Rprop",
              "SGD", "SparseAdam"]  # all of torch.optim but Adafactor and Muon


def test_optimizers_options_are_pytorchs():
    """Every optimizer takes PyTorch's keyword arguments, with PyTorch's defaults (so its groups match)."""
    import inspect
    for name in OPTIMIZERS:
        expected = {k: v.default for k, v in inspect.signature(getattr(torch.optim, name)).parameters.items()}
        assert {k: v.default for k, v in inspect.signature(getattr(optim, name)).parameters.items()} == expected, name


SUBMODULES = ["optimizer", "lr_scheduler", "sgd", "adam", "adamw", "adamax", "nadam", "radam", "adadelta", "asgd",
              "rprop", "lbfgs", "sparse_adam", "swa_utils", "adagrad", "rmsprop"]


@pytest.mark.parametrize("submodule", SUBMODULES)
def test_submodules_are_pytorchs_and_hold_the_same_objects(submodule):
    import importlib
    ours, theirs = importlib.import_module(f"xtensor.optim.{submodule}"), importlib.import_module(f"torch.optim.{submodule}")
    public = [name for name in theirs.__all__ if name[0].isupper() or submodule in ("lr_scheduler", "swa_utils")]
    assert public and all(hasattr(ours, name) for name in public), set(public) - set(dir(ours))
    for name in public:
        if hasattr(optim, name):
            assert getattr(ours, name) is getattr(optim, name)
