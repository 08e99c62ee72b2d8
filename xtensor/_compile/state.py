"""Putting tensors' state into a trace and back: snapshots of what a trace may change, dropping cached values, and
the error for a step that reads a traced value on the host."""
from .._dispatch import wrap
from .._tensor import Storage
from .gather import _is_library_file


class _Snapshot:
    """What the trace may change on the Python objects, to put back afterwards."""

    __slots__ = ("storages", "tensors")


def _root(array, backend, dtype):
    """A root tensor over a result of the program, its storage made now (the next call's guard reads it)."""
    t = wrap(array, backend, dtype)
    t._storage = Storage(array)
    return t


def _snapshot(storages, tensors):
    snap = _Snapshot()
    snap.storages = [(st.array, st.version) for st in storages]
    snap.tensors = [(t._arr, t._storage, t._view, t._dtype, t._grad, t._requires_grad, t._grad_fn, t._attr_version)
                    for t in tensors]
    return snap


def _restore(snap, storages, tensors):
    for st, (array, version) in zip(storages, snap.storages):
        st.array, st.version = array, version
    for t, (arr, storage, view, dtype, grad, requires_grad, grad_fn, attr_version) in zip(tensors, snap.tensors):
        t._storage, t._view, t._dtype = storage, view, dtype
        t._grad, t._requires_grad, t._grad_fn, t._attr_version = grad, requires_grad, grad_fn, attr_version
        t._arr = arr
    _invalidate(storages, ())


def _invalidate(storages, tensors):
    """Drop cached values: every alias re-reads its storage."""
    for st in storages:
        for alias in st.live_aliases():
            alias._arr = None
    for t in tensors:
        t._arr = None


# --------------------------------------------------------------------------- host reads
_CALL_NAMES = {"__bool__": "bool(tensor)", "__float__": "float(tensor)", "__int__": "int(tensor)",
               "__index__": "a tensor used as a Python int", "__complex__": "complex(tensor)",
               "getitem": "tensor[index] with a mask or data-dependent index",
               "setitem": "tensor[index] = value with a mask or data-dependent index",
               "__iter__": "iterating over a tensor", "__array__": "numpy.asarray(tensor)",
               "__format__": "formatting a tensor", "__repr__": "printing a tensor"}


def _host_read_error(error, host_reads):
    """The error for a step that reads a traced value on the host (``host_reads``: the backend's error types for
    it), or None for other errors."""
    cause = error
    while cause is not None and not isinstance(cause, host_reads):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    call, where = _offending_call(cause.__traceback__)
    return RuntimeError(
        f"xtensor.compile: {call}{where} reads a tensor's value on the host, but in a compiled step values "
        "exist only once the whole step has run. Return the tensor from the step and read it after the call "
        "(loss = step(x); loss.item()), keep data-dependent shapes out of the step (masks: xtensor.where), or "
        "run the step eagerly (xtensor.compile(fn, disable=True)).")


def _offending_call(tb):
    """(the xtensor call the user's code made, `` at file:line``) from the innermost user frame of ``tb``."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for outer, inner in zip(reversed(frames[:-1]), reversed(frames[1:])):
        if not _is_library_file(outer.f_code.co_filename) and _is_library_file(inner.f_code.co_filename):
            name = inner.f_code.co_name.strip("_")
            return _CALL_NAMES.get(inner.f_code.co_name, f"{name}()"), \
                f" at {outer.f_code.co_filename}:{outer.f_lineno}"
    return "the step", ""
