"""xtensor.array_api.special: special functions in SciPy's names and signatures.

SciPy (with ``SCIPY_ARRAY_API=1``) looks ``xp.special.<name>`` up on namespaces it does not know before it
falls back to computing with NumPy, which would drop the graph and the backend; this module is what it finds.
The functions are those of ``xtensor.special`` (the same op-table entries, so the same VJPs), spelled as SciPy
spells them: ``psi``, ``j0``/``k0e``..., ``multigammaln(a, d)``, ``zeta(x, q=None)``, ``softmax(x, axis=None)``,
``logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False)``. Two-argument functions promote as the
standard does and take a Python number for either argument.
"""
from ._array import with_standard_defaults as _with_standard_defaults
from .. import _dtypes
from .. import special as _special
from .._tensor import Tensor as _Tensor
from ._data_types import broadcast_shapes as _broadcast_shapes
from ..ops.elementwise import api_promoted as _api_promoted

__all__ = ["entr", "rel_entr", "xlogy", "xlog1py", "erf", "erfc", "erfinv", "erfcx", "expit", "logit", "log_expit",
           "gammaln", "psi", "digamma", "polygamma", "multigammaln", "gammainc", "gammaincc", "zeta", "i0", "i0e",
           "i1", "i1e", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "ndtr", "ndtri", "log_ndtr", "sinc",
           "softmax", "log_softmax", "logsumexp", "exp2", "expm1", "log1p"]

(entr, erf, erfc, erfinv, erfcx, expit, logit, log_expit, gammaln, psi, digamma, i0, i0e, i1, i1e, ndtr, ndtri,
 log_ndtr, sinc, exp2, expm1, log1p) = (getattr(_special, name) for name in (
    "entr", "erf", "erfc", "erfinv", "erfcx", "expit", "logit", "log_expit", "gammaln", "psi", "digamma", "i0", "i0e",
    "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "sinc", "exp2", "expm1", "log1p"))
j0, j1, y0, y1, k0, k1, k0e, k1e = (getattr(_special, name) for name in (
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"))


def _arrays(x1, x2):
    """Two operands as tensors of one dtype: a Python number takes the other operand's floating dtype."""
    if not isinstance(x1, _Tensor):
        x1 = x2.new_full((), x1, dtype=x2.dtype if x2.is_floating_point() else None)
    if not isinstance(x2, _Tensor):
        x2 = x1.new_full((), x2, dtype=x1.dtype if x1.is_floating_point() else None)
    return _api_promoted(x1, x2)


def _binary(function, name):
    def binary(x1, x2, /):
        return function(*_arrays(x1, x2))
    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"SciPy's ``special.{name}``: ``xtensor.special.{function.__name__}``."
    return binary


xlogy, xlog1py, rel_entr, gammainc, gammaincc = (_binary(getattr(_special, name), name) for name in (
    "xlogy", "xlog1py", "rel_entr", "gammainc", "gammaincc"))


def zeta(x, q=None, /):
    """The Hurwitz zeta function; ``q=None``: Riemann's (q = 1)."""
    return _special.zeta(*_arrays(x, 1.0 if q is None else q))


def polygamma(n, x, /):
    """The n-th derivative of digamma; ``n`` an int or an integer array (each distinct order computed once, the
    result broadcast over ``n`` and ``x``, in their promoted floating dtype). A negative order has no value: NaN,
    as SciPy gives."""
    if not isinstance(n, _Tensor):
        n = int(n)
        return _special.polygamma(n, x) if n >= 0 else _floating(x) * float("nan")
    x = _floating(x)
    x = x.to(_dtypes.promote_types(n.dtype, x.dtype))  # an integer order counts as the default float (float64)
    result = x.new_full(_broadcast_shapes(tuple(n.shape), tuple(x.shape)), float("nan"))
    for k in sorted({k for k in n.reshape(-1).tolist() if k >= 0}):  # on the host: jax's unique compiles ~1 s per shape
        result = _special.polygamma(int(k), x).where(n == k, result)
    return result


def multigammaln(a, d, /):
    return _special.multigammaln(a, int(d))


def _over(x, axis, per_axis):
    """``per_axis(x, axis)``; ``axis=None`` means over every element at once."""
    if axis is None:
        return per_axis(x.reshape(-1), 0).reshape(x.shape)
    return per_axis(x, axis)


def _floating(x):
    """``x`` in a floating dtype: integers and bools as the default float (this namespace's: float64), as SciPy
    computes them."""
    return x if x.dtype.kind in "fc" else x.to(_dtypes.get_default_dtype())


def softmax(x, /, axis=None):
    return _over(_floating(x), axis, _special.softmax)


def log_softmax(x, /, axis=None):
    return _over(_floating(x), axis, _special.log_softmax)


def logsumexp(a, /, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a)))`` over ``axis`` (all axes for None); ``return_sign``: also the sum's sign, the log
    taken of its magnitude (otherwise a negative sum gives NaN, as SciPy's)."""
    a = _floating(a)
    axes = tuple(range(a.ndim)) if axis is None else axis
    if b is None and not return_sign:
        return _special.logsumexp(a, axes, keepdims)
    shift = a.detach().amax(axes, keepdim=True)
    shift = shift.where(shift.isfinite(), 0.0)
    total = ((a - shift).exp() * (1 if b is None else b)).sum(axes, keepdim=True)
    out = total.abs().log() + shift
    if not keepdims:
        out, total = out.squeeze(axes), total.squeeze(axes)
    if return_sign:
        return out, total.sign()
    return out.where(total >= 0, float("nan"))

_with_standard_defaults(globals(), __all__)
