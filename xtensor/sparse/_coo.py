"""Sparse COO tensors: the tensor type, construction, coalescing, conversion, and elementwise ops.

Why a ``Tensor`` subclass (``SparseTensor``) and not a layout flag on ``Tensor``: PyTorch keeps one class and
switches on the layout inside its dispatcher; here nearly every ``Tensor`` method reads a strided array
(``_value``), so one flag would mean a branch in each of them. A subclass keeps the dense hot paths untouched
(the dispatcher's fast paths test ``type(x) is Tensor``) and overrides only what a COO tensor answers
differently, while ``isinstance(s, xtensor.Tensor)``, ``s.shape``, ``s.dtype``, ``s.requires_grad``, ``s.grad``
and ``s.grad_fn`` behave as PyTorch's.

What a COO tensor holds: ``indices``, an int64 Tensor (sparse_dim x nnz), ``values``, a Tensor
(nnz x dense dims) on the same backend, the size, and whether it is known to be coalesced (indices sorted and
unique). Both are history-free: the sparse tensor itself is the tape entity, as in PyTorch. Its ``_arr`` is
None and reading a strided value raises ``NotStrided``, which ``_dispatch.apply`` turns into a call of
``dispatch`` below: ops PyTorch runs on COO tensors (zero-preserving unary ops, products and quotients by
scalars, sums with sparse or dense tensors, a dense mask) are computed on the values; the others raise
PyTorch's "Could not run 'aten::op' with arguments from the 'SparseCPU' backend".

Autograd, as PyTorch's: ``sparse_coo_tensor(indices, values)`` with values that require grad has a
``SparseCooTensorWithDimsAndTensorsBackward0`` node (each stored value receives the gradient at its position);
a sparse leaf that requires grad accumulates sparse gradients; an op computed on the values reads them through a
``ValuesBackward0`` node and its result is built from the new values by a constructor node named as PyTorch names
the op (``MulBackward0``, ``NegBackward0``, ``TBackward0``). Every backward is written in xtensor ops, so
``create_graph=True`` works through them.

Index bookkeeping (linear keys, sorting, matching) is done on the host with NumPy: it has data-dependent
shapes (PyTorch's coalesce does too) and never carries gradient. Values stay on their backend.
"""
import numpy as np

from .. import _dtypes
from .._autograd import AccumulateGrad, Node, freed_error
from .._dispatch import apply, edge_of
from .._layout import layout
from .._tensor import NotStrided, Size, Tensor, check_dim
from ..autograd import grad_mode

__all__ = ["SparseTensor", "sparse_coo", "sparse_coo_tensor", "from_parts", "sparse_from", "to_dense", "to_sparse",
           "coalesce", "sum_duplicates", "sparse_mask", "values_with_history", "gather_at", "sparse_node", "named",
           "dispatch", "gradient"]

_grad_state = grad_mode.state
_CTOR_NODE = "SparseCooTensorWithDimsAndTensorsBackward0"


sparse_coo = layout("sparse_coo")


# --------------------------------------------------------------------------- autograd nodes
class SparseNode(Node):
    """A node whose backward is a function of the incoming gradient written in xtensor ops (the engine hands it
    Tensors: ``_raw_ns`` is None), named as PyTorch's node for the same op."""

    __slots__ = ("_backward",)

    def apply(self, *grads):
        if self._backward is None:
            raise freed_error()
        g = grads[0]
        if g is None:
            return (None,) * len(self._edges)
        return self._backward(g)

    def release(self):
        self._backward = None


_node_classes = {}


def sparse_node(result, name, inputs, backward):
    """Record ``result`` (a tensor just made) as the output of a node called ``name`` over ``inputs`` (tensors, or
    None for an input PyTorch lists without gradient), when grad mode is on and an input requires grad;
    ``backward(g)`` returns one gradient per input."""
    if not _grad_state.enabled or not any(t is not None and t._requires_grad for t in inputs):
        return result
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name, (SparseNode,), {"__slots__": ()})
    node = cls()
    node._edges = tuple((None, 0) if t is None else edge_of(t) for t in inputs)
    node._backward = backward
    result._grad_fn, result._requires_grad = node, True
    return result


