"""The small things a PyTorch user meets at once (issue 11 item 9): Tensor attributes (``itemsize``,
``nbytes``, ``layout``...), conversions and predicates (``type_as``, ``cfloat``, ``is_signed``...),
``detach_``, more in-place random fills, torch functions that are methods of another name (``concat``,
``fill``, ``rsub``...), factories (``scalar_tensor``, ``range``, ``empty_strided``, window functions...) and
anomaly mode's torch-namespace spellings (the other global settings live in ``_settings.py``).

Everything here composes existing ops, so gradients come free; each is checked against PyTorch in
``tests/test_api_additions.py``.

xtensor has no lazy conjugate or negative bits: ``conj()`` computes, so ``is_conj``/``is_neg`` are always
False and ``resolve_conj``/``resolve_neg`` return the tensor itself, as PyTorch does for a tensor without
those bits.
"""
import math
import warnings

import numpy as np

from . import _creation, _dtypes
from ._creation import asarray, empty_permuted, empty_strided, frombuffer, range_, scalar_tensor
from ._dispatch import unbroadcast
from ._tensor import Tensor, _StorageView
from ._variants import _make_inplace, torch_functions

__all__ = ["METHODS", "FUNCTIONS", "layout", "strided"]


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


# ------------------------------------------------------------------ Tensor attributes and methods
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
    n = min(self.shape)
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


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive elements (along ``dim``, or of the flattened tensor) kept once."""
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = _wrap(dim, input.ndim)
        x = input
    n = x.shape[d] if x.ndim else 1
    keep = np.ones(min(n, 1), dtype=bool)
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


def _wrap(dim, ndim):
    from ._tensor import check_dim
    return check_dim(dim, ndim)


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero()`` cut or padded (with ``fill_value``) to ``size`` rows: a fixed shape."""
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size]
    pad = found.new_full((size - found.shape[0], input.ndim), fill_value)
    return torch_functions["cat"]([found, pad], 0)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad,
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


def _draws(name, sample):
    """``poisson``/``binomial``: draws on the host generator (the same values on every backend after the same
    seed), in the dtype of the first argument."""
    def draw(*params, generator=None):
        host = [np.asarray(p.detach().numpy(), dtype=np.float64) for p in params]
        values = sample(_creation._rng(generator), *host)
        return _creation.tensor(values, dtype=params[0].dtype, backend=params[0]._backend)
    draw.__name__ = name
    return draw


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
    from ._autograd import _RemovableHandle
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if self._post_accumulate_hooks is None:
        self._post_accumulate_hooks = []
    self._post_accumulate_hooks.append(hook)
    return _RemovableHandle(self._post_accumulate_hooks, hook)


def _caster(dtype):
    def cast(self, memory_format=None):
        return self.to(dtype)
    return cast


METHODS = {
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


# ------------------------------------------------------------------ torch functions
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return torch_functions["sub"](other, input, alpha=alpha) if isinstance(other, Tensor) else \
        (-alpha) * input + other


def complex(real, imag, *, out=None):
    """The complex tensor ``real + i imag`` (both float32 or both float64)."""
    if real.dtype is not imag.dtype or real.dtype not in (_dtypes.float32, _dtypes.float64, _dtypes.float16):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype.scalar_name} and {imag.dtype.scalar_name}")
    wide = _dtypes.complex128 if real.dtype is _dtypes.float64 else _dtypes.complex64
    r = real.to(wide) + imag.to(wide) * 1j
    return r if out is None else out.copy_(r)


