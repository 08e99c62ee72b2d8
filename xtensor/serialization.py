"""``xtensor.save``/``xtensor.load`` in PyTorch's file format, so checkpoints move both ways.

The format (PyTorch's since 1.6): a zip archive, entries stored uncompressed and 64-byte aligned under one
folder (``archive/``): ``data.pkl`` is a protocol-2 pickle of the object in which every tensor is a call
of ``torch._utils._rebuild_tensor_v2`` on a persistent ``('storage', torch.FloatStorage, key, 'cpu',
numel)`` reference, and ``data/<key>`` holds that storage's raw little-endian bytes.

Safety, as PyTorch's ``weights_only=True``: ``load`` unpickles with an allow-list -- tensors, parameters,
storages, dtypes, ``Size``, ``device``, ``OrderedDict``/``Counter``/``set``/``complex``/``bytes`` and plain
Python values -- and refuses anything else the file names with ``pickle.UnpicklingError`` before it is
looked up, so no code from a file ever runs. ``save`` refuses, symmetrically, what ``load`` (and
``torch.load(weights_only=True)``) could not read back, such as a whole module: save its ``state_dict()``.

Writing to a path goes through a temporary file in the same folder that replaces the target only once
complete, so a failed save leaves the previous file intact. Each tensor is saved as its own contiguous
storage: tensors that shared memory when saved load as separate tensors (PyTorch's loader would share).
"""
import _compat_pickle
import codecs
import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np

from . import _dtypes
from ._backend import get_backend, get_default_backend
from ._creation import from_numpy
from ._tensor import Size, Tensor, device
from .nn.parameter import Parameter

__all__ = ["save", "load"]

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
_SAVEABLE_GLOBALS = {("collections", "OrderedDict"), ("collections", "Counter"), ("builtins", "set"),
                     ("builtins", "complex"), ("builtins", "bytearray"), ("_codecs", "encode")}


class _TorchPickler(pickle._Pickler):
    """Pickles xtensor objects as their PyTorch counterparts, and nothing that ``load`` would refuse."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file):
        super().__init__(file, protocol=2)
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
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        module, name = getattr(obj, "__module__", None), name or getattr(obj, "__qualname__", repr(obj))
        if (module, name) not in _SAVEABLE_GLOBALS:
            raise pickle.PicklingError(
                f"xtensor.save writes only what xtensor.load and torch.load(weights_only=True) can read back "
                f"(tensors, numbers, strings, dtypes, devices and containers of them); {module}.{name} is not one "
                f"of them (to save a model, save its state_dict())")
        super().save_global(obj, name)

    def save_dtype(self, dtype):
        self.save(_TORCH_DTYPES[dtype.name])

    dispatch[_TorchGlobal] = save_global
    dispatch[_dtypes.DType] = save_dtype


def _aligned_entry(archive, name, data):
    """Write one stored entry whose data starts at a multiple of 64 bytes (as PyTorch writes them)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    data_start = archive.fp.tell() + 30 + len(name.encode("utf-8")) + 4  # local header, name, extra header
    padding = -data_start % _ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
    archive.writestr(info, data)


