"""Special functions: the erf and gamma families, Bessel functions, the normal distribution's ndtr/ndtri/log_ndtr,
incomplete gamma, zeta, entr/xlog1py/sinc and the orthogonal polynomials of ``torch.special``.

The standard has no special functions, so the primitives ask the tensor's adapter for a kernel by scipy.special's
name (``backend.special(name, *arrays)``: SciPy on numpy, jax.scipy.special on jax, the host elsewhere). Their VJPs
are PyTorch's derivative formulas, written in xtensor ops (the erf family's against a namespace, ``_ns``: they run on
raw arrays when no graph is built). Where PyTorch defines no derivative neither does
xtensor: the Bessel functions other than i0/i0e/i1/i1e, ``airy_ai``, ``spherical_bessel_j0`` and the polynomials
give results that do not require grad, and the derivatives of ``zeta`` and of ``igamma``/``igammac`` with respect
to their first argument raise PyTorch's NotImplementedError.

The namespaces over these entries are ``xtensor.special`` (PyTorch's names) and ``xtensor.array_api.special``
(SciPy's names and signatures, which SciPy looks up on namespaces it does not know).
"""
import math

from .._dispatch import _unify, apply
from .._table import defop, refusing, to_float
from .._tensor import Tensor

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SQRT_2PI = math.sqrt(2.0 * math.pi)


def _backend_of(*args):
    backend = _unify(args)
    if backend is None:
        raise TypeError(f"expected a Tensor argument, got {', '.join(type(a).__name__ for a in args)}")
    return backend


def kernel(name, kernel_name, vjp, *, torch_level=False, refuses="c", **facts):
    """A unary primitive computed by the adapter's ``kernel_name``. ``torch_level``: PyTorch also has it as
    ``torch.name``, a method and ``name_`` (lgamma, i0...); otherwise it lives in ``xtensor.special`` only.
    ``facts``: the entry's other keywords (see ``defop``)."""
    return defop(name, lambda xp, x, backend: backend.special(kernel_name, x), (vjp,) if vjp else None,
                 kind="custom", inplace=torch_level, out=True, method=torch_level, function=torch_level,
                 cast=to_float, refuses=refuses, sig=lambda input: ((input,), (_backend_of(input),)),
                 differentiable=vjp is not None, **facts)


# ------------------------------------------------------------------ the erf family
kernel("erf", "erf", lambda ns, g, ans, x, backend: g * TWO_OVER_SQRT_PI * ns.exp(-x * x), torch_level=True,
       torch_inplace=True, saves=(0,))
kernel("erfc", "erfc", lambda ns, g, ans, x, backend: -g * TWO_OVER_SQRT_PI * ns.exp(-x * x), torch_level=True,
       torch_inplace=True, saves=(0,))
kernel("erfinv", "erfinv", lambda ns, g, ans, x, backend: g * (0.5 * math.sqrt(math.pi)) * ns.exp(ns.apply("erfinv", (x,), (backend,)) ** 2),
       torch_level=True, saves=(0,))
kernel("special_erfcx", "erfcx", lambda ns, g, ans, x, backend: g * (2 * x * ans - TWO_OVER_SQRT_PI),
       node="SpecialErfcxBackward0", saves=(0, "result"))
kernel("special_ndtri", "ndtri", lambda ns, g, ans, x, backend: g * SQRT_2PI * ns.exp(ans * ans / 2),
       node="SpecialNdtriBackward0", saves=("result",))
kernel("special_log_ndtr", "log_ndtr", lambda ns, g, ans, x, backend: g / SQRT_2PI * ns.exp(-(ans + x * x / 2)),
       node="SpecialLogNdtrBackward0", saves=(0, "result"))


# ------------------------------------------------------------------ the gamma family
kernel("lgamma", "gammaln", lambda ns, g, ans, x, backend: g * ns.apply("digamma", (x,), (backend,)), torch_level=True, saves=(0,))
kernel("digamma", "psi", lambda ns, g, ans, x, backend: g * ns.apply("polygamma", (x,), (1, backend)), torch_level=True, saves=(0,))


