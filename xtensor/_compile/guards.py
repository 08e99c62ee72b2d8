"""Reusing the last call's walk while cheap guards hold (torch.compile's guards): what the walk read, re-read into
one flat list and compared with the record."""
import collections
import ctypes
import functools
import itertools
import operator
import sys
import sysconfig
import weakref

from .._tensor import Tensor
from .gather import _MISSING, _SCALARS, _contents, _environment, sharers
from .state import _root

_chain = itertools.chain.from_iterable
_CALL = operator.call
_is = operator.is_
_VALUES = operator.methodcaller("values")
_DICT_OF = operator.attrgetter("__dict__")
_CODE_OF = operator.attrgetter("__code__")
_DEFAULTS_OF = operator.attrgetter("__defaults__", "__kwdefaults__")
_ARRAY_OF = operator.attrgetter("array")
# what the walk and the signature read from a tensor
_FIELD_NAMES = ("_storage", "_view", "_dtype", "_requires_grad", "_grad_fn", "_backend", "_grad")
_TENSOR_FIELDS = operator.attrgetter(*_FIELD_NAMES)  # one tuple per tensor, compared as one entry
_IDENTITY_EQUAL = {}  # type -> whether ``==`` against its instances means identity (see ``_identity_equal``)
_VALUE = operator.attrgetter("value")
# where CPython keeps a dict's version tag (PEP 509): after the object header and ``ma_used``
_VERSION_OFFSET = object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t)


def _version_tag(d):
    """A view of CPython's version tag of dict ``d`` (``.value``: a number that changes whenever ``d`` does). Valid
    while ``d`` lives: the guard holding the view holds ``d``."""
    return ctypes.c_uint64.from_address(id(d) + _VERSION_OFFSET)


@functools.cache
def _dict_versions():
    """Whether dicts' version tags can stand for their contents here: CPython 3.11-3.13 with the GIL (PEP 509's tag,
    deprecated by PEP 699 but still kept for dict watchers; the free-threaded build lays dicts out otherwise), and
    every kind of write this guard relies on moves the tag -- checked on this interpreter, not assumed. Elsewhere
    the guard reads the dicts' items."""
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 13) \
            or sysconfig.get_config_var("Py_GIL_DISABLED"):
        return False

    class Probe:
        pass
    probe = Probe()
    probe.a = 1
    attributes = vars(probe)  # an attribute dict, as the walk reads it (vars() materialises it)
    plain, ordered = {"a": 1}, collections.OrderedDict(a=1)
    writes = [(attributes, lambda: setattr(probe, "a", 2)), (attributes, lambda: setattr(probe, "b", 1)),
              (attributes, lambda: delattr(probe, "b")), (attributes, lambda: object.__setattr__(probe, "a", 3)),
              (attributes, lambda: attributes.__setitem__("a", 4)), (plain, lambda: plain.__setitem__("a", 2)),
              (plain, lambda: plain.update(b=1)), (plain, lambda: plain.pop("b")),
              (plain, lambda: plain.setdefault("c", 1)), (plain, lambda: plain.__delitem__("c")),
              (plain, plain.clear), (ordered, lambda: ordered.__setitem__("b", 1)), (ordered, ordered.popitem)]
    for d, write in writes:
        tag = _version_tag(d)
        before = tag.value
        write()
        if tag.value == before:
            return False
    return True


def _all_same(objects, recorded):
    """Every object is the recorded one (identity; the lengths were checked first)."""
    return all(map(_is, objects, recorded))


def _identity_equal(cls):
    """Whether ``x == obj`` for an ``obj`` of class ``cls`` holds only when ``x`` is ``obj`` or means the same:
    classes that keep object's ``__eq__`` (modules, optimizers, storages, dtypes, functions, None; another
    object's ``__eq__`` answers NotImplemented, False or an error against them) and ``str`` (names). Tensors,
    arrays, numbers (``1 == 1.0 == True``), containers and code objects compare values: identity for them."""
    same = _IDENTITY_EQUAL.get(cls)
    if same is None:
        same = _IDENTITY_EQUAL[cls] = cls.__eq__ is object.__eq__ or cls is str
    return same


def _picker(positions):
    """A callable returning the items at ``positions`` of a list, as a tuple."""
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    return lambda items: tuple(items[i] for i in positions)


