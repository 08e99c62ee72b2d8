"""Creation functions: ``tensor``, factories, ``*_like``, ranges and seeded random numbers.

Values are made on the host with numpy where the backend namespace cannot make them itself
(Python data, random numbers), then handed to the backend once. Random numbers come from one
host generator seeded by ``manual_seed``, so every backend draws the same values.
"""
import functools
import math
import numbers
import sys
import warnings

import numpy as np

from . import _dtypes
from ._backend import get_backend, get_default_backend
from ._dispatch import apply, wrap
from ._names import with_names
from ._tensor import Size, Tensor, default_devices, device as _device

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "rand", "randn", "randint",
           "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like", "randint_like",
           "Generator", "manual_seed", "initial_seed", "seed", "get_rng_state", "set_rng_state",
           "default_generator", "legacy_tensor"]


def _placed(backend, device):
    """The adapter and device a factory makes its tensor with: ``device``, else the default device."""
    adapter = get_default_backend() if backend is None else get_backend(backend)
    if device is None:
        device = default_devices[-1]
    if device is not None:
        check_device(adapter, device)
    return adapter, device


def _following(input, device):
    """The device of a result made after ``input`` (``*_like``, ``normal(mean_tensor)``): ``device``, else
    ``input``'s own -- never the default device."""
    return input.device if device is None and default_devices[-1] is not None else device


def check_device(adapter, device):
    """``device`` as a ``device``; raise as PyTorch does when it is not one the backend has (CUDA on a
    CPU-only build: ``AssertionError('Torch not compiled with CUDA enabled')``; a bare index: PyTorch's
    RuntimeError)."""
    kinds = {"cpu"} | {kind for kind, _ in adapter.devices()}  # host data is welcome on every backend
    if isinstance(device, int) and "cuda" not in kinds:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    d = _device(device)
    if d.type not in kinds:
        if d.type == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        raise RuntimeError(f"xtensor backend {adapter.name!r} has no {d.type!r} device (it has {sorted(kinds)})")
    return d


def to_device(t, device):
    """``t`` on ``device`` of its backend (``t`` itself when already there); differentiable: the gradient
    moves back. A jax array placed on a device stays there (jax "commits" it), so an op meeting a tensor
    placed on another device raises PyTorch's error; tensors made without a device follow the other
    operand, as jax's uncommitted arrays do."""
    adapter = t._backend
    d = check_device(adapter, device)
    if adapter.device_of(t._value) == adapter.placement(d):
        return t
    from ._table import TABLE
    return apply(TABLE["_to_device"].op, (t,), (adapter, d, t.device))


def _finish(arr, adapter, requires_grad, names=None, device=None):
    if device is not None:
        arr = adapter.to_device(arr, _device(device))
    t = wrap(arr, adapter)
    if requires_grad:
        t.requires_grad = True  # the property: its error names complex dtypes, as PyTorch's factories do
    if names is not None:
        with_names(t, names)
    return t


def _host_values(data):
    """``data`` as a numpy array with PyTorch's dtype inference for Python data."""
    if isinstance(data, Tensor):
        return np.asarray(data._backend.to_numpy(data._value)), True
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data), True
    if hasattr(data, "__dlpack__") or hasattr(data, "__array_namespace__"):
        _refuse_traced(data)
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
    if arr.dtype.kind in "US":  # strings: PyTorch's errors (a str inside a list reads as one more dimension)
        first = data
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        if isinstance(first, str) and first is not data:
            raise ValueError(f"too many dimensions '{type(first).__name__}'")
        raise TypeError("new(): invalid data type 'str'")
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if isinstance(data, (list, tuple)) and any(isinstance(x, np.generic) for x in _flatten(data)):
        # PyTorch: each NumPy scalar keeps its dtype, Python numbers count as their default dtype
        dtype = functools.reduce(_dtypes.promote_types, (
            _dtypes.by_name(x.dtype.name) if isinstance(x, np.generic) else _dtypes.scalar_dtype(x)
            for x in _flatten(data)))
        return arr.astype(dtype.name), True
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
    native_np = _dtypes.numpy_dtype(dtype)
    if arr.dtype != native_np:
        arr = arr.astype(native_np)
    return adapter.from_numpy(arr)


