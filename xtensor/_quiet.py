"""numpy's floating-point warnings kept quiet while xtensor computes: PyTorch is silent where IEEE arithmetic
gives inf or nan (``log(0)``, ``1 / 0``, ``exp(1000)``, ``sqrt(-1)``), and so is every xtensor op on numpy and
array_api_strict. The user's own numpy calls keep their error state: numpy keeps it per context, so
``quiet()`` sets "ignore" around an op's computation and ``restore(token)`` puts the caller's back.

``_dispatch.apply``, the fast method paths of ``_variants`` and ``_autograd.run_backward`` are where numpy runs;
numpy 2's context variable costs ~0.2 µs a set and reset (``np.errstate`` ~1 µs, used on numpy 1).
"""
import functools

import numpy as np

__all__ = ["quiet", "restore"]

try:
    from numpy._core._multiarray_umath import _make_extobj
    from numpy._core._ufunc_config import _extobj_contextvar
except ImportError:  # numpy 1: the public errstate
    def quiet():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(state):
        state.__exit__(None, None, None)
else:
    quiet = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))  # a C call: no Python frame
    restore = _extobj_contextvar.reset
