"""``xtensor.save``/``xtensor.load`` in PyTorch's file format, so checkpoints move both ways.

The format (PyTorch's since 1.6): a zip archive, entries stored uncompressed and 64-byte aligned under one
folder (``archive/``): ``data.pkl`` is a protocol-2 pickle of the object in which every tensor is a call
of ``torch._utils._rebuild_tensor_v2`` on a persistent ``('storage', torch.FloatStorage, key, 'cpu',
numel)`` reference, and ``data/<key>`` holds that storage's raw little-endian bytes.

``save`` pickles any picklable object -- tensors, state dicts, a whole ``nn.Module``, an optimizer, numpy
arrays. Classes and functions of xtensor are written under PyTorch's name (``xtensor.nn.modules.linear.Linear``
as ``torch.nn.modules.linear.Linear``, modules' state in PyTorch's layout), so ``torch.load`` builds PyTorch's
objects; ``load`` maps every ``torch.X`` in a file back to ``xtensor.X``, so files written by ``torch.save``
build xtensor's objects.

Safety, as PyTorch's ``weights_only=True`` (the default): ``load`` unpickles with an allow-list -- tensors,
parameters, storages, dtypes, ``Size``, ``device``, ``OrderedDict``/``Counter``/``set``/``complex``/``bytes``,
plain Python values, and what ``add_safe_globals``/``safe_globals`` add -- and refuses anything else the file
names with ``pickle.UnpicklingError`` (naming the global and how to allow it) before it is looked up, so no
code from a file runs unless you allowed it. ``weights_only=False`` unpickles anything: the file can run any
code, so use it only for files you trust (as PyTorch says).

Writing to a path goes through a temporary file in the same folder that replaces the target only once
complete, so a failed save leaves the previous file intact. Each tensor is saved as its own contiguous
storage: tensors that shared memory when saved load as separate tensors (PyTorch's loader would share).
"""
import _compat_pickle
import codecs
import collections
import functools
import importlib
import io
import os
import pickle
import struct
import sys
import zipfile

import numpy as np

from . import _dtypes
from ._backend import get_backend, get_default_backend
from ._creation import from_numpy
from ._tensor import Size, Tensor, device
from .nn.parameter import Parameter

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]

_STORAGE_OF = {  # xtensor dtype name -> PyTorch's legacy typed storage class (what torch.save writes)
    "float64": "DoubleStorage", "float32": "FloatStorage", "float16": "HalfStorage", "int64": "LongStorage",
    "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "complex128": "ComplexDoubleStorage", "complex64": "ComplexFloatStorage",
    "bfloat16": "BFloat16Storage",
}
_UNTYPED = ("torch.storage", "UntypedStorage")  # raw bytes; PyTorch's uint16/32/64 tensors use it (with _v3)
_ALIGNMENT = 64
_DTYPES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "bfloat16",
           "float32", "float64", "complex64", "complex128")


# ------------------------------------------------------------------------------------------------ save
class _TorchGlobal:
    """A name in PyTorch's namespace written into the pickle as-is (``torch`` need not be importable)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants a callable to REDUCE with; it is only ever written, never called
        raise TypeError(f"{self.module}.{self.name} exists in PyTorch only")


class _StorageRef:
    """A tensor's bytes, written as ``data/<key>`` and referenced from the pickle by a persistent id."""

    __slots__ = ("key", "dtype", "data")

    def __init__(self, key, dtype, data):
        self.key, self.dtype, self.data = key, dtype, data


