"""benchmarks/bench_compile.py times one training step six ways; this checks they are the same step (a few
seconds: two small compilations), so the benchmark cannot drift into comparing different work. No timing."""
import pathlib
import sys

import pytest

pytest.importorskip("jax")

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # plain `pytest` puts tests/, not the repo root, on sys.path
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_compile as bench  # noqa: E402


def test_every_column_takes_the_same_adam_step_from_the_same_weights():
    fns, first = bench._columns(8)
    assert set(fns) >= {"xtensor.compile", "jax.jit", "xtensor[numpy]"}
    second = {column: fn().item() for column, fn in fns.items()}  # the loss after one Adam update
    assert set(first) == set(second) == set(fns)
    for column in fns:
        assert first[column] == pytest.approx(first["jax.jit"], rel=1e-5), column
        assert second[column] == pytest.approx(second["jax.jit"], rel=1e-4), column
    assert second["jax.jit"] < first["jax.jit"]
