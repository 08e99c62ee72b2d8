"""``torch.cuda.amp``: PyTorch's deprecated spellings of ``torch.amp.autocast("cuda")`` and
``torch.amp.GradScaler("cuda")``, with its FutureWarnings."""
from ..amp._deprecated import device_spellings
from ..amp.autocast_mode import custom_bwd as _custom_bwd, custom_fwd as _custom_fwd

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

autocast, GradScaler = device_spellings("cuda", __name__)


def custom_fwd(fwd=None, *, cast_inputs=None):
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    return _custom_bwd(bwd, device_type="cuda")