def _polygamma_sig(n, input):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return (input,), (n, _backend_of(input))


# PyTorch's method takes n after self and its function before: xtensor.special installs the method and ``_`` form.
_POLYGAMMA = defop("polygamma", lambda xp, x, n, backend: backend.special("polygamma", n, x),
                   (lambda ns, g, ans, x, n, backend: g * ns.apply("polygamma", (x,), (n + 1, backend)),), kind="custom", sig=_polygamma_sig,
                   cast=refusing("polygamma", "c", to_float), method=False, inplace=True, out=True, saves=(0, 1))


def polygamma(n, input):
    return apply(_POLYGAMMA, *_polygamma_sig(n, input))


def _mvlgamma_sig(input, p):
    """As PyTorch 2.13, any x is taken (lgamma of x - j/2 <= 0 is log|gamma|); p below 1 is refused."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return (input,), (int(p), _backend_of(input))


def _mvlgamma(xp, x, p, backend):
    """log of the multivariate gamma function: ``p(p-1)/4 log(pi) + sum_j lgamma(x - j/2)``."""
    total = backend.special("gammaln", x)
    for j in range(1, p):
        total = total + backend.special("gammaln", x - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


defop("mvlgamma", _mvlgamma, (lambda ns, g, ans, x, p, backend: g * sum(ns.apply("digamma", (x - j / 2,), (backend,)) for j in range(p)),),
      kind="custom", sig=_mvlgamma_sig, cast=refusing("mvlgamma", "c", to_float), inplace=True, out=True,
      saves=(0,))  # (x is read inside a generator, which the saved-set inference does not see)


def _igamma_sig(name):
    def sig(input, other):
        for i, (arg, a) in enumerate(((input, "input"), (other, "other"))):
            if not isinstance(arg, Tensor):
                raise TypeError(f"{name}(): argument '{a}' (position {i + 1}) must be Tensor, not {type(arg).__name__}")
        return (input, other), (_backend_of(input, other),)
    return sig


def _no_derivative(what):
    def vjp(ns, g, ans, *args):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return vjp


def _igamma_vjp_other(sign):
    """d/dx of the regularized lower (sign 1) or upper (sign -1) incomplete gamma function P(a, x)."""
    return lambda ns, g, ans, a, x, backend: sign * g * ns.exp((a - 1) * ns.log(x) - x - ns.apply("lgamma", (a,), (backend,)))


defop("igamma", lambda xp, a, x, backend: backend.special("gammainc", a, x),
      (_no_derivative("igamma: input"), _igamma_vjp_other(1)), kind="custom", sig=_igamma_sig("igamma"),
      cast=refusing("igamma", "bc", to_float), inplace=True, out=True, saves=((), (0, 1)))
defop("igammac", lambda xp, a, x, backend: backend.special("gammaincc", a, x),
      (_no_derivative("igammac: input"), _igamma_vjp_other(-1)), kind="custom", sig=_igamma_sig("igammac"),
      cast=refusing("igammac", "bc", to_float), inplace=True, out=True, saves=((), (0, 1)))
defop("special_zeta", lambda xp, x, q, backend: backend.special("zeta", x, q),
      (_no_derivative("zeta"), _no_derivative("zeta")), kind="custom", function=False, method=False, out=True,
      sig=lambda input, other: ((input, other), (_backend_of(input, other),)),
      cast=refusing("zeta", "bc", to_float), node="SpecialZetaBackward0", saves=())


# ------------------------------------------------------------------ Bessel functions
def _i1_vjp(ns, g, ans, x, backend):
    """PyTorch's: ``i0(x) - i1(x) / x``, and its limit 1/2 at 0."""
    nonzero = x != 0
    safe = ns.where(nonzero, x, ns.full_like(x, 1))
    return g * ns.where(nonzero, ns.apply("i0", (safe,), (backend,)) - ans / safe, ns.full_like(x, 0.5))


