"""The jax backend: immutable arrays on CPU/GPU/TPU through XLA.

x64 is switched on so float64/int64 tensors behave as in PyTorch. Writes through views use
one functional update of the storage (``lax.dynamic_update_slice`` of the box a sliced view covers,
``.at[].set`` at the positions of any other view), which stays traceable under ``jax.jit``.
"""
import functools
import os
import types
from inspect import signature

import numpy as np

try:
    import jax
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("the jax backend needs jax: pip install 'xtensor[jax]'") from e

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

from xtensor._settings import jax_compilation_cache, jax_matmul_precision  # noqa: E402


def _keep_compiled_programs_on_disk():
    """jax's persistent compilation cache in xtensor's cache folder, for every program however quick to compile,
    unless jax was given a cache folder already (the user's settings win) or ``XTENSOR_JAX_CACHE=0``. Eager ops
    compile one XLA program per op and shape (~10-40 ms each on a CPU): a PyTorch script's first run on jax spends
    most of its time there (minGPT's adder, 30 iterations: 617 programs, 27 of its 40 s), and the next run of the
    same script reads them back (20 s), as PyTorch's inductor keeps its compiled kernels on disk. Set before the
    first compile, when jax decides once whether to use a cache."""
    folder = jax_compilation_cache()
    if folder is None or jax.config.jax_compilation_cache_dir is not None:
        return
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return  # a read-only home: no cache (jax would warn on every program it could not write)
    if not os.access(folder, os.W_OK):
        return
    jax.config.update("jax_compilation_cache_dir", folder)
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


_keep_compiled_programs_on_disk()

from .generic import ArrayAPIAdapter, host_special  # noqa: E402

jax.config.update("jax_default_matmul_precision", jax_matmul_precision())  # PyTorch's float32 products on GPUs

__all__ = ["JaxAdapter"]

_JAX_NAMES = {"psi": "digamma"}  # scipy.special's names, as jax.scipy.special spells them
_PLATFORM_TO_TORCH = {"cpu": "cpu", "gpu": "cuda", "cuda": "cuda", "rocm": "cuda", "tpu": "xla"}


def _scatter_multiply(flat, positions, values):
    """``flat.at[positions].multiply(values)`` as jax can differentiate it (its scatter-multiply has no gradient
    where a position may repeat): the values sorted by position, a product scan that restarts at each new position,
    and each position's product gathered back -- only gathers, so ``jax.grad``/``jax.vjp`` see every factor."""
    if positions.size == 0:
        return flat
    values = jnp.broadcast_to(values, positions.shape).reshape(-1).astype(flat.dtype)
    order = jnp.argsort(positions.reshape(-1), stable=True)
    sorted_positions, sorted_values = positions.reshape(-1)[order], values[order]
    starts = jnp.concatenate([jnp.ones(1, bool), sorted_positions[1:] != sorted_positions[:-1]])

    def restart_or_multiply(a, b):
        return a[0] | b[0], jnp.where(b[0], b[1], a[1] * b[1])
    _, running = jax.lax.associative_scan(restart_or_multiply, (starts, sorted_values))
    last = jnp.searchsorted(sorted_positions, jnp.arange(flat.shape[0]), side="right") - 1
    hit = sorted_positions[jnp.maximum(last, 0)] == jnp.arange(flat.shape[0])
    return flat * jnp.where((last >= 0) & hit, running[jnp.maximum(last, 0)], jnp.ones((), flat.dtype))


def _scatter_reduce(flat, positions, values, reduce):
    """``flat`` with ``values`` combined in at ``positions`` by ``reduce`` (set, sum, prod, amax, amin)."""
    if reduce == "prod" and jnp.issubdtype(flat.dtype, jnp.inexact):
        return _scatter_multiply(flat, positions, values)
    at = flat.at[positions]
    return {"set": at.set, "sum": at.add, "prod": at.multiply, "amax": at.max, "amin": at.min}[reduce](values)


_SCATTER_KERNELS = {reduce: jax.jit(functools.partial(_scatter_reduce, reduce=reduce))
                    for reduce in ("set", "sum", "prod", "amax", "amin")}


