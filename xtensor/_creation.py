"""Creation functions: ``tensor``, factories, ``*_like``, ranges and seeded random numbers.

Values are made on the host with numpy where the backend namespace cannot make them itself
(Python data, random numbers), then handed to the backend once. Random numbers come from one
host generator seeded by ``manual_seed``, so every backend draws the same values.
"""
import math
import numbers

import numpy as np

from . import _dtypes
from ._backend import get_backend, get_default_backend
from ._dispatch import wrap
from ._tensor import Size, Tensor, device as _device

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "empty_like", "full_like", "arange", "linspace", "eye", "rand", "randn", "randint", "randperm",
           "rand_like", "randn_like", "manual_seed", "legacy_tensor"]


def _backend_for(backend, device=None):
    adapter = get_default_backend() if backend is None else get_backend(backend)
    if device is not None:
        d = _device(device)
        kinds = {kind for kind, _ in adapter.devices()}
        if d.type not in kinds:
            if d.type == "cuda":
                raise RuntimeError(f"xtensor backend {adapter.name!r} has no CUDA device (it has {sorted(kinds)}); "
                                   "use the jax backend on a machine with a GPU")
            raise RuntimeError(f"xtensor backend {adapter.name!r} has no {d.type!r} device")
    return adapter


def _finish(arr, adapter, requires_grad):
    t = wrap(arr, adapter)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _host_values(data):
    """``data`` as a numpy array with PyTorch's dtype inference for Python data."""
    if isinstance(data, Tensor):
        return np.asarray(data._backend.to_numpy(data._value)), True
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data), True
    if hasattr(data, "__dlpack__") or hasattr(data, "__array_namespace__"):
        try:
            return np.from_dlpack(data), True
        except (TypeError, BufferError, RuntimeError):
            return np.asarray(data), True
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flatten(data)):
        return np.asarray(_tolist(data)), False
    try:
        arr = np.asarray(data)
    except ValueError as e:
        raise ValueError(f"could not build a tensor from ragged data: {e}") from None
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return arr, False


def _flatten(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flatten(x)
        else:
            yield x


def _tolist(data):
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_tolist(x) for x in data]
    return data


def _infer_dtype(arr, typed):
    kind = arr.dtype.kind
    if not typed or kind == "O":
        if kind == "f":
            return _dtypes.get_default_dtype()
        if kind == "c":
            return _dtypes.default_dtype_for("c")
        if kind in "iu":
            return _dtypes.int64
    return _dtypes.by_name(arr.dtype.name)


def _to_backend(arr, adapter, dtype):
    native_np = np.dtype(dtype.name)
    if arr.dtype != native_np:
        arr = arr.astype(native_np)
    return adapter.from_numpy(arr)


def tensor(data, *, dtype=None, device=None, requires_grad=False, backend=None, pin_memory=False):
    """A new tensor holding a copy of ``data`` (PyTorch's dtype inference: ints -> int64, floats -> default)."""
    adapter = _backend_for(backend if backend is not None or not isinstance(data, Tensor) else data._backend,
                           device)
    arr, typed = _host_values(data)
    dtype = dtype if dtype is not None else _infer_dtype(arr, typed)
    return _finish(_to_backend(np.array(arr, copy=True), adapter, dtype), adapter, requires_grad)


def as_tensor(data, dtype=None, device=None, *, backend=None):
    """``data`` as a tensor, sharing memory when it already is one of the right dtype and backend."""
    if isinstance(data, Tensor):
        if (dtype is None or data.dtype is dtype) and (backend is None or get_backend(backend) is data._backend):
            return data
        out = data.to(dtype) if dtype is not None else data
        return out.to(backend) if backend is not None else out
    if isinstance(data, np.ndarray) and (backend is None or get_backend(backend).name == "numpy") and \
            get_default_backend().host and (dtype is None or dtype.name == data.dtype.name):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device, backend=backend)