_REBUILD_TENSOR = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = _TorchGlobal("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_TORCH_DTYPES = {name: _TorchGlobal("torch", name) for name in _DTYPES}


def _torch_module_name(module):
    """``xtensor.nn.modules.linear`` -> ``torch.nn.modules.linear``; other modules unchanged."""
    if module == "xtensor" or module.startswith("xtensor."):
        return "torch" + module[len("xtensor"):]
    return module


def _xtensor_module_name(module):
    """``torch.nn.modules.linear`` -> ``xtensor.nn.modules.linear``; other modules unchanged."""
    if module == "torch" or module.startswith("torch."):
        return "xtensor" + module[len("torch"):]
    return module


class _TorchPickler(pickle._Pickler):
    """Pickles xtensor objects as their PyTorch counterparts: tensors as storages, xtensor's classes and
    functions under PyTorch's names."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol=2):
        super().__init__(file, protocol=protocol)
        self.storages = []

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            storage = _UNTYPED[1] if obj.dtype.name.startswith("uint") and obj.dtype.itemsize > 1 else None
            kind = _TorchGlobal(*_UNTYPED) if storage else _TorchGlobal("torch", _STORAGE_OF[obj.dtype.name])
            numel = obj.data.nbytes if storage else obj.data.size
            return ("storage", kind, obj.key, "cpu", numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            return _REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, collections.OrderedDict())
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, Size):
            return _TorchGlobal("torch", "Size"), (tuple(obj),)
        if isinstance(obj, device):
            return _TorchGlobal("torch", "device"), (str(obj),)
        return NotImplemented

    def _reduce_tensor(self, t):
        data = np.ascontiguousarray(np.asarray(t.detach()))
        ref = _StorageRef(str(len(self.storages)), t.dtype, data)
        self.storages.append(ref)
        strides = tuple(int(np.prod(t.shape[i + 1:])) for i in range(t.ndim))
        args = (ref, 0, tuple(t.shape), strides, t.requires_grad, collections.OrderedDict())
        if ref.dtype.name.startswith("uint") and ref.dtype.itemsize > 1:
            return _REBUILD_TENSOR_V3, args + (_TorchGlobal("torch", t.dtype.name),)
        return _REBUILD_TENSOR, args

    def save_global(self, obj, name=None):
        if isinstance(obj, _TorchGlobal):
            module, name = obj.module, obj.name
        else:
            module, name = getattr(obj, "__module__", None) or "", name or getattr(obj, "__qualname__", "")
            torch_module = _torch_module_name(module)
            if torch_module == module or "." in name or _lookup(module, name) is not obj:
                return super().save_global(obj, name)  # not xtensor's, or not reachable by its name: pickle decides
            module = torch_module
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)

    def save_dtype(self, dtype):
        self.save(_TORCH_DTYPES[dtype.name])

    dispatch[_TorchGlobal] = save_global
    dispatch[_dtypes.DType] = save_dtype


def _lookup(module, name):
    """``module.name`` if that module is imported and has it, else ``None``."""
    return getattr(sys.modules.get(module), name, None)


def _aligned_entry(archive, name, data):
    """Write one stored entry whose data starts at a multiple of 64 bytes (as PyTorch writes them)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    data_start = archive.fp.tell() + 30 + len(name.encode("utf-8")) + 4  # local header, name, extra header
    padding = -data_start % _ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
    archive.writestr(info, data)


def _archive_bytes(obj, protocol):
    buffer = io.BytesIO()
    pickler = _TorchPickler(buffer, protocol)
    pickler.dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        records = [("data.pkl", buffer.getvalue()), (".format_version", b"1"), (".storage_alignment", b"64"),
                   ("byteorder", b"little")]
        records += [(f"data/{ref.key}", ref.data.astype(ref.data.dtype.newbyteorder("<"), copy=False).tobytes())
                    for ref in pickler.storages]
        records += [("version", b"3\n"), (".data/serialization_id", b"0" * 40)]
        for name, data in records:
            _aligned_entry(archive, "archive/" + name, data)
    return out.getvalue()


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Save any picklable object -- tensors, state dicts, a whole module, an optimizer, numpy arrays -- to a
    path or a binary file object, in PyTorch's format (``torch.load`` reads it; tensors and state dicts
    with ``weights_only=True``).

    A path is written through a temporary file in the same folder, renamed over the target when complete."""
    if pickle_module not in (None, pickle) or not _use_new_zipfile_serialization:
        raise ValueError("xtensor.save writes PyTorch's zip format with the standard pickle module only")
    blob = _archive_bytes(obj, pickle_protocol)
    if hasattr(f, "write"):
        f.write(blob)
        return
    path = os.fspath(f)
    folder, base = os.path.split(os.path.abspath(path))
    for attempt in range(100):
        temporary = os.path.join(folder, f".{base}.{os.getpid()}.{attempt}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for open()
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"xtensor.save: could not create a temporary file next to {path}")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(blob)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


# ------------------------------------------------------------------------------------------------ load
class _StorageType:
    """What a storage class in the file stands for: the element dtype (``None``: raw bytes)."""

    def __init__(self, dtype):
        self.dtype = dtype


def _checked_encode(text, encoding="latin1"):
    """``_codecs.encode`` as protocol 2 uses it for ``bytes`` (latin-1 only)."""
    if encoding != "latin1" or not isinstance(text, str):
        raise pickle.UnpicklingError("_codecs.encode is allowed only for bytes (latin1)")
    return codecs.encode(text, "latin1")


def _torch_device(kind, index=None):
    return device(kind if index is None else f"{kind}:{index}")


# ----------------------------------------------------------------------------------- safe globals (torch's API)
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")  # never allowed, even when a user allow-lists something from them
_marked_safe_globals = set()


def add_safe_globals(safe_globals):
    """Allow ``load(weights_only=True)`` to look up these globals: classes may then be built and have their
    state set, functions called. Each item is a class/function, named in the file as
    ``{__module__}.{__qualname__}``, or a ``(class_or_function, "full.dotted.name")`` pair. A ``torch.X`` name
    in a file stands for ``xtensor.X``, so ``add_safe_globals([xtensor.nn.Linear])`` admits PyTorch's
    ``torch.nn.modules.linear.Linear``."""
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(safe_globals)


def get_safe_globals():
    """The globals ``add_safe_globals``/``safe_globals`` have added."""
    return list(_marked_safe_globals)


def clear_safe_globals():
    """Forget every global ``add_safe_globals`` added."""
    global _marked_safe_globals
    _marked_safe_globals = set()


class safe_globals:
    """``with safe_globals([...]):`` -- ``add_safe_globals`` for the block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, exc_type, exc_value, traceback):
        global _marked_safe_globals
        _marked_safe_globals = _marked_safe_globals - set(self.safe_globals)


