"""Tensor methods that are not one op-table entry: autograd state, conversion, ``new_*`` factories, the
attributes, predicates, random fills and resizes PyTorch users meet (``itemsize``, ``is_signed``, ``cauchy_``,
``resize_``...), and the few torch functions that choose between entries (``max`` in its three forms, ``reshape``
as a view or a copy) or are methods under another name (``concat``, ``rsub``, ``fill``...). Each composes
entries, so gradients come free. ``install`` puts them, and indexing's (``_index``), on ``Tensor``.

xtensor has no lazy conjugate or negative bits: ``conj()`` computes, so ``is_conj``/``is_neg`` are always
False and ``resolve_conj``/``resolve_neg`` return the tensor itself, as PyTorch does for a tensor without
those bits.
"""
import builtins
import collections
import math
import warnings

import numpy as np

from . import _dtypes, _creation, _index
from ._autograd import _RemovableHandle
from ._backend import available_backends, get_backend
from ._dispatch import apply, detached, unbroadcast, view_grad_fn, whole_reduction, wrap
from ._layout import strided
from ._modes import grad_state as _grad_state
from ._table import TABLE, renamed
from .ops.reductions import bucketize
from .ops.shapes import torch_broadcast_shapes, tril_indices, triu_indices, view_strides, _view_shape
from ._tensor import DataStorage, Storage, Tensor, _StorageView, check_dim
from ._inplace import assign_inplace, check_inplace, refuse_overlap, spread_requires_grad
from ._variants import _make_inplace, torch_functions, with_numpy_names
from . import autograd

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
    reduce_all, node = _op[reduce_all], f"{kind.capitalize()}Backward1"

    def every_element_generic(input):
        if input.numel() == 0:
            raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        return renamed(apply(reduce_all, (input,), (tuple(range(input.ndim)), False)), node)
    every_element = whole_reduction(reduce_all, every_element_generic, node)

    def extreme(input, dim=None, keepdim=False, *, out=None, other=None):
        """``max(input)``, ``max(input, dim, keepdim)`` -> (values, indices), ``max(input, other)``."""
        if isinstance(dim, Tensor) or other is not None:
            return torch_functions[elementwise](input, other if other is not None else dim)
        if dim is None:
            return every_element(input)
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
def _legacy_new(cls, *args, **kwargs):
    """``Tensor(*sizes)`` / ``Tensor(data)``: PyTorch's legacy constructor (results are built with
    ``object.__new__`` and never come through here)."""
    return _creation.legacy_tensor(*args, **kwargs)


def _array_wrap(self, array, context=None, return_scalar=False):
    """A NumPy ufunc's result on tensors comes back as a tensor, as PyTorch's ``__array_wrap__`` gives it
    (``np.sin(t)`` is a tensor; bools become uint8, as PyTorch's do): a host tensor over the result. Like
    PyTorch, no ``__array_ufunc__``/``__array_function__``: other NumPy functions (``np.concatenate``) see the
    tensors as arrays through ``__array__`` and return NumPy arrays."""
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return _creation.from_numpy(np.asarray(array))


def _reduce_ex(self, protocol):
    return (_creation._rebuild, (self._backend.name, np.asarray(self.detach()), self.requires_grad))


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


# --------------------------------------------------------------------------- attributes, predicates, fills and resizes
def _itemsize(self):
    return self._dtype.itemsize


def _nbytes(self):
    return self.numel() * self._dtype.itemsize


def type_as(self, other):
    """``self`` in ``other``'s dtype (itself when it already is)."""
    return self.to(other.dtype)


def detach_(self):
    """Detach in place: ``self`` leaves the graph and stops requiring grad (refused for views of a graph)."""
    if self._base is not None and self._requires_grad:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    self._grad_fn = None
    self._requires_grad = False
    if self.__dict__.get("_output_nr"):
        self._output_nr = 0
    return self


def is_signed(self):
    """Whether the dtype holds negative values (signed integers, floats, complex)."""
    return self._dtype.kind in "ifc"


def is_nonzero(self):
    """The truth of a one-element tensor."""
    n = self.numel()
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if n == 0 else
                           "Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item() != 0)


def is_same_size(self, other):
    return tuple(self.shape) == tuple(other.shape)


def _identity(self):
    return self


def _never(self):
    return False


def adjoint(self):
    """The conjugate transpose of the last two dims (a view for real tensors)."""
    t = self.transpose(-2, -1)
    return t.conj() if self._dtype.kind == "c" else t


