"""Distance functions: ``pairwise_distance``, ``cosine_similarity`` and ``pdist``."""

from ... import _creation
from ...ops.linalg import vector_norm


__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    n1 = vector_norm(x1, 2, dim, keepdim=True)
    n2 = vector_norm(x2, 2, dim, keepdim=True)
    return ((x1 / n1.clamp_min(eps)) * (x2 / n2.clamp_min(eps))).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (PyTorch's eps keeps the gradient finite at 0)."""
    ndim = max(x1.ndim, x2.ndim, 1)
    return vector_norm(x1 - x2 + eps, p, ndim - 1, keepdim=keepdim)


def pdist(input, p=2):
    """The ``p``-norm distances between the rows of an (N, M) input, pair (i, j) for i < j in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    import numpy as np  # the pairs are geometry only
    first, second = (_creation.tensor(i).to(input.backend) for i in np.triu_indices(input.shape[0], 1))
    return vector_norm(input.index_select(0, first) - input.index_select(0, second), p, -1)
