"""The Tensor, its storage, and how views alias on every backend.

How a view is represented (the same on every backend, so PyTorch's aliasing contract holds on JAX):

* A ``Storage`` holds the *root array* (the array of the tensor that first owned the memory)
  and a version counter that every write bumps (autograd checks saved tensors against it).
* A tensor is either a root alias (``_view is None``: it reads ``storage.array``) or a view
  with PyTorch's strided metadata ``(shape, stride, offset)`` in elements over the flattened
  root (``ViewMeta``), and ``_base``, the root tensor. Every view op in the op table carries a
  metadata rule (``Op.view``: basic indexing, view, permute/transpose, expand, squeeze/unsqueeze,
  diagonal, unfold, as_strided; movedim, split, chunk, unbind, unflatten, narrow and select are
  written with those), so ``stride()``, ``storage_offset()``, ``data_ptr()`` and
  ``is_contiguous()`` agree across backends and with PyTorch. In-place view ops (``t_``,
  ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``) swap a tensor's metadata and
  cached value for the view's, keeping its identity and storage.
* ``_arr`` caches the tensor's value as a backend array. A view's first value comes from the
  backend's own op (a numpy view; a jax slice; for diagonal/unfold/as_strided off numpy, a gather
  at host positions), so reading an unmodified view costs what the backend's slice costs.

How a write reaches the base and the other views:

* Mutable backends (numpy) write into ``_arr`` itself: numpy views share memory, nothing else
  to do (numpy's read-only views -- diagonal, broadcast -- are written through a writable strided
  alias of the root). Nothing copies the base.
* Immutable backends (jax, array-API namespaces) write functionally: the new value is scattered
  into the flattened root at the view's storage positions (``adapter.scatter_flat``: one
  ``.at[].set`` on jax) -- or, for a view that is a box of the root (what basic slicing and integer
  indexing make, ``ViewMeta.box``) on an adapter with ``update_box``, written into that box (jax: one
  ``lax.dynamic_update_slice``) --, ``storage.array`` is replaced, and every other alias's cache is dropped;
  it re-reads lazily by a gather at its positions. One write is one functional update of the
  base, however many aliases exist. Positions are host integers derived from metadata only, so
  writes stay traceable under ``jax.jit`` (no value ever leaves the device). Replacing ``storage.array`` reads it
  first, so such writes (and the re-reads that cache a value a write may drop) hold ``_FUNCTIONAL_WRITES``: threads
  that fill disjoint parts of one tensor, as scikit-learn's threaded ``pairwise_distances`` does, each keep the
  others' writes, as on numpy.
* A view whose elements overlap (an expanded view) refuses writes with PyTorch's error.

How autograd sees it -- PyTorch's rules, on every backend:

* A view's autograd *base* is the tensor its chain of view ops started from (``_base``; a
  ``detach()``-ed alias is a base of its own). The storage tracks every alias weakly.
* A view requires grad when its base does. Views made while grad mode is on get a view node
  (``SelectBackward0``...) over the base's history at that time.
* Every write bumps the storage version. A view whose storage version moved since it took its node
  re-derives it on next use (``_dispatch.view_grad_fn``): an ``AsStridedBackward0`` over the base's
  *current* history -- so a view never carries history a write erased, nor misses a write's part.
* A write is recorded when grad mode is on and the target or a written value requires grad
  (``_inplace.assign_inplace``): the in-place op computes its out-of-place result and writes it; a
  base takes the result's node (renamed as PyTorch names in-place nodes: ``ZeroBackward0``,
  ``CopyBackwards``...); a view rewrites its base's history with a ``CopySlices`` node (the base's
  gradient with the view's positions routed through the result). Either way the base, and so every
  alias, requires grad from then on. A base that required grad and is overwritten by a constant keeps
  a zero-gradient history.
* Refused, as PyTorch refuses them (``_inplace.check_inplace``): a recorded write into a leaf that
  requires grad or a view of one; into a view made under no_grad/inference mode or one of several
  views one op returned (split/chunk/unbind), or any view of those -- these also refuse to re-derive
  their history after another alias was written. Saved tensors are checked against the storage
  version at backward time, so a write through any alias of a saved tensor is caught.
"""
import math
import threading
import weakref

