"""The array-API tests SciPy, scikit-learn and array-api-extra ship in their installed packages, run with
``xtensor.array_api`` as one more backend beside array_api_strict (``tests/consumer_suites_plugin.py``), each suite in
a subprocess of its own.

A test that passes on array_api_strict must pass on xtensor, unless it is listed in ``EXCEPTIONS`` (on jax also
``JAX_EXCEPTIONS``) with the reason.
The default run takes the cheaper half of each suite's modules and one pair of tests in ``SHARE`` (chosen by a hash of
the pair and the seed ``XTENSOR_CONSUMERS_SEED``, the day of the year unless set: the subset rotates) on the numpy
backend; ``XTENSOR_CONSUMERS=full`` runs every module and pair, on numpy and on jax. ``python tests/test_consumer_suites.py`` runs the full
suites and prints the README's table.
"""
import collections
import json
import os
import re
import subprocess
import sys
import time

import pytest

pytest.importorskip("scipy")
pytest.importorskip("sklearn")
pytest.importorskip("array_api_extra")
pytest.importorskip("array_api_strict")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FULL = os.environ.get("XTENSOR_CONSUMERS") == "full"
SHARE = 1 if FULL else 16
SEED = os.environ.get("XTENSOR_CONSUMERS_SEED", time.strftime("%j"))

_SKLEARN_MODULES = """utils.tests.test_array_api metrics.tests.test_common metrics.tests.test_pairwise
    metrics.tests.test_classification metrics.cluster.tests.test_common metrics.cluster.tests.test_supervised
    _loss.tests.test_link _loss.tests.test_loss decomposition.tests.test_pca linear_model.tests.test_base
    linear_model.tests.test_ridge linear_model.tests.test_logistic linear_model._glm.tests.test_glm
    mixture.tests.test_gaussian_mixture model_selection.tests.test_search model_selection.tests.test_split
    model_selection.tests.test_validation preprocessing.tests.test_data preprocessing.tests.test_label
    preprocessing.tests.test_polynomial tests.test_calibration tests.test_kernel_approximation tests.test_naive_bayes
    tests.test_pipeline tests.test_common utils.tests.test_estimator_checks utils.tests.test_extmath
    utils.tests.test_indexing utils.tests.test_multiclass utils.tests.test_optimize utils.tests.test_stats
    utils.tests.test_validation""".split()

# suite -> (pytest arguments of the full run, of the default run): ``--pyargs`` targets and a selection. The default
# run leaves out what costs most to collect (scikit-learn's estimator checks, scipy.stats and scipy.signal).
SUITES = {
    "scikit-learn": ([*(f"sklearn.{m}" for m in _SKLEARN_MODULES), "-k", "array_api or namespace"],
                     ["sklearn.utils.tests.test_array_api", "sklearn.metrics.tests.test_common", "-k", "array_api"]),
    "scipy.special": (["scipy.special.tests.test_support_alternative_backends", "scipy.special.tests.test_logsumexp"],
                      ["scipy.special.tests.test_support_alternative_backends", "scipy.special.tests.test_logsumexp"]),
    "scipy._lib": (["scipy._lib.tests.test_array_api"], ["scipy._lib.tests.test_array_api"]),
    "scipy ndimage, fft, cluster, signal, stats": (
        ["scipy.ndimage", "scipy.fft", "scipy.cluster", "scipy.signal", "scipy.stats"],
        ["scipy.ndimage.tests.test_filters", "scipy.fft", "scipy.cluster"]),
    "array-api-extra": (["array_api_extra.tests.main"], ["array_api_extra.tests.main"]),
}

