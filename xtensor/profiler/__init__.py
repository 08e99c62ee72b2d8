"""``xtensor.profiler`` (PyTorch's ``torch.profiler``): where a program's host time goes, measured for real.

``with profile() as prof:`` records, with ``time.perf_counter``:

* every ``record_function("name")`` region (a context manager or a decorator) that runs inside it, on any
  thread: its calls, total time, and self time (total less the regions nested in it) -- PyTorch's
  user-annotation rows;
* xtensor's own Python functions, through ``cProfile``: calls, self time and total time, keyed
  ``xtensor.<module>.<function>`` -- the counterpart of PyTorch's ``aten::`` operator rows.

``prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)`` prints PyTorch's table (Name, Self CPU %,
Self CPU, CPU total %, CPU total, CPU time avg, # of Calls); ``export_chrome_trace`` writes the regions as a
Chrome trace; ``schedule``/``step``/``on_trace_ready``/``tensorboard_trace_handler`` work as PyTorch's.
What differs, by design: times are host times (a jax computation dispatched asynchronously is counted where
the host waits for it); the table's percentages are of the recorded wall time ("Self CPU time total"), and rows
overlap (a region's self time includes the xtensor functions called within it). Memory, input shapes, FLOPs and
device activities are not recorded: asking for them says so (a warning at ``profile(...)``, an error at
``key_averages(group_by_input_shape=True)``).
"""
import cProfile
import enum
import json
import os
import pstats
import socket
import threading
import time
import warnings
from functools import wraps

__all__ = ["profile", "record_function", "schedule", "tensorboard_trace_handler", "supported_activities",
           "ProfilerAction", "ProfilerActivity", "kineto_available"]


class ProfilerActivity(enum.Enum):
    """What PyTorch can trace; xtensor measures ``CPU`` (host) time only."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` asks of a step."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    return {ProfilerActivity.CPU}


def kineto_available():
    """PyTorch's tracing library: xtensor has none (its profiler is the one of this module)."""
    return False


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """Step ``n``'s action: ``skip_first`` steps of nothing, then cycles of ``wait`` idle, ``warmup`` and ``active``
    recorded steps (the last one saves), ``repeat`` times (0: for ever), as PyTorch's."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
                             f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
                             f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step = step - skip_first + (wait if skip_first_wait else 0)
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        phase = step % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if phase < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each trace to ``dir_name/<worker>.<ms>.pt.trace.json`` (PyTorch's naming,
    which TensorBoard's profiler plugin reads)."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler


# ------------------------------------------------------------------ regions

_recording = []  # the profiles recording now; record_function reports to each
_stack = threading.local()  # this thread's open regions, to compute self times


class _Event:
    """One run of a ``record_function`` region (times in microseconds since the epoch of perf_counter)."""
    __slots__ = ("name", "start_us", "end_us", "nested_us", "thread")

    def __init__(self, name, start_us, thread):
        self.name, self.start_us, self.thread, self.nested_us, self.end_us = name, start_us, thread, 0.0, None

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - self.nested_us


def _now_us():
    return time.perf_counter() * 1e6


class record_function:  # noqa: N801  (PyTorch's spelling)
    """A named region of the program that the active profiles time (``with record_function("loss"):``, or
    ``@record_function("loss")`` on a function); outside a profile it costs one list check."""

    def __init__(self, name, args=None):
        self.name, self.args, self._event = name, args, None

    def __enter__(self):
        if _recording:
            self._event = _Event(self.name, _now_us(), threading.get_ident())
            stack = getattr(_stack, "open", None)
            if stack is None:
                stack = _stack.open = []
            stack.append(self._event)
        return self

    def __exit__(self, *exc_info):
        event, self._event = self._event, None
        if event is None:
            return False
        event.end_us = _now_us()
        stack = _stack.open
        stack.pop()
        if stack:
            stack[-1].nested_us += event.cpu_time_total
        for prof in list(_recording):
            prof._events.append(event)
        return False

    def __call__(self, function):
        @wraps(function)
        def timed(*args, **kwargs):
            with record_function(self.name, self.args):
                return function(*args, **kwargs)
        return timed


# ------------------------------------------------------------------ results

def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us, total_us):
    return "NaN" if total_us == 0 else f"{time_us * 100.0 / total_us:.2f}%"


class FunctionEventAvg:
    """The totals of one key (a region's name or an xtensor function), in microseconds, as PyTorch's."""

    def __init__(self, key, count, cpu_time_total, self_cpu_time_total, is_user_annotation):
        self.key, self.count, self.is_user_annotation = key, count, is_user_annotation
        self.cpu_time_total, self.self_cpu_time_total = cpu_time_total, self_cpu_time_total
        self.device_time_total = self.self_device_time_total = 0.0

    @property
    def cpu_time(self):
        """The average total time per call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} count={self.count}>")


