"""The standard's creation functions, on the default backend (``*_like``: on ``x``'s backend).

Arrays are made by the backend namespace itself (``xp.arange``, ``xp.full``...), so values and
edge cases (empty ranges, ``endpoint=False``) are the standard's, not PyTorch's. ``asarray`` honours
``copy=``: ``None`` shares when it can, ``True`` always copies, ``False`` never copies and raises
``ValueError`` where sharing is impossible (another dtype, Python data, a numpy array on a backend
that cannot alias host memory).
"""
import builtins
import numbers

import numpy as np

from .. import _creation as _torch_creation
from .. import _dtypes
from .._backend import get_default_backend
from .._tensor import Tensor
from ._info import default_complex, default_float

__all__ = ["asarray", "arange", "linspace", "eye", "empty", "empty_like", "zeros", "zeros_like", "ones",
           "ones_like", "full", "full_like", "meshgrid", "from_dlpack"]


def _adapter(device):
    adapter = get_default_backend()
    if device is not None:
        _torch_creation.check_device(adapter, device)
    return adapter


def _made(arr, adapter, device=None):
    return _torch_creation._finish(arr, adapter, False, device=device)


def _shape(shape):
    return (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)


def _scalar_dtype(value, adapter):
    """The standard's dtype for a Python scalar: bool, int64, the default float or complex."""
    if isinstance(value, builtins.bool):
        return _dtypes.bool
    if isinstance(value, numbers.Integral):
        return _dtypes.int64
    if isinstance(value, numbers.Real):
        return default_float(adapter)
    return default_complex(adapter)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """``obj`` as an array: a tensor as it is (or a copy), host data shared on the host backend."""
    adapter = _adapter(device)
    if isinstance(obj, Tensor):
        return _from_tensor(obj, dtype, copy)
    if isinstance(obj, np.ndarray) or (not isinstance(obj, (list, tuple, numbers.Number)) and
                                       hasattr(obj, "__dlpack__")):
        return _from_buffer(obj, adapter, dtype, copy, device)
    if copy is False:
        raise ValueError(f"asarray(copy=False): a {type(obj).__name__} cannot be shared; building an array from "
                         "Python data needs a copy")
    if isinstance(obj, (list, tuple)):
        obj = _nested_scalars(obj)
    values = _scalars(obj)
    if dtype is None:
        dtype = _infer_dtype(values, adapter)
    if dtype is not None:  # straight to the dtype: Python ints beyond int64 stay exact as uint64
        try:
            obj = np.array(obj, dtype=dtype.name)
        except OverflowError as e:
            raise OverflowError(f"asarray(): a value does not fit in {dtype}: {e}") from None
    return _torch_creation.tensor(obj, dtype=dtype, backend=adapter, device=device)


def _from_tensor(x, dtype, copy):
    if dtype is not None and dtype is not x.dtype:
        if copy is False:
            raise ValueError(f"asarray(copy=False): converting {x.dtype} to {dtype} needs a copy")
        return x.to(dtype)
    return x.clone() if copy else x


def _from_buffer(obj, adapter, dtype, copy, device):
    native = None if adapter.mutable else adapter.own_array(obj)
    if native is not None:  # the backend's own array (a jax array, even a traced one): no host trip
        if dtype is not None and dtype is not adapter.dtype_of(native):
            if copy is False:
                raise ValueError(f"asarray(copy=False): converting {adapter.dtype_of(native)} to {dtype} needs a copy")
            native = adapter.xp.astype(native, adapter.native_dtype(dtype))
        elif copy:
            native = adapter.xp.asarray(native, copy=True)
        return _made(native, adapter, device)
    host = obj if isinstance(obj, np.ndarray) else None
    if copy is not True and adapter.host:
        if host is None:
            host = np.from_dlpack(obj)
        # a tensor's strides are never negative (PyTorch's rule): a reversed array is copied, as the standard allows
        reversed_ = builtins.any(stride < 0 for stride in host.strides)
        if (dtype is None or dtype.name == host.dtype.name) and not reversed_:
            return _torch_creation.from_numpy(host)
        if copy is False and reversed_:
            raise ValueError(f"asarray(copy=False): a tensor cannot share the memory of an array with negative "
                             f"strides {host.strides}")
    if copy is False:
        raise ValueError(f"asarray(copy=False): backend {adapter.name!r} cannot share the memory of a "
                         f"{type(obj).__name__}" + (f" as {dtype}" if dtype is not None else ""))
    return _torch_creation.tensor(obj, dtype=dtype, backend=adapter, device=device)