def tensor(data, *, dtype=None, device=None, requires_grad=False, backend=None, pin_memory=False, names=None):
    """A new tensor holding a copy of ``data`` (PyTorch's dtype inference: ints -> int64, floats -> default)."""
    adapter, device = _placed(backend if backend is not None or not isinstance(data, Tensor) else data._backend,
                           device)
    native = _device_array(data, adapter, dtype)
    if native is not None:
        return _finish(native, adapter, requires_grad, names, device=device)
    arr, typed = _host_values(data)
    dtype = dtype if dtype is not None else _infer_dtype(arr, typed)
    return _finish(_to_backend(np.array(arr, copy=True), adapter, dtype), adapter, requires_grad, names, device=device)


def _device_array(data, adapter, dtype):
    """``data`` as an array of ``dtype`` on an immutable backend that already holds it (a jax array,
    concrete or traced under ``jax.jit``), without a trip through the host; None for other data.
    Wrapping is as good as a copy there: a write to the tensor never changes ``data``."""
    native = None if adapter.mutable else adapter.own_array(data)
    if native is not None and dtype is not None and adapter.dtype_of(native) is not dtype:
        native = adapter.xp.astype(native, adapter.native_dtype(dtype))
    return native


def _refuse_traced(data):
    """A jax tracer has no values yet: only the jax backend can hold it."""
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(data, jax.core.Tracer):
        raise RuntimeError(
            "cannot copy a traced jax array to the host (inside jax.jit or xtensor.compile its values do not "
            "exist yet): make the tensor on the jax backend (backend='jax', or within "
            "`with xtensor.use_backend('jax'):`)")


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
    """A tensor over ``ndarray``'s memory: writes through either are seen through the other.

    It is a host (numpy-backend) tensor whatever the default backend, since only the host backend
    can share a numpy array's memory; it meets tensors of the default backend in ops as numpy arrays
    meet jax arrays. For a copy on the default backend use ``tensor(ndarray)``. The other way round,
    ``Tensor.numpy()`` shares memory on the numpy backend; on jax (immutable arrays) it is a
    read-only snapshot: later writes to the tensor are not seen, and writing the array raises.
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    adapter = get_backend("numpy")
    if ndarray.dtype.name not in {d.name for d in adapter.native}:
        raise TypeError(f"can't convert np.ndarray of type {ndarray.dtype}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.")
    return wrap(adapter.from_numpy(ndarray), adapter)


def _size(size, name="tensor"):
    """A shape from PyTorch's spellings (``2, 3``, ``(2, 3)``, ``[2, 3]``, a Size) with its TypeError otherwise."""
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        if not isinstance(size[0], (tuple, list)) and not hasattr(size[0], "__index__") and \
                not hasattr(size[0], "__iter__"):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(size[0]).__name__}")
        size = tuple(size[0])
    for position, s in enumerate(size, 1):
        if not isinstance(s, numbers.Integral) and not (hasattr(s, "__index__") and not isinstance(s, float)):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {position} with error "
                            f"\"type must be tuple of ints,but got {type(s).__name__}\"")
    out = tuple(int(s) for s in size)
    if any(s < 0 for s in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {list(out)}")
    return out


def _sizes(name, sizes, size):
    """The shape of ``name(*sizes)`` or ``name(size=...)`` (PyTorch takes either, never both)."""
    if size is None:
        if not sizes:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return _size(sizes, name)
    if sizes:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    if isinstance(size, numbers.Integral):
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return _size((size,), name)


def _factory(fill, name):
    def factory(*sizes, size=None, dtype=None, device=None, requires_grad=False, backend=None, out=None,
                layout=None, pin_memory=False, names=None):
        shape = _sizes(name, sizes, size)
        adapter, device = _placed(backend, device)
        dtype = dtype or _dtypes.get_default_dtype()
        arr = fill(adapter.xp, shape, adapter.native_dtype(dtype))
        return _finish(arr, adapter, requires_grad, names, device=device)
    factory.__name__ = factory.__qualname__ = name
    return factory


zeros = _factory(lambda xp, shape, dt: xp.zeros(shape, dtype=dt), "zeros")
ones = _factory(lambda xp, shape, dt: xp.ones(shape, dtype=dt), "ones")
empty = _factory(lambda xp, shape, dt: xp.zeros(shape, dtype=dt), "empty")  # deterministic: zeros, never garbage


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, backend=None, names=None):
    adapter, device = _placed(backend, device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = dtype or _dtypes.scalar_dtype(fill_value)
    dtype.check_fits(fill_value)
    arr = adapter.xp.full(_size((size,) if isinstance(size, int) else (size,), "full"), fill_value,
                          dtype=adapter.native_dtype(dtype))
    return _finish(arr, adapter, requires_grad, names, device=device)


def _like(factory):
    def like(input, *args, dtype=None, device=None, requires_grad=False, memory_format=None, backend=None):
        return factory(tuple(input.shape), *args, dtype=dtype or input.dtype, requires_grad=requires_grad,
                       backend=backend or input._backend, device=_following(input, device))
    return like


zeros_like = _like(lambda shape, **kw: zeros(shape, **kw))
ones_like = _like(lambda shape, **kw: ones(shape, **kw))
empty_like = _like(lambda shape, **kw: empty(shape, **kw))
full_like = _like(lambda shape, fill_value, **kw: full(shape, fill_value, **kw))
rand_like = _like(lambda shape, **kw: rand(shape, **kw))
randn_like = _like(lambda shape, **kw: randn(shape, **kw))


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, backend=None):
    """``base ** linspace(start, end, steps)``."""
    adapter, device = _placed(backend, device)
    dtype = dtype or _dtypes.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    arr = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
    return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad, device=device)


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
    adapter, device = _placed(backend, device)
    return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad, device=device)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, backend=None):
    adapter, device = _placed(backend, device)
    dtype = dtype or _dtypes.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    arr = np.linspace(float(start), float(end), int(steps))
    return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad, device=device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, backend=None):
    adapter, device = _placed(backend, device)
    dtype = dtype or _dtypes.get_default_dtype()
    arr = adapter.xp.eye(n, n if m is None else m, dtype=adapter.native_dtype(dtype))
    return _finish(arr, adapter, requires_grad, device=device)


