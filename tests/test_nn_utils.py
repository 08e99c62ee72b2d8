"""nn.utils (gradient clipping, parameters <-> vector) against PyTorch 2.13 on every backend."""
import math

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

VALUES = [np.linspace(-2.0, 3.0, 6).reshape(2, 3), np.array([0.5, -4.0]), np.array([[1.5]])]


def _with_grads(lib):
    params = [lib.tensor(v, dtype=lib.float32, requires_grad=True) for v in VALUES]
    sum((p ** 3).sum() for p in params[:2]).backward()  # the last parameter gets no gradient
    return params


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (0.5, 1), (2.0, math.inf), (1e4, 2.0), (3.0, 3.5)])
def test_clip_grad_norm_scales_gradients_as_pytorch(backend, max_norm, norm_type):
    params, expected = _with_grads(xt), _with_grads(torch)
    total = xt.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    expected_total = torch.nn.utils.clip_grad_norm_(expected, max_norm, norm_type=norm_type)
    assert total.backend == backend and total.item() == pytest.approx(expected_total.item(), rel=1e-6)
    for p, q in zip(params[:2], expected[:2]):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
    assert params[2].grad is None


def test_clip_grad_norm_of_a_single_tensor_and_of_no_gradients():
    (p, *_), (q, *_) = _with_grads(xt), _with_grads(torch)
    assert xt.nn.utils.clip_grad_norm_(p, 1.0).item() == pytest.approx(torch.nn.utils.clip_grad_norm_(q, 1.0).item())
    np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
    assert xt.nn.utils.clip_grad_norm_([xt.zeros(2, requires_grad=True)], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        xt.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_refuses_a_non_finite_norm_when_asked():
    params = _with_grads(xt)
    params[0].grad[0, 1] = math.inf
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        xt.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clamps_every_element(backend):
    params, expected = _with_grads(xt), _with_grads(torch)
    xt.nn.utils.clip_grad_value_(params, 5)
    torch.nn.utils.clip_grad_value_(expected, 5)
    for p, q in zip(params[:2], expected[:2]):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    assert params[0].grad.abs().max().item() == 5.0


def test_parameters_to_vector_and_back(backend):
    params = [xt.tensor(v, dtype=xt.float32, requires_grad=True) for v in VALUES]
    vector = xt.nn.utils.parameters_to_vector(params)
    expected = torch.nn.utils.parameters_to_vector([torch.tensor(v, dtype=torch.float32) for v in VALUES])
    np.testing.assert_array_equal(vector.detach().numpy(), expected.numpy())
    (vector * xt.arange(9.0)).sum().backward()  # differentiable: each parameter gets its slice of the gradient
    assert params[1].grad.tolist() == [6.0, 7.0]
    xt.nn.utils.vector_to_parameters(xt.arange(9.0), params)
    assert params[0].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and params[2].tolist() == [[8.0]]
    assert params[0].requires_grad and params[0].backend == backend


def test_vector_to_parameters_wants_a_tensor():
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: builtins.list"):
        xt.nn.utils.vector_to_parameters([1.0], [xt.zeros(1)])