def _user_allowed_globals():
    allowed = {}
    for entry in _marked_safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                                 f"length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(entry[1])}")
            allowed[entry[1]] = entry[0]
        else:
            allowed[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return allowed


# ------------------------------------------------------------------------------------------------ unpicklers
def _python3_name(module, name):
    """Protocol 2 writes Python 2 names (``__builtin__.set``); PyTorch reads them as Python 3's."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


class _Loading:
    """What both unpicklers share: PyTorch's tensor, storage, dtype, ``Size`` and ``device`` globals read as
    xtensor's, and storages read from the archive."""

    def _setup(self, read_storage, place):
        self._read_storage, self._place = read_storage, place
        self._user_globals = _user_allowed_globals()
        self._builtin_globals = {
            "collections.OrderedDict": collections.OrderedDict, "collections.Counter": collections.Counter,
            "builtins.set": set, "builtins.complex": complex, "builtins.bytearray": bytearray,
            "_codecs.encode": _checked_encode, "torch.Size": Size, "torch.device": _torch_device,
            "torch.Tensor": Tensor, "torch.nn.parameter.Parameter": Parameter,
            "torch._utils._rebuild_tensor": self._rebuild_tensor,
            "torch._utils._rebuild_tensor_v2": self._rebuild_tensor,
            "torch._utils._rebuild_tensor_v3": self._rebuild_tensor_v3,
            "torch._utils._rebuild_parameter": _rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": _rebuild_parameter,
            "torch._tensor._rebuild_from_type_v2": _rebuild_from_type,
            ".".join(_UNTYPED): _StorageType(None),
        }
        self._builtin_globals.update({f"torch.{storage}": _StorageType(_dtypes.by_name(name))
                                      for name, storage in _STORAGE_OF.items()})
        self._builtin_globals.update({f"torch.{name}": _dtypes.by_name(name) for name in _DTYPES})

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], _StorageType)
                and isinstance(pid[2], str) and isinstance(pid[4], int)):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self._read_storage(pid[1].dtype, pid[2], pid[3], pid[4])

    def _rebuild_tensor(self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                        metadata=None):
        array, location = storage
        return self._place(_strided(array, storage_offset, size, stride), location, requires_grad)

    def _rebuild_tensor_v3(self, storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                           metadata=None):
        array, location = storage
        if not isinstance(dtype, _dtypes.DType):
            raise pickle.UnpicklingError(f"{dtype!r} is not a dtype")
        return self._rebuild_tensor((array.view(_dtypes.numpy_dtype(dtype)), location), storage_offset, size, stride,
                                    requires_grad)


