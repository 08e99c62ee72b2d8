"""Backend selection, moving tensors between backends, and mixing them in one op.

Each test runs once per backend (the ``backend`` fixture makes it the default). Process-wide
selection (env var, pyproject.toml) is checked in a fresh interpreter; ``set_default_backend`` is
checked from a fresh thread, which does not see the fixture's (thread-local) ``use_backend``.
"""
import os
import subprocess
import sys
import threading
from importlib.metadata import entry_points

import numpy as np
import pytest

import xtensor as t

BACKENDS = ["numpy", "jax", "array_api_strict"]
REPORT = "import xtensor as t; print(t.get_default_backend().name, t.zeros(2).backend)"


def _run_python(code, env_backend=None, cwd=None):
    env = dict(os.environ)
    env.pop("XTENSOR_BACKEND", None)
    if env_backend is not None:
        env["XTENSOR_BACKEND"] = env_backend
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def _in_fresh_thread(fn):
    result = {}

    def target():
        try:
            result["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
            result["error"] = e

    th = threading.Thread(target=target)
    th.start()
    th.join(60)
    if "error" in result:
        raise result["error"]
    return result["value"]


def _other(backend):
    return "jax" if backend != "jax" else "array_api_strict"


# ------------------------------------------------------------------------------------------ selection

def test_env_var_selects_the_default_backend_even_over_pyproject(backend, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(f'[tool.xtensor]\nbackend = "{_other(backend)}"\n')
    monkeypatch.chdir(tmp_path)
    assert _run_python(REPORT, env_backend=backend, cwd=os.getcwd()) == [backend, backend]


def test_nearest_pyproject_tool_xtensor_selects_the_default_backend(backend, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(f'[tool.xtensor]\nbackend = "{_other(backend)}"\n')
    inner = tmp_path / "project"
    (inner / "src" / "pkg").mkdir(parents=True)
    (inner / "pyproject.toml").write_text(f'[project]\nname = "demo"\n\n[tool.xtensor]\nbackend = "{backend}"\n')
    monkeypatch.chdir(inner / "src" / "pkg")  # the nearest pyproject.toml is two folders up
    assert _run_python(REPORT, cwd=os.getcwd()) == [backend, backend]


def test_numpy_is_the_default_without_configuration(backend, tmp_path, monkeypatch):
    if backend != "numpy":
        pytest.skip("a process-wide fact, checked once (in the numpy run)")
    monkeypatch.chdir(tmp_path)  # no pyproject.toml above a fresh tmp dir
    assert _run_python(REPORT, cwd=os.getcwd()) == ["numpy", "numpy"]


def test_set_default_backend_sets_the_process_default(backend):
    previous = _in_fresh_thread(lambda: t.get_default_backend().name)
    t.set_default_backend(backend)
    try:
        assert _in_fresh_thread(lambda: t.get_default_backend().name) == backend
        assert _in_fresh_thread(lambda: t.ones(2).backend) == backend
    finally:
        t.set_default_backend(previous)
    assert _in_fresh_thread(lambda: t.get_default_backend().name) == previous


def test_use_backend_takes_precedence_over_set_default_backend(backend):
    previous = _in_fresh_thread(lambda: t.get_default_backend().name)
    t.set_default_backend(_other(backend))
    try:
        assert t.get_default_backend().name == backend  # the fixture's use_backend block
        assert t.zeros(1).backend == backend
    finally:
        t.set_default_backend(previous)


def test_get_default_backend_names_the_fixture_backend(backend):
    adapter = t.get_default_backend()
    assert adapter.name == backend
    assert t.get_backend(backend) is adapter
    assert t.zeros(3).backend == backend


def test_use_backend_nests_and_restores(backend):
    outer, inner = _other(backend), "numpy"
    with t.use_backend(outer) as adapter:
        assert adapter.name == outer
        assert t.ones(1).backend == outer
        with t.use_backend(inner):
            assert t.get_default_backend().name == inner
            assert t.ones(1).backend == inner
        assert t.get_default_backend().name == outer
    assert t.get_default_backend().name == backend


def test_use_backend_restores_after_an_exception(backend):
    with pytest.raises(KeyError):
        with t.use_backend(_other(backend)):
            raise KeyError("boom")
    assert t.get_default_backend().name == backend


def test_use_backend_is_thread_local(backend):
    process_default = _in_fresh_thread(lambda: t.get_default_backend().name)
    with t.use_backend(_other(backend)):
        assert _in_fresh_thread(lambda: t.get_default_backend().name) == process_default


def test_factory_backend_keyword_overrides_the_default(backend):
    for name in BACKENDS:
        assert t.ones(2, backend=name).backend == name
        assert t.tensor([1.0], backend=name).backend == name
    assert t.ones(2).backend == backend


def test_unknown_backend_name_raises_value_error_naming_it(backend):
    with pytest.raises(ValueError, match="no_such_backend_xyz"):
        t.set_default_backend("no_such_backend_xyz")
    with pytest.raises(ValueError, match="no_such_backend_xyz"):
        with t.use_backend("no_such_backend_xyz"):
            pass
    with pytest.raises(ValueError, match="no_such_backend_xyz"):
        t.get_backend("no_such_backend_xyz")
    with pytest.raises(ValueError, match="no_such_backend_xyz"):
        t.zeros(2, backend="no_such_backend_xyz")
    assert t.get_default_backend().name == backend


def test_entry_points_register_numpy_and_jax(backend):
    eps = {ep.name: ep for ep in entry_points(group="xtensor.backends")}
    assert {"numpy", "jax"} <= set(eps)
    for name in ("numpy", "jax"):
        adapter = eps[name].load()()
        assert adapter.name == name
    assert {"numpy", "jax"} <= set(t.available_backends())


# ------------------------------------------------------------------------------------------ moving tensors

@pytest.mark.parametrize("target", BACKENDS)
def test_to_backend_moves_values_dtype_and_shape(backend, target):
    for dtype, data in ((t.float32, [[1.5, -2.0], [0.25, 4.0]]), (t.float64, [[0.1, 0.2], [0.3, 1e-300]]),
                        (t.int64, [[2 ** 40, -3], [0, 7]]), (t.bool, [[True, False], [False, True]])):
        x = t.tensor(data, dtype=dtype)
        y = x.to(target)
        assert y.backend == target and x.backend == backend
        assert y.dtype == dtype and y.shape == (2, 2)
        assert y.tolist() == x.tolist()


def test_to_own_backend_returns_self(backend):
    x = t.ones(2)
    assert x.to(backend) is x


def test_to_backend_copies(backend):
    x = t.zeros(3)
    y = x.to(_other(backend))
    y[0] = 5.0
    assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("target", BACKENDS)
def test_gradients_flow_back_across_backends(backend, target):
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.to(target)
    assert y.requires_grad and y.is_leaf == (target == backend)  # to(own backend) returns x itself
    (y * y).sum().backward()
    assert x.grad.backend == backend
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_move_of_a_leaf_records_a_copy_node_like_torch(backend):
    torch = pytest.importorskip("torch")
    y = t.ones(2, requires_grad=True).to(_other(backend))
    ty = torch.ones(2, requires_grad=True).to("meta")
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__


# ------------------------------------------------------------------------------------------ mixing backends

def test_numpy_tensors_mix_with_any_backend(backend):
    host = t.tensor([1.0, 2.0, 3.0], backend="numpy")
    other = t.tensor([10.0, 20.0, 30.0])
    for result in (host + other, other + host, t.maximum(host, other), host * other):
        assert result.backend == backend
    assert (host + other).tolist() == [11.0, 22.0, 33.0]
    assert (other - host).tolist() == [9.0, 18.0, 27.0]


def test_gradients_flow_to_both_sides_of_a_mixed_op(backend, request):
    host = t.tensor([1.0, 2.0], backend="numpy", requires_grad=True)
    other = t.tensor([3.0, 4.0], requires_grad=True)
    (host * other).sum().backward()
    assert host.grad.tolist() == [3.0, 4.0] and host.grad.backend == "numpy"
    assert other.grad.tolist() == [1.0, 2.0] and other.grad.backend == backend


def test_mixing_jax_and_array_api_strict_raises_naming_both(backend):
    a = t.ones(2, backend="jax")
    b = t.ones(2, backend="array_api_strict")
    for f in (lambda: a + b, lambda: b * a, lambda: t.maximum(a, b)):
        with pytest.raises(RuntimeError) as info:
            f()
        assert "jax" in str(info.value) and "array_api_strict" in str(info.value)


def test_tensor_of_a_numpy_array_lands_on_the_default_backend(backend):
    x = t.tensor(np.arange(3))
    assert x.backend == backend and x.dtype == t.int64 and x.tolist() == [0, 1, 2]
