"""``Conv1d/2d/3d`` (stride, padding incl. ``'same'``/``'valid'``, dilation, groups, padding modes) and
``ConvTranspose1d/2d/3d`` (output_padding, or an ``output_size`` per call)."""
import math

from .. import functional as F, init
from ..functional._convolution import _conv, _conv_transpose
from .linear import uniform_bias_, weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _ConvNd(Module):
    n = 0
    transposed = False  # ConvTranspose: weight (in, out / groups, *kernel)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        n = self.n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                             f"padding_mode='{padding_mode}'")
        self.kernel_size, self.stride, self.dilation = (_ntuple(v, n) for v in (kernel_size, stride, dilation))
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _ntuple(padding, n)
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.output_padding, self.padding_mode = _ntuple(output_padding, n), padding_mode
        channels = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        weight_and_bias(self, (*channels, *self.kernel_size), (out_channels,), bias, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                uniform_bias_(self.bias, fan_in)

    def forward(self, input):
        if self.padding_mode == "zeros" or self.padding == "valid":
            return _conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups,
                           self.n)
        if self.padding == "same":
            total = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)]
            pads = [p for t in reversed(total) for p in (t // 2, t - t // 2)]
        else:
            pads = [p for p in reversed(self.padding) for _ in range(2)]
        return _conv(F.pad(input, pads, mode=self.padding_mode), self.weight, self.bias, self.stride, 0,
                       self.dilation, self.groups, self.n)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    n = 1


class Conv2d(_ConvNd):
    n = 2


class Conv3d(_ConvNd):
    n = 3


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:  # the padding that reaches the requested size (PyTorch's _output_padding)
            spatial = input.shape[input.ndim - self.n:]
            smallest = [(size - 1) * s - 2 * p + d * (k - 1) + 1 for size, s, p, d, k in
                        zip(spatial, self.stride, self.padding, self.dilation, self.kernel_size)]
            output_padding = tuple(o - m for o, m in zip(list(output_size)[-self.n:], smallest))
        return _conv_transpose(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                 self.groups, self.dilation, self.n)


class ConvTranspose1d(_ConvTransposeNd):
    n = 1


class ConvTranspose2d(_ConvTransposeNd):
    n = 2


class ConvTranspose3d(_ConvTransposeNd):
    n = 3
