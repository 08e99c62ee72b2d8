"""Generate every spelling of every op-table entry: the torch function, the Tensor method,
the ``_`` in-place method, ``out=``, the operators and the array-API function.

In-place and ``out=`` forms reuse the out-of-place op and then write the result into the
target (in-place ops rewrite the target's history as PyTorch does: a root takes the result's
node, a view rewrites its base's history through a ``CopySlices`` node).
"""
import functools
import inspect
import numbers

import numpy as np
from numpy import asarray as _np_asarray

from . import _autocast, _dtypes
from ._autocast import state as _autocast_state
from ._quiet import quiet, restore
from ._dispatch import _backend_error, _record, apply, history_alias, whole_reduction
from ._inplace import assign_inplace, assign_out, check_inplace, refuse_overlap
from ._ns import RAW_NS
from ._modes import grad_state as _grad_state
from ._registry import FUNCTIONS
from ._table import OVERLAP_KINDS, TABLE
from .ops.elementwise import api_promoted
from ._tensor import Tensor

__all__ = ["torch_functions", "api_functions", "install_methods", "numpy_names", "with_numpy_names"]

def _as_operand(other, like):
    """Binary-op operands: Tensors and Python numbers as they are; NumPy scalars (``np.float64`` is a float, and has a
    dtype) as the Python numbers PyTorch reads them as; anything array-like becomes a Tensor."""
    if isinstance(other, numbers.Number):
        return other.item() if hasattr(other, "item") else other
    if isinstance(other, Tensor):
        return other
    from ._creation import as_tensor
    return as_tensor(other, backend=like._backend)


# --------------------------------------------------------------------------- fast paths
# The common case -- tensors of one backend and dtype, or a tensor and a Python scalar of its
# kind -- skips promotion and backend unification; everything else goes through ``apply``.
_new = object.__new__
_NUMPY_SCALARS = _dtypes.NUMPY_SCALARS  # numpy's 0-d results: a tensor holds a 0-d array instead
_SCALAR_KINDS = {float: "fc", int: "iufc"}


def _fast_unary(op):
    fwd, differentiable, floats_only = op.fwd, op.differentiable, op.cast is not None
    own_bools = op.bool_fwd is not None
    kernels = op._kernels

    def unary(self):
        a = self._arr
        backend = self._backend
        if type(a) is backend.kernel_array_type:  # jax: the forward compiled (``_dispatch.kernel_forward``)
            try:  # (made by apply for a dtype the op computes in as it is)
                kernel, dtype = kernels[self._dtype]
                out = kernel(a)
            except Exception:  # no kernel yet (a KeyError), or it failed: apply sorts it out
                return apply(op, (self,))
        else:
            if a is None or (floats_only and self._dtype.kind not in "fc") or (own_bools and self._dtype.kind == "b"):
                return apply(op, (self,))
            errors = quiet()  # numpy's floating-point warnings off, as in apply
            try:
                out = fwd(backend.xp, a)
            finally:
                restore(errors)
            if out.__class__ in _NUMPY_SCALARS:
                out = _np_asarray(out)
            dtype = backend.dtypes[out.dtype]
        r = _new(Tensor)
        r._arr, r._backend, r._dtype = out, backend, dtype  # (two stores of at most three: no tuple is built)
        r._requires_grad, r._grad_fn = False, None
        if self._requires_grad and differentiable and _grad_state.enabled:
            return _record(op, r, (self,), (self,), RAW_NS[backend] if dtype is self._dtype else None)
        if _grad_state.inference:
            r._inference = True
        return r
    return unary