def _register_pytree():
    """Tensors are pytrees (leaf: the array), so ``jax.jit``/``grad``/``vmap`` take and return them.

    Only the value crosses the boundary: a tensor rebuilt inside a trace is a fresh leaf, and
    ``requires_grad`` is carried as static metadata so the xtensor tape can run inside jit.
    """
    from xtensor._dispatch import wrap
    from xtensor._tensor import Tensor
    from xtensor._backend import get_backend
    from xtensor.array_api._array import ArrayAPITensor

    def flatten(t):
        return (t._value,), (t._backend.name, t._requires_grad and t._grad_fn is None)

    def unflatten(aux, children, cls=Tensor):
        name, requires_grad = aux
        (arr,) = children
        backend = get_backend(name)
        dtype = getattr(arr, "dtype", None)  # jax also unflattens placeholders that are not arrays
        t = wrap(arr, backend, backend.dtypes.get(dtype) if dtype is not None else None) if dtype is not None \
            else object.__new__(Tensor)
        t._arr, t._requires_grad = arr, requires_grad
        t.__class__ = cls
        return t

    global _registered
    if not _registered:  # adapters may be instantiated more than once (entry-point discovery)
        jax.tree_util.register_pytree_node(Tensor, flatten, unflatten)
        jax.tree_util.register_pytree_node(ArrayAPITensor, flatten,  # (the array API's tensors stay its own)
                                           lambda aux, children: unflatten(aux, children, ArrayAPITensor))
        _registered = True


_registered = False


def _incomplete_gamma(native, name, a, x):
    """jax's regularized incomplete gamma with SciPy's and PyTorch's limits where jax gives NaN: P(0, x > 0) = 1
    and P(+inf, finite x >= 0) = 0 (Q = 1 - P); a = -inf and x < 0 stay NaN, as SciPy's."""
    limit = jnp.where((a == 0) & (x > 0), 1.0, jnp.where((a == jnp.inf) & jnp.isfinite(x) & (x >= 0), 0.0, jnp.nan))
    limit = limit if name == "gammainc" else 1 - limit
    return jnp.where(jnp.isnan(limit), native(a, x), limit.astype(jnp.result_type(a, x)))


# SciPy's values where jax.scipy.special's kernels differ, each function one jitted program (compiled once per shape and
# dtype, where eager where-chains over jax's own eager kernel cost ~1 s for each new shape).
@jax.jit
def _zeta(x, q):
    """Hurwitz zeta as SciPy's (Cephes') checks it, in its order: inf at s = 1, NaN for s < 1, inf at the poles
    q = 0, -1, -2... (jax: inf or NaN by the sign of s), and the limits at +inf (jax: NaN): zeta(+inf, q) is inf below
    q = 1 and 1 at it, zeta(s > 1, +inf) is 0."""
    import jax.scipy.special
    value = jnp.where(jnp.isposinf(x) & (q <= 1), jnp.where(q < 1, jnp.inf, 1.0), jax.scipy.special.zeta(x, q))
    value = jnp.where(jnp.isposinf(q) & (x > 1), 0.0, value)
    value = jnp.where((q <= 0) & (q == jnp.floor(q)), jnp.inf, value)
    return jnp.where(x == 1, jnp.inf, jnp.where(x < 1, jnp.nan, value)).astype(value.dtype)


@jax.jit
def _digamma(x):
    """digamma with SciPy's and PyTorch's poles at zero, where jax gives NaN: -inf at +0, +inf at -0."""
    import jax.scipy.special
    value = jax.scipy.special.digamma(x)
    return jnp.where(x == 0, jnp.copysign(jnp.inf, -x), value).astype(value.dtype)


@functools.partial(jax.jit, static_argnums=0)
def _polygamma(n, x):
    """polygamma of a Python int ``n`` with SciPy's values where jax gives NaN: digamma's at zero for n = 0; for
    n >= 1, (-1)**(n+1) n! zeta(n+1, x) is (-1)**(n+1) inf at the poles x = 0, -1, -2... and at -inf, and
    (-1)**(n+1) 0 at +inf (PyTorch agrees but at +inf, where it gives NaN)."""
    import jax.scipy.special
    if n == 0:
        return _digamma(x)
    value = jax.scipy.special.polygamma(n, x)
    sign = 1.0 if n % 2 else -1.0
    value = jnp.where(jnp.isposinf(x), sign * 0.0, value)
    return jnp.where((x <= 0) & (x == jnp.floor(x)), sign * jnp.inf, value).astype(value.dtype)


_SCIPY_EDGES = {"zeta": _zeta, "psi": _digamma, "polygamma": _polygamma}  # by SciPy's name


