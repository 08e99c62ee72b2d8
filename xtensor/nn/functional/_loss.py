"""Loss functions (``ctc_loss`` is in ``_ctc.py``): ``reduction=``, PyTorch's deprecated
``size_average``/``reduce``, and PyTorch's node names on the composite losses."""
import math
import warnings

import numpy as np

from ... import _creation, _dtypes
from ..._dispatch import _unify, apply
from ..._backend import is_traced
from ...autograd import is_grad_enabled
from ...ops.nn import CROSS_ENTROPY, NLL_LOSS
from ...ops._composite import _fn
from ._activation import _softplus0, logsigmoid
from ._common import _named, _traced
from ._distance import pairwise_distance
from ._linear import linear

__all__ = [
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "linear_cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
    "multilabel_margin_loss", "multi_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "triplet_margin_with_distance_loss", "triplet_margin_loss"
]


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
    if type(arr) is np.ndarray:  # (the ufuncs' own reductions: ``np.min`` or even ``arr.min()`` cost more Python)
        if not arr.size or 0 <= np.minimum.reduce(arr, None) and np.maximum.reduce(arr, None) < classes:
            return
    elif is_traced(arr) or not math.prod(arr.shape):
        return
    else:
        xp = target._backend.xp
        if 0 <= int(xp.min(arr)) and int(xp.max(arr)) < classes:
            return
    bad = ((target < 0) | (target >= classes)) & (target != ignore_index)
    if bool(bad.any()):
        raise IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _class_loss(NLL_LOSS, input, target, weight, ignore_index, reduction)


def _class_loss(op, input, target, weight, ignore_index, reduction):
    """``op`` (``nll_loss``, or ``cross_entropy`` over class indices) of ``input`` against class ``target``, after
    PyTorch's checks of the shapes, classes and class weights (``nll_loss``'s)."""
    if target.dtype.kind not in "iu":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_name}")
    shape, tshape = input._value.shape, target._value.shape  # (the arrays' plain tuples: the checks at tuple speed)
    ndim, tndim = len(shape), len(tshape)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim == 1:
        if tndim > 1 or (tndim == 1 and tshape[0] != 1):
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
        target = target.reshape(())
    else:
        if shape[0] != (tshape[0] if tndim else 1) or tndim == 0:
            raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size "
                             f"({tshape[0] if tndim else 1}).")
        if ndim == 2 and tndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if ndim > 2 and tuple(tshape) != (shape[0],) + tuple(shape[2:]):
            if tndim == ndim - 1:
                raise RuntimeError(f"Expected target size {[shape[0]] + list(shape[2:])}, got {list(tshape)}")
            raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: {list(tshape)}")
    classes = shape[1] if ndim > 1 else shape[0]
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
    loss = apply(op, (input,), (target, weight, ignore_index, reduction, _unify((input, target, weight))))
    if op is CROSS_ENTROPY:
        loss = loss[0]  # (the log-probabilities, its workspace, are not returned)
    if reduction == "none" and (ndim == 3 or ndim > 4):  # PyTorch views its 2-d kernel's result
        return loss.view(tuple(loss.shape))
    return loss


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    ndim = input.ndim
    if not ndim:
        _refuse_scalar_logits(target)
    if label_smoothing == 0.0 and target.dtype.kind != "f" and input.dtype.kind == "f":
        return _class_loss(CROSS_ENTROPY, input, target, weight, ignore_index, reduction)  # one node (ops/nn.py)
    class_dim = 0 if ndim == 1 else 1
    classes = input.shape[class_dim]
    logp = input.log_softmax(class_dim)
    weight_shape = (classes,) + (1,) * (ndim - 1 - class_dim)
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


def _refuse_scalar_logits(target):
    """PyTorch's errors for 0-d logits: a 0-d target of classes is read as probabilities (of the input's shape), any
    other target meets the missing class dim."""
    if target.ndim:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if target.dtype.kind != "f":
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{target.dtype.scalar_name}")
    raise IndexError("Dimension specified as 1 but tensor has no dimensions")


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
    loss = target.exp() * (target - input) if log_target else _fn("xlogy")(target, target) - target * input
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
    is_target = ((safe.unsqueeze(2) == _creation.arange(classes).to(y.backend)) & valid.unsqueeze(2)).any(1)
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
    others = y.unsqueeze(1) != _creation.arange(classes).to(y.backend)
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
        to_negative = _fn("minimum")(to_negative, distance(positive, negative))
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
