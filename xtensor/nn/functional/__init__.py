"""``xtensor.nn.functional``: activations, losses, convolution, pooling, normalisation, attention.

One private module per chapter of PyTorch's ``torch.nn.functional`` documentation (``_convolution``, ``_pooling``,
``_attention``, ``_activation``, ``_normalization``, ``_linear``, ``_dropout``, ``_sparse``, ``_distance``, ``_loss``
and ``_ctc``, ``_vision`` and ``_padding``); this namespace is all of them, as ``torch.nn.functional`` is.

Every function is a composite of differentiable xtensor ops (softmax/log_softmax are op-table
primitives, see ``xtensor/ops/nn.py``), so each gets its gradient of any order, every backend and
``jax.jit`` for free. Where a naive formula overflows, the composite is written so neither its value
nor its gradient does: ``log(1 + exp(z))`` is ``z + log1p(exp(-z))`` for ``z > 0`` and ``log1p(exp(z))``
elsewhere, each side fed only its own inputs (the other side sees 0), so no exp overflows and no
``inf * 0`` reaches a gradient, even at ``z = +-inf`` (PyTorch's values and gradients there).

Convolution and pooling are built from standard ops so they run on any array-API backend (see ``_convolution``);
where the adapter offers a native convolution (jax's), conv1d/conv2d run it through the op-table entry
``convolution``: same values, same gradients, any order.
"""
from . import (_activation, _attention, _convolution, _ctc, _distance, _dropout, _linear, _loss, _normalization,
               _padding, _pooling, _sparse, _vision)
from ._activation import *  # noqa: F401,F403
from ._attention import *  # noqa: F401,F403
from ._convolution import *  # noqa: F401,F403
from ._ctc import *  # noqa: F401,F403
from ._distance import *  # noqa: F401,F403
from ._dropout import *  # noqa: F401,F403
from ._linear import *  # noqa: F401,F403
from ._loss import *  # noqa: F401,F403
from ._normalization import *  # noqa: F401,F403
from ._padding import *  # noqa: F401,F403
from ._pooling import *  # noqa: F401,F403
from ._sparse import *  # noqa: F401,F403
from ._vision import *  # noqa: F401,F403

__all__ = [name for chapter in (_linear, _activation, _dropout, _sparse, _padding, _distance, _normalization,
                                _convolution, _pooling, _vision, _attention, _loss, _ctc)
           for name in chapter.__all__]
