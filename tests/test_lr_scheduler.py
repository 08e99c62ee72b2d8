"""xtensor.optim.lr_scheduler against PyTorch 2.13: the same learning rates (and cycled momenta) epoch by
epoch, the same parameters when an optimizer trains under them on every backend, state dicts, errors."""
import math
import warnings

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

WEIGHT, BIAS = np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.array([0.5, -0.25])


def _sgd(lib, momentum=0.9):
    weight = lib.tensor(WEIGHT, dtype=lib.float32, requires_grad=True)
    bias = lib.tensor(BIAS, dtype=lib.float32, requires_grad=True)
    return lib.optim.SGD([{"params": [weight], "lr": 0.1}, {"params": [bias]}], lr=0.05, momentum=momentum)


def _adam(lib):
    weight = lib.tensor(WEIGHT, dtype=lib.float32, requires_grad=True)
    return lib.optim.Adam([weight], lr=0.01)


SCHEDULES = {
    "step": (_sgd, lambda s, o: s.StepLR(o, step_size=3, gamma=0.5)),
    "multistep": (_sgd, lambda s, o: s.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.1)),
    "exponential": (_sgd, lambda s, o: s.ExponentialLR(o, gamma=0.9)),
    "cosine": (_sgd, lambda s, o: s.CosineAnnealingLR(o, T_max=4, eta_min=0.001)),
    "lambda": (_sgd, lambda s, o: s.LambdaLR(o, lambda epoch: 0.95 ** epoch)),
    "lambda-per-group": (_sgd, lambda s, o: s.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5 ** e])),
    "linear": (_sgd, lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=4)),
    "onecycle-momentum": (_sgd, lambda s, o: s.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=12)),
    "onecycle-adam-three-phase-linear": (_adam, lambda s, o: s.OneCycleLR(
        o, max_lr=0.05, epochs=3, steps_per_epoch=4, pct_start=0.25, anneal_strategy="linear", three_phase=True)),
    "multiplicative": (_sgd, lambda s, o: s.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1 - 0.01 * e])),
    "constant": (_sgd, lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=4)),
    "polynomial": (_sgd, lambda s, o: s.PolynomialLR(o, total_iters=8, power=2.0)),
    "cosine-warm-restarts": (_sgd, lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)),
    "cyclic-triangular2": (_sgd, lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.05], step_size_up=2,
                                                         step_size_down=3, mode="triangular2")),
    "cyclic-exp-range-adam": (_adam, lambda s, o: s.CyclicLR(o, base_lr=0.001, max_lr=0.01, step_size_up=3,
                                                             mode="exp_range", gamma=0.9)),
    "sequential": (_sgd, lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=3),
                                                         s.ExponentialLR(o, gamma=0.8)], milestones=[4])),
    "chained": (_sgd, lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=3),
                                                       s.ExponentialLR(o, gamma=0.9)])),
    "swalr-cos": (_sgd, lambda s, o: _swa_utils(s).SWALR(o, swa_lr=0.02, anneal_epochs=5)),
    "swalr-linear": (_adam, lambda s, o: _swa_utils(s).SWALR(o, swa_lr=[0.002], anneal_epochs=3,
                                                            anneal_strategy="linear")),
}


def _swa_utils(lr_scheduler):
    """The ``swa_utils`` next to an ``lr_scheduler`` module (SWALR is a scheduler of its own)."""
    return xt.optim.swa_utils if lr_scheduler is xt.optim.lr_scheduler else torch.optim.swa_utils


def _train(lib, make_optimizer, make_scheduler, epochs=12):
    """One optimizer step per epoch (a loss over every parameter), then one scheduler step; the trace of
    learning rates and momenta."""
    optimizer = make_optimizer(lib)
    scheduler = make_scheduler(lib.optim.lr_scheduler, optimizer)
    trace = []
    for _ in range(epochs):
        optimizer.zero_grad()
        sum(((p * p).sum() + p.sum()) for g in optimizer.param_groups for p in g["params"]).backward()
        optimizer.step()
        scheduler.step()
        trace.append((scheduler.get_last_lr(), [g.get("momentum", g.get("betas")) for g in optimizer.param_groups]))
    return trace, optimizer


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_learning_rates_and_parameters_follow_pytorch(backend, schedule):
    ours, optimizer = _train(xt, *SCHEDULES[schedule])
    theirs, reference = _train(torch, *SCHEDULES[schedule])
    assert ours == theirs  # the same floating-point operations in the same order
    for group, ref_group in zip(optimizer.param_groups, reference.param_groups):
        for p, q in zip(group["params"], ref_group["params"]):
            assert p.backend == backend
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode, threshold_mode", [("min", "rel"), ("max", "abs")])
def test_reduce_on_plateau_cuts_as_pytorch(mode, threshold_mode):
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.5, 0.5, 0.5, 0.49, 0.6, 0.7, 0.8, 0.8, 0.8]

    def run(lib):
        optimizer = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, mode=mode, factor=0.5, patience=1, threshold=0.05, threshold_mode=threshold_mode,
            cooldown=1, min_lr=[0.02, 0.0])
        lrs = []
        for metric in metrics:
            scheduler.step(lib.tensor(metric))
            lrs.append(scheduler.get_last_lr())
        return lrs, scheduler.num_bad_epochs, scheduler.best

    assert run(xt) == run(torch)


