"""``xtensor.nn``: modules, parameters, losses, initialisation and the functional API, as PyTorch's ``torch.nn``."""
from . import functional, init  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Parameter", "Buffer", "functional", "init", *_modules_all]
from . import attention, common_types, parallel, utils  # noqa: E402,F401
from .parallel import DataParallel  # noqa: E402  (torch.nn.DataParallel, as scripts spell it)