def gradient(s):
    """Mark ``s``, a sparse gradient a backward made, as one the engine may add a dense gradient to in either order
    (PyTorch's engine accumulates both layouts; its ``sparse + dense`` operator refuses, and so does xtensor's for
    every other sparse tensor)."""
    s._sp_gradient = True
    return s


def named(result, name):
    """``result`` (a tensor with history) behind a pass-through node called ``name``: PyTorch's one node for what
    xtensor computes with several."""
    return sparse_node(result.detach(), name, (result,), lambda g: (g,))


class SparseAccumulateGrad(AccumulateGrad):
    """A sparse leaf's ``AccumulateGrad``: its gradient is a sparse tensor (or dense, from ``mm``, as PyTorch's),
    kept as given the first time and summed after (sparse + sparse concatenates, as PyTorch's)."""

    __slots__ = ()

    def __init__(self, variable):
        super().__init__(variable)
        self._raw_ns = None  # its gradients are sparse Tensors, never raw arrays

    def apply(self, grad):
        leaf = self._variable()
        if leaf is None:
            return ()
        for hook in list(leaf._hooks or ()):
            r = hook(grad)
            if r is not None:
                grad = r
        current = leaf._grad
        if current is None:
            total = grad if _grad_state.enabled else grad.clone()  # (a clone: no longer marked as a gradient)
        elif isinstance(current, SparseTensor) and not isinstance(grad, SparseTensor):
            total = grad + current  # a dense part joins a sparse gradient: the sum is dense (dense + sparse)
        else:
            total = current + grad
        leaf._grad = total if _grad_state.enabled else total.detach()
        for hook in list(leaf._post_accumulate_hooks or ()):
            hook(leaf)
        return ()