def _fast_binary(op, reflected=False, check=None):
    fwd, differentiable, cast, has_bool_fwd = op.fwd, op.differentiable, op.cast, op.bool_fwd is not None

    def binary(self, other):
        a = self._arr
        backend = self._backend
        other_type = type(other)
        if other_type is Tensor:
            b = other._arr
            fast = a is not None and b is not None and other._backend is backend and other._dtype is self._dtype
        else:
            b = other
            # bfloat16 takes the general path, where the backend shapes the scalar (numpy's ml_dtypes would promote)
            fast = a is not None and self._dtype.kind in _SCALAR_KINDS.get(other_type, "") and \
                self._dtype is not _dtypes.bfloat16
        # the op's dtype check (``cast``) sees self's dtype only when it is the result's (``0.5 // bools`` is float)
        fast = fast and (cast is None or cast(self._dtype) is self._dtype) and not (
            has_bool_fwd and self._dtype is _dtypes.bool)
        if not fast:
            if other is None:
                return NotImplemented
            other = _as_operand(other, self)
            if check is not None:
                check(self, other)
            return apply(op, (other, self) if reflected else (self, other))
        errors = quiet()  # numpy's floating-point warnings off, as in apply
        try:
            out = fwd(backend.xp, b, a) if reflected else fwd(backend.xp, a, b)
        except OverflowError:  # a Python int out of the dtype's range: the general path wraps it
            return apply(op, (other, self) if reflected else (self, other))
        except (TypeError, ValueError) as e:
            raise _backend_error(op, (other, self) if reflected else (self, other), e) from None
        finally:
            restore(errors)
        if out.__class__ in _NUMPY_SCALARS:
            out = _np_asarray(out)
        r = _new(Tensor)
        r._arr, r._backend, r._dtype = out, backend, backend.dtypes[out.dtype]
        r._requires_grad, r._grad_fn = False, None
        if differentiable and (self._requires_grad or (other_type is Tensor and other._requires_grad)) and \
                _grad_state.enabled:
            args = (other, self) if reflected else (self, other)
            return _record(op, r, args, args, RAW_NS[backend] if r._dtype is self._dtype else None)
        if _grad_state.inference:
            r._inference = True
        return r
    return binary


# --------------------------------------------------------------------------- generators
_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def numpy_names(kwargs, name):
    """PyTorch's argument parser takes two NumPy keywords for its own, for every function and method:
    ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``. ``kwargs`` with them renamed (in place)."""
    for numpy_name, torch_name in _NUMPY_NAMES:
        if numpy_name in kwargs:
            if torch_name in kwargs:
                raise TypeError(f"{name}() got both '{torch_name}' and its alias '{numpy_name}'")
            kwargs[torch_name] = kwargs.pop(numpy_name)
    return kwargs


def with_numpy_names(fn):
    """``fn`` (a torch function or method written by hand) taking ``axis=``/``keepdims=`` too."""
    def function(*args, **kwargs):
        return fn(*args, **numpy_names(kwargs, fn.__name__)) if kwargs else fn(*args)
    function.__name__ = function.__qualname__ = fn.__name__
    function.__doc__ = fn.__doc__
    return function


def _make_function(entry, name):
    op, kind, sig = entry.op, entry.kind, entry.sig
    if kind == "composite":
        def function(*args, out=None, **kwargs):
            r = sig(*args, **numpy_names(kwargs, name)) if kwargs else sig(*args)
            return r if out is None else assign_out(out, r, name)
    elif kind == "unary":
        def function(input, *, out=None):
            r = apply(op, (input,))
            return r if out is None else assign_out(out, r, name, (input,))
    elif kind == "binary":
        def function(input, other, *, alpha=None, out=None, **options):
            if not isinstance(input, Tensor):
                input = _as_operand(input, other)
            other = _as_operand(other, input)
            if entry.check is not None:
                entry.check(input, other)
            if alpha is not None:
                other = _scaled(other, alpha, input)
            r = apply(op, (input, other)) if not options else _with_options(sig, name, input, other, options)
            return r if out is None else assign_out(out, r, name, (input, other))
    else:
        def function(*args, out=None, **kwargs):
            if _autocast_state.active:  # cast before the signature checks dtypes, as PyTorch's autocast does
                args = _autocast.cast_inputs(name, args)
            tensors, params = sig(*args, **numpy_names(kwargs, name)) if kwargs else sig(*args)
            r = apply(op, tensors, params)
            return r if out is None else assign_out(out, r, name, tensors if entry.overlap == "elementwise" else ())
    function.__name__ = function.__qualname__ = name
    function.__doc__ = sig.__doc__ if kind == "composite" else \
        f"xtensor.{name}: generated from the op table entry {op.name!r}."
    return function


