"""``xtensor.nn.functional``: activations, losses, convolution, pooling, normalisation, attention.

Every function is a composite of differentiable xtensor ops (softmax/log_softmax are op-table
primitives, see ``xtensor/ops/nn.py``), so each gets its gradient of any order, every backend and
``jax.jit`` for free. Where a naive formula overflows, the composite is written so neither its value
nor its gradient does: ``log(1 + exp(z))`` is ``z + log1p(exp(-z))`` for ``z > 0`` and ``log1p(exp(z))``
elsewhere, each side fed only its own inputs (the other side sees 0), so no exp overflows and no
``inf * 0`` reaches a gradient, even at ``z = +-inf`` (PyTorch's values and gradients there).

Convolution and pooling are built from standard ops so they run on any array-API backend: the input
is padded, windows are taken with ``unfold`` (a strided view on numpy, a gather elsewhere), and the
windows meet the kernel in one ``einsum`` (a batched matmul). Where the adapter offers a native convolution
(jax's ``lax.conv_general_dilated``), conv1d/conv2d run it instead, through the op-table entry ``convolution``
whose gradients are convolutions too (``xtensor/ops/nn.py``): same values, same gradients, any order.
"""
import math
import numbers
import warnings

from .. import _dtypes
from .._dispatch import _unify
from ..autograd import no_grad
from ..ops.nn import convolution

__all__ = [
    "linear", "bilinear", "relu", "relu_", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
    "softplus", "tanh", "sigmoid", "hardtanh", "hardsigmoid", "hardswish", "logsigmoid", "softsign", "tanhshrink",
    "threshold", "softmax", "log_softmax", "softmin", "glu", "dropout", "one_hot", "pad", "embedding", "normalize",
    "cosine_similarity", "layer_norm", "batch_norm", "group_norm", "conv1d", "conv2d", "max_pool1d", "max_pool2d",
    "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "scaled_dot_product_attention",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
]


def _xt():
    import xtensor
    return xtensor


# ------------------------------------------------------------------ linear maps
def linear(input, weight, bias=None):
    out = input.matmul(weight.t()) if weight.ndim == 2 else input.matmul(weight)
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if weight.ndim != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the "
                           f"weight of size {list(weight.shape)}")
    out = _xt().einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


# ------------------------------------------------------------------ activations
def _maybe_inplace(input, result, inplace):
    """PyTorch's ``inplace=True``: the result is written into ``input`` (which must allow it)."""
    return input.copy_(result) if inplace else result


def _softplus0(z):
    """``log(1 + exp(z))`` with no overflow in value or gradient (see the module docstring); NaN stays NaN."""
    positive = z > 0
    above, below = z.where(positive, 0.0), z.where(~positive, 0.0)
    return (above + (-above).exp().log1p()).where(positive, below.exp().log1p())


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _maybe_inplace(input, input.where(input > 0, input * negative_slope), inplace)


def elu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(input, input.where(input > 0, alpha * input.clamp(max=0).expm1()), inplace)


def selu(input, inplace=False):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return _maybe_inplace(input, scale * elu(input, alpha), inplace)


def celu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(input, input.where(input > 0, alpha * (input.clamp(max=0) / alpha).expm1()), inplace)


def gelu(input, approximate="none"):
    if approximate == "none":
        return 0.5 * input * (1 + (input * (1 / math.sqrt(2))).erf())
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1 + inner.tanh())
    raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")


def silu(input, inplace=False):
    return _maybe_inplace(input, input * input.sigmoid(), inplace)


def mish(input, inplace=False):
    return _maybe_inplace(input, input * _softplus0(input).tanh(), inplace)


def softplus(input, beta=1.0, threshold=20.0):
    scaled = input * beta
    return input.where(scaled > threshold, _softplus0(scaled) / beta)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(input, (input / 6 + 0.5).clamp(0, 1), inplace)


def hardswish(input, inplace=False):
    return _maybe_inplace(input, input * (input + 3).clamp(0, 6) / 6, inplace)


def logsigmoid(input):
    return -_softplus0(-input)


def softsign(input):
    return input / (1 + input.abs())


def tanhshrink(input):
    return input - input.tanh()