class _FullUnpickler(_Loading, pickle.Unpickler):
    """``weights_only=False``: any global the file names is imported (``torch.X`` as ``xtensor.X``)."""

    def find_class(self, module, name):
        module, name = _python3_name(module, name)
        found = self._builtin_globals.get(f"{module}.{name}")
        if found is not None:
            return found
        ours = _xtensor_module_name(module)
        if ours == module:
            return super().find_class(module, name)
        try:
            return functools.reduce(getattr, name.split("."), importlib.import_module(ours))
        except (ImportError, AttributeError):
            raise pickle.UnpicklingError(f"xtensor.load: the file holds {module}.{name}, which xtensor does not have "
                                         f"(there is no {ours}.{name})") from None


def _unsupported_global(full_path):
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins."):]
    allow = _xtensor_module_name(full_path)
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please use "
        f"`xtensor.serialization.add_safe_globals([{allow}])` or the `xtensor.serialization.safe_globals([{allow}])` "
        "context manager to allowlist this global if you trust this class/function.")


class _WeightsOnlyUnpickler(_Loading, pickle._Unpickler):
    """``weights_only=True``: only the allow-listed globals (PyTorch's set, on xtensor, plus the user's safe
    globals) are looked up, called, built and have state set, under PyTorch's rules for each opcode."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def find_class(self, module, name):
        module, name = _python3_name(module, name)
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} is "
                                         "blocked.")
        if full_path in self._builtin_globals:
            return self._builtin_globals[full_path]
        for candidate in (full_path, _xtensor_module_name(module) + "." + name):
            if candidate in self._user_globals:
                return self._user_globals[candidate]
        raise _unsupported_global(full_path)

    def _allowed(self, obj):
        return any(obj is v for table in (self._builtin_globals, self._user_globals) for v in table.values())

    def load_reduce(self):
        func = self.stack[-2]
        if not self._allowed(func):
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
        pickle._Unpickler.load_reduce(self)

    def load_newobj(self):
        cls = self.stack[-2]
        if not self._allowed(cls):
            raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted via "
                                         f"`add_safe_globals` but got {cls}")
        pickle._Unpickler.load_newobj(self)

    def load_build(self):
        target = self.stack[-2]
        if type(target) not in (collections.OrderedDict, collections.Counter) and not self._allowed(type(target)):
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                         f"`add_safe_globals`, but got {type(target)}")
        pickle._Unpickler.load_build(self)

    def load_append(self):
        self._check_target(self.stack[-2], (list,), "append to lists")
        pickle._Unpickler.load_append(self)

    def load_appends(self):
        items = self.pop_mark()
        self._check_target(self.stack[-1], (list,), "extend lists")
        self.stack[-1].extend(items)

    def load_setitem(self):
        self._check_target(self.stack[-3], _DICTS, "SETITEM for dict, collections.OrderedDict, collections.Counter")
        pickle._Unpickler.load_setitem(self)

    def load_setitems(self):
        items = self.pop_mark()
        self._check_target(self.stack[-1], _DICTS, "SETITEMS for dict, collections.OrderedDict, collections.Counter")
        for i in range(0, len(items), 2):
            self.stack[-1][items[i]] = items[i + 1]

    def load_additems(self):
        items = self.pop_mark()
        self._check_target(self.stack[-1], (set,), "add items to sets")
        self.stack[-1].update(items)

    @staticmethod
    def _check_target(target, types, what):
        if type(target) not in types:
            raise pickle.UnpicklingError(f"Can only {what}, but got {type(target)}")

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.BUILD[0]] = load_build
    dispatch[pickle.APPEND[0]] = load_append
    dispatch[pickle.APPENDS[0]] = load_appends
    dispatch[pickle.SETITEM[0]] = load_setitem
    dispatch[pickle.SETITEMS[0]] = load_setitems
    dispatch[pickle.ADDITEMS[0]] = load_additems


_DICTS = (dict, collections.OrderedDict, collections.Counter)
_RERUN_UNSAFE = ("xtensor.load reads with `weights_only=True` by default, as PyTorch since 2.6. Re-running "
                 "`xtensor.load` with `weights_only` set to `False` will likely succeed, but it can result in "
                 "arbitrary code execution. Do it only if you got the file from a trusted source.")


def _weights_only_message(message):
    """PyTorch's explanation around an error of the weights-only unpickler."""
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, do those "
                f"steps only if you trust the source of the checkpoint. \n\t(1) {_RERUN_UNSAFE}\n\t(2) Alternatively, "
                "to load with `weights_only=True` please check the recommended steps in the following error message."
                f"\n\tWeightsUnpickler error: {message}")
    return f"Weights only load failed. {_RERUN_UNSAFE}\n\n{message}"


