"""The generic adapter: any array-API namespace becomes an xtensor backend.

Everything xtensor computes is written once against the standard namespace
``xp`` this adapter exposes; an adapter only supplies what the standard lacks
or what differs per backend: the dtype map, host conversion, mutability, the
functional scatter that writes through views on immutable arrays, and devices.
The numpy and jax adapters subclass this one and override just those pieces.
"""
import importlib
import math

import numpy as np

from xtensor import _dtypes

__all__ = ["ArrayAPIAdapter", "load"]


class ArrayAPIAdapter:
    """Backend over an array-API namespace whose arrays are treated as immutable."""

    mutable = False  # numpy overrides: writes go straight into the array
    native_indexing = False  # True where ``arr[index]`` takes numpy-style advanced indices
    host = False  # a host backend's tensors may meet any other backend's (like numpy arrays meet jax arrays)
    compiles = False  # whether xtensor.compile can trace a step into one program (jax); else it runs eagerly
    # ``native_conv(x, w, stride, pads, lhs_dilation, dilation, groups)``: a library's convolution kernel (jax's);
    # None: conv1d/conv2d take windows of the input and one einsum, written once against the standard
    native_conv = None

    def __init__(self, xp, name):
        self.xp = xp
        self.name = name
        self.native = {}  # xtensor DType -> backend dtype
        self.dtypes = {}  # backend dtype -> xtensor DType
        self.unsupported = {}  # xtensor DType -> why this backend lacks it, where more can be said
        for d in _dtypes.ALL_DTYPES:
            nd = getattr(xp, d.name, None)
            if nd is not None:
                self.native[d] = nd
                self.dtypes[xp.empty(0, dtype=nd).dtype] = d  # keyed as arrays report it
        self._array_type = type(xp.empty(0))
        # the array type whose ops dispatch runs through ``op_kernel`` (jax's concrete arrays), None for none (an
        # instance attribute: the fast paths read it on every call, numpy's too)
        self.kernel_array_type = None

    def __repr__(self):
        return f"<xtensor backend {self.name!r}>"

    def dtype_of(self, arr):
        try:
            return self.dtypes[arr.dtype]
        except KeyError:
            raise TypeError(f"backend {self.name!r} produced an array of unsupported dtype {arr.dtype}") from None

    def native_dtype(self, dtype):
        try:
            return self.native[dtype]
        except KeyError:
            why = self.unsupported.get(dtype)
            raise TypeError(f"dtype {dtype} is not supported by backend {self.name!r}" + (f": {why}" if why else "")) \
                from None

    def op_kernel(self, forward):
        """``forward`` (an op's eager forward on one array of ``kernel_array_type``) compiled, or None: dispatch runs
        it in the forward's place (``_dispatch.kernel_forward``)."""
        return None

    # -- conversion -------------------------------------------------------------------------
    def from_numpy(self, a):
        """A backend array holding the values of numpy array ``a`` (copied unless the backend can share)."""
        return self.xp.asarray(a)

    def own_array(self, obj):
        """``obj`` when it already is an array of this backend (a tensor can wrap it as it is), else None."""
        return obj if isinstance(obj, self._array_type) else None

    def to_numpy(self, arr):
        """A numpy array with ``arr``'s values (zero-copy where the backend allows)."""
        try:
            return np.from_dlpack(arr)
        except (TypeError, BufferError, RuntimeError, AttributeError):
            return np.asarray(arr)

    def contiguous_copy(self, arr):
        """A copy laid out in row-major order (arrays without strides are always so)."""
        return self.xp.asarray(arr, copy=True)

    def scalar(self, value, dtype):
        """A Python scalar in a form the backend's binary functions accept next to an array of ``dtype``."""
        return value

    def to_dlpack(self, arr, **kwargs):
        """``arr.__dlpack__(**kwargs)``; where the backend cannot honour the request (a DLPack version or
        keyword it lacks), host memory is exported through numpy, copied unless ``copy=False``."""
        try:
            return arr.__dlpack__(**kwargs)
        except (TypeError, BufferError):
            if self.device_of(arr)[0] != "cpu":
                raise
        host = np.asarray(self.to_numpy(arr))
        if kwargs.get("copy") is False:
            return host.__dlpack__(**kwargs)  # shares, or raises BufferError (read-only memory, old version)
        return np.array(host).__dlpack__(**{k: v for k, v in kwargs.items() if k != "copy"})

    # -- writes through views on immutable arrays --------------------------------------------
    def scatter_flat(self, flat, positions, values):
        """``flat`` with ``flat[positions] = values``, functionally, using only standard functions.

        ``positions`` is a host numpy int array (static: it comes from view metadata), so this
        stays traceable under jit; duplicate positions keep the last value, as numpy does.
        """
        xp = self.xp
        if positions.size == 0:
            return flat
        source = np.full(flat.shape[0], -1, dtype=np.int64)
        source[positions] = np.arange(positions.shape[0])
        mask = source >= 0
        picked = xp.take(values, xp.asarray(np.where(mask, source, 0)), axis=0)
        return xp.where(xp.asarray(mask), picked, flat)

    def scatter_reduce_flat(self, flat, positions, values, reduce):
        """``flat`` with ``values`` combined into ``flat[positions]``, functionally: ``reduce`` is "set"
        (a repeated position keeps its last value) or "sum"/"prod"/"amax"/"amin" (repeated positions
        combine in order, as numpy's ``ufunc.at``).

        The standard has no scatter: positions are read on the host, and a reduction runs in rounds,
        each combining one occurrence of every repeated position (exact, and the same order as numpy).
        """
        xp = self.xp
        positions = np.asarray(self.to_numpy(positions)).reshape(-1)
        if reduce == "set":
            return self.scatter_flat(flat, positions, values)
        combine = {"sum": xp.add, "prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}[reduce]
        order = np.argsort(positions, kind="stable")
        ranked = positions[order]
        starts = np.r_[True, ranked[1:] != ranked[:-1]] if ranked.size else np.zeros(0, bool)
        first = np.maximum.accumulate(np.where(starts, np.arange(ranked.size), 0))
        occurrence = np.empty_like(positions)
        occurrence[order] = np.arange(ranked.size) - first
        for r in range(int(occurrence.max()) + 1 if occurrence.size else 0):
            picked = np.flatnonzero(occurrence == r)
            at = positions[picked]
            current = xp.take(flat, xp.asarray(at), axis=0)
            flat = self.scatter_flat(flat, at, combine(current, xp.take(values, xp.asarray(picked), axis=0)))
        return flat

    # -- special functions the standard lacks ---------------------------------------------------
    def special(self, name, *args):
        """scipy.special's ``name`` of backend arrays (and Python numbers) ``args``, in the dtype of the last
        array. The standard has no special functions, so by default they are computed on the host
        (``host_special``) and moved back; backends with their own override this."""
        return self.from_numpy(host_special(name, *(self.to_numpy(a) if hasattr(a, "dtype") else a for a in args)))

    # -- devices ------------------------------------------------------------------------------
    def device_of(self, arr):
        """``(type, index)`` in PyTorch's terms for the device ``arr`` lives on."""
        return ("cpu", None)

    def devices(self):
        return [("cpu", None)]

    def placement(self, device):
        """``(type, index)`` of where xtensor ``device`` puts data: a host-only backend has one CPU (PyTorch
        also reads ``cpu:k`` as ``cpu``)."""
        return ("cpu", None)

    def to_device(self, arr, device):
        """``arr`` on xtensor ``device``."""
        return arr


# Host kernels that scipy.special has under another name or shape.
_SCIPY_EXTRAS = {"airy_ai": lambda special, x: special.airy(x)[0]}


def host_special(name, *args):
    """scipy.special's ``name`` of numpy arrays (and Python numbers) ``args``, in the dtype of the last array.

    Without SciPy, erf/erfc/gammaln are the correctly rounded ``math`` functions and erfinv Newton steps on
    ``erf``; any other name needs SciPy and says so."""
    dtype = [np.asarray(a) for a in args if hasattr(a, "dtype")][-1].dtype
    try:
        from scipy import special
    except ImportError:
        special = None
    if special is not None:
        extra = _SCIPY_EXTRAS.get(name)
        out = extra(special, *args) if extra else getattr(special, name)(*args)
        return np.asarray(out).astype(dtype, copy=False)
    (a,) = args
    if name in ("erf", "erfc", "gammaln"):
        return np.vectorize(getattr(math, "lgamma" if name == "gammaln" else name), otypes=[dtype])(a)
    if name != "erfinv":
        raise RuntimeError(f"the special function {name!r} is computed by SciPy on this backend: pip install scipy")
    erf = np.vectorize(math.erf, otypes=[np.float64])
    y = a.astype(np.float64)
    x = np.where(np.abs(y) < 1, np.arctanh(y) * 0.9, np.copysign(np.inf, y))  # a start near the root
    x = np.where(np.isnan(y) | (np.abs(y) > 1), np.nan, x)
    finite = np.isfinite(x)
    for _ in range(60):  # Newton on erf(x) = y; converges in a few steps from this start
        step = np.where(finite, (erf(np.where(finite, x, 0)) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x)), 0)
        x = x - step
        if np.all(np.abs(step) <= 1e-16 * np.maximum(np.abs(np.where(finite, x, 0)), 1)):
            break
    return x.astype(a.dtype)


def load(name):
    """An adapter over the importable module ``name`` (array-API compliant itself or through array-api-compat)."""
    module = importlib.import_module(name)
    if hasattr(module, "__array_namespace_info__"):
        return ArrayAPIAdapter(module, name)
    import array_api_compat

    xp = array_api_compat.array_namespace(module.asarray(0))
    return ArrayAPIAdapter(xp, name)
