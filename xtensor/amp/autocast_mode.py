"""``torch.autocast``: a region (or decorated function) in which the op classes PyTorch's autocast lists run
in a lower precision, bfloat16 on CPU by default, float16 on CUDA (jax on a GPU); the list is in
``xtensor/_autocast.py``. As PyTorch: autocast for CUDA on a machine without CUDA, or for a dtype the device
type does not autocast to, warns and leaves the region off.
"""
import functools
import warnings

from .. import _autocast, _dtypes

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd", "is_autocast_enabled",
           "get_autocast_dtype", "set_autocast_enabled", "set_autocast_dtype", "get_autocast_cpu_dtype",
           "get_autocast_gpu_dtype", "is_autocast_cpu_enabled", "clear_autocast_cache"]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEFAULT_DTYPES = {"cpu": _dtypes.bfloat16, "cuda": _dtypes.float16}
_state = _autocast.state


def _checked_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                           f"{device_type}")
    return device_type


def is_autocast_available(device_type):
    return _checked_device_type(device_type) in _DEVICE_TYPES


def get_autocast_dtype(device_type):
    """The dtype an autocast region of ``device_type`` casts to (set by the innermost region, else the default)."""
    return _state.dtypes.get(_checked_device_type(device_type)) or _state.defaults.get(
        device_type, _DEFAULT_DTYPES.get(device_type, _dtypes.float16))


def is_autocast_enabled(device_type="cuda"):
    return _state.dtypes.get(_checked_device_type(device_type)) is not None


def set_autocast_enabled(device_type, enabled=None):
    """``set_autocast_enabled(device_type, enabled)``, or PyTorch's legacy ``set_autocast_enabled(enabled)``
    for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    dtype = get_autocast_dtype(device_type)
    _state.dtypes[device_type] = dtype if enabled else None
    _state.active = any(d is not None for d in _state.dtypes.values())


def set_autocast_dtype(device_type, dtype):
    _state.defaults[_checked_device_type(device_type)] = dtype
    if _state.dtypes.get(device_type) is not None:
        _state.dtypes[device_type] = dtype


def is_autocast_cpu_enabled():
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


def clear_autocast_cache():
    """Nothing to clear: xtensor's autocast casts each time (no cache of cast weights)."""


class autocast:
    """``with autocast("cpu"):`` / ``@autocast("cuda", dtype=...)``: listed ops run in ``dtype`` inside."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _checked_device_type(device_type)
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._enabled = enabled
        self._cache_enabled = cache_enabled
        if enabled and device_type == "cuda":
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                self._enabled = False
        if self._enabled and device_type == "cpu" and self.fast_dtype not in (_dtypes.bfloat16, _dtypes.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            self._enabled = False

    def __enter__(self):
        self._previous = (_state.dtypes.get(self.device), _state.active)
        _state.dtypes[self.device] = self.fast_dtype if self._enabled else None
        _state.active = any(d is not None for d in _state.dtypes.values())
        return self

    def __exit__(self, *exc):
        _state.dtypes[self.device], _state.active = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def in_region(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return in_region


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """``torch.amp.custom_fwd``: run a custom ``Function.forward`` with autocast off and its floating inputs
    cast to ``cast_inputs`` when a region of ``device_type`` is on (as is, when ``cast_inputs`` is None)."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        if cast_inputs is None or not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        from .._tensor import Tensor

        def cast(v):
            return v.to(cast_inputs) if isinstance(v, Tensor) and v.is_floating_point() else v
        with autocast(device_type, enabled=False):
            return fwd(*[cast(a) for a in args], **{k: cast(v) for k, v in kwargs.items()})
    return forward


def custom_bwd(bwd=None, *, device_type):
    """``torch.amp.custom_bwd``: the backward unchanged (xtensor's tape needs no autocast state restored)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