# pair key (a regular expression) -> why it fails on xtensor though it passes on array_api_strict
EXCEPTIONS = {
    r"^scipy\.stats\.tests\.test_resampling::TestPower::test_input_validation\[": (
        "the test matches NumPy's, Dask's and JAX's wording of a broadcast error ('not be broadcast|Chunks do not "
        "add|Incompatible shapes'); xtensor raises PyTorch's ('The size of tensor a (2) must match the size of tensor "
        "b (3)'), whose wording SciPy's list leaves out"),
    r"^scipy\..*(::test_device\[|\.test_device_dtype::)": (
        "SciPy's `devices` fixture appends a list to `__array_namespace_info__().devices()`, which the 2025.12 "
        "standard (xtensor's version) makes a tuple; array_api_strict returns a list only because SciPy pins it to "
        "2024.12"),
    r"^scipy\.special\.tests\.test_support_alternative_backends::test_support_alternative_backends"
    r"(_mismatched_dtypes)?\[.*func=<function chdtrc>": (
        "SciPy's generic chdtrc (taken for any namespace with `special.gammaincc`) returns 1 for x < 0 where SciPy's "
        "ufunc, used for array_api_strict, gives NaN"),
}


# the same, for xtensor on the jax backend only
_OUTPUT_BUFFER_TESTS = ("correlate01_overlap|correlate14|correlate2[02345]|gauss_memory_overlap|"
                        "gaussian_gradient_magnitude02|gaussian_laplace02|generic_laplace01|laplace02|"
                        "minimum_filter05_overlap|prewitt02|rank06_overlap|sobel02|zoom_output_shape|"
                        "black_tophat0[14]|white_tophat0[14]|grey_erosion01_overlap")
JAX_EXCEPTIONS = {
    rf"^scipy\.ndimage\.tests\.test_\w+::(\w+::)?test_({_OUTPUT_BUFFER_TESTS})\[": (
        "SciPy's ndimage writes `output=` through `np.asarray(output)`, a view of the output's buffer, and skips "
        "these tests on jax.numpy ('output=array requires buffer view'); a tensor on xtensor's jax backend has no "
        "host buffer to view either (`np.asarray` gives a copy), so the written values do not reach it"),
}


