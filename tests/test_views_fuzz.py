"""Differential fuzzer: random programs of views, in-place writes and backward, PyTorch as the oracle.

Each program (``tests/fuzz_programs.py``) runs once with ``import torch`` and once with ``import xtensor``
on each backend; every read (values, shape, dtype, requires_grad, grad_fn name, is_leaf), the statement
that raises (and its error type) and ``w.grad`` must agree. A failure prints the program as PyTorch code
and the first difference, after hypothesis has shrunk it.

CI runs a few hundred programs per backend from a fixed seed. The long run:

    XTENSOR_FUZZ_PROGRAMS=20000 python -m pytest tests/test_views_fuzz.py -n 3

``XTENSOR_FUZZ_BACKENDS=numpy,jax`` picks backends; ``XTENSOR_FUZZ_SEED=<int>`` draws other programs
than CI's fixed ones.
"""
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, seed, settings

import xtensor
from fuzz_programs import first_difference, program_source, programs, run

torch = pytest.importorskip("torch")

PROGRAMS = int(os.environ.get("XTENSOR_FUZZ_PROGRAMS", "300"))
BACKENDS = os.environ.get("XTENSOR_FUZZ_BACKENDS", "numpy,jax,array_api_strict").split(",")
SEED = os.environ.get("XTENSOR_FUZZ_SEED")


def _fuzz_settings(test):
    test = settings(max_examples=PROGRAMS, deadline=None, database=None, derandomize=SEED is None,
                    suppress_health_check=list(HealthCheck))(test)
    return test if SEED is None else seed(int(SEED))(test)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_program_matches_pytorch(backend_name):
    try:
        xtensor.get_backend(backend_name)
    except (ImportError, ValueError) as e:
        pytest.skip(f"backend {backend_name!r} unavailable: {e}")

    @_fuzz_settings
    @given(programs())
    def check(program):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's deprecation notes (index_put_ on expanded tensors)
            expected = run(torch, program)
        with xtensor.use_backend(backend_name):
            actual = run(xtensor, program)
        difference = first_difference(expected, actual)
        assert difference is None, f"\n{program_source(program)}\n\nfirst difference ({backend_name}): {difference}"

    check()
