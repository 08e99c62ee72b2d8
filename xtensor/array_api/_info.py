"""The standard's inspection API (``__array_namespace_info__``) and the namespace's default dtypes.

The array-API namespace follows the standard's defaults, not PyTorch's: a Python float makes
float64 where the backend has it (``xtensor.tensor`` keeps PyTorch's float32). Devices are
``xtensor.device`` objects, the same ones ``Tensor.device`` reports.
"""
import builtins

from .. import _dtypes
from .._backend import get_default_backend
from .._tensor import device as _device

__all__ = ["Info", "default_float", "default_complex", "dtype_kinds", "is_kind"]

# The standard's dtypes (float16 and bfloat16 are xtensor's extras, not part of the standard).
STANDARD_DTYPES = tuple(d for d in _dtypes.ALL_DTYPES if d.name not in ("float16", "bfloat16"))

dtype_kinds = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
               "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def is_kind(dtype, kind):
    """``isdtype`` for one kind: a dtype object or one of the standard's kind names."""
    if isinstance(kind, _dtypes.DType):
        return dtype is kind
    try:
        return dtype.kind in dtype_kinds[kind]
    except (KeyError, TypeError):
        raise ValueError(f"isdtype(): unknown dtype kind {kind!r}; expected a dtype or one of "
                         f"{sorted(dtype_kinds)}") from None


def default_float(adapter=None):
    adapter = adapter or get_default_backend()
    return _dtypes.float64 if _dtypes.float64 in adapter.native else _dtypes.float32


def default_complex(adapter=None):
    return default_float(adapter).to_complex()


class Info:
    """What ``__array_namespace_info__()`` returns: capabilities, devices and dtypes of the default backend."""

    __slots__ = ("_adapter",)

    def __init__(self):
        self._adapter = get_default_backend()

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return self.devices()[0]

    def devices(self):
        return tuple(_device(kind, index) for kind, index in self._adapter.devices())

    def _check(self, device):
        if device is not None and device not in self.devices():
            raise ValueError(f"device {device!r} is not one of backend {self._adapter.name!r}'s {self.devices()}")

    def default_dtypes(self, *, device=None):
        self._check(device)
        return {"real floating": default_float(self._adapter), "complex floating": default_complex(self._adapter),
                "integral": _dtypes.int64, "indexing": _dtypes.int64}

    def dtypes(self, *, device=None, kind=None):
        self._check(device)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        return {d.name: d for d in STANDARD_DTYPES if d in self._adapter.native and
                (kind is None or builtins.any(is_kind(d, k) for k in kinds))}
