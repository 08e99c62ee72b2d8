"""``torch.cpu.amp``: PyTorch's deprecated spellings of ``torch.amp.autocast("cpu")`` and
``torch.amp.GradScaler("cpu")``, with its FutureWarnings."""
from ..amp._deprecated import device_spellings

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = device_spellings("cpu", __name__)
