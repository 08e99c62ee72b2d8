"""The XLA flags of the jax processes the tests run: this one (``conftest.py`` sets them before jax loads) and the
ones they start with simulated devices (jax reads ``XLA_FLAGS`` once, at start-up).

The tests run thousands of tiny jax kernels, each compiled once per primitive, shape and dtype (~24 ms each on
XLA:CPU's defaults, most of the suite's time): XLA's older elemental emitters and LLVM without optimization compile
them in ~7 ms with the same IEEE results.
"""
import os

FAST_COMPILE = "--xla_cpu_use_fusion_emitters=false --xla_backend_optimization_level=0"


def with_devices(count):
    """The environment of a subprocess that sees ``count`` simulated CPU devices and compiles as this process does."""
    return dict(os.environ, XLA_FLAGS=f"{FAST_COMPILE} --xla_force_host_platform_device_count={count}",
                JAX_PLATFORMS="cpu")
