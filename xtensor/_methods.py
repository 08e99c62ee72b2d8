"""Tensor methods that are not one op-table entry: autograd state, conversion, indexing,
``new_*`` factories, and the few torch functions that choose between entries (``max`` in its
three forms, ``reshape`` as a view or a copy). Each composes entries, so gradients come free.
"""
import collections
import math

import numpy as np

from . import _dtypes, _creation
from ._autograd import _RemovableHandle, view_grad_fn
from ._backend import available_backends, get_backend
from ._dispatch import apply, detached, history_alias, wrap
from ._index import basic_meta, normalize_index
from ._table import TABLE, renamed
from .ops.indexing import getitem_copy, getitem_view, index_put as index_put_op, masked_select as masked_select_op
from .ops.shapes import view_strides, _view_shape
from ._tensor import OVERLAP_ERROR, DataStorage, Storage, Tensor, ViewMeta, check_dim
from ._variants import (assign_inplace, check_inplace, refuse_overlap, spread_requires_grad, torch_functions,
                        with_numpy_names)
from . import autograd
from .autograd import grad_mode

_grad_state = grad_mode.state
_op = {name: entry.op for name, entry in TABLE.items()}

# --------------------------------------------------------------------------- return types
max_result = collections.namedtuple("max", ["values", "indices"])
min_result = collections.namedtuple("min", ["values", "indices"])
for _cls in (max_result, min_result):
    _cls.__module__ = "xtensor.return_types"
    _cls.__repr__ = lambda self: (f"xtensor.return_types.{type(self).__name__}(\nvalues={self.values!r},\n"
                                  f"indices={self.indices!r})")


def _extreme(kind):
    reduce_all, elementwise, by_dim, result = (
        ("amax", "maximum", "max_dim", max_result) if kind == "max" else ("amin", "minimum", "min_dim", min_result))

    def extreme(input, dim=None, keepdim=False, *, out=None, other=None):
        """``max(input)``, ``max(input, dim, keepdim)`` -> (values, indices), ``max(input, other)``."""
        if isinstance(dim, Tensor) or other is not None:
            return torch_functions[elementwise](input, other if other is not None else dim)
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            r = apply(_op[reduce_all], (input,), (tuple(range(input.ndim)), False))
            return renamed(r, f"{kind.capitalize()}Backward1")
        d = check_dim(dim, input.ndim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"{kind}(): Expected reduction dim {d} to have non-zero size.")
        values, indices = apply(_op[by_dim], (input,), (d, keepdim))
        return result(values, indices)
    extreme.__name__ = kind
    return with_numpy_names(extreme)


max = _extreme("max")
min = _extreme("min")


def reshape(input, *shape):
    """A view when the strides allow one (as PyTorch's reshape), otherwise a copy."""
    shape = _view_shape(shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape, input.numel())
    s, st, _ = input._meta()
    if view_strides(s, st, shape) is not None:
        r = apply(_op["view"], (input,), (shape,))
        return renamed(r, "ReshapeAliasBackward0") if not input.is_contiguous() else r  # PyTorch's _reshape_alias
    return apply(_op["_reshape_copy"], (input,), (shape,))


def flatten(input, start_dim=0, end_dim=-1):
    n = input.ndim
    if n == 0:
        return input.reshape(1)
    s, e = check_dim(start_dim, n), check_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = tuple(input.shape)
    merged = (math.prod(shape[s:e + 1]),)  # not -1: ambiguous when another dim is 0
    return reshape(input, shape[:s] + merged + shape[e + 1:]) if s != e else input


def narrow(input, dim, start, length):
    """``length`` elements from ``start`` (negative: from the end) along ``dim``, all inside, as PyTorch checks."""
    d = check_dim(dim, input.ndim)
    size = input.shape[d]
    start, length = int(start), int(length)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    r = input[(slice(None),) * d + (slice(start, start + length),)]
    return renamed(r, "SliceBackward0")  # PyTorch's narrow is a slice, even of the whole dimension


def select(input, dim, index):
    d = check_dim(dim, input.ndim)
    return input[(slice(None),) * d + (index,)]


