"""``nn.init``: in-place initialisers with PyTorch's formulas (fans, gains, bounds).

Numbers come from xtensor's generator (``xtensor.manual_seed`` or ``generator=``), so the same seed gives
the same parameters on every backend; they are not torch's numbers. ``trunc_normal_`` samples by the
inverse normal CDF (the same distribution PyTorch draws by rejection).
"""
import math
import warnings

from .. import _creation
from ..autograd import no_grad
from ..ops.linalg import qr

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
           "trunc_normal_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(_creation.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """The identity of a 3-, 4- or 5-d convolution: each group keeps as many input channels as it can."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal sample, signs fixed by ``diag(R)``."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flat = flat.t()
    q, r = qr(flat)
    q = q * r.diagonal().sign()
    if rows < cols:
        q = q.t()
    with no_grad():
        return tensor.copy_(q.reshape(tensor.shape) * gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Normal(0, std) entries with ``ceil(sparsity * rows)`` of each column zeroed (rows drawn at random)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[_creation.randperm(rows, generator=generator)[:zeros].to(tensor.device), col] = 0
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    low, high = cdf((a - mean) / std), cdf((b - mean) / std)
    with no_grad():
        tensor.uniform_(2 * low - 1, 2 * high - 1, generator=generator)
        tensor.erfinv_().mul_(std * math.sqrt(2.0)).add_(mean)
        return tensor.clamp_(min=a, max=b)


def _deprecated(initialiser):
    """PyTorch's old name without the trailing underscore: the same initialiser, with its FutureWarning."""
    old_name, new_name = initialiser.__name__[:-1], initialiser.__name__

    def deprecated(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return initialiser(*args, **kwargs)
    deprecated.__name__ = deprecated.__qualname__ = old_name
    return deprecated


uniform, normal, constant, eye, dirac = map(_deprecated, (uniform_, normal_, constant_, eye_, dirac_))
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)
