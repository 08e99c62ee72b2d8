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
from .._dispatch import OpNode, _unify, apply
from .._table import renamed
from .._index import is_traced
from ..autograd import is_grad_enabled, no_grad
from ..ops.nn import NLL_LOSS, convolution
from ._attention import multi_head_attention_forward
from ._ctc import ctc_loss

__all__ = [
    "linear", "bilinear", "relu", "relu_", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
    "softplus", "tanh", "sigmoid", "hardtanh", "hardsigmoid", "hardswish", "logsigmoid", "softsign", "tanhshrink",
    "threshold", "threshold_", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "hardshrink", "softshrink",
    "rrelu", "rrelu_", "prelu", "softmax", "log_softmax", "softmin", "glu", "dropout", "alpha_dropout",
    "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "gumbel_softmax", "one_hot", "embedding",
    "embedding_bag", "pad", "normalize", "cosine_similarity", "pairwise_distance", "pdist", "layer_norm",
    "batch_norm", "group_norm", "instance_norm", "local_response_norm", "rms_norm", "conv1d", "conv2d", "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc", "max_pool1d", "max_pool2d",
    "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d",
    "avg_pool2d", "avg_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "unfold", "fold",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "interpolate", "upsample", "upsample_nearest",
    "upsample_bilinear", "affine_grid", "grid_sample", "scaled_dot_product_attention", "mse_loss", "l1_loss",
    "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "linear_cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
    "multi_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "triplet_margin_with_distance_loss",
    "triplet_margin_loss", "ctc_loss", "multi_head_attention_forward",
]


def _xt():
    import xtensor
    return xtensor


# ------------------------------------------------------------------ linear maps
def linear(input, weight, bias=None):
    if input.ndim and weight.ndim == 2 and bias is not None and bias.ndim <= 1:  # PyTorch's: one addmm (one node)
        if input.ndim == 2:
            return _xt().addmm(bias, input, weight.t())
        out = _xt().addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
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
    out = _xt().einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


# ------------------------------------------------------------------ activations
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
        raise RuntimeError(f"lambda must be in range [0, {_xt().finfo(input.dtype).max:g}] for input dtype "
                           f"{input.dtype.scalar_name}, but found {lambd:g}")
    return (input - input.sign() * lambd).where(input.abs() > lambd, input.new_zeros(()))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element when training, else their mean."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = _xt().rand(tuple(input.shape), dtype=input.dtype).to(input.backend) * (upper - lower) + lower
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


