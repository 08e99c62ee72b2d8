"""Helpers the chapters of ``nn.functional`` share: the lazily imported top-level package (``nn`` loads
while ``xtensor`` still imports), jax-trace detection and PyTorch's node names for composite ops."""
from ..._dispatch import OpNode
from ..._backend import is_traced
from ..._table import renamed



def _traced(t):
    """Whether ``t`` is a value inside a jax trace (its values cannot be read on the host)."""
    return is_traced(t._value)


def _named(loss, node):
    """``loss`` with its final node renamed to ``node``: PyTorch computes these losses in one kernel of that name
    (``MseLossBackward0``, ``NllLossBackward0``), xtensor as a composite whose gradient is its ops' own -- only the
    name changes, so ``loss.grad_fn.name()`` reads as in PyTorch."""
    if isinstance(loss._grad_fn, OpNode):
        renamed(loss, node)
    return loss
