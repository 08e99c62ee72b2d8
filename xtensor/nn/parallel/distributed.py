"""``DistributedDataParallel`` for a world of one process (see ``xtensor.nn.parallel``)."""
import contextlib

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


def _world_size():
    from ... import distributed
    return distributed.get_world_size() if distributed.is_available() else 1


class DistributedDataParallel(Module):
    """Calls ``module`` (gradients need no all-reduce in one process), with PyTorch's attributes and the
    ``module.`` prefix on ``state_dict`` keys; ``no_sync`` and ``join`` are the contexts PyTorch's are."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **options):
        world_size = _world_size()
        if world_size != 1:
            raise NotImplementedError(
                f"DistributedDataParallel over {world_size} processes: xtensor does not all-reduce gradients "
                "between processes. Drive all devices from one program with "
                "xtensor.distributed.data_parallel(step, init_device_mesh(...)) instead.")
        super().__init__()
        self.module = module
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim
        self.broadcast_buffers, self.process_group = broadcast_buffers, process_group
        self.find_unused_parameters, self.gradient_as_bucket_view = find_unused_parameters, gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True  # what no_sync turns off (scripts also set it directly)
        self.require_forward_param_sync = True

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradient accumulation without synchronising: with one process there is nothing to skip."""
        previous, self.require_backward_grad_sync = self.require_backward_grad_sync, False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    @contextlib.contextmanager
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Uneven inputs across processes: one process never waits for another."""
        yield