def _nested_scalars(data):
    """Sequences may hold 0-d arrays (the standard allows it): read them as Python scalars."""
    if isinstance(data, (list, tuple)):
        return [_nested_scalars(x) for x in data]
    return data.item() if isinstance(data, Tensor) else data


def _scalars(obj):
    """The Python scalars of ``obj`` (nested sequences of them), flat; anything else (``None``, a string, an object)
    is a TypeError naming it, whatever the dtype asked for (NumPy would make ``None`` a NaN)."""
    flat = list(_torch_creation._flatten(obj)) if isinstance(obj, (list, tuple)) else [obj]
    for v in flat:
        if not isinstance(v, (numbers.Number, np.generic)) or isinstance(v, (np.str_, np.bytes_)):
            raise TypeError(f"asarray(): Unsupported value {v!r} of type {type(v).__name__}: an array holds "
                            "numbers or booleans")
    return flat


def _infer_dtype(flat, adapter):
    """The standard's inference from the scalars ``flat``: bool, then int64, then the default float, then the
    default complex."""
    if builtins.any(isinstance(v, complex) for v in flat):
        return default_complex(adapter)
    if builtins.any(isinstance(v, float) for v in flat):
        return default_float(adapter)
    if flat and builtins.all(isinstance(v, builtins.bool) for v in flat):
        return _dtypes.bool
    if builtins.any(isinstance(v, np.generic) for v in flat):
        return None
    return _dtypes.int64 if flat else default_float(adapter)