def threshold(input, threshold, value, inplace=False):
    return _maybe_inplace(input, input.where(input > threshold, input.new_tensor(value)), inplace)


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.softmax(_softmax_dim("softmax", input.ndim) if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.log_softmax(_softmax_dim("log_softmax", input.ndim) if dim is None else dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return (-input).softmax(_softmax_dim("softmin", input.ndim) if dim is None else dim, dtype=dtype)


def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} is size "
                           f"{input.shape[dim]}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


# ------------------------------------------------------------------ dropout, one_hot, embedding, pad
def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return _maybe_inplace(input, input * 0, inplace)
    keep = _xt().rand(tuple(input.shape)).to(input.backend) < (1 - p)
    return _maybe_inplace(input, input * keep / (1 - p), inplace)


def one_hot(tensor, num_classes=-1):
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() and not _traced(tensor):
        if bool((tensor < 0).any()):
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(tensor.max()) + 1
        elif bool((tensor >= num_classes).any()):
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes == -1:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    classes = _xt().arange(num_classes).to(tensor.backend)
    return (tensor.unsqueeze(-1) == classes).long()


def _traced(t):
    """Whether ``t`` is a value inside a jax trace (its values cannot be read on the host)."""
    try:
        import jax
    except ImportError:
        return False
    return isinstance(t._value, jax.core.Tracer)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if input.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= n
    if input.numel() and not _traced(input) and bool(((input < 0) | (input >= n)).any()):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        with no_grad():
            rows = weight[input.reshape(-1).unique()]
            norms = _xt().linalg.vector_norm(rows, norm_type, -1, keepdim=True)
            scale = (max_norm / (norms + 1e-7)).clamp(max=1)
            weight[input.reshape(-1).unique()] = rows * scale
    rows = weight.index_select(0, input.reshape(-1))
    if padding_idx is not None:  # the padding row is returned as it is but never receives a gradient
        keep = (input.reshape(-1) != padding_idx).unsqueeze(-1)
        rows = rows.where(keep, rows.detach())
    return rows.reshape(*input.shape, weight.shape[1])


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    out = input
    for i in range(len(pad) // 2):
        dim = input.ndim - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        out = _pad_dim(out, dim, left, right, mode, 0.0 if value is None else value)
    return out


def _pad_dim(x, dim, left, right, mode, value):
    n = x.shape[dim]
    if mode == "reflect" and (left >= n or right >= n):
        raise RuntimeError("Argument #4: Padding size should be less than the corresponding input dimension, but "
                           f"got: padding ({left}, {right}) at dimension {dim} of input {list(x.shape)}")
    if mode == "circular" and (left > n or right > n):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode == "replicate" and n == 0 and (left > 0 or right > 0):
        raise RuntimeError(f"Expected the padded dimension {dim} to have a non-zero size")
    if left < 0:
        x, n, left = x.narrow(dim, -left, n + left), n + left, 0
    if right < 0:
        x, n, right = x.narrow(dim, 0, n + right), n + right, 0
    if not left and not right:
        return x

    def block(size, at_start):
        if mode == "constant":
            shape = list(x.shape)
            shape[dim] = size
            return x.new_full(shape, value)
        if mode == "reflect":
            return (x.narrow(dim, 1, size) if at_start else x.narrow(dim, n - 1 - size, size)).flip(dim)
        if mode == "replicate":
            edge = x.narrow(dim, 0 if at_start else n - 1, 1)
            shape = list(x.shape)
            shape[dim] = size
            return edge.expand(shape)
        return x.narrow(dim, n - size, size) if at_start else x.narrow(dim, 0, size)  # circular
    parts = ([block(left, True)] if left else []) + [x] + ([block(right, False)] if right else [])
    return _xt().cat(parts, dim)


# ------------------------------------------------------------------ normalisation
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    norm = _xt().linalg.vector_norm(input, p, dim, keepdim=True).clamp_min(eps)
    result = input / norm.expand_as(input)
    return result if out is None else out.copy_(result)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    n1 = _xt().linalg.vector_norm(x1, 2, dim, keepdim=True)
    n2 = _xt().linalg.vector_norm(x2, 2, dim, keepdim=True)
    return ((x1 / n1.clamp_min(eps)) * (x2 / n2.clamp_min(eps))).sum(dim)


def _normalized(x, dims, eps):
    var, mean = _xt().var_mean(x, dims, correction=0, keepdim=True)
    return (x - mean) * (var + eps).rsqrt()


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    out = _normalized(input, tuple(range(input.ndim - len(shape), input.ndim)), eps)
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def _channel_shape(input):
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    channels = input.shape[1] if input.ndim > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if training:
        per_channel = input.numel() // max(channels, 1)
        if per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    shape = _channel_shape(input)
    dims = (0,) + tuple(range(2, input.ndim))
    if training or running_mean is None:
        var, mean = _xt().var_mean(input, dims, correction=0, keepdim=True)
        if training and running_mean is not None:
            n = input.numel() // channels
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.reshape(-1).detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.reshape(-1).detach() * (momentum * n / max(n - 1, 1)))
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    return out if bias is None else out + bias.reshape(shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    out = _normalized(grouped, (2,), eps).reshape(input.shape)
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    return out if bias is None else out + bias.reshape(shape)


# ------------------------------------------------------------------ convolution and pooling
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


def _conv(input, weight, bias, stride, padding, dilation, groups, n):
    name = f"conv{n}d"
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    unbatched = input.ndim == n + 1
    x = input.unsqueeze(0) if unbatched else input
    if weight.ndim != n + 2:
        raise RuntimeError(f"weight should have at least three dimensions: expected {n + 2}-dimensional weight for "
                           f"{n + 2}-dimensional input {list(x.shape)}, but got {weight.ndim}-dimensional weight of "
                           f"size {list(weight.shape)} instead")
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
    if _unify((x, weight, bias)).native_conv is not None:  # the adapter's kernel (jax's), see xtensor/ops/nn.py
        out = convolution(x, weight, bias, stride, pads, (1,) * n, dilation, groups)
        return out.squeeze(0) if unbatched else out
    if any(a or b for a, b in pads):
        x = pad(x, [p for pair in reversed(pads) for p in pair])
    cols = _windows(x, kernel, stride, dilation)  # (N, C, *out, *kernel)
    batch, spatial = cols.shape[0], tuple(cols.shape[2:2 + n])
    cols = cols.reshape(batch, groups, group_in, *spatial, *kernel)
    w = weight.reshape(groups, out_channels // groups, group_in, *kernel)
    letters = "xyz"[:n]
    kl = "klm"[:n]
    out = _xt().einsum(f"ngc{letters}{kl},goc{kl}->ngo{letters}", cols, w).reshape(batch, out_channels, *spatial)
    if bias is not None:
        out = out + bias.reshape(1, -1, *(1,) * n)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


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
    xt = _xt()
    index = picked.new_zeros(())
    rest = picked
    offsets = []
    for i in reversed(range(n)):
        offsets.append(rest % kernel[i])
        rest = rest // kernel[i]
    offsets.reverse()
    for i in range(n):
        out_size = picked.shape[picked.ndim - n + i]
        start = xt.arange(out_size).to(picked.backend) * stride[i] - padding[i]
        start = start.reshape(out_size, *(1,) * (n - 1 - i))
        position = start + offsets[i] * dilation[i]
        index = index * input.shape[input.ndim - n + i] + position
    return index


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


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


def _adaptive_avg_pool(input, output_size, n):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"adaptive_avg_pool{n}d(): Expected {n + 1}D or {n + 2}D tensor, but got "
                           f"{list(input.shape)}")
    sizes = _tuple(output_size, n, "output_size") if output_size is not None else input.shape[-n:]
    sizes = [input.shape[input.ndim - n + i] if s is None else s for i, s in enumerate(sizes)]
    out = input
    for i, size in enumerate(sizes):  # one spatial dim at a time: windows [floor(j L / s), ceil((j + 1) L / s))
        dim = input.ndim - n + i
        length = input.shape[dim]
        if length % size == 0:
            k = length // size
            out = out.unflatten(dim, (size, k)).mean(dim + 1)
        else:
            out = _xt().stack([out.narrow(dim, (j * length) // size, -(-(j + 1) * length // size) - (j * length) //
                                          size).mean(dim) for j in range(size)], dim)
    return out


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 2)


# ------------------------------------------------------------------ attention
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    xt = _xt()
    length, source = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa:
        repeat = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(repeat, -3), value.repeat_interleave(repeat, -3)
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        attn_mask = xt.ones(length, source, dtype=xt.bool).to(query.backend).tril()
    if attn_mask is not None:
        if attn_mask.dtype is _dtypes.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights.matmul(value)


# ------------------------------------------------------------------ losses
_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, reduction):
    """The deprecated ``size_average``/``reduce`` arguments, mapped onto ``reduction`` as PyTorch does."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.",
                  stacklevel=3)
    return result


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _pointwise(input, target, reduction, loss_of_difference):
    _check_reduction(reduction)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)
    return _reduce(loss_of_difference(input - target), reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _pointwise(input, target, "none", lambda d: d * d)
    return _reduce(loss if weight is None else loss * weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _pointwise(input, target, "none", lambda d: d.abs())
    return _reduce(loss if weight is None else loss * weight, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return _pointwise(input, target, reduction,
                      lambda d: (0.5 * d * d / beta).where(d.abs() < beta, d.abs() - 0.5 * beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _pointwise(input, target, "none",
                      lambda d: (0.5 * d * d).where(d.abs() < delta, delta * (d.abs() - 0.5 * delta)))
    return _reduce(loss if weight is None else loss * weight, reduction)


def _check_class_weight(weight, classes):
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")


def _check_targets(target, classes, ignore_index):
    """PyTorch's bounds check of class targets (eager only: a traced target has no values to check)."""
    if not target.numel() or _traced(target):
        return
    bad = ((target < 0) | (target >= classes)) & (target != ignore_index)
    if bool(bad.any()):
        raise IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.dtype.kind not in "iu":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_name}")
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1:
        if target.ndim > 1 or (target.ndim == 1 and target.shape[0] != 1):
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        input, squeeze = input.unsqueeze(0), True
        target = target.reshape(1)
    else:
        squeeze = False
        if input.shape[0] != (target.shape[0] if target.ndim else 1) or target.ndim == 0:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0] if target.ndim else 1}).")
        if input.ndim == 2 and target.ndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim > 2 and tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
            if target.ndim == input.ndim - 1:
                raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got "
                                   f"{list(target.shape)}")
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    classes = input.shape[1]
    _check_class_weight(weight, classes)
    _check_targets(target, classes, ignore_index)
    kept = target != ignore_index
    safe = target.where(kept, target.new_zeros(()))
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = kept.to(input.dtype) if weight is None else weight.index_select(0, safe.reshape(-1)).reshape(
        safe.shape) * kept
    loss = -picked * w
    if reduction == "none":
        return loss.squeeze(0) if squeeze else loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    logp = input.log_softmax(class_dim)
    weight_shape = (classes,) + (1,) * (input.ndim - 1 - class_dim)
    if target.dtype.kind == "f":
        return _cross_entropy_probabilities(input, logp, target, weight, reduction, label_smoothing, class_dim,
                                            weight_shape)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return loss
    kept = target != ignore_index
    spread = -(logp if weight is None else logp * weight.reshape(weight_shape)).sum(class_dim)
    spread = spread.where(kept, spread.new_zeros(()))
    if reduction == "mean":
        if weight is None:
            spread = spread.sum() / kept.sum()
        else:
            safe = target.where(kept, target.new_zeros(()))
            spread = spread.sum() / (weight.index_select(0, safe.reshape(-1)) * kept.reshape(-1)).sum()
    elif reduction == "sum":
        spread = spread.sum()
    return (1 - label_smoothing) * loss + spread * (label_smoothing / classes)