def where(condition, input=None, other=None):
    """``where(condition)`` (= ``nonzero(condition, as_tuple=True)``) and ``where(condition, input, other)``
    with tensors or Python scalars on either side."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() expected both input and other, or neither")
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not {type(condition).__name__}")
    if condition.dtype is not _dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype.scalar_name}")
    if not isinstance(input, Tensor):
        input = condition.new_tensor(input, dtype=_dtypes.result_type(input, other))
    if not isinstance(other, Tensor):
        other = input.new_tensor(other, dtype=_dtypes.result_type(input, other))
    return torch_functions["where"](condition, input, other)


def nonzero(input, *, as_tuple=False):
    """Indices of the non-zero elements (read on the host: the result's shape depends on the values)."""
    values = np.asarray(input._backend.to_numpy(input._value))
    adapter = input._backend
    if as_tuple:
        return tuple(wrap(adapter.from_numpy(i.astype(np.int64)), adapter)
                     for i in np.nonzero(values.reshape(values.shape or (1,))))
    return wrap(adapter.from_numpy(np.argwhere(values).astype(np.int64)), adapter)


def argwhere(input):
    return nonzero(input)


def masked_select(input, mask):
    """``input[mask]`` after broadcasting the two (a 1-d copy)."""
    if not isinstance(mask, Tensor) or mask.dtype is not _dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if tuple(mask.shape) != tuple(input.shape):
        shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
        input, mask = input.expand(shape), mask.expand(shape)
    host_index, _ = normalize_index(mask, tuple(input.shape), input._backend)
    return apply(masked_select_op, (input,), (host_index, input._backend, mask))


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written (or, with ``accumulate``, added) at the advanced index ``indices``."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not {type(values).__name__}")
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{input.dtype.scalar_name} for the destination and {values.dtype.scalar_name} for the "
                           "source.")
    index = tuple(slice(None) if i is None else i for i in indices)
    host_index, _ = normalize_index(index, tuple(input.shape), input._backend)
    _check_values_fit(input, host_index, values)
    return index_put_host(input, host_index, values, accumulate, tuple(i for i in index if isinstance(i, Tensor)))


def _check_values_fit(input, host_index, values, basic=False):
    shape = _indexed_shape(input, host_index)
    if basic:
        _check_expands(values, shape)
        return
    given = tuple(values.shape)
    lead = len(given) - len(shape) if len(given) > len(shape) else 0  # dims beyond the result's: ones only
    if any(n != 1 for n in given[:lead]) or any(v not in (1, n) for v, n in zip(given[lead:][::-1], shape[::-1])):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}")


def _check_expands(values, shape):
    """``x[basic] = v`` is a copy into a view: ``v``, less its leading ones, must expand to the view's shape
    (PyTorch's expand errors)."""
    core = tuple(values.shape)
    while core and core[0] == 1:
        core = core[1:]
    if len(core) > len(shape):
        raise RuntimeError(f"expand({values.type()}{{{list(core)}}}, size={list(shape)}): the number of sizes "
                           f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(core)})")
    for i in range(1, len(core) + 1):
        if core[-i] not in (1, shape[-i]):
            raise RuntimeError(f"The expanded size of the tensor ({shape[-i]}) must match the existing size "
                               f"({core[-i]}) at non-singleton dimension {len(shape) - i}.  Target sizes: "
                               f"{list(shape)}.  Tensor sizes: {list(core)}")


def _indexed_shape(input, host_index):
    """The shape of ``input[host_index]`` (from a zero-strided host stand-in: no data touched)."""
    stand_in = np.broadcast_to(np.zeros((), np.int8), tuple(input.shape))
    return stand_in[tuple(np.zeros(i.shape, np.int64) if hasattr(i, "shape") and not isinstance(i, np.ndarray)
                          else i for i in host_index)].shape


def _refuse_index_put_overlap(self, index, value, accumulate=False):
    """PyTorch's index_put_ refuses a value sharing any memory with ``self`` -- unless it writes one value through a
    single bool mask, which it hands to masked_fill_ (no such check)."""
    masks = [i for i in (index if isinstance(index, (tuple, list)) else (index,)) if isinstance(i, Tensor)]
    if accumulate or value.numel() != 1 or len(masks) != 1 or masks[0].dtype not in (_dtypes.bool, _dtypes.uint8):
        refuse_overlap(self, (value,), ("full", "partial"))


def index_put_(self, indices, values, accumulate=False):
    check_inplace(self, values)
    _refuse_index_put_overlap(self, indices, values, accumulate)
    grad = _grad_state.enabled and (self._requires_grad or getattr(values, "_requires_grad", False))
    return assign_inplace(self, index_put(history_alias(self).clone() if grad else self, indices, values, accumulate))


