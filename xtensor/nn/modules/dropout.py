"""``Dropout`` and its channel (``Dropout1d/2d/3d``) and alpha forms."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout(Module):
    function = F.dropout

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self).function(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    function = F.dropout1d


class Dropout2d(Dropout):
    function = F.dropout2d


class Dropout3d(Dropout):
    function = F.dropout3d


class AlphaDropout(Dropout):
    function = F.alpha_dropout


class FeatureAlphaDropout(Dropout):
    function = F.feature_alpha_dropout
