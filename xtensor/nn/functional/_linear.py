"""Linear functions: ``linear`` and ``bilinear``."""
import math

from ..._autocast import state as _autocast_state
from ..._dispatch import apply
from ..._table import TABLE
from ..._tensor import Tensor
from ...ops._composite import _fn
from ..parameter import Parameter


__all__ = ["linear", "bilinear"]

_ADDMM, _T, _VIEW = TABLE["addmm"].op, TABLE["t"].op, TABLE["view"].op
_DENSE = (Tensor, Parameter)  # (not a sparse tensor, not an array-API tensor: their own rules apply)


def addmm(bias, mat1, mat2):
    """``xtensor.addmm(bias, mat1, mat2)`` of a layer (PyTorch's ``AddmmBackward0``), straight to the op when the
    function's checks would pass -- plain tensors of one dtype, matrices whose sizes meet, no autocast region (~4 us
    of checks on every call of a linear layer or a recurrent step) -- and through the function otherwise, for its
    errors and casts."""
    if type(mat1) in _DENSE and type(mat2) in _DENSE and type(bias) in _DENSE and mat1._dtype is mat2._dtype and \
            bias._dtype is mat1._dtype and not _autocast_state.active:
        a, b = mat1._value.shape, mat2._value.shape
        if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
            return apply(_ADDMM, (bias, mat1, mat2), (1, 1))
    return _fn("addmm")(bias, mat1, mat2)


def _transposed(weight):
    """``weight.t()`` of a 2-d weight (PyTorch's ``TBackward0``), without the method's layers for a plain unnamed
    tensor."""
    return apply(_T, (weight,), ((1, 0),)) if type(weight) in _DENSE and weight._names is None else weight.t()


def _viewed(t, shape):
    """``t.view(shape)`` of a plain contiguous tensor and a resolved ``shape`` of its size (PyTorch's
    ``ViewBackward0``), without the method's shape resolution and stride checks (~4 us each way of a linear layer
    over a batch of sequences); ``t.reshape(shape)`` otherwise."""
    if type(t) in _DENSE and t._names is None and t.is_contiguous():
        return apply(_VIEW, (t,), (shape,))
    return t.reshape(shape)


def linear(input, weight, bias=None):
    if input.ndim and weight.ndim == 2 and bias is not None and bias.ndim <= 1:  # PyTorch's: one addmm (one node)
        if input.ndim == 2:
            return addmm(bias, input, _transposed(weight))
        shape = tuple(input.shape)
        out = addmm(bias, _viewed(input, (math.prod(shape[:-1]), shape[-1])), _transposed(weight))
        return _viewed(out, (*shape[:-1], out.shape[-1]))
    out = input.matmul(weight.t()) if weight.ndim == 2 else input.matmul(weight)
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if weight.ndim != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the "
                           f"weight of size {list(weight.shape)}")
    out = _fn("einsum")("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias
