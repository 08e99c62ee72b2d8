"""``InstanceNorm1d/2d/3d``: per-sample, per-channel statistics (optionally tracked as BatchNorm's)."""
from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel statistics; running ones only with ``track_running_stats`` (used in eval mode)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        batched = self.dims[-1]
        if input.ndim not in self.dims:
            raise ValueError(f"expected {batched - 1}D or {batched}D input (got {input.ndim}D input)")
        unbatched = input.ndim == batched - 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    dims = (4, 5)
