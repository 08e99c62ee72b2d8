"""xtensor.array_api: the array API standard over xtensor tensors (``Tensor.__array_namespace__``).

Functions come from the same op-table entries as the PyTorch-style namespace (generated in
``xtensor._variants``); only the spelling differs (``axis=``/``keepdims=``, ``concat``,
``permute_dims``). Creation functions follow the standard's signatures and defaults.
"""
import math as _math

import numpy as _np

from .. import _creation, _dtypes
from .._backend import get_default_backend as _default_backend
from .._dtypes import (bool, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8,
                       uint16, uint32, uint64)
from .._tensor import Tensor as _Tensor
from .._variants import api_functions as _api_functions

__array_api_version__ = "2024.12"
SUPPORTED_VERSIONS = ("2023.12", "2024.12")

e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None

globals().update(_api_functions)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """The standard's ``asarray``: ``copy=None`` shares when possible, ``False`` must share, ``True`` copies."""
    if isinstance(obj, _Tensor):
        if dtype is not None and dtype is not obj.dtype:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot convert {obj.dtype} to {dtype} without a copy")
            return obj.to(dtype)
        return obj.clone() if copy else obj
    if copy is False and not isinstance(obj, _np.ndarray):
        raise ValueError("asarray(copy=False): a copy is needed to build an array from a Python object")
    if isinstance(obj, _np.ndarray) and copy is not True and (dtype is None or dtype.name == obj.dtype.name):
        return _creation.from_numpy(obj) if _default_backend().host else _creation.tensor(obj)
    if dtype is None and not isinstance(obj, (_np.ndarray, _np.generic)):
        values = _np.asarray(obj)
        if values.dtype.kind == "f":
            dtype = float64 if _has_float64() else float32
    return _creation.tensor(obj, dtype=dtype)


def _has_float64():
    return float64 in _default_backend().native


def _default_float():
    return float64 if _has_float64() else float32


def zeros(shape, *, dtype=None, device=None):
    return _creation.zeros(shape, dtype=dtype or _default_float())


def ones(shape, *, dtype=None, device=None):
    return _creation.ones(shape, dtype=dtype or _default_float())


def empty(shape, *, dtype=None, device=None):
    return _creation.empty(shape, dtype=dtype or _default_float())


def full(shape, fill_value, *, dtype=None, device=None):
    if dtype is None and isinstance(fill_value, float):
        dtype = _default_float()
    return _creation.full(shape, fill_value, dtype=dtype)


def zeros_like(x, /, *, dtype=None, device=None):
    return _creation.zeros_like(x, dtype=dtype)


def ones_like(x, /, *, dtype=None, device=None):
    return _creation.ones_like(x, dtype=dtype)


def empty_like(x, /, *, dtype=None, device=None):
    return _creation.empty_like(x, dtype=dtype)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return _creation.full_like(x, fill_value, dtype=dtype)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if dtype is None and not all(isinstance(v, int) for v in (start, stop or 0, step)):
        dtype = _default_float()
    return _creation.arange(start, stop, step, dtype=dtype)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    if not endpoint:
        step = (stop - start) / num
        stop = start + step * (num - 1)
    return _creation.linspace(start, stop, num, dtype=dtype or _default_float())


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    adapter = _default_backend()
    dt = dtype or _default_float()
    arr = adapter.xp.eye(n_rows, n_cols, k=k, dtype=adapter.native_dtype(dt))
    return _creation._finish(arr, adapter, False)


def astype(x, dtype, /, *, copy=True, device=None):
    if dtype is x.dtype and not copy:
        return x
    return x.to(dtype, copy=copy) if dtype is x.dtype else x.to(dtype)


def reshape(x, /, shape, *, copy=None):
    return x.clone().reshape(shape) if copy else x.reshape(shape)


def isdtype(dtype, kind):
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _dtypes.DType):
        return dtype is kind
    kinds = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
             "real floating": "f", "complex floating": "c", "numeric": "iufc"}
    try:
        return dtype.kind in kinds[kind]
    except KeyError:
        raise ValueError(f"unknown dtype kind {kind!r}") from None


def result_type(*arrays_and_dtypes):
    return _dtypes.result_type(*arrays_and_dtypes)


def can_cast(from_, to, /):
    """Whether promotion of ``from_`` with ``to`` gives ``to`` (never towards a lower category)."""
    from_ = from_.dtype if isinstance(from_, _Tensor) else from_
    if from_ is to:
        return True
    if not _dtypes.can_cast(from_, to):
        return False
    try:
        return _dtypes.promote_types(from_, to) is to
    except TypeError:  # uint64 with int64: no common type
        return False


class _Info:
    """``__array_namespace_info__()``: capabilities, default dtypes and devices of the default backend."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return "cpu"

    def devices(self):
        return ["cpu"]

    def default_dtypes(self, *, device=None):
        return {"real floating": _default_float(), "complex floating": complex128, "integral": int64,
                "indexing": int64}

    def dtypes(self, *, device=None, kind=None):
        available = [d for d in _dtypes.ALL_DTYPES if d in _default_backend().native]
        return {d.name: d for d in available if kind is None or isdtype(d, kind)}


def __array_namespace_info__():
    return _Info()


class finfo(_dtypes.finfo):
    """The standard's ``finfo``: like ``xtensor.finfo`` but ``dtype`` is the dtype object."""

    def __init__(self, type, /):
        super().__init__(type)
        self.dtype = _dtypes.by_name(self.dtype)


class iinfo(_dtypes.iinfo):
    """The standard's ``iinfo``: like ``xtensor.iinfo`` but ``dtype`` is the dtype object."""

    def __init__(self, type, /):
        super().__init__(type)
        self.dtype = _dtypes.by_name(self.dtype)


def nonzero(x, /):
    """The standard's ``nonzero``: a tuple of index arrays (a 0-d array has no dimension to index)."""
    if x.ndim == 0:
        raise ValueError("nonzero() is not defined for zero-dimensional arrays")
    return x.nonzero(as_tuple=True)
