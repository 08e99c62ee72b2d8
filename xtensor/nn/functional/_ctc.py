"""``ctc_loss``: the connectionist temporal classification loss, as a composite of xtensor ops.

The forward (alpha) recursion of Graves et al. runs over time on the label sequence with a blank between and
around the labels, ``(N, 2S + 1)`` log-probabilities a step, so the tape differentiates it on every backend. The
lengths and targets are read on the host (as PyTorch reads them on the CPU).

PyTorch's own backward returns ``exp(log_probs) - posterior`` rather than the derivative of the loss, ``-posterior``:
the two agree once they pass back through the ``log_softmax`` that made ``log_probs`` (its rows of ``exp`` sum to one),
which is how CTC is used. ``ctc_loss`` adds the ``exp(log_probs)`` term (a zero in value) so that the gradient
reaching ``log_probs`` is PyTorch's too.
"""
import math

import numpy as np

from ... import _creation
from ...ops._composite import _fn
from ._common import _named

__all__ = ["ctc_loss"]


def _lengths(name, lengths, batch):
    """Per-sequence lengths as host ints (a tensor, a tuple or list, or one number for an unbatched input)."""
    if hasattr(lengths, "tolist"):
        lengths = lengths.tolist()
    values = [int(v) for v in lengths] if isinstance(lengths, (list, tuple)) else [int(lengths)]
    if len(values) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


def _padded_targets(targets, target_lengths, batch, blank):
    """The targets as an (N, S_max) host array from PyTorch's padded (N, S) or concatenated (sum S_n,) form; what lies
    beyond a sequence's length is read as blanks."""
    host = np.asarray(targets.tolist(), dtype=np.int64).reshape(tuple(targets.shape))
    longest = max(target_lengths, default=0)
    out = np.full((batch, longest), blank, np.int64)
    if host.ndim == 2:
        if host.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{host.shape[1]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        for n, length in enumerate(target_lengths):
            out[n, :length] = host[n, :length]
        return out
    ends = np.cumsum(target_lengths)
    if batch and ends[-1] > host.shape[0]:
        raise RuntimeError(f"Expected tensor to have size at least {ends[-1]} at dimension 0, but got size "
                           f"{host.shape[0]} for argument #2 'targets' (while checking arguments for "
                           "ctc_loss_allocate_outputs)")
    for n, (end, length) in enumerate(zip(ends, target_lengths)):
        out[n, :length] = host[end - length:end]
    return out


def _logsumexp(*terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is, with no NaN in its gradient there."""
    stacked = _fn("stack")(_fn("broadcast_tensors")(*terms))
    shift = stacked.amax(0).detach()
    shift = shift.where(shift.isfinite(), shift.new_zeros(()))
    total = (stacked - shift).exp().sum(0)
    found = total > 0
    return total.where(found, total.new_ones(())).log().where(found, total.new_full((), -math.inf)) + shift


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """PyTorch's ``F.ctc_loss``: ``log_probs`` (T, N, C) or (T, C), ``targets`` padded (N, S) or concatenated."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    if log_probs.ndim != 3:
        raise RuntimeError(f"ctc_loss(): log_probs must be 2-D (T, C) or 3-D (T, N, C), got {log_probs.ndim}-D")
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    inputs_n = _lengths("input_lengths", input_lengths, batch)
    targets_n = _lengths("target_lengths", target_lengths, batch)
    if any(length > steps for length in inputs_n):
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {max(inputs_n)} "
                           "(while checking arguments for ctc_loss_allocate_outputs)")
    labels = _padded_targets(targets.reshape(1, -1) if unbatched else targets, targets_n, batch, blank)
    extended = np.full((batch, 2 * labels.shape[1] + 1), blank, np.int64)  # a blank around and between the labels
    extended[:, 1::2] = labels
    width = extended.shape[1]
    skip = np.zeros((batch, width), bool)  # position s may follow s - 2: a label unlike the label two places back
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])

    def host(values):
        return _creation.tensor(values, backend=log_probs.backend)

    emissions = log_probs[:, np.arange(batch)[:, None], extended]  # (T, N, 2S + 1)
    never = emissions.new_full((), -math.inf)
    alpha = emissions[0].where(host(np.arange(width) < 2), never)
    alphas, skips, before = [alpha], host(skip), never.expand(batch, 2)
    for t in range(1, steps):
        one_back = _fn("cat")([before[:, :1], alpha[:, :-1]], 1)
        two_back = _fn("cat")([before, alpha[:, :-2]], 1)[:, :width].where(skips, never)
        alpha = _logsumexp(alpha, one_back, two_back) + emissions[t]
        alphas.append(alpha)
    rows = np.arange(batch)
    final = _fn("stack")(alphas)[[max(length - 1, 0) for length in inputs_n], rows]  # (N, 2S + 1) at each last step
    ends = np.asarray([2 * length for length in targets_n], np.int64)
    loss = -_logsumexp(final[rows, ends], final[rows, np.maximum(ends - 1, 0)].where(host(ends > 0), never))
    no_frames = np.asarray([length == 0 for length in inputs_n])
    if no_frames.any():  # no frames: the empty target has probability 1, any other 0
        loss = loss.where(host(~no_frames), host(np.where(ends == 0, 0.0, math.inf)).to(loss.dtype))
    frames = host(np.arange(steps)[:, None] < np.asarray(inputs_n)[None, :])
    probabilities = log_probs.exp()
    loss = loss + ((probabilities - probabilities.detach()) * frames[:, :, None]).sum((0, 2))  # PyTorch's gradient
    loss = _named(loss, "CtcLossBackward0")
    if zero_infinity:
        loss = loss.where(loss.isfinite(), loss.new_zeros(()))
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / host(np.maximum(np.asarray(targets_n), 1)).to(loss.dtype)).mean()
