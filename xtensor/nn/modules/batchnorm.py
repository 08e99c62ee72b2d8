"""``BatchNorm1d/2d/3d``: running statistics (momentum or cumulative average) and eval mode; ``SyncBatchNorm``."""
from ... import _creation, _dtypes
from .. import functional as F
from .linear import factory, weight_and_bias
from .module import Module
from .normalization import _reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _BatchNorm(Module):
    _version = 2
    dims = ()  # the input ranks this layer accepts

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        weight_and_bias(self, (num_features,), (num_features,), bias, affine, device=device, dtype=dtype)
        if track_running_stats:
            kw = factory(device, dtype)
            self.register_buffer("running_mean", _creation.zeros(num_features, **kw))
            self.register_buffer("running_var", _creation.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", _creation.tensor(0, dtype=_dtypes.int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def forward(self, input):
        if input.ndim not in self.dims:
            expected = " or ".join(f"{d}D" for d in self.dims)
            raise ValueError(f"expected {expected} input (got {input.ndim}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch_stats = self.training or self.running_mean is None
        tracked = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if tracked else None, self.running_var if tracked else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    dims = (4,)


class BatchNorm3d(_BatchNorm):
    dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of inputs of any rank from 2 whose statistics PyTorch reduces over every process.
    In one process -- what a lone xtensor process is, and what PyTorch does without a process group -- that is
    ``BatchNorm`` itself; across processes xtensor does not synchronize it (NotImplementedError in training)."""
    dims = range(2, 65)  # every rank from 2 (numpy's limit is 64)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def forward(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if self.training and _world_size() > 1:
            raise NotImplementedError("SyncBatchNorm across several processes: xtensor does not reduce batch "
                                      "statistics between processes (use BatchNorm inside data_parallel, where the "
                                      "batch is one global array)")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d in it replaced by a SyncBatchNorm holding the same parameters and
        running statistics (the tensors themselves), as PyTorch's."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                converted.weight, converted.bias = module.weight, module.bias
            converted.running_mean, converted.running_var = module.running_mean, module.running_var
            converted.num_batches_tracked, converted.training = module.num_batches_tracked, module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


def _world_size():
    from ...distributed.distributed_c10d import _world_size
    return _world_size()
