"""``torch.backends.opt_einsum``: whether ``einsum`` plans its contraction order with the opt_einsum
package, and how (``strategy``: ``"auto"``, ``"greedy"``, ``"optimal"``), with PyTorch's checks on a new
strategy. xtensor's ``einsum`` hands the whole expression to the backend's einsum, which plans its own
order, so the flags are recorded only."""
import importlib
import importlib.util
import sys
import types

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy"]


def is_available():
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The opt_einsum package, or None where it is not installed."""
    return importlib.import_module("opt_einsum") if is_available() else None


class _OptEinsumModule(types.ModuleType):
    enabled = True
    _strategy = "auto" if is_available() else None

    @property
    def strategy(self):
        return self._strategy

    @strategy.setter
    def strategy(self, value):
        if not is_available():
            raise ValueError(f"opt_einsum is not available, so setting `strategy` to {value} will not be "
                             "meaningful. torch.einsum will bypass path calculation and simply contract from left "
                             "to right. Please install opt_einsum or unset `strategy`.")
        if not self.enabled:
            raise ValueError(f"opt_einsum is not enabled, so setting a `strategy` to {value} will not be "
                             "meaningful. torch.einsum will bypass path calculation and simply contract from left "
                             "to right. Please set `enabled` to `True` as well or unset `strategy`.")
        if value not in ("auto", "greedy", "optimal"):
            raise ValueError(f"`strategy` must be one of the following: [auto, greedy, optimal] but is {value}")
        self._strategy = value


sys.modules[__name__].__class__ = _OptEinsumModule