class EventList(list):
    """A list of events or of averages; ``table()`` prints them as PyTorch's profiler table."""

    def __init__(self, items=(), wall_us=0.0):
        super().__init__(items)
        self._wall_us = wall_us

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None,
              top_level_events_only=False, **unused_display_options):
        rows = list(self)
        if sort_by is not None:
            rows.sort(key=lambda row: getattr(row, sort_by), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        width = min(max([len(row.key) for row in rows] + [4]) + 4, max_name_column_width)
        columns = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        rule = "-" * width + "  " + "  ".join("-" * 12 for _ in columns) + "  "
        lines = ([header] if header else []) + [
            rule, f"{'Name':>{width}}  " + "  ".join(f"{c:>12}" for c in columns) + "  ", rule]
        for row in rows:
            name = row.key if len(row.key) <= width else row.key[:width - 3] + "..."
            cells = [_format_share(row.self_cpu_time_total, self._wall_us), _format_time(row.self_cpu_time_total),
                     _format_share(row.cpu_time_total, self._wall_us), _format_time(row.cpu_time_total),
                     _format_time(row.cpu_time), str(row.count)]
            lines.append(f"{name:>{width}}  " + "  ".join(f"{c:>12}" for c in cells) + "  ")
        lines += [rule, f"Self CPU time total: {_format_time(self._wall_us)}", ""]
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def total_average(self):
        """One average over every row (PyTorch's ``Total``)."""
        return FunctionEventAvg("Total", sum(r.count for r in self), sum(r.cpu_time_total for r in self),
                                sum(r.self_cpu_time_total for r in self), False)


# ------------------------------------------------------------------ the profiler

class profile:  # noqa: N801  (PyTorch's spelling)
    """Profile the host time of the code it wraps; see the module's docstring. Arguments as PyTorch's
    ``torch.profiler.profile``; ``use_cuda``, ``experimental_config`` and the other tracing options of PyTorch's
    own runtime are accepted and change nothing."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False, **pytorch_runtime):
        activities = set(activities or supported_activities())
        unmeasured = sorted(a.name for a in activities - supported_activities())
        unrecorded = [flag for flag, on in (("profile_memory", profile_memory), ("with_flops", with_flops)) if on]
        if unmeasured or unrecorded:
            warnings.warn(f"xtensor's profiler measures host (CPU) time only: {', '.join(unmeasured + unrecorded)} "
                          "record nothing here", stacklevel=2)
        self.activities, self.record_shapes = activities, record_shapes
        self.schedule, self.on_trace_ready = schedule or _always_record, on_trace_ready
        self.step_num, self.current_action = 0, None
        self._events, self._functions, self._wall_us, self._started_us, self._cprofile = [], {}, 0.0, None, None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()
        return False

    def start(self):
        self.step_num = 0
        self._enter(self.schedule(self.step_num))

    def stop(self):
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._stop_recording()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        self.current_action = None

    def step(self):
        """The end of one training step: move along the ``schedule``, saving when an active stretch ends."""
        previous = self.current_action
        self.step_num += 1
        action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE or (previous == ProfilerAction.RECORD and
                                                         action not in (ProfilerAction.RECORD,
                                                                        ProfilerAction.RECORD_AND_SAVE)):
            self._stop_recording()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            previous = None
        if previous not in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._enter(action)
        else:
            self.current_action = action

    def _enter(self, action):
        self.current_action = action
        if action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._events, self._functions, self._wall_us = [], {}, 0.0
            self._started_us = _now_us()
            self._cprofile = cProfile.Profile()
            self._cprofile.enable()
            _recording.append(self)

    def _stop_recording(self):
        self._cprofile.disable()
        _recording.remove(self)
        self._wall_us = _now_us() - self._started_us
        self._functions = _library_functions(self._cprofile)

    def events(self):
        """The recorded ``record_function`` regions, in the order they ended."""
        return EventList(self._events, self._wall_us)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """One row per region name and per xtensor function that ran, summed."""
        if group_by_input_shape or group_by_stack_n:
            raise NotImplementedError("key_averages(group_by_input_shape=..., group_by_stack_n=...): xtensor's "
                                      "profiler records neither input shapes nor stacks")
        regions = {}
        for event in self._events:
            count, total, own = regions.get(event.name, (0, 0.0, 0.0))
            regions[event.name] = (count + 1, total + event.cpu_time_total, own + event.self_cpu_time_total)
        rows = [FunctionEventAvg(name, *totals, True) for name, totals in regions.items()]
        rows += [FunctionEventAvg(name, *totals, False) for name, totals in self._functions.items()]
        return EventList(rows, self._wall_us)

    def export_chrome_trace(self, path):
        """The regions as a Chrome trace (``chrome://tracing``, Perfetto, TensorBoard's profiler)."""
        trace = {"traceEvents": [{"name": e.name, "ph": "X", "cat": "user_annotation", "ts": e.start_us,
                                  "dur": e.cpu_time_total, "pid": os.getpid(), "tid": e.thread}
                                 for e in self._events], "displayTimeUnit": "ms"}
        opener = open
        if path.endswith(".gz"):
            import gzip
            opener = gzip.open
        with opener(path, "wt") as f:
            json.dump(trace, f)


def _library_functions(profiler):
    """``{"xtensor.<module>.<function>": (calls, total us, self us)}`` of the xtensor code ``profiler`` saw."""
    import xtensor
    from xtensor import adapters
    roots = {os.path.dirname(os.path.realpath(xtensor.__file__)): "xtensor",
             os.path.dirname(os.path.realpath(adapters.__file__)): "xtensor.adapters"}
    functions = {}
    for (filename, _, function), (_, calls, own, total, _) in pstats.Stats(profiler).stats.items():
        if function.startswith("<"):  # comprehensions, lambdas: counted in the function that holds them
            continue
        path = os.path.realpath(filename)
        for root, package in roots.items():
            if path.startswith(root + os.sep):
                module = os.path.splitext(os.path.relpath(path, root))[0].replace(os.sep, ".")
                key = f"{package}.{module.removesuffix('.__init__')}.{function}"
                count, all_us, own_us = functions.get(key, (0, 0.0, 0.0))
                functions[key] = (count + calls, all_us + total * 1e6, own_us + own * 1e6)
                break
    return functions