# ------------------------------------------------------------------ dropout, one_hot, embedding, pad
def _dropout(input, p, training, inplace, alpha=False, feature=False):
    """PyTorch's ``_dropout_impl``: elements (or, ``feature``, whole channels: the mask has shape (N, C, 1, ...))
    kept with probability 1 - p and rescaled; ``alpha``: dropped ones set to SELU's saturation value and the result
    rescaled so that zero mean and unit variance are kept."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return _maybe_inplace(input, lambda x: x * 0, inplace)
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    keep = (_xt().rand(shape).to(input.backend) < (1 - p)).to(input.dtype)
    if not alpha:
        return _maybe_inplace(input, lambda x: x * keep / (1 - p), inplace)
    saturation = 1.7580993408473766  # -SELU's scale * alpha
    a = 1 / math.sqrt((saturation * saturation * p + 1) * (1 - p))
    return _maybe_inplace(input, lambda x: x * (keep * a) + (keep - 1) * (saturation * a) + saturation * a * p, inplace)


def dropout(input, p=0.5, training=True, inplace=False):
    return _dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _dropout(input, p, training, inplace, alpha=True, feature=True)


def _channel_dropout(input, p, training, inplace, n):
    """dropout1d/2d/3d: whole channels of a batched (N, C, *n spatial) or unbatched (C, *n spatial) input."""
    name = f"dropout{n}d"
    if n == 1 and input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if n > 1 and input.ndim not in (n + 1, n + 2):
        warnings.warn(f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will result in "
                      f"an error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with "
                      f"{n} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      f"{n + 1}D or {n + 2}D inputs).", stacklevel=3)
    unbatched = input.ndim == 2 if n == 1 else n == 3 and input.ndim != 5  # dropout2d reads any input as batched
    if n == 2 and input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=3)
    if unbatched:
        if inplace:
            _dropout(input.unsqueeze(0), p, training, True, feature=True)
            return input
        return _dropout(input.unsqueeze(0), p, training, False, feature=True).squeeze(0)
    return _dropout(input, p, training, inplace, feature=True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 3)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Softmax of (logits + Gumbel noise) / tau; ``hard``: the one-hot of its argmax in the forward, the soft
    sample's gradient in the backward (the straight-through estimator)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    uniform = _xt().rand(tuple(logits.shape), dtype=logits.dtype).to(logits.backend)
    gumbels = -(-uniform.clamp_min(_xt().finfo(logits.dtype).tiny).log()).log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    hard_sample = soft.new_zeros(tuple(soft.shape)).scatter(dim, index, 1.0)
    return hard_sample - soft.detach() + soft


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
    return is_traced(t._value)


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
    rows = _lookup(weight, input)
    if padding_idx is not None:  # the padding row is returned as it is but never receives a gradient
        rows = rows.where((input != padding_idx).unsqueeze(-1), rows.detach())
    return rows


def _lookup(weight, indices):
    """``weight``'s rows at ``indices``: the op table's ``embedding`` (one ``EmbeddingBackward0`` node)."""
    from .._dispatch import apply
    from .._table import TABLE
    tensors, params = TABLE["embedding"].sig(weight, indices)
    return apply(TABLE["embedding"].op, tensors, params)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of each bag's embedding rows: the rows of a 2-d ``input``, or the runs of a 1-d one
    that ``offsets`` start (an empty bag gives zeros; ``padding_idx`` entries are left out of every bag)."""
    xt = _xt()
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             f"{type(offsets).__name__}")
        bags, length = input.shape
        starts = [i * length for i in range(bags)]
        input = input.reshape(-1)
        per_sample_weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(o) for o in offsets.tolist()]
        if include_last_offset:
            starts = starts[:-1]
        bags = len(starts)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    import numpy as np  # which bag each index belongs to: read from the offsets on the host
    bag_of = xt.tensor(np.searchsorted(np.asarray(starts + [input.shape[0]]), np.arange(input.shape[0]),
                                       side="right") - 1).to(input.backend)
    rows = embedding(input, weight, padding_idx, max_norm, norm_type)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    kept = (input != padding_idx % weight.shape[0] if padding_idx is not None else input >= 0).unsqueeze(1)
    empty = rows.new_zeros((bags, weight.shape[1]))
    if mode == "max":
        rows = rows.where(kept, rows.new_tensor(-math.inf))
        out = empty.scatter_reduce(0, bag_of.unsqueeze(1).expand(tuple(rows.shape)), rows, "amax",
                                   include_self=False)
        return out.where(out > -math.inf, empty)
    total = empty.index_add(0, bag_of, rows.where(kept, rows.new_zeros(())))
    if mode == "sum":
        return total
    counts = rows.new_zeros((bags,)).index_add(0, bag_of, kept.squeeze(1).to(rows.dtype))
    return total / counts.clamp_min(1).unsqueeze(1)


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


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (PyTorch's eps keeps the gradient finite at 0)."""
    ndim = max(x1.ndim, x2.ndim, 1)
    return _xt().linalg.vector_norm(x1 - x2 + eps, p, ndim - 1, keepdim=keepdim)


def pdist(input, p=2):
    """The ``p``-norm distances between the rows of an (N, M) input, pair (i, j) for i < j in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    import numpy as np  # the pairs are geometry only
    first, second = (_xt().tensor(i).to(input.backend) for i in np.triu_indices(input.shape[0], 1))
    return _xt().linalg.vector_norm(input.index_select(0, first) - input.index_select(0, second), p, -1)


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
        var, mean = _xt().var_mean(input, dims, correction=0, keepdim=True)
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
    eps = _xt().finfo(input.dtype).eps if eps is None else eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


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
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv_transpose{n}d, but "
                           f"got input of size: {list(input.shape)}")
    unbatched = input.ndim == n + 1
    x = input.unsqueeze(0) if unbatched else input
    if weight.ndim != n + 2:
        raise RuntimeError(f"weight should have at least three dimensions: expected {n + 2}-dimensional weight for "
                           f"{n + 2}-dimensional input {list(x.shape)}, but got {weight.ndim}-dimensional weight of "
                           f"size {list(weight.shape)} instead")
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
    xt = _xt()
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
    out = xt.stack(values, -1).reshape(shape)
    return (out, xt.stack(indices, -1).reshape(shape)) if return_indices else out


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
            out = _xt().stack([out.narrow(dim, lo, hi - lo).mean(dim) for lo, hi in _adaptive_starts(length, size)],
                              dim)
    return out


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg_pool(input, output_size, 3)


# ------------------------------------------------------------------ rearrangements: pixel/channel shuffles, unfold/fold
def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    k = len(lead)
    out = input.reshape(*lead, c // (r * r), r, r, h, w).permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return out.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        dim, size = ("height", h) if h % r else ("width", w)
        raise RuntimeError(f"pixel_unshuffle expects {dim} to be divisible by downscale_factor, but input.size("
                           f"{-2 if h % r else -1})={size} is not divisible by {r}")
    k = len(lead)
    out = input.reshape(*lead, c, h // r, r, w // r, r).permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return out.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    n, c = input.shape[:2]
    return input.reshape(n, groups, c // groups, *input.shape[2:]).transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle


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


# ------------------------------------------------------------------ resampling
_INTERPOLATING = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, *spatial): ``nearest``/``nearest-exact`` pick a source element,
    ``linear``/``bilinear``/``trilinear`` blend the two neighbours of each spatial dim in turn (the modes are
    separable), ``area`` is adaptive average pooling. Source positions are PyTorch's (``align_corners``, and the
    scale 1 / scale_factor unless ``recompute_scale_factor``); they depend on the shapes only and are computed on
    the host."""
    n = input.ndim - 2
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if mode not in ("nearest", "nearest-exact", "area") + tuple(_INTERPOLATING):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})" if mode != "bicubic" else
                                  "xtensor's interpolate has no bicubic mode")
    if antialias:
        raise NotImplementedError("xtensor's interpolate has no antialias")
    if n < 1 or n > 3 or (mode in _INTERPOLATING and _INTERPOLATING[mode] != n):
        wanted = f", but {mode} mode needs {_INTERPOLATING[mode] + 2}D input" if mode in _INTERPOLATING else ""
        raise NotImplementedError(f"Got {input.ndim}D input{wanted}" if wanted else
                                  f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    spatial = tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes, scales = list(_tuple(size, n, "size")), [None] * n
    else:
        factors = [float(f) for f in (scale_factor if isinstance(scale_factor, (tuple, list)) else
                                      [scale_factor] * n)]
        if len(factors) != n:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, "
                             "s2, ...,sK) format.")
        sizes = [int(math.floor(length * f)) for length, f in zip(spatial, factors)]
        scales = [None] * n if recompute_scale_factor or mode == "area" else [1 / f for f in factors]
    if mode == "area":
        return _adaptive_avg_pool(input, sizes, n)
    import numpy as np  # source positions: geometry only
    out = input
    for i, (length, size, scale) in enumerate(zip(spatial, sizes, scales)):
        dim = 2 + i
        if align_corners and mode in _INTERPOLATING:
            scale = (length - 1) / (size - 1) if size > 1 else 0.0
        elif scale is None:
            scale = length / size
        target = np.arange(size, dtype=np.float64)
        if mode.startswith("nearest"):
            source = np.floor((target + (0.5 if mode == "nearest-exact" else 0.0)) * scale)
            out = out.index_select(dim, _xt().tensor(np.minimum(source, length - 1).astype(np.int64)).to(out.backend))
            continue
        source = target * scale if align_corners else np.maximum((target + 0.5) * scale - 0.5, 0.0)
        low = np.minimum(np.floor(source), length - 1).astype(np.int64)
        high = np.minimum(low + 1, length - 1)
        frac = _xt().tensor((source - low).reshape(size, *(1,) * (n - 1 - i)), dtype=out.dtype).to(out.backend)
        to = lambda a: _xt().tensor(a).to(out.backend)  # noqa: E731
        out = out.index_select(dim, to(low)) * (1 - frac) + out.index_select(dim, to(high)) * frac
    return out


