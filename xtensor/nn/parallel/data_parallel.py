"""``DataParallel``: PyTorch's single-machine data parallelism, here the CPU case (the wrapped module, called)."""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Calls ``module`` with the whole batch, as PyTorch's ``DataParallel`` does without CUDA devices (then its
    ``device_ids`` is empty); the model's ``state_dict`` keys carry the ``module.`` prefix, as there."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """``module(*inputs, **module_kwargs)``: PyTorch's functional ``DataParallel`` without CUDA devices."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