def detach(self):
    d = detached(self)
    d._names = self._names
    return d


# --------------------------------------------------------------------------- Tensor methods
def _requires_grad_get(self):
    return self._requires_grad


def _requires_grad_set(self, value, dtype_error="only Tensors of floating point and complex dtype can require "
                                              "gradients"):
    if self._grad_fn is not None:
        if not value:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        return
    if value and self._dtype.kind not in "fc":
        raise RuntimeError(dtype_error)
    if value and self._inference and not _grad_state.inference:
        raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
    if self._base is None and "_storage" in self.__dict__:
        spread_requires_grad(self, bool(value))  # its views follow it
    else:
        self._requires_grad = bool(value)


def requires_grad_(self, requires_grad=True):
    _requires_grad_set(self, requires_grad, "only Tensors of floating point dtype can require gradients")
    return self


def _grad_fn_get(self):
    return self._grad_fn if self._base is None else view_grad_fn(self)


def _grad_get(self):
    if _grad_fn_get(self) is not None and not self._retains_grad and _grad_state.enabled:
        import warnings
        warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                      "attribute won't be populated during autograd.backward(). If you indeed want the gradient "
                      "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.", UserWarning,
                      stacklevel=2)
    return self._grad


def _grad_set(self, value):
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value.shape != self.shape:
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                               f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same "
                               "size")
        if value.dtype is not self.dtype:
            raise RuntimeError(f"attempting to assign a gradient with dtype '{value.dtype.name}' to a tensor with "
                               f"grad_dtype '{self.dtype.name}'. The gradient must match the tensor's dtype.")
    self._grad = value


def _data_get(self):
    """An alias over the same memory with a version counter of its own (see ``DataStorage``)."""
    d = detach(self)
    st = d._storage = DataStorage(d._storage)
    Storage.track(st, d)  # (in the owner's list already, as every detached alias)
    return d


def _data_set(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
    self._backend = value._backend
    self._arr, self._storage, self._view, self._dtype = value._arr, value._storage, value._view, value._dtype
    if not self._backend.mutable:
        self._storage.track(self)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self, hook):
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = _grad_fn_get(self)
    if fn is not None:
        return fn._add_pre_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = []
    self._hooks.append(hook)
    return _RemovableHandle(self._hooks, hook)


def retain_grad(self):
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = _grad_fn_get(self)
    if fn is None or self._retains_grad:
        return
    import weakref
    ref = weakref.ref(self)

    def store(grad):
        t = ref()
        if t is not None:
            if t._grad is None:
                t._grad = grad.detach().clone() if not _grad_state.enabled else grad
            else:
                t._grad = t._grad + grad
    self._retains_grad = fn._add_pre_hook(self._output_nr, store)  # the handle: writes move it (move_retained_grad)


def _is_leaf(self):
    return _grad_fn_get(self) is None


def is_inference(self):
    """Whether this tensor was made under ``inference_mode`` (it can never be saved for backward)."""
    return self._inference


# --------------------------------------------------------------------------- conversion
_TYPE_NAMES = {d: f"xtensor.{d.scalar_name}Tensor" for d in _dtypes.ALL_DTYPES}
_BY_TYPE_NAME = {**{v: k for k, v in _TYPE_NAMES.items()},
                 **{v.replace("xtensor.", "torch."): k for k, v in _TYPE_NAMES.items()}}


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to('jax')`` (a backend), ``to(other)``; ``copy=True`` forces a copy."""
    dtype, target_backend, copy = kwargs.pop("dtype", None), kwargs.pop("backend", None), kwargs.pop("copy", False)
    dev = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    for a in args:
        if isinstance(a, _dtypes.DType):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, target_backend = a.dtype, a._backend
        elif isinstance(a, str) and a.split(":")[0] not in ("cpu", "cuda", "xla", "mps", "meta"):
            target_backend = _backend_named(a)
        elif a is not None:
            dev = a
    out = self
    if target_backend is not None and get_backend(target_backend) is not self._backend:
        out = _to_backend(self, get_backend(target_backend))
    if dev is not None:
        out = _creation.to_device(out, dev)
    if dtype is not None and dtype is not out.dtype:
        out = apply(_op["to_dtype"], (out,), (dtype,))
    if copy and out is self:
        out = self.clone()
    return out


def _backend_named(name):
    """The backend a string names in ``to('jax')``; else PyTorch's error for a bad device string."""
    try:
        return get_backend(name)
    except ValueError:
        raise RuntimeError(f"Invalid device string: '{name}' (nor is it a backend: "
                           f"{', '.join(available_backends())})") from None


