"""``xtensor.distributions``: probability distributions as PyTorch's ``torch.distributions`` (``Normal``,
``MultivariateNormal``, ``Uniform``, ``Bernoulli``, ``Categorical``, ``kl_divergence``), over xtensor's ops so
``rsample`` and ``log_prob`` are differentiable. Samples come from xtensor's generator (the same seed gives the
same draws on every backend, not torch's draws)."""
from . import constraints, kl  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "MultivariateNormal", "Normal", "Uniform", "kl_divergence",
           "register_kl", "constraints"]
