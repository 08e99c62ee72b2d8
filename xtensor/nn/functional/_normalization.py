"""Normalisation functions: ``normalize`` and the batch, layer, group, instance, local-response and
RMS norms."""
from ...autograd import no_grad
from ... import _dtypes
from ...ops._composite import _fn
from ...ops.linalg import vector_norm
from ._activation import _channel_shape

from ._padding import _pad_dim

__all__ = ["normalize", "layer_norm", "batch_norm", "group_norm", "instance_norm", "local_response_norm", "rms_norm"]


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    norm = vector_norm(input, p, dim, keepdim=True).clamp_min(eps)
    result = input / norm.expand_as(input)
    return result if out is None else out.copy_(result)


def _normalized(x, dims, eps):
    var, mean = _fn("var_mean")(x, dims, correction=0, keepdim=True)
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
        var, mean = _fn("var_mean")(input, dims, correction=0, keepdim=True)
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


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each (sample, channel) plane normalized by its own statistics (``use_input_stats``; the running ones are
    updated with their mean over the batch, the variance unbiased) or by the running ones."""
    if input.ndim < 3:
        raise ValueError(f"Expected 2D (unbatched) or 3D (batched) input to instance_norm, but got input of size "
                         f"{list(input.shape)}")
    shape = _channel_shape(input)
    dims = tuple(range(2, input.ndim))
    if use_input_stats:
        var, mean = _fn("var_mean")(input, dims, correction=0, keepdim=True)
        if running_mean is not None:
            n = input.numel() // (input.shape[0] * input.shape[1])
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach().mean(0).reshape(-1) * momentum)
                running_var.mul_(1 - momentum).add_(var.detach().mean(0).reshape(-1) * (momentum * n / max(n - 1, 1)))
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    return out if bias is None else out + bias.reshape(shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``input / (k + alpha * mean of squares over a window of `size` neighbouring channels) ** beta``."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    squares = _pad_dim(input * input, 1, size // 2, (size - 1) // 2, "constant", 0.0)
    return input / (squares.unfold(1, size, 1).mean(-1) * alpha + k) ** beta


def rms_norm(input, normalized_shape, weight=None, eps=None):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    eps = _dtypes.finfo(input.dtype).eps if eps is None else eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight
