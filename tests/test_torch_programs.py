"""PyTorch programs run unchanged: ``xtensor.install_as_torch()``, ``xtensor run SCRIPT``, and the training
programs of tests/programs/ run on PyTorch and under ``xtensor run``, printing the same losses.

``import torch`` can mean one thing per process, and this one has PyTorch as the oracle: everything that
installs the alias runs in a fresh process.
"""
import contextlib
import json
import operator
import os
import re
import runpy
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import xtensor
from xtensor._torch_alias import TorchVersion

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(REPOSITORY, "tests", "programs")


def _python(*args, env=None, cwd=None):
    """Run ``python ARGS`` with this checkout's xtensor first on the path; return the finished process."""
    environment = {**os.environ, "PYTHONPATH": REPOSITORY, **(env or {})}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=environment, cwd=cwd,
                          timeout=300)


def _with_xtensor_as_torch(code):
    """Run ``code`` after ``install_as_torch()`` in a fresh process; return what it printed (it must succeed)."""
    done = _python("-c", "import xtensor; xtensor.install_as_torch()\n" + textwrap.dedent(code))
    assert done.returncode == 0, done.stderr
    return done.stdout


# ------------------------------------------------------------------ install_as_torch

@pytest.fixture(scope="module")
def seen_with_xtensor_as_torch():
    """What one fresh process sees after ``install_as_torch()`` (one process for the tests below: each costs an
    import of xtensor)."""
    printed = _with_xtensor_as_torch("""
        import importlib.util, json, sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.nn.modules.linear
        import torch.version
        from torch.utils.data import DataLoader
        from torch.optim.lr_scheduler import StepLR
        import xtensor
        seen = {"same objects": [torch is xtensor, nn is xtensor.nn, F is xtensor.nn.functional,
                                 DataLoader is xtensor.utils.data.DataLoader, StepLR is xtensor.optim.lr_scheduler.StepLR,
                                 torch.nn.modules.linear is sys.modules["xtensor.nn.modules.linear"]],
                "same sys.modules entries": [sys.modules[name] is sys.modules["xtensor" + name[5:]] for name in
                                             ["torch", "torch.nn", "torch.nn.functional", "torch.utils.data",
                                              "torch.optim.lr_scheduler", "torch.nn.modules.linear"]],
                "xtensor.nn's own names": [xtensor.nn.__name__, xtensor.nn.__spec__.name],
                "find_spec origin": importlib.util.find_spec("torch.nn.functional").origin == F.__file__,
                "version": [torch.__version__, torch.__version__ >= "2.0", torch.__version__ > (2, 12)],
                "torch.version": [torch.version.__version__ == torch.__version__, torch.version.cuda,
                                  torch.version.hip]}
        try:
            import torch._dynamo
        except ImportError as e:
            seen["missing"] = [type(e).__name__, e.name, str(e)]
        xtensor.install_as_torch()
        seen["after a second install"] = [sum(type(f).__name__ == "_TorchFinder" for f in sys.meta_path),
                                          xtensor.__version__]
        print(json.dumps(seen))
    """)
    return json.loads(printed)


def test_every_torch_import_path_gives_the_xtensor_module_itself(seen_with_xtensor_as_torch):
    assert seen_with_xtensor_as_torch["same objects"] == [True] * 6
    assert seen_with_xtensor_as_torch["same sys.modules entries"] == [True] * 6


def test_the_xtensor_modules_keep_their_own_names(seen_with_xtensor_as_torch):
    assert seen_with_xtensor_as_torch["xtensor.nn's own names"] == ["xtensor.nn", "xtensor.nn"]


def test_a_torch_module_xtensor_lacks_is_one_import_error_naming_it(seen_with_xtensor_as_torch):
    kind, name, message = seen_with_xtensor_as_torch["missing"]
    assert (kind, name) == ("ModuleNotFoundError", "torch._dynamo")
    assert "No module named 'torch._dynamo'" in message and "xtensor" in message and "PyTorch" in message


def test_importlib_finds_the_torch_modules_xtensor_has(seen_with_xtensor_as_torch):
    assert seen_with_xtensor_as_torch["find_spec origin"] is True


def test_torch_version_is_the_torch_api_xtensor_follows_with_an_xtensor_label(seen_with_xtensor_as_torch):
    assert seen_with_xtensor_as_torch["version"] == [f"2.13.0+xtensor.{xtensor.__version__}", True, True]