def _scaled(other, alpha, input):
    """``alpha * other`` (``add``/``sub``) computed in the result's dtype, as PyTorch does: ``int32 + alpha * bool``
    stays int32, and for bools alpha is a bool."""
    dtype = _dtypes.result_type(input, other)
    if not isinstance(other, Tensor):
        return bool(other and alpha) if dtype is _dtypes.bool else other * alpha
    return other.to(dtype) * (bool(alpha) if dtype is _dtypes.bool else alpha)


def _with_options(sig, name, input, other, options):
    """A binary op called with keywords beyond ``alpha``/``out``: its entry's ``sig`` takes them
    (``div(..., rounding_mode=)``)."""
    if sig is None:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(options))}'")
    return sig(input, other, **options)


def _make_api_function(entry):
    op, kind, api_sig = entry.op, entry.kind, entry.api_sig
    if kind == "composite":
        return api_sig or entry.sig
    if kind == "unary":
        def function(x, /):
            return apply(op, (x,))
    elif kind == "binary":
        def function(x1, x2, /):
            return apply(op, api_promoted(x1, x2))
    else:
        sig = api_sig or entry.sig

        def function(*args, **kwargs):
            tensors, params = sig(*args, **kwargs)
            return apply(op, tensors, params)
        function.__signature__ = inspect.signature(sig)  # what it accepts: the standard's signature
    function.__name__ = function.__qualname__ = entry.api
    function.__doc__ = f"Array API ``{entry.api}``: generated from the op table entry {op.name!r}."
    return function


def _make_method(entry, function):
    op, kind = entry.op, entry.kind
    if kind == "unary":
        method = _fast_unary(op)
    elif kind == "binary":
        fast = _fast_binary(op, check=entry.check)

        def method(self, other, *, alpha=None, **options):
            if options:
                return function(self, other, alpha=alpha, **options)
            return fast(self, other if alpha is None else _scaled(other, alpha, self))
    elif kind == "composite":
        impl = entry.sig

        def method(self, *args, **kwargs):  # straight to the implementation unless out= needs the function
            if not kwargs:
                return impl(self, *args)
            return impl(self, *args, **numpy_names(kwargs, function.__name__)) if "out" not in kwargs else \
                function(self, *args, **kwargs)
    else:
        def method(self, *args, **kwargs):
            return function(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = function.__name__
    return method


def _whole_first(fn, op):
    """``fn`` (the generated method or function of a reduction) whose call with the tensor alone is ``op`` over every
    element (``whole_reduction``: the signature's Python frames cost as much as numpy's reduction)."""
    return functools.update_wrapper(whole_reduction(op, fn), fn)


def _make_inplace(method, name, overlaps=None):
    """``name_``; ``overlaps``: the kinds of ``overlap`` of ``self`` with a tensor argument PyTorch refuses."""
    def inplace(self, *args, **kwargs):
        check_inplace(self, *args)
        if overlaps:
            refuse_overlap(self, args, overlaps)
        source = self
        if _grad_state.enabled and (self._requires_grad or any(
                isinstance(a, Tensor) and a._requires_grad for a in args)):
            source = history_alias(self).clone()  # the old value, for the new node (not self: no cycle)
        return assign_inplace(self, method(source, *args, **kwargs))
    inplace.__name__ = inplace.__qualname__ = name + "_"
    return inplace


def _scaled_inplace(inplace, combine):
    """``add_``/``sub_`` (the generated ``inplace``) with ``alpha`` on numpy arrays of one float dtype and shape, where
    autograd records nothing: ``other * alpha`` into one temporary, then ``combine`` (``np.add``, ``np.subtract``)
    straight into ``self``'s memory -- the general path makes the product and the sum, then copies the sum back
    (``p.data.add_(p.grad, alpha=-lr)`` of a training loop). Its roundings are the general path's: the product, then
    the sum (PyTorch's kernel fuses the two; its last bit may differ from either)."""
    def scaled(self, other, *args, alpha=None, **kwargs):
        a = self._arr
        b = getattr(other, "_arr", None)
        dtype = self._dtype
        if alpha is None or args or kwargs or type(alpha) not in (int, float) or type(self) is not Tensor or \
                type(other) is not Tensor or type(a) is not np.ndarray or type(b) is not np.ndarray or \
                other._dtype is not dtype or dtype not in _NUMPY_FLOATS or a.shape != b.shape or \
                not a.flags.writeable or self._names is not None or other._names is not None or \
                _grad_state.enabled and (self._requires_grad or other._requires_grad or self._base is not None) or \
                self._view is not None and self._view.overlaps() or np.may_share_memory(a, b):
            return inplace(self, other, *args, alpha=alpha, **kwargs)
        errors = quiet()  # numpy's floating-point warnings off, as in apply
        try:
            combine(a, np.multiply(b, alpha), out=a)
        finally:
            restore(errors)
        self._storage.version += 1
        return self
    scaled.__name__ = scaled.__qualname__ = inplace.__name__
    return scaled


_NUMPY_FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64)
_SCALED_INPLACE = {"add": np.add, "sub": np.subtract}  # the in-place ops taking ``alpha``, and their numpy ufunc