def _i1e_vjp(ns, g, ans, x, backend):
    nonzero = x != 0
    safe = ns.where(nonzero, x, ns.full_like(x, 1))
    i0e = ns.apply("special_i0e", (safe,), (backend,))
    return g * ns.where(nonzero, i0e - ans * (ns.sign(safe) + 1 / safe), ns.full_like(x, 0.5))


def _unary(op):
    return lambda x: apply(op, (x,), (_backend_of(x),))


kernel("i0", "i0", lambda ns, g, ans, x, backend: g * ns.apply("special_i1", (x,), (backend,)), torch_level=True, torch_inplace=True, saves=(0,))
i0e = _unary(kernel("special_i0e", "i0e", lambda ns, g, ans, x, backend: g * (ns.apply("special_i1e", (x,), (backend,)) - ns.sign(x) * ans),
                    node="SpecialI0EBackward0", saves=(0, "result")))
i1 = _unary(kernel("special_i1", "i1", _i1_vjp, node="SpecialI1Backward0", saves=(0, "result")))
i1e = _unary(kernel("special_i1e", "i1e", _i1e_vjp, node="SpecialI1EBackward0", saves=(0, "result")))


for _name, _kernel in (("bessel_j0", "j0"), ("bessel_j1", "j1"), ("bessel_y0", "y0"), ("bessel_y1", "y1"),
                       ("modified_bessel_i0", "i0"), ("modified_bessel_i1", "i1"), ("modified_bessel_k0", "k0"),
                       ("modified_bessel_k1", "k1"), ("scaled_modified_bessel_k0", "k0e"),
                       ("scaled_modified_bessel_k1", "k1e"), ("airy_ai", "airy_ai")):
    kernel("special_" + _name, _kernel, None, refuses="bc")


def _spherical_j0(xp, x):
    """sin(x) / x, and 1 at 0."""
    safe = xp.where(x == 0, xp.ones_like(x), x)
    return xp.where(x == 0, xp.ones_like(x), xp.sin(safe) / safe)


defop("special_spherical_bessel_j0", _spherical_j0, None, kind="unary", differentiable=False, function=False,
      method=False, out=True, cast=refusing("spherical_bessel_j0", "bc", to_float))


# ------------------------------------------------------------------ entr, xlog1py, sinc
def _entr(xp, x):
    """-x log x for x > 0, 0 at 0, -inf below (NaN stays NaN)."""
    safe = xp.where(x > 0, x, xp.ones_like(x))
    out = xp.where(x > 0, -x * xp.log(safe), xp.where(x == 0, xp.zeros_like(x), xp.full_like(x, -math.inf)))
    return xp.where(xp.isnan(x), x, out)


defop("special_entr", _entr, (lambda ns, g, ans, x: -g * (1 + ns.log(x)),), kind="unary", function=False, method=False,
      out=True, cast=refusing("entr", "c", to_float), saves=(0,))


def _xlog1py(xp, x, y):
    """``x * log1p(y)``, and 0 where ``x`` is 0 unless ``y`` is NaN."""
    if not hasattr(x, "dtype"):
        x = xp.asarray(x, dtype=y.dtype)
    elif not hasattr(y, "dtype"):
        y = xp.asarray(y, dtype=x.dtype)
    return xp.where((x == 0) & ~xp.isnan(y), xp.zeros_like(x * y), x * xp.log1p(y))


_XLOG1PY = defop("special_xlog1py", _xlog1py,
      (lambda ns, g, ans, x, y: g * ns.apply("special_xlog1py", (ns.cast_like(x != 0, g), y)), lambda ns, g, ans, x, y: g * x / (y + 1)),
      kind="binary", function=False, method=False, out=True, cast=refusing("xlog1py", "c", to_float),
      names=lambda x, y: "SpecialXlog1PyBackward0" if isinstance(x, Tensor) and isinstance(y, Tensor) else
      "SpecialXlog1PyBackward2" if isinstance(x, Tensor) else "SpecialXlog1PyBackward1", saves=(0, 1))


