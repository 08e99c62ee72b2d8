"""``torch.backends``: the switches scripts set for the libraries PyTorch calls (cuDNN, cuBLAS, oneDNN,
opt_einsum...). Each flag is readable and settable with PyTorch's default; ``is_available()`` says whether
xtensor's default backend really has that library (jax on a GPU has cuDNN and cuBLAS); a flag for a library
xtensor's backend does not call changes nothing, as on a PyTorch build without it.
"""
from . import cpu, cuda, cudnn, mkldnn, mps, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "opt_einsum"]
