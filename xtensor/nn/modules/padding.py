"""The padding layers: zero, constant, reflection, replication and circular, 1-d to 3-d."""
from .. import functional as F
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    n, mode = 0, "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * (2 * self.n) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, self.mode, self.value if self.mode == "constant" else None)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _padding_layer(name, base, n, mode):
    return type(name, (base,), {"n": n, "mode": mode, "__module__": __name__, "__qualname__": name})


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_padding_layer(f"ConstantPad{n}d", _ConstantPadNd, n, "constant")
                                               for n in (1, 2, 3))


ZeroPad1d, ZeroPad2d, ZeroPad3d = (_padding_layer(f"ZeroPad{n}d", _PadNd, n, "constant") for n in (1, 2, 3))


ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_padding_layer(f"ReflectionPad{n}d", _PadNd, n, "reflect")
                                                     for n in (1, 2, 3))


ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_padding_layer(f"ReplicationPad{n}d", _PadNd, n, "replicate")
                                                        for n in (1, 2, 3))


CircularPad1d, CircularPad2d, CircularPad3d = (_padding_layer(f"CircularPad{n}d", _PadNd, n, "circular")
                                               for n in (1, 2, 3))