# --------------------------------------------------------------------------- random
class Generator:
    """A host random generator (``torch.Generator``); ``manual_seed`` reseeds it.

    Every backend draws from a host PCG64 and receives the values once, so one seed gives the same
    values on numpy, jax and any other backend (not PyTorch's values: its generator is its own).
    """

    def __init__(self, device="cpu"):
        self.manual_seed(np.random.SeedSequence().entropy % 2 ** 63)

    def manual_seed(self, seed):
        self.rng = np.random.Generator(np.random.PCG64(int(seed)))
        self._initial_seed = int(seed)
        return self

    def initial_seed(self):
        return self._initial_seed

    def seed(self):
        return self.manual_seed(np.random.SeedSequence().entropy % 2 ** 63)._initial_seed

    def get_state(self):
        return self.rng.bit_generator.state

    def set_state(self, state):
        self.rng.bit_generator.state = state
        return self


default_generator = Generator()


def manual_seed(seed):
    """Seed the generator every backend draws from: the same seed gives the same values everywhere."""
    return default_generator.manual_seed(seed)


def initial_seed():
    return default_generator.initial_seed()


def seed():
    return default_generator.seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def _rng(generator):
    return (generator or default_generator).rng


_KERNELS = {"rand": "check_uniform_bounds", "randn": "normal_kernel_cpu", "normal": "normal_kernel_cpu"}


def _float_dtype(dtype, name):
    """The dtype of a float-only random function: PyTorch's NotImplementedError for others."""
    dtype = dtype or _dtypes.get_default_dtype()
    if dtype.kind not in "fc":
        raise NotImplementedError(f"\"{_KERNELS[name]}\" not implemented for '{dtype.scalar_name}'")
    return dtype


def _random(draw, name):
    def random(*sizes, size=None, dtype=None, device=None, requires_grad=False, backend=None, generator=None,
               names=None, out=None, layout=None, pin_memory=False):
        shape = _sizes(name, sizes, size)
        adapter, device = _placed(backend, device)
        dtype = _float_dtype(dtype, name)
        arr = draw(_rng(generator), shape)
        if dtype.kind == "c":  # PyTorch: real and imaginary parts each with variance 1/2
            arr = (arr + 1j * draw(_rng(generator), arr.shape)) / (np.sqrt(2) if name == "randn" else 1)
        return _finish(_to_backend(arr, adapter, dtype), adapter, requires_grad, names, device=device)
    random.__name__ = random.__qualname__ = name
    return random


rand = _random(lambda rng, shape: rng.random(shape), "rand")
randn = _random(lambda rng, shape: rng.standard_normal(shape), "randn")