# --------------------------------------------------------------------------- the tensor type
class SparseTensor(Tensor):
    """A sparse COO tensor (``layout == xtensor.sparse_coo``); see the module docstring for why a subclass."""

    __slots__ = ()
    is_sparse = True
    layout = sparse_coo

    def __new__(cls, *args, **kwargs):
        raise TypeError("make sparse COO tensors with xtensor.sparse_coo_tensor(indices, values, size) or "
                        "Tensor.to_sparse()")

    # -- what a strided tensor has and a COO tensor has not
    def _refresh(self):
        raise NotStrided(self)

    def _meta(self):
        raise NotStrided(self)

    @property
    def _grad_acc(self):
        acc = self.__dict__.get("_sparse_acc")
        if acc is None:
            acc = self.__dict__["_sparse_acc"] = SparseAccumulateGrad(self)
        return acc

    @_grad_acc.setter
    def _grad_acc(self, value):
        self.__dict__["_sparse_acc"] = value

    @property
    def shape(self):
        return self._sp_size

    @property
    def ndim(self):
        return len(self._sp_size)

    @property
    def device(self):
        return self._sp_values.device

    def stride(self, dim=None):
        """PyTorch 2.13 reports zero strides for a COO tensor (it has no strided memory)."""
        ndim = len(self._sp_size)
        if dim is None:
            return (0,) * ndim
        check_dim(dim, ndim)
        return 0

    def is_contiguous(self, memory_format=None):
        return False

    def data_ptr(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def untyped_storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    storage = untyped_storage

    def storage_offset(self):
        return 0

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def item(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self.to_dense().item()

    def __getitem__(self, index):
        raise NotImplementedError("indexing a sparse COO tensor is not supported by xtensor: call .to_dense() first")

    def __setitem__(self, index, value):
        raise _not_run("index_put_")

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._sp_indices, self._sp_values, tuple(self._sp_size), self._sp_coalesced,
                           self._requires_grad))

    def __dlpack__(self, *args, **kwargs):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    # -- the COO accessors
    def _nnz(self):
        return self._sp_indices.shape[1]

    def sparse_dim(self):
        return self._sp_indices.shape[0]

    def dense_dim(self):
        return len(self._sp_size) - self._sp_indices.shape[0]

    def is_coalesced(self):
        return self._sp_coalesced

    def _indices(self):
        return self._sp_indices

    def _values(self):
        """The stored values (an alias without history, as PyTorch's ``_values()``)."""
        return self._sp_values

    def indices(self):
        self._require_coalesced("indices")
        return self._sp_indices

    def values(self):
        self._require_coalesced("values")
        return values_with_history(self)

    def _require_coalesced(self, what):
        if not self._sp_coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")

    def coalesce(self):
        return coalesce(self)

    def to_dense(self, dtype=None, *, masked_grad=None):
        return to_dense(self if dtype is None else self.to(dtype))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        _check_layout(layout)
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return self

    def to_sparse_coo(self):
        return self

    def to(self, *args, **kwargs):
        """Dtype, device and backend moves, as a dense tensor's ``to``: the values move (and cast), the indices
        follow them to their backend and device."""
        values = self._sp_values.to(*args, **kwargs)
        if values is self._sp_values:
            return self
        indices = self._sp_indices
        if indices._backend is not values._backend:
            indices = indices.to(values.backend)
        if indices.device != values.device:
            indices = indices.to(values.device)
        source = values_with_history(self)
        moved = source.to(*args, **kwargs) if source is not self._sp_values else values
        return sparse_from(indices, moved, self._sp_size, self._sp_coalesced, node="ToCopyBackward0")

    def cpu(self):
        return self.to("cpu")

    def zero_(self):
        empty = from_parts(self._sp_indices[:, :0], self._sp_values[:0], self._sp_size, True)
        return _become(self, empty)

    def detach(self):
        return from_parts(self._sp_indices, self._sp_values, self._sp_size, self._sp_coalesced)

    def clone(self, *, memory_format=None):
        values = values_with_history(self).clone()
        return sparse_from(self._sp_indices, values, self._sp_size, self._sp_coalesced, "CloneBackward0")

    def t(self):
        if self.sparse_dim() > 2 or self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        return _permuted(self, [1, 0], "TBackward0") if self.ndim == 2 else self

    def transpose(self, dim0, dim1):
        d0, d1 = check_dim(dim0, self.ndim), check_dim(dim1, self.ndim)
        sparse_dim = self.sparse_dim()
        if d0 >= sparse_dim or d1 >= sparse_dim:
            raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: {sparse_dim}, "
                               f"d0: {d0}, d1: {d1}")
        order = list(range(self.ndim))
        order[d0], order[d1] = d1, d0
        return _permuted(self, order, "TransposeBackward0")

    def permute(self, *dims):
        order = [check_dim(d, self.ndim) for d in (dims[0] if len(dims) == 1 and not isinstance(dims[0], int)
                                                   else dims)]
        if sorted(order) != list(range(self.ndim)):
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{self.ndim} is not equal to len(dims) = {len(order)}")
        if sorted(order[:self.sparse_dim()]) != list(range(self.sparse_dim())):
            raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense dimensions are not "
                               "allowed.Only transpositions within sparse and dense dimensions are supported.")
        return _permuted(self, order, "PermuteBackward0")

    @property
    def T(self):
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def view(self, *shape):
        raise _not_run("view")

    def reshape(self, *shape):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def contiguous(self, memory_format=None):
        return self
    def __matmul__(self, other):
        from ._products import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):
        from ._products import matmul
        return matmul(other, self)

    def matmul(self, other):
        from ._products import matmul
        return matmul(self, other)

    def mm(self, mat2):
        from ._products import mm
        return mm(self, mat2)

    def __repr__(self, *, tensor_contents=None):
        from .._printing import _add_suffixes, _tensor_str, dtype_shown
        indent = len("tensor(")
        items = [f"size={tuple(self._sp_size)}", f"nnz={self._nnz()}"]
        d = self._dtype
        if dtype_shown(d.name, _dtypes.get_default_dtype().name):
            items.append(f"dtype=xtensor.{d.name}")
        items.append(f"layout={self.layout}")
        if self.device.type != "cpu":
            items.insert(0, f"device='{self.device}'")
        if self._grad_fn is not None:
            items.append(f"grad_fn=<{type(self._grad_fn).__name__}>")
        elif self._requires_grad:
            items.append("requires_grad=True")
        parts = []
        for name, t, prefix in (("indices", self._sp_indices, "indices=tensor("),
                                ("values", self._sp_values, "values=tensor(")):
            arr = t._backend.to_numpy(t._value)
            body = "[]" if arr.size == 0 else _tensor_str(arr, indent + len(prefix))
            if arr.size == 0:
                body += f", size={tuple(arr.shape)}"
            parts.append(prefix + body + ")")
        # the first item starts a line of its own (PyTorch's force_newline); the others break where PyTorch's do:
        # measured as they read there ("torch.", two characters shorter than "xtensor.")
        head = "tensor(" + parts[0] + ",\n" + " " * indent + parts[1] + ",\n" + " " * indent + items[0]
        return _add_suffixes(head, [(s, len(s.replace("xtensor.", "torch."))) for s in items[1:]], indent)

    __str__ = __repr__

    @staticmethod
    def dispatch(op, tensors, params):
        try:
            return dispatch(op, tensors, params)
        except Exception as e:  # (raised while ``apply`` handled NotStrided: that is no part of the story)
            if isinstance(e.__context__, NotStrided):
                e.__suppress_context__ = True
            raise


