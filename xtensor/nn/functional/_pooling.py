"""Pooling functions: max, average, power-average and adaptive pooling, and max-unpooling."""
import math

from ...autograd import no_grad

from ... import _creation
from ...ops._composite import _fn
from ._convolution import _tuple, _windows
from ._padding import pad

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d"
]


def _pool_geometry(input, n, kernel_size, stride, padding, dilation, ceil_mode, name):
    """Checked kernel/stride/padding/dilation and, per spatial dim, the output size and the extra right padding
    ``ceil_mode`` needs."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got: {list(input.shape)}")
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _tuple(stride, n)
    padding, dilation = _tuple(padding, n), _tuple(dilation, n)
    for k, p, d in zip(kernel, padding, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    sizes, extra = [], []
    for length, k, s, p, d in zip(input.shape[-n:], kernel, stride, padding, dilation):
        span = length + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= length + p:
            out -= 1
        sizes.append(out)
        extra.append(max((out - 1) * s + d * (k - 1) + 1 - (length + 2 * p), 0))
    if any(o <= 0 for o in sizes):
        shown = "x".join(map(str, input.shape[-n - 1:]))
        raise RuntimeError(f"Given input size: ({shown}). Calculated output size: "
                           f"({'x'.join(map(str, [input.shape[-n - 1]] + sizes))}). Output size is too small")
    return kernel, stride, padding, dilation, extra


def _padding_list(padding, extra, n):
    return [v for i in reversed(range(n)) for v in (padding[i], padding[i] + extra[i])]


def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    kernel, stride, padding, dilation, extra = _pool_geometry(input, n, kernel_size, stride, padding, dilation,
                                                              ceil_mode, f"max_pool{n}d")
    x = pad(input, _padding_list(padding, extra, n), value=-math.inf)
    windows = _windows(x, kernel, stride, dilation)
    flat = windows.reshape(*windows.shape[:-n], -1)
    values, picked = flat.max(-1)  # the first maximum of a window takes the gradient, as in PyTorch
    if not return_indices:
        return values
    return values, _pool_indices(input, n, picked, kernel, stride, padding, dilation)


def _pool_indices(input, n, picked, kernel, stride, padding, dilation):
    """Where each window's maximum sits in its input plane (flattened), as PyTorch's ``return_indices``."""
    index = picked.new_zeros(())
    rest = picked
    offsets = []
    for i in reversed(range(n)):
        offsets.append(rest % kernel[i])
        rest = rest // kernel[i]
    offsets.reverse()
    for i in range(n):
        out_size = picked.shape[picked.ndim - n + i]
        start = _creation.arange(out_size).to(picked.backend) * stride[i] - padding[i]
        start = start.reshape(out_size, *(1,) * (n - 1 - i))
        position = start + offsets[i] * dilation[i]
        index = index * input.shape[input.ndim - n + i] + position
    return index


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, True)


def _avg_pool(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, dilation, extra = _pool_geometry(input, n, kernel_size, stride, padding, 1, ceil_mode,
                                                              f"avg_pool{n}d")
    sums = _windows(pad(input, _padding_list(padding, extra, n)), kernel, stride, dilation).sum(
        tuple(range(-n, 0)))
    if divisor_override:
        return sums / divisor_override
    # The divisor counts the window's elements inside the input (and inside the padding when
    # count_include_pad), never those of the extra ceil_mode padding: a pooled mask of ones.
    with no_grad():
        ones = input.new_ones(tuple(input.shape[-n:]))
        counted = pad(ones, [p for i in reversed(range(n)) for p in (padding[i], padding[i])],
                      value=1.0 if count_include_pad else 0.0)
        counted = pad(counted, [p for i in reversed(range(n)) for p in (0, extra[i])])
        divisor = _windows(counted, kernel, stride, dilation).sum(tuple(range(-n, 0)))
    return sums / divisor


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _lp_pool(input, n, norm_type, kernel_size, stride, ceil_mode):
    """PyTorch's formula: the ``norm_type`` root of ``kernel volume * avg_pool(input ** norm_type)``."""
    kernel = _tuple(kernel_size, n)
    pooled = _avg_pool(input.pow(norm_type), n, kernel, stride, 0, ceil_mode, True, None)
    return (pooled.sign() * pooled.abs().relu()).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, 3, norm_type, kernel_size, stride, ceil_mode)


