"""The XLA flags of the jax processes the tests run: this one (``conftest.py`` sets them before jax loads) and the
ones they start with simulated devices (jax reads ``XLA_FLAGS`` once, at start-up).

The tests run thousands of tiny jax kernels, each compiled once per primitive, shape and dtype (~24 ms each on
XLA:CPU's defaults, most of the suite's time): XLA's older elemental emitters and LLVM without optimization compile
them in ~7 ms with the same IEEE results.
"""
import os
import subprocess
import sys

_WANTED = "--xla_cpu_use_fusion_emitters=false --xla_backend_optimization_level=0"
_PROBED = "XTENSOR_TESTS_XLA_FLAGS"  # the probe's answer, passed on to pytest-xdist's workers


def _starts_with(flag):
    probe = subprocess.run([sys.executable, "-c", "import jax.numpy; jax.numpy.zeros(1).block_until_ready()"],
                           env=dict(os.environ, XLA_FLAGS=flag, JAX_PLATFORMS="cpu"), capture_output=True)
    return probe.returncode == 0


def _accepted(flags):
    """Those of ``flags`` the installed XLA starts with: XLA aborts the process on a flag it does not know (jaxlib 0.11
    dropped the older emitters' switch), so a child process tries them (then each, if refused), once per test run."""
    if _PROBED not in os.environ:
        accepted = flags.split() if _starts_with(flags) else [flag for flag in flags.split() if _starts_with(flag)]
        os.environ[_PROBED] = " ".join(accepted)
    return os.environ[_PROBED]


def joined(*flags):
    """``XLA_FLAGS`` made of ``flags``, leaving out empty ones: XLA reads a value not starting with ``--`` (even a
    lone space) as the name of a file of flags, and aborts when there is none."""
    return " ".join(flag for flag in flags if flag.strip())


FAST_COMPILE = _accepted(_WANTED)


def with_devices(count):
    """The environment of a subprocess that sees ``count`` simulated CPU devices and compiles as this process does."""
    return dict(os.environ, XLA_FLAGS=joined(FAST_COMPILE, f"--xla_force_host_platform_device_count={count}"),
                JAX_PLATFORMS="cpu")