def _rebuild(indices, values, size, coalesced, requires_grad):
    s = from_parts(indices, values, Size(size), coalesced)
    s._requires_grad = requires_grad
    return s


def from_parts(indices, values, size, coalesced):
    """A history-free sparse tensor over ``indices`` (int64, sparse_dim x nnz) and ``values``: no checks."""
    s = object.__new__(SparseTensor)
    s._arr, s._backend, s._dtype, s._requires_grad, s._grad_fn = None, values._backend, values._dtype, False, None
    s._sp_indices = indices
    s._sp_values = values.detach() if values._requires_grad or values._grad_fn is not None else values
    s._sp_size = Size(size)
    s._sp_coalesced = bool(coalesced)
    return s


def values_with_history(s):
    """``s``'s values as a Tensor whose gradient flows back into ``s`` (PyTorch's ``ValuesBackward0``): the
    gradient of stored value k lands at its position. For an uncoalesced ``s`` each of the values stored at one
    position carries a share of it (they all receive the same gradient from any op PyTorch runs on them), so
    that the sum, which is what a sparse gradient means, is the gradient at that position."""
    values = s._sp_values
    if not (_grad_state.enabled and s._requires_grad):
        return values
    indices, size, s_coalesced = s._sp_indices, s._sp_size, s._sp_coalesced

    def backward(g):
        if not s_coalesced:
            g = g / _multiplicity(indices, size, g)
        return (gradient(coalesce(sparse_from(indices, g, size, s_coalesced))),)
    return sparse_node(values.detach(), "ValuesBackward0", (s,), backward)


def _multiplicity(indices, size, like):
    """How many stored values share each one's position, shaped to divide values like ``like``."""
    keys = _linear_keys(indices, size)
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    m = counts[inverse.reshape(-1)].astype(np.float64)
    return _host(m.reshape((-1,) + (1,) * (like.ndim - 1)), like).to(like.dtype)


def sparse_from(indices, values, size, coalesced=False, node=_CTOR_NODE):
    """A sparse tensor of ``values`` (which may carry history) at ``indices``: the gradient of each value is the
    incoming gradient at its position (PyTorch's ``SparseCooTensorWithDimsAndTensorsBackward0``; ``node``:
    the name PyTorch gives the op that made the values)."""
    out = from_parts(indices, values, size, coalesced)
    return sparse_node(out, node, (values,), lambda g: (gather_at(g, indices, size),))


