"""Anomaly detection, as PyTorch's ``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``.

While it is on, every backward node remembers the stack of the forward call that made it, and the engine
checks each node's gradients: a NaN raises ``RuntimeError("Function 'MulBackward0' returned nan values in
its 0th output.")``, and any error in a node's backward is preceded by PyTorch's warning naming the node
and showing that forward stack (the stack is also attached to the exception as a note).

Zero cost while off: the stack is recorded by a ``Node.__init__`` that exists only while the mode is on
(nodes otherwise use ``object.__init__``), and the engine reads the flag once per backward pass. As in
PyTorch the mode is process-wide, not per thread.
"""
import functools
import os
import traceback
import warnings

from .. import _autograd
from .._modes import anomaly_state as state

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # xtensor/: its frames are not the user's

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    return state.enabled


def is_anomaly_check_nan_enabled():
    return state.check_nan


def _record_forward_stack(node, *args, **kwargs):
    """``Node.__init__`` while anomaly mode is on: keep the stack of the user's call that made the node."""
    node._forward_stack = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE)]


def _set(enabled, check_nan):
    state.enabled, state.check_nan = bool(enabled), bool(check_nan)
    if state.enabled:
        _autograd.Node.__init__ = _record_forward_stack
    elif "__init__" in vars(_autograd.Node):
        del _autograd.Node.__init__


class set_detect_anomaly:
    """Switch anomaly detection on or off: at once, and back to the previous setting when used as a context."""

    def __init__(self, mode, check_nan=True):
        self._previous = (state.enabled, state.check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self._previous)
        return False


class detect_anomaly:
    """Context manager and decorator: anomaly detection on inside (with PyTorch's warning that it is slow)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._previous = (state.enabled, state.check_nan)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper
