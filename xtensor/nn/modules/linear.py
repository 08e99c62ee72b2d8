"""``Identity``, ``Linear``, ``Bilinear``: PyTorch's default initialisation (kaiming-uniform, a=sqrt(5))."""
import math

from ... import _creation
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


def factory(device=None, dtype=None):
    """The ``device=``/``dtype=`` keywords every layer takes, as keywords for ``xtensor.empty``."""
    return {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}


def empty_parameter(*shape, device=None, dtype=None):
    return Parameter(_creation.empty(*shape, **factory(device, dtype)))


def weight_and_bias(module, weight_shape, bias_shape, bias=True, weight=True, device=None, dtype=None):
    """Register uninitialised ``weight`` and ``bias`` parameters of these shapes, or None where switched off
    (``bias=False``, or no affine part: PyTorch still lists them, as None)."""
    for name, shape, on in (("weight", weight_shape, weight), ("bias", bias_shape, weight and bias)):
        module.register_parameter(name, empty_parameter(*shape, device=device, dtype=dtype) if on else None)


def uniform_bias_(bias, fan_in):
    """PyTorch's bias init for layers with a kaiming-uniform weight: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x W^T + b``."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        weight_and_bias(self, (out_features, in_features), (out_features,), bias, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            uniform_bias_(self.bias, init._calculate_fan_in_and_fan_out(self.weight)[0])

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """``y = x1^T A x2 + b``."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        weight_and_bias(self, (out_features, in1_features, in2_features), (out_features,), bias, device=device,
                        dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of MultiheadAttention (PyTorch names it so; it is a Linear)."""
