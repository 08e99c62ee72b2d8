"""Linear functions: ``linear`` and ``bilinear``."""

from ...ops._composite import _fn


__all__ = ["linear", "bilinear"]


def linear(input, weight, bias=None):
    if input.ndim and weight.ndim == 2 and bias is not None and bias.ndim <= 1:  # PyTorch's: one addmm (one node)
        if input.ndim == 2:
            return _fn("addmm")(bias, input, weight.t())
        out = _fn("addmm")(bias, input.reshape(-1, input.shape[-1]), weight.t())
        return out.view(*input.shape[:-1], out.shape[-1])
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
