"""xtensor: a thin PyTorch-style Tensor with its own autograd tape over pluggable array-API backends.

``import xtensor as torch`` gives the PyTorch-style namespace; ``xtensor.array_api`` is the
array-API standard namespace over the same Tensor.
"""
from . import _compiled_core
_compiled_core.install()  # first: the compiled core modules load through its finder (or their .py)
from ._compiled_core import compiled_core  # noqa: E402  (which modules run compiled, and why not)
import math as _math  # noqa: E402
from . import _dtypes
from ._backend import available_backends, get_backend, get_default_backend, set_default_backend, use_backend
from ._dtypes import (bfloat16, bool, can_cast, complex64, complex128, finfo, float16, float32, float64,
                      get_default_dtype, iinfo, int8, int16, int32, int64, promote_types, set_default_dtype, uint8,
                      uint16, uint32, uint64)
from ._printing import get_printoptions, set_printoptions
from ._tensor import Size, Tensor, device
from . import _variants, _methods
from .ops import shapes as _shapes
from ._creation import (arange, as_tensor, bernoulli, empty, empty_like, eye, from_numpy, full, full_like,
                        Generator, get_rng_state, initial_seed, linspace, logspace, manual_seed, multinomial, normal,
                        ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm, seed,
                        set_rng_state, tensor, zeros, zeros_like, default_generator, _typed_constructor,
                        asarray, empty_permuted, empty_strided, frombuffer, scalar_tensor, range_ as range,
                        complex_ as complex, polar, poisson, binomial, bartlett_window, blackman_window,
                        hamming_window, hann_window, kaiser_window)
from ._layout import layout, strided
from . import _names
from . import autograd
autograd._load_extensions()
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                       set_grad_enabled)

from .version import XTENSOR_VERSION as __version__  # noqa: E402

_variants.install_methods(Tensor)
_methods.install(Tensor)
_shapes.install_methods(Tensor)
_names.install(Tensor)  # after every method is in place: wraps transpose/permute/t and the copies
Tensor.__module__ = "xtensor"  # prints as <class 'xtensor.Tensor'>, as PyTorch's as <class 'torch.Tensor'>
globals().update(_variants.torch_functions)
globals().update(_methods.FUNCTIONS)
from ._settings import *  # noqa: E402,F401,F403  (deterministic algorithms, warn-always, default device...)
from . import fft, linalg  # noqa: E402  (the torch.fft and torch.linalg namespaces)
from . import array_api  # noqa: E402
from .array_api._creation import from_dlpack  # noqa: E402  (unwrapped: plain tensors, as PyTorch's)
array_api._install(Tensor)
from ._compile import compile  # noqa: E402
from . import nn  # noqa: E402
from .nn.functional import _aten  # noqa: E402  (torch.conv1d, torch.celu_, x.hardshrink(): nn.functional's torch spellings)
globals().update(_aten.torch_functions())
for _name, _value in _aten.tensor_methods().items():
    setattr(Tensor, _name, _value)
from . import optim, utils  # noqa: E402
from .serialization import load, save  # noqa: E402
from . import special  # noqa: E402  (the torch.special namespace; after nn, whose logsigmoid it uses)
from . import distributed  # noqa: E402  (torch.distributed over jax.sharding; imports jax only when used)
from . import jit, onnx, testing  # noqa: E402  (torch.jit/onnx stand-ins, torch.testing.assert_close)
from . import accelerator, amp, backends, compiler, cpu, cuda, mps  # noqa: E402  (the setup switches scripts set)
from .amp import autocast  # noqa: E402
from .amp.autocast_mode import (clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype,  # noqa: E402
                                get_autocast_gpu_dtype, is_autocast_cpu_enabled, is_autocast_enabled,
                                set_autocast_dtype, set_autocast_enabled)
from .cuda import OutOfMemoryError  # noqa: E402
from . import sparse  # noqa: E402  (torch.sparse: sparse COO tensors)
sparse._install(Tensor)
from .sparse import sparse_coo, sparse_coo_tensor, spmm  # noqa: E402
mm, matmul = sparse.layout_aware(mm, sparse.spmm), sparse.layout_aware(matmul, sparse.matmul)  # noqa: F821
from ._torch_alias import install_as_torch  # noqa: E402  (``import torch`` gives xtensor: ``xtensor run``)
from . import _C  # noqa: E402  (torch._C: the few no-op entry points libraries call, a clear error for the rest)
from . import version  # noqa: E402  (torch.version: the version string, cuda and hip None as a CPU build's)
from . import func, multiprocessing, random, types  # noqa: E402  (torch.func, .random, .types, .multiprocessing)
from .func import vmap  # noqa: E402
from . import distributions  # noqa: E402  (torch.distributions)
from . import hub, profiler  # noqa: E402  (torch.hub without the network; torch.profiler over perf_counter/cProfile)

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan  # torch.pi, torch.e, torch.inf, torch.nan
newaxis = None
dtype = _dtypes.DType  # the type of every dtype, as ``torch.dtype`` (annotations and isinstance checks name it)
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128

FloatTensor = _typed_constructor("float32")
DoubleTensor = _typed_constructor("float64")
HalfTensor = _typed_constructor("float16")
LongTensor = _typed_constructor("int64")
IntTensor = _typed_constructor("int32")
ShortTensor = _typed_constructor("int16")
CharTensor = _typed_constructor("int8")
ByteTensor = _typed_constructor("uint8")
BoolTensor = _typed_constructor("bool")
for _name, _ctor in list(globals().items()):
    if _name.endswith("Tensor") and _name != "Tensor" and callable(_ctor):
        _ctor.__name__ = _name
        _ctor.dtype = _dtypes.by_name({"Float": "float32", "Double": "float64", "Half": "float16", "Long": "int64",
                                       "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8",
                                       "Bool": "bool"}[_name[:-6]])


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def result_type(tensor1, tensor2):
    return _dtypes.result_type(tensor1, tensor2)


def is_floating_point(input):
    return input.is_floating_point()


def set_default_tensor_type(t):
    """Legacy: ``'torch.DoubleTensor'`` (or the constructor) sets the default float dtype."""
    name = t if isinstance(t, str) else t.__name__
    dtype = {"FloatTensor": float32, "DoubleTensor": float64, "HalfTensor": float16}.get(name.split(".")[-1])
    if dtype is None:
        raise TypeError(f"only floating-point types are supported as the default type, got {name}")
    set_default_dtype(dtype)


del _name, _ctor

from . import _table as _op_table  # noqa: E402
_op_table.freeze()  # every op is registered: the table is read-only from here on