def sum_to_size(self, *size):
    """Summed down to ``size``, which ``self`` must be expandable from (the inverse of ``expand``)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    extra = self.ndim - len(shape)
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, tuple(self.shape)[extra:])):
        raise RuntimeError(f"size {{{', '.join(map(str, shape))}}} is not expandable to size "
                           f"{{{', '.join(map(str, self.shape))}}}.")
    return unbroadcast(self, shape)


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (by decreasing stride; ties keep their order)."""
    stride = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -stride[d]))


def narrow_copy(self, dim, start, length):
    return self.narrow(dim, start, length).clone()


def _transformed_fill(name, draw, transform):
    """An in-place random fill made from standard uniform or normal draws (``draw``) by ``transform``."""
    def fill(self, *params, generator=None, **named):  # PyTorch's keywords are the transform's (median=, std=...)
        values = _creation.fill_random(self.detach().to(_dtypes.float64), draw, 0.0, 1.0, generator=generator)
        return self.copy_(transform(values, *params, **named))
    fill.__name__ = name
    return fill


def _cauchy(u, median=0.0, sigma=1.0):
    return median + sigma * ((u - 0.5) * math.pi).tan()


def _log_normal(z, mean=1.0, std=2.0):
    return (mean + std * z).exp()


def _geometric(u, p):
    if not 0 < p <= 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1], but got p={p}")
    return ((-u).log1p() / math.log1p(-p)).ceil().clamp(min=1) if p < 1 else u * 0 + 1


def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal (all dims of equal size beyond 2-d); a tall matrix with
    ``wrap=True`` starts the diagonal again every ``columns + 1`` rows, as NumPy's ``fill_diagonal``."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = builtins.min(self.shape)
    rows = list(range(n))
    if self.ndim == 2 and wrap and self.shape[0] > self.shape[1] + 1:
        step = self.shape[1] + 1
        rows = [r for r in range(0, self.shape[0]) if r % step < self.shape[1]]
        cols = [r % step for r in rows]
    else:
        cols = rows
    index_rows = _creation.tensor(rows, dtype=_dtypes.int64, backend=self._backend)
    index_cols = _creation.tensor(cols, dtype=_dtypes.int64, backend=self._backend)
    index = (index_rows, index_cols) if self.ndim == 2 else (index_rows,) * self.ndim
    self[index] = fill_value
    return self


def _host_map(name, arity):
    """``apply_``/``map_``/``map2_``: a Python callable applied element by element on the host (PyTorch: CPU
    tensors only; here any backend), the results written back in ``self``'s dtype."""
    def mapped(self, *args):
        others, fn = args[:arity], args[arity]
        values = [np.asarray(t.detach().numpy()) for t in (self, *(o.expand(self.shape) for o in others))]
        out = np.vectorize(fn, otypes=[values[0].dtype])(*values) if values[0].size else values[0]
        return self.copy_(_creation.tensor(out, dtype=self.dtype, backend=self._backend))
    mapped.__name__ = name
    return mapped


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    return _creation.empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad,
                                   backend=self._backend)


def _method_of(function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    method.__name__ = function.__name__
    return method


def float_power_(self, exponent):
    """In place, so ``self`` must already be double (complex double) as the result is."""
    result = self.float_power(exponent)
    if result.dtype is not self.dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.scalar_name} but the operation's "
                           f"result requires dtype {result.dtype.scalar_name}")
    return _make_inplace(lambda t, e: t.float_power(e), "float_power")(self, exponent)


def _resize_(self, *size):
    """Resize in place: keeps the first elements (in row-major order) that fit, zeros after them."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    n = int(np.prod(shape))
    flat = self.reshape(-1)
    if n <= flat.shape[0]:
        flat = flat[:n]
    else:
        flat = torch_functions["cat"]([flat, flat.new_zeros(n - flat.shape[0])])
    self._set_storage(flat.reshape(shape).clone()._value)
    return self


def _resize(self, *size):
    """Deprecated in PyTorch (and warned about): a reshape to a size of the same number of elements."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    if int(np.prod(shape)) != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, shape))} ({int(np.prod(shape))} elements in "
                           f"total), but the given tensor has a size of {'x'.join(map(str, self.shape))} "
                           f"({self.numel()} elements). autograd's resize can only change the shape of a given "
                           f"tensor, while preserving the number of elements.")
    return self.reshape(shape)


