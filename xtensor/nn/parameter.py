"""``nn.Parameter`` and ``nn.Buffer``: the tensors a Module registers as a parameter or a buffer when they are
assigned to it."""
from .._dispatch import detached
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    Like PyTorch's, it shares storage with ``data`` and is a leaf (``requires_grad=True`` by default);
    results of ops on it are plain tensors."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        p = detached(data)
        p.__class__ = cls
        p.requires_grad_(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)



class _BufferMeta(type):
    """``isinstance(t, Buffer)`` holds for any tensor made by ``Buffer`` (a plain tensor, flagged), as PyTorch's."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that is module state but not a parameter (a running mean): assigning it to a Module attribute
    registers it as a buffer, ``persistent`` saying whether ``state_dict`` holds it. It stays a plain tensor."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
