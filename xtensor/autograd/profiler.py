"""``torch.autograd.profiler``: PyTorch's older spelling of the profiler, over ``xtensor.profiler``."""
from ..profiler import EventList, FunctionEventAvg, ProfilerActivity, record_function
from ..profiler import profile as _profile

__all__ = ["profile", "record_function", "EventList", "FunctionEventAvg"]


class profile(_profile):  # noqa: N801  (PyTorch's spelling)
    """``with profile() as prof:`` (``enabled=False``: records nothing, as asked); options as PyTorch's."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, **pytorch_runtime):
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if use_cuda or use_device == "cuda" else [])
        super().__init__(activities=activities, record_shapes=record_shapes, with_flops=with_flops,
                         profile_memory=profile_memory, with_stack=with_stack, with_modules=with_modules)
        self.enabled = enabled

    def start(self):
        if self.enabled:
            super().start()
