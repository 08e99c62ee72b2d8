"""Convolution functions: ``conv1d/2d/3d``, the transposed convolutions, ``conv_tbc``, ``unfold`` and
``fold``.

The input is padded, windows are taken with ``unfold`` (a strided view on numpy, a gather elsewhere),
and the windows meet the kernel in one ``einsum`` (a batched matmul). Where the adapter offers a
native convolution (jax's ``lax.conv_general_dilated``), conv1d/conv2d run it instead, through the
op-table entry ``convolution`` whose gradients are convolutions too (``xtensor/ops/nn.py``)."""
import numbers

from ..._dispatch import _unify
from ...ops.nn import convolution
from ._common import _named, _xt
from ._padding import pad

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc", "unfold",
    "fold"
]


def _tuple(value, n, name="kernel_size"):
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"{name} must be a single int or a tuple of {n} ints, got {value}")
    return value


def _windows(x, kernel, stride, dilation):
    """Windows of ``x`` over its last ``len(kernel)`` dims: shape ``(*lead, *out_sizes, *kernel)``."""
    n = len(kernel)
    first = x.ndim - n
    for i, (k, s, d) in enumerate(zip(kernel, stride, dilation)):
        x = x.unfold(first + i, d * (k - 1) + 1, s)
    if any(d > 1 for d in dilation):
        x = x[(Ellipsis,) + tuple(slice(None, None, d) for d in dilation)]
    return x


