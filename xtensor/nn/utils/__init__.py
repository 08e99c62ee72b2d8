"""``nn.utils``: gradient clipping, parameters as one vector, weight normalisation, parametrizations
(``parametrize``, ``parametrizations``) and ``nn.utils.rnn`` (packed variable-length sequences), laid out as
PyTorch's ``torch.nn.utils``."""
from . import clip_grad, convert_parameters, parametrizations, parametrize, rnn  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "parametrizations", "parametrize", "remove_weight_norm", "rnn",
           "vector_to_parameters", "weight_norm"]
