"""The tensors ``xtensor.array_api`` makes: they know their namespace, and follow it.

Every function of the namespace runs under its defaults (``standard_defaults``: float64, as
``__array_namespace_info__().default_dtypes()`` reports) and returns ``ArrayAPITensor``s: Tensors in every respect
(storage, views, autograd, every backend; ``isinstance(x, xtensor.Tensor)``), marked by their class alone (same slots,
no copy). Their operators (arithmetic, comparison, bitwise, ``@``; reflected and in-place), indexing, ``.T``, ``.mT``
and ``to_device`` follow the standard as the namespace's functions do, and return array-API tensors again:
``ints / ints``, ``ints * 0.5`` and ``ints ** 0.5`` are float64, and a negative slice step reverses (``x[::-1]``).

A tensor made by ``xtensor``'s PyTorch-style functions keeps PyTorch's rules (``ints / ints`` is float32, ``x[::-1]``
raises PyTorch's ValueError) and pays nothing for this: the dispatcher's fast paths take exactly ``Tensor``, which an
array-API tensor is not (its operators take the general path). Where the two meet in an operator the array API's
rules hold, whichever side it is on: Python tries a subclass's reflected operator first, so
``torch_style + api_tensor`` is ``api_tensor.__radd__(torch_style)``.

A tensor handed to a namespace function and returned as it is (``asarray(t)``) keeps its class: the namespace never
changes what a caller's tensor is. PyTorch-style methods (``x.sum()``, ``x.detach()``) and gradients (``.grad``)
give plain tensors; ``pickle`` and ``copy.deepcopy`` keep the class, while ``xtensor.save``/``load`` (PyTorch's
format, which knows one tensor class) give back plain tensors.
"""
from .. import _dtypes
from .._creation import _rebuild
from .._tensor import Tensor
from ..ops.elementwise import api_promoted
from ._info import default_float

__all__ = ["ArrayAPITensor", "marked", "standard_defaults", "with_standard_defaults"]


class ArrayAPITensor(Tensor):
    """A tensor made by ``xtensor.array_api``: its operators and indexing follow the array API standard."""

    __slots__ = ()
    _reverses = True  # ``x[::-1]`` reverses (a copy, as ``flip``)
    __hash__ = Tensor.__hash__  # (defining ``__eq__`` would drop it)

    def __reduce_ex__(self, protocol):
        return _rebuild_marked, Tensor.__reduce_ex__(self, protocol)[1]


def _rebuild_marked(backend, values, requires_grad):
    t = _rebuild(backend, values, requires_grad)
    t.__class__ = ArrayAPITensor
    return t


def _mark(tensor, args, kwargs):
    if type(tensor) is not Tensor:
        return
    for a in args:  # (loops, not any(): this runs on every operator of an array-API tensor)
        if a is tensor:
            return
    if kwargs:
        for a in kwargs.values():
            if a is tensor:
                return
    tensor.__class__ = ArrayAPITensor


def marked(result, args=(), kwargs=None):
    """``result`` with each fresh plain tensor in it (itself, or the items of a tuple or list) made an array-API
    tensor; a tensor that is one of ``args``/``kwargs``, handed back as it is, keeps its class."""
    if isinstance(result, (tuple, list)):
        for r in result:
            _mark(r, args, kwargs)
    else:
        _mark(result, args, kwargs)
    return result


def standard_defaults(fn):
    """``fn`` computing with this namespace's default dtypes, those ``Info.default_dtypes`` reports (float64), its
    tensor results marked as the namespace's (``marked``): the one rule by which every function of
    ``xtensor.array_api`` and every operator of its tensors gives ``sin(int64 array)``, ``ints / ints`` or ``mean``
    of ints in float64, while the same entries called through ``xtensor`` keep PyTorch's default (float32)."""
    return _dtypes.with_default_float(fn, default_float, marked)


def with_standard_defaults(namespace, names):
    """``namespace`` (a module's globals) with each function in ``names`` under ``standard_defaults``."""
    for name in names:
        if callable(namespace[name]) and not isinstance(namespace[name], type):
            namespace[name] = standard_defaults(namespace[name])


# The standard's operators: binary ones with their reflected and in-place forms, then the unary ones.
_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift")
_OPERATORS = [f"__{prefix}{name}__" for name in _BINARY for prefix in ("", "r", "i")] + [
    f"__{name}__" for name in ("eq", "ne", "lt", "le", "gt", "ge", "neg", "pos", "abs", "invert")]


def _promoting(operator):
    """``operator`` over its operands promoted first, as the standard's ``matmul`` (PyTorch's refuses mixed dtypes)."""
    def promoted(self, other):
        return operator(*api_promoted(self, other))
    return promoted


for _name in (*_OPERATORS, "__getitem__", "__setitem__", "to_device"):
    if hasattr(Tensor, _name):  # (PyTorch has no ``@=``: Python falls back to ``x = x @ y``)
        _operator = getattr(Tensor, _name)
        setattr(ArrayAPITensor, _name, standard_defaults(
            _promoting(_operator) if _name in ("__matmul__", "__rmatmul__") else _operator))
for _name in ("T", "mT"):
    setattr(ArrayAPITensor, _name, property(standard_defaults(getattr(Tensor, _name).fget)))
