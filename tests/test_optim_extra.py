"""torch.optim's newest optimizers, Adafactor and Muon, against PyTorch 2.13: N steps from the same start give
PyTorch's parameters and optimizer state on every backend (the shared loss and checks are test_optim's)."""
import numpy as np
import pytest

import xtensor as xt
from test_optim import _assert_close, _assert_state_matches, _run

torch = pytest.importorskip("torch")

ADAFACTOR = {
    "default": lambda o, p: o.Adafactor(p),
    "decay-maximize-clipped": lambda o, p: o.Adafactor(p, lr=0.05, beta2_decay=-0.5, eps=(1e-3, 1e-2), d=1.5,
                                                       weight_decay=0.1, maximize=True),
}


def test_torch_optim_names_all_exist_in_xtensor_optim():
    missing = set(torch.optim.__all__) - set(dir(xt.optim))
    assert missing <= {"swap_in_optimizer_params_and_state"}  # a torch.fx tracing helper: nothing to trace here


@pytest.mark.parametrize("config", ADAFACTOR)
def test_adafactor_steps_give_pytorchs_parameters_and_state(backend, config):
    """The START weight is a matrix (factored second moments), the bias a vector (a full one)."""
    params, optimizer = _run(xt, ADAFACTOR[config], steps=5)
    expected, reference = _run(torch, ADAFACTOR[config], steps=5)
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs)
    _assert_state_matches(optimizer, reference)


def _stacked_run(lib):
    """Adafactor on a stack of matrices: the variance is factored over the last two dimensions only."""
    weight = lib.tensor(np.cos(np.arange(24.0)).reshape(2, 3, 4), dtype=lib.float32, requires_grad=True)
    optimizer = lib.optim.Adafactor([weight], lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        (weight.sin() * weight.sum(-1, keepdim=True)).sum().backward()
        optimizer.step()
    return weight, optimizer


def test_adafactor_factors_a_stack_of_matrices_over_their_last_two_dimensions():
    (weight, optimizer), (expected, reference) = _stacked_run(xt), _stacked_run(torch)
    _assert_close(weight, expected)
    _assert_state_matches(optimizer, reference)
    assert tuple(optimizer.state[weight]["row_var"].shape) == (2, 3, 1)


def _muon_run(lib, make_optimizer, steps=4):
    """Muon takes only matrices: a 5x3 (tall, so orthogonalized transposed) and a 3x4 weight."""
    tall = lib.tensor(np.sin(np.arange(15.0)).reshape(5, 3), dtype=lib.float32, requires_grad=True)
    wide = lib.tensor(np.cos(np.arange(12.0)).reshape(3, 4), dtype=lib.float32, requires_grad=True)
    optimizer = make_optimizer(lib.optim, [tall, wide])
    for _ in range(steps):
        optimizer.zero_grad()
        ((tall @ wide).tanh().sum() + (wide ** 2).sum()).backward()
        optimizer.step()
    return [tall, wide], optimizer


MUON = {
    "default": lambda o, p: o.Muon(p, lr=0.02),
    "plain-momentum-adamw-rms": lambda o, p: o.Muon(p, lr=0.02, weight_decay=0.05, momentum=0.8, nesterov=False,
                                                    adjust_lr_fn="match_rms_adamw"),
}
BFLOAT16_TOLERANCE = dict(rtol=1e-4, atol=1e-5)  # PyTorch's bfloat16 roundings, kept: only float32 sums may differ


@pytest.mark.parametrize("config", MUON)
def test_muon_steps_give_pytorchs_parameters_and_momentum(backend, config):
    params, optimizer = _muon_run(xt, MUON[config])
    expected, reference = _muon_run(torch, MUON[config])
    for ours, theirs in zip(params, expected):
        _assert_close(ours, theirs, **BFLOAT16_TOLERANCE)
    assert optimizer.state_dict()["param_groups"] == reference.state_dict()["param_groups"]
    for ours, theirs in zip(params, expected):
        _assert_close(optimizer.state[ours]["momentum_buffer"], reference.state[theirs]["momentum_buffer"],
                      **BFLOAT16_TOLERANCE)


def test_muon_refuses_parameters_that_are_not_matrices_as_pytorch():
    with pytest.raises(ValueError, match="Muon only supports 2D parameters") as ours:
        xt.optim.Muon([xt.zeros(3, requires_grad=True)])
    with pytest.raises(ValueError) as theirs:
        torch.optim.Muon([torch.zeros(3, requires_grad=True)])
    assert str(ours.value).replace("xtensor", "torch") == str(theirs.value)


@pytest.mark.parametrize("make", [lambda o, p: o.Adafactor(p, d=0.5), lambda o, p: o.Adafactor(p, beta2_decay=0.1),
                                  lambda o, p: o.Muon(p, adjust_lr_fn="unknown")])
def test_bad_hyperparameters_raise_pytorchs_value_error(make):
    with pytest.raises(ValueError) as theirs:
        make(torch.optim, [torch.zeros(2, 2, requires_grad=True)])
    with pytest.raises(ValueError, match=str(theirs.value)):
        make(xt.optim, [xt.zeros(2, 2, requires_grad=True)])


@pytest.mark.parametrize("name", ["Adafactor", "Muon"])
def test_signature_and_defaults_are_pytorchs(name):
    import inspect

    def defaults(cls):
        return {k: (v.kind, v.default) for k, v in inspect.signature(cls).parameters.items()}
    assert defaults(getattr(xt.optim, name)) == defaults(getattr(torch.optim, name))
