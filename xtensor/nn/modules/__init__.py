"""The module classes of ``xtensor.nn``, one file per area as in PyTorch's ``torch/nn/modules`` (each class in the
file PyTorch keeps it in, so ``nn.modules.linear.Linear is nn.Linear`` as there)."""
from .activation import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from . import (activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm,
               linear, loss, module, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer,
               upsampling)

__all__ = [name for m in (module, container, linear, activation, loss, conv, pooling, batchnorm, instancenorm,
                          normalization, dropout, sparse, flatten, padding, pixelshuffle, channelshuffle, fold,
                          upsampling, distance, rnn, transformer)
           for name in m.__all__]