_BINARY = ("add", "subtract", "multiply", "divide")
_REDUCTIONS = ("sum", "mean", "max", "min")
_SCALARS = (int, float, bool, complex)
# jnp functions whose eager call runs Python around several primitives (measured, float32[64, 128]: zeros_like and
# ones_like 54-61 µs, broadcast_to 61, take_along_axis 43, permute_dims and reshape 21, expand_dims 20, astype 16-19,
# matrix_transpose 17, take 10, where 6-10, squeeze 8, maximum 6.7) against ~5-7 µs for a cached ``jax.jit``:
# name -> how many leading positional arguments are data (arrays, or Python scalars as weakly typed values); the
# rest, and keywords, are static (axes, shapes, dtypes)
_MAX_STATIC_PARTS = 1024  # programs kept per function (its static parts: axes, target shapes, dtypes)
_STATIC_KERNELS = {"where": 3, "zeros_like": 1, "ones_like": 1, "full_like": 2, "expand_dims": 1, "squeeze": 1,
                   "reshape": 1, "broadcast_to": 1, "permute_dims": 1, "matrix_transpose": 1, "take_along_axis": 2,
                   "take": 2, "astype": 1, "maximum": 2, "minimum": 2}


def _binary_kernel(fn):
    """``fn(x, y)`` through a cached ``jax.jit`` (~4.5 µs against ~6.5 for jax's eager dispatch) when both operands
    are concrete arrays, or one is a Python scalar (weakly typed, as jax's eager call treats it); tracers (inside an
    outer ``jax.jit``) and anything else take ``fn`` itself, so a traced program holds the plain primitive."""
    jitted = jax.jit(fn)

    def call(x, y):
        tx, ty = type(x), type(y)
        if (tx is _CONCRETE_ARRAY and (ty is _CONCRETE_ARRAY or ty in _SCALARS)) or \
                (ty is _CONCRETE_ARRAY and tx in _SCALARS):
            return jitted(x, y)
        return fn(x, y)
    call.__name__ = fn.__name__
    return call


def _kernel_with_statics(fn, data):
    """``fn(*data_args, *static_args, **static_options)`` through a ``jax.jit`` cached per static part when the
    ``data`` leading arguments are concrete arrays or Python scalars (weakly typed, as jax's eager call treats them);
    anything else -- a tracer, an unhashable static (a list), a call the jitted function refuses (``where(cond)``:
    a data-dependent shape) -- takes ``fn`` itself."""
    programs = {}  # (number of arguments, statics) -> the jitted call, or fn where it cannot be jitted

    def call(*args, **options):
        arrays = args[:data]
        for a in arrays:
            if type(a) is not _CONCRETE_ARRAY and type(a) not in _SCALARS:
                return fn(*args, **options)
        statics = args[data:]
        key = (len(args), statics, tuple(options.items())) if options else (len(args), statics)
        try:
            program = programs.get(key)
        except TypeError:  # an unhashable static
            return fn(*args, **options)
        if program is not None:
            return program(*arrays)
        if len(programs) >= _MAX_STATIC_PARTS:  # (shapes among the statics: bounded, as jax's own caches are)
            programs.clear()
        program = jax.jit(lambda *values: fn(*values, *statics, **options))
        try:
            out = program(*arrays)
        except Exception:
            program, out = None, fn(*args, **options)  # fn's own error, or fn from now on
        programs[key] = program or (lambda *values: fn(*values, *statics, **options))
        return out
    call.__name__ = fn.__name__
    return call


def _propagating_nan(reduce):
    """jnp's ``max`` or ``min`` with NaN propagated, as the standard, NumPy and PyTorch ask: XLA's CPU reduction over
    ~4096 elements or more loses NaNs, and with them the right value (the min of 10,001 numbers, a tenth NaN, comes
    out as a number that is not even their nanmin)."""
    def reduction(x, axis=None, keepdims=False, **kwargs):
        x = jnp.asarray(x)
        value = reduce(x, axis=axis, keepdims=keepdims, **kwargs)
        if not jnp.issubdtype(x.dtype, jnp.floating):
            return value
        return jnp.where(jnp.any(jnp.isnan(x), axis=axis, keepdims=keepdims, where=kwargs.get("where")), jnp.nan, value)
    reduction.__name__ = reduce.__name__
    return reduction


