"""SparseAdam (PyTorch's ``SparseAdam``): Adam for sparse gradients (``nn.Embedding(sparse=True)``)."""
import math

from .._creation import zeros_like
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam masked to the entries a sparse COO gradient holds: only those entries of the moments and of the
    (dense) parameter move, by Adam's formulas with ``step_size = lr * sqrt(1 - beta2**t) / (1 - beta1**t)``.
    Dense gradients are refused, as PyTorch refuses them."""

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
                  if p.is_sparse]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")

    def _check_gradients(self, params):
        if not all(p._grad.is_sparse for p in params):
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")

    def _update(self, group, params, ops):
        (beta1, beta2), lr, eps = group["betas"], ops.scalar(group["lr"]), group["eps"]
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = 0
                state["exp_avg"], state["exp_avg_sq"] = zeros_like(param), zeros_like(param)
            state["step"] += 1
            grad = param._grad.coalesce()  # the update is not linear: each entry once
            values = -grad._values() if group["maximize"] else grad._values()
            if values.numel() == 0:
                continue
            where = tuple(grad._indices())  # one index tensor per sparse dimension
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            old_avg, old_avg_sq = exp_avg[where], exp_avg_sq[where]
            avg_update, avg_sq_update = (values - old_avg) * (1 - beta1), (values ** 2 - old_avg_sq) * (1 - beta2)
            exp_avg[where] = old_avg + avg_update
            exp_avg_sq[where] = old_avg_sq + avg_sq_update
            step = state["step"]
            step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
            denom = (avg_sq_update + old_avg_sq).sqrt() + eps
            param[where] = param[where] + -step_size * ((avg_update + old_avg) / denom)
