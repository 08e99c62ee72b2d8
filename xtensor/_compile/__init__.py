"""``xtensor.compile`` (PyTorch's ``torch.compile``), by phase: ``gather`` (the state a step reaches and its
signature), ``guards`` (reusing the last walk), ``state`` (putting values into a trace and back), ``step`` (a whole
training step as one program) and ``module`` (a module's call as one tape node). The jax-specific work lives behind
the adapter seam (``adapters/jax.py``)."""
import functools

from .state import _invalidate  # noqa: F401  (xtensor.distributed uses it)
from .gather import _is_tracer  # noqa: F401  (xtensor.optim uses it)
from .step import CompiledStep

__all__ = ["compile"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, disable=False):
    """Compile a function or module (PyTorch's ``torch.compile`` spelling); as a decorator too.

    ``fullgraph``, ``dynamic``, ``backend``, ``mode`` and ``options`` are accepted for PyTorch code and
    have no effect: the whole step is always one XLA program, recompiled per shape signature.
    ``disable=True`` runs it eagerly.
    """
    if model is None:
        return functools.partial(compile, disable=disable)
    return CompiledStep(model, disable=disable)