def _adaptive_sizes(input, output_size, n, name):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    sizes = _tuple(output_size, n, "output_size") if output_size is not None else input.shape[-n:]
    return [input.shape[input.ndim - n + i] if s is None else s for i, s in enumerate(sizes)]


def _adaptive_starts(length, size):
    """PyTorch's adaptive windows over ``length``: ``[floor(j L / s), ceil((j + 1) L / s))`` for each j < s."""
    return [((j * length) // size, -(-(j + 1) * length // size)) for j in range(size)]


def _adaptive_max_pool(input, output_size, return_indices, n):
    """Each output cell is the maximum of its adaptive window (the first maximum takes the gradient), and with
    ``return_indices`` its flat position in the input plane."""
    sizes = _adaptive_sizes(input, output_size, n, f"adaptive_max_pool{n}d")
    spatial = tuple(input.shape[-n:])
    cells = [[]]
    for length, size in zip(spatial, sizes):
        cells = [cell + [window] for cell in cells for window in _adaptive_starts(length, size)]
    values, indices = [], []
    for cell in cells:
        window = input
        for i, (lo, hi) in enumerate(cell):
            window = window.narrow(input.ndim - n + i, lo, hi - lo)
        value, picked = window.reshape(*window.shape[:-n], -1).max(-1)
        values.append(value)
        if return_indices:
            index, rest = picked.new_zeros(()), picked
            widths = [hi - lo for lo, hi in cell]
            offsets = []
            for w in reversed(widths):
                offsets.append(rest % w)
                rest = rest // w
            for (lo, _), offset, length in zip(cell, reversed(offsets), spatial):
                index = index * length + (offset + lo)
            indices.append(index)
    shape = tuple(input.shape[:-n]) + tuple(sizes)
    out = _fn("stack")(values, -1).reshape(shape)
    return (out, _fn("stack")(indices, -1).reshape(shape)) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max_pool(input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max_pool(input, output_size, return_indices, 3)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return _adaptive_max_pool(input, output_size, True, 1)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return _adaptive_max_pool(input, output_size, True, 2)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    return _adaptive_max_pool(input, output_size, True, 3)


def _adaptive_avg_pool(input, output_size, n):
    sizes = _adaptive_sizes(input, output_size, n, f"adaptive_avg_pool{n}d")
    out = input
    for i, size in enumerate(sizes):  # one spatial dim at a time: windows [floor(j L / s), ceil((j + 1) L / s))
        dim = input.ndim - n + i
        length = input.shape[dim]
        if length % size == 0:
            k = length // size
            out = out.unflatten(dim, (size, k)).mean(dim + 1)
        else:
            out = _fn("stack")([out.narrow(dim, lo, hi - lo).mean(dim) for lo, hi in _adaptive_starts(length, size)],
                              dim)
    return out


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 3)


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    """The inverse of max pooling: each value written at its ``indices`` (flat positions in the output plane, as
    ``max_pool*(return_indices=True)`` gives them) of a zero plane."""
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None else _tuple(stride, n, "stride")
    padding = _tuple(padding, n, "padding")
    if output_size is None:
        sizes = [(length - 1) * s - 2 * p + k for length, s, p, k in zip(input.shape[-n:], stride, padding, kernel)]
    else:
        sizes = list(output_size)[-n:]
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    lead = tuple(input.shape[:-n])
    plane = math.prod(sizes)
    out = input.new_zeros(lead + (plane,)).scatter(-1, indices.reshape(*lead, -1), input.reshape(*lead, -1))
    return out.reshape(*lead, *sizes)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