def _archive_bytes(obj):
    buffer = io.BytesIO()
    pickler = _TorchPickler(buffer)
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


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Save tensors, parameters, state dicts, optimizer states and nested containers of them to a path or a
    binary file object, in PyTorch's format (``torch.load(..., weights_only=True)`` reads it).

    A path is written through a temporary file in the same folder, renamed over the target when complete."""
    if pickle_module is not None or pickle_protocol != 2 or not _use_new_zipfile_serialization:
        raise ValueError("xtensor.save writes PyTorch's zip format with pickle protocol 2 only")
    blob = _archive_bytes(obj)
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
        raise pickle.UnpicklingError("Weights only load failed: _codecs.encode is allowed only for bytes (latin1)")
    return codecs.encode(text, "latin1")


def _torch_device(kind, index=None):
    return device(kind if index is None else f"{kind}:{index}")


class _TorchUnpickler(pickle._Unpickler):
    """An unpickler that knows only the allow-listed names (PyTorch's ``weights_only`` set, on xtensor)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, read_storage, place):
        super().__init__(file)
        self._read_storage, self._place = read_storage, place
        self._allowed = {
            ("collections", "OrderedDict"): collections.OrderedDict,
            ("collections", "Counter"): collections.Counter,
            ("builtins", "set"): set, ("builtins", "complex"): complex, ("builtins", "bytearray"): bytearray,
            ("_codecs", "encode"): _checked_encode,
            ("torch", "Size"): Size, ("torch", "device"): _torch_device,
            ("torch", "Tensor"): Tensor, ("torch.nn.parameter", "Parameter"): Parameter,
            ("torch._utils", "_rebuild_tensor"): self._rebuild_tensor,
            ("torch._utils", "_rebuild_tensor_v2"): self._rebuild_tensor,
            ("torch._utils", "_rebuild_tensor_v3"): self._rebuild_tensor_v3,
            ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
            ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
            ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type,
            _UNTYPED: _StorageType(None),
        }
        self._allowed.update({("torch", storage): _StorageType(_dtypes.by_name(name))
                              for name, storage in _STORAGE_OF.items()})
        self._allowed.update({("torch", name): _dtypes.by_name(name) for name in _DTYPES})

    def find_class(self, module, name):
        if self.proto < 3:  # protocol 2 writes Python 2 names (__builtin__.set)
            module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        found = self._allowed.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                f"Weights only load failed: the file asks for GLOBAL {module}.{name}, which is not an allowed global. "
                "xtensor.load reads tensors, parameters, dtypes, devices, numbers, strings and containers of them, "
                "and never runs code from a file; a whole pickled object (a module, an optimizer) cannot be loaded: "
                "save and load its state_dict() instead.")
        return found

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], _StorageType)
                and isinstance(pid[2], str) and isinstance(pid[4], int)):
            raise pickle.UnpicklingError(f"Weights only load failed: unknown persistent id {pid!r}")
        return self._read_storage(pid[1].dtype, pid[2], pid[3], pid[4])

    def _rebuild_tensor(self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                        metadata=None):
        array, location = storage
        return self._place(_strided(array, storage_offset, size, stride), location, requires_grad)

    def _rebuild_tensor_v3(self, storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                           metadata=None):
        array, location = storage
        if not isinstance(dtype, _dtypes.DType):
            raise pickle.UnpicklingError(f"Weights only load failed: {dtype!r} is not a dtype")
        return self._rebuild_tensor((array.view(_dtypes.numpy_dtype(dtype)), location), storage_offset, size, stride,
                                    requires_grad)

    def load_build(self):
        state, target = self.stack[-1], self.stack[-2]
        if not isinstance(target, (collections.OrderedDict, collections.Counter)) or not isinstance(state, dict):
            raise pickle.UnpicklingError(f"Weights only load failed: the file sets the state of a "
                                         f"{type(target).__name__}; only OrderedDict state (a state dict's "
                                         "_metadata) can be set")
        super().load_build()

    dispatch[pickle.BUILD[0]] = load_build


def _strided(array, offset, size, stride):
    """The elements of a storage a tensor covers, as a fresh array; a tensor reaching outside is corrupt."""
    if not (isinstance(offset, int) and all(isinstance(n, int) and n >= 0 for n in size)
            and all(isinstance(s, int) and s >= 0 for s in stride) and len(size) == len(stride)):
        raise pickle.UnpicklingError(f"Weights only load failed: bad tensor geometry: offset {offset!r}, "
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


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Load what ``save`` or ``torch.save`` wrote (a path or a binary file object). Tensors land on
    ``map_location``: a backend name (``'jax'``), a device (``'cpu'``, ``'cuda:0'``), a dict from the saved
    locations to those, or ``None`` for the default backend. Only allow-listed content is read (see the
    module docstring), whatever ``weights_only`` says: loading never runs code from the file."""
    if pickle_module is not None:
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

    unpickler = _TorchUnpickler(io.BytesIO(read("data.pkl")), read_storage, place)
    try:
        return unpickler.load()
    except (pickle.UnpicklingError, RuntimeError):
        raise
    except Exception as e:
        raise pickle.UnpicklingError(f"Weights only load failed: {name} holds a malformed pickle: "
                                     f"{type(e).__name__}: {e}") from None
