"""OpInfo records for the special functions PyTorch also has at the top level (``xtensor/ops/special.py``):
lgamma, digamma, polygamma, mvlgamma, i0, sinc, igamma, igammac. References are scipy.special /
jax.scipy.special (and numpy's sinc), never xtensor. The functions only ``torch.special`` has are checked in
tests/test_special.py.
"""
import numpy as np

from opinfo import BINARY_SHAPES, FLOATS, SampleInput, _rng, add, make, rule_float, unary


def _special(m):
    """scipy.special for numpy, jax.scipy.special for jax.numpy."""
    if m is np:
        import scipy.special
        return scipy.special
    import jax.scipy.special
    return jax.scipy.special


unary("lgamma", lambda m, x: _special(m).gammaln(x), low=0.2, high=4.0, float_out=True, api=None)
unary("digamma", lambda m, x: _special(m).digamma(x), low=0.2, high=4.0, float_out=True, api=None)
unary("i0", lambda m, x: _special(m).i0(x), float_out=True, api=None)
unary("sinc", lambda m, x: m.sinc(x), float_out=True, api=None, kinks=[0.0, 1.0, -2.0])


def _polygamma_samples(info, dtype):
    """n = 1 from x = 10 on: below, PyTorch's trigamma is accurate to 5e-10 only (SciPy's and jax's to 1e-15)."""
    rng = _rng(info.name, dtype)
    return [SampleInput((n, make(rng, (3, 4), dtype, 0.3, 3.0)), desc=f"n{n}") for n in (0, 3)] + \
        [SampleInput((1, make(rng, (3, 4), dtype, 10.0, 30.0)), desc="n1"),
         SampleInput((2, make(rng, (), dtype, 0.3, 3.0)), desc="0d")]


add(name="polygamma", ref=lambda m, n, x: _special(m).polygamma(n, x), sample_inputs=_polygamma_samples,
    out_dtype=lambda args, kwargs: rule_float(args[1:], kwargs), supports_out=True,
    supports_inplace=True, method=lambda n, x, **kw: x.polygamma(n, **kw), table_name="polygamma")


def _mvlgamma_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (3, 4), dtype, 1.6, 4.0), p), desc=f"p{p}") for p in (1, 2, 4)]


add(name="mvlgamma", ref=lambda m, x, p: _special(m).multigammaln(x, p) if m is np else
    sum(_special(m).gammaln(x - j / 2) for j in range(p)) + p * (p - 1) / 4 * np.log(np.pi),
    sample_inputs=_mvlgamma_samples, dtypes=FLOATS, out_dtype=rule_float, supports_out=True, supports_inplace=True,
    method="mvlgamma", table_name="mvlgamma")


def _igamma_samples(info, dtype):
    """Forward only: the gradient with respect to the first argument is not implemented, as PyTorch's (the other
    one is checked against jax in tests/test_special.py). x < a: where jax's series branch agrees with SciPy to a few
    ulps (its continued fraction, for larger x, to about 50)."""
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, s1, dtype, 1.5, 3.0), make(rng, s2, dtype, 0.2, 1.2)), desc=f"b{i}", grad=False)
            for i, (s1, s2) in enumerate(BINARY_SHAPES)]


for _name, _ref in (("igamma", "gammainc"), ("igammac", "gammaincc")):
    add(name=_name, ref=(lambda f: lambda m, a, x: getattr(_special(m), f)(a, x))(_ref), sample_inputs=_igamma_samples,
        dtypes=FLOATS, out_dtype=rule_float, supports_out=True, supports_inplace=True, method=_name, table_name=_name)
