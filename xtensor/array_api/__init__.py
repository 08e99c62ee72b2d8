"""xtensor.array_api: the array API standard (2025.12) over xtensor tensors (``Tensor.__array_namespace__``).

Laid out as the standard is: the creation, data type and inspection chapters live in
``_creation``, ``_data_types`` and ``_info``; every other function comes from the same op-table
entry as the PyTorch-style namespace (generated in ``xtensor._variants``), only spelled the
standard's way (``axis=``/``keepdims=``, ``concat``, ``permute_dims``). Tensors made by this
namespace live on the default backend; functions are differentiable as the ``xtensor`` ones are.

Defaults are the ones ``__array_namespace_info__().default_dtypes()`` reports (float64), and the tensors this
namespace makes follow them too (``_array``): every function here runs under them and returns ``ArrayAPITensor``s,
whose operators and indexing follow the standard. So ``sin`` of integers, ``divide(ints, ints)``, ``ints / ints``,
``ints * 0.5``, ``special.erf(ints)`` and ``asarray(1.5)`` are float64, an integer array meeting a float32 one gives
float64 (NumPy's rule, SciPy's for the promotions the standard leaves open), and ``x[::-1]`` reverses; while the same
entries called through ``xtensor`` and the operators of its tensors keep PyTorch's rules (float32; ``x[::-1]``
raises PyTorch's ValueError).
"""
import math as _math
import sys as _sys

from .._dtypes import (bool, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8,
                       uint16, uint32, uint64)
from .._variants import api_functions as _api_functions

__array_api_version__ = "2025.12"
SUPPORTED_VERSIONS = ("2023.12", "2024.12", "2025.12")

e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None
_this = _sys.modules[__name__]

globals().update(_api_functions)

from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like,  # noqa: E402
                        linspace, meshgrid, ones, ones_like, zeros, zeros_like)
from ._data_types import (astype, broadcast_shapes, can_cast, finfo, iinfo, isdtype,  # noqa: E402
                          result_type)
from ._array import with_standard_defaults as _with_standard_defaults  # noqa: E402
from ._info import Info as _Info  # noqa: E402


def __array_namespace_info__():
    """The standard's inspection object: capabilities, devices and dtypes of the default backend."""
    return _Info()


def _array_namespace(self, *, api_version=None):
    """``Tensor.__array_namespace__``: this namespace."""
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(f"api_version {api_version!r} is not supported; "
                         f"xtensor.array_api implements {SUPPORTED_VERSIONS}")
    return _this


def _install(cls):
    """Make ``cls`` (the Tensor) name this namespace as its array-API namespace."""
    cls.__array_namespace__ = _array_namespace


def reshape(x, /, shape, *, copy=None):
    return x.clone().reshape(shape) if copy else x.reshape(shape)


from . import fft, linalg, special  # noqa: E402,F401  (the standard's linalg and fft extensions; SciPy's special)


def nonzero(x, /):
    """The standard's ``nonzero``: a tuple of index arrays (a 0-d array has no dimension to index)."""
    if x.ndim == 0:
        raise ValueError("nonzero() is not defined for zero-dimensional arrays")
    return x.nonzero(as_tuple=True)


_with_standard_defaults(globals(), [*_api_functions, *_creation.__all__, *_data_types.__all__, "reshape", "nonzero"])
