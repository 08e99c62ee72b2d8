"""``torch.distributions.Categorical``."""
import functools

import xtensor as xt

from . import constraints
from .distribution import Distribution
from .utils import logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A category index in ``0..K-1`` drawn with the (normalised) ``probs``, or ``softmax(logits)``, of the last
    dimension; exactly one of the two is given."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        if given.dim() < 1:
            raise ValueError(f"`{'probs' if probs is not None else 'logits'}` parameter must be at least "
                             "one-dimensional.")
        if probs is not None:
            self.__dict__["probs"] = probs / probs.sum(-1, keepdim=True)
        else:
            self.__dict__["logits"] = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._num_events = given.size()[-1]
        super().__init__(given.size()[:-1], validate_args=validate_args)

    @functools.cached_property
    def probs(self):
        return logits_to_probs(self.logits)

    @functools.cached_property
    def logits(self):
        return probs_to_logits(self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return self.probs.size()

    @property
    def mean(self):
        return xt.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return xt.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        shape = xt.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with xt.no_grad():
            samples_2d = xt.multinomial(probs_2d, max(shape.numel(), 1), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = xt.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        min_real = xt.finfo(self.logits.dtype).min
        return -(self.logits.clamp(min=min_real) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = xt.arange(self._num_events).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
