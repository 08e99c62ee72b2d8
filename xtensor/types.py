"""``torch.types``: the type aliases annotations use (``Number``, ``Device``, ``_size``...)."""
import os
from typing import IO, Any, Union

from ._dtypes import DType as _dtype  # noqa: F401  (torch.types._dtype, for annotations)
from ._tensor import Size, Tensor, device as _device

__all__ = ["Number", "Device", "FileLike", "Storage"]

_int, _float, _bool, _complex, _str, _bytes = int, float, bool, complex, str, bytes
_size = Union[Size, list[int], tuple[int, ...]]
Number = Union[int, float, bool]
_Number = (int, float, bool)
Device = Union[_device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
Storage = Any  # xtensor tensors hold backend arrays, not torch Storage objects
_TensorOrTensors = Union[Tensor, tuple[Tensor, ...]]
_TensorOrOptionalTensors = Union[Tensor, tuple[Union[Tensor, None], ...]]
