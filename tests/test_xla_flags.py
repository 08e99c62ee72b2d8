"""The tests' own XLA flags (tests/xla_flags.py, set by conftest.py) never stop jax from starting."""
import os
import subprocess
import sys

_TESTS = os.path.dirname(__file__)


def test_jax_starts_when_the_installed_xla_refuses_every_fast_compile_flag():
    """With no flag accepted and no ``XLA_FLAGS`` of the user's, conftest must leave ``XLA_FLAGS`` unset: XLA reads
    any value not starting with ``--`` (a lone space included) as a file of flags and aborts without one (seen with
    jaxlib 0.11 on a GPU machine: every test process died before printing anything)."""
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env.update(XTENSOR_TESTS_XLA_FLAGS="", JAX_PLATFORMS="cpu", PYTHONPATH=_TESTS)
    child = subprocess.run([sys.executable, "-c", "import conftest, os, jax.numpy as jnp; "
                            "print(repr(os.environ.get('XLA_FLAGS')), float(jnp.ones(2).sum()))"],
                           env=env, capture_output=True, text=True, cwd=_TESTS)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.split() == ["None", "2.0"]
