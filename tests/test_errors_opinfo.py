"""Error inputs of the op table (``tests/opinfo_errors.py``): every backend raises PyTorch's error type with
PyTorch's message, and real PyTorch (when installed) raises the declared error -- so a declaration is never an
expected value copied from xtensor. No backend's own exception (numpy's ``AxisError``, jax's tracer
``TypeError``, an array_api_strict message) reaches the user."""
import functools
import re

import numpy as np
import pytest

import xtensor as xt

from opinfo import OPS, array_leaves
from test_ops import _torch_args, build

BACKENDS = ["numpy", "jax", "array_api_strict"]
ERROR_CASES = [pytest.param((info, i), id=f"{info.name}-{i}-{e.sample.desc}")
               for info in OPS for i, e in enumerate(info.errors())]
# What xtensor's error may be: PyTorch's types (``BroadcastError`` is a RuntimeError and a ValueError for array-API
# users); never a backend's own class, even one that subclasses these.
_OURS = {RuntimeError, TypeError, ValueError, IndexError, NotImplementedError}
# Marks of a backend message passed through (``_dispatch._backend_error``'s wrapper, backends' own words).
_LEAKS = re.compile(r"failed for Tensor\(|array_api_strict|jax|Tracer|numpy|ufunc|AxisError|lax\.")


def _allowed_type(e):
    """One of PyTorch's types, or xtensor's own subclass of one (``BroadcastError``, ``linalg.LinAlgError``)."""
    return type(e) in _OURS or type(e).__module__.startswith("xtensor")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", ERROR_CASES)
def test_error_input_raises_pytorchs_error(case, backend):
    info, i = case
    err = info.errors()[i]
    args, kwargs, _ = build(err.sample, backend)
    with pytest.raises(err.error_type, match=err.match) as e:
        info.op(*args, **kwargs)
    assert _allowed_type(e.value), f"{type(e.value).__module__}.{type(e.value).__name__}: {e.value}"
    assert not _LEAKS.search(str(e.value)), f"backend message leaked: {e.value}"


@pytest.mark.parametrize("case", ERROR_CASES)
def test_error_input_is_pytorchs(case):
    """The declaration holds for real PyTorch: same type, a message matching the same regex."""
    torch = pytest.importorskip("torch")
    info, i = case
    err = info.errors()[i]
    args, kwargs = _torch_args(torch, err.sample)
    with pytest.raises(err.error_type, match=err.match):
        info.torch_op(torch)(*args, **kwargs)


def _two_tensor_sample(info):
    dtype = "float64" if "float64" in info.dtypes else info.dtypes[0]
    return next((s for s in info.samples(dtype) if len(array_leaves(s.args)) >= 2 and not s.noncontig), None)


# Index tensors whose values are read on the host to shape the result may come from any backend, as PyTorch takes
# CPU indices for CUDA tensors in indexing.
_HOST_READ_INDICES = ("getitem_advanced", "index_put", "masked_select", "repeat_interleave")
_MULTI = [info for info in OPS if _two_tensor_sample(info) is not None and info.name not in _HOST_READ_INDICES]


@pytest.mark.parametrize("info", _MULTI, ids=str)
def test_two_backends_in_one_op_name_both(info):
    """Tensors of two non-host backends in one op: PyTorch's device-mismatch error, naming both backends
    (numpy-backed tensors may join either, as numpy arrays join jax arrays)."""
    s = _two_tensor_sample(info)
    args, kwargs, _ = build(s, "jax")
    other = iter([xt.tensor(a, backend="array_api_strict") if i == 1 else None
                  for i, a in enumerate(array_leaves(s.args))])

    def swap(obj):  # the second tensor argument moves to array_api_strict
        if isinstance(obj, xt.Tensor):
            replacement = next(other)
            return obj if replacement is None else replacement
        if isinstance(obj, (list, tuple)):
            return type(obj)(swap(o) for o in obj)
        return obj
    args = swap(args)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same backend, but found at least two "
                                           "backends, (jax and array_api_strict|array_api_strict and jax)!"):
        info.op(*args, **kwargs)


@functools.lru_cache(maxsize=None)
def _integer_result(info):
    s = info.samples("int64")[0] if "int64" in info.dtypes else None
    if s is None:
        return None
    args, kwargs, _ = build(s, "numpy")
    out = info.op(*args, **kwargs)
    return out if isinstance(out, xt.Tensor) and out.dtype.kind in "biu" else None


@pytest.mark.parametrize("info", [i for i in OPS if "int64" in i.dtypes], ids=str)
def test_integer_results_refuse_gradients(info):
    out = _integer_result(info)
    if out is None:
        pytest.skip("the op's integer sample gives a float result")
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        out.requires_grad_()


def test_error_input_coverage():
    """At least this share of the table declares error inputs (the README's reliability section reports it)."""
    covered = sum(1 for info in OPS if info.errors())
    print(f"error-input coverage: {covered}/{len(OPS)} OpInfo records")
    assert covered / len(OPS) >= 0.5