def _cross_entropy_probabilities(input, logp, target, weight, reduction, label_smoothing, class_dim, weight_shape):
    if target.shape != input.shape:
        if input.ndim == 2 and target.ndim != 1 or input.ndim != 2 and target.ndim == input.ndim:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{target.dtype.scalar_name}")
    _check_class_weight(weight, input.shape[class_dim])
    classes = input.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = logp * target
    if weight is not None:
        terms = terms * weight.reshape(weight_shape)
    loss = -terms.sum(class_dim)
    if reduction == "mean":
        return loss.sum() / (input.numel() // classes) if input.numel() else loss.sum() / 0.0
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if input.numel() and not _traced(input) and bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = -(target * input.log().clamp(min=-100) + (1 - target) * (1 - input).log().clamp(min=-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    softplus_neg = _softplus0(-input)  # -log(sigmoid(input)), finite at any logit
    if pos_weight is None:
        loss = (1 - target) * input + softplus_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    loss = target.exp() * (target - input) if log_target else _xt().xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.ndim != input2.ndim or input1.shape != input2.shape:
        raise RuntimeError(f"cosine_embedding_loss: Input1 and Input2 must have the same shape, but got input1 of "
                           f"size {list(input1.shape)} and input2 of size {list(input2.shape)}")
    if target.ndim + 1 != input1.ndim:
        raise RuntimeError(f"{target.ndim}D target tensor expects {target.ndim + 1}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    dim = input1.ndim - 1
    eps = 1e-12
    products = (input1 * input2).sum(dim)
    norms = (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    cos = products / norms
    zero = cos.new_zeros(())
    loss = (1 - cos).where(target == 1, zero) + (cos - margin).clamp_min(0).where(target == -1, zero)
    return _reduce(loss, reduction)

