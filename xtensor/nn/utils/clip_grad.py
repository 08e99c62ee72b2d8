"""``nn.utils.clip_grad``: gradient clipping by total norm or by value, as PyTorch's."""
import types
import warnings

from ... import linalg
from ..._variants import torch_functions
from ..._creation import tensor
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

stack = torch_functions["stack"]  # (the generated torch function, resolved once)

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of all ``tensors`` together (as if concatenated); 0 for none."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    norms = [linalg.vector_norm(t, norm_type) for t in tensors]
    total_norm = linalg.vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()).item():
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the parameters' gradients in place so their total norm is at most ``max_norm``; returns the total
    norm before clipping (PyTorch's ``max_norm / (norm + 1e-6)`` factor, capped at 1)."""
    if not isinstance(parameters, Tensor) and isinstance(parameters, types.GeneratorType):
        parameters = list(parameters)
        if not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    parameters = _as_list(parameters)
    total_norm = get_total_norm([p.grad for p in parameters if p.grad is not None], norm_type, error_if_nonfinite,
                                foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of ``clip_grad_norm_`` (PyTorch warns the same way)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)``, capped at 1 (the second half of
    ``clip_grad_norm_``, for a ``total_norm`` computed elsewhere, e.g. across shards)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if grads:
        clip_coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for grad in grads:
            grad.mul_(clip_coef)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
