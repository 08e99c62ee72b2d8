"""What every linear-algebra module shares: the error, the named results, the argument checks, constants in a
tensor's backend, and the complex parts (also the fft VJPs')."""
import collections

from ... import _dtypes
from ..._dispatch import apply, wrap
from ..._table import TABLE, defop


class LinAlgError(RuntimeError, ValueError):
    """A matrix the algorithm cannot handle (singular, not positive-definite): PyTorch's
    ``torch.linalg.LinAlgError`` (a RuntimeError), and a ValueError as numpy's is."""


# named results, shared by ``xtensor.linalg`` and ``xtensor.array_api.linalg`` (the same fields in both)
def _result(name, fields):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "xtensor.return_types"
    return cls


SlogdetResult = _result("linalg_slogdet", ["sign", "logabsdet"])
SVDResult = _result("linalg_svd", ["U", "S", "Vh"])
EighResult = _result("linalg_eigh", ["eigenvalues", "eigenvectors"])
EigResult = _result("linalg_eig", ["eigenvalues", "eigenvectors"])
QRResult = _result("linalg_qr", ["Q", "R"])
LstsqResult = _result("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
TorchSVDResult = _result("svd", ["U", "S", "V"])
TorchQRResult = _result("qr", ["Q", "R"])
TorchSlogdetResult = _result("slogdet", ["sign", "logabsdet"])


# ------------------------------------------------------------------ argument checks
def _shape_str(t):
    return "x".join(str(n) for n in (t.shape if t.ndim > 1 else (1, *t.shape)))


def _require_tensor(name, arg, t):
    if not hasattr(t, "_dtype"):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(t).__name__}")


def _same_dtype(name, *ts):
    d = ts[0].dtype
    for t in ts[1:]:
        if t.dtype is not d:
            raise RuntimeError(f"{name}: expected all arguments to have the same dtype, but got "
                               f"{d.name} and {t.dtype.name}")


def check_float(name, x):
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {x.dtype.scalar_name}")


def check_matrix(name, x, square=False, arg="A", floats=True):
    """``x`` is a (float, if ``floats``) batch of matrices, square if asked: PyTorch's messages otherwise."""
    _require_tensor(name, arg, x)
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if floats:
        check_float(name, x)
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{x.shape[-2]} by {x.shape[-1]} matrices")


def _checked(name, op, x, params=(), problem="singular"):
    """``op`` on ``x``, with PyTorch's LinAlgError where the backend failed (an exception or non-finite output)."""
    try:
        out = apply(op, (x,), params)
    except (ValueError, RuntimeError):  # numpy's LinAlgError, rewrapped by the dispatcher (arguments were checked)
        raise LinAlgError(_failure(name, problem)) from None
    first = out[0] if isinstance(out, tuple) else out
    if not _all_finite(first) and _all_finite(x):
        raise LinAlgError(_failure(name, problem))
    return out


def _failure(name, problem):
    if problem == "singular":
        return f"{name}: The diagonal element 1 is zero, the inversion could not be completed because the " \
               "input matrix is singular."
    return f"{name}: The factorization could not be completed because the input is not positive-definite."


def _all_finite(t):
    xp = t._backend.xp
    try:
        return bool(xp.all(xp.isfinite(t._value)))
    except Exception:  # a jax tracer under jit: the value is not known, nothing to check
        return True


# ------------------------------------------------------------------ constants in a tensor's backend
def _constant(like, make, dtype=_dtypes.bool):
    """A tensor (no history) built by ``make(xp, native dtype)`` in ``like``'s backend."""
    backend = like._backend
    return wrap(make(backend.xp, backend.native_dtype(dtype)), backend, dtype)


def _eye_like(x):
    n = x.shape[-1]
    return _constant(x, lambda xp, dt: xp.eye(n, dtype=dt), x.dtype)


# ------------------------------------------------------------------ complex parts (for complex linalg and the fft VJPs)
def _real_fwd(xp, x):
    return xp.real(x) if x.dtype in (xp.complex64, xp.complex128) else x


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _complex_dtype(xp, x):
    return xp.complex64 if x.dtype == xp.float32 else xp.complex128


# Each takes one kind (real or complex) to the other (or either: a real tensor's real part), so a raw VJP's input dtype
# differs from the result's (``raw_any_dtype``)
defop("_complex_real", _real_fwd,
      (lambda ns, g, ans, x: ns.apply("_as_complex", (g,)) if ns.is_complex(x) else g,), saves=("meta0",),
      node="RealBackward0", function=False, method=False, raw_any_dtype=(0,))
defop("_complex_imag", lambda xp, x: xp.imag(x), (lambda ns, g, ans, x: ns.apply("_times_i", (g,)),), saves=(),
      node="ImagBackward0", function=False, method=False, raw_any_dtype=(0,))
# i * x for real x: the imag VJP as an op of its own, whose VJP (Im g) needs no complex multiplication
defop("_times_i", lambda xp, x: xp.astype(x, _complex_dtype(xp, x)) * 1j,
      (lambda ns, g, ans, x: ns.apply("_complex_imag", (g,)),), saves=(),
      node="MulBackward0", function=False, method=False, raw_any_dtype=(0,))
defop("_complex_conj", lambda xp, x: xp.conj(x), (lambda ns, g, ans, x: ns.conj(g),), saves=(),
      node="ConjBackward0", function=False, method=False)
defop("_as_complex", lambda xp, x: xp.astype(x, _complex_dtype(xp, x)),
      (lambda ns, g, ans, x: ns.apply("_complex_real", (g,)),), saves=(),
      node="ToCopyBackward0", function=False, method=False, raw_any_dtype=(0,))


def real(x):
    """The real part (a real tensor's own values)."""
    return apply(TABLE["_complex_real"].op, (x,))


def imag(x):
    return apply(TABLE["_complex_imag"].op, (x,))


def _times_i(x):
    return apply(TABLE["_times_i"].op, (x,))


def conj(x):
    return apply(TABLE["_complex_conj"].op, (x,)) if x.dtype.kind == "c" else x


def as_complex(x):
    """A real float tensor as complex (float32 -> complex64, float64 -> complex128)."""
    return x if x.dtype.kind == "c" else apply(TABLE["_as_complex"].op, (x if x.dtype.kind == "f" else x.float(),))