class _Guard:
    """What the walk of a step's state read, recorded to tell cheaply whether a new walk would find the same
    objects in the same places (torch.compile's guards): every container's length and items by identity (a dict's
    CPython version tag instead where it has one: any write moves it; an ordered mapping's items are read too, its
    order is not in the tag), each walked object's class and attribute dict, each walked function's code, closure
    cells and globals."""

    def __init__(self):
        self.sequences = []  # lists (not tuples: they cannot change)
        self.dicts = []  # dicts, attribute dicts among them
        self.mappings = []  # OrderedDict...: read through their own methods
        self.objects = []
        self.plain = []  # objects walked past because they have no param_groups
        self.functions, self.cells = [], []
        self.namespaces, self.names = [], []
        self.filled_dicts = self.filled_mappings = None  # those not empty when recorded: only their items are read
        self.versions = self.counted = None  # dicts' version tags, or the dicts whose lengths are read instead
        self.readers = ()  # what ``read`` calls (``_readers``)
        self.recorded = None  # ``read`` right after the walk: what the state looked like to it

    def freeze(self):
        """Record the state as the walk found it, before the step runs (a step that changes a Python value on the
        way, an int counter, is then seen as changed on the next call, as a new walk would see it)."""
        self.filled_mappings = [m for m in self.mappings if m]  # (modules' hook dicts: mostly empty)
        if _dict_versions():  # any write moves a dict's tag: one number per dict instead of its length and items
            # (an empty one is wholly described by its length, which is cheaper to read: hook dicts, mostly)
            filled = [d for d in (*self.dicts, *self.mappings) if d]
            self.versions = [*map(_version_tag, filled)]  # (dicts held above)
            self.counted = [d for d in (*self.dicts, *self.mappings) if not d]
            self.filled_dicts = []  # (mappings' own order and methods: still read when filled)
        else:
            self.versions, self.counted = [], self.dicts + self.mappings
            self.filled_dicts = [d for d in self.dicts if d]  # an empty one that fills changes its length, read too
        self.readers = self._readers()
        self.recorded = self.read((), ())

    def add_mapping(self, obj):
        cls = type(obj)
        if cls.values is dict.values and cls.__iter__ is dict.__iter__:  # dict's own order: read at C speed
            self.dicts.append(obj)
        else:  # its own order (OrderedDict.move_to_end): read through its methods
            self.mappings.append(obj)

    def lengths(self):
        """How many entries of ``read`` are version tags and container lengths (compared by value; the rest by
        identity)."""
        return len(self.versions) + len(self.counted) + len(self.sequences)

    def read(self, tensors, storages):
        """Everything the walk read, as it is now, in one list -- with the fields of the gathered ``tensors`` and
        the arrays of their ``storages`` -- so that one list comparison tells whether anything changed (a tensor's
        fields are one tuple: ``==`` compares tuples item by item, stopping at identity)."""
        return [*_chain(map(_CALL, self.readers)), *map(_TENSOR_FIELDS, tensors), *map(_ARRAY_OF, storages)]

    def _readers(self):
        """Per kind of entry the walk read, in ``read``'s order, a call returning those entries as they are now;
        kinds the walk met none of are left out (an empty ``map`` still costs its making, on every call)."""
        kinds = [(map, _VALUE, self.versions), (map, len, self.counted), (map, len, self.sequences),
                 (map, type, self.objects), (map, _DICT_OF, self.objects), (_chain, self.filled_dicts),
                 (_mapped_items, dict.values, self.filled_dicts), (_chain, self.filled_mappings),
                 (_mapped_items, _VALUES, self.filled_mappings), (_chain, self.sequences),
                 (map, _CODE_OF, self.functions), (_mapped_items, _DEFAULTS_OF, self.functions),
                 (map, _contents, self.cells),
                 (map, dict.get, self.namespaces, self.names, itertools.repeat(_MISSING)),
                 (map, hasattr, self.plain, itertools.repeat("param_groups"))]
        return tuple(functools.partial(*kind) for kind in kinds if all(arg for arg in kind if type(arg) is list))


def _mapped_items(read, objects):
    """The items of what ``read`` gives for each of ``objects``, one after another."""
    return _chain(map(read, objects))