def run_suite(targets, backend="numpy", share=SHARE, seed=SEED, timeout=1500):
    """Run one suite's tests through the plugin: ``{pair key: {backend: outcome}}``, pytest's summary line."""
    report = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"xtensor-consumers-{os.getpid()}-{time.time_ns()}.json")
    env = dict(os.environ, SCIPY_ARRAY_API="1", XTENSOR_BACKEND=backend, XTENSOR_CONSUMERS_SHARE=str(share),
               XTENSOR_CONSUMERS_SEED=str(seed), XTENSOR_CONSUMERS_REPORT=report,
               PYTHONPATH=os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-p", "consumer_suites_plugin", "-p", "no:cacheprovider", "-q",
               "-W", "ignore::pytest.PytestUnknownMarkWarning", "--pyargs", *targets]
    done = subprocess.run(command, env=env, cwd=os.path.dirname(report), capture_output=True, text=True,
                          timeout=timeout)
    try:
        with open(report) as f:
            outcomes = json.load(f)
    except FileNotFoundError:
        pytest.fail(f"the suite did not report (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    os.remove(report)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    return outcomes, summary


def regressions(outcomes, backend="numpy"):
    """Pairs that pass on array_api_strict and fail on xtensor, but for the listed exceptions."""
    listed = [*EXCEPTIONS, *(JAX_EXCEPTIONS if backend == "jax" else ())]
    return sorted(key for key, result in outcomes.items() if result.get("array_api_strict") == "passed" and
                  result.get("xtensor") == "failed" and not any(re.search(p, key) for p in listed))


def counts(outcomes, backend):
    return collections.Counter(result[backend] for result in outcomes.values() if backend in result)


BACKENDS = ["numpy", "jax"] if FULL else ["numpy"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("suite", list(SUITES))
def test_consumer_suite_passes_on_xtensor_where_it_passes_on_array_api_strict(suite, backend):
    outcomes, summary = run_suite(SUITES[suite][0 if FULL else 1], backend)
    xtensor = counts(outcomes, "xtensor")
    assert sum(xtensor.values()) > 0, f"no test of {suite} ran on xtensor: {summary}"
    failing = regressions(outcomes, backend)
    assert not failing, (f"{len(failing)} tests of {suite} fail on xtensor ({backend}) and pass on array_api_strict "
                         f"(seed {SEED}, share 1/{SHARE}):\n" + "\n".join(failing[:40]))


def test_plugin_pairs_a_backend_parametrization_with_array_api_strict():
    from consumer_suites_plugin import _without_backend, XTENSOR_BACKEND
    import functools
    import array_api_strict
    import xtensor.array_api
    assert _without_backend({"xp": xtensor.array_api, "n": 3}) == ("xtensor", "n=3")
    assert _without_backend({"xp": array_api_strict, "n": 3}) == ("array_api_strict", "n=3")
    assert _without_backend({"library": XTENSOR_BACKEND}) == ("xtensor", "")
    check = functools.partial(print, array_namespace="xtensor.array_api", device_name=None, dtype_name="float32")
    assert _without_backend({"check": check}) == ("xtensor", "check=print(dtype_name=float32)")


def test_plugin_adds_an_xtensor_row_beside_each_literal_array_api_strict_row():
    from consumer_suites_plugin import XTENSOR, _with_xtensor_rows
    import array_api_strict
    import functools
    import xtensor.array_api
    assert _with_xtensor_rows("lib", ["numpy", "array_api_strict", "torch"]) == [
        "numpy", "array_api_strict", XTENSOR, "torch"]
    rows = [("array_api_strict", "CPU_DEVICE", 2), ("torch", "cpu", 3)]
    assert _with_xtensor_rows("ns, device_name, n", rows) == [rows[0], (XTENSOR, None, 2), rows[1]]
    param = _with_xtensor_rows(["xp", "n"], [pytest.param(array_api_strict, 1, id="strict")])[1]
    assert param.values == (xtensor.array_api, 1) and param.id == "strict-xtensor"
    check = functools.partial(print, array_namespace="array_api_strict", device_name="device1", dtype_name="float32")
    twin = _with_xtensor_rows("estimator, check", [("est", check)])[1][1]
    assert twin.keywords == {"array_namespace": XTENSOR, "device_name": None, "dtype_name": "float32"}
    assert _with_xtensor_rows("lib", ["numpy", "torch"]) is None
    assert _with_xtensor_rows("ns, device", [("array_api_strict", "CPU_DEVICE"), (XTENSOR, None)]) is None


def table():
    """The README's table, row by row as each suite has run fully on numpy and jax."""
    yield "| suite | pairs | array_api_strict | xtensor (numpy) | xtensor (jax) | fails only on xtensor |"
    yield "|---|---|---|---|---|---|"
    for suite, (targets, _) in SUITES.items():
        cells, only = [], []
        for backend in ("numpy", "jax"):
            started = time.perf_counter()
            outcomes, summary = run_suite(targets, backend, share=1)
            seconds = time.perf_counter() - started
            if backend == "numpy":
                strict = counts(outcomes, "array_api_strict")
                cells += [str(len(outcomes)), f"{strict['passed']} passed, {strict['failed']} failed"]
            x = counts(outcomes, "xtensor")
            cells.append(f"{x['passed']} passed, {x['failed']} failed ({seconds:.0f} s)")
            only.append(f"{backend}: {len(regressions(outcomes, backend))}")
            print(f"{suite} [{backend}]: {summary}", file=sys.stderr, flush=True)
            for key in regressions(outcomes, backend):
                print(f"    {key}", file=sys.stderr, flush=True)
        yield f"| {suite} | " + " | ".join(cells) + f" | {', '.join(only)} |"


if __name__ == "__main__":
    for row in table():
        print(row, flush=True)
