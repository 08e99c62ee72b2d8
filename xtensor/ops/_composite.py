"""Helpers of the ops written as composites of other entries (spread over the subject modules)."""
from .. import _dtypes
from .._registry import FUNCTIONS
from .._tensor import Tensor


def _fn(name):
    """The torch function ``name`` (as ``xtensor.<name>``): an op a composite calls with PyTorch's arguments."""
    return FUNCTIONS[name]


def _float(x):
    """``x`` in a float dtype (PyTorch's int -> default float rule for float-valued functions)."""
    return x if x.dtype.kind in "fc" else x.to(_dtypes.get_default_dtype())


def _as_tensor_like(value, like):
    return value if isinstance(value, Tensor) else like.new_full((), value)
