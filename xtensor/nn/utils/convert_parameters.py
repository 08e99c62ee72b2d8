"""``nn.utils.convert_parameters``: all parameters as one flat vector and back, as PyTorch's."""
from ..._variants import torch_functions
from ..._tensor import Tensor

cat = torch_functions["cat"]  # (the generated torch function, resolved once)

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one vector (differentiable)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Slice ``vec`` back into the parameters' shapes and make each slice the parameter's data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__module__}.{type(vec).__qualname__}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