def _reduction_kernel(fn):
    """``fn(x, axis=..., keepdims=..., ...)`` through a ``jax.jit`` cached per static axis, keepdims and dtype when
    ``x`` is a concrete array and the axis is None, an int or a tuple (hashable); anything else takes ``fn``. A
    reduction over every axis (``x.sum()``: None, or xtensor's ``(0, ..., ndim - 1)``) calls a ``jax.jit`` without
    static arguments: hashing them costs ~0.4 µs of a ~5 µs call."""
    jitted = jax.jit(fn, static_argnames=[n for n in ("axis", "keepdims", "dtype") if n in signature(fn).parameters])
    whole = jax.jit(fn)

    def call(x, axis=None, keepdims=False, **kwargs):
        if type(x) is _CONCRETE_ARRAY:
            if not kwargs and not keepdims and (axis is None or axis == _EVERY_AXIS[x.ndim]):
                return whole(x)
            if (axis is None or isinstance(axis, (int, tuple))) and (not kwargs or kwargs.keys() == {"dtype"}):
                return jitted(x, axis=axis, keepdims=keepdims, **kwargs)
        return fn(x, axis=axis, keepdims=keepdims, **kwargs)
    call.__name__ = fn.__name__
    return call


_EVERY_AXIS = [tuple(range(ndim)) for ndim in range(65)]  # by rank (jax arrays have at most 64 axes)


class _KernelNamespace(types.ModuleType):
    """``jax.numpy`` as the jax backend's ``xp``, its binary arithmetic, its reductions and the shape, cast and
    selection functions of ``_STATIC_KERNELS`` dispatched through cached jitted kernels (jax's eager dispatch of one
    primitive costs ~2 µs more than a cached ``jax.jit``'s, of a jnp function that binds several 10-55 µs more; unary
    functions gain nothing and stay plain). Values, dtypes and weak typing are jnp's own: the kernels are jnp's
    functions."""

    def __init__(self):
        super().__init__("xtensor.adapters.jax.xp", self.__doc__)
        for name in _BINARY:
            setattr(self, name, _binary_kernel(getattr(jnp, name)))
        for name in _REDUCTIONS:
            reduce = getattr(jnp, name)
            setattr(self, name, _reduction_kernel(_propagating_nan(reduce) if name in ("max", "min") else reduce))
        for name, data in _STATIC_KERNELS.items():
            setattr(self, name, _kernel_with_statics(getattr(jnp, name), data))

    def __getattr__(self, name):
        value = getattr(jnp, name)
        setattr(self, name, value)
        return value


_UNSET = object()
_UPDATE_BOX = jax.jit(jax.lax.dynamic_update_slice)
_CONCRETE_ARRAY = type(jnp.zeros(0))  # concrete arrays (jaxlib's ArrayImpl); tracers are other types


