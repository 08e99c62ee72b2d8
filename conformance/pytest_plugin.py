"""The pytest plugin the runner loads into the suite's pytest process (``-p <package>.pytest_plugin``).

Two jobs:
- repeatable runs: test_special_cases draws inputs with ``SearchStrategy.example()``, which shuffles
  with Python's global ``random`` that ``--hypothesis-seed`` does not reach; seeding that RNG per test
  from the test id gives every test the same stream whatever the run order.
- outcomes for the runner: one JSON line per test (``{"nodeid": ..., "outcome": ...}``) appended to
  the file named by ``XTENSOR_CONFORMANCE_OUTCOMES``, with pytest's xfail/xpass distinction kept.
"""
import json
import os
import random
import zlib

import pytest

OUTCOMES_ENV = "XTENSOR_CONFORMANCE_OUTCOMES"


@pytest.fixture(autouse=True)
def _seed_global_random(request):
    random.seed(zlib.crc32(request.node.nodeid.encode()))
    yield


def outcome_of(report):
    """The test outcome a report settles, or None while the test is still running (a passing setup)."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else "passed"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "failed"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    if report.failed:
        return "error"
    return None


def pytest_runtest_logreport(report):
    path = os.environ.get(OUTCOMES_ENV)
    outcome = outcome_of(report)
    if path and outcome is not None:
        with open(path, "a") as f:
            f.write(json.dumps({"nodeid": report.nodeid, "outcome": outcome}) + "\n")