def _batched(input, weight, n, name):
    """``(unbatched, input with a batch dimension)``, after PyTorch's checks of both operands' ranks."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    unbatched = input.ndim == n + 1
    x = input.unsqueeze(0) if unbatched else input
    if weight.ndim != n + 2:
        raise RuntimeError(f"weight should have at least three dimensions: expected {n + 2}-dimensional weight for "
                           f"{n + 2}-dimensional input {list(x.shape)}, but got {weight.ndim}-dimensional weight of "
                           f"size {list(weight.shape)} instead")
    return unbatched, x


def _conv(input, weight, bias, stride, padding, dilation, groups, n):
    unbatched, x = _batched(input, weight, n, f"conv{n}d")
    out_channels, group_in = weight.shape[0], weight.shape[1]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if x.shape[1] != group_in * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {group_in * groups} channels, but got {x.shape[1]} channels "
                           "instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{out_channels} elements, but got bias of size {list(bias.shape)} instead")
    kernel = tuple(weight.shape[2:])
    stride, dilation = _tuple(stride, n, "stride"), _tuple(dilation, n, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) if padding == "same" else 0 for k, d in zip(kernel, dilation)]
        pads = [(t // 2, t - t // 2) for t in total]
    else:
        pads = [(p, p) for p in _tuple(padding, n, "padding")]
    padded = [size + a + b for size, (a, b) in zip(x.shape[2:], pads)]
    effective = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, effective))}). Kernel size can't be greater than actual "
                           "input size")
    out = _convolve(x, weight, bias, stride, pads, dilation, groups)
    return out.squeeze(0) if unbatched else out


def _convolve(x, weight, bias, stride, pads, dilation, groups, spread=None):
    """The convolution of batched ``x`` (N, C, *spatial) after ``spread`` (``lhs_dilation``: its elements that far
    apart, zeros between; transposed convolutions) and padding by ``pads`` (low, high) pairs (negative crops): the
    adapter's kernel where it has one (jax's, see xtensor/ops/nn.py), else windows and one einsum."""
    n = x.ndim - 2
    spread = spread or (1,) * n
    if _unify((x, weight, bias)).native_conv is not None:
        return convolution(x, weight, bias, stride, pads, spread, dilation, groups)
    for i, s in enumerate(spread):
        if s > 1:  # s - 1 zeros after each element, the trailing ones dropped
            dim, length = 2 + i, x.shape[2 + i]
            gaps = x.new_zeros(tuple(x.shape[:dim + 1]) + (s - 1,) + tuple(x.shape[dim + 1:]))
            x = _xt().cat([x.unsqueeze(dim + 1), gaps], dim + 1).flatten(dim, dim + 1).narrow(dim, 0,
                                                                                             (length - 1) * s + 1)
    if any(a or b for a, b in pads):
        x = pad(x, [p for pair in reversed(pads) for p in pair])
    out_channels, group_in, *kernel = weight.shape
    cols = _windows(x, kernel, stride, dilation)  # (N, C, *out, *kernel)
    batch, spatial = cols.shape[0], tuple(cols.shape[2:2 + n])
    cols = cols.reshape(batch, groups, group_in, *spatial, *kernel)
    w = weight.reshape(groups, out_channels // groups, group_in, *kernel)
    letters = "xyz"[:n]
    kl = "klm"[:n]
    out = _xt().einsum(f"ngc{letters}{kl},goc{kl}->ngo{letters}", cols, w).reshape(batch, out_channels, *spatial)
    return _named(out if bias is None else out + bias.reshape(1, -1, *(1,) * n), "ConvolutionBackward0")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n):
    """The adjoint of ``conv{n}d`` (its input-gradient): the input spread ``stride`` apart, padded by
    ``dilation (k - 1) - padding`` (plus ``output_padding`` at the end), convolved with the flipped kernel whose
    in/out channels are exchanged per group."""
    unbatched, x = _batched(input, weight, n, f"conv_transpose{n}d")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    in_channels, group_out, *kernel = weight.shape
    if x.shape[1] != in_channels or in_channels % groups:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} "
                           f"to have {in_channels} channels, but got {x.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != group_out * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {group_out * groups} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    stride, padding, output_padding, dilation = (_tuple(v, n, name) for v, name in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation")
    flipped = weight.reshape(groups, in_channels // groups, group_out, *kernel).transpose(1, 2).reshape(
        groups * group_out, in_channels // groups, *kernel).flip(tuple(range(2, n + 2)))
    pads = [(d * (k - 1) - p, d * (k - 1) - p + o) for k, d, p, o in zip(kernel, dilation, padding, output_padding)]
    out = _convolve(x, flipped, bias, (1,) * n, pads, dilation, groups, stride)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_tbc(input, weight, bias, pad=0):
    """A 1-d convolution of (time, batch, in) input with a (kernel, in, out) weight, as (time, batch, out)."""
    return conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad).permute(2, 0, 1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C kh kw, L), the sliding blocks as columns (unbatched (C, H, W) too)."""
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    x = input.unsqueeze(0) if input.ndim == 3 else input
    kernel, dilation, padding, stride = (_tuple(v, 2, name) for v, name in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"), (stride, "stride")))
    x = pad(x, [padding[1], padding[1], padding[0], padding[0]])
    blocks = _windows(x, kernel, stride, dilation)  # (N, C, oh, ow, kh, kw)
    n, c, oh, ow = blocks.shape[:4]
    out = blocks.permute(0, 1, 4, 5, 2, 3).reshape(n, c * kernel[0] * kernel[1], oh * ow)
    return out.squeeze(0) if input.ndim == 3 else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of ``unfold``: (N, C kh kw, L) -> (N, C, H, W), overlapping blocks summed."""
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.ndim}D)")
    x = input.unsqueeze(0) if input.ndim == 2 else input
    size, kernel, dilation, padding, stride = (_tuple(v, 2, name) for v, name in (
        (output_size, "output_size"), (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"),
        (stride, "stride")))
    padded = [s + 2 * p for s, p in zip(size, padding)]
    blocks = [(p - d * (k - 1) - 1) // st + 1 for p, k, d, st in zip(padded, kernel, dilation, stride)]
    n, rows, length = x.shape
    per_block = kernel[0] * kernel[1]
    geometry = (f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                f"stride={stride}, expected size of input's dimension")
    if rows % per_block:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={rows} and kernel_size={kernel}")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(f"{geometry} {x.ndim - 1} to match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size({x.ndim - 1})={length}.")
    import numpy as np  # the positions are geometry only: computed once on the host
    ki, kj, bi, bj = np.meshgrid(*(np.arange(v) for v in (*kernel, *blocks)), indexing="ij")
    position = ((bi * stride[0] + ki * dilation[0]) * padded[1] + bj * stride[1] + kj * dilation[1]).reshape(-1)
    channels = rows // per_block
    out = x.new_zeros((n, channels, padded[0] * padded[1])).index_add(
        2, _xt().tensor(position).to(x.backend), x.reshape(n, channels, -1))
    out = out.reshape(n, channels, *padded)[..., padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]]
    return out.squeeze(0) if input.ndim == 2 else out