def _to_backend(self, adapter):
    """A copy of ``self`` on another backend, differentiable (the gradient travels back)."""
    out = wrap(adapter.from_numpy(np.asarray(self._backend.to_numpy(self._value))), adapter)
    if self._requires_grad and _grad_state.enabled:
        from ._dispatch import _record
        _record(_op["_to_backend"], out, (self, adapter), (self,))
    return out


def type_(self, dtype=None, non_blocking=False):
    """The legacy type name (``'xtensor.FloatTensor'``, ``'xtensor.cuda.FloatTensor'`` on a GPU), or a
    conversion to a dtype, a legacy type name or a typed constructor."""
    if dtype is None:
        name = _TYPE_NAMES[self._dtype]
        return name.replace("xtensor.", "xtensor.cuda.") if self.device.type == "cuda" else name
    if isinstance(dtype, str):
        try:
            dtype = _BY_TYPE_NAME[dtype]
        except KeyError:
            raise ValueError(f"invalid type: {dtype!r}") from None
    elif callable(dtype) and isinstance(getattr(dtype, "dtype", None), _dtypes.DType):  # FloatTensor & co.
        dtype = dtype.dtype
    return to(self, dtype)


def _caster(dtype):
    def cast(self, memory_format=None):
        return to(self, dtype)
    return cast


def cpu(self):
    return _creation.to_device(self, "cpu")


def cuda(self, device=None, non_blocking=False):
    """``self`` on a CUDA device of its backend (jax's GPUs), else PyTorch's error for a build without CUDA."""
    return _creation.to_device(self, "cuda" if device is None else device)


_FILL_PARAMETERS = {"uniform_": ("from", "to"), "normal_": ("mean", "std"), "exponential_": ("lambd",),
                    "bernoulli_": ("p",), "random_": ("from", "to")}  # PyTorch's keyword names


def _random_fill(kind, *defaults):
    names = _FILL_PARAMETERS[kind]

    def fill(self, *params, generator=None, **named):
        if kind == "random_" and len(params) == 1:
            params = (0, params[0])
        params = list(params + defaults[len(params):])
        for name, value in named.items():
            if name not in names:
                raise TypeError(f"{kind}() got an unexpected keyword argument '{name}'")
            params[names.index(name)] = value
        return copy_(self, _creation.fill_random(self, kind, *params, generator=generator))
    fill.__name__ = kind
    return fill


def contiguous(self, memory_format=None):
    return self if self.is_contiguous() else apply(_op["_contiguous"], (self,), (self._backend,))


# --------------------------------------------------------------------------- indexing
def getitem(self, index):
    host_index, basic = normalize_index(index, tuple(self.shape), self._backend, self._reverses)
    return _basic_view(self, host_index, index) if basic else apply(getitem_copy, (self,), (host_index, self._backend))


def getitem_host(self, host_index, basic=False):
    return apply(getitem_view if basic else getitem_copy, (self,), (host_index, self._backend))


def _basic_view(self, host_index, index):
    r = apply(getitem_view, (self,), (host_index, self._backend))
    return renamed(r, _view_node_name(index, tuple(self.shape))) if r._grad_fn is not None else r


def _view_node_name(index, shape):
    """PyTorch's node name for ``x[index]``, a basic index: the last view op its indexing applies. A lone slice
    always slices; inside a tuple, slices that keep the whole dimension are skipped; nothing applied is an
    alias."""
    if isinstance(index, slice):
        return "SliceBackward0"
    if not isinstance(index, tuple):
        index = (index,)
    name = "AliasBackward0"
    consumed = sum(1 for item in index if item is not None and item is not Ellipsis)
    dim = 0
    for item in index:
        if item is None:
            name = "UnsqueezeBackward0"
            continue
        if item is Ellipsis:
            dim += len(shape) - consumed
            continue
        if isinstance(item, slice):
            start, stop, step = (None if v is None else v.__index__() for v in (item.start, item.stop, item.step))
            if not (start in (None, 0) and step in (None, 1) and (stop is None or stop >= shape[dim])):
                name = "SliceBackward0"
        else:
            name = "SelectBackward0"
        dim += 1
    return name


