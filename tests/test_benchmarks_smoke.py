"""Smoke tests for benchmarks/bench_overhead.py, bench_phases.py and bench_paired.py: one case, minimal repeats
(well under 5 s)."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # plain `pytest` puts tests/, not the repo root, on sys.path
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_overhead as bench  # noqa: E402


def test_one_case_has_positive_timings():
    result = bench.run_case("add+grad", repeat=1, target_time=1e-4, warmup=1,
                            columns=("numpy", "xtensor[numpy]", "torch"))
    times = result["times_us"]
    for column in ("numpy", "xtensor[numpy]"):
        assert times[column] > 0
    if bench.column_available("torch")[0]:  # optional columns: only checked where the library is present
        assert times["torch"] > 0
        assert result["ratios"]["xtensor[numpy]/torch"] > 0
    assert result["ratios"]["xtensor[numpy]/numpy"] > 0
    assert [t["ratio"] for t in result["targets"]] == ["xtensor[numpy]/torch"]


def test_markdown_renders():
    result = bench.run_case("add", repeat=1, target_time=1e-4, warmup=1, columns=("numpy", "xtensor[numpy]"))
    md = bench.markdown([result])
    assert md.splitlines()[0].startswith("| case | numpy µs | xtensor[numpy] µs |")
    assert "| add |" in md


def test_memory_row_reports_kib_peaks():
    result = bench.run_case("mlp_peak_memory", repeat=1, warmup=0, columns=("numpy", "xtensor[numpy]"))
    assert result["unit"] == "KiB"
    assert all(v > 0 for v in result["values"].values())
    assert "KiB |" in bench.markdown([result])


def test_bench_phases_times_every_phase_of_each_case():
    pytest.importorskip("torch")
    from benchmarks import bench_phases

    (rows,) = bench_phases.measure(["tiny_graph"], rounds=1, scale=200).values()
    assert [label for label, *_ in rows] == ["forward (four recorded ops)", "backward"]
    assert all(ours > 0 and theirs > 0 for _, ours, theirs in rows)


def test_bench_phases_cuts_the_lstm_forward_at_each_module():
    pytest.importorskip("torch")
    from benchmarks import bench_phases

    (rows,) = bench_phases.measure(["lstm_lm_step_layers"], rounds=1, scale=3).values()
    assert [label for label, *_ in rows] == ["zero_grad + embedding", "nn.LSTM layer", "decoder nn.Linear",
                                             "cross_entropy", "backward", "optimizer step"]
    assert all(ours > 0 and theirs > 0 for _, ours, theirs in rows)


def test_bench_paired_times_both_sides_of_a_case():
    pytest.importorskip("torch")
    from benchmarks import bench_paired

    for clock in bench_paired.CLOCKS.values():
        ((ours, theirs, ratio),) = bench_paired.measure(["add+grad"], rounds=1, target=1e-4, clock=clock).values()
        assert ours > 0 and theirs > 0 and ratio == ours / theirs


def test_bench_gpu_environment_names_the_devices_and_the_float32_product_error():
    """The GPU check's first section: what jax and xtensor's ``torch.cuda`` see, and the float32 product's error,
    which must be full float32's (~1e-6; TF32 would be ~1e-3) on whatever device jax has."""
    pytest.importorskip("jax")
    from benchmarks import bench_gpu

    info = bench_gpu.environment()
    on_gpu = info["jax default backend"] == "gpu"
    assert info["jax devices"] and info["xtensor[jax] torch.cuda.is_available()"] == on_gpu
    assert info["xtensor[jax] float32 matmul, max relative error"] < 1e-5
    assert "| jax devices |" in bench_gpu.markdown({"env": info})
