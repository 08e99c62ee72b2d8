"""``torch.compiler``: the compile switches scripts call. xtensor's compiler is ``xtensor.compile`` (the whole
step traced by ``jax.jit``); ``is_compiling()`` is True while jax traces, and a function marked with
``disable`` or ``allow_in_graph`` is traced with the rest (jax has no graph breaks: it must be traceable)."""
import functools
import sys

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "reset",
           "allow_in_graph", "assume_constant_result", "list_backends", "cudagraph_mark_step_begin"]


def compile(*args, **kwargs):
    """``xtensor.compile``."""
    from ._compile import compile as compile_step
    return compile_step(*args, **kwargs)


def is_compiling():
    """True inside a function jax is tracing (``xtensor.compile``, ``jax.jit``)."""
    if "jax" not in sys.modules:
        return False
    from jax._src import core
    return not core.trace_state_clean()


is_dynamo_compiling = is_compiling


def is_exporting():
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """``fn`` unchanged (as a decorator too): outside a compiled step it runs eagerly already."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def reset():
    """Forget compiled programs: jax's caches, so the next compiled call traces afresh."""
    if "jax" in sys.modules:
        sys.modules["jax"].clear_caches()


def list_backends(exclude_tags=()):
    return ["jax"]


def cudagraph_mark_step_begin():
    """Nothing to mark: XLA programs need no CUDA-graph step boundaries."""