def _strided(array, offset, size, stride):
    """The elements of a storage a tensor covers, as a fresh array; a tensor reaching outside is corrupt."""
    if not (isinstance(offset, int) and all(isinstance(n, int) and n >= 0 for n in size)
            and all(isinstance(s, int) and s >= 0 for s in stride) and len(size) == len(stride)):
        raise pickle.UnpicklingError(f"bad tensor geometry: offset {offset!r}, "
                                     f"size {size!r}, stride {stride!r}")
    last = offset + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else offset - 1
    if offset < 0 or last >= array.size:
        raise RuntimeError(f"xtensor.load: the file is corrupted: a tensor of size {list(size)}, stride {list(stride)} "
                           f"and offset {offset} reaches past its storage of {array.size} elements")
    view = np.lib.stride_tricks.as_strided(array[offset:] if all(size) else array[:0], tuple(size),
                                           tuple(s * array.itemsize for s in stride), writeable=False)
    return np.array(view)


def _rebuild_parameter(data, requires_grad, backward_hooks=None, state=None):
    return Parameter(data, requires_grad)


def _rebuild_from_type(func, new_type, args, state):
    """A tensor saved with Python attributes: rebuild it; the attributes are dropped."""
    result = func(*args)
    return Parameter(result, result.requires_grad) if new_type is Parameter else result


