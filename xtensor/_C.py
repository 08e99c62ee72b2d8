"""``torch._C`` as xtensor has it: PyTorch's compiled core does not exist here.

Libraries call a few of its functions that have no effect on any result; those are here and do nothing.
Any other name is an AttributeError saying so, so that ``hasattr(torch._C, name)`` probes answer False and a
program that needs the real thing stops at that line with a clear message.
"""


def _log_api_usage_once(event):
    """PyTorch's usage telemetry (torchmetrics and Lightning report each class they build); xtensor records nothing."""


def __getattr__(name):
    raise AttributeError(f"torch._C.{name} is part of PyTorch's compiled core, which xtensor (standing in for torch) "
                         "does not have; code that needs it must run on PyTorch")
