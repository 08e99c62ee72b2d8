"""Named tensors (PyTorch's prototype API, as seed 004 uses it): ``names=`` on factories, ``.names``,
``refine_names``, ``rename``, ``align_to``; names follow ``transpose``/``permute``/``t`` and the
copies (``clone``, ``contiguous``, ``to``...) and ``detach``.

PyTorch 2.13 has dropped named tensors; the seed's printed names (PyTorch 1.6) are the reference.
Names are metadata only (``Tensor._names``, None when all unnamed), kept off the op path so unnamed
tensors pay nothing: ops not listed here (elementwise ops included) return unnamed tensors instead of
following PyTorch's name inference or raising its "not supported with named tensors" error.
"""
import functools

from ._tensor import Tensor, check_dim

__all__ = ["check_names", "with_names", "refine_names", "rename", "align_to", "install"]


def check_names(names, ndim):
    """``names`` as a tuple (None when all are None), after PyTorch's checks."""
    if names is None:
        return None
    names = tuple(names)
    if len(names) != ndim:
        raise RuntimeError(f"Number of names ({len(names)}) and number of dimensions in tensor ({ndim}) do not "
                           "match. Attempted to create a tensor with names {names}".replace("{names}", str(names)))
    for n in names:
        if n is not None and (not isinstance(n, str) or not n.isidentifier() or n.startswith("_")):
            raise RuntimeError(f"Invalid name: a valid identifier contains only digits, alphabetical characters "
                               f"and/or underscore and starts with a non-digit. got: '{n}'.")
    named = [n for n in names if n is not None]
    if len(set(named)) != len(named):
        dup = next(n for n in named if named.count(n) > 1)
        raise RuntimeError(f"Cannot construct a tensor with duplicate names: {dup} appears twice in {names}")
    return names if named else None


def with_names(tensor, names):
    """``tensor`` with ``names`` set (checked); returns ``tensor``."""
    tensor._names = check_names(names, tensor.ndim)
    return tensor


def _aliased(tensor, names):
    """A view of ``tensor`` (same memory, same graph) carrying ``names``."""
    return with_names(tensor[...], names)


def refine_names(self, *names):
    """Name unnamed dims (``None`` leaves one unnamed); a named dim must keep its name."""
    if len(names) == 1 and names[0] == "...":
        return self
    old = self.names
    if len(names) != len(old):
        raise RuntimeError(f"refine_names: cannot coerce Tensor{list(old)} to Tensor{list(names)}: the number of "
                           "names does not match the number of dimensions")
    for o, n in zip(old, names):
        if o is not None and o != n:
            raise RuntimeError(f"refine_names: cannot coerce Tensor{list(old)} to Tensor{list(names)} because "
                               f"{o} is different from {n} at index {old.index(o)}")
    return _aliased(self, names)


def rename(self, *names, **rename_map):
    """``rename(None)`` drops names, ``rename('A', 'B')`` sets them, ``rename(H='height')`` maps some."""
    if names and rename_map:
        raise RuntimeError("rename: takes either positional names or keyword renames, not both")
    if rename_map:
        old = list(self.names)
        for key, new in rename_map.items():
            if key not in old:
                raise RuntimeError(f"Tried to rename dim '{key}' to dim {new} in Tensor{old} but dim '{key}' does "
                                   "not exist")
            old[old.index(key)] = new
        return _aliased(self, old)
    if len(names) == 1 and names[0] is None:
        return _aliased(self, None)
    return _aliased(self, names)


def rename_(self, *names, **rename_map):
    self._names = rename(self, *names, **rename_map)._names
    return self


def align_to(self, *names):
    """Permute the named dims into the order ``names`` gives (``...`` stands for the rest, in order)."""
    old = self.names
    if any(n is None for n in old):
        raise RuntimeError(f"align_to: All input dims must be named. Found unnamed dim at index "
                           f"{old.index(None)} of Tensor{list(old)}")
    if "..." in names:
        at = names.index("...")
        rest = [n for n in old if n not in names]
        names = names[:at] + tuple(rest) + names[at + 1:]
    missing = [n for n in old if n not in names]
    if missing:
        raise RuntimeError(f"align_to: Cannot find dim '{missing[0]}' from Tensor{list(old)} in the desired "
                           f"order {list(names)}")
    order = [old.index(n) for n in names if n in old]
    out = self.rename(None).permute(order)
    for axis, n in enumerate(names):  # names the tensor lacks become new size-1 dims
        if n not in old:
            out = out.unsqueeze(axis)
    return with_names(out, names)


def _permuted_names(names, order):
    return tuple(names[i] for i in order)


def _keep(method):
    """The method, with the input's names on the result (copies and same-shape conversions)."""
    @functools.wraps(method)
    def named(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        if self._names is not None and isinstance(out, Tensor) and out.ndim == self.ndim and out is not self:
            out._names = self._names
        return out
    return named


def _transpose(method):
    @functools.wraps(method)
    def named(self, dim0=0, dim1=1):
        out = method(self, dim0, dim1)
        if self._names is not None:
            order = list(range(self.ndim))
            a, b = check_dim(dim0, self.ndim), check_dim(dim1, self.ndim)
            order[a], order[b] = order[b], order[a]
            out._names = _permuted_names(self._names, order)
        return out
    return named


def _permute(method):
    @functools.wraps(method)
    def named(self, *dims):
        out = method(self, *dims)
        if self._names is not None:
            order = dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims
            out._names = _permuted_names(self._names, [check_dim(d, self.ndim) for d in order])
        return out
    return named


def _t(method):
    @functools.wraps(method)
    def named(self):
        out = method(self)
        if self._names is not None:
            out._names = tuple(reversed(self._names))
        return out
    return named


_KEEP = ("clone", "contiguous", "to", "type", "float", "double", "half", "long", "int", "bool", "cfloat", "cdouble",
         "cpu", "cuda")


def install(cls):
    """Add the names API to ``cls`` and make the listed methods carry names."""
    for name in _KEEP:
        if name in cls.__dict__:
            setattr(cls, name, _keep(cls.__dict__[name]))
    for name, wrap in (("transpose", _transpose), ("permute", _permute), ("t", _t)):
        if name in cls.__dict__:
            setattr(cls, name, wrap(cls.__dict__[name]))
    cls.refine_names, cls.rename, cls.rename_, cls.align_to = refine_names, rename, rename_, align_to