def gather_at(g, indices, size):
    """The values of ``g`` (dense or sparse, of ``size``) at ``indices``, zero where a sparse ``g`` stores none:
    written in xtensor ops, so differentiable in ``g``."""
    if not isinstance(g, SparseTensor):
        return g[tuple(indices[i] for i in range(indices.shape[0]))]
    g = coalesce(g)
    stored = _linear_keys(g._sp_indices, size)
    wanted = _linear_keys(indices, size)
    pos = np.minimum(np.searchsorted(stored, wanted), max(stored.size - 1, 0))
    values = values_with_history(g)
    if stored.size == 0:
        return values.new_zeros((wanted.size,) + tuple(values.shape[1:]))
    found = (stored[pos] == wanted).reshape((-1,) + (1,) * (values.ndim - 1))
    picked = values.index_select(0, _host(pos, values))
    return picked if found.all() else picked * _host(found, values).to(values.dtype)


def _host(a, like):
    """Host NumPy array ``a`` as a Tensor on ``like``'s backend."""
    from .._creation import as_tensor
    return as_tensor(np.asarray(a), backend=like._backend)


def _numpy_indices(indices):
    return np.asarray(indices._backend.to_numpy(indices._value), dtype=np.int64)


def _linear_keys(indices, size):
    """Each stored position's C-order index among the sparse dims (host int64)."""
    idx = _numpy_indices(indices)
    sparse_shape = tuple(size[:idx.shape[0]])
    if not idx.shape[1]:
        return np.zeros(0, np.int64)
    return np.ravel_multi_index(tuple(idx), sparse_shape, mode="wrap") if all(sparse_shape) else \
        np.zeros(idx.shape[1], np.int64)


# --------------------------------------------------------------------------- construction
def _check_layout(layout):
    if layout is not None and layout is not sparse_coo and getattr(layout, "name", None) != "sparse_coo":
        raise NotImplementedError(f"xtensor has sparse COO tensors only, not layout {layout}")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None, backend=None):
    """``torch.sparse_coo_tensor``: values at indices (sparse_dim x nnz); without ``size``, the smallest that holds
    them. ``check_invariants=True`` checks the indices lie in ``size`` (PyTorch checks nothing by default)."""
    from .._creation import as_tensor, tensor
    like = values if isinstance(values, Tensor) else indices if isinstance(indices, Tensor) else None
    backend = backend if backend is not None else (like.backend if like is not None else None)
    if not isinstance(values, Tensor):
        values = tensor(values, dtype=dtype, backend=backend)
    elif backend is not None and values.backend != backend:
        values = values.to(backend)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if device is not None:
        values = values.to(device)
    if isinstance(indices, Tensor):
        if indices.dtype.kind not in "iuf" and indices.dtype is not _dtypes.bool:
            raise RuntimeError(f"indices must be an int64 tensor, got {indices.dtype}")
        indices = indices.detach().to(_dtypes.int64)
        if indices.backend != values.backend:
            indices = indices.to(values.backend)
    else:
        indices = as_tensor(np.asarray(indices, dtype=np.int64), backend=values._backend)
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    if values.ndim == 0:
        raise RuntimeError("values has incorrect size, expected values to have at least one dimension")
    if values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {values.shape[0]}")
    dense_shape = tuple(values.shape[1:])
    idx = _numpy_indices(indices)
    if size is None:
        if nnz:
            if (idx < 0).any():
                raise RuntimeError(f"found negative index {int(idx.min())} for dim {int(np.argmin(idx.min(1)))}")
            sparse_shape = tuple(int(m) + 1 for m in idx.max(1))
        else:
            sparse_shape = (0,) * sparse_dim
        size = sparse_shape + dense_shape
    else:
        size = tuple(int(n) for n in size)
        if len(size) != sparse_dim + len(dense_shape):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                               f"sparse_dim = {sparse_dim}, dense_dim = {len(dense_shape)}")
        if tuple(size[sparse_dim:]) != dense_shape:
            raise RuntimeError(f"values has incorrect size, expected {list(size[:sparse_dim]) + [nnz]}"
                               f"{list(dense_shape) if dense_shape else ''}, got {list(values.shape)}")
        if check_invariants:
            _check_bounds(idx, size)
    if is_coalesced is None:
        is_coalesced = nnz < 2
    s = sparse_from(indices, values, size, bool(is_coalesced))
    if requires_grad:
        s.requires_grad_(True)
    return s


