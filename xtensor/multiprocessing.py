"""``torch.multiprocessing`` on CPU: Python's ``multiprocessing`` API (tensors pickle as their values, so no
shared-memory reducers are needed), the sharing-strategy switches, and torch's ``spawn``: run ``fn(i, *args)``
in ``nprocs`` processes and re-raise the first failure in the parent."""
import multiprocessing
import multiprocessing.connection
import signal
import traceback
import warnings
from multiprocessing import *  # noqa: F401,F403

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "ProcessException", "ProcessRaisedException", "ProcessExitedException",
           *multiprocessing.__all__]

_SHARING_STRATEGIES = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def get_all_sharing_strategies():
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy():
    return _sharing_strategy


def set_sharing_strategy(new_strategy):
    """Record the strategy (xtensor pickles tensors by value, so both strategies send the same data)."""
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"unknown sharing strategy {new_strategy!r}: one of {sorted(_SHARING_STRATEGIES)}")
    _sharing_strategy = new_strategy


class ProcessException(Exception):
    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, errors):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # the parent re-raises it with this traceback, as torch's spawn does
        errors.put((i, traceback.format_exc()))
        raise SystemExit(1)


class ProcessContext:
    """The processes ``spawn(..., join=False)`` started; ``join()`` waits and raises a child's failure."""

    def __init__(self, processes, errors):
        self.processes, self.errors = processes, errors
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """True once every process exited cleanly; False if some still run; raises on the first failure."""
        if not self.sentinels:
            return True
        for sentinel in multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                self._fail(index, process)
        return not self.sentinels

    def _fail(self, index, process):
        for other in self.processes:
            if other.is_alive():
                other.terminate()
            other.join()
        raised = {}
        while not self.errors.empty():
            i, trace = self.errors.get()
            raised[i] = trace
        if index in raised:
            raise ProcessRaisedException(f"\n\n-- Process {index:d} terminated with the following error:\n"
                                         + raised[index], index, process.pid)
        code = process.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {index:d} terminated with signal {name}", index, process.pid,
                                         code, name)
        raise ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", index, process.pid,
                                     code)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``fn(i, *args)`` for ``i`` in ``range(nprocs)`` with ``start_method``; join them unless ``join`` is
    False (then return the ProcessContext)."""
    context = multiprocessing.get_context(start_method)
    errors = context.SimpleQueue()
    processes = []
    for i in range(nprocs):
        process = context.Process(target=_wrap, args=(fn, i, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
    process_context = ProcessContext(processes, errors)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """torch's ``spawn``: ``start_processes`` with the 'spawn' method always (another one warns, as torch's)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")