def index_put_host(self, host_index, values, accumulate=False, indices=()):
    """``index_put`` at an index already made host-side; ``indices``: the caller's index tensors, which the node
    keeps and version-checks (PyTorch's IndexPutBackward0 saves them)."""
    if not isinstance(values, Tensor):
        values = self.new_tensor(values)
    return apply(index_put_op, (self, values), (host_index, self._backend, accumulate, indices))


def setitem(self, index, value):
    """``x[index] = value`` as PyTorch does it: with a basic index, the indexed view (``x`` itself when the index
    keeps everything) is written by ``copy_`` (``fill_`` for a 0-d value), otherwise ``x.index_put_``; so
    autograd sees a write through a view, or an IndexPut."""
    host_index, basic = normalize_index(index, tuple(self.shape), self._backend, self._reverses)
    if isinstance(value, Tensor):
        if value._backend is not self._backend:
            value = value.to(self._backend.name)
    else:
        value = self.new_tensor(value)
    _check_values_fit(self, host_index, value, basic)
    shared = value.__dict__.get("_storage")
    if value is self or shared is not None and shared.owner is self._storage.owner:  # ``x[...] = x.t()``, ``x[i] = x``
        if not basic:
            _refuse_index_put_overlap(self, index, value)
        elif value.ndim:  # (a 0-d value fills)
            target = _basic_view(self, host_index, index)
            if value.shape != target.shape:  # copied as PyTorch copies it: less its leading ones, expanded
                core = tuple(value.shape)
                while core and core[0] == 1:
                    core = core[1:]
                value = value.view(core).expand(target.shape)
            refuse_overlap(target, (value,))
    if _grad_state.enabled and (value._requires_grad or self._requires_grad):
        if basic:
            # every dimension kept whole (a lone full slice too, unlike in a read): x itself is written
            whole = _view_node_name(index if isinstance(index, tuple) else (index,), tuple(self.shape)) == \
                "AliasBackward0"
            target = self if whole else _basic_view(self, host_index, index)
            if value.ndim > target.ndim:  # leading ones the target lacks
                value = value.reshape(tuple(value.shape)[value.ndim - target.ndim:])
            if value.ndim == 0 and target.ndim:
                fill_(target, value)
            else:
                copy_(target, value)
        else:
            check_inplace(self, value)
            # PyTorch reads a 0-d index tensor here as a plain number (a select): only the others are kept
            indices = tuple(i for i in (index if isinstance(index, tuple) else (index,))
                            if isinstance(i, Tensor) and i.ndim)
            assign_inplace(self, index_put_host(history_alias(self).clone(), host_index, value, False, indices))
        return
    if basic and value.__dict__.get("_storage") is not None and value._storage is self.__dict__.get("_storage") and \
            value._meta() == basic_meta(*self._meta(), host_index):
        self._storage.version += 1  # ``x[i] = x[i]``, how ``x[i] += v`` ends: the memory holds it already
        return  # (even where the elements overlap: PyTorch's copy_ of the very same memory returns early)
    if self._view is not None and self._view.overlaps() and (
            not basic or ViewMeta.of(*basic_meta(*self._meta(), host_index)).overlaps()):
        raise RuntimeError(OVERLAP_ERROR)
    if not self._backend.mutable and any(hasattr(i, "shape") and not isinstance(i, np.ndarray) for i in host_index):
        self._write(apply(index_put_op, (self, value), (host_index, self._backend))._value)  # device index: traceable
        return
    self._write_at(host_index, value._value)


# --------------------------------------------------------------------------- new_* factories
def _new_factory(name):
    factory = getattr(_creation, name)

    def new(self, *args, dtype=None, device=None, requires_grad=False, **kwargs):
        return factory(*args, dtype=dtype or self._dtype, backend=self._backend, device=device,
                       requires_grad=requires_grad, **kwargs)
    new.__name__ = f"new_{name}"
    return new


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    if isinstance(data, Tensor):
        data = data.detach()
    return _creation.tensor(data, dtype=dtype or self._dtype, backend=self._backend, device=device,
                            requires_grad=requires_grad)


def new(self, *args):
    return _creation.legacy_tensor(*args, dtype=self._dtype, backend=self._backend)


