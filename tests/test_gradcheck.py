"""xtensor.autograd.gradcheck / gradgradcheck: finite differences against the tape, as users call them."""
import pytest

import xtensor as t
from xtensor.autograd import Function
from xtensor.autograd.gradcheck import GradcheckError


class WrongCube(Function):
    """A deliberately wrong backward (2x^2 instead of 3x^2): gradcheck must catch it."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x ** 2


def _inputs():
    x = t.tensor([0.3, -0.7, 1.1], dtype=t.float64, requires_grad=True)
    y = t.tensor([[0.5, 2.0, -1.5]], dtype=t.float64, requires_grad=True)
    return x, y


def test_gradcheck_passes_for_correct_gradients(backend):
    assert t.autograd.gradcheck(lambda x, y: (x.exp() * y, (x * y).tanh().sum()), _inputs())


def test_gradcheck_accepts_a_single_tensor(backend):
    assert t.autograd.gradcheck(lambda x: x.sin() * x, _inputs()[0])


def test_gradcheck_raises_on_wrong_gradient(backend):
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        t.autograd.gradcheck(WrongCube.apply, (_inputs()[0],))


def test_gradcheck_error_is_a_runtime_error(backend):
    with pytest.raises(RuntimeError):
        t.autograd.gradcheck(WrongCube.apply, (_inputs()[0],))


def test_gradcheck_returns_false_without_raise_exception(backend):
    assert t.autograd.gradcheck(WrongCube.apply, (_inputs()[0],), raise_exception=False) is False


def test_gradcheck_tolerances_are_used(backend):
    # the wrong backward is off by a factor 2/3: a relative tolerance of 1 accepts it
    assert t.autograd.gradcheck(WrongCube.apply, (_inputs()[0],), rtol=1.0, atol=0.0)


def test_gradcheck_skips_inputs_that_do_not_require_grad(backend):
    x, _ = _inputs()
    assert t.autograd.gradcheck(lambda a, b, k: a * b * k, (x, t.ones(3, dtype=t.float64), 2.0))


def test_gradcheck_warns_for_single_precision(backend):
    x = t.tensor([0.3, 0.5], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        t.autograd.gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_gradcheck_without_inputs_requiring_grad_raises(backend):
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        t.autograd.gradcheck(lambda a: a * 2, (t.ones(2, dtype=t.float64),))


def test_gradgradcheck_passes_for_correct_second_derivatives(backend):
    assert t.autograd.gradgradcheck(lambda x, y: (x.exp() * y * x).sum(1), _inputs())


def test_gradgradcheck_catches_a_wrong_second_derivative(backend):
    class WrongSecond(Function):
        """Right first derivative (3x^2), written with a detached x: its own derivative is lost."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x.detach() ** 2

    x = _inputs()[0]
    assert t.autograd.gradcheck(WrongSecond.apply, (x,))
    assert t.autograd.gradgradcheck(WrongSecond.apply, (x,), raise_exception=False) is False


def test_gradgradcheck_with_given_grad_outputs(backend):
    x = _inputs()[0]
    v = t.tensor([1.0, -2.0, 0.5], dtype=t.float64, requires_grad=True)
    assert t.autograd.gradgradcheck(lambda a: a ** 3, (x,), (v,))