def _variant_of(dunder, prefix, operators):
    """Whether ``dunder`` is the ``prefix`` ('r', 'i') form of another listed operator: ``__rrshift__`` is the
    reflected ``__rshift__``, while ``__rshift__`` and ``__invert__`` are no one's variants."""
    return dunder.startswith("__" + prefix) and "__" + dunder[3:] in operators


def _make_operators(entry, method, inplace):
    op = entry.op
    ops = {}
    for dunder in entry.operators:
        spelled = TABLE.get(dunder)  # an operator PyTorch writes with other ops (``s / x``: reciprocal, then mul)
        if spelled is not None and spelled.kind == "composite":
            ops[dunder] = spelled.sig
        elif _variant_of(dunder, "i", entry.operators):
            ops[dunder] = inplace
        elif entry.kind == "binary":
            ops[dunder] = _fast_binary(op, _variant_of(dunder, "r", entry.operators), entry.check)
        elif _variant_of(dunder, "r", entry.operators):
            ops[dunder] = lambda self, other, _op=op: apply(_op, (_as_operand(other, self), self))
        else:
            ops[dunder] = method
    return ops


def _tensors_only(fn, name, is_method):
    """``fn`` refusing Python numbers with PyTorch's TypeError (``maximum(x, 2)``: its binding takes Tensors only;
    the array-API function of the same entry takes numbers, as the standard asks)."""
    def checked(input, other, *args, **kwargs):
        for position, (arg, value) in enumerate((("input", input), ("other", other))):
            if not isinstance(value, Tensor):
                raise TypeError(f"{name}(): argument '{arg}' (position {position + (not is_method)}) must be Tensor, "
                                f"not {type(value).__name__}")
        return fn(input, other, *args, **kwargs)
    checked.__name__ = checked.__qualname__ = fn.__name__
    return checked


torch_functions = FUNCTIONS  # (the one registry: composites and the Tensor namespace call through it)
api_functions = {}
_methods = {}

for _name, _entry in TABLE.items():
    _fn = _make_function(_entry, _name) if _entry.function else None
    if _entry.tensors_only and _fn is not None:
        _fn = _tensors_only(_fn, _name, False)
    if _entry.function:
        torch_functions[_name] = _fn if _entry.whole is None else _whole_first(_fn, _entry.whole)
    if _entry.api:
        api_functions[_entry.api] = _make_api_function(_entry)
    if _entry.method and _fn is not None:
        _m = _make_method(_entry, _fn)
        if _entry.tensors_only:
            _m = _tensors_only(_m, _name, True)
        if _entry.whole is not None:
            _m = _whole_first(_m, _entry.whole)
        _methods[_name] = _m
        _ip = _make_inplace(_m, _name, OVERLAP_KINDS[_entry.overlap]) if _entry.inplace else None
        if _ip is not None:
            _methods[_name + "_"] = _ip if _name not in _SCALED_INPLACE else \
                _scaled_inplace(_ip, _SCALED_INPLACE[_name])
            if _entry.torch_inplace is True or _name in (_entry.torch_inplace or ()):  # (``torch.relu_(x)``)
                torch_functions[_name + "_"] = _ip
        _methods.update(_make_operators(_entry, _m, _ip))


def install_methods(cls):
    """Put the generated methods and operators on ``Tensor``."""
    for name, m in _methods.items():
        setattr(cls, name, m)