def from_numpy(ndarray):
    """A tensor over ``ndarray``: shares its memory on the numpy backend, copies on others."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    adapter = get_default_backend()
    if ndarray.dtype.name not in {d.name for d in adapter.native}:
        raise TypeError(f"can't convert np.ndarray of type {ndarray.dtype}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.")
    return wrap(adapter.from_numpy(ndarray), adapter)


def _size(size):
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    out = tuple(int(s) for s in size)
    if any(s < 0 for s in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {list(out)}")
    return out


def _factory(fill):
    def factory(*size, dtype=None, device=None, requires_grad=False, backend=None, out=None, layout=None,
                pin_memory=False):
        adapter = _backend_for(backend, device)
        dtype = dtype or _dtypes.get_default_dtype()
        arr = fill(adapter.xp, _size(size), adapter.native_dtype(dtype))
        return _finish(arr, adapter, requires_grad)
    return factory


zeros = _factory(lambda xp, shape, dt: xp.zeros(shape, dtype=dt))
ones = _factory(lambda xp, shape, dt: xp.ones(shape, dtype=dt))
empty = _factory(lambda xp, shape, dt: xp.zeros(shape, dtype=dt))  # deterministic: zeros, never garbage
zeros.__name__, ones.__name__, empty.__name__ = "zeros", "ones", "empty"


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, backend=None):
    adapter = _backend_for(backend, device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = dtype or _dtypes.scalar_dtype(fill_value)
    arr = adapter.xp.full(_size((size,) if isinstance(size, int) else tuple(size)), fill_value,
                          dtype=adapter.native_dtype(dtype))
    return _finish(arr, adapter, requires_grad)


def _like(factory):
    def like(input, *args, dtype=None, device=None, requires_grad=False, memory_format=None, backend=None):
        return factory(tuple(input.shape), *args, dtype=dtype or input.dtype, requires_grad=requires_grad,
                       backend=backend or input._backend, device=device)
    return like


zeros_like = _like(lambda shape, **kw: zeros(shape, **kw))
ones_like = _like(lambda shape, **kw: ones(shape, **kw))
empty_like = _like(lambda shape, **kw: empty(shape, **kw))
full_like = _like(lambda shape, fill_value, **kw: full(shape, fill_value, **kw))
rand_like = _like(lambda shape, **kw: rand(shape, **kw))
randn_like = _like(lambda shape, **kw: randn(shape, **kw))


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, backend=None, out=None):
    """PyTorch's arange: integer when all of start/end/step are integers, else the default float dtype."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtypes.int64 if all(isinstance(v, numbers.Integral) for v in values) else \
            _dtypes.get_default_dtype()
    n = max(0, math.ceil((values[1] - values[0]) / values[2]))
    arr = values[0] + np.arange(n, dtype=np.float64 if dtype.kind == "f" else np.int64) * values[2]
    adapter = _backend_for(backend, device)
    return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, backend=None):
    adapter = _backend_for(backend, device)
    dtype = dtype or _dtypes.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    arr = np.linspace(float(start), float(end), int(steps))
    return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, backend=None):
    adapter = _backend_for(backend, device)
    dtype = dtype or _dtypes.get_default_dtype()
    arr = adapter.xp.eye(n, n if m is None else m, dtype=adapter.native_dtype(dtype))
    return _finish(arr, adapter, requires_grad)


# --------------------------------------------------------------------------- random
class _Generator:
    """The host generator behind every random function (``manual_seed`` reseeds it)."""

    def __init__(self, seed=None):
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self.initial_seed = seed

    def manual_seed(self, seed):
        self.rng = np.random.Generator(np.random.PCG64(int(seed)))
        self.initial_seed = int(seed)
        return self


default_generator = _Generator()


def manual_seed(seed):
    """Seed the generator every backend draws from: the same seed gives the same values everywhere."""
    return default_generator.manual_seed(seed)


def _random(draw):
    def random(*size, dtype=None, device=None, requires_grad=False, backend=None, generator=None):
        adapter = _backend_for(backend, device)
        dtype = dtype or _dtypes.get_default_dtype()
        if dtype.kind not in "fc":
            raise RuntimeError(f"\"{random.__name__}\" not implemented for '{dtype.scalar_name}'")
        rng = (generator or default_generator).rng
        arr = draw(rng, _size(size))
        return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad)
    return random


rand = _random(lambda rng, shape: rng.random(shape))
randn = _random(lambda rng, shape: rng.standard_normal(shape))
rand.__name__, randn.__name__ = "rand", "randn"


def randint(low=0, high=None, size=None, *, dtype=None, device=None, requires_grad=False, backend=None,
            generator=None):
    if size is None:
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size'")
    adapter = _backend_for(backend, device)
    arr = (generator or default_generator).rng.integers(low, high, size=tuple(size))
    return _finish(_to_backend(arr, adapter, dtype or _dtypes.int64), adapter, requires_grad)


def randperm(n, *, dtype=None, device=None, requires_grad=False, backend=None, generator=None):
    adapter = _backend_for(backend, device)
    arr = (generator or default_generator).rng.permutation(n)
    return _finish(_to_backend(arr, adapter, dtype or _dtypes.int64), adapter, requires_grad)


# --------------------------------------------------------------------------- legacy constructors
def legacy_tensor(*args, dtype=None, device=None, backend=None):
    """``Tensor(*sizes)``, ``Tensor(data)``, ``Tensor(storage)``: the legacy constructor, default dtype."""
    from ._tensor import _StorageView

    dtype = dtype or _dtypes.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], _StorageView):
        src = args[0]._tensor
        flat = src._storage.array
        n = int(np.prod(flat.shape))
        from ._dispatch import make_view
        from ._tensor import ViewMeta
        return make_view(_root_alias(src), src._backend.xp.reshape(flat, (n,)), ViewMeta.of((n,), (1,), 0))
    if not args:
        return empty(0, dtype=dtype, device=device, backend=backend)
    if all(isinstance(a, numbers.Integral) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        return empty(*args, dtype=dtype, device=device, backend=backend)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, Tensor) and dtype is data.dtype:
            return data
        return tensor(data, dtype=dtype, device=device, backend=backend)
    raise TypeError(f"Tensor(): invalid arguments {args!r}; expected sizes or one sequence of data")


def _root_alias(t):
    from ._dispatch import _alias_root
    return _alias_root(t) if t._view is None else t._base


def _typed_constructor(dtype_name):
    def constructor(*args, device=None):
        return legacy_tensor(*args, dtype=_dtypes.by_name(dtype_name), device=device)
    return constructor


def _rebuild(backend, values, requires_grad):
    return tensor(values, backend=backend, requires_grad=requires_grad)
