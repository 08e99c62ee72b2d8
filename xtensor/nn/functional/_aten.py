"""The nn.functional ops PyTorch also spells in the torch namespace -- ``torch.conv1d``, ``torch.celu_``, and
ATen's own argument orders and integer reduction enums (``torch.kl_div(x, t, 1)``) -- and as Tensor methods
(``x.hardshrink()``). ``xtensor/__init__.py`` puts them in place once ``xtensor.nn`` is imported.
"""
from .. import functional as F

__all__ = ["torch_functions", "tensor_methods"]

# nn.functional ops the torch namespace spells with the same positional arguments
_SAME_ARGUMENTS = ("adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu", "conv1d", "conv2d", "cosine_similarity",
                   "dropout", "group_norm", "layer_norm", "max_pool1d", "max_pool2d", "selu", "threshold",
                   "alpha_dropout", "feature_alpha_dropout", "hardshrink", "prelu", "pixel_shuffle", "pixel_unshuffle",
                   "channel_shuffle", "pdist", "pairwise_distance", "conv3d", "conv_transpose1d", "conv_transpose2d",
                   "conv_transpose3d", "max_pool3d", "rrelu", "rms_norm")
_INPLACE = ("celu", "selu", "threshold", "dropout", "alpha_dropout", "feature_alpha_dropout", "rrelu")
_REDUCTIONS = ("none", "mean", "sum")  # ATen's Reduction enum: the torch-namespace losses take its ints


def _inplace(f):
    """The op on a copy, written back: the op's node keeps the copy, which the write leaves intact (as
    PyTorch's in-place activations keep what their gradient needs)."""
    def inplace(input, *args):
        return input.copy_(f(input.clone(), *args))
    inplace.__name__ = f.__name__ + "_"
    return inplace


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def kl_div(input, target, reduction=1, *, log_target=False):
    return F.kl_div(input, target, reduction=_REDUCTIONS[reduction], log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_REDUCTIONS[reduction],
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True)


def adaptive_max_pool1d(input, output_size):
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return F.hinge_embedding_loss(input, target, margin, reduction=_REDUCTIONS[reduction])


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_REDUCTIONS[reduction])


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_REDUCTIONS[reduction])


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    return F.grid_sample(input, grid, ("bilinear", "nearest", "bicubic")[interpolation_mode],
                         ("zeros", "border", "reflection")[padding_mode], align_corners)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction], zero_infinity)


_ATEN_ORDER = (embedding, batch_norm, kl_div, binary_cross_entropy_with_logits, cosine_embedding_loss,
               max_pool1d_with_indices, adaptive_max_pool1d, hinge_embedding_loss, margin_ranking_loss,
               triplet_margin_loss, poisson_nll_loss, instance_norm, grid_sampler, ctc_loss)
for _f in _ATEN_ORDER:
    _f.__doc__ = f"PyTorch's ``torch.{_f.__name__}``: ATen's argument order and integer enums over ``nn.functional``."


def torch_functions():
    """The torch-namespace spellings, by name."""
    fns = {name: getattr(F, name) for name in _SAME_ARGUMENTS}
    fns.update({name + "_": _inplace(getattr(F, name)) for name in _INPLACE})
    fns.update({f.__name__: f for f in _ATEN_ORDER})
    fns["grid_sampler_2d"] = fns["grid_sampler_3d"] = grid_sampler
    fns["affine_grid_generator"] = F.affine_grid
    return fns


def tensor_methods():
    """The Tensor methods PyTorch has for nn.functional ops (``x.hardshrink()``, ``x.prelu(w)``)."""
    return {"hardshrink": F.hardshrink, "prelu": F.prelu}