def _placement(map_location):
    """``(backend, device or None)`` for a backend name, a device, or ``None`` (the default backend; the
    location the file names is not used)."""
    if callable(map_location) and not isinstance(map_location, (str, device)):
        raise TypeError("xtensor.load: map_location may be a backend name, a device or a dict of locations; "
                        "a function is not supported")
    if map_location is None:
        return get_default_backend(), None
    text = str(map_location)
    if text.split(":")[0] in ("cpu", "cuda", "xla", "mps", "meta"):
        return get_default_backend(), text
    return get_backend(text), None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load what ``save`` or ``torch.save`` wrote (a path or a binary file object). Tensors land on
    ``map_location``: a backend name (``'jax'``), a device (``'cpu'``, ``'cuda:0'``), a dict from the saved
    locations to those, or ``None`` for the default backend; ``torch.X`` classes and functions in the file
    are read as ``xtensor.X``.

    ``weights_only=True`` (the default, as PyTorch's) reads only allow-listed content (see the module
    docstring and ``add_safe_globals``): loading never runs code you did not allow. ``weights_only=False``
    unpickles whatever the file holds -- a whole module, an optimizer, numpy arrays -- and so trusts the
    file: a malicious one can run any code. Use it only for files from a trusted source."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    name = getattr(f, "name", None) or (os.fspath(f) if not hasattr(f, "read") else "the file")
    if hasattr(f, "read"):
        blob = f.read()
    else:
        with open(f, "rb") as file:
            blob = file.read()
    try:
        archive = zipfile.ZipFile(io.BytesIO(blob))
        names = archive.namelist()
    except zipfile.BadZipFile as e:
        kind = "empty" if not blob else "not a PyTorch checkpoint (a zip archive) or it is truncated"
        raise RuntimeError(f"xtensor.load: {name} is {kind}: {e}") from None
    pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if len(pickles) != 1:
        raise RuntimeError(f"xtensor.load: {name} is a zip archive but not a PyTorch checkpoint (no <folder>/data.pkl)")
    prefix = pickles[0][:-len("data.pkl")]

    def read(record):
        try:
            return archive.read(prefix + record)
        except KeyError:
            raise RuntimeError(f"xtensor.load: {name} is corrupted: the record {record} is missing") from None
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
            raise RuntimeError(f"xtensor.load: {name} is corrupted: cannot read the record {record}: {e}") from None

    byteorder = read("byteorder").decode() if prefix + "byteorder" in names else "little"
    if byteorder not in ("little", "big"):
        raise RuntimeError(f"xtensor.load: {name} is corrupted: unknown byte order {byteorder!r}")
    placements = {}
    storages = {}

    def read_storage(dtype, key, location, numel):
        if key not in storages:
            raw = read(f"data/{key}")
            np_dtype = _dtypes.numpy_dtype(dtype) if dtype is not None else np.dtype("uint8")
            # bytes are read in a dtype with a byte order: ml_dtypes' bfloat16 has none, so it is read as uint16
            carrier = np.dtype(np.uint16) if dtype is _dtypes.bfloat16 else np_dtype
            if len(raw) != numel * np_dtype.itemsize:
                raise RuntimeError(f"xtensor.load: {name} is corrupted: storage {key} holds {len(raw)} bytes, "
                                   f"expected {numel * np_dtype.itemsize}")
            storages[key] = np.frombuffer(raw, carrier.newbyteorder("<" if byteorder == "little" else ">")) \
                .astype(carrier).view(np_dtype)
        return storages[key], location

    def place(array, location, requires_grad):
        if location not in placements:
            target = map_location.get(location) if isinstance(map_location, dict) else map_location
            placements[location] = _placement(target)
        backend, target_device = placements[location]
        t = from_numpy(array)
        if backend.name != "numpy" or target_device is not None:
            try:
                t = t.to(backend=backend.name, device=target_device)
            except Exception as e:
                raise RuntimeError(f"xtensor.load: cannot place a {t.dtype} tensor from {name} on backend "
                                   f"{backend.name!r}{'' if target_device is None else ', device ' + target_device}: "
                                   f"{e}") from None
        return t.requires_grad_(True) if requires_grad else t

    data = io.BytesIO(read("data.pkl"))
    if not weights_only:
        unpickler_type = _FullUnpickler if pickle_module in (None, pickle) else \
            type("_FullUnpickler", (_FullUnpickler, pickle_module.Unpickler), {})
        unpickler = unpickler_type(data, **{"encoding": "utf-8", **pickle_load_args})
        unpickler._setup(read_storage, place)
        return unpickler.load()
    unpickler = _WeightsOnlyUnpickler(data)
    unpickler._setup(read_storage, place)  # a malformed safe global raises here, as in PyTorch
    try:
        return unpickler.load()
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
    except RuntimeError:
        raise
    except Exception as e:
        raise pickle.UnpicklingError(_weights_only_message(f"{name} holds a malformed pickle: "
                                                          f"{type(e).__name__}: {e}")) from None