def polar(abs, angle, *, out=None):
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``."""
    return complex(abs * angle.cos(), abs * angle.sin(), out=out)


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat ``indices``: one int64 tensor per dim."""
    if not isinstance(indices, Tensor):
        indices = _creation.tensor(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = int(np.prod(shape))
    if bool(((indices < -total) | (indices >= max(total, 1))).any()):
        raise RuntimeError("'indices' must be in range [-%d, %d)" % (total, total))
    flat = indices.long().remainder(max(total, 1))
    coords = []
    for n in reversed(shape):
        coords.append(flat.remainder(n))
        flat = flat.div(n, rounding_mode="floor")
    return tuple(reversed(coords))


def _window(name, make):
    def window(window_length, periodic=True, *extra, dtype=None, layout=None, device=None,
               requires_grad=False, backend=None, **kwargs):
        if window_length < 0:
            raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
        dtype = dtype or _dtypes.get_default_dtype()
        if dtype.kind != "f":
            raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
        if window_length <= 1:
            values = np.ones(window_length)
        else:
            n = window_length + 1 if periodic else window_length
            values = make(n, *extra, **kwargs)[:window_length]
        return _creation.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad, backend=backend)
    window.__name__ = name
    window.__doc__ = f"PyTorch's ``{name}`` (``periodic=True``: the first ``N`` of ``N + 1`` points)."
    return window


def _cosine_sum(*coefficients):
    def make(n):
        k = np.arange(n) * (2 * np.pi / (n - 1))
        return sum((-1) ** i * a * np.cos(i * k) for i, a in enumerate(coefficients))
    return make


def _hamming(n, alpha=0.54, beta=0.46):
    return alpha - beta * np.cos(np.arange(n) * (2 * np.pi / (n - 1)))


def _kaiser(n, beta=12.0):
    k = np.arange(n)
    return np.i0(beta * np.sqrt(np.clip(1 - ((k - (n - 1) / 2) / ((n - 1) / 2)) ** 2, 0, None))) / np.i0(beta)


def _bartlett(n):
    k = np.arange(n)
    return 1 - np.abs(2 * k / (n - 1) - 1)


def typename(obj):
    """``'xtensor.FloatTensor'`` for a tensor, else the object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = "" if cls.__module__ in ("builtins", "__builtin__") else cls.__module__ + "."
    return module + cls.__qualname__


def is_storage(obj):
    return isinstance(obj, _StorageView)


def set_anomaly_enabled(enabled, check_nan=True):
    from .autograd import set_detect_anomaly
    set_detect_anomaly(enabled, check_nan)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dim of its arguments (``in_dims``: one for all, or one per argument, nested as the
    argument is -- tuples, lists, dicts; None: not mapped), results stacked along ``out_dims``. Runs ``func``
    once per slice (a loop, not PyTorch's batching rules): the same values and gradients, none of the speed.
    Random ops inside draw different values per slice (PyTorch's ``randomness='different'``)."""
    def mapped(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(func, in_dims={in_dims})(<inputs>): in_dims is not compatible with the structure "
                             f"of `inputs`. in_dims has structure {len(dims)} but inputs has {len(args)} elements")
        sizes = set()
        for a, d in zip(args, dims):
            _mapped_sizes(a, d, sizes)
        if len(sizes) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)}" if sizes else "vmap: at least one input must be mapped (in_dims)")
        n = sizes.pop()
        results = [func(*(_slice(a, d, i) for a, d in zip(args, dims)), **kwargs) for i in range(n)]
        return _stacked(results, out_dims)
    return mapped



def _mapped_sizes(arg, dim, sizes):
    if dim is None:
        return
    if isinstance(arg, Tensor):
        sizes.add(arg.shape[_wrap(dim, arg.ndim)])
    elif isinstance(arg, dict):
        for k, v in arg.items():
            _mapped_sizes(v, dim[k] if isinstance(dim, dict) else dim, sizes)
    elif isinstance(arg, (tuple, list)):
        for a, d in zip(arg, dim if isinstance(dim, (tuple, list)) else (dim,) * len(arg)):
            _mapped_sizes(a, d, sizes)
    else:
        raise ValueError(f"vmap: Got in_dim={dim} for an input but the input is of type {type(arg).__name__}. We "
                         f"cannot vmap over non-Tensor arguments, please use None as the respective in_dim")


def _slice(arg, dim, i):
    if dim is None:
        return arg
    if isinstance(arg, Tensor):
        return arg.select(dim, i)
    if isinstance(arg, dict):
        return {k: _slice(v, dim[k] if isinstance(dim, dict) else dim, i) for k, v in arg.items()}
    return type(arg)(_slice(a, d, i) for a, d in zip(arg, dim if isinstance(dim, (tuple, list)) else
                                                     (dim,) * len(arg)))


