"""The namespace VJPs are written against: one definition per gradient, two speeds.

A VJP ``(ns, g, ans, *args) -> gradient`` computes with operators (``g * y``, ``-g``,
``1 - ans * ans``) and ``ns`` functions (``ns.cos(x)``, ``ns.where_zero(cond, g)``,
``ns.unreduce(g, shape, dims, keepdim)``). The engine passes

* ``raw_ns(backend)`` with backend arrays when no graph is being built (``create_graph=False``, the
  common case): each ``ns`` function is the op's own forward over ``xp`` -- no Tensor, no dispatch,
  no node;
* ``TENSOR_NS`` with Tensors under ``create_graph=True``: each ``ns`` function is the differentiable
  xtensor op, so the gradient is itself differentiable.

The same line is both (HIPS autograd's idea, kept fast): never two hand-written copies of a gradient.
A raw run happens only where the node's tensor arguments share the result's backend and dtype
(``Op.raw_any_dtype`` lists arguments whose dtype the VJP does not compute with: a ``where``
condition, a cast's source); elsewhere the engine runs the same VJP with ``TENSOR_NS``.
Elementwise ops are reached by name (``ns.exp``, ``ns.xlogy``); the structural helpers below are
spelled out for both namespaces.
"""
import functools

import numpy as np

from . import _dtypes
from ._registry import FUNCTIONS, TABLE
from ._tensor import Tensor

__all__ = ["raw_ns", "TENSOR_NS", "is_array"]


def is_array(v):
    """Whether a VJP argument is an array (raw or Tensor) rather than a Python scalar."""
    return hasattr(v, "dtype")


class _Reshaping:
    """The gradient helpers both namespaces share, written once with the namespace's own ``sum``/``reshape``/
    ``expand``: the one ``unreduce`` and the one ``unbroadcast``."""

    def unreduce(self, g, shape, dims, keepdim):
        """Broadcast a reduction's gradient back over the reduced ``dims`` of ``shape``."""
        if not keepdim and dims and g.ndim:
            g = self.reshape(g, tuple(1 if i in dims else n for i, n in enumerate(shape)))
        return self.expand(g, shape)

    def unbroadcast(self, g, shape):
        """Sum ``g`` over the dimensions broadcasting added to an input of ``shape``."""
        shape = tuple(shape)
        dims = broadcast_dims(tuple(g.shape), shape)
        if dims:
            g = self.sum(g, dims)
        return self.reshape(g, shape) if tuple(g.shape) != shape else g

    def add_picked(self, out, index, values, axis):
        """``out`` plus ``values`` at ``index`` along ``axis``, one element per position: the adjoint of ``pick``.
        ``out`` is the caller's own fresh array (numpy adds into it)."""
        hit = self.arange_along(out, axis) == self.unsqueeze(index, axis)
        return self.where(hit, out + self.unsqueeze(values, axis), out)


def broadcast_dims(gshape, shape):
    """The dimensions of a gradient of ``gshape`` that broadcasting added to an input of ``shape`` (to sum).
    A gradient with fewer dimensions (a one-element view of a 0-d base) has none: it is only reshaped."""
    extra = len(gshape) - len(shape)
    if extra < 0:
        return ()
    return tuple(range(extra)) + tuple(i + extra for i, n in enumerate(shape) if n == 1 and gshape[i + extra] != 1)


