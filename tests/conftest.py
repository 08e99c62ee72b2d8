import atexit
import functools
import gc
import os
import shutil
import sys
import tempfile

# SciPy reads SCIPY_ARRAY_API once, when first imported: set here, before any test module imports scipy (each
# xdist worker loads this file first), for tests/test_consumers.py. SciPy's NumPy results are the same with it.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
# One thread per library: pytest-xdist already runs a worker per core, and PyTorch's (or OpenBLAS') extra
# threads spin on tiny tensors far longer than they compute (10x the CPU time of an LBFGS test). Read when
# each library loads.
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(__file__))  # tests/opinfo.py is imported as ``opinfo``
from xla_flags import FAST_COMPILE, joined  # noqa: E402

# Fast XLA compilation of the many tiny kernels (read when jax's CPU backend starts, so set before any import).
_flags = joined(os.environ.get("XLA_FLAGS", ""), FAST_COMPILE)
if _flags:
    os.environ["XLA_FLAGS"] = _flags
# The xdist workers compile many of the same small kernels: jax's compilation cache, in a folder of this run that the
# workers inherit, lets one read what the other compiled (test_ops on jax 8% less CPU, the views fuzzer 19% less).
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="xtensor-tests-jax-cache-")
    atexit.register(shutil.rmtree, os.environ["JAX_COMPILATION_CACHE_DIR"], ignore_errors=True)
    os.environ.update(JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0", JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="-1")

import pytest  # noqa: E402


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Collection without the cyclic garbage collector, its objects frozen after: collecting makes ~1M long-lived
    objects (the test modules, 47K items with their parameters), which each full collection would walk again and
    again: half of a worker's collection time (14 s -> 7.5 s), and ~5 s of its share of test_ops.py. Frozen objects
    are never freed (these live for the session anyway) and ``gc.get_objects()`` leaves them out (test_memory.py
    counts what tests create, after)."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        gc.enable()


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


@pytest.fixture(scope="session", autouse=True)
def one_mlir_context():
    """jax lowers every program into a new MLIR context, made with all its dialects loaded (~4 ms), and the programs
    it caches keep their contexts alive (~1 MB each): the tests lower thousands of tiny kernels, and one context that
    all lowerings share takes a third off the CPU time of the jax tests and two thirds off a worker's memory. The
    programs are the same: a context only interns the IR's types and attributes, and XLA compiles the module jax
    serializes from it."""
    try:
        from jax._src.interpreters import mlir
    except ImportError:
        mlir = None
    fresh = getattr(mlir, "make_ir_context", None)  # (private: a jax without it lowers as it always does)
    if fresh is None:
        yield
        return
    mlir.make_ir_context = functools.cache(fresh)
    yield
    mlir.make_ir_context = fresh


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


def _opinfo_of(item):
    """The OpInfo a test_ops.py case runs (its ``case`` parameter's first element), or None."""
    case = getattr(item, "callspec", None) and item.callspec.params.get("case")
    info = case[0] if isinstance(case, tuple) and case else None
    return info if type(info).__name__ == "OpInfo" else None


# Test files whose tests take seconds each (subprocesses, fuzzers, training loops, the tutorials' jax cells): run first,
# so that pytest-xdist's last tests are short ones and the two workers finish together.
_LONG_RUNNING = ("test_views_fuzz", "test_consumer_suites", "test_cli", "test_gradcheck_cli", "test_distributed",
                 "test_torch_programs", "test_registry_libraries", "test_memory", "test_nn_conv", "test_special",
                 "test_tutorials")


def pytest_collection_modifyitems(items):
    """The long-running files first (``_LONG_RUNNING``); each op's OpInfo cases (test_ops.py, test_errors_opinfo.py)
    next to one another in their module (forward, variants, gradients, agreement...: collected test function by test
    function), in the same slots: pytest-xdist hands a worker consecutive runs of tests, so one worker compiles an
    op's jax kernels and jax references once, where the two workers each compiled most of them."""
    items.sort(key=lambda item: item.path.stem not in _LONG_RUNNING)
    slots = [i for i, item in enumerate(items) if _opinfo_of(item) is not None]
    order = {}
    for i in slots:
        order.setdefault((items[i].module.__name__, _opinfo_of(items[i]).name), len(order))
    ordered = sorted((items[i] for i in slots), key=lambda item: order[item.module.__name__, _opinfo_of(item).name])
    for i, item in zip(slots, ordered):
        items[i] = item
