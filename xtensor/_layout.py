"""Tensor layouts (``torch.layout``): every dense xtensor tensor is ``strided``; ``xtensor.sparse`` adds its own."""

__all__ = ["layout", "strided"]


class layout:
    """A tensor layout (``torch.layout``); xtensor has the one, ``xtensor.strided``."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"xtensor.{self.name}"

    def __reduce__(self):
        return self.name


strided = layout("strided")