class RawNamespace(_Reshaping):
    """VJP functions over one backend's arrays: the op table's forwards, called directly."""

    raw = True

    def __init__(self, backend):
        self.backend = backend
        self.xp = backend.xp
        # the dtype objects arrays carry (numpy's and jax's ``native`` hold scalar types, which hash apart)
        self._complex = frozenset(self.xp.zeros((), dtype=backend.native[d]).dtype
                                  for d in backend.native if d.kind == "c")

    def __getattr__(self, name):
        """An elementwise op by its table name: its forward over ``xp``, bound once."""
        entry = TABLE.get(name)
        if entry is None or entry.op is None:
            raise AttributeError(name)
        fn = functools.partial(entry.op.fwd, self.xp)
        setattr(self, name, fn)
        return fn

    def apply(self, op, tensors, params=()):
        """The op ``op`` (its table name, or an ``Op`` kept outside the table) on ``tensors`` and ``params`` (in the
        order of its forward): the forward itself."""
        return (TABLE[op].op if type(op) is str else op).fwd(self.xp, *tensors, *params)

    def is_complex(self, v):
        return getattr(v, "dtype", None) in self._complex

    def conj(self, v):
        """The conjugate of a complex array; a Python bool as an int (the array API promotes it with bools only:
        the gradient of ``True * x``); anything else as it is."""
        if v is True or v is False:
            return int(v)
        return self.xp.conj(v) if getattr(v, "dtype", None) in self._complex else v

    def where(self, cond, a, b):
        return self.xp.where(cond, a, b)

    def where_zero(self, cond, g):
        """``g`` where ``cond`` holds, else 0 (``cond`` may be a plain bool when an operand was a scalar)."""
        if not is_array(cond):
            return g if cond else g * 0
        return self.xp.where(cond, g, self.xp.zeros_like(g))

    def sum(self, g, dims, keepdim=False):
        return self.xp.sum(g, axis=tuple(dims), keepdims=keepdim)

    def reshape(self, g, shape):
        return self.xp.reshape(g, tuple(shape))

    def expand(self, g, shape):
        return self.xp.broadcast_to(g, tuple(shape))

    def permute(self, g, dims):
        return self.xp.permute_dims(g, tuple(dims))

    def unsqueeze(self, g, dim):
        return self.xp.expand_dims(g, axis=dim)

    def squeeze(self, g, dim):
        return self.xp.squeeze(g, axis=dim)

    def mT(self, a):
        return self.xp.matrix_transpose(a)

    def narrow(self, g, dim, start, length):
        return g[(slice(None),) * dim + (slice(start, start + length), ...)]

    def select(self, g, dim, index):
        return g[(slice(None),) * dim + (index, ...)]

    def pick(self, x, index, axis):
        """One element of ``x`` per position along ``axis``, the one at ``index`` (``x``'s shape without ``axis``)."""
        return self.xp.squeeze(self.xp.take_along_axis(x, self.unsqueeze(index, axis), axis=axis), axis=axis)

    def take(self, a, index):
        """``a``'s elements at integer ``index`` (of any shape) along its first dim."""
        return self.xp.reshape(self.xp.take(a, self.xp.reshape(index, (-1,)), axis=0), index.shape)

    def arange_along(self, like, dim):
        """0..n-1 along ``dim`` of an integer array shaped to broadcast against ``like``."""
        n = like.shape[dim]
        return self.xp.reshape(self.xp.arange(n), tuple(n if i == dim else 1 for i in range(like.ndim)))

    def matmul(self, a, b, like=None):
        """``a @ b``; ``like``: the operand whose gradient this is, whose layout only strided backends read."""
        return self.xp.matmul(a, b)

    def inv(self, a):
        return self.xp.linalg.inv(a)

    def cast_like(self, g, x):
        """``g`` in ``x``'s dtype."""
        return g if g.dtype == x.dtype else self.xp.astype(g, x.dtype)

    def zeros(self, shape, like):
        return self.xp.zeros(tuple(shape), dtype=like.dtype)

    def full_like(self, like, value):
        """A 0-d array of ``like``'s dtype holding ``value``."""
        return self.xp.asarray(value, dtype=like.dtype)

    def index_add(self, shape, index, g):
        """Zeros of ``shape`` with ``g`` added at host ``index`` (repeated elements add up)."""
        return self.apply("index_put", (self.zeros(shape, g), g), (index, self.backend, True))

    def view_index_put(self, shape, index, g):
        """Zeros of ``shape`` with ``g`` at a basic (view) ``index``, where no element repeats: the gradient of a
        slice or select (PyTorch's slice_backward/select_backward). Immutable arrays scatter."""
        return self.index_add(shape, index, g)

    def scatter_add(self, x, dim, index, src):
        """``x.scatter_add(dim, index, src)``."""
        return self.apply("scatter_add", (x, src), (index, dim, "sum", self.backend))

