"""``xtensor.autograd.detect_anomaly`` / ``set_detect_anomaly``: a NaN made in backward raises PyTorch's error
naming the node, with PyTorch's warning showing the forward call that made it; nothing is recorded while off."""
import warnings

import pytest

import xtensor as xt
from xtensor._autograd import Node


def _nan_in_backward(ns, backend=None):
    """sqrt's VJP at 0 is inf; times the 0 from ``* 0`` it is NaN: the forward is finite, the backward is not."""
    kw = {} if backend is None else {"backend": backend}
    x = ns.tensor([0.0, 1.0], requires_grad=True, **kw)
    y = (x.sqrt() * 0.0).sum()  # the forward call the warning must show
    return x, y


def _backward_error(ns, backend=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ns.autograd.detect_anomaly():
            x, y = _nan_in_backward(ns, backend)
            with pytest.raises(RuntimeError) as e:
                y.backward()
    return e.value, [str(w.message) for w in caught]


@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
def test_nan_in_backward_raises_naming_the_node(backend):
    error, _ = _backward_error(xt, backend)
    assert str(error) == "Function 'SqrtBackward0' returned nan values in its 0th output."


def test_error_and_warnings_are_pytorchs():
    torch = pytest.importorskip("torch")
    theirs, their_warnings = _backward_error(torch)
    ours, our_warnings = _backward_error(xt)
    assert str(ours) == str(theirs)
    assert our_warnings[0] == their_warnings[0]  # "Anomaly Detection has been enabled. ..."
    ours_detected = next(w for w in our_warnings if w.startswith("Error detected in"))
    theirs_detected = next(w for w in their_warnings if w.startswith("Error detected in"))
    assert ours_detected.split("\n")[0] == theirs_detected.split("\n")[0]


def test_warning_shows_the_forward_call_and_no_library_frames():
    error, caught = _backward_error(xt)
    detected = next(w for w in caught if w.startswith("Error detected in SqrtBackward0."))
    assert "y = (x.sqrt() * 0.0).sum()" in detected and "_nan_in_backward" in detected
    assert "xtensor/_" not in detected
    assert detected in "\n".join(getattr(error, "__notes__", []))  # also on the exception itself


def test_off_by_default_nan_gradients_pass_through_as_in_pytorch():
    import numpy as np
    assert not xt.autograd.is_anomaly_enabled()
    x, y = _nan_in_backward(xt)
    y.backward()
    assert np.isnan(x.grad.numpy()[0])
    assert "__init__" not in vars(Node)  # nothing recorded per node while off
    assert not hasattr(y.grad_fn, "_forward_stack")


def test_set_detect_anomaly_switches_and_restores_as_a_context():
    xt.autograd.set_detect_anomaly(True)
    try:
        assert xt.autograd.is_anomaly_enabled()
        x, y = _nan_in_backward(xt)
        with pytest.raises(RuntimeError, match="SqrtBackward0"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.backward()
    finally:
        xt.autograd.set_detect_anomaly(False)
    assert not xt.autograd.is_anomaly_enabled()
    with xt.autograd.set_detect_anomaly(True):
        assert xt.autograd.is_anomaly_enabled()
    assert not xt.autograd.is_anomaly_enabled() and "__init__" not in vars(Node)


def test_check_nan_false_records_but_does_not_raise():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with xt.autograd.detect_anomaly(check_nan=False):
            assert not xt.autograd.is_anomaly_check_nan_enabled()
            x, y = _nan_in_backward(xt)
            y.backward()
    assert hasattr(y.grad_fn, "_forward_stack")


def test_custom_function_is_named():
    class Broken(xt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with xt.autograd.detect_anomaly():
            x = xt.ones(2, requires_grad=True)
            with pytest.raises(RuntimeError, match=r"^Function 'BrokenBackward' returned nan values in its 0th output"):
                Broken.apply(x).sum().backward()


def test_detect_anomaly_as_a_decorator():
    @xt.autograd.detect_anomaly()
    def step():
        assert xt.autograd.is_anomaly_enabled()
        x, y = _nan_in_backward(xt)
        y.backward()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            step()
    assert not xt.autograd.is_anomaly_enabled()
