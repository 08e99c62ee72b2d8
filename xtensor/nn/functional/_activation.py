"""Non-linear activation functions, the softmax family and ``glu``/``gumbel_softmax``.

Where a naive formula overflows, the composite is written so neither its value nor its gradient
does (see ``_softplus0``)."""
import math
import warnings
from ... import _creation, _dtypes



__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "tanh",
    "sigmoid", "hardtanh", "hardsigmoid", "hardswish", "logsigmoid", "softsign", "tanhshrink", "threshold",
    "threshold_", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "hardshrink", "softshrink", "rrelu", "rrelu_",
    "prelu", "softmax", "log_softmax", "softmin", "glu", "gumbel_softmax"
]


def _maybe_inplace(input, fn, inplace):
    """``fn(input)``, or with PyTorch's ``inplace=True`` written into ``input`` (which must allow it); the graph
    then reads a copy of the old value, never the tensor the write bumps (PyTorch's in-place kernels save their
    result instead), so a gradient still flows through an in-place activation of a non-leaf."""
    if not inplace:
        return fn(input)
    return input.copy_(fn(input.clone() if input.requires_grad else input))


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
    return _maybe_inplace(input, lambda x: x.where(x > 0, x * negative_slope), inplace)


def elu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(input, lambda x: x.where(x > 0, alpha * x.clamp(max=0).expm1()), inplace)


def selu(input, inplace=False):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return _maybe_inplace(input, lambda x: scale * elu(x, alpha), inplace)


def celu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(input, lambda x: x.where(x > 0, alpha * (x.clamp(max=0) / alpha).expm1()), inplace)


def gelu(input, approximate="none"):
    if approximate == "none":
        return 0.5 * input * (1 + (input * (1 / math.sqrt(2))).erf())
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1 + inner.tanh())
    raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")


def silu(input, inplace=False):
    return _maybe_inplace(input, lambda x: x * x.sigmoid(), inplace)


def mish(input, inplace=False):
    return _maybe_inplace(input, lambda x: x * _softplus0(x).tanh(), inplace)


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
    return _maybe_inplace(input, lambda x: (x / 6 + 0.5).clamp(0, 1), inplace)


def hardswish(input, inplace=False):
    return _maybe_inplace(input, lambda x: x * (x + 3).clamp(0, 6) / 6, inplace)


def logsigmoid(input):
    return -_softplus0(-input)


def softsign(input):
    return input / (1 + input.abs())


def tanhshrink(input):
    return input - input.tanh()


def threshold(input, threshold, value, inplace=False):
    return _thresholded(input, threshold, value, inplace)


def _thresholded(input, level, value, inplace):
    return _maybe_inplace(input, lambda x: x.where(x > level, x.new_tensor(value)), inplace)


def threshold_(input, threshold, value):
    return _thresholded(input, threshold, value, True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


def selu_(input):
    return selu(input, True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def hardshrink(input, lambd=0.5):
    return input.where(input.abs() > lambd, input.new_zeros(()))


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {_dtypes.finfo(input.dtype).max:g}] for input dtype "
                           f"{input.dtype.scalar_name}, but found {lambd:g}")
    return (input - input.sign() * lambd).where(input.abs() > lambd, input.new_zeros(()))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element when training, else their mean."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = _creation.rand(tuple(input.shape), dtype=input.dtype).to(input.backend) * (upper - lower) + lower
    return _maybe_inplace(input, lambda x: x.where(x >= 0, x * slope), inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def prelu(input, weight):
    if weight.numel() != 1 and (input.ndim < 2 and weight.numel() != input.numel() or input.ndim >= 2 and
                                weight.numel() != input.shape[1]):
        channels = input.shape[1] if input.ndim >= 2 else 1
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if input.ndim >= 2:
        weight = weight.reshape(_channel_shape(input) if weight.numel() > 1 else ())
    return input.where(input > 0, weight * input)


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


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Softmax of (logits + Gumbel noise) / tau; ``hard``: the one-hot of its argmax in the forward, the soft
    sample's gradient in the backward (the straight-through estimator)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    uniform = _creation.rand(tuple(logits.shape), dtype=logits.dtype).to(logits.backend)
    gumbels = -(-uniform.clamp_min(_dtypes.finfo(logits.dtype).tiny).log()).log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    hard_sample = soft.new_zeros(tuple(soft.shape)).scatter(dim, index, 1.0)
    return hard_sample - soft.detach() + soft


def _channel_shape(input):
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)
