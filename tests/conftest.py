import os
import sys

# SciPy reads SCIPY_ARRAY_API once, when first imported: set here, before any test module imports scipy (each
# xdist worker loads this file first), for tests/test_consumers.py. SciPy's NumPy results are the same with it.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))  # tests/opinfo.py is imported as ``opinfo``


@pytest.fixture(scope="session", autouse=True)
def jax_x64():
    """jax in 64-bit mode (float64/int64 as in PyTorch); xtensor's jax adapter does the same."""
    try:
        import jax
    except ImportError:
        yield
        return
    jax.config.update("jax_enable_x64", True)
    yield


BACKENDS = ["numpy", "jax", "array_api_strict"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each backend in turn, made the default for the test (yields its name)."""
    import xtensor
    try:
        xtensor.get_backend(request.param)
    except (ImportError, ValueError) as e:
        pytest.skip(f"backend {request.param!r} unavailable: {e}")
    with xtensor.use_backend(request.param):
        yield request.param