class _Fast:
    """A call's gathered tensors and program, reused by the next call while nothing it depends on changed.

    The step's state (what its closure and globals reach) is re-read by its guard into one flat list -- each dict's
    version tag (its length and items where the interpreter has none), the lists' lengths and items, each tensor's
    fields (one tuple per tensor), the arrays of the storages the program does not write --
    and compared with the list recorded after the last call: by identity where ``==`` could mistake a different
    object for the same (tensors, arrays, numbers: ``_identity_equal``), by one list ``==`` for the rest (a C loop
    that stops at identity). The storages the program writes and the ``.grad`` tensors it makes change every call:
    their arrays are compared with the ones the last call left, and the ``.grad`` tensors themselves are reused,
    their storages taking the new arrays, while nothing else holds them (a ``.grad`` someone kept stays as it was:
    that call makes a new one, as eager code does, and the next call takes the full walk). The arguments must be as
    simple as they were (tensors -- root ones, without ``.grad``, not part of the state -- and Python scalars) and
    have the same shapes, dtypes and scalar values. Anything else (the first call that changed something) takes
    the full walk, which builds a new one."""

    __slots__ = ("program", "guard", "environment", "template", "keywords", "arg_meta", "state_tensors",
                 "storage_ids", "recorded", "unsafe", "unsafe_recorded", "unsafe_fields", "tracer", "args_read", "kept",
                 "written", "pick_donated", "written_arrays", "refreshed", "grads", "grad_arrays", "grad_refs", "constant")

    @classmethod
    def build(cls, gathered, guard, program, args, kwargs):
        """The entry for the call just run, or None when its arguments or what the program did rule one out."""
        k, s = gathered.state_start
        template = tuple(None if isinstance(a, Tensor) else (type(a), a) for a in (*args, *kwargs.values()))
        if any(t is not None and t[0] not in _SCALARS for t in template) or gathered.arrays \
                or program.rebound or any(i < k for i in program.written) \
                or any(dtype is None or i < k for i, dtype in program.grads):
            return None
        tensors = gathered.tensors
        storages, owners = gathered.storages()
        arg_tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        if len(arg_tensors) != k or owners[:k] != list(range(k)) or any(o < k for o in owners[k:]) \
                or any(t._view is not None or t._grad is not None for t in arg_tensors) \
                or any(type(x) is tuple and x[0] == "t" and x[1] < k for x in gathered.statics[s:]) \
                or any(slot < k for slot in gathered.grad_slot.values()):
            return None  # arguments with a grad, a view, repeated, or shared with the state (a .grad there)
        reached = {x[1] for x in gathered.statics[s:] if type(x) is tuple and len(x) == 2 and x[0] == "t"}
        state_tensors, state_storages = tensors[k:], storages[k:]
        grads, grad_storages = [], []
        for i, _ in program.grads:
            slot = gathered.grad_slot.get(i)
            if slot is None or slot in reached or list(gathered.grad_slot.values()).count(slot) != 1 \
                    or owners.count(owners[slot]) != 1 or owners[slot] in program.written:
                return None  # a .grad that was absent, or also reached another way: the structure changes
            owner, grad = tensors[i], tensors[i]._grad  # (the .grad the call just made: the one reused)
            state_tensors[slot - k] = grad
            state_storages[owners[slot] - k] = grad._storage
            grads.append((owner, grad))
            grad_storages.append(owners[slot] - k)
        written = [i - k for i in program.written]
        if sharers([st.array for st in storages[:k] + state_storages]) != program.shared \
                or any(f < k for f in program.shared[k:]):
            return None  # the storages share arrays otherwise than when traced, or share an argument's
        fast = cls()
        fast.program, fast.guard, fast.template, fast.keywords = program, guard, template, tuple(kwargs)
        fast.environment = _environment()
        fast.arg_meta = [(type(t), t._dtype, t._requires_grad, t._backend, tuple(storages[i].array.shape),
                          storages[i].array.dtype) for i, t in enumerate(arg_tensors)]
        fast.state_tensors = state_tensors
        fast.storage_ids = set(map(id, state_storages))
        fast.tracer = sys.modules["jax"].core.Tracer
        fast.args_read = [i for i in program.kept if i < k]
        fast.kept = [state_storages[i - k] for i in program.kept if i >= k]
        fast.pick_donated = _picker([written.index(i - k) for i in program.donated])  # (donated storages are written)
        fast.written = [state_storages[i] for i in written]
        fast.written_arrays = [st.array for st in fast.written]
        fast.refreshed = [tensors[i] for i in program.refreshed]
        fast.grads = grads
        fast.grad_arrays = [state_storages[i].array for i in grad_storages]
        varying = set(written).union(grad_storages)
        constant = [st for i, st in enumerate(state_storages) if i not in varying]
        fast.constant = constant
        recorded = fast.recorded = [*guard.recorded, *map(_TENSOR_FIELDS, state_tensors), *map(_ARRAY_OF, constant)]
        fields_at = len(guard.recorded)
        arrays_at = fields_at + len(state_tensors)
        unsafe = [i for i in range(guard.lengths(), len(recorded))
                  if not (fields_at <= i < arrays_at or _identity_equal(type(recorded[i])))]
        fast.unsafe, fast.unsafe_recorded = _picker(unsafe), [recorded[i] for i in unsafe]
        # per field, the tensors whose value there compares by value (a .grad tensor): read again, checked by identity
        # (requires_grad is always a bool: True == True is identity)
        fast.unsafe_fields = []
        for j, name in enumerate(_FIELD_NAMES):
            which = [t for t, fields in zip(state_tensors, recorded[fields_at:arrays_at])
                     if not (_identity_equal(type(fields[j])) or type(fields[j]) is bool)]
            if which:
                fast.unsafe_fields.append((operator.attrgetter(name), which, [getattr(t, name) for t in which]))
        fast.grad_refs = [_references(grad, fast) for _, grad in grads]
        return fast

    def run(self, arg_storages, arg_tensors):
        """Run the program on the state the guards just checked and write its results into the same objects:
        (the step's result, whether this entry still describes the state -- not when a ``.grad`` was replaced)."""
        program, backend = self.program, self.program.backend
        arg_arrays = [st.array for st in arg_storages]
        donated = [*self.pick_donated(self.written_arrays)]  # (``holds`` found the written storages holding these)
        if arg_arrays and not set(map(id, donated)).isdisjoint(map(id, arg_arrays)):
            donated = [a.copy() for a in donated]  # an argument over a written state array (rare): kept intact
        outs = program.executable(donated, [*(arg_arrays[i] for i in self.args_read), *map(_ARRAY_OF, self.kept)],
                                  [])
        written = len(self.written)
        self.written_arrays = new = outs[:written]
        for st, array in zip(self.written, new):
            st.array = array
            st.version += 1
            if st.aliases:
                for alias in st.live_aliases():
                    alias._arr = None
        for t in self.refreshed:
            t._arr = None
        self.grad_arrays = made = outs[written:written + len(self.grads)]
        reused = True
        for (owner, grad), array, refs in zip(self.grads, made, self.grad_refs):
            if sys.getrefcount(grad) == refs and grad._storage.aliases is None and not weakref.getweakrefcount(grad):
                grad._storage.array = grad._arr = array  # nothing else holds it: it takes the new values
            else:  # someone kept the last .grad: a new one, as eager code makes
                owner._grad = _root(array, backend, grad._dtype)
                reused = False
        tensors = None if program.outputs[0] is None else arg_tensors + self.state_tensors
        return program.result(iter(outs[written + len(self.grads):]), tensors), reused

    def holds(self, args, kwargs):
        """(the arguments' storages, the argument tensors) when a full walk would find what the last one did."""
        if kwargs:
            if tuple(kwargs) != self.keywords:
                return None
            values = (*args, *kwargs.values())
        else:
            if self.keywords:
                return None
            values = args
        template = self.template
        if len(values) != len(template) or _environment() != self.environment:
            return None
        arg_tensors, arg_storages = [], []
        meta = iter(self.arg_meta)
        for a, want in zip(values, template):
            if want is None:
                if not isinstance(a, Tensor):
                    return None
                cls, dtype, requires_grad, backend, shape, array_dtype = next(meta)
                st = a._storage
                arr = st.array
                if type(a) is not cls or a._view is not None or a._grad is not None or a._grad_fn is not None \
                        or a._dtype is not dtype or a._requires_grad is not requires_grad or a._backend is not backend \
                        or arr.shape != shape or arr.dtype != array_dtype or isinstance(arr, self.tracer) \
                        or id(st) in self.storage_ids:  # (a state tensor's storage is a state storage)
                    return None
                arg_tensors.append(a)
                arg_storages.append(st)
            elif type(a) is not want[0] or a != want[1]:
                return None
        if len(arg_tensors) > 1 and (len(set(map(id, arg_tensors))) < len(arg_tensors)
                                     or len(set(map(id, arg_storages))) < len(arg_storages)):
            return None
        current, recorded = self.guard.read(self.state_tensors, self.constant), self.recorded
        if len(current) != len(recorded) or not _all_same(self.unsafe(current), self.unsafe_recorded) \
                or not all(_all_same(map(field, which), values) for field, which, values in self.unsafe_fields) \
                or not _all_same(map(_ARRAY_OF, self.written), self.written_arrays) \
                or not _all_same((grad._storage.array for _, grad in self.grads), self.grad_arrays):
            return None
        try:
            if not current == recorded:
                return None
        except Exception:  # a value's own __eq__ refused the comparison (a tensor where a module was): changed
            return None
        return arg_storages, arg_tensors


def _references(obj, fast):
    """How many references ``obj`` has in ``_Fast.run``'s check when only the owner's ``.grad`` and ``fast``'s own
    lists hold it: the owner's attribute, each entry of ``fast``'s lists, the loop's tuple and name, the call's
    argument."""
    fields_at = len(fast.guard.recorded)  # the state tensors' field tuples follow the guard's own record
    lists = [fast.state_tensors, fast.recorded, fast.unsafe_recorded,
             *fast.recorded[fields_at:fields_at + len(fast.state_tensors)],
             *(lst for _, which, values in fast.unsafe_fields for lst in (which, values))]
    held = sum(x is obj for lst in lists for x in lst)
    return held + 4
