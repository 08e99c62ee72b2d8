"""``torch.version``: what a PyTorch script reads about its build, as xtensor answers it.

``__version__`` is the string ``torch.__version__`` reads under ``install_as_torch()`` (the PyTorch API xtensor
follows, labelled as xtensor's; see ``xtensor._torch_alias``). xtensor is no CUDA or ROCm build of PyTorch:
``cuda`` and ``hip`` are None, as on PyTorch's CPU wheels, whatever devices jax finds (``torch.cuda`` reports those).
"""
from ._torch_alias import TORCH_API_VERSION, TorchVersion

XTENSOR_VERSION = "0.1.0"  # xtensor's own version (``xtensor.__version__``; pyproject.toml's)

__all__ = ["__version__", "cuda", "hip", "debug", "git_version"]

__version__ = TorchVersion(f"{TORCH_API_VERSION}+xtensor.{XTENSOR_VERSION}")
cuda = None
hip = None
debug = False
git_version = None