def _host_scalar(v):
    """A 0-d array given for a scalar argument (SciPy passes them to ``linspace``/``arange``) as its Python number:
    the backend's own function would otherwise meet a Tensor."""
    return v.item() if isinstance(v, Tensor) and v.ndim == 0 else v


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    adapter = _adapter(device)
    start, stop, step = _host_scalar(start), _host_scalar(stop), _host_scalar(step)
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = _dtypes.int64 if builtins.all(isinstance(v, numbers.Integral) for v in (start, stop, step)) \
            else default_float(adapter)
    return _made(adapter.xp.arange(start, stop, step, dtype=adapter.native_dtype(dtype)), adapter, device)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    adapter = _adapter(device)
    start, stop = _host_scalar(start), _host_scalar(stop)
    if dtype is None:
        dtype = default_complex(adapter) if builtins.any(isinstance(v, complex) for v in (start, stop)) \
            else default_float(adapter)
    arr = adapter.xp.linspace(start, stop, num, dtype=adapter.native_dtype(dtype), endpoint=endpoint)
    return _made(arr, adapter, device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    adapter = _adapter(device)
    dtype = dtype or default_float(adapter)
    return _made(adapter.xp.eye(n_rows, n_cols, k=k, dtype=adapter.native_dtype(dtype)), adapter, device)


def _filled(name, fill):
    def creation(shape, *, dtype=None, device=None):
        adapter = _adapter(device)
        native = adapter.native_dtype(dtype or default_float(adapter))
        return _made(fill(adapter.xp, _shape(shape), native), adapter, device)
    creation.__name__ = creation.__qualname__ = name
    creation.__doc__ = f"The standard's ``{name}``: the default float dtype unless ``dtype`` is given."
    return creation


def _filled_like(name, fill):
    def creation_like(x, /, *, dtype=None, device=None):
        adapter = x._backend
        if device is not None:
            _torch_creation.check_device(adapter, device)
        return _made(fill(adapter.xp, tuple(x.shape), adapter.native_dtype(dtype or x.dtype)), adapter, device)
    creation_like.__name__ = creation_like.__qualname__ = name
    creation_like.__doc__ = f"The standard's ``{name}``: ``x``'s shape, dtype (unless given) and backend."
    return creation_like


zeros = _filled("zeros", lambda xp, shape, dt: xp.zeros(shape, dtype=dt))
ones = _filled("ones", lambda xp, shape, dt: xp.ones(shape, dtype=dt))
empty = _filled("empty", lambda xp, shape, dt: xp.zeros(shape, dtype=dt))  # deterministic: zeros, never garbage
zeros_like = _filled_like("zeros_like", lambda xp, shape, dt: xp.zeros(shape, dtype=dt))
ones_like = _filled_like("ones_like", lambda xp, shape, dt: xp.ones(shape, dtype=dt))
empty_like = _filled_like("empty_like", lambda xp, shape, dt: xp.zeros(shape, dtype=dt))


def full(shape, fill_value, *, dtype=None, device=None):
    adapter = _adapter(device)
    fill_value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    dtype = dtype or _scalar_dtype(fill_value, adapter)
    return _made(adapter.xp.full(_shape(shape), fill_value, dtype=adapter.native_dtype(dtype)), adapter, device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    adapter = x._backend
    if device is not None:
        _torch_creation.check_device(adapter, device)
    fill_value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    native = adapter.native_dtype(dtype or x.dtype)
    return _made(adapter.xp.full(tuple(x.shape), fill_value, dtype=native), adapter, device)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate grids from 1-D arrays, as a tuple (2025.12); written in xtensor ops, so differentiable.

    ``"xy"`` (Cartesian) swaps the first two output dimensions, ``"ij"`` (matrix) keeps the order.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij', got {indexing!r}")
    if builtins.any(a.ndim != 1 for a in arrays):
        raise ValueError(f"meshgrid(): every array must be 1-D, got shapes {[tuple(a.shape) for a in arrays]}")
    if len({a.dtype for a in arrays}) > 1:
        raise ValueError(f"meshgrid(): arrays must share one dtype, got {[a.dtype for a in arrays]}")
    sizes = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, a in enumerate(arrays):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(arrays) > 1 else i
        shape = [1] * len(arrays)
        shape[axis] = a.shape[0]
        grids.append(a.reshape(tuple(shape)).expand(tuple(sizes)))
    return tuple(grids)


def from_dlpack(x, /, *, device=None, copy=None):
    """An array over the memory of any DLPack producer, on the default backend (a copy if ``copy=True``)."""
    adapter = _adapter(device)
    if isinstance(x, Tensor) and x._backend is adapter and not copy:
        return x.detach()
    native = None if adapter.mutable else adapter.own_array(x)
    if native is not None:  # the backend's own array (a jax array, even a traced one): no DLPack round trip
        return _made(adapter.xp.asarray(native, copy=True) if copy else native, adapter, device)
    kwargs = {} if copy is None else {"copy": copy}
    try:
        arr = adapter.xp.from_dlpack(x, **kwargs)
    except (TypeError, BufferError, RuntimeError) as e:
        # a namespace without the 2023.12 keywords, or one that refuses the producer's layout (jax takes compact
        # strides only: a column slice of a numpy array): a copy through the host, as the standard allows
        if copy is False:
            raise BufferError(f"from_dlpack(copy=False): backend {adapter.name!r} cannot import this "
                              f"{type(x).__name__} without a copy ({e})") from None
        arr = adapter.from_numpy(np.array(np.from_dlpack(x), order="C"))
    return _made(arr, adapter, device)