class JaxAdapter(ArrayAPIAdapter):
    native_indexing = True
    compiles = True
    _placement_maps = None
    _sole_default = _UNSET

    def __init__(self):
        super().__init__(_KernelNamespace(), "jax")
        self.kernel_array_type = _CONCRETE_ARRAY  # a tracer's ops stay primitives of the program traced
        _register_pytree()

    def op_kernel(self, forward):
        """``forward`` (an op's whole eager forward on one array) as a ``jax.jit`` program: one C++ dispatch of a cached
        program (~4.3 µs), where the forward's Python and each of its primitives' eager dispatches (4.4-6.7 µs each)
        cost more."""
        return jax.jit(forward)

    def from_numpy(self, a):
        return jax.device_put(a)  # jnp.asarray compiles a copy kernel per shape and dtype

    def own_array(self, obj):
        """Concrete jax arrays and tracers alike (inside ``jax.jit`` a tensor wraps the tracer)."""
        return obj if isinstance(obj, jax.Array) else None

    def to_numpy(self, arr):
        return np.asarray(arr)

    def scatter_flat(self, flat, positions, values):
        return self.scatter_reduce_flat(flat, positions, values, "set")

    def update_box(self, array, starts, values):
        """``array`` with the box at host ``starts`` replaced by ``values`` (of the box's shape): a write through a
        sliced view, as one ``lax.dynamic_update_slice`` (4x cheaper than ``.at[slices].set``; traceable): on concrete
        arrays through one cached ``jax.jit`` with the starts as its arguments (7 µs against 48 for the eager call)."""
        if type(array) is _CONCRETE_ARRAY and type(values) is _CONCRETE_ARRAY:
            return _UPDATE_BOX(array, values, tuple(int(s) for s in starts))
        return jax.lax.dynamic_update_slice(array, values, starts)

    def read_box(self, array, starts, sizes):
        """The box of ``sizes`` at ``starts`` (traced values too) of ``array``: a basic index's read in a cached
        indexing program, its starts arguments of the program (``ops/indexing.py``), as one ``lax.dynamic_slice``."""
        return jax.lax.dynamic_slice(array, starts, sizes)

    def scatter_reduce_flat(self, flat, positions, values, reduce):
        """Concrete arrays (host or device positions) through a cached ``jax.jit`` per ``reduce``: jnp's eager
        ``.at[]`` update binds ~5 primitives (~1 ms for 32 rows here); tracers as jnp's own primitives."""
        if type(flat) is _CONCRETE_ARRAY and type(values) is _CONCRETE_ARRAY and \
                type(positions) in (np.ndarray, _CONCRETE_ARRAY):
            return _SCATTER_KERNELS[reduce](flat, positions, values)
        return _scatter_reduce(flat, positions, values, reduce)

    def native_conv(self, x, w, stride, pads, lhs_dilation, dilation, groups):
        """``lax.conv_general_dilated`` in PyTorch's layout (N, C, *spatial) x (O, C / groups, *kernel), at full
        float32 precision (no TF32 on GPUs); xtensor's ``convolution`` entry (``xtensor/ops/nn.py``) calls it."""
        spatial = "DHW"[3 - (x.ndim - 2):]
        return jax.lax.conv_general_dilated(x, w, stride, pads, lhs_dilation, dilation,
                                            ("NC" + spatial, "OI" + spatial, "NC" + spatial),
                                            feature_group_count=groups, precision=jax.lax.Precision.HIGHEST)

    def special(self, name, *args):
        """jax.scipy.special's function where jax has one (differentiable by jax, traceable); the others
        (the Bessel functions j0... k1e, airy_ai) on the host through ``jax.pure_callback``, still traceable."""
        import jax.scipy.special
        native = getattr(jax.scipy.special, _JAX_NAMES.get(name, name), None)
        if name in ("gammainc", "gammaincc"):
            return _incomplete_gamma(native, name, *args)
        if name in _SCIPY_EDGES:
            return _SCIPY_EDGES[name](*args)
        if native is not None:
            return native(*args)
        arrays = [a for a in args if hasattr(a, "dtype")]
        result = jax.ShapeDtypeStruct(jnp.broadcast_shapes(*(a.shape for a in arrays)), arrays[-1].dtype)
        return jax.pure_callback(lambda *host: host_special(name, *host), result, *args, vmap_method="expand_dims")

    # -- compiling: what xtensor.compile asks of a backend that compiles (xtensor/_compile) ----------------------
    tracer_type = jax.core.Tracer
    host_read_errors = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                        jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError)

    def trace(self, fn, *example):
        """``fn`` run once on tracers shaped as ``example``: a program that ``program_function`` turns into a function
        of flat arrays (the user's Python never runs again for it)."""
        return jax.make_jaxpr(fn)(*example)

    def python_scalar(self, x):
        """A traced 0-d array as the Python number ``.item()`` would give behaves in arithmetic: weakly typed (it
        takes the other operand's precision) and, for a real float, float64 -- so bias corrections such as
        ``1 - beta2 ** step`` round as in the eager optimizer (``jax.numpy``'s casts have no weak result)."""
        if jnp.issubdtype(x.dtype, jnp.floating):
            try:  # jax's one cast with a weak result is private: a jax without it keeps the backend working
                from jax._src.lax.lax import _convert_element_type
            except ImportError:  # a strong float64: float32 updates then round once more, from float64
                return x.astype(jnp.float64)
            return _convert_element_type(x, np.dtype(np.float64), weak_type=True)
        return x

    def program_function(self, traced):
        import jax.extend.core
        return jax.extend.core.jaxpr_as_fun(traced)

    def read_inputs(self, traced):
        """Indices of the inputs of a traced program that its equations or outputs read."""
        import jax.extend.core

        jaxpr, read = traced.jaxpr, set()
        for eqn in jaxpr.eqns:
            read.update(v for v in eqn.invars if not isinstance(v, jax.extend.core.Literal))
        read.update(v for v in jaxpr.outvars if not isinstance(v, jax.extend.core.Literal))
        return {i for i, v in enumerate(jaxpr.invars) if v in read}

    def scan(self, step, carry, xs, reverse=False):
        """``step(carry, x_t) -> (carry, y_t)`` over the leading axis of ``xs`` as one loop in the program being traced
        (``jax.lax.scan``): the final carry and the ``y_t`` stacked; traced once, whatever the number of steps."""
        return jax.lax.scan(step, carry, xs, reverse=reverse)

    def jit(self, fn, donate_argnums=()):
        """``fn`` compiled, the arguments at ``donate_argnums`` donated (their buffers reused for the results)."""
        return jax.jit(fn, donate_argnums=donate_argnums)

    def differentiable_program(self, fn):
        """Four jitted functions over ``fn(diff, other) -> (diff_outs, other_outs)`` (lists of arrays): ``forward``
        (no gradient), ``forward_vjp`` returning ``(diff_outs, other_outs, residuals)`` -- the residuals are jax's
        VJP closure, a pytree of device arrays --, ``backward(residuals, cotangents) -> gradients of diff``, and
        ``forward_grad(diff, other, seed) -> (diff_outs, other_outs, gradients of diff)``: forward and backward as
        one program, the gradients those of the real scalar ``diff_outs[seed]`` (cotangent one; the other outputs'
        zero), no residuals kept."""
        def forward_vjp(diff, other):
            outs, pullback, aux = jax.vjp(lambda d: fn(d, other), diff, has_aux=True)
            return outs, aux, pullback

        def forward_grad(diff, other, seed):
            def seeded(d):
                outs, aux = fn(d, other)
                return outs[seed], (outs, aux)
            (_, (outs, aux)), grads = jax.value_and_grad(seeded, has_aux=True)(diff)
            return outs, aux, grads
        return (jax.jit(fn), jax.jit(forward_vjp), jax.jit(lambda pullback, cotangents: pullback(cotangents)[0]),
                jax.jit(forward_grad, static_argnums=2))

    def tree_flatten(self, tree, leaf_type):
        """(leaves, structure) of nested containers, ``leaf_type`` instances kept whole."""
        return jax.tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, leaf_type))

    def tree_unflatten(self, structure, leaves):
        return jax.tree_util.tree_unflatten(structure, leaves)

    # -- devices: PyTorch's names for jax's devices (gpu -> cuda, tpu -> xla) -------------------------
    def device_of(self, arr):
        try:
            (dev,) = arr.devices()
        except (ValueError, AttributeError, TypeError):  # sharded or traced: report the default device
            dev = jax.devices()[0]
        return self._placements()[1][dev]

    def devices(self):
        return list(self._placements()[0])

    def placement(self, device):
        return self._placements()[1][self.jax_device(device)]

    def to_device(self, arr, device):
        """``arr`` committed to the jax device that xtensor ``device`` names (traceable under jit). An array already
        on the default device, where it is its platform's only device, is returned as it is: committed and
        uncommitted arrays are different arguments to every cached program (``torch.arange(n, device=x.device)``
        in a model's forward compiled each kernel it met twice), and with one device there is no other to move to."""
        target = self.jax_device(device)
        if type(arr) is _CONCRETE_ARRAY and target is self._sole_default_device() and arr.devices() == {target}:
            return arr
        return jax.device_put(arr, target)

    def _sole_default_device(self):
        """jax's default device where it is the only device of its platform and no default is configured (read each
        call: a script may set ``jax_default_device`` at any time), else None. The devices are fixed at start-up."""
        if self._sole_default is _UNSET:
            first = jax.devices()[0]
            self._sole_default = first if len(jax.devices(first.platform)) == 1 else None
        return self._sole_default if jax.config.jax_default_device is None else None

    def jax_device(self, device):
        """The jax device for an xtensor ``device``: ``cpu``/``cpu:k`` (jax's CPU devices), ``cuda:k``
        (its GPUs), ``xla:k`` (its TPUs); a missing index means the first."""
        by_name, _ = self._placements()
        key = (device.type, device.index if device.index else (None if device.type == "cpu" else 0))
        try:
            return by_name[key]
        except KeyError:
            have = [f"{k}:{i or 0}" for k, i in by_name if k == device.type]
            raise RuntimeError(f"the jax backend has no device {device} (it has {', '.join(have) or 'none'})") \
                from None

    def _placements(self):
        """``({(type, index): jax device}, {jax device: (type, index)})`` for the default platform's
        devices and the CPU's, in jax's order. The first CPU device is plain ``cpu``, as PyTorch's."""
        if self._placement_maps is None:
            found = {}
            for platform in dict.fromkeys((jax.default_backend(), "cpu")):
                for index, dev in enumerate(jax.devices(platform)):
                    kind = _PLATFORM_TO_TORCH.get(dev.platform, dev.platform)
                    found[(kind, None if kind == "cpu" and index == 0 else index)] = dev
            self._placement_maps = found, {dev: name for name, dev in found.items()}
        return self._placement_maps