def xlog1py(x, y):
    return apply(_XLOG1PY, (x, y))


def _sinc(xp, x):
    """sin(pi x) / (pi x), and 1 at 0."""
    px = math.pi * xp.where(x == 0, xp.ones_like(x), x)
    return xp.where(x == 0, xp.ones_like(x), xp.sin(px) / px)


def _sinc_vjp(ns, g, ans, x):
    """PyTorch's: ``(cos(pi x) - sinc(x)) / x``, 0 at 0 (conjugated for complex x); from ``x`` alone, as PyTorch
    keeps it."""
    nonzero = x != 0
    safe = ns.where(nonzero, x, ns.full_like(x, 1))
    slope = (ns.cos(math.pi * safe) - ns.sinc(safe)) / safe
    return ns.where_zero(nonzero, g * ns.conj(slope))


defop("sinc", _sinc, (_sinc_vjp,), kind="unary", inplace=True, out=True, cast=to_float, torch_inplace=True, saves=(0,))


# ------------------------------------------------------------------ orthogonal polynomials
# P_0 = 1, P_1 = first(x) and P_{k+1} = step(x, k, P_k, P_{k-1}): the three-term recurrence of each family.
_SAME_STEP = lambda x, k, p, q: 2 * x * p - q  # noqa: E731  (Chebyshev T, U, V, W)
POLYNOMIALS = {
    "chebyshev_polynomial_t": (lambda x: x, _SAME_STEP),
    "chebyshev_polynomial_u": (lambda x: 2 * x, _SAME_STEP),
    "chebyshev_polynomial_v": (lambda x: 2 * x - 1, _SAME_STEP),
    "chebyshev_polynomial_w": (lambda x: 2 * x + 1, _SAME_STEP),
    "hermite_polynomial_h": (lambda x: 2 * x, lambda x, k, p, q: 2 * x * p - 2 * k * q),
    "hermite_polynomial_he": (lambda x: x, lambda x, k, p, q: x * p - k * q),
    "laguerre_polynomial_l": (lambda x: 1 - x, lambda x, k, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_polynomial_p": (lambda x: x, lambda x, k, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


def _polynomial(family):
    first, step = POLYNOMIALS[family.replace("shifted_", "")]
    shifted = family.startswith("shifted_")

    def fwd(xp, x, n):
        """P_n(x) for each element (``n`` broadcasts, truncated to an integer; 0 where n < 0), by the recurrence up
        to the largest n (read on the host)."""
        x = x if hasattr(x, "dtype") else xp.asarray(x, dtype=n.dtype)
        n = xp.trunc(n) if hasattr(n, "dtype") else xp.asarray(int(n), dtype=x.dtype)  # PyTorch: n as int64
        x = 2 * x - 1 if shifted else x
        out = xp.zeros(xp.broadcast_shapes(x.shape, n.shape), dtype=x.dtype)
        prev, cur = xp.ones_like(x), first(x)
        for k in range(int(xp.max(n)) + 1 if n.size else 0):
            out = xp.where(n == k, prev, out)
            prev, cur = cur, step(x, k + 1, cur, prev)
        return out
    return fwd


def _polynomial_sig(name):
    def sig(input, n):
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"{name}(): expected a Tensor argument")
        return (input, n), ()
    return sig


for _family in list(POLYNOMIALS) + [f"shifted_{f}" for f in POLYNOMIALS if f.startswith("chebyshev")]:
    defop("special_" + _family, _polynomial(_family), None, kind="custom", differentiable=False, function=False,
          method=False, out=True, sig=_polynomial_sig(_family), cast=refusing(_family, "bc", to_float))