def randint(low=0, high=None, size=None, *, dtype=None, device=None, requires_grad=False, backend=None,
            generator=None, names=None):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high), int64 by default."""
    if size is None:
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        low, high = 0, low
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size'")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    adapter, device = _placed(backend, device)
    arr = _rng(generator).integers(int(low), int(high), size=_size((size,), "randint"))
    return _finish(_to_backend(arr, adapter, dtype or _dtypes.int64), adapter, requires_grad, names, device=device)


def randperm(n, *, dtype=None, device=None, requires_grad=False, backend=None, generator=None):
    adapter, device = _placed(backend, device)
    arr = _rng(generator).permutation(int(n))
    return _finish(_to_backend(arr, adapter, dtype or _dtypes.int64), adapter, requires_grad, device=device)


def _host(x):
    return np.asarray(x._backend.to_numpy(x.detach()._value)) if isinstance(x, Tensor) else x


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
           backend=None, out=None):
    """``normal(mean, std)`` with tensor/float mean and std (the shape theirs, broadcast), or
    ``normal(mean, std, size)`` with floats; ``std`` must be non-negative."""
    tensors = [x for x in (mean, std) if isinstance(x, Tensor)]
    if size is not None and tensors:
        raise TypeError("normal(): size is only accepted with float mean and std")
    if size is None and not tensors:
        raise TypeError("normal() received an invalid combination of arguments: give a tensor mean or std, "
                        "or a size")
    host_std = _host(std)
    if np.any(np.asarray(host_std) < 0):
        raise RuntimeError(f"normal expects all elements of std >= 0.0")
    if tensors:
        dtype = dtype or _dtypes.result_type(*tensors)
        _float_dtype(dtype, "normal")
        shape = np.broadcast_shapes(*(tuple(x.shape) for x in tensors))
        adapter, device = _placed(backend or tensors[0]._backend, _following(tensors[0], device))
    else:
        dtype, shape = _float_dtype(dtype, "normal"), _size((size,) if isinstance(size, int) else tuple(size))
        adapter, device = _placed(backend, device)
    arr = _host(mean) + host_std * _rng(generator).standard_normal(shape)
    return _finish(_to_backend(np.asarray(arr), adapter, dtype), adapter, requires_grad, device=device)


def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability ``input`` (or ``p``) per element, else 0; the dtype of ``input``."""
    prob = _host(input) if p is None else np.broadcast_to(_host(p), tuple(input.shape))
    if np.any((prob < 0) | (prob > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    arr = (_rng(generator).random(np.shape(prob)) < prob)
    return _finish(_to_backend(arr, input._backend, input.dtype), input._backend, False)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from each row of non-negative weights ``input`` (1-D or 2-D), int64."""
    weights = np.asarray(_host(input), dtype=np.float64)
    if weights.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got {weights.ndim}")
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = weights.reshape(-1, weights.shape[-1])
    if np.any(rows.sum(axis=1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rng = _rng(generator)
    arr = np.stack([rng.choice(rows.shape[1], size=num_samples, replace=replacement, p=r / r.sum())
                    for r in rows]).reshape(weights.shape[:-1] + (num_samples,))
    return _finish(_to_backend(arr, input._backend, _dtypes.int64), input._backend, False)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False, backend=None,
                 generator=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=_following(input, device),
                   requires_grad=requires_grad, backend=backend or input._backend, generator=generator)


def fill_random(tensor, kind, *params, generator=None):
    """The in-place random fills (``uniform_``, ``normal_``, ``random_``, ``exponential_``...): values
    of ``tensor``'s shape drawn on the host, for ``Tensor.copy_`` to write."""
    rng, shape = _rng(generator), tuple(tensor.shape)
    if kind == "uniform_":
        low, high = params
        arr = low + (high - low) * rng.random(shape)
    elif kind == "normal_":
        mean, std = params
        arr = mean + std * rng.standard_normal(shape)
    elif kind == "exponential_":
        arr = rng.exponential(1.0 / params[0], shape)
    elif kind == "bernoulli_":
        arr = rng.random(shape) < np.broadcast_to(_host(params[0]), shape)
    else:  # random_(from, to)
        low, high = params
        arr = rng.integers(low, high, size=shape)
    return _finish(_to_backend(np.asarray(arr), tensor._backend, tensor.dtype), tensor._backend, False)


# --------------------------------------------------------------------------- legacy constructors
def legacy_tensor(*args, dtype=None, device=None, backend=None):
    """``Tensor(*sizes)``, ``Tensor(data)``, ``Tensor(storage)``: the legacy constructor, default dtype."""
    from ._tensor import _StorageView

    dtype = dtype or _dtypes.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], _StorageView):
        src = args[0]._tensor
        flat = src._storage.array
        n = int(np.prod(flat.shape))
        from ._dispatch import detached, make_view
        from ._tensor import ViewMeta
        return make_view(detached(src), src._backend.xp.reshape(flat, (n,)), ViewMeta.of((n,), (1,), 0))
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


