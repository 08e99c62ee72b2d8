"""``torch.backends.opt_einsum``: whether ``einsum`` plans its contraction order with the opt_einsum
package, and how (``strategy``: ``"auto"``, ``"greedy"``, ``"optimal"``; PyTorch 2.13 stores whatever is
assigned). xtensor's ``einsum`` hands the whole expression to the backend's einsum, which plans its own
order, so the flags are recorded only."""
import importlib
import importlib.util

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy"]


def is_available():
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The opt_einsum package, or None where it is not installed."""
    return importlib.import_module("opt_einsum") if is_available() else None


enabled = True
strategy = "auto" if is_available() else None
