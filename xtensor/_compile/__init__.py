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
    """Compile a module, a function or an optimizer (PyTorch's ``torch.compile`` spelling); as a decorator too.

    * an ``nn.Module``: a ``CompiledModule`` whose call is one tape node, forward and backward one program each
      (``module.py``), so the ordinary eager loop around it (``loss.backward()``, ``optimizer.step()``) runs the
      model compiled;
    * a function (a whole training step: forward, ``backward()``, ``optimizer.step()``): one program (``step.py``);
    * an optimizer: its ``step`` becomes one program updating every parameter (the optimizer is returned, its
      ``step`` replaced); ``compile(optimizer.step)`` is the same program as a separate callable.

    ``fullgraph``, ``dynamic``, ``backend``, ``mode`` and ``options`` are accepted for PyTorch code and have no
    effect: programs are recompiled per shape signature. ``disable=True`` runs eagerly. On a backend that cannot
    compile (numpy, array-API namespaces) everything runs eagerly, with the same results.
    """
    if model is None:
        return functools.partial(compile, disable=disable)
    from ..nn.modules.module import Module
    if isinstance(model, Module):
        from .module import CompiledModule
        return CompiledModule(model, disable=disable)
    if hasattr(model, "param_groups") and callable(getattr(model, "step", None)):
        model.step = _compiled_optimizer_step(model, disable)
        return model
    return CompiledStep(model, disable=disable)


def _compiled_optimizer_step(optimizer, disable):
    """``optimizer.step`` as one program. The optimizer sits in the compiled function's closure, so its state is
    gathered whatever ``step`` is (a learning-rate scheduler's wrapper too); ``__func__`` lets a scheduler made later
    re-bind it, as it re-binds a method."""
    bound = (optimizer, optimizer.step)

    def optimizer_step(*args, **kwargs):
        return bound[1](*args, **kwargs)
    compiled = CompiledStep(optimizer_step, disable=disable)
    compiled.__func__ = lambda self, *args, **kwargs: compiled(*args, **kwargs)
    return compiled