def _check_bounds(idx, size):
    for d in range(idx.shape[0]):
        if idx.shape[1] and idx[d].min() < 0:
            raise RuntimeError(f"`indices[{d}]` contains negative values, found {int(idx[d].min())}")
        if idx.shape[1] and idx[d].max() >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found index "
                               f"{int(idx[d].max())}")


# --------------------------------------------------------------------------- coalesce and conversions
def sum_duplicates(indices, values, size):
    """The sorted distinct positions among ``indices`` (a sparse tensor of ``size``'s) and ``values`` summed at each
    (differentiable in ``values``)."""
    sparse_dim = indices.shape[0]
    unique, inverse = np.unique(_linear_keys(indices, size), return_inverse=True)
    idx = np.stack(np.unravel_index(unique, tuple(size[:sparse_dim]))).reshape(sparse_dim, -1) if unique.size else \
        np.zeros((sparse_dim, 0), np.int64)
    summed = values.new_zeros((unique.size,) + tuple(values.shape[1:])).index_add(
        0, _host(inverse.reshape(-1), values), values)
    return _host(idx.astype(np.int64), indices), summed


def coalesce(s):
    """``Tensor.coalesce()``: duplicates summed, positions sorted (``self`` when already coalesced, as PyTorch)."""
    if not isinstance(s, SparseTensor):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
    if s._sp_coalesced:
        return s
    indices, summed = sum_duplicates(s._sp_indices, values_with_history(s), s._sp_size)
    return sparse_from(indices, summed, s._sp_size, True, node="CoalesceBackward0")


def to_dense(s):
    """``Tensor.to_dense()``: the strided tensor (duplicates summed). Its gradient is sparse, with ``s``'s
    coalesced positions (PyTorch's ``ToDenseBackward0``)."""
    if not isinstance(s, SparseTensor):
        return s
    with grad_mode.no_grad():
        values = s._sp_values
        sparse_shape = tuple(s._sp_size[:s.sparse_dim()])
        flat = values.new_zeros((int(np.prod(sparse_shape)),) + tuple(values.shape[1:]))
        keys = _host(_linear_keys(s._sp_indices, s._sp_size), values)
        dense = flat.index_add(0, keys, values).reshape(tuple(s._sp_size))
    size = s._sp_size

    def backward(g):
        indices = coalesce(s.detach())._sp_indices
        return (gradient(sparse_from(indices, gather_at(g, indices, size), size)),)
    return sparse_node(dense, "ToDenseBackward0", (s,), backward)