def register_post_accumulate_grad_hook(self, hook):
    """``hook(leaf)`` runs after each accumulation into this leaf's ``.grad`` (optimizers fuse steps with it)."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if self._post_accumulate_hooks is None:
        self._post_accumulate_hooks = []
    self._post_accumulate_hooks.append(hook)
    return _RemovableHandle(self._post_accumulate_hooks, hook)


# --------------------------------------------------------------------------- torch functions that are methods (or other functions) of another name
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return torch_functions["sub"](other, input, alpha=alpha) if isinstance(other, Tensor) else \
        (-alpha) * input + other


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive elements (along ``dim``, or of the flattened tensor) kept once."""
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = check_dim(dim, input.ndim)
        x = input
    n = x.shape[d] if x.ndim else 1
    keep = np.ones(builtins.min(n, 1), dtype=bool)
    if n > 1:
        moved = x.movedim(d, 0).reshape(n, -1)
        keep = np.concatenate([keep, (moved[1:] != moved[:-1]).any(1).numpy()])
    change = np.flatnonzero(keep)
    picked = _creation.tensor(change.astype(np.int64), dtype=_dtypes.int64, backend=x._backend)
    out = [torch_functions["index_select"](x, d, picked)]
    if return_inverse:
        inverse = _creation.tensor((np.cumsum(keep) - 1).astype(np.int64), backend=input._backend)
        out.append(inverse.reshape(input.shape) if dim is None else inverse)
    if return_counts:
        counts = np.diff(np.concatenate([change, [n]])).astype(np.int64)
        out.append(_creation.tensor(counts, dtype=_dtypes.int64, backend=input._backend))
    return out[0] if len(out) == 1 else tuple(out)


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero()`` cut or padded (with ``fill_value``) to ``size`` rows: a fixed shape."""
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size]
    pad = found.new_full((size - found.shape[0], input.ndim), fill_value)
    return torch_functions["cat"]([found, pad], 0)


def typename(obj):
    """``'xtensor.FloatTensor'`` for a tensor, else the object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = "" if cls.__module__ in ("builtins", "__builtin__") else cls.__module__ + "."
    return module + cls.__qualname__


def is_storage(obj):
    return isinstance(obj, _StorageView)


def _function_of(method_name):
    def function(input, *args, **kwargs):
        return getattr(input, method_name)(*args, **kwargs)
    function.__name__ = method_name
    return function


def fill(input, value):
    """A copy of ``input`` with every element ``value`` (a number or a 0-d tensor)."""
    return input.clone().fill_(value)


def _real_get(self):
    """PyTorch's ``x.real``: ``x`` itself for a real tensor; for a complex one its real part (a copy: xtensor has no
    complex-to-real views yet, so a write into it does not reach ``x``; assign ``x.real = ...`` instead)."""
    return torch_functions["real"](self) if self.dtype.is_complex else self


def _real_set(self, value):
    self.copy_(self.imag * 1j + value if self.dtype.is_complex else value)


def _complex_only(self):
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _imag_get(self):
    _complex_only(self)
    return torch_functions["imag"](self)


