"""SparseAdam (PyTorch's ``SparseAdam``): Adam for sparse gradients (``nn.Embedding(sparse=True)``)."""
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam that updates only the moments and parameter rows a sparse gradient touches. Dense gradients are
    refused with PyTorch's error; sparse gradients need xtensor's sparse tensors, which this optimizer does
    not yet read (a ``NotImplementedError`` says so)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse = [[i, j] for i, group in enumerate(self.param_groups) for j, p in enumerate(group["params"])
                  if getattr(p, "is_sparse", False)]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")

    def _check_gradients(self, params):
        if not all(getattr(p._grad, "is_sparse", False) for p in params):
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        raise NotImplementedError("SparseAdam: updates from sparse gradients are not implemented in xtensor yet; "
                                  "use Adam (with dense gradients) instead")