def _align_corners(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, *spatial, n) of the affine maps ``theta`` (N, n, n + 1) over the [-1, 1] cube of an
    (N, C, *spatial) output, n = 2 or 3 (coordinates in x, y(, z) order, as grid_sample reads them)."""
    align_corners = _align_corners(align_corners)
    n = len(size) - 2
    if n not in (2, 3) or tuple(theta.shape[1:]) != (n, n + 1):
        raise ValueError(f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} for size {list(size)}. "
                         f"Got {list(theta.shape)}.")
    xt = _xt()
    spatial = list(size[2:])

    def axis(length):
        steps = xt.linspace(-1.0, 1.0, length, dtype=theta.dtype) if length > 1 else xt.zeros(1, dtype=theta.dtype)
        return (steps if align_corners else steps * (length - 1) / length).to(theta.backend)
    coordinates = []  # x along the last spatial dim, y the one before (, z the first), each broadcast over all
    for i in reversed(range(n)):
        shape = [1] * n
        shape[i] = spatial[i]
        coordinates.append(axis(spatial[i]).reshape(shape).expand(spatial))
    ones = xt.ones(spatial, dtype=theta.dtype).to(theta.backend)
    base = xt.stack(coordinates + [ones], -1)  # (*spatial, n + 1)
    return base.reshape(1, -1, n + 1).matmul(theta.transpose(1, 2)).reshape(size[0], *spatial, n)


def _reflected(x, low, high):
    """Coordinates reflected into [low, high] (PyTorch's reflect_coordinates, in units of the doubled bounds)."""
    if low == high:
        return x * 0
    span = high - low
    x = (x - low).abs()
    flips = (x / span).floor()
    extra = x - flips * span
    return (extra + low).where(flips % 2 == 0, span - extra + low)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Values of (N, C, H, W) input at the (N, H', W', 2) grid's points, (x, y) in [-1, 1]: ``bilinear`` blends the
    four neighbours (the gradient reaches the grid through the weights), ``nearest`` picks one; outside the input
    ``zeros`` reads 0, ``border`` the edge, ``reflection`` the mirrored point."""
    align_corners = _align_corners(align_corners)
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"xtensor's grid_sample has no mode {mode!r} (bilinear and nearest)")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sample(): expected a 4D input and a 4D grid (N, H, W, 2) of the same batch size, "
                           f"but got input of shape {list(input.shape)} and grid of shape {list(grid.shape)}")
    n, c, height, width = input.shape
    points = []
    for coordinate, size in ((grid[..., 0], width), (grid[..., 1], height)):
        x = (coordinate + 1) / 2 * (size - 1) if align_corners else ((coordinate + 1) * size - 1) / 2
        if padding_mode == "reflection":
            x = _reflected(x, 0, size - 1) if align_corners else _reflected(x, -0.5, size - 0.5)
        if padding_mode != "zeros":
            x = x.clamp(0, size - 1)
        points.append(x)
    flat = input.reshape(n, c, height * width)

    def read(ix, iy):
        """input at integer points (zeros outside), as (N, C, H', W')."""
        inside = (ix >= 0) & (ix <= width - 1) & (iy >= 0) & (iy <= height - 1)
        index = (iy.clamp(0, height - 1) * width + ix.clamp(0, width - 1)).long().reshape(n, 1, -1)
        values = flat.gather(2, index.expand(n, c, index.shape[-1])).reshape(n, c, *ix.shape[1:])
        return values.where(inside.unsqueeze(1), values.new_zeros(()))
    x, y = points
    if mode == "nearest":
        return read(x.round(), y.round())
    x0, y0 = x.floor(), y.floor()
    wx, wy = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    return (read(x0, y0) * (1 - wx) * (1 - wy) + read(x0 + 1, y0) * wx * (1 - wy) + read(x0, y0 + 1) * (1 - wx) * wy
            + read(x0 + 1, y0 + 1) * wx * wy)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


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


def _named(loss, node):
    """``loss`` with its final node renamed to ``node``: PyTorch computes these losses in one kernel of that name
    (``MseLossBackward0``, ``NllLossBackward0``), xtensor as a composite whose gradient is its ops' own -- only the
    name changes, so ``loss.grad_fn.name()`` reads as in PyTorch."""
    if isinstance(loss._grad_fn, OpNode):
        renamed(loss, node)
    return loss


def _weighted(loss, weight, input, reduction, mean_over_weight):
    """PyTorch's elementwise ``weight`` of mse/l1/huber: ``mean`` is ``sum(w loss) / sum(w)`` for mse and l1 and
    ``mean(w loss)`` for huber."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    return loss.sum() / weight.sum() if reduction == "mean" and mean_over_weight else _reduce(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is None:
        return _named(_pointwise(input, target, reduction, lambda d: d * d), "MseLossBackward0")
    return _weighted(_pointwise(input, target, "none", lambda d: d * d), weight, input, reduction, True)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _pointwise(input, target, "none", lambda d: d.abs())
    return _reduce(loss, reduction) if weight is None else _weighted(loss, weight, input, reduction, True)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return _named(_pointwise(input, target, reduction,
                             lambda d: (0.5 * d * d / beta).where(d.abs() < beta, d.abs() - 0.5 * beta)),
                  "SmoothL1LossBackward0")


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _pointwise(input, target, "none",
                      lambda d: (0.5 * d * d).where(d.abs() < delta, delta * (d.abs() - 0.5 * delta)))
    if weight is None:
        return _named(_reduce(loss, reduction), "HuberLossBackward0")
    return _weighted(loss, weight, input, reduction, False)


def _check_class_weight(weight, classes):
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")


def _check_targets(target, classes, ignore_index):
    """PyTorch's bounds check of class targets (eager only: a traced target has no values to check); the first
    bad class is looked for only where the extremes fall outside ``[0, classes)``."""
    arr = target._value
    if is_traced(arr) or not math.prod(arr.shape):
        return
    xp = target._backend.xp
    if 0 <= int(xp.min(arr)) and int(xp.max(arr)) < classes:
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
        target = target.reshape(())
    else:
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
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    _check_class_weight(weight, classes)
    _check_targets(target, classes, ignore_index)
    if target.dtype is not _dtypes.int64:
        target = target.to(_dtypes.int64)
    if weight is not None:
        if weight.requires_grad and is_grad_enabled():
            raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
        if weight.dtype is not input.dtype:
            weight = weight.to(input.dtype)
    loss = apply(NLL_LOSS, (input,), (target, weight, ignore_index, reduction, _unify((input, target, weight))))
    if reduction == "none" and (input.ndim == 3 or input.ndim > 4):  # PyTorch views its 2-d kernel's result
        return loss.view(tuple(loss.shape))
    return loss


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
    if reduction == "none":
        return -terms.sum(class_dim)
    total = -terms.sum()  # PyTorch's order of ops, so the nodes are named as PyTorch's
    if reduction == "sum":
        return total
    return _named(total / (input.numel() // classes if input.numel() else 0.0), "DivBackward1")  # div by a Scalar


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)``; a weight of shape (C, *d, in) gives
    K-dimensional logits (N, C, *d). PyTorch's chunking ``options`` save memory only and change no value."""
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    classes, extra = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    logits = linear(input, linear_weight.reshape(-1, input.shape[-1]),
                    None if linear_bias is None else linear_bias.reshape(-1))
    logits = logits.reshape(*input.shape[:-1], classes, *extra)
    return cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None else ignore_index,
                         reduction=reduction, label_smoothing=label_smoothing)


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
    return _named(_reduce(loss, reduction), "BinaryCrossEntropyBackward0")


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
    return _named(_reduce(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0")


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


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    zero = input.new_zeros(())
    loss = (margin - input).clamp_min(0).where(target != 1, zero) + input.where(target != -1, zero)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _named(_reduce(_softplus0(-target * input), reduction), "SoftMarginLossBackward0")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.sum(input.ndim - 1) / input.shape[-1], reduction)


def _as_batch(input, target, target_shape):
    """A 1-d (C,) input and its target (reshaped to ``target_shape``) as a batch of one, for the multi-class
    margin losses."""
    if input.ndim > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    return (input.reshape(1, -1), target.reshape(target_shape)) if input.ndim <= 1 else (input, target)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample, ``sum over its target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C``; a
    sample's target classes are its target's leading entries before the first -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, y = _as_batch(input, target, (1, -1))
    if tuple(y.shape) != tuple(x.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    classes = x.shape[1]
    valid = (y < 0).long().cumsum(1) == 0  # the entries before the first -1
    safe = y.where(valid, y.new_zeros(()))
    is_target = ((safe.unsqueeze(2) == _xt().arange(classes).to(y.backend)) & valid.unsqueeze(2)).any(1)
    picked = x.gather(1, safe)  # x[y_j]
    margins = (1 - picked.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # [n, j, i]
    keep = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = margins.where(keep, margins.new_zeros(())).sum((1, 2)) / classes
    return _named(_reduce(loss.reshape(()) if input.ndim <= 1 else loss, reduction), "MultilabelMarginLossBackward0")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample, ``sum over classes i != y of w[y] max(0, margin - x[y] + x[i]) ** p / C``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x, y = _as_batch(input, target, (1,))
    classes = x.shape[1]
    _check_class_weight(weight, classes)
    picked = x.gather(1, y.unsqueeze(1))
    margins = (margin - picked + x).clamp_min(0)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight.index_select(0, y).unsqueeze(1)
    others = y.unsqueeze(1) != _xt().arange(classes).to(y.backend)
    loss = margins.where(others, margins.new_zeros(())).sum(1) / classes
    return _named(_reduce(loss.reshape(()) if input.ndim <= 1 else loss, reduction), "MultiMarginLossBackward0")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.where(target > 1, stirling.new_zeros(()))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 (log var + (input - target)^2 / var)``, var clamped to ``eps`` in value only (its gradient passes
    the clamp unchanged, as PyTorch's clamp under no_grad of a clone)."""
    if not hasattr(var, "shape"):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_full(tuple(input.shape), float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    _check_reduction(reduction)
    if not _traced(var) and bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    return _triplet(pairwise_distance if distance_function is None else distance_function, anchor, positive,
                    negative, margin, swap, reduction)


def _triplet(distance, anchor, positive, negative, margin, swap, reduction):
    to_positive, to_negative = distance(anchor, positive), distance(anchor, negative)
    if swap:
        to_negative = _xt().minimum(to_negative, distance(positive, negative))
    return _reduce((margin + to_positive - to_negative).clamp_min(0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    return _triplet(lambda a, b: pairwise_distance(a, b, p, eps), anchor, positive, negative, margin, swap,
                    reduction)
