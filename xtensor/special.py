"""xtensor.special: PyTorch's ``torch.special`` namespace, plus SciPy's ``rel_entr`` and ``log_expit``.

Every function is an op-table entry (``xtensor/ops/special.py``, or softmax, logsumexp, erf, logit, xlogy...
of the other categories) or a composite of entries, so one definition -- forward, VJP, node name -- serves
``xtensor.special``, the ``xtensor`` functions and methods PyTorch also has (``lgamma``, ``digamma``,
``polygamma``, ``mvlgamma``, ``i0``, ``sinc``, ``igamma``, ``igammac``) and ``xtensor.array_api.special``
(SciPy's names). Differentiable exactly where PyTorch's are (see ``xtensor/ops/special.py``).
"""
import math as _math

from ._table import TABLE as _TABLE
from ._tensor import Tensor as _Tensor
from ._variants import _make_function, _make_inplace, torch_functions as _fn
from .nn.functional import logsigmoid as _logsigmoid
from .ops.special import POLYNOMIALS as _POLYNOMIALS

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc", "erfcx",
           "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p",
           "log_expit", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi",
           "rel_entr", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta", *_POLYNOMIALS,
           *(f"shifted_{f}" for f in _POLYNOMIALS if f.startswith("chebyshev"))]

# The entries PyTorch also has at the top level, under torch.special's names.
digamma = psi = _fn["digamma"]
gammaln = _fn["lgamma"]
multigammaln = _fn["mvlgamma"]
polygamma = _fn["polygamma"]
expit = _fn["sigmoid"]
gammainc, gammaincc = _fn["igamma"], _fn["igammac"]
erf, erfc, erfinv, exp2, expm1, log1p, i0, sinc, logit, xlogy, round, softmax, log_softmax, logsumexp = (
    _fn[name] for name in ("erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "i0", "sinc", "logit", "xlogy", "round",
                           "softmax", "log_softmax", "logsumexp"))

# The entries only torch.special has (table name ``special_<name>``, as PyTorch's aten names them).
for _name in __all__:
    if "special_" + _name in _TABLE:
        globals()[_name] = _make_function(_TABLE["special_" + _name], "special_" + _name)


def ndtr(input):
    """The standard normal CDF, ``erfc(-x / sqrt(2)) / 2`` (accurate in the lower tail)."""
    return (input * -_math.sqrt(0.5)).erfc() * 0.5


def log_expit(input):
    """SciPy's ``log(expit(x))``, finite at any ``x`` (``nn.functional.logsigmoid``)."""
    return _logsigmoid(input)


def rel_entr(input, other):
    """SciPy's relative entropy: ``x log(x / y)`` for x, y > 0; 0 where x = 0 and y >= 0; inf elsewhere; NaN
    stays NaN. The unused branch computes on ones, so its gradient is never NaN."""
    if not isinstance(input, _Tensor):
        input = other.new_full((), input)
    elif not isinstance(other, _Tensor):
        other = input.new_full((), other)
    both = (input > 0) & (other > 0)
    x, y = input.where(both, 1.0), other.where(both, 1.0)
    outside = x.new_zeros(()).where((input == 0) & (other >= 0), _math.inf)
    out = (x * (x / y).log()).where(both, outside)
    return out.where(~(input.isnan() | other.isnan()), _math.nan)


def _polygamma_method(self, n):
    return polygamma(n, self)


_polygamma_method.__name__ = "polygamma"
_Tensor.polygamma = _polygamma_method  # PyTorch's method takes n after self, its function before
_Tensor.polygamma_ = _make_inplace(_polygamma_method, "polygamma")