@pytest.mark.parametrize("schedule", ["step", "cosine", "onecycle-momentum", "cosine-warm-restarts", "cyclic-triangular2",
                                      "sequential", "chained", "swalr-cos"])
def test_a_resumed_scheduler_continues_the_same_schedule(schedule):
    make_optimizer, make_scheduler = SCHEDULES[schedule]
    uninterrupted, _ = _train(xt, make_optimizer, make_scheduler, epochs=10)
    optimizer = make_optimizer(xt)
    scheduler = make_scheduler(xt.optim.lr_scheduler, optimizer)
    for _ in range(4):
        optimizer.step()
        scheduler.step()
    saved_optimizer, saved_scheduler = optimizer.state_dict(), scheduler.state_dict()
    assert "optimizer" not in saved_scheduler
    optimizer = make_optimizer(xt)
    scheduler = make_scheduler(xt.optim.lr_scheduler, optimizer)  # before loading the optimizer, as PyTorch asks
    optimizer.load_state_dict(saved_optimizer)
    scheduler.load_state_dict(saved_scheduler)
    resumed = []
    for _ in range(6):
        optimizer.step()
        scheduler.step()
        resumed.append(scheduler.get_last_lr())
    assert resumed == [lrs for lrs, _ in uninterrupted[4:]]


@pytest.mark.parametrize("schedule", ["step", "multistep", "exponential", "linear", "cosine", "constant", "polynomial"])
def test_step_with_an_epoch_uses_the_closed_form_and_warns(schedule):
    def run(lib):
        optimizer = _sgd(lib)
        scheduler = SCHEDULES[schedule][1](lib.optim.lr_scheduler, optimizer)
        optimizer.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            scheduler.step(7)
        return scheduler.get_last_lr()

    assert run(xt) == pytest.approx(run(torch), rel=1e-12)


def test_stepping_the_scheduler_before_the_optimizer_warns_as_pytorch():
    scheduler = xt.optim.lr_scheduler.StepLR(_sgd(xt), step_size=2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        scheduler.step()
    optimizer = _sgd(xt)
    scheduler = xt.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step()


def test_get_lr_called_directly_warns_to_use_get_last_lr():
    scheduler = xt.optim.lr_scheduler.ExponentialLR(_sgd(xt), gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        scheduler.get_lr()


def test_cosine_annealing_reaches_eta_min_at_t_max():
    trace, _ = _train(xt, _sgd, lambda s, o: s.CosineAnnealingLR(o, T_max=5, eta_min=0.001), epochs=5)
    assert trace[-1][0] == pytest.approx([0.001, 0.001])
    assert trace[1][0][0] == pytest.approx(0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * 2 / 5)) / 2)


@pytest.mark.parametrize("make, error, message", [
    (lambda s, o: s.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (lambda s, o: s.StepLR(o, 2, last_epoch=3), KeyError, "param 'initial_lr' is not specified in param_groups\\[0\\]"),
    (lambda s, o: s.LambdaLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (lambda s, o: s.LinearLR(o, start_factor=0), ValueError, "Starting multiplicative factor expected"),
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1), ValueError, "You must define either total_steps OR"),
    (lambda s, o: s.OneCycleLR(o, max_lr=[0.1], total_steps=5), ValueError,
     "max_lr must have the same length as optimizer.param_groups"),
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=5, pct_start=1), ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    (lambda s, o: s.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda s, o: s.ReduceLROnPlateau(o, mode="up"), ValueError, "mode up is unknown!"),
    (lambda s, o: s.MultiplicativeLR(o, 0.9), TypeError, "lr_lambda should be a function, but got float"),
    (lambda s, o: s.ConstantLR(o, factor=2.0), ValueError, "Constant multiplicative factor expected"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "Expected positive integer T_0, but got 0"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError, "Expected integer T_mult >= 1"),
    (lambda s, o: s.CyclicLR(o, 0.01, 0.1, mode="sawtooth"), ValueError, "mode is invalid and scale_fn is None"),
    (lambda s, o: s.SequentialLR(o, [s.StepLR(o, 2)], milestones=[3]), ValueError,
     "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone"),
    (lambda s, o: s.SequentialLR(o, [s.ReduceLROnPlateau(o)], milestones=[]), ValueError,
     "SequentialLR does not support `ReduceLROnPlateau` scheduler"),
    (lambda s, o: s.ChainedScheduler([]), ValueError, "ChainedScheduler expects at least one scheduler to be chained"),
])
def test_bad_arguments_raise_pytorchs_errors(make, error, message):
    with pytest.raises(error, match=message):
        make(torch.optim.lr_scheduler, _sgd(torch))
    with pytest.raises(error, match=message):
        make(xt.optim.lr_scheduler, _sgd(xt))


def test_one_cycle_refuses_to_step_past_its_total():
    for lib in (torch, xt):
        optimizer = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=2)
        optimizer.step()
        scheduler.step()
        scheduler.step()
        with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
            scheduler.step()


def test_cosine_warm_restarts_takes_fractional_epochs_as_pytorch():
    def run(lib):
        optimizer = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=3, eta_min=0.01)
        optimizer.step()
        lrs = []
        for epoch in (0.5, 1.25, 2.0, 4.75, 9.5, 30.0):
            scheduler.step(epoch)
            lrs.append(scheduler.get_last_lr())
        return lrs, scheduler.T_i, scheduler.T_cur

    assert run(xt) == run(torch)
