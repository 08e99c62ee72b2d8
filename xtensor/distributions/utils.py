"""``torch.distributions.utils``: argument broadcasting and the probs/logits conversions."""
import numbers

import xtensor as xt

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs"]


def broadcast_all(*values):
    """The values (Tensors or numbers) as Tensors of one broadcast shape; numbers take the Tensors' dtype."""
    tensors = [v for v in values if isinstance(v, xt.Tensor)]
    if not all(isinstance(v, (xt.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    like = tensors[0] if tensors else xt.tensor(0.0)
    return xt.broadcast_tensors(*(v if isinstance(v, xt.Tensor) else like.new_tensor(float(v)) for v in values))


def clamp_probs(probs):
    eps = xt.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()