def _imag_set(self, value):
    _complex_only(self)
    self.copy_(self.real + value * 1j)


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
    "real": property(_real_get, _real_set), "imag": property(_imag_get, _imag_set),
    "requires_grad_": requires_grad_,
    "backward": backward,
    "register_hook": register_hook,
    "retain_grad": retain_grad,
    "detach": detach,
    "__new__": staticmethod(_legacy_new), "__array_wrap__": _array_wrap, "__reduce_ex__": _reduce_ex,
    "to": to,
    "type": type_,
    "float": _caster(_dtypes.float32), "double": _caster(_dtypes.float64), "half": _caster(_dtypes.float16),
    "bfloat16": _caster(_dtypes.bfloat16),
    "long": _caster(_dtypes.int64), "int": _caster(_dtypes.int32), "short": _caster(_dtypes.int16),
    "char": _caster(_dtypes.int8), "byte": _caster(_dtypes.uint8), "bool": _caster(_dtypes.bool),
    "cpu": cpu, "cuda": cuda, "contiguous": contiguous,
    "new_tensor": new_tensor, "new": new, "new_zeros": _new_factory("zeros"), "new_ones": _new_factory("ones"),
    "new_empty": _new_factory("empty"), "new_full": _new_factory("full"),
    "copy_": copy_, "fill_": fill_, "zero_": zero_,
    "uniform_": _random_fill("uniform_", 0.0, 1.0), "normal_": _random_fill("normal_", 0.0, 1.0),
    "exponential_": _random_fill("exponential_", 1.0), "bernoulli_": _random_fill("bernoulli_", 0.5),
    "random_": _random_fill("random_", 0, 2 ** 24),
    "reshape": reshape, "flatten": flatten, "narrow": narrow, "select": select, "view_as": _view_as,
    "expand_as": _expand_as, "reshape_as": _reshape_as, "max": max, "min": min,
    "nonzero": nonzero, "argwhere": argwhere,
    "where": lambda self, condition, other: where(condition, self, other),
    "itemsize": property(_itemsize),
    "nbytes": property(_nbytes),
    "layout": property(lambda self: strided),
    "name": property(lambda self: None),
    "is_cpu": property(lambda self: self.device.type == "cpu"),
    "type_as": type_as,
    "detach_": detach_,
    "cfloat": _caster(_dtypes.complex64),
    "cdouble": _caster(_dtypes.complex128),
    "is_signed": is_signed,
    "is_nonzero": is_nonzero,
    "is_same_size": is_same_size,
    "is_conj": _never,
    "is_neg": _never,
    "resolve_conj": _identity,
    "resolve_neg": _identity,
    "adjoint": adjoint,
    "sum_to_size": sum_to_size,
    "dim_order": dim_order,
    "narrow_copy": narrow_copy,
    "cauchy_": _transformed_fill("cauchy_", "uniform_", _cauchy),
    "log_normal_": _transformed_fill("log_normal_", "normal_", _log_normal),
    "geometric_": _transformed_fill("geometric_", "uniform_", _geometric),
    "bernoulli": lambda self, p=None, *, generator=None: _creation.bernoulli(self, p, generator=generator),
    "multinomial": lambda self, num_samples, replacement=False, *, generator=None: _creation.multinomial(
        self, num_samples, replacement, generator=generator),
    "fill_diagonal_": fill_diagonal_,
    "apply_": _host_map("apply_", 0),
    "map_": _host_map("map_", 1),
    "map2_": _host_map("map2_", 2),
    "unique_consecutive": unique_consecutive,
    "nonzero_static": _method_of(nonzero_static),
    "new_empty_strided": new_empty_strided,
    "float_power_": float_power_,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "resize_": _resize_,
    "resize_as_": lambda self, tensor: _resize_(self, tuple(tensor.shape)),
    "resize": _resize,
    "resize_as": lambda self, tensor: _resize(self, tuple(tensor.shape)),
    "unsafe_chunk": lambda self, chunks, dim=0: self.chunk(chunks, dim),
    "unsafe_split": lambda self, split_size, dim=0: self.split(split_size, dim),
    "unsafe_split_with_sizes": lambda self, split_sizes, dim=0: self.split_with_sizes(split_sizes, dim),
}

FUNCTIONS = {"max": max, "min": min, "reshape": reshape, "flatten": flatten, "narrow": narrow, "select": select,
             "where": where, "nonzero": nonzero, "detach": detach, "argwhere": argwhere,
             "concat": torch_functions["cat"], "concatenate": torch_functions["cat"], "rsub": rsub,
             "unique_consecutive": unique_consecutive, "nonzero_static": nonzero_static, "typename": typename,
             "is_storage": is_storage, "to_dlpack": lambda tensor: tensor.__dlpack__(), "fill": fill,
             "unsafe_chunk": torch_functions["chunk"], "unsafe_split": torch_functions["split"],
             "unsafe_split_with_sizes": torch_functions["split_with_sizes"],
             "broadcast_shapes": torch_broadcast_shapes, "bucketize": bucketize, "tril_indices": tril_indices,
             "triu_indices": triu_indices, **_index.FUNCTIONS,
             **{name: _function_of(name) for name in (
                 "fill_", "zero_", "detach_", "index_put_", "as_strided_", "is_inference", "is_complex", "is_conj",
                 "is_neg", "is_nonzero", "is_same_size", "is_signed", "resolve_conj", "resolve_neg", "get_device",
                 "adjoint", "conj_physical_", "resize_as_")}}


def install(cls):
    """Put these methods, and indexing's (``_index``), on ``cls``."""
    for name, value in METHODS.items():
        setattr(cls, name, value)
    _index.install(cls)