import numpy as np

from . import _dtypes
from ._modes import grad_state as _grad_state

__all__ = ["Tensor", "Size", "device", "Storage", "DataStorage", "OVERLAP_ERROR", "PARTIAL_OVERLAP_ERROR",
           "overlap", "NotStrided"]

# Held while a write replaces a storage's array on an immutable backend (read the array, update, store it back) and
# while a re-read caches a value such a write invalidates: without it two threads writing disjoint parts of one
# tensor each store their update of the same old array, and one write is lost. Reentrant: a write may read a shape.
_FUNCTIONAL_WRITES = threading.RLock()


class NotStrided(NotImplementedError):
    """Raised when a strided value is read from a tensor of another layout (a sparse COO tensor): ``_dispatch.apply``
    catches it and hands the op to ``type(tensor).dispatch``, the layout's own implementation."""

    def __init__(self, tensor):
        super().__init__(f"this operation needs a strided tensor, and a {tensor.layout} tensor has no strided "
                         "memory: call .to_dense() first")
        self.tensor = tensor


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``xtensor.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"xtensor.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


class device:
    """A device in PyTorch's terms: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:0')``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, str) and ":" in type:
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        elif isinstance(type, int):
            type, index = "cuda", type
        if type not in ("cpu", "cuda", "xla", "mps", "meta"):
            raise RuntimeError(
                f"Expected one of cpu, cuda, xla, mps, meta device type at start of device string: {type}")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __enter__(self):
        """``with xtensor.device(d):`` factories inside the block default to ``d``."""
        default_devices.append(self)
        return self

    def __exit__(self, *exc):
        default_devices.pop()


# Where factories put a tensor when no ``device=`` says (``_creation._placed``): ``set_default_device``'s device, or
# the innermost ``with xtensor.device(...)`` block's (None: the backend's own default placement).
default_devices = [None]


class Storage:
    """Memory shared by a root tensor and all its aliases."""

    __slots__ = ("array", "version", "aliases", "_live", "__weakref__")

    def __init__(self, array):
        self.array = array
        self.version = 0
        self.aliases = None  # weakrefs of every alias made after the root (views, detached aliases)

    def track(self, tensor):
        """Remember an alias weakly: a write must reach it (its cached value on immutable backends, its
        ``requires_grad`` when the write makes the base require grad). Dead references are dropped
        whenever the list has doubled since the last sweep."""
        aliases = self.aliases
        if aliases is None:
            self.aliases = [weakref.ref(tensor)]
            self._live = 1
            return
        aliases.append(weakref.ref(tensor))
        if len(aliases) > 2 * self._live + 8:
            aliases[:] = [r for r in aliases if r() is not None]
            self._live = len(aliases)

    def live_aliases(self):
        for ref in self.aliases or ():
            t = ref()
            if t is not None:
                yield t

    owner = property(lambda self: self, doc="the Storage that holds the memory (itself; see DataStorage)")


class DataStorage(Storage):
    """The memory of ``owner`` under a version counter and an alias list of its own: what ``.data`` returns lives
    here, as PyTorch gives it a fresh version counter (autograd does not see its writes) over the same memory.
    Its aliases are tracked in ``owner`` too, so that a write anywhere reaches every cached value."""

    __slots__ = ("owner",)

    def __init__(self, owner):
        self.owner = owner.owner
        self.version = 0
        self.aliases = None

    array = property(lambda self: self.owner.array, lambda self, a: setattr(self.owner, "array", a))

    def track(self, tensor):
        Storage.track(self, tensor)
        self.owner.track(tensor)


PARTIAL_OVERLAP_ERROR = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                         "single memory location. Please clone() the tensor before performing the operation.")


def _dense(shape, stride):
    """PyTorch's is_non_overlapping_and_dense: in some order of its dims (of size 2 or more) the tensor is
    contiguous."""
    need = 1
    for k, n in sorted((k, n) for n, k in zip(shape, stride) if n >= 2):
        if k != need:
            return False
        need *= n
    return True


def overlap(a, b):
    """How ``a`` and ``b`` share memory, as PyTorch's ``get_overlap_status``: "full" (one tensor, or the same span with
    the same strides), "partial" (both dense, and the same span with other strides or spans that intersect) or None
    (no memory shared, or too hard to tell: a tensor not dense). Elementwise writes refuse "partial" -- the result
    would depend on the order of the loop --, index_put any."""
    if a is b:
        return "full"
    sa, sb = a.__dict__.get("_storage"), b.__dict__.get("_storage")
    if sa is None or sb is None or sa.owner is not sb.owner:
        return None
    (shape_a, stride_a, start_a), (shape_b, stride_b, start_b) = a._meta(), b._meta()
    size_a, size_b = a._dtype.itemsize, b._dtype.itemsize
    n_a, n_b = int(np.prod(shape_a)), int(np.prod(shape_b))
    if not (n_a and n_b and _dense(shape_a, stride_a) and _dense(shape_b, stride_b)):
        return None
    start_a, start_b = start_a * size_a, start_b * size_b
    end_a, end_b = start_a + n_a * size_a, start_b + n_b * size_b
    if (start_a, end_a) == (start_b, end_b):
        return "full" if tuple(stride_a) == tuple(stride_b) else "partial"
    return "partial" if start_a < end_b and start_b < end_a else None


OVERLAP_ERROR = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                 "location. Please clone() the tensor before performing the operation.")


def contiguous_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


class ViewMeta:
    """PyTorch strided metadata, in elements, over the flattened root array.

    Computed on first use from the parent's metadata and the view op's rule: on numpy most views
    are only read, so the integer arithmetic is skipped unless someone asks for it.
    """

    __slots__ = ("_pending", "_meta", "_positions", "_box")

    def __init__(self, parent, rule, params):
        self._pending = (parent, rule, params)  # one slot: threads resolving at once read all or nothing
        self._meta = None
        self._positions = None
        self._box = False  # not worked out yet

    @classmethod
    def of(cls, shape, stride, offset):
        meta = cls(None, None, None)
        meta._meta = (tuple(shape), tuple(stride), offset)
        meta._pending = None
        return meta

    def resolve(self):
        """``(shape, stride, offset)``."""
        meta = self._meta
        if meta is None:
            pending = self._pending
            if pending is None:  # another thread resolved it since
                return self._meta
            parent, rule, params = pending
            meta = self._meta = rule(*parent._meta(), *params)
            self._pending = None  # the parent was needed only for this
        return meta

    @property
    def shape(self):
        return self.resolve()[0]

    @property
    def stride(self):
        return self.resolve()[1]

    @property
    def offset(self):
        return self.resolve()[2]

    def positions(self):
        """Host int array (of this view's shape) of each element's index in the flattened root."""
        if self._positions is None:
            pos = np.full((), self.offset, dtype=np.int64)
            for axis, (n, st) in enumerate(zip(self.shape, self.stride)):
                ax = np.arange(n, dtype=np.int64) * st
                pos = pos[..., None] + ax if axis else pos + ax
            self._positions = np.broadcast_to(pos, self.shape)
        return self._positions

    def box(self, root_shape):
        """``(starts, box_shape)`` when this view is a box of a C-ordered root of ``root_shape`` (each of its
        dims a unit-step run along one root dim, in the root's order: what basic slicing and integer
        indexing make), so that the view's elements in C order are the box's; None otherwise."""
        if self._box is False:
            self._box = _box_of(*self.resolve(), tuple(root_shape))
        return self._box

    def index_in(self, tensor):
        """This view's elements as an advanced index into ``tensor``, an alias of the same storage that holds
        them all (the view's autograd base): where the view's gradient lands in the base's."""
        if not tensor.shape:
            return ()
        flat = elements_at(tensor, self.positions())
        return tuple(np.asarray(i) for i in np.unravel_index(flat, tuple(tensor.shape)))

    def overlaps(self):
        """True when two elements share one memory location (an expanded view that is not empty)."""
        shape = self.shape
        return 0 not in shape and any(st == 0 and n > 1 for n, st in zip(shape, self.stride))


def _box_of(shape, stride, offset, root_shape):
    root_strides = contiguous_strides(root_shape)
    starts = [(offset // s) % n if n else 0 for n, s in zip(root_shape, root_strides)]
    if 0 in shape or sum(a * s for a, s in zip(starts, root_strides)) != offset:
        return None
    box, d = [1] * len(root_shape), 0
    for n, st in zip(shape, stride):
        if n == 1:
            continue
        while d < len(root_shape) and (root_strides[d] != st or root_shape[d] == 1):
            d += 1
        if d == len(root_shape) or starts[d] + n > root_shape[d]:
            return None
        box[d] = n
        d += 1
    return tuple(starts), tuple(box)


def basic_meta(shape, stride, offset, index):
    """Strided metadata of ``x[index]`` for a basic (view) index."""
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    new_shape, new_stride = [], []
    dim = 0
    for item in index:
        if item is Ellipsis:
            for _ in range(len(shape) - n_real):
                new_shape.append(shape[dim])
                new_stride.append(stride[dim])
                dim += 1
        elif item is None:
            new_shape.append(1)
            new_stride.append(stride[dim] * shape[dim] if dim < len(shape) else 1)
        elif isinstance(item, int):
            offset += (item % shape[dim]) * stride[dim]
            dim += 1
        else:
            start, stop, step = item.indices(shape[dim])
            length = max(0, math.ceil((stop - start) / step))
            offset += start * stride[dim]  # also for an empty slice, as PyTorch
            new_shape.append(length)
            new_stride.append(stride[dim] * step)
            dim += 1
    new_shape.extend(shape[dim:])
    new_stride.extend(stride[dim:])
    return tuple(new_shape), tuple(new_stride), offset


def _basic_box(tensor, index, root_shape):
    """``(starts, box_shape, shape)`` of ``tensor[index]`` when ``index`` is basic and selects a box of the root
    (see ``ViewMeta.box``; ``shape``: the indexed region's own shape); None otherwise."""
    if not all(i is None or i is Ellipsis or type(i) in (int, slice) for i in index):
        return None
    meta = basic_meta(*tensor._meta(), index)
    box = _box_of(*meta, tuple(root_shape))
    return None if box is None else (*box, meta[0])


def elements_at(tensor, positions):
    """For storage ``positions`` (host ints), the C-order index of the element of ``tensor`` at each; None when
    some position is not one of ``tensor``'s elements."""
    shape, stride, offset = tensor._meta()
    if offset == 0 and stride == contiguous_strides(shape):
        return positions
    held = ViewMeta.of(shape, stride, offset).positions().reshape(-1)
    order = np.argsort(held, kind="stable")
    found = np.minimum(np.searchsorted(held[order], positions), max(held.size - 1, 0))
    if positions.size and (held.size == 0 or (held[order][found] != positions).any()):
        return None
    return order[found].reshape(positions.shape)


def _strided_refusal(name):
    """A COO accessor PyTorch has no strided kernel for (``_indices``, ``_values``, ``_nnz``), refused as PyTorch."""
    def refuse(self):
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'CPU' backend.")
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


class Tensor:
    """An n-dimensional array on a backend, with PyTorch's API and autograd."""

    # The attributes every op touches live in slots; rarely set ones default at class level and
    # land in the instance dict only when set, so making a result tensor costs five stores.
    __slots__ = ("_arr", "_backend", "_dtype", "_requires_grad", "_grad_fn", "__dict__", "__weakref__")
    _view = None  # ViewMeta of a view; None for a root alias
    _base = None  # the root tensor a view was made from
    _output_nr = 0
    _grad = None
    _grad_acc = None  # the leaf's AccumulateGrad node
    _hooks = None
    _post_accumulate_hooks = None  # hooks run with a leaf after its .grad was accumulated
    _retains_grad = False
    _inference = False  # made under inference_mode: may never be saved for backward
    _names = None
    _creation = None  # why in-place writes into this view are refused: (kind,) -- see view_rebase_error
    _attr_version = 0  # the storage version when this view's grad_fn was last derived from its base
    is_sparse = False  # (xtensor.sparse.SparseTensor: True)
    _reverses = False  # ``x[::-1]``: PyTorch's ValueError; the array API's tensors reverse (xtensor.array_api)
    __array_priority__ = 1000  # numpy defers to our reflected operators

    # ------------------------------------------------------------------------ storage
    def __getattr__(self, name):
        if name == "_storage":  # made on first need: most results are never aliased or written
            if isinstance(self._arr, np.generic):  # numpy's 0-d results are immutable scalars: hold an array
                self._arr = np.array(self._arr)
            st = self.__dict__["_storage"] = Storage(self._arr)
            return st
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")

    def _refresh(self):
        """Re-read this tensor's value from storage after another alias wrote it."""
        st = self._storage
        view = self._view
        with _FUNCTIONAL_WRITES:
            if view is None:
                arr = st.array
            else:
                xp = self._backend.xp
                flat = xp.reshape(st.array, (-1,))
                pos = view.positions()
                arr = xp.reshape(xp.take(flat, xp.asarray(pos.reshape(-1)), axis=0), view.shape)
            self._arr = arr
        return arr

    @property
    def _value(self):
        a = self._arr
        return a if a is not None else self._refresh()

    def _meta(self):
        """``(shape, stride, offset)`` of this tensor over its storage."""
        if self._view is not None:
            return self._view.resolve()
        arr = self._storage.array
        shape = tuple(arr.shape)
        if self._backend.mutable and isinstance(arr, np.ndarray) and not arr.flags.c_contiguous:
            return shape, tuple(s // arr.itemsize for s in arr.strides), 0
        return shape, contiguous_strides(shape), 0

    def _write(self, value, overlap_ok=False):
        """Replace this tensor's whole value by backend array ``value`` (same shape, any dtype). Elements that
        share memory (an expanded view) refuse it, unless ``overlap_ok`` (every element gets one value: fill_)."""
        if not overlap_ok and self._view is not None and self._view.overlaps():
            raise RuntimeError(OVERLAP_ERROR)
        backend = self._backend
        xp = backend.xp
        native = backend.native[self._dtype]
        if value.dtype != native:
            value = xp.astype(value, native)
        st = self._storage
        if backend.mutable:
            self._mutable_target()[...] = value
            st.version += 1
            return
        if tuple(value.shape) != tuple(self.shape):
            value = xp.broadcast_to(value, tuple(self.shape))
        if self._view is None:
            self._store_root(value)
            return
        update_box = getattr(backend, "update_box", None)
        with _FUNCTIONAL_WRITES:
            box = self._view.box(st.array.shape) if update_box is not None else None
            if box is not None:  # a slice of the base: one update of that box, no positions
                st.array = update_box(st.array, box[0], xp.reshape(value, box[1]))
            else:
                flat = xp.reshape(st.array, (-1,))
                new = backend.scatter_flat(flat, self._view.positions().reshape(-1), xp.reshape(value, (-1,)))
                st.array = xp.reshape(new, st.array.shape)
            self._invalidate_aliases()
            self._arr = value
            st.version += 1

    def _store_root(self, value):
        """A root tensor's whole value replaced, on an immutable backend, by ``value``: an array already of its dtype
        and shape, which the storage takes as it is (also the fused optimizer step's write-back)."""
        st = self._storage
        with _FUNCTIONAL_WRITES:
            st.array = value
            if st.owner.aliases:
                self._invalidate_aliases()
            self._arr = value
            st.version += 1

    def _write_at(self, index, value):
        """``self[index] = value`` for a host-normalized ``index`` (basic or advanced)."""
        backend = self._backend
        st = self._storage
        if backend.mutable:
            self._mutable_target()[index] = value
            st.version += 1
            return
        xp = backend.xp
        native = backend.native[self._dtype]
        if value.dtype != native:
            value = xp.astype(value, native)
        with _FUNCTIONAL_WRITES:
            box = _basic_box(self, index, st.array.shape) if hasattr(backend, "update_box") else None
            if box is not None:  # a slice of the base: one update of that box
                st.array = backend.update_box(st.array, box[0], xp.reshape(xp.broadcast_to(value, box[2]), box[1]))
            else:
                meta_pos = self._view.positions() if self._view is not None else \
                    np.arange(int(np.prod(self.shape)), dtype=np.int64).reshape(tuple(self.shape))
                pos = meta_pos[index]
                value = xp.reshape(xp.broadcast_to(value, pos.shape), (-1,))
                flat = xp.reshape(st.array, (-1,))
                st.array = xp.reshape(backend.scatter_flat(flat, pos.reshape(-1), value), st.array.shape)
            self._invalidate_aliases()
            self._arr = None
            st.version += 1

    def _mutable_target(self):
        """This tensor's array, writable (numpy hands out broadcast views read-only)."""
        a = self._value
        if a.flags.writeable:
            return a
        return self._backend.writable_view(self._storage.array, *self._meta())

    def _invalidate_aliases(self):
        for t in self._storage.owner.live_aliases():
            if t is not self:
                t._arr = None

    def _set_storage(self, arr):
        """Point this tensor at fresh memory holding ``arr`` (resize, ``.data =``, ``set_``)."""
        self._arr = arr
        self._storage = Storage(arr)
        self.__dict__.pop("_view", None)
        self.__dict__.pop("_base", None)
        self._dtype = self._backend.dtype_of(arr)

    # ------------------------------------------------------------------------ metadata
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        a = self._arr
        return Size(a.shape if a is not None else self._refresh().shape)

    @property
    def ndim(self):
        a = self._arr
        return len(a.shape if a is not None else self._refresh().shape)

    def dim(self):
        return self.ndim

    ndimension = dim

    def numel(self):
        return self.shape.numel()

    nelement = numel

    @property
    def size(self):
        """An int (the array API's ``x.size``) that is also callable (PyTorch's ``x.size(dim)``)."""
        return _SizeAttr(self.shape)

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    @property
    def backend(self):
        """The name of the backend this tensor's array lives on."""
        return self._backend.name

    @property
    def device(self):
        kind, index = self._backend.device_of(self._value)
        return device(kind, index)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_mps(self):  # torchmetrics and Lightning read it on every tensor they meet
        return self.device.type == "mps"

    def get_device(self):
        d = self.device
        return -1 if d.type == "cpu" else d.index

    def stride(self, dim=None):
        st = self._meta()[1]
        if dim is None:
            return st
        return st[check_dim(dim, len(st))]

    def storage_offset(self):
        return self._meta()[2]

    def is_contiguous(self, memory_format=None):
        shape, stride, _ = self._meta()
        if 0 in shape:  # an empty tensor is contiguous whatever its strides, as in PyTorch
            return True
        expected = 1
        for n, st in zip(reversed(shape), reversed(stride)):
            if n == 0:
                return True
            if n != 1 and st != expected:
                return False
            expected *= n
        return True

    def element_size(self):
        return self._dtype.itemsize

    def data_ptr(self):
        """Address of the first element: the real one on numpy, a stable synthetic one elsewhere."""
        root = self._storage.array
        if isinstance(root, np.ndarray):
            base = root.__array_interface__["data"][0]
        else:
            base = (id(self._storage.owner) & 0xFFFFFFFFFFF) << 4
        return base + self._meta()[2] * self._dtype.itemsize

    def untyped_storage(self):
        return _StorageView(self)

    storage = untyped_storage

    def is_floating_point(self):
        return self._dtype.kind == "f"

    def is_complex(self):
        return self._dtype.kind == "c"

    @property
    def names(self):
        return self._names if self._names is not None else (None,) * self.ndim

    # ------------------------------------------------------------------------ conversion
    def numpy(self, *, force=False):
        if self._requires_grad and _grad_state.enabled and not force:  # as PyTorch: under no_grad it may
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._backend.to_numpy(self._value)

    def __array__(self, dtype=None, copy=None):
        """NumPy's conversion (``np.asarray``, ``np.array``; NumPy 2's ``copy=`` protocol). As PyTorch's, a tensor
        that requires grad must be detached first, and on numpy the array shares the tensor's memory. On an
        immutable backend (jax), whose buffer NumPy may only read, ``copy=None`` gives a writable copy -- what NumPy
        code writing into its input (scikit-learn's Cython) needs -- and ``copy=False`` the read-only buffer."""
        a = np.asarray(self.numpy())
        if copy is False:
            if dtype is not None and np.dtype(dtype) != a.dtype:
                raise ValueError(f"Unable to avoid copy while creating an array as requested: casting {self.dtype} "
                                 f"to {np.dtype(dtype)} needs a copy")
            return a
        if copy or not self._backend.mutable:
            return np.array(a, dtype=dtype, copy=True)
        return a if dtype is None else a.astype(dtype, copy=False)

    def tolist(self):
        return self._backend.to_numpy(self._value).tolist()

    def item(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._backend.to_numpy(self._value).reshape(()).item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.kind not in "iub" or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no' if n == 0 else 'more than one'} "
                               "values is ambiguous")
        return bool(self.item())

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export with the 2023.12 negotiation (``max_version``, ``dl_device``, ``copy``); never of a tensor
        that requires grad (the consumer would silently drop the graph)."""
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        kwargs = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device), ("copy", copy))
                  if v is not None}
        return self._backend.to_dlpack(self._value, stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    def to_device(self, device, /, *, stream=None):
        """The array API's ``to_device``: ``self`` when already there, else a copy on ``device``."""
        return self if device == self.device else self.to(device)

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    # ------------------------------------------------------------------------ layouts (xtensor.sparse)
    def to_dense(self, dtype=None, *, masked_grad=None):
        return self if dtype is None else self.to(dtype)

    def to_sparse_coo(self):
        return self.to_sparse()

    def sparse_dim(self):
        return 0

    def dense_dim(self):
        return self.ndim

    def coalesce(self):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")

    def is_coalesced(self):
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")

    def indices(self):
        raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

    def values(self):
        raise RuntimeError("values expected sparse tensor layout but got Strided")

    _indices, _values, _nnz = (_strided_refusal(name) for name in ("_indices", "_values", "_nnz"))

    # ------------------------------------------------------------------------ printing
    def __repr__(self, *, tensor_contents=None):
        from ._printing import dtype_shown, format_tensor
        values = self._backend.to_numpy(self._value)
        suffixes = []
        d = self._dtype
        if d.kind == "u" and d is not _dtypes.uint8:
            values = values.astype(np.int64)
        default = _dtypes.get_default_dtype().name
        if self.device.type != "cpu":
            suffixes.append(f"device='{self.device}'")
        dtype_suffix = f"xtensor.{d.name}" if dtype_shown(d.name, default, values.size == 0) else None
        grad_fn = self.grad_fn
        if grad_fn is not None:
            suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        if self._names is not None:
            suffixes.append(f"names={self._names}")
        return format_tensor(values, dtype_suffix=dtype_suffix, suffixes=suffixes)

    __str__ = __repr__

    def __format__(self, spec):
        """As PyTorch: a 0-d tensor formats as its number (``f"{loss}"`` is ``17.0``, ``f"{loss:.3f}"``); any
        other formats as ``str`` and refuses a format spec."""
        if self.ndim == 0:
            return format(self.detach().item(), spec)
        return object.__format__(self, spec)


class _SizeAttr(int):
    """``Tensor.size``: equals the element count as an int and, called, returns the shape."""

    def __new__(cls, shape):
        self = int.__new__(cls, shape.numel())
        self._shape = shape
        return self

    def __call__(self, dim=None):
        if dim is None:
            return self._shape
        return self._shape[check_dim(dim, len(self._shape))]


class _StorageView:
    """What ``storage()`` returns: identifies the shared memory (equal for all aliases)."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def data_ptr(self):
        t = self._tensor
        return t.data_ptr() - t.storage_offset() * t.element_size()

    def __eq__(self, other):
        return isinstance(other, _StorageView) and other._tensor._storage.owner is self._tensor._storage.owner

    def __hash__(self):
        return id(self._tensor._storage.owner)

    def __len__(self):
        return int(np.prod(self._tensor._storage.array.shape))

    def size(self):
        return len(self)

    def tolist(self):
        t = self._tensor
        return t._backend.to_numpy(t._storage.array).reshape(-1).tolist()

    def __repr__(self):
        t = self._tensor
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[xtensor.storage.TypedStorage(dtype={t.dtype}, device={t.device}) of size {len(self)}]"


def check_dim(dim, ndim):
    """``dim`` of a tensor of ``ndim`` dimensions, normalized to ``0..ndim-1`` (a 0-d tensor takes 0 and -1), or
    PyTorch's IndexError: the one "Dimension out of range" check."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n