def test_torch_version_module_reads_as_a_cpu_build_of_that_version(seen_with_xtensor_as_torch):
    assert seen_with_xtensor_as_torch["torch.version"] == [True, None, None]


def test_install_as_torch_twice_is_the_same_as_once(seen_with_xtensor_as_torch):
    assert seen_with_xtensor_as_torch["after a second install"] == [1, f"2.13.0+xtensor.{xtensor.__version__}"]


def test_install_as_torch_refuses_once_pytorch_itself_is_imported():
    done = _python("-c", textwrap.dedent("""
        import sys, types
        sys.modules["torch"] = types.ModuleType("torch")  # stands for PyTorch, imported first
        import xtensor
        xtensor.install_as_torch()
    """))
    assert done.returncode == 1 and "RuntimeError: install_as_torch(): PyTorch itself is already imported" in done.stderr


VERSION_COMPARISONS = ["2.13.0+xtensor.0.1.0", "2.0", "2.13", "2.13.0", "2.13.1", "2.2", "2.14.0a0", "10.0", "1.13.1+cu117", (2, 13), (2, 2),
                       (3,), "parrot"]


@pytest.mark.parametrize("other", VERSION_COMPARISONS, ids=str)
def test_version_string_compares_as_torchs_torch_version(other):
    torch_version = pytest.importorskip("torch.torch_version")
    ours, theirs = TorchVersion("2.13.0+xtensor.0.1.0"), torch_version.TorchVersion("2.13.0+xtensor.0.1.0")
    for compare in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        assert compare(ours, other) == compare(theirs, other), compare


def test_version_string_is_the_plain_string_to_everything_but_comparisons():
    version = TorchVersion("2.13.0+xtensor.0.1.0")
    assert str(version) == "2.13.0+xtensor.0.1.0" and version.split("+")[0] == "2.13.0"
    assert hash(version) == hash("2.13.0+xtensor.0.1.0") and version == "2.13.0+xtensor.0.1.0"


def test_torch_C_has_the_telemetry_call_and_a_clear_error_for_the_rest():
    assert xtensor._C._log_api_usage_once("torchmetrics.metric.Accuracy") is None
    assert not hasattr(xtensor._C, "_jit_pass_inline")
    with pytest.raises(AttributeError, match=r"torch\._C\._get_tracing_state is part of PyTorch's compiled core"):
        xtensor._C._get_tracing_state


# ------------------------------------------------------------------ xtensor run

def _xtensor_run(*args, env=None, cwd=None):
    return _python("-m", "xtensor", "run", *args, env=env, cwd=cwd)


