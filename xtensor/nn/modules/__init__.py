"""The module classes of ``xtensor.nn``, one file per area as in PyTorch."""
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from . import activation, basic, container, conv, linear, loss, module, normalization, pooling, rnn, transformer

__all__ = [name for m in (module, container, linear, activation, loss, conv, pooling, normalization, basic, rnn,
                     transformer)
           for name in m.__all__]
