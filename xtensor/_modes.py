"""The modes every op and the tape read: grad mode (thread-local, as PyTorch's) and anomaly detection
(process-wide). Only the state lives here, low in the house so the Tensor, the tape and dispatch read it without
importing ``xtensor.autograd``; the switches that set it are ``autograd/grad_mode.py`` and
``autograd/anomaly_mode.py``.
"""
import threading

__all__ = ["grad_state", "anomaly_state"]


class _GradState(threading.local):
    enabled = True
    inference = False


class _AnomalyState:
    enabled = False
    check_nan = True


grad_state = _GradState()
anomaly_state = _AnomalyState()