def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = self.new_tensor(src)
    check_inplace(self, src)
    refuse_overlap(self, (src,))
    value = src.to(self._backend.name).expand(self.shape)
    result = apply(_op["to_dtype"], (value,), (self._dtype,)) if value.dtype is not self._dtype else value
    # from the very same memory (``x.copy_(x)``) nothing is written: PyTorch returns early, after autograd recorded
    # the copy, so an expanded ``x`` is no error
    shared = src.__dict__.get("_storage")
    same = src is self or shared is not None and shared.owner is self._storage.owner and \
        self._meta() == src._meta() and self._dtype is src._dtype
    return assign_inplace(self, result if result is not src else result.clone(), "CopyBackwards", same)


def fill_(self, value, _node_name=None):
    check_inplace(self, value)
    self._dtype.check_fits(value)
    if isinstance(value, Tensor) or (_grad_state.enabled and self._requires_grad):
        scalar = not isinstance(value, Tensor)
        name = _node_name or ("FillBackward2" if scalar else "FillBackward3")
        value = self.new_tensor(value) if scalar else value
        return assign_inplace(self, value.to(self._dtype).expand(self.shape).clone(), name, overlap_ok=scalar)
    # a scalar fill gives every element one value: PyTorch allows it into an expanded view
    self._write(self._backend.xp.full(tuple(self.shape), value, dtype=self._backend.native[self._dtype]), True)
    return self


def zero_(self):
    return fill_(self, 0, "ZeroBackward0")


def _view_as(self, other):
    return self.view(other.shape)


def _expand_as(self, other):
    return self.expand(other.shape)


def _reshape_as(self, other):
    return reshape(self, other.shape)


METHODS = {
    "requires_grad": property(_requires_grad_get, _requires_grad_set),
    "grad": property(_grad_get, _grad_set),
    "grad_fn": property(_grad_fn_get),
    "is_leaf": property(_is_leaf),
    "is_inference": is_inference,
    "output_nr": property(lambda self: self._output_nr),
    "retains_grad": property(lambda self: bool(self._retains_grad)),
    "data": property(_data_get, _data_set),
    "_base_tensor": property(lambda self: self._base),
    "T": property(lambda self: self.permute(tuple(reversed(range(self.ndim))))),
    "mT": property(lambda self: self.transpose(-2, -1)),
    "requires_grad_": requires_grad_,
    "backward": backward,
    "register_hook": register_hook,
    "retain_grad": retain_grad,
    "detach": detach,
    "to": to,
    "type": type_,
    "float": _caster(_dtypes.float32), "double": _caster(_dtypes.float64), "half": _caster(_dtypes.float16),
    "bfloat16": _caster(_dtypes.bfloat16),
    "long": _caster(_dtypes.int64), "int": _caster(_dtypes.int32), "short": _caster(_dtypes.int16),
    "char": _caster(_dtypes.int8), "byte": _caster(_dtypes.uint8), "bool": _caster(_dtypes.bool),
    "cpu": cpu, "cuda": cuda, "contiguous": contiguous,
    "__getitem__": getitem, "__setitem__": setitem, "getitem_host": getitem_host, "index_put_host": index_put_host,
    "new_tensor": new_tensor, "new": new, "new_zeros": _new_factory("zeros"), "new_ones": _new_factory("ones"),
    "new_empty": _new_factory("empty"), "new_full": _new_factory("full"),
    "copy_": copy_, "fill_": fill_, "zero_": zero_,
    "uniform_": _random_fill("uniform_", 0.0, 1.0), "normal_": _random_fill("normal_", 0.0, 1.0),
    "exponential_": _random_fill("exponential_", 1.0), "bernoulli_": _random_fill("bernoulli_", 0.5),
    "random_": _random_fill("random_", 0, 2 ** 24),
    "reshape": reshape, "flatten": flatten, "narrow": narrow, "select": select, "view_as": _view_as,
    "expand_as": _expand_as, "reshape_as": _reshape_as, "max": max, "min": min,
    "masked_select": masked_select, "nonzero": nonzero, "argwhere": argwhere, "index_put": index_put,
    "index_put_": index_put_,
    "where": lambda self, condition, other: where(condition, self, other),
}

FUNCTIONS = {"max": max, "min": min, "reshape": reshape, "flatten": flatten, "narrow": narrow, "select": select,
             "where": where, "nonzero": nonzero, "masked_select": masked_select, "detach": detach,
             "argwhere": argwhere, "index_put": index_put}


def install(cls):
    for name, value in METHODS.items():
        setattr(cls, name, value)
