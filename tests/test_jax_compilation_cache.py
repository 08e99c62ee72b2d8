"""The jax backend keeps the programs it compiles on disk (jax's persistent compilation cache), so a script's
second run reads back what its first compiled; the user's own jax cache settings and ``XTENSOR_JAX_CACHE=0`` win.

Each case is a fresh process: jax decides once per process, at its first compile, whether to use a cache.
"""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("jax")

# One eager training step on the jax backend; reports where jax caches, how many programs it asked the cache for and
# how many of them it read back instead of compiling.
_SCRIPT = """
import json, jax.monitoring
counts = {"programs": 0, "read back": 0}
def listen(name, **kwargs):
    if name.endswith("/compile_requests_use_cache"):
        counts["programs"] += 1
    elif name.endswith("/cache_hits"):
        counts["read back"] += 1
jax.monitoring.register_event_listener(listen)
import xtensor as torch
torch.set_default_backend("jax")
layer = torch.nn.Linear(3, 2)
layer(torch.ones(4, 3)).square().mean().backward()
print(json.dumps({"folder": jax.config.jax_compilation_cache_dir,
                  "min_seconds": jax.config.jax_persistent_cache_min_compile_time_secs, **counts}))
"""


def _run(tmp_path, **env):
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("JAX_COMPILATION_CACHE", "JAX_PERSISTENT_CACHE", "XTENSOR_JAX_CACHE"))}
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120,
                          env={**clean, "XDG_CACHE_HOME": str(tmp_path / "cache"), **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_second_run_reads_back_the_programs_the_first_compiled(tmp_path):
    first, second = _run(tmp_path), _run(tmp_path)
    assert first["folder"] == str(tmp_path / "cache" / "xtensor" / "jax") and first["min_seconds"] == 0
    assert first["programs"] > 0 and first["read back"] == 0
    assert second["programs"] == second["read back"] == first["programs"]


def test_xtensor_jax_cache_0_leaves_jax_without_a_cache(tmp_path):
    seen = _run(tmp_path, XTENSOR_JAX_CACHE="0")
    assert seen["folder"] is None and seen["read back"] == 0
    assert not (tmp_path / "cache").exists()


def test_a_cache_folder_given_to_jax_is_kept_with_jaxs_own_threshold(tmp_path):
    seen = _run(tmp_path, JAX_COMPILATION_CACHE_DIR=str(tmp_path / "mine"))
    assert seen["folder"] == str(tmp_path / "mine") and seen["min_seconds"] == 1.0
    assert not (tmp_path / "cache").exists()


def test_a_cache_folder_that_cannot_be_written_means_no_cache_and_no_warning(tmp_path):
    (tmp_path / "cache").write_text("a file where the cache folder would go")
    seen = _run(tmp_path, PYTHONWARNINGS="error")
    assert seen["folder"] is None and seen["read back"] == 0