def _stacked(results, out_dims):
    first = results[0]
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        return type(first)(_stacked([r[k] for r in results], d) for k, d in enumerate(dims))
    if isinstance(first, dict):
        return {k: _stacked([r[k] for r in results], out_dims[k] if isinstance(out_dims, dict) else out_dims)
                for k in first}
    if not isinstance(first, Tensor):
        raise ValueError(f"vmap: `func` must only return Tensors, got type {type(first).__name__}")
    return torch_functions["stack"](results, out_dims)


def _function_of(method_name):
    def function(input, *args, **kwargs):
        return getattr(input, method_name)(*args, **kwargs)
    function.__name__ = method_name
    return function


def _functions():
    from .autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled
    fns = {
        "concat": torch_functions["cat"], "concatenate": torch_functions["cat"],
        "empty_strided": empty_strided, "empty_permuted": empty_permuted, "scalar_tensor": scalar_tensor,
        "range": range_, "asarray": asarray, "frombuffer": frombuffer, "rsub": rsub, "complex": complex,
        "polar": polar, "unravel_index": unravel_index, "unique_consecutive": unique_consecutive,
        "nonzero_static": nonzero_static, "typename": typename, "is_storage": is_storage,
        "is_anomaly_enabled": is_anomaly_enabled,
        "is_anomaly_check_nan_enabled": is_anomaly_check_nan_enabled, "set_anomaly_enabled": set_anomaly_enabled,
        "to_dlpack": lambda tensor: tensor.__dlpack__(), "vmap": vmap,
        "hann_window": _window("hann_window", _cosine_sum(0.5, 0.5)),
        "hamming_window": _window("hamming_window", _hamming),
        "blackman_window": _window("blackman_window", _cosine_sum(0.42, 0.5, 0.08)),
        "bartlett_window": _window("bartlett_window", _bartlett),
        "kaiser_window": _window("kaiser_window", _kaiser),
        "poisson": _draws("poisson", lambda rng, rates: rng.poisson(rates)),
        "binomial": _draws("binomial", lambda rng, count, prob: rng.binomial(count.astype(np.int64), prob)),
        "unsafe_chunk": torch_functions["chunk"], "unsafe_split": torch_functions["split"],
        "unsafe_split_with_sizes": torch_functions["split_with_sizes"],
    }
    for name in ("fill_", "zero_", "detach_", "index_put_", "as_strided_", "is_inference", "is_complex", "is_conj",
                 "is_neg", "is_nonzero", "is_same_size", "is_signed", "resolve_conj", "resolve_neg", "get_device",
                 "adjoint", "conj_physical_", "resize_as_"):
        fns[name] = _function_of(name)
    fns["fill"] = fill
    from .ops.reductions import bucketize
    from .ops.shapes import torch_broadcast_shapes, tril_indices, triu_indices
    fns.update(broadcast_shapes=torch_broadcast_shapes, bucketize=bucketize, tril_indices=tril_indices,
               triu_indices=triu_indices)
    return fns


def fill(input, value):
    """A copy of ``input`` with every element ``value`` (a number or a 0-d tensor)."""
    return input.clone().fill_(value)


FUNCTIONS = _functions()


# nn.functional ops PyTorch also spells in the torch namespace, with the same positional arguments
_NN_NAMES = ("adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu", "conv1d", "conv2d", "cosine_similarity",
             "dropout", "group_norm", "layer_norm", "max_pool1d", "max_pool2d", "selu", "threshold")


