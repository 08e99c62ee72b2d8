"""``torch.distributions.MultivariateNormal``."""
import functools
import math

import xtensor as xt

from . import constraints
from .distribution import Distribution
from .normal import Normal

__all__ = ["MultivariateNormal"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


class MultivariateNormal(Distribution):
    """The normal distribution on vectors: mean ``loc`` and exactly one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` (its lower Cholesky factor ``L``); ``rsample`` is ``loc + L @ eps``."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {name: m for name, m in zip(_MATRICES, (covariance_matrix, precision_matrix, scale_tril))
                 if m is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions"
                             if name != "scale_tril" else "scale_tril matrix must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        batch_shape = xt.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        self.__dict__[name] = matrix.expand(tuple(batch_shape) + (-1, -1))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = xt.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = xt.linalg.cholesky(xt.linalg.inv(matrix))

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @functools.cached_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @functools.cached_property
    def covariance_matrix(self):
        scale_tril = self._unbroadcasted_scale_tril
        return scale_tril.matmul(scale_tril.transpose(-1, -2)).expand(self._matrix_shape())

    @functools.cached_property
    def precision_matrix(self):
        return xt.linalg.inv(self.covariance_matrix)

    mean = mode = Normal.mean  # the location ``loc``, as Normal's

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                    tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        eps = xt.randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + self._unbroadcasted_scale_tril.matmul(eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        scale_tril = self._unbroadcasted_scale_tril.expand(tuple(diff.shape) + tuple(self._event_shape))
        mahalanobis = xt.linalg.solve_triangular(scale_tril, diff.unsqueeze(-1), upper=False).squeeze(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis.pow(2).sum(-1)) - self._half_log_det()

    def entropy(self):
        k = self._event_shape[0]
        entropy = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(self._batch_shape) if len(self._batch_shape) else entropy
