"""xtensor.optim.swa_utils against PyTorch 2.13: averaged models (SWA running mean, EMA through avg_fn and
multi_avg_fn, with and without buffers) and update_bn give PyTorch's parameters and statistics on every backend."""
import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

BATCHES = [np.cos(np.arange(18.0) * (k + 1)).reshape(6, 3).astype(np.float32) for k in range(4)]


def _model(lib):
    """A small model with a BatchNorm, fixed weights (the same in both libraries)."""
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.tensor(np.sin(np.arange(p.numel()) + i).reshape(tuple(p.shape)), dtype=lib.float32))
    return model


AVERAGES = {
    "swa": lambda swa, m: swa.AveragedModel(m),
    "ema-multi": lambda swa, m: swa.AveragedModel(m, multi_avg_fn=swa.get_ema_multi_avg_fn(0.8)),
    "ema-single-with-buffers": lambda swa, m: swa.AveragedModel(m, avg_fn=swa.get_ema_avg_fn(0.7), use_buffers=True),
    "swa-single-fn": lambda swa, m: swa.AveragedModel(m, avg_fn=swa.get_swa_avg_fn()),
}


def _average_while_training(lib, make_average):
    model = _model(lib)
    averaged = make_average(lib.optim.swa_utils, model)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for batch in BATCHES:
        optimizer.zero_grad()
        (model(lib.tensor(batch)) ** 2).mean().backward()
        optimizer.step()
        averaged.update_parameters(model)
    return averaged


@pytest.mark.parametrize("average", AVERAGES)
def test_averaged_models_follow_pytorch(backend, average):
    ours, theirs = _average_while_training(xt, AVERAGES[average]), _average_while_training(torch, AVERAGES[average])
    assert int(ours.n_averaged) == int(theirs.n_averaged) == len(BATCHES)
    for (name, ours_value), (_, expected) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert ours_value.backend == backend, name
        np.testing.assert_allclose(ours_value.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    x = BATCHES[0]
    np.testing.assert_allclose(ours.eval()(xt.tensor(x)).detach().numpy(),
                               theirs.eval()(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_update_bn_recomputes_the_running_statistics_as_pytorch(backend):
    def run(lib):
        model = _model(lib).eval()
        lib.optim.swa_utils.update_bn([(lib.tensor(b), 0) for b in BATCHES], model)
        batch_norm = model[1]
        return model.training, batch_norm.momentum, batch_norm.running_mean, batch_norm.running_var

    (training, momentum, mean, var), expected = run(xt), run(torch)
    assert (training, momentum) == expected[:2] == (False, 0.1)
    np.testing.assert_allclose(mean.numpy(), expected[2].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.numpy(), expected[3].numpy(), rtol=1e-5, atol=1e-6)


def test_an_averaged_model_refuses_two_averaging_functions_as_pytorch():
    for lib in (xt, torch):
        swa = lib.optim.swa_utils
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
            swa.AveragedModel(_model(lib), avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_multi_avg_fn())
        with pytest.raises(ValueError, match="Invalid decay value 1.5 provided"):
            swa.get_ema_avg_fn(1.5)
