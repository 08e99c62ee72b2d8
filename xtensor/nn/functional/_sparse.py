"""Sparse functions (PyTorch's chapter name): ``one_hot``, ``embedding`` and ``embedding_bag``."""
import math

from ... import _dtypes
from ..._index import check_index_range
from ...autograd import no_grad
from ._common import _traced, _xt

__all__ = ["one_hot", "embedding", "embedding_bag"]


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
    check_index_range(input._value, 0, n, lambda bad: IndexError("index out of range in self"))  # (extremes only)
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
    from ..._dispatch import apply
    from ..._table import TABLE
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
