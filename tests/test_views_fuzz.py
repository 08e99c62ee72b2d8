"""Differential fuzzer: random PyTorch programs, PyTorch as the oracle.

Two families of programs (``tests/fuzz_programs.py``), each run once with ``import torch`` and once with
``import xtensor`` on each backend:

* ``views``: views (some through ``detach()`` or ``.data``), in-place and ``out=`` writes through them,
  ``retain_grad`` and backward or second order -- every read (values, shape, dtype, requires_grad, grad_fn name,
  is_leaf, whether a view, strides and contiguity of views), the statement that raises (and its error type),
  ``w.grad`` and retained gradients must agree;
* ``mixed``: a plain base, several aliases, a write of a value that requires grad through one of them, then
  writes through the base and the other aliases (with and without grad, some under ``no_grad``) -- PyTorch's
  errors for such writes must come at the same statement;
* ``ops``: elementwise unary/binary ops with broadcasting, mixed dtypes (int, bool, float32/64) and Python
  scalars, ``where``, reductions with dim/keepdim, matmul and linalg, advanced indexing, gather/scatter and masked
  ops, cat/stack and views, then ``backward()`` or a second-order pass (``autograd.grad(create_graph=True)`` and a
  backward of the gradient); the same reads, and error types where PyTorch raises (or xtensor does).

A failure prints the program as PyTorch code and the first difference, after hypothesis has shrunk it.
``tests/fuzz_triage.py --family ops`` groups the differences of a long run by kind and shrinks one per kind.

CI runs a few hundred programs per family and backend from a fixed seed. The long run:

    XTENSOR_FUZZ_SEED=1 XTENSOR_FUZZ_PROGRAMS=20000 python -m pytest tests/test_views_fuzz.py -n 3

``XTENSOR_FUZZ_BACKENDS=numpy,jax`` picks backends, ``XTENSOR_FUZZ_FAMILIES=ops`` families;
``XTENSOR_FUZZ_SEED=<int>`` draws other programs than CI's fixed ones.
"""
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, seed, settings

import xtensor
from fuzz_programs import FAMILIES, first_difference, program_source, run

torch = pytest.importorskip("torch")

CI_PROGRAMS = {"views": 300, "mixed": 40, "ops": 100}  # ops and mixed cost ~0.2 s a program on jax (eager XLA)
PROGRAMS = os.environ.get("XTENSOR_FUZZ_PROGRAMS")
BACKENDS = os.environ.get("XTENSOR_FUZZ_BACKENDS", "numpy,jax,array_api_strict").split(",")
SELECTED = os.environ.get("XTENSOR_FUZZ_FAMILIES", ",".join(FAMILIES)).split(",")
SEED = os.environ.get("XTENSOR_FUZZ_SEED")


# the CI run's longest item (views on jax, ~50 s) in parts of their own seeds, so the two workers share it
CI_PARTS = {("views", "jax"): 3}


def _parts(family, backend_name):
    return 1 if PROGRAMS or SEED else CI_PARTS.get((family, backend_name), 1)


def _fuzz_settings(test, family, parts, part):
    test = settings(max_examples=int(PROGRAMS or CI_PROGRAMS[family]) // parts, deadline=None, database=None,
                    derandomize=SEED is None and parts == 1, suppress_health_check=list(HealthCheck))(test)
    if SEED is not None:
        return seed(int(SEED))(test)
    return test if parts == 1 else seed(part)(test)


_CASES = [(family, backend_name, part) for family in SELECTED for backend_name in BACKENDS
          for part in range(_parts(family, backend_name))]


@pytest.mark.parametrize("family, backend_name, part", _CASES,
                         ids=[f"{f}-{b}" + (f"-part{p}" if _parts(f, b) > 1 else "") for f, b, p in _CASES])
def test_program_matches_pytorch(family, backend_name, part):
    try:
        xtensor.get_backend(backend_name)
    except (ImportError, ValueError) as e:
        pytest.skip(f"backend {backend_name!r} unavailable: {e}")
    strategy, loose = FAMILIES[family]

    @given(strategy())
    def check(program):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's deprecation notes; numpy's overflow and NaN warnings
            expected = run(torch, program)
            with xtensor.use_backend(backend_name):
                actual = run(xtensor, program)
        difference = first_difference(expected, actual, loose)
        assert difference is None, f"\n{program_source(program)}\n\nfirst difference ({backend_name}): {difference}"

    _fuzz_settings(check, family, _parts(family, backend_name), part)()
