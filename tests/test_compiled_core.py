"""The optional compiled core (``xtensor/_compiled_core.py``, built by ``setup.py``): used when built from the current
source, never when stale, the ``.py`` files under ``XTENSOR_PURE_PYTHON=1``, and the same results either way."""
import hashlib
import importlib.machinery
import json
import os
import subprocess
import sys
import warnings

import pytest

from xtensor import _compiled_core

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A small program through the compiled paths (elementwise ops, a reduction, the engine), printing its values,
# gradients and node names exactly (float.hex), with how each core module was loaded.
PROGRAM = """
import json, sys
import xtensor as torch
x = torch.tensor([[0.5, -1.25, 2.0], [0.1, 0.2, -0.3]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([1.5, -0.5, 0.25], dtype=torch.float64, requires_grad=True)
y = ((x * w).exp().sum(1) + (x + 1).tanh().mean() * w.sum()).sum()
y.backward()
hexes = lambda t: [float(v).hex() for v in t.detach().reshape(-1).tolist()]
print(json.dumps({"value": hexes(y), "x.grad": hexes(x.grad), "w.grad": hexes(w.grad), "node": y.grad_fn.name(),
                  "state": torch.compiled_core(),
                  "files": {name: sys.modules[name].__file__ for name in torch._compiled_core.MODULES}}))
"""


def _run(pure):
    env = {k: v for k, v in os.environ.items() if k != _compiled_core.PURE_PYTHON_VARIABLE}
    if pure:
        env[_compiled_core.PURE_PYTHON_VARIABLE] = "1"
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def default_run():
    return _run(pure=False)


@pytest.fixture(scope="module")
def pure_run():
    return _run(pure=True)


def _built_from_current_source(module):
    """Whether this checkout holds an extension module for ``module`` compiled from its current ``.py``."""
    source = _compiled_core.source_path(module)
    has_extension = any(os.path.isfile(source[:-3] + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES)
    return has_extension and _compiled_core.read_manifest().get(module) == _compiled_core.source_hash(source)


@pytest.mark.parametrize("module", _compiled_core.MODULES)
def test_a_module_built_from_its_current_source_runs_compiled(default_run, module):
    expected_compiled = _built_from_current_source(module)
    assert (default_run["state"][module] == "compiled") is expected_compiled
    assert default_run["files"][module].endswith(".py") is not expected_compiled


def test_pure_python_variable_runs_every_core_module_from_its_py(pure_run):
    assert set(pure_run["state"].values()) == {"python (XTENSOR_PURE_PYTHON is set)"}
    assert all(path.endswith(".py") for path in pure_run["files"].values())


def test_compiled_and_pure_python_give_the_same_values_gradients_and_nodes(default_run, pure_run):
    if not any(state == "compiled" for state in default_run["state"].values()):
        pytest.skip("no compiled core in this checkout: both runs are the .py files")
    for key in ("value", "x.grad", "w.grad", "node"):
        assert default_run[key] == pure_run[key], key


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    """A package ``pkg`` whose module ``hot`` has a source and an (empty, never loaded) extension module file."""
    monkeypatch.delenv(_compiled_core.PURE_PYTHON_VARIABLE, raising=False)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "hot.py").write_text("VALUE = 1\n")
    (package / ("hot" + importlib.machinery.EXTENSION_SUFFIXES[0])).write_bytes(b"")
    return package


def _finder(package, built_from):
    manifest = {"pkg.hot": hashlib.sha256(built_from.encode()).hexdigest()}
    return _compiled_core.CoreFinder(manifest, package_dir=str(package), modules=("pkg.hot",))


def test_an_extension_built_from_the_current_source_is_chosen(fake_package):
    finder = _finder(fake_package, built_from="VALUE = 1\n")
    spec = finder.find_spec("pkg.hot")
    assert isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
    assert finder.state["pkg.hot"] == "compiled"


def test_a_stale_extension_is_not_used_and_says_so(fake_package):
    finder = _finder(fake_package, built_from="VALUE = 0\n")  # the .py was edited after the build
    with pytest.warns(RuntimeWarning, match="compiled from an older .*hot.py; running the .py instead"):
        spec = finder.find_spec("pkg.hot")
    assert spec.origin == str(fake_package / "hot.py")
    assert isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    assert finder.state["pkg.hot"].startswith("python (stale build")


def test_pure_python_variable_skips_a_current_extension(fake_package, monkeypatch):
    monkeypatch.setenv(_compiled_core.PURE_PYTHON_VARIABLE, "1")
    finder = _finder(fake_package, built_from="VALUE = 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec = finder.find_spec("pkg.hot")
    assert spec.origin == str(fake_package / "hot.py")


def test_modules_outside_the_core_are_left_to_the_other_finders(fake_package):
    assert _finder(fake_package, built_from="VALUE = 1\n").find_spec("pkg.other") is None


def test_saves_declarations_are_checked_against_the_py_vjps_when_compiled(default_run):
    """Compiled VJPs have no bytecode, so test_saved_tensors.py skips them: its check runs here on the .py files."""
    if "compiled" not in default_run["state"].values():
        pytest.skip("no compiled core in this checkout: test_saved_tensors.py reads every VJP itself")
    env = dict(os.environ, **{_compiled_core.PURE_PYTHON_VARIABLE: "1"})
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/test_saved_tensors.py", "-q", "-n", "0",
                           "-p", "no:cacheprovider", "-k", "test_saves_declare_every_input"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " skipped" not in done.stdout.splitlines()[-1], done.stdout.splitlines()[-1]
