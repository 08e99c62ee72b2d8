"""nn.SyncBatchNorm against PyTorch 2.13 in one process (PyTorch without a process group): convert_sync_batchnorm
swaps every BatchNorm for one holding the same tensors, and the converted model trains as PyTorch's converted
model does (outputs, gradients, running statistics) on every backend."""
import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

X = np.cos(np.arange(2 * 2 * 3 * 3.0)).reshape(2, 2, 3, 3)  # float64: the gradients cancel to ~1e-4


def _model(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3), lib.nn.Flatten(),
                             lib.nn.Sequential(lib.nn.Linear(27, 4), lib.nn.BatchNorm1d(4, momentum=None))).double()


def _train(lib, model, steps=2):
    model.train()
    for _ in range(steps):
        model.zero_grad()
        out = model(lib.tensor(X))
        (out ** 2).mean().backward()
    return out, {name: p.grad for name, p in model.named_parameters()}


def test_converted_model_trains_as_pytorchs(backend):
    theirs = torch.nn.SyncBatchNorm.convert_sync_batchnorm(_model(torch))
    ours = xt.nn.SyncBatchNorm.convert_sync_batchnorm(_model(xt))
    ours.load_state_dict({k: xt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    (out, grads), (expected, expected_grads) = _train(xt, ours), _train(torch, theirs)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-9, atol=1e-12)
    for name, grad in expected_grads.items():
        np.testing.assert_allclose(grads[name].numpy(), grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)
    for name, buffer in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), buffer.numpy(), rtol=1e-9, atol=1e-12)


def test_conversion_keeps_the_very_tensors_and_the_mode():
    batchnorm = xt.nn.BatchNorm2d(3).eval()
    converted = xt.nn.SyncBatchNorm.convert_sync_batchnorm(batchnorm)
    assert type(converted) is xt.nn.SyncBatchNorm and converted.training is False
    assert converted.weight is batchnorm.weight and converted.running_mean is batchnorm.running_mean


def test_input_of_one_dimension_is_pytorchs_value_error():
    with pytest.raises(ValueError) as theirs:
        torch.nn.SyncBatchNorm(3)(torch.ones(3))
    with pytest.raises(ValueError, match=str(theirs.value).replace("(", r"\(").replace(")", r"\)")):
        xt.nn.SyncBatchNorm(3)(xt.ones(3))