def nn_functions():
    """``torch.conv1d``, ``torch.celu_``...: the nn.functional ops of ``_NN_NAMES`` and the in-place forms
    (``torch.celu_(x)`` writes ``F.celu(x)`` into ``x``). Called once ``xtensor.nn`` is importable."""
    from .nn import functional as F
    fns = {name: getattr(F, name) for name in _NN_NAMES}
    for name in ("celu", "selu", "threshold", "dropout"):
        fns[name + "_"] = _nn_inplace(getattr(F, name))
    reductions = ("none", "mean", "sum")  # ATen's Reduction enum: the torch-namespace losses take its ints

    def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
        return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                           scale_grad_by_freq=scale_grad_by_freq)

    def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
        return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)

    def kl_div(input, target, reduction=1, *, log_target=False):
        return F.kl_div(input, target, reduction=reductions[reduction], log_target=log_target)

    def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
        return F.binary_cross_entropy_with_logits(input, target, weight, reduction=reductions[reduction],
                                                  pos_weight=pos_weight)

    def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
        return F.cosine_embedding_loss(input1, input2, target, margin, reduction=reductions[reduction])

    def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True)

    def adaptive_max_pool1d(input, output_size):
        return F.adaptive_max_pool1d(input, output_size, return_indices=True)

    def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
        return F.hinge_embedding_loss(input, target, margin, reduction=reductions[reduction])

    def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
        return F.margin_ranking_loss(input1, input2, target, margin, reduction=reductions[reduction])

    def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1):
        return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                     reduction=reductions[reduction])

    def poisson_nll_loss(input, target, log_input, full, eps, reduction):
        return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=reductions[reduction])

    def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                      cudnn_enabled=True):
        return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)

    def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
        return F.grid_sample(input, grid, ("bilinear", "nearest", "bicubic")[interpolation_mode],
                             ("zeros", "border", "reflection")[padding_mode], align_corners)

    def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reductions[reduction],
                          zero_infinity)

    # (the function each needs from nn.functional: not every branch has all of them yet)
    needs = {adaptive_max_pool1d: "adaptive_max_pool1d", hinge_embedding_loss: "hinge_embedding_loss",
             margin_ranking_loss: "margin_ranking_loss", triplet_margin_loss: "triplet_margin_loss",
             poisson_nll_loss: "poisson_nll_loss", instance_norm: "instance_norm", grid_sampler: "grid_sample",
             ctc_loss: "ctc_loss"}
    for f in (embedding, batch_norm, kl_div, binary_cross_entropy_with_logits, cosine_embedding_loss,
              max_pool1d_with_indices, *needs):
        if hasattr(F, needs.get(f, "embedding")):
            f.__doc__ = f"PyTorch's ``torch.{f.__name__}``: ATen's argument order and integer enums over " \
                        f"``nn.functional``."
            fns[f.__name__] = f
    if "grid_sampler" in fns:
        fns["grid_sampler_2d"] = fns["grid_sampler_3d"] = grid_sampler
    for name in _NN_SAME_ARGUMENTS:
        if hasattr(F, name):
            fns[name] = getattr(F, name)
    if hasattr(F, "affine_grid"):
        fns["affine_grid_generator"] = F.affine_grid
    for name in ("alpha_dropout", "feature_alpha_dropout", "rrelu"):
        if hasattr(F, name):
            fns[name + "_"] = _nn_inplace(getattr(F, name))
    return fns


def nn_methods():
    """The Tensor methods PyTorch has for nn.functional ops (``x.hardshrink()``, ``x.prelu(w)``), where
    nn.functional has them."""
    from .nn import functional as F
    return {name: getattr(F, name) for name in ("hardshrink", "prelu") if hasattr(F, name)}


# the nn.functional ops of the torch namespace with ATen's positional arguments, where nn.functional has them
_NN_SAME_ARGUMENTS = ("alpha_dropout", "feature_alpha_dropout", "hardshrink", "prelu", "pixel_shuffle",
                      "pixel_unshuffle", "channel_shuffle", "pdist", "pairwise_distance", "conv3d", "conv_transpose1d",
                      "conv_transpose2d", "conv_transpose3d", "max_pool3d", "rrelu", "rms_norm")


def _nn_inplace(f):
    """The op on a copy, written back: the op's node keeps the copy, which the write leaves intact (as
    PyTorch's in-place activations keep what their gradient needs)."""
    def inplace(input, *args):
        return input.copy_(f(input.clone(), *args))
    inplace.__name__ = f.__name__ + "_"
    return inplace