class NumpyNamespace(RawNamespace):
    """numpy's own array methods where array-api-compat's wrappers (and numpy's module functions) cost up to
    a microsecond of Python each."""

    def conj(self, v):
        if v is True or v is False:
            return int(v)
        dtype = getattr(v, "dtype", None)  # (its kind: hashing a dtype into a set costs more)
        return v.conj() if dtype is not None and dtype.kind == "c" else v

    def where_zero(self, cond, g):
        """``np.where(cond, g, 0)`` for a mask of ``g``'s shape as a bitwise and with the mask widened to all-ones
        words: the same bits (NaN, inf and -0.0 where ``cond`` holds; +0 elsewhere), without ``np.where``'s
        per-element branch (5x slower on random masks)."""
        if not is_array(cond):
            return g if cond else g * 0
        words = _WORDS.get(g.dtype.itemsize)
        if words is None or type(cond) is not np.ndarray or type(g) is not np.ndarray or cond.shape != g.shape or \
                not g.ndim or g.dtype.kind not in "fiu":
            return np.where(cond, g, np.zeros_like(g))
        mask = cond.astype(words)
        np.negative(mask, out=mask)
        return np.bitwise_and(mask, g.view(words), out=mask).view(g.dtype)

    def sum(self, g, dims, keepdim=False):
        return np.add.reduce(g, tuple(dims), None, None, keepdim)

    def reshape(self, g, shape):
        return g.reshape(shape)

    def expand(self, g, shape):
        """A read-only broadcast view (as ``np.broadcast_to``, without its microseconds for a 0-d ``g``)."""
        shape = tuple(shape)
        if g.shape == shape:
            return g
        if g.ndim:
            return np.broadcast_to(g, shape)
        view = np.ndarray(shape, g.dtype, np.asarray(g), 0, (0,) * len(shape))
        view.flags.writeable = False
        return view

    def permute(self, g, dims):
        return g.transpose(dims)

    def unsqueeze(self, g, dim):
        dim = dim if dim >= 0 else dim + g.ndim + 1
        return g.reshape(g.shape[:dim] + (1,) + g.shape[dim:])

    def squeeze(self, g, dim):
        return g.squeeze(dim)

    def mT(self, a):
        return a.swapaxes(-1, -2)

    def pick(self, x, index, axis):
        """An integer index per row (numpy's ``take_along_axis`` is ~10 us of Python for the same gather)."""
        if x.ndim == 2 and axis == 1:
            return x[np.arange(x.shape[0]), index]
        return super().pick(x, index, axis)

    def arange_along(self, like, dim):
        n = like.shape[dim]
        return np.arange(n).reshape(tuple(n if i == dim else 1 for i in range(like.ndim)))

    def add_picked(self, out, index, values, axis):
        """An in-place fancy-index addition (no position repeats: no ``np.add.at``), instead of a mask of ``out``'s
        size."""
        if out.ndim == 2 and axis == 1:
            out[np.arange(out.shape[0]), index] += values
            return out
        coords = [np.arange(n).reshape((n,) + (1,) * (index.ndim - k - 1)) for k, n in enumerate(index.shape)]
        coords.insert(axis, index)
        out[tuple(coords)] += values
        return out

    def matmul(self, a, b, like=None):
        """``a @ b``, laid out as ``like`` where that is a transposed matrix (a weight used as ``w.T``): computed as
        ``(b.T @ a.T).T``, PyTorch's ``mm_mat2_backward``, so the gradient a transposed view hands its base is
        C-ordered and ``.grad`` takes it with a plain copy (512x512 float32: 23 µs, against 580 for the transposing
        copy)."""
        if like is not None and like.ndim == 2 and a.ndim == 2 and b.ndim == 2 and like.flags.f_contiguous and \
                not like.flags.c_contiguous:
            return np.matmul(b.T, a.T).T
        return np.matmul(a, b)

    def cast_like(self, g, x):
        return g if g.dtype == x.dtype else g.astype(x.dtype)

    def view_index_put(self, shape, index, g):
        """A plain assignment into zeros: a basic index repeats no element, so no ``np.add.at`` (a scatter through
        flat positions, ~10x slower)."""
        out = np.zeros(shape, g.dtype)
        out[index] = g
        return out

    def scatter_add(self, x, dim, index, src):
        """One ``np.add.at`` at ``index`` along ``dim`` and each element's own coordinate along the other dims; from
        512 elements at the flat positions of a contiguous copy (numpy's ``add.at`` with one index array is 4-6x
        faster than with a tuple of them: an embedding's gradient, 320 x 32, 370 -> 67 us; below, the positions'
        bookkeeping costs more). Either way the additions run in index order, as PyTorch's ``index_add``."""
        if not index.ndim:
            return super().scatter_add(x, dim, index, src)
        out = np.array(x, order="C")
        if dim == 0 and index.ndim == out.ndim == 2 and not index.strides[1] and index.shape[1] == out.shape[1] and \
                src.shape == index.shape:  # whole rows at one index each (an embedding's, index_select's gradient)
            flat = (index[:, 0] * out.shape[1])[:, None] + np.arange(out.shape[1])
            np.add.at(out.reshape(-1), flat.reshape(-1), src.reshape(-1))
            return out
        coords = [np.arange(n).reshape((n,) + (1,) * (index.ndim - k - 1)) for k, n in enumerate(index.shape)]
        coords[dim] = index
        src = src[tuple(slice(0, n) for n in index.shape)]
        if index.size < 512:
            np.add.at(out, tuple(coords), src)
            return out
        flat = sum(c * (s // out.itemsize) for c, s in zip(coords, out.strides))
        np.add.at(out.reshape(-1), flat.reshape(-1), src.reshape(-1))
        return out


_WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}  # a signed integer per itemsize (-1: all bits set)


class _RawNamespaces(dict):
    """backend -> its raw namespace, made on first lookup: ``RAW_NS[backend]`` is one dict read, no Python call (the
    per-op fast paths ask on every node they record)."""

    def __missing__(self, backend):
        cls = NumpyNamespace if backend._array_type is np.ndarray else RawNamespace
        return self.setdefault(backend, cls(backend))  # threads racing here all get the first one made


RAW_NS = _RawNamespaces()


def raw_ns(backend):
    """The raw namespace of ``backend`` (made once per backend)."""
    return RAW_NS[backend]


class TensorNamespace(_Reshaping):
    """VJP functions over Tensors: xtensor's differentiable ops (used under ``create_graph=True``)."""

    raw = False

    def __getattr__(self, name):
        """An op by its table name: a unary elementwise op as its Tensor method (the fast per-method path),
        anything else as its torch function."""
        entry = TABLE.get(name)
        fn = getattr(Tensor, name, None) if entry is not None and entry.kind == "unary" and entry.method else None
        if not callable(fn):
            fn = FUNCTIONS.get(name)
        if fn is None:
            raise AttributeError(name)
        setattr(self, name, fn)
        return fn

    @staticmethod
    def apply(op, tensors, params=()):
        return (TABLE[op].op if type(op) is str else op)(tuple(tensors), tuple(params))

    @staticmethod
    def is_complex(v):
        """(``v``: a Tensor, or the ``InputMeta`` a node keeps of an input whose dtype alone a VJP reads)"""
        dtype = getattr(v, "_dtype", None)
        return dtype is not None and dtype.kind == "c"

    @staticmethod
    def conj(v):
        return v.conj() if isinstance(v, Tensor) and v._dtype.kind == "c" else v

    @staticmethod
    def where(cond, a, b):
        return a.where(cond, b)

    @staticmethod
    def where_zero(cond, g):
        if not isinstance(cond, Tensor):
            return g if cond else g * 0
        return g.where(cond, g.new_zeros(()))

    @staticmethod
    def sum(g, dims, keepdim=False):
        return g.sum(tuple(dims), keepdim=keepdim)

    @staticmethod
    def reshape(g, shape):
        return g.reshape(tuple(shape))

    @staticmethod
    def expand(g, shape):
        return g.expand(tuple(shape))

    @staticmethod
    def permute(g, dims):
        return g.permute(tuple(dims))

    @staticmethod
    def unsqueeze(g, dim):
        return g.unsqueeze(dim)

    @staticmethod
    def squeeze(g, dim):
        return g.squeeze(dim)

    @staticmethod
    def mT(a):
        return a.mT

    @staticmethod
    def narrow(g, dim, start, length):
        return g.narrow(dim, start, length)

    @staticmethod
    def select(g, dim, index):
        return g.select(dim, index)

    @staticmethod
    def take(a, index):
        return a.index_select(0, index.reshape(-1)).reshape(tuple(index.shape))

    @staticmethod
    def arange_along(like, dim):
        n = like.shape[dim]
        return like.new_tensor(np.arange(n), dtype=_dtypes.int64).reshape(
            tuple(n if i == dim else 1 for i in range(like.ndim)))

    @staticmethod
    def matmul(a, b, like=None):
        return a @ b

    @staticmethod
    def inv(a):
        return TABLE["linalg_inv"].op((a,))

    @staticmethod
    def cast_like(g, x):
        return g if g._dtype is x._dtype else g.to(x._dtype)

    @staticmethod
    def zeros(shape, like):
        return like.new_zeros(tuple(shape))

    @staticmethod
    def full_like(like, value):
        return like.new_full((), value)

    @staticmethod
    def index_add(shape, index, g):
        return g.new_zeros(tuple(shape)).index_put_host(index, g, accumulate=True)

    view_index_put = index_add

    @staticmethod
    def scatter_add(x, dim, index, src):
        return x.scatter_add(dim, index, src)



TENSOR_NS = TensorNamespace()
