"""Backend registry and selection.

A backend is an adapter object (see ``xtensor.adapters``). Names resolve, in order, through
the ``xtensor.backends`` entry-point group, the built-in adapters, and finally any importable
array-API module (wrapped by the generic adapter). The default backend comes from, highest
first: ``with use_backend(...)`` (thread-local), ``set_default_backend``, ``XTENSOR_BACKEND``,
``[tool.xtensor] backend`` in the nearest pyproject.toml, and numpy.
"""
import contextlib
import importlib
import math
import os
import pathlib
import sys
import threading
from importlib.metadata import entry_points

import numpy as np

__all__ = ["get_backend", "get_default_backend", "set_default_backend", "use_backend", "available_backends", "is_traced",
           "check_index_range", "adapter_of"]

ENTRY_POINT_GROUP = "xtensor.backends"
_BUILTIN = {
    "numpy": "xtensor.adapters.numpy:NumpyAdapter",
    "jax": "xtensor.adapters.jax:JaxAdapter",
}
_OPTIONAL_EXTRAS = {"jax": "jax"}
_loaded = {}
_lock = threading.Lock()


def _load_target(target):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)()


def _registered():
    found = dict(_BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def available_backends():
    """Names of the registered backends (any importable array-API module works too)."""
    return sorted(_registered())


def get_backend(name):
    """The adapter for ``name`` (an adapter passes through), loading it on first use."""
    if not isinstance(name, str):
        if hasattr(name, "xp") and hasattr(name, "dtype_of"):
            return name
        raise TypeError(f"a backend is named by a string, got {type(name).__name__}")
    adapter = _loaded.get(name)
    if adapter is not None:
        return adapter
    with _lock:
        if name not in _loaded:
            _loaded[name] = _resolve(name)
    return _loaded[name]


def adapter_of(xp):
    """The loaded adapter whose namespace is ``xp`` (what an op's forward is handed), or None."""
    for adapter in list(_loaded.values()):
        if adapter.xp is xp:
            return adapter
    return None


def _resolve(name):
    target = _registered().get(name)
    if target is not None:
        try:
            return _load_target(target)
        except ImportError as e:
            extra = _OPTIONAL_EXTRAS.get(name)
            hint = f": pip install 'xtensor[{extra}]'" if extra else ""
            raise ImportError(f"backend {name!r} is registered but cannot be imported ({e}){hint}") from e
    from xtensor.adapters.generic import load

    try:
        return load(name)
    except ImportError:
        raise ValueError(
            f"unknown backend {name!r}: not one of the registered backends {available_backends()} "
            "and not an importable array-API module"
        ) from None
    except TypeError as e:
        raise ValueError(f"module {name!r} is not an array-API namespace: {e}") from None


def _pyproject_backend(start=None):
    """``[tool.xtensor] backend`` from the nearest pyproject.toml above ``start`` (the cwd)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            return None
    here = pathlib.Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                with open(candidate, "rb") as f:
                    config = tomllib.load(f)
            except (OSError, ValueError):
                return None
            return config.get("tool", {}).get("xtensor", {}).get("backend")
    return None


class _Selection(threading.local):
    stack = ()


_selection = _Selection()
_global_default = None


def _initial_default():
    return os.environ.get("XTENSOR_BACKEND") or _pyproject_backend() or "numpy"


def get_default_backend():
    """The adapter new tensors are created on."""
    global _global_default
    if _selection.stack:
        return _selection.stack[-1]
    if _global_default is None:
        _global_default = get_backend(_initial_default())
    return _global_default


def set_default_backend(name):
    """Make ``name`` the process-wide default backend."""
    global _global_default
    _global_default = get_backend(name)


@contextlib.contextmanager
def use_backend(name):
    """``with use_backend("jax"):`` creates new tensors on that backend in this thread."""
    adapter = get_backend(name)
    previous = _selection.stack
    _selection.stack = previous + (adapter,)
    try:
        yield adapter
    finally:
        _selection.stack = previous


# ------------------------------------------------------------------ reading backend arrays
def is_traced(arr):
    """True for a jax tracer (inside ``jax.jit``/``grad``): its values cannot be read."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(arr, jax.core.Tracer)


def check_index_range(arr, low, high, error):
    """Raise ``error(bad_value)`` if an element of int array ``arr`` lies outside ``[low, high)``.

    Reads only the two extremes of a device array, and nothing of a traced one (under jit an
    out-of-range index is not detected: jax clamps it).
    """
    if is_traced(arr) or not math.prod(arr.shape):
        return
    if isinstance(arr, np.ndarray):
        lo, hi = int(arr.min()), int(arr.max())
    else:
        xp = arr.__array_namespace__()
        lo, hi = int(xp.min(arr)), int(xp.max(arr))
    if hi >= high:
        raise error(hi)
    if lo < low:
        raise error(lo)
