"""xtensor.profiler (torch.profiler) and torch.autograd.profiler against PyTorch 2.13: the regions a program marks
with record_function are counted and timed as PyTorch's (nesting, schedules, on_trace_ready), xtensor's own
functions appear as PyTorch's operator rows do, and the table, the Chrome trace and the errors have PyTorch's
shape."""
import json
import time

import pytest

import xtensor as xt
from xtensor import profiler

torch = pytest.importorskip("torch")


def _program(lib, steps=3, prof=None):
    """Nested regions around a little tensor work; ``prof.step()`` after each step when given."""
    x = lib.ones(8, 8)
    for _ in range(steps):
        with lib.profiler.record_function("step"):
            with lib.profiler.record_function("forward"):
                (x @ x).relu().sum()
            with lib.profiler.record_function("backward"):
                x.exp().mean()
        if prof is not None:
            prof.step()


def _region_counts(prof):
    return {row.key: row.count for row in prof.key_averages() if row.key in ("step", "forward", "backward")}


def test_regions_are_counted_as_pytorch_counts_them(backend):
    with xt.profiler.profile() as ours:
        _program(xt)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as theirs:
        _program(torch)
    assert _region_counts(ours) == _region_counts(theirs) == {"step": 3, "forward": 3, "backward": 3}


def test_a_region_s_self_time_excludes_the_regions_nested_in_it():
    with xt.profiler.profile() as prof:
        with xt.profiler.record_function("outer"):
            time.sleep(0.01)
            with xt.profiler.record_function("inner"):
                time.sleep(0.02)
    rows = {row.key: row for row in prof.key_averages()}
    outer, inner = rows["outer"], rows["inner"]
    assert inner.cpu_time_total >= 20_000 and outer.cpu_time_total >= 30_000  # microseconds, as PyTorch's
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - inner.cpu_time_total)


def test_xtensor_functions_appear_as_operator_rows(backend):
    with xt.profiler.profile() as prof:
        _program(xt, steps=2)
    rows = {row.key: row for row in prof.key_averages() if not row.is_user_annotation}
    matmul = [row for key, row in rows.items() if "matmul" in key]
    assert matmul and all(key.startswith("xtensor.") for key in rows)
    assert all(0 <= row.self_cpu_time_total <= row.cpu_time_total + 1e-6 for row in rows.values())


def test_table_has_pytorchs_columns_and_total_line():
    with xt.profiler.profile() as ours:
        _program(xt, steps=1)
    with torch.profiler.profile() as theirs:
        _program(torch, steps=1)
    ours_lines = ours.key_averages().table(sort_by="cpu_time_total", row_limit=4).splitlines()
    theirs_lines = theirs.key_averages().table(sort_by="cpu_time_total", row_limit=4).splitlines()
    assert ours_lines[1].split() == theirs_lines[1].split()  # Name, Self CPU %, ..., # of Calls
    assert len(ours_lines) == len(theirs_lines) and ours_lines[-1].startswith("Self CPU time total: ")
    assert theirs_lines[-1].startswith("Self CPU time total: ")


@pytest.mark.parametrize("arguments", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=1, active=1, repeat=2),
                                       dict(wait=2, warmup=1, active=1, skip_first=1, skip_first_wait=1)])
def test_schedule_gives_pytorchs_actions(arguments):
    ours, theirs = xt.profiler.schedule(**arguments), torch.profiler.schedule(**arguments)
    assert [ours(step).name for step in range(12)] == [theirs(step).name for step in range(12)]


def test_scheduled_profile_saves_the_active_steps_as_pytorch():
    def run(lib):
        saved = []
        with lib.profiler.profile(schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
                                  on_trace_ready=lambda prof: saved.append(_region_counts(prof))) as prof:
            _program(lib, steps=9, prof=prof)
        return saved
    assert run(xt) == run(torch) == [{"step": 2, "forward": 2, "backward": 2}] * 2


def test_chrome_trace_holds_the_regions(tmp_path):
    with xt.profiler.profile() as prof:
        _program(xt, steps=2)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    assert sorted(e["name"] for e in events) == ["backward"] * 2 + ["forward"] * 2 + ["step"] * 2
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_tensorboard_handler_writes_a_pytorch_named_trace_file(tmp_path):
    with xt.profiler.profile(on_trace_ready=xt.profiler.tensorboard_trace_handler(str(tmp_path), "worker0")):
        _program(xt, steps=1)
    (written,) = tmp_path.iterdir()
    assert written.name.startswith("worker0.") and written.name.endswith(".pt.trace.json")


def test_record_function_decorates_a_function():
    @xt.profiler.record_function("loss")
    def loss(x):
        return (x * x).sum()
    with xt.profiler.profile() as prof:
        loss(xt.ones(3))
        loss(xt.ones(3))
    assert {row.key: row.count for row in prof.key_averages()}["loss"] == 2


def test_autograd_profiler_is_the_legacy_spelling_and_enabled_false_records_nothing():
    with xt.autograd.profiler.profile() as prof, xt.autograd.profiler.record_function("region"):
        xt.ones(2).sum()
    assert "region" in {row.key for row in prof.key_averages()}
    with xt.autograd.profiler.profile(enabled=False) as idle, xt.autograd.profiler.record_function("region"):
        xt.ones(2).sum()
    assert list(idle.key_averages()) == []


def test_what_is_not_recorded_says_so():
    with pytest.warns(UserWarning, match="host .CPU. time only: CUDA, profile_memory"):
        prof = xt.profiler.profile(activities=[profiler.ProfilerActivity.CUDA], profile_memory=True)
    with prof:
        pass
    with pytest.raises(NotImplementedError, match="group_by_input_shape"):
        prof.key_averages(group_by_input_shape=True)


def test_record_function_outside_a_profile_records_nowhere():
    with xt.profiler.record_function("alone"):
        pass
    with xt.profiler.profile() as prof:
        pass
    assert "alone" not in {row.key for row in prof.key_averages()}