def to_sparse(x, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse()``: the non-zero positions of a strided ``x`` over its first ``sparse_dim`` dims (all by
    default); a position is kept when any of its dense slice is non-zero."""
    _check_layout(layout)
    if isinstance(x, SparseTensor):
        return x.to_sparse(sparse_dim)
    ndim = x.ndim
    given_dim, sparse_dim = sparse_dim, ndim if sparse_dim is None else sparse_dim
    if not 0 <= sparse_dim <= ndim:
        raise RuntimeError(f"sparse_dim argument must be in [0, {ndim}] range, but {sparse_dim} is given")
    with grad_mode.no_grad():
        nonzero = x._backend.to_numpy(x.detach()._value) != 0
        if sparse_dim < ndim:
            nonzero = nonzero.reshape(nonzero.shape[:sparse_dim] + (-1,)).any(-1)
        idx = np.stack(np.nonzero(nonzero)).astype(np.int64).reshape(sparse_dim, -1)
    indices = _host(idx, x).to(_dtypes.int64)
    values = x[tuple(indices[i] for i in range(sparse_dim))] if sparse_dim else x.unsqueeze(0)
    out = from_parts(indices, values, x.shape, True)
    node = "ToSparseBackward1" if given_dim is None else "ToSparseBackward0"  # PyTorch's overloads
    return sparse_node(out, node, (x,), lambda g: (to_dense(g),))


def sparse_mask(x, mask):
    """``Tensor.sparse_mask``: ``x`` (strided) read at the stored positions of the sparse ``mask`` (duplicates too)."""
    if not isinstance(mask, SparseTensor):
        raise RuntimeError("sparse_mask expects mask to be sparse")
    if tuple(x.shape) != tuple(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(x.shape)} but mask "
                           f"has size {list(mask.shape)}")
    indices = mask._sp_indices
    return named(sparse_from(indices, gather_at(x, indices, mask.shape), mask.shape, mask._sp_coalesced),
                 "SparseMaskBackward0")


# --------------------------------------------------------------------------- ops on the values
def _permuted(s, order, node):
    """``s`` with its dims in ``order`` (sparse dims among themselves: rows of the indices; dense dims: the values')."""
    sparse_dim = s.sparse_dim()
    values = values_with_history(s)
    if order[sparse_dim:] != list(range(sparse_dim, s.ndim)):
        values = values.permute(0, *[d - sparse_dim + 1 for d in order[sparse_dim:]])
    kept = order[:sparse_dim] == list(range(sparse_dim))
    indices = s._sp_indices if kept else s._sp_indices[order[:sparse_dim]]
    return sparse_from(indices, values, [s.shape[d] for d in order], s._sp_coalesced and kept, node=node)


def map_values(s, fn, node, keep_uncoalesced=False):
    """``fn`` applied to ``s``'s values (after coalescing, unless the op is linear: ``keep_uncoalesced``)."""
    if not keep_uncoalesced:
        s = coalesce(s)
    return sparse_from(s._sp_indices, fn(values_with_history(s)), s._sp_size, s._sp_coalesced, node=node)


# The unary ops PyTorch runs on COO tensors (those that map zero to zero).
ZERO_PRESERVING = frozenset("""
    abs neg negative sin sinh tan tanh asin asinh atan atanh arcsin arcsinh arctan arctanh sqrt ceil floor round
    trunc fix sign sgn expm1 log1p relu frac erf erfinv deg2rad rad2deg square conj_physical positive signbit
    isnan isinf isposinf isneginf nan_to_num angle""".split())
# Ops that commute with summing duplicates: they keep an uncoalesced tensor as it is.
_LINEAR = frozenset(("neg", "negative", "to_dtype", "positive"))

_DENSE_FIRST = "{op}(sparse, dense) is not supported. Use {op}(dense, sparse) instead."


def _not_run(name):
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the 'SparseCPU' backend: xtensor's sparse COO tensors do "
        "not support this operator (call .to_dense() first).")


def dispatch(op, tensors, params):
    """An op-table op called with a sparse operand (``_dispatch.apply``'s layout hook)."""
    name = op.name
    if len(tensors) == 1 or name == "to_dtype":
        if name in ZERO_PRESERVING or name == "to_dtype":
            return map_values(tensors[0], lambda v: apply(op, (v,), params), op.node_cls.__name__,
                              keep_uncoalesced=name in _LINEAR)
        if name == "_sum" and not params[1]:  # (dims, keepdim, dtype); ``sum()`` spells its dims as a plain tuple
            from ._reductions import sparse_sum
            dims, _, dtype = params
            whole = getattr(dims, "overload", 0) == 0
            return sparse_sum(tensors[0], None if whole else dims, dtype=dtype, node="SumBackward1")
        raise _not_run(name.lstrip("_"))
    if name in ("add", "sub"):
        return _add(op, *tensors)
    if name == "mul":
        return _mul(op, *tensors)
    if name in ("div", "true_divide"):
        a, b = tensors
        if isinstance(b, SparseTensor) or (isinstance(b, Tensor) and b.ndim):
            shape = list(b.shape) if isinstance(b, Tensor) else []
            raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                               f"{shape} for divisor)")
        return map_values(a, lambda v: apply(op, (v, b), params), op.node_cls.__name__,
                          keep_uncoalesced=True)
    raise _not_run(name.lstrip("_"))


