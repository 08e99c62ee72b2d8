"""The standard's data type functions: ``astype``, ``can_cast``, ``finfo``, ``iinfo``, ``isdtype``,
``result_type`` and ``broadcast_shapes``.

Promotion is the standard's: arrays and dtypes promote by the table whatever their rank (PyTorch's
rule that 0-d tensors promote weaker belongs to the ``xtensor`` namespace), and a Python scalar
takes the dtype of the arrays it meets when its kind fits (an int with any number, a float with a
floating dtype, a complex with a complex one); a scalar of a higher kind promotes as the operators do.
"""
import builtins

from .. import _dtypes
from .._tensor import Tensor
from ._info import is_kind

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type", "broadcast_shapes"]


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` as ``dtype``: a copy unless ``copy=False`` and the dtype already matches (differentiable)."""
    if not isinstance(dtype, _dtypes.DType):
        raise TypeError(f"astype(): dtype must be an xtensor dtype, got {dtype!r}")
    if x.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"astype(): casting {x.dtype} to {dtype} would drop the imaginary part; use real() first")
    out = x if device is None else x.to_device(device)
    if dtype is not out.dtype:
        return out.to(dtype)
    return out.clone() if copy and out is x else out


def can_cast(from_, to, /):
    """Whether the standard's promotion of ``from_`` with some dtype gives ``to`` (never towards a lower kind)."""
    from_ = from_.dtype if isinstance(from_, Tensor) else from_
    if from_ is to:
        return True
    if not _dtypes.can_cast(from_, to):
        return False
    try:
        return _dtypes.promote_types(from_, to) is to
    except TypeError:  # uint64 with int64: no common type
        return False


def isdtype(dtype, kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return builtins.any(is_kind(dtype, k) for k in kinds)


def result_type(*arrays_and_dtypes):
    """The standard's promotion of arrays, dtypes and (2024.12) Python scalars. A scalar of the arrays' kind or a
    lower one takes their dtype; one of a higher kind (the standard leaves it to the library) promotes as the
    operators do: ``float64`` and ``1j`` give ``complex128``, ``int64`` and ``1.5`` the default float."""
    result = None
    scalars = []
    for x in arrays_and_dtypes:
        if isinstance(x, _dtypes.DType):
            d = x
        elif isinstance(x, Tensor) or hasattr(x, "dtype") and isinstance(x.dtype, _dtypes.DType):
            d = x.dtype
        elif type(x) in (builtins.bool, int, float, complex):
            scalars.append(x)
            continue
        else:
            raise TypeError(f"result_type(): expected arrays, dtypes or Python scalars, got {type(x).__name__}")
        result = d if result is None else _dtypes.promote_types(result, d)
    if result is None:
        raise ValueError("result_type: at least one array or dtype is needed, Python scalars alone have no dtype")
    return _dtypes.result_type(result, *scalars) if scalars else result


def broadcast_shapes(*shapes):
    """The shape ``shapes`` broadcast to (2025.12); ``ValueError`` when they do not broadcast."""
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            raise ValueError(f"shapes {[tuple(s) for s in shapes]} cannot be broadcast together (axis {axis}: "
                             f"sizes {sorted(sizes)})")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


class finfo(_dtypes.finfo):
    """The standard's ``finfo``: like ``xtensor.finfo`` but ``dtype`` is the (real) dtype object."""

    def __init__(self, type, /):
        super().__init__(type)
        self.dtype = _dtypes.by_name(self.dtype)


class iinfo(_dtypes.iinfo):
    """The standard's ``iinfo``: like ``xtensor.iinfo`` but ``dtype`` is the dtype object."""

    def __init__(self, type, /):
        super().__init__(type)
        self.dtype = _dtypes.by_name(self.dtype)
