"""Dropout functions: elementwise, channel-wise (``dropout1d/2d/3d``) and alpha dropout."""
import math
import warnings

from ... import _creation
from ._activation import _maybe_inplace


__all__ = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]


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
    keep = (_creation.rand(shape).to(input.backend) < (1 - p)).to(input.dtype)
    if not alpha:  # PyTorch's one product with the rescaled mask (one MulBackward0 node)
        mask = keep / (1 - p)
        return _maybe_inplace(input, lambda x: x * mask, inplace)
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
