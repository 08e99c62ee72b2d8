"""The numpy backend, xtensor's embedded default: mutable arrays, so views are real numpy views
and in-place ops write straight into memory.

``xp`` is array-api-compat's numpy namespace with hot functions swapped for faster equivalents (``np.sum`` and
``np.broadcast_to`` cost 2-3 µs of Python each on small arrays; ``matmul`` and ``permute_dims`` skip the wrappers
and ``matmul`` avoids one slow BLAS kernel).
"""
import types

import array_api_compat.numpy as compat_numpy
import numpy as np

from xtensor import _dtypes

from .generic import ArrayAPIAdapter, host_special

__all__ = ["NumpyAdapter"]

# glibc's malloc serves every block of 128 KiB or more with fresh pages from the kernel (mmap), zeroed and faulted in
# on first touch, until a free of such a block raises that threshold to the block's size (and the heap's trim
# threshold to twice it). Mid-sized arrays are the common case here (an LSTM language model's gates: 20 x 16 x 256
# floats, 320 KiB), and nothing else in an xtensor-only process may free a large block early: its LSTM LM step paid
# 170-230 page faults, ~25% of its time. One 4 MiB block allocated and freed at import sets the threshold there, as
# importing PyTorch happens to (elsewhere than glibc it changes nothing).
np.empty(1 << 22, np.uint8)


def _sum(x, /, *, axis=None, dtype=None, keepdims=False):
    return np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)


def _broadcast_to(x, /, shape):
    """A broadcast view, built directly when ``x`` is contiguous (the common gradient case).

    xtensor refuses writes through overlapping views itself (``Tensor._write``), as PyTorch does.
    """
    shape = tuple(shape)
    lead = len(shape) - x.ndim
    if lead < 0 or not x.flags.c_contiguous or any(
            n != s and n != 1 for n, s in zip(x.shape, shape[lead:])):
        return np.broadcast_to(x, shape)
    strides = (0,) * lead + tuple(0 if n != s else st for n, s, st in zip(x.shape, shape[lead:], x.strides))
    return np.ndarray(shape, x.dtype, x, 0, strides)


class _StridedAlias:
    """Exposes strided memory of ``root`` through the array interface (the alias keeps ``root`` alive)."""

    def __init__(self, root, shape, strides, byte_offset):
        self._root = root
        self.__array_interface__ = {"data": (int(root.__array_interface__["data"][0] + byte_offset), False),
                                    "shape": tuple(int(n) for n in shape), "strides": tuple(int(s) for s in strides),
                                    "typestr": root.dtype.str,
                                    "version": 3}


def _matmul(x1, x2, /):
    """``np.matmul``, except for one layout: OpenBLAS multiplies a C-contiguous float32 matrix by a transposed
    C-contiguous one (``F.linear``'s ``x @ w.t()``) in a slow kernel for small products (64x64 @ 64x128: 1.3x the time
    of the same product of C-contiguous operands, 16x64 @ 64x512 2.4x), while with the left operand copied into
    Fortran order it takes a fast one. The copy is made where that measured faster, copy included: a left operand
    of at most 4,096 elements, at least 128 columns, at most 2**19 multiply-adds (benchmarks/README.md); the
    products are the same numbers (the same bits in every such shape checked)."""
    if x1.ndim == 2 and x2.ndim == 2 and x1.dtype is _FLOAT32 and x2.dtype is _FLOAT32:
        (m, k), n = x1.shape, x2.shape[1]
        if m * k <= 4096 and n >= 128 and m * n * k <= 1 << 19 and m > 1 and x2.flags.f_contiguous and \
                not x2.flags.c_contiguous and x1.flags.c_contiguous:
            x1 = np.asfortranarray(x1)
    return np.matmul(x1, x2)


_FLOAT32 = np.dtype(np.float32)


def _bfloat16_kept(fn):
    """``fn`` (matmul, vecdot) returning bfloat16 for bfloat16 inputs: ml_dtypes' loops return the float32 they
    accumulate in, where PyTorch (and xtensor's dtype rule) round the result back to bfloat16."""
    def kept(x1, x2, /, **kwargs):
        out = fn(x1, x2, **kwargs)
        if out.dtype is x1.dtype or out.dtype == x1.dtype:  # (before numpy's dtype.name, ~1.5 us of Python)
            return out
        return out.astype(x1.dtype) if x1.dtype.name == "bfloat16" else out
    kept.__name__ = fn.__name__
    return kept


xp = types.ModuleType("xtensor.adapters.numpy.xp", compat_numpy.__doc__)
xp.__dict__.update({k: v for k, v in vars(compat_numpy).items() if not k.startswith("__")})
xp.sum = _sum
xp.broadcast_to = _broadcast_to
xp.matmul, xp.vecdot = _bfloat16_kept(_matmul), _bfloat16_kept(compat_numpy.vecdot)
xp.permute_dims = lambda x, /, axes: x.transpose(axes)  # (array-api-compat's goes through np.transpose: ~1 us more)


_UFUNCS = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


class NumpyAdapter(ArrayAPIAdapter):
    mutable = True
    host = True
    native_indexing = True

    def __init__(self):
        super().__init__(xp, "numpy")
        self._bfloat16 = None  # numpy has no bfloat16; ml_dtypes' (installed with jax) works with numpy's functions
        try:
            bf16 = _dtypes.numpy_dtype(_dtypes.bfloat16)
        except TypeError as e:
            self.unsupported[_dtypes.bfloat16] = str(e)
        else:
            self._bfloat16 = self.native[_dtypes.bfloat16] = bf16.type  # a scalar type, as numpy's own in native
            _dtypes.NUMPY_SCALARS.add(bf16.type)
            self.dtypes[bf16] = _dtypes.bfloat16

    def scalar(self, value, dtype):
        # ml_dtypes' bfloat16 meeting a Python float promotes to float32; a bfloat16 scalar keeps it bfloat16
        return dtype(value) if dtype is self._bfloat16 else value

    def from_numpy(self, a):
        return a

    def to_numpy(self, arr):
        return arr

    def contiguous_copy(self, arr):
        return np.array(arr, copy=True, order="C")

    def writable_view(self, root, shape, stride, offset):
        """A writable alias of a strided view of ``root`` (numpy hands out diagonal and broadcast views read-only),
        ``offset`` and ``stride`` in elements from ``root``'s first element, whatever ``root``'s own layout."""
        if not root.flags.writeable:
            raise RuntimeError("cannot write through this view: its numpy storage is read-only")
        return np.asarray(_StridedAlias(root, shape, [s * root.itemsize for s in stride], offset * root.itemsize))

    def special(self, name, *args):
        return host_special(name, *args)

    def scatter_flat(self, flat, positions, values):
        out = flat.copy()
        out[positions] = values
        return out

    def scatter_reduce_flat(self, flat, positions, values, reduce):
        out = flat.copy()
        if reduce == "set":
            out[positions] = values
        else:
            _UFUNCS[reduce].at(out, positions, values)
        return out
