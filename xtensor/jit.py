"""``xtensor.jit``: PyTorch's TorchScript entry points, so scripts that script or trace a model run unchanged.

xtensor has no TorchScript: ``script`` and ``trace`` return the module or function they are given (warning once
per process that nothing was compiled; ``xtensor.compile`` is the compiler here), and the decorators that steer
TorchScript (``ignore``, ``unused``, ``export``) return what they decorate. Eager code computes what the scripted
code would, so values are unchanged. ``save``/``load`` of a TorchScript archive refuse and name ``xtensor.save``.
"""
import typing
import warnings

__all__ = ["Final", "annotate", "export", "ignore", "is_scripting", "is_tracing", "load", "save", "script",
           "script_if_tracing", "trace", "trace_module", "unused"]

Final = typing.Final
_warned = set()


def _warn_once(name):
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"xtensor.jit.{name} returns its argument unchanged: xtensor has no TorchScript, the code runs "
                      "eagerly (xtensor.compile compiles a training step for jax).", UserWarning, stacklevel=3)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` itself (a module, function or class), after a one-time warning."""
    _warn_once("script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """``func`` itself (a module or function), after a one-time warning; ``example_inputs`` are not run."""
    _warn_once("trace")
    return func


def trace_module(mod, inputs, *args, **kwargs):
    _warn_once("trace_module")
    return mod


def script_if_tracing(fn):
    return fn


def _identity_decorator(fn=None, **options):
    """``@ignore``, ``@ignore(drop=True)``: the function itself, with or without arguments."""
    return fn if callable(fn) else (lambda f: f)


ignore = unused = export = _identity_decorator


def is_scripting():
    """False: code never runs under TorchScript here."""
    return False


def is_tracing():
    """False: code never runs under the TorchScript tracer here."""
    return False


def annotate(the_type, the_value):
    """``the_value``: the annotation only guides TorchScript's type inference."""
    return the_value


def save(m, f, _extra_files=None):
    raise NotImplementedError("xtensor.jit.save: xtensor has no TorchScript archives; save the weights with "
                              "xtensor.save(model.state_dict(), f) (or the whole module with xtensor.save(model, f)).")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("xtensor.jit.load: xtensor cannot run a TorchScript archive; load weights saved with "
                              "xtensor.save or torch.save using xtensor.load.")
