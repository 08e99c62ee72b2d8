"""``xtensor.testing.assert_close``: PyTorch's ``torch.testing.assert_close`` -- its default tolerances per dtype,
its checks (shape, dtype, device), its recursion into sequences and mappings, and the gist of its messages."""
import collections.abc
import math

import numpy as np

from . import _dtypes
from ._tensor import Tensor

__all__ = ["assert_close"]

# PyTorch's default (rtol, atol) per dtype name (xtensor's or numpy's dtype); exact (0, 0) for integers and bool
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
               "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise ``AssertionError`` unless ``|actual - expected| <= atol + rtol * |expected|`` elementwise (NaNs equal
    only with ``equal_nan``), after checking shapes, dtypes and devices; tensors, numpy arrays and numbers, and
    sequences and mappings of them."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    _compare(actual, expected, "", dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                                        check_dtype=check_dtype, msg=msg))


def _fail(message, path, msg):
    if msg is not None:
        message = msg(message) if callable(msg) else msg
    elif path:
        message += f"\n\nThe failure occurred for item {path}"
    raise AssertionError(message)


def _compare(actual, expected, path, options):
    tensor_like = (Tensor, np.ndarray)
    if isinstance(actual, tensor_like) and type(actual) is type(expected):
        return _compare_arrays(actual, expected, path, options)
    if _is_number(actual) and _is_number(expected):
        return _compare_numbers(actual, expected, path, options)
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            _fail(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                  f"{sorted(map(repr, set(expected) - set(actual)))}\nExtra keys in the actual mapping: "
                  f"{sorted(map(repr, set(actual) - set(expected)))}", path, None)
        for key in expected:
            _compare(actual[key], expected[key], f"{path}[{key!r}]", options)
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path, None)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{path}[{i}]", options)
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _is_number(value):
    return isinstance(value, (bool, int, float, complex, np.number, np.bool_))


def _is_sequence(value):
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, (str, bytes))


def _compare_arrays(actual, expected, path, options):
    for attribute in ("shape", "dtype") + (("device",) if options["check_device"] else ()):
        if attribute == "dtype" and not options["check_dtype"]:
            continue
        a, e = getattr(actual, attribute), getattr(expected, attribute)
        if a != e:
            _fail(f"The values for attribute '{attribute}' do not match: {a} != {e}.", path, options["msg"])
    dtypes = (actual.dtype, expected.dtype)
    actual, expected = _as_numpy(actual), _as_numpy(expected)
    rtol, atol = _tolerances(options, dtypes, lambda d: _TOLERANCES.get(str(d).rpartition(".")[2], (0.0, 0.0)))
    common = np.result_type(actual, expected)
    actual, expected = actual.astype(common), expected.astype(common)
    close = _close(actual, expected, rtol, atol, options["equal_nan"])
    if close.all():
        return
    if actual.ndim == 0:
        return _fail_scalars(actual.item(), expected.item(), rtol, atol, path, options["msg"])
    abs_diff = np.abs(actual - expected) if common.kind != "b" else (actual != expected).astype(np.int64)
    real = abs_diff.dtype if abs_diff.dtype.kind == "f" else np.float32  # PyTorch divides integers in float32
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_diff = abs_diff.astype(real) / np.abs(expected).astype(real)
    abs_diff, rel_diff = np.where(close, 0, abs_diff), np.where(close, 0, rel_diff)
    mismatched = int((~close).sum())
    lines = [f"Tensor-likes are not {'equal' if rtol == atol == 0 else 'close'}!", "",
             f"Mismatched elements: {mismatched} / {close.size} ({100 * mismatched / close.size:.1f}%)"]
    for name, diff, allowed in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        index = np.unravel_index(np.nanargmax(diff) if not np.isnan(diff).all() else 0, diff.shape)
        bound = "" if rtol == atol == 0 else f" (up to {allowed} allowed)"
        lines.append(f"Greatest {name} difference: {diff[index].item()} at index {tuple(map(int, index))}{bound}")
    _fail("\n".join(lines), path, options["msg"])


def _as_numpy(value):
    if isinstance(value, np.ndarray):
        return value
    value = value.detach()
    return (value.float() if value.dtype is _dtypes.bfloat16 else value).cpu().numpy()


def _tolerances(options, dtypes, default):
    if options["rtol"] is not None:
        return options["rtol"], options["atol"]
    pairs = [default(d) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _close(actual, expected, rtol, atol, equal_nan):
    if actual.dtype.kind in "biu":
        return np.abs(actual.astype(np.float64) - expected) <= atol + rtol * np.abs(expected.astype(np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        close = (actual == expected) | (np.abs(actual - expected) <= atol + rtol * np.abs(expected))
    return close | (np.isnan(actual) & np.isnan(expected)) if equal_nan else close


def _compare_numbers(actual, expected, path, options):
    def default(value):
        return (1e-7, 1e-7) if isinstance(value, (float, complex, np.floating, np.complexfloating)) else (0.0, 0.0)
    rtol, atol = _tolerances(options, (actual, expected), default)
    close = actual == expected or (options["equal_nan"] and _is_nan(actual) and _is_nan(expected)) or \
        abs(actual - expected) <= atol + rtol * abs(expected)
    if not close:
        _fail_scalars(actual, expected, rtol, atol, path, options["msg"])


def _is_nan(value):
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _fail_scalars(actual, expected, rtol, atol, path, msg):
    abs_diff = abs(actual - expected)
    rel_diff = abs_diff / abs(expected) if expected != 0 else math.inf
    same = rtol == atol == 0
    _fail(f"Scalars are not {'equal' if same else 'close'}!\n\nExpected {expected} but got {actual}.\n"
          f"Absolute difference: {abs_diff}{'' if same else f' (up to {atol} allowed)'}\n"
          f"Relative difference: {rel_diff}{'' if same else f' (up to {rtol} allowed)'}", path, msg)
