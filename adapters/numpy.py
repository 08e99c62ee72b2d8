"""The numpy backend, xtensor's embedded default: mutable arrays, so views are real numpy views
and in-place ops write straight into memory."""
import numpy as np
import array_api_compat.numpy as xp

from .generic import ArrayAPIAdapter

__all__ = ["NumpyAdapter"]


class NumpyAdapter(ArrayAPIAdapter):
    mutable = True
    host = True

    native_indexing = True

    def __init__(self):
        super().__init__(xp, "numpy")

    def from_numpy(self, a):
        return a

    def to_numpy(self, arr):
        return arr

    def contiguous_copy(self, arr):
        return np.array(arr, copy=True, order="C")

    def scatter_flat(self, flat, positions, values):
        out = flat.copy()
        out[positions] = values
        return out
