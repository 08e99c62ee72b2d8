"""The README's main job: ``xtensor linreg``."""
import subprocess
import sys

import pytest

import xtensor
from xtensor.cli import linear_regression


def test_linreg_learns_the_line_it_was_trained_on():
    w, b, losses = linear_regression(xtensor, steps=300)
    assert 1.6 < w.item() < 2.4 and 2.5 < b.item() < 3.5
    assert sum(losses[-50:]) / 50 < sum(losses[:5]) / 5


@pytest.mark.parametrize("backend", ["jax", "array_api_strict"])
def test_linreg_gives_the_same_fit_on_every_backend(backend):
    w0, b0, _ = linear_regression(xtensor, steps=50)
    with xtensor.use_backend(backend):
        w1, b1, _ = linear_regression(xtensor, steps=50)
    assert w1.backend == backend
    assert w1.item() == pytest.approx(w0.item(), rel=1e-5) and b1.item() == pytest.approx(b0.item(), rel=1e-5)


def test_linreg_command_prints_weights_backend_and_time(tmp_path):
    out = subprocess.run([sys.executable, "-m", "xtensor", "linreg", "--steps", "20", "--plot", ""],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert "backend: numpy" in out and "w: " in out and "b: " in out and "time: " in out
