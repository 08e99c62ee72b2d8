"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``."""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _absolute_index(idx, size):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size if size else idx


class Sequential(Module):
    """Modules called in order, each on the previous one's output."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key_at(self, idx):
        return next(islice(self._modules.keys(), _absolute_index(idx, len(self)), None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key_at(idx)]
        for key in keys:
            delattr(self, key)
        self._renumber()

    def _renumber(self):
        self.__dict__["_modules"] = dict(zip((str(i) for i in range(len(self._modules))), self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential(*self, *other)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(modules)}
        return self

    def extend(self, sequential):
        for module in sequential:
            self.append(module)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as ``"0"``, ``"1"``, ...; printed with repeated blocks collapsed."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, idx):
        return str(_absolute_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx):
        keys = [str(k) for k in range(len(self))[idx]] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)
        Sequential._renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self):
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []  # [start, end, repr] of runs of equal reprs
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2) for a, b, r in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """Modules by name, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        _update_pairs(self, modules, "ModuleDict")


def _update_pairs(container, pairs, kind):
    """``update`` of a dict-like container from a mapping or an iterable of key/value pairs."""
    if not isinstance(pairs, Iterable):
        raise TypeError(f"{kind}.update should be called with an iterable of key/value pairs, but got "
                        + type(pairs).__name__)
    if isinstance(pairs, (Mapping, ModuleDict, ParameterDict)):
        items = list(pairs.items())
    else:
        items = []
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is "
                                + type(pair).__name__)
            if not len(pair) == 2:
                raise ValueError(f"{kind} update sequence element #{j} has length {len(pair)}; 2 is required")
            items.append(pair)
    for key, value in items:
        container[key] = value


def _parameter_line(key, p):
    if isinstance(p, Tensor):
        size = "x".join(str(n) for n in p.size())
        device = f" ({p.device})" if p.device.type != "cpu" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{p.dtype} of size {size}{device}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters (plain tensors are wrapped into ``Parameter``), registered as ``"0"``, ``"1"``, ..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_absolute_index(idx, len(self))))

    def __setitem__(self, idx, param):
        idx = _absolute_index(idx, len(self))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Parameters by name (plain tensors are wrapped into ``Parameter``), in insertion order."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._attr(key), value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters):
        _update_pairs(self, parameters, "ParametersDict")

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
