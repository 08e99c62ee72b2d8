"""``torch.utils.hooks``: ``RemovableHandle``, the handle every hook registration returns (nn.Module's own)."""
from ..nn.modules.module import RemovableHandle

__all__ = ["RemovableHandle"]