def test_run_executes_the_script_as_main_with_its_argv_and_its_folder_on_the_path(tmp_path):
    (tmp_path / "helpers.py").write_text("ANSWER = 42\n")
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import json, sys
        import torch
        from helpers import ANSWER  # the script's folder comes first on sys.path, as python puts it
        print(json.dumps([__name__, sys.argv, sys.path[0], torch.__name__, ANSWER]))
    """))
    done = _xtensor_run(str(tmp_path / "train.py"), "--lr", "0.1", "--backend", "cpu")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["__main__", [str(tmp_path / "train.py"), "--lr", "0.1", "--backend", "cpu"],
                                       str(tmp_path), "xtensor", 42]


def test_run_module_executes_it_as_python_dash_m_does(tmp_path):
    (tmp_path / "trainer.py").write_text("import sys, torch\nprint(__name__, sys.argv[1:], torch.__name__)\n")
    done = _xtensor_run("-m", "trainer", "--epochs", "2", cwd=tmp_path, env={"PYTHONPATH": f"{REPOSITORY}:{tmp_path}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["__main__", "['--epochs',", "'2']", "xtensor"]


@pytest.mark.parametrize("how", ["option", "environment"])
def test_run_picks_the_backend_from_its_option_or_the_environment(tmp_path, how):
    pytest.importorskip("array_api_strict")
    (tmp_path / "show.py").write_text("import torch\nprint(torch.ones(2).backend)\n")
    if how == "option":
        done = _xtensor_run("--backend", "array_api_strict", str(tmp_path / "show.py"))
    else:
        done = _xtensor_run(str(tmp_path / "show.py"), env={"XTENSOR_BACKEND": "array_api_strict"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "array_api_strict"


def test_run_exits_with_the_scripts_status(tmp_path):
    (tmp_path / "stop.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "crash.py").write_text("import torch\nimport torch._inductor\n")
    assert _xtensor_run(str(tmp_path / "stop.py")).returncode == 3
    crashed = _xtensor_run(str(tmp_path / "crash.py"))
    assert crashed.returncode == 1
    assert 'crash.py", line 2' in crashed.stderr and "No module named 'torch._inductor'" in crashed.stderr


def test_run_of_a_missing_script_is_a_one_line_error(tmp_path):
    done = _xtensor_run(str(tmp_path / "nope.py"))
    assert done.returncode == 2
    assert done.stderr == f"xtensor run: error: can't open file '{tmp_path / 'nope.py'}': no such file\n"


# ------------------------------------------------------------------ training programs: PyTorch vs xtensor run

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _skeleton_and_numbers(output):
    """The printed text with every decimal number replaced by '#', and those numbers (integers stay in the text)."""
    return NUMBER.sub("#", output), [float(n) for n in NUMBER.findall(output)]


def _assert_prints_the_same(actual, expected):
    """The same lines, and every decimal number the same to the last printed digit or 1e-4 relative."""
    (text, numbers), (expected_text, expected_numbers) = _skeleton_and_numbers(actual), _skeleton_and_numbers(expected)
    assert text == expected_text
    np.testing.assert_allclose(numbers, expected_numbers, rtol=1e-4, atol=2e-6 if not numbers else
                               max(10.0 ** -len(n.split(".")[1].split("e")[0]) for n in NUMBER.findall(expected)))


@contextlib.contextmanager
def _pytorch_settings_kept(torch):
    """Run a program in this process and put back the global settings programs change (seeds, flags, dtype); on one
    thread meanwhile: the programs are tiny, and PyTorch's two threads per test worker on two cores spin far longer
    than they compute (~10x the CPU time)."""
    saved = (torch.get_num_threads(), torch.get_rng_state(), torch.get_default_dtype(),
             torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32,
             torch.backends.cudnn.allow_tf32, torch.backends.cudnn.benchmark)
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved[0])
        saved = saved[1:]
        torch.set_rng_state(saved[0])
        torch.set_default_dtype(saved[1])
        torch.set_float32_matmul_precision(saved[2])
        (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
         torch.backends.cudnn.benchmark) = saved[3:]


def _run_on_pytorch(program, args, monkeypatch, capsys):
    """The program on PyTorch, as ``python PROGRAM ARGS`` runs it; here, to share this process's import of torch."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(sys, "argv", [program, *args])
    capsys.readouterr()
    with _pytorch_settings_kept(torch), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runpy.run_path(program, run_name="__main__")
    return capsys.readouterr().out


def _program(name, xtensor_options=(), xtensor_args=()):
    """A program's run: options of ``xtensor run`` before it, arguments only its xtensor run gets after it."""
    return pytest.param(name, list(xtensor_options), list(xtensor_args),
                        id="-".join([name, *(o.lstrip("-") for o in [*xtensor_options, *xtensor_args])]))


@pytest.mark.parametrize("name, xtensor_options, xtensor_args", [
    _program("char_gpt"),
    _program("char_gpt", xtensor_args=["--compile"]),
    _program("mlp_resume"),
    _program("lstm_lbfgs"),
    _program("polynomial_regression"),
    _program("polynomial_regression", ["--backend", "jax"]),
    _program("gcn_sparse"),
    _program("rnn_packed_lm"),
])
def test_program_prints_the_same_losses_under_xtensor_run(name, xtensor_options, xtensor_args, tmp_path,
                                                         monkeypatch, capsys):
    """The program runs on PyTorch (which writes its initial weights to --init), then under ``xtensor run`` in a
    fresh process from those weights; both print the same lines and numbers."""
    if "jax" in xtensor_options:
        pytest.importorskip("jax")
    program, init = os.path.join(PROGRAMS, f"{name}.py"), str(tmp_path / "init.pt")
    monkeypatch.chdir(tmp_path)
    expected = _run_on_pytorch(program, ["--init", init], monkeypatch, capsys)
    done = _xtensor_run(*xtensor_options, program, "--init", init, *xtensor_args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    _assert_prints_the_same(done.stdout, expected)
