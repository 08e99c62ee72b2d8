"""The command line: the README's main job `xtensor demo`, the `linreg` example, and one-line user errors."""
import importlib.util
import os
import subprocess
import sys

import pytest

from xla_flags import with_devices

import xtensor
from xtensor.cli import digits_classifier, linear_regression, main


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


# ------------------------------------------------------------------ the main job: xtensor demo
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
needs_sklearn = pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                                   reason="the demo's data set ships with scikit-learn: pip install -e '.[demo]'")


@needs_sklearn
def test_demo_mlp_learns_the_digits_in_a_few_epochs():
    _, history = digits_classifier(xtensor, "mlp", epochs=3)
    assert history[-1]["loss"] < history[0]["loss"] and history[-1]["test_acc"] > 0.9


@needs_sklearn
def test_demo_convnet_learns_the_digits():
    _, history = digits_classifier(xtensor, "cnn", epochs=2)
    assert history[-1]["test_acc"] > 0.8


@pytest.fixture(scope="module")
def eager_numpy_run():
    """The oracle of the jax, compiled and data-parallel runs: two eager epochs on numpy, seed 3."""
    return digits_classifier(xtensor, "mlp", epochs=2, seed=3)[1]


@needs_sklearn
def test_demo_gives_the_same_accuracy_on_jax_with_the_same_seed(eager_numpy_run):
    on_numpy = eager_numpy_run
    with xtensor.use_backend("jax"):
        net, on_jax = digits_classifier(xtensor, "mlp", epochs=2, seed=3)
    assert next(net.parameters()).backend == "jax"
    assert [r["test_acc"] for r in on_jax] == [r["test_acc"] for r in on_numpy]
    assert on_jax[-1]["loss"] == pytest.approx(on_numpy[-1]["loss"], rel=1e-4)


def _compiling():
    """A ``wrap_step`` that compiles the step with xtensor.compile, and the list that receives the compiled step."""
    made = []

    def wrap_step(step):
        made.append(xtensor.compile(step))
        return made[-1]
    return wrap_step, made


@needs_sklearn
@needs_jax
def test_demo_compiled_on_jax_reaches_the_eager_accuracy_with_three_programs(eager_numpy_run):
    wrap_step, compiled = _compiling()
    with xtensor.use_backend("jax"):
        _, history = digits_classifier(xtensor, "mlp", epochs=2, seed=3, wrap_step=wrap_step)
    assert [r["test_acc"] for r in history] == [r["test_acc"] for r in eager_numpy_run]
    assert [r["loss"] for r in history] == pytest.approx([r["loss"] for r in eager_numpy_run], rel=1e-4)
    # the first step (Adam's moments made), the steady step, the epoch's last partial batch; the scheduler's
    # new learning rate in epoch 2 is a tensor's value, not a recompilation
    assert compiled[0].compilations == 3


@needs_sklearn
def test_demo_compile_on_numpy_runs_the_step_eagerly_with_the_same_results(eager_numpy_run):
    wrap_step, compiled = _compiling()
    _, history = digits_classifier(xtensor, "mlp", epochs=2, seed=3, wrap_step=wrap_step)
    assert compiled[0].compilations == 0
    assert [r["test_acc"] for r in history] == [r["test_acc"] for r in eager_numpy_run]
    assert [r["loss"] for r in history] == pytest.approx([r["loss"] for r in eager_numpy_run], rel=1e-5)


def _accuracy(out):
    return float(out.split("test accuracy: ")[1].split()[0])


@needs_sklearn
@needs_jax
def test_demo_on_8_simulated_devices_reaches_the_1_device_accuracy_and_prints_the_split(tmp_path, capsys):
    command = ["demo", "--backend", "jax", "--epochs", "2", "--seed", "3", "--save", "", "--plot", ""]
    env = with_devices(8)
    on_8 = subprocess.Popen([sys.executable, "-m", "xtensor", *command, "--devices", "8"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert main([*command, "--devices", "1"]) == 0  # this process: one device, while the subprocess runs
    on_1 = capsys.readouterr().out
    out, err = on_8.communicate(timeout=300)
    assert on_8.returncode == 0, err
    assert "step: data-parallel over 8 cpu devices" in out and "step: data-parallel over 1 cpu devices" in on_1
    assert "batch 32 split over 8 devices: [4, 4, 4, 4, 4, 4, 4, 4]" in out
    assert "batch 30 does not divide by 8 devices: replicated" in out  # 1438 training images: 44 x 32 + 30
    assert "batch 32 split over 1 devices: [32]" in on_1
    assert _accuracy(out) == _accuracy(on_1) > 0.9


@needs_sklearn
def test_demo_code_is_a_pytorch_training_loop():
    torch = pytest.importorskip("torch")
    _, history = digits_classifier(torch, "mlp", epochs=2)  # the same function, run by PyTorch itself
    assert history[-1]["test_acc"] > 0.9


@needs_sklearn
def test_demo_command_reports_accuracy_backend_time_and_saves_weights_torch_can_read(tmp_path):
    out = subprocess.run([sys.executable, "-m", "xtensor", "demo", "--epochs", "2", "--plot", "curves.png"],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert "test accuracy: 0." in out and "backend: numpy" in out and "time: " in out
    accuracy = float(out.split("test accuracy: ")[1].split()[0])
    assert accuracy > 0.9
    weights = xtensor.load(tmp_path / "digits_mlp.pt")
    assert list(weights) == ["1.weight", "1.bias", "3.weight", "3.bias", "5.weight", "5.bias"]
    torch = pytest.importorskip("torch")
    assert torch.load(tmp_path / "digits_mlp.pt", weights_only=True)["1.weight"].shape == (128, 64)
    if "plot: curves.png" in out:
        assert (tmp_path / "curves.png").stat().st_size > 0
    else:
        assert "plot: skipped" in out


@pytest.mark.parametrize("args, message", [
    (["demo", "--backend", "no_such_backend"], "xtensor demo: error: backend 'no_such_backend' is not usable"),
    (["demo", "--model", "rnn"], "xtensor demo: error: argument --model: invalid choice: 'rnn'"),
    (["demo", "--epochs", "0"], "xtensor demo: error: argument --epochs: must be a positive integer, got 0"),
    (["linreg", "--steps", "many"], "xtensor linreg: error: argument --steps: must be a positive integer"),
    (["nonsense"], "xtensor: error: argument command: invalid choice: 'nonsense'"),
    (["demo", "--devices", "2"], "xtensor demo: error: --devices trains data-parallel over jax devices, but the "
                                 "backend is numpy: add --backend jax"),
    pytest.param(["demo", "--backend", "jax", "--devices", "64"],
                 "xtensor demo: error: --devices 64: jax has 1 cpu device(s); simulate more on a CPU with "
                 "XLA_FLAGS=--xla_force_host_platform_device_count=64", marks=needs_jax),
])
def test_user_errors_print_one_line_and_exit_2(args, message):
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}  # one CPU device
    done = subprocess.run([sys.executable, "-m", "xtensor", *args], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