def _add(op, a, b):
    name = op.name
    if not isinstance(a, SparseTensor):  # dense + sparse: dense
        return apply(op, (a, to_dense(b)))
    if not isinstance(b, SparseTensor):
        if a.__dict__.get("_sp_gradient") and name == "add":  # the engine summing a gradient's parts
            return apply(op, (b, to_dense(a)))
        raise RuntimeError(_DENSE_FIRST.format(op=name))
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{name}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")
    if a.sparse_dim() != b.sparse_dim():
        raise RuntimeError(f"{name}: expected 'self' and 'other' to have same sparse dimensions, but got "
                           f"{a.sparse_dim()} and {b.sparse_dim()}")
    from .._variants import torch_functions
    cat = torch_functions["cat"]
    va, vb = values_with_history(a), values_with_history(b)
    vb = -vb if name == "sub" else vb
    ia, ib = a._sp_indices, b._sp_indices
    node, size = op.node_cls.__name__, a._sp_size
    if tuple(ia.shape) == tuple(ib.shape) and bool((ia == ib).all()):  # one pattern: PyTorch adds the values
        out = sparse_from(ia, va + vb, size, a._sp_coalesced, node=node)
    elif a._sp_coalesced and b._sp_coalesced:  # PyTorch merges two coalesced tensors into one
        out = sparse_from(*sum_duplicates(cat([ia, ib], 1), cat([va, vb]), size), size, True, node=node)
    else:
        out = sparse_from(cat([ia, ib], 1), cat([va, vb]), size, False, node=node)
    dtype = _dtypes.result_type(a, b)
    return out if out.dtype is dtype else out.to(dtype)


def _mul(op, a, b):
    """sparse * scalar, sparse * dense (the dense read at the stored positions), sparse * sparse (on the pattern of
    the operand storing fewer values, times the other's value there, zero where it stores none): PyTorch's."""
    node = op.node_cls.__name__
    if not isinstance(a, SparseTensor):
        a, b = b, a
    if not isinstance(b, Tensor) or (not isinstance(b, SparseTensor) and b.ndim == 0):
        return map_values(a, lambda v: apply(op, (v, b)), node, keep_uncoalesced=True)
    if isinstance(b, SparseTensor):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"mul: expected 'self' and 'other' to have same size, but {list(a.shape)} != "
                               f"{list(b.shape)}")
        if b._nnz() < a._nnz():
            a, b = b, a
        coalesced = a._sp_coalesced and b._sp_coalesced
    else:
        if tuple(b.shape) != tuple(a.shape):
            b = b.expand(tuple(a.shape))  # PyTorch broadcasts the dense operand to the sparse one's size
        coalesced = a._sp_coalesced
    indices, size = a._sp_indices, a._sp_size
    return sparse_from(indices, apply(op, (values_with_history(a), gather_at(b, indices, size))), size, coalesced,
                       node=node)


def _become(target, result):
    """An in-place op on a COO tensor: ``target`` takes ``result``'s indices, values (cast to its dtype) and history,
    refused as PyTorch refuses writes into a leaf that requires grad."""
    if _grad_state.enabled and target._requires_grad and target._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if result._dtype is not target._dtype:
        if not _dtypes.can_cast(result._dtype, target._dtype):
            raise RuntimeError(f"result type {result._dtype.scalar_name} can't be cast to the desired output type "
                               f"{target._dtype.scalar_name}")
        result = result.to(target._dtype)
    target._sp_indices, target._sp_values, target._sp_coalesced = \
        result._sp_indices, result._sp_values, result._sp_coalesced
    if result._grad_fn is not None:
        target._grad_fn, target._requires_grad = result._grad_fn, True
    return target


def _inplace(name):
    """``name_`` on a COO tensor: the out-of-place op, then ``_become``."""
    def inplace(self, *args, **kwargs):
        return _become(self, getattr(Tensor, name)(self, *args, **kwargs))
    inplace.__name__ = inplace.__qualname__ = name + "_"
    return inplace


for _name in ("mul", "div", "add", "sub", *sorted(ZERO_PRESERVING)):
    if hasattr(Tensor, _name + "_"):
        setattr(SparseTensor, _name + "_", _inplace(_name))