def _typed_constructor(dtype_name):
    def constructor(*args, device=None):
        return legacy_tensor(*args, dtype=_dtypes.by_name(dtype_name), device=device)
    return constructor


def _rebuild(backend, values, requires_grad):
    return tensor(values, backend=backend, requires_grad=requires_grad)


# --------------------------------------------------------------------------- factories beyond the common ones
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, backend=None, **_):
    """A zero-filled tensor of ``size`` over a storage laid out with ``stride`` (``empty`` returns zeros)."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    length = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = zeros(length, dtype=dtype, device=device, backend=backend)
    out = base.as_strided(size, stride)
    return out.requires_grad_() if requires_grad else out


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False, backend=None, **_):
    """A zero-filled tensor of ``size`` whose dims lie in memory in the order ``physical_layout``."""
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Dimension out of range or repeated in physical_layout {list(order)}")
    physical = zeros(tuple(size[d] for d in order), dtype=dtype, device=device, backend=backend)
    out = physical.permute(tuple(order.index(d) for d in range(len(size))))
    return out.requires_grad_() if requires_grad else out


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, backend=None, **_):
    """A 0-d tensor holding ``s``, in the default float dtype unless ``dtype`` says otherwise."""
    return full((), s, dtype=dtype or _dtypes.get_default_dtype(), device=device,
                          requires_grad=requires_grad, backend=backend)


def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False, backend=None, **_):
    """Deprecated in PyTorch (and warned about, as there): ``arange`` that includes ``end``."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    dtype = dtype or _dtypes.get_default_dtype()
    values = start + np.arange(max(n, 0), dtype=np.float64) * step
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad, backend=backend)


range_.__name__ = "range"


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False, backend=None):
    """``obj`` as a tensor, sharing its memory where possible (``copy=True`` never, ``copy=False`` always)."""
    if isinstance(obj, Tensor):
        out = obj if dtype is None or obj.dtype is dtype else obj.to(dtype)
        if copy and out is obj:
            out = obj.clone()
        elif copy is False and out is not obj:
            raise ValueError("asarray(): copy=False but a copy is needed to change the dtype")
    else:
        if copy:
            out = tensor(obj, dtype=dtype, device=device, backend=backend)
        else:
            out = as_tensor(obj, dtype=dtype, device=device, backend=backend)
    return out.requires_grad_() if requires_grad else out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d numpy-backed tensor over the bytes of ``buffer`` (sharing them, as PyTorch does)."""
    arr = np.frombuffer(buffer, dtype=_dtypes.numpy_dtype(dtype), count=count, offset=offset)
    if not arr.flags.writeable:
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. "
                      "This means you can write to the underlying (supposedly non-writable) buffer using the "
                      "tensor.", UserWarning, stacklevel=2)
        arr = arr.copy()
    out = from_numpy(arr)
    return out.requires_grad_() if requires_grad else out


# ------------------------------------------------------------------ complex numbers, windows, host draws
def complex_(real, imag, *, out=None):
    """The complex tensor ``real + i imag`` (both float32 or both float64)."""
    if real.dtype is not imag.dtype or real.dtype not in (_dtypes.float32, _dtypes.float64, _dtypes.float16):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype.scalar_name} and {imag.dtype.scalar_name}")
    wide = _dtypes.complex128 if real.dtype is _dtypes.float64 else _dtypes.complex64
    r = real.to(wide) + imag.to(wide) * 1j
    return r if out is None else out.copy_(r)


def polar(abs, angle, *, out=None):
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``."""
    return complex_(abs * angle.cos(), abs * angle.sin(), out=out)


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
        return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad, backend=backend)
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


def _draws(name, sample):
    """``poisson``/``binomial``: draws on the host generator (the same values on every backend after the same
    seed), in the dtype of the first argument."""
    def draw(*params, generator=None):
        host = [np.asarray(p.detach().numpy(), dtype=np.float64) for p in params]
        values = sample(_rng(generator), *host)
        return tensor(values, dtype=params[0].dtype, backend=params[0]._backend)
    draw.__name__ = name
    return draw


poisson = _draws("poisson", lambda rng, rates: rng.poisson(rates))
binomial = _draws("binomial", lambda rng, count, prob: rng.binomial(count.astype(np.int64), prob))
hann_window = _window("hann_window", _cosine_sum(0.5, 0.5))
hamming_window = _window("hamming_window", _hamming)
blackman_window = _window("blackman_window", _cosine_sum(0.42, 0.5, 0.08))
bartlett_window = _window("bartlett_window", _bartlett)
kaiser_window = _window("kaiser_window", _kaiser)
