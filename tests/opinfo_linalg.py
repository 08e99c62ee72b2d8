"""OpInfo records for ``xtensor/ops/linalg.py`` and ``xtensor/fft.py`` (see ``opinfo.py``).

Decompositions are defined up to signs (singular and eigen vectors, QR factors): their records
check the squared entries, which every backend and jax agree on, and which still carry the VJP of
the factor. Complex results (the FFTs) are checked as their (real, imag) parts stacked on a last
axis (``torch.view_as_real``), so the jax cross-check sees real inputs and outputs. Matrices that
must be invertible are random plus ``n * I``; symmetric positive-definite ones are ``B B^T + n I``.
"""
import numpy as np

import xtensor as xt
from xtensor.ops.linalg import imag as _xt_imag, real as _xt_real

from opinfo import FLOATS, SampleInput, _rng, add, make, rule_first, rule_int64, rule_promote

# factorizations and the products of their factors (pinv's gradient: a dozen matmuls) round further apart
LINALG_TOL = dict(rtol32=2e-4, atol32=2e-4, agree_ulps=64)


# ------------------------------------------------------------------ samples
class M:
    """A matrix argument: ``kind`` 'any' (uniform), 'inv' (well conditioned), 'spd' (symmetric positive-definite)."""

    def __init__(self, *shape, kind="any"):
        self.shape, self.kind = shape, kind

    def realize(self, rng, dtype):
        a = make(rng, self.shape, dtype, -1.0, 1.0)
        if self.kind == "any" or not self.shape:
            return a
        n = self.shape[-1]
        if self.kind == "inv":
            return (a + n * np.eye(n)).astype(dtype)
        return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def cases(*specs):
    """Samples from ``(desc, args, kwargs[, noncontig])`` specs whose ``M`` placeholders become arrays."""
    def gen(info, dtype):
        rng = _rng(info.name, dtype)
        out = []
        for desc, args, kwargs, *noncontig in specs:
            values = tuple(a.realize(rng, dtype) if isinstance(a, M) else a for a in args)
            out.append(SampleInput(values, dict(kwargs), desc=desc, noncontig=tuple(noncontig[0]) if noncontig else ()))
        return out
    return gen


def _square(kind="any"):
    return cases(("sq", (M(3, 3, kind=kind),), {}), ("batch", (M(2, 3, 3, kind=kind),), {}),
                 ("T", (M(3, 3, kind=kind),), {}, (0,)))


def _rect():
    return cases(("tall", (M(4, 3),), {}), ("wide", (M(2, 4),), {}), ("batch", (M(2, 3, 2),), {}),
                 ("T", (M(3, 4),), {}, (0,)))


def record(name, ref, samples, *, dtypes=FLOATS, table=True, method=None, **kw):
    """A record for ``xtensor.<name>`` (``table``: the op-table entry it covers has the same name)."""
    add(name=name, ref=ref, sample_inputs=samples, dtypes=dtypes, out_dtype=kw.pop("out_dtype", rule_first),
        method=method, table_name=name if table is True else table, **{**LINALG_TOL, **kw})


# ------------------------------------------------------------------ products
_ADD_PRODUCT = {  # name: (input, mat1, mat2 shapes), reference of the product
    "addmm": (((3, 2), (3, 4), (4, 2)), lambda m, a, b: a @ b),
    "addmv": (((3,), (3, 4), (4,)), lambda m, a, b: a @ b),
    "baddbmm": (((2, 3, 2), (2, 3, 4), (2, 4, 2)), lambda m, a, b: a @ b),
    "addbmm": (((3, 2), (2, 3, 4), (2, 4, 2)), lambda m, a, b: m.sum(a @ b, axis=0)),
    "addr": (((3, 4), (3,), (4,)), lambda m, a, b: a[:, None] * b[None, :]),
}
for _name, ((_c, _a, _b), _product) in _ADD_PRODUCT.items():
    record(_name, (lambda p: lambda m, c, a, b, beta=1, alpha=1: beta * c + alpha * p(m, a, b))(_product),
           cases(("plain", (M(*_c), M(*_a), M(*_b)), {}), ("scaled", (M(*_c), M(*_a), M(*_b)), {"beta": 2, "alpha": 3}),
                 ("bcast", (M(*_c[-1:]), M(*_a), M(*_b)), {})),
           dtypes=FLOATS + ("int64",), method=_name, supports_out=True, supports_inplace=True)

record("bmm", lambda m, x, y: x @ y, cases(("b", (M(2, 3, 4), M(2, 4, 2)), {}), ("T", (M(2, 3, 4), M(2, 4, 2)), {}, (0,))),
       dtypes=FLOATS + ("int64",), method="bmm", supports_out=True)
record("mv", lambda m, x, y: x @ y, cases(("mv", (M(3, 4), M(4)), {}), ("T", (M(3, 4), M(4)), {}, (0,))),
       dtypes=FLOATS + ("int64",), method="mv", supports_out=True)
for _name in ("dot", "vdot"):
    record(_name, lambda m, x, y: m.sum(x * y), cases(("v", (M(4), M(4)), {}), ("empty", (M(0), M(0)), {})),
           dtypes=FLOATS + ("int64",), method=_name, supports_out=True)
record("outer", lambda m, x, y: x[:, None] * y[None, :], cases(("v", (M(3), M(4)), {}), ("empty", (M(0), M(2)), {})),
       dtypes=FLOATS + ("int64",), method="outer", out_dtype=rule_promote)
record("cross", lambda m, x, y, dim=None: m.cross(x, y, axis=0 if dim is None else dim),
       cases(("dim", (M(4, 3), M(4, 3)), {"dim": 1}), ("default", (M(3, 2), M(3, 2)), {}),
             ("bcast", (M(1, 3), M(4, 3)), {"dim": -1})),
       jax_ref=lambda m, x, y, dim=None: m.cross(x, y, axis=0 if dim is None else dim),
       dtypes=FLOATS + ("int64",), method="cross")
record("tensordot", lambda m, a, b, dims=2: m.tensordot(a, b, axes=dims),
       cases(("int", (M(2, 3, 4), M(3, 4, 2)), {"dims": 2}), ("one", (M(2, 3), M(3, 4)), {"dims": 1}),
             ("lists", (M(2, 3, 4), M(4, 2, 3)), {"dims": ([1, 2], [2, 0])}), ("outer", (M(2), M(3)), {"dims": 0})),
       dtypes=FLOATS + ("int64",), api=lambda xa, a, b, dims=2: xa.tensordot(a, b, axes=dims))
record("einsum", lambda m, eq, *ops: m.einsum(eq, *ops),
       cases(("mm", ("ij,jk->ik", M(3, 4), M(4, 2)), {}), ("batch", ("bij,bjk->bik", M(2, 3, 4), M(2, 4, 2)), {}),
             ("diag", ("ii->i", M(3, 3)), {}), ("trace", ("ii", M(3, 3)), {}),
             ("ellipsis", ("...ij,...j->...i", M(2, 3, 4), M(4)), {}), ("implicit", ("ij,jk", M(3, 4), M(4, 2)), {}),
             ("three", ("ij,jk,k->i", M(3, 4), M(4, 2), M(2)), {}), ("outer", ("i,j->ij", M(3), M(2)), {}),
             ("sum", ("ijk->j", M(2, 3, 4)), {})),
       dtypes=FLOATS + ("int64",))
record("kron", lambda m, a, b: m.kron(a, b), cases(("2d", (M(2, 3), M(3, 2)), {}), ("1d-2d", (M(2), M(2, 2)), {})),
       dtypes=FLOATS + ("int64",), supports_out=True, method="kron")
record("chain_matmul", lambda m, *ms: m.linalg.multi_dot(ms), cases(("three", (M(2, 3), M(3, 4), M(4, 2)), {})))


# ------------------------------------------------------------------ diagonals and triangles
record("trace", lambda m, x: m.trace(x), cases(("sq", (M(3, 3),), {}), ("rect", (M(3, 4),), {}),
                                                ("T", (M(4, 3),), {}, (0,))),
       dtypes=FLOATS + ("int64", "int32"), method="trace",
       out_dtype=lambda args, kw: np.dtype("int64") if args[0].dtype.kind in "iu" else args[0].dtype)
record("diag", lambda m, x, diagonal=0: m.diag(x, diagonal),
       cases(("vec", (M(3),), {}), ("vec+1", (M(3), 1), {}), ("vec-2", (M(2), -2), {}), ("mat", (M(3, 4),), {}),
             ("mat+1", (M(3, 4), 1), {}), ("mat-1", (M(4, 3),), {"diagonal": -1}), ("T", (M(4, 3),), {}, (0,))),
       dtypes=FLOATS + ("int64",), method="diag", supports_out=True)
record("diag_embed", lambda m, x, offset=0: _embed_ref(m, x, offset),
       cases(("vec", (M(3),), {}), ("batch", (M(2, 3),), {}), ("offset", (M(2, 3), 1), {}), ("neg", (M(3), -2), {})),
       dtypes=FLOATS + ("int64",), method="diag_embed")


def _embed_ref(m, x, offset):
    diagonal = x[..., :, None] * m.eye(x.shape[-1], dtype=x.dtype)
    k = abs(offset)
    corner = [(0, k), (k, 0)] if offset >= 0 else [(k, 0), (0, k)]
    return m.pad(diagonal, [(0, 0)] * (x.ndim - 1) + corner)


for _name, _f in (("triu", "triu"), ("tril", "tril")):
    record(_name, (lambda f: lambda m, x, diagonal=0: getattr(m, f)(x, diagonal))(_f),
           cases(("sq", (M(3, 3),), {}), ("k1", (M(3, 4), 1), {}), ("k-1", (M(2, 3, 4),), {"diagonal": -1}),
                 ("T", (M(4, 3),), {}, (0,))),
           dtypes=FLOATS + ("int64", "bool"), method=_name, supports_out=True, supports_inplace=True,
           api=(lambda f: lambda xa, x, diagonal=0: getattr(xa, f)(x, k=diagonal))(_f))


# ------------------------------------------------------------------ decompositions
def _svd_parts(m, x, full):
    return m.linalg.svd(x, full_matrices=full)


record("inverse", lambda m, x: m.linalg.inv(x), _square("inv"), method="inverse", supports_out=True)
record("det", lambda m, x: m.linalg.det(x), _square("inv"), method="det")
record("logdet", lambda m, x: m.log(m.linalg.det(x)), _square("spd"), method="logdet")
record("slogdet", lambda m, x: m.linalg.slogdet(x)[1], _square("inv"), method=lambda x: x.slogdet()[1],
       fn=lambda ns: lambda x: ns.slogdet(x)[1])
record("svd", lambda m, x: m.linalg.svd(x, full_matrices=False)[1], _rect(), method=lambda x: x.svd()[1],
       fn=lambda ns: lambda x: ns.svd(x)[1])
record("svd_V", lambda m, x: m.swapaxes(m.linalg.svd(x, full_matrices=False)[2], -1, -2) ** 2, _rect(), table=False,
       fn=lambda ns: lambda x: ns.svd(x)[2] ** 2)
record("qr", lambda m, x: m.linalg.qr(x)[0] ** 2, _rect(), method=lambda x: x.qr()[0] ** 2,
       fn=lambda ns: lambda x: ns.qr(x)[0] ** 2)
record("cholesky", lambda m, x: m.linalg.cholesky(x), _square("spd"), method="cholesky", supports_out=True)
record("pinverse", lambda m, x: m.linalg.pinv(x), _rect(), method="pinverse")
record("matrix_power", lambda m, x, n: m.linalg.matrix_power(x, n),
       cases(("3", (M(3, 3), 3), {}), ("1", (M(2, 3, 3), 1), {}), ("-2", (M(3, 3, kind="inv"), -2), {}),
             ("T", (M(3, 3), 2), {}, (0,))), method="matrix_power")
record("norm", lambda m, x, p="fro", dim=None, keepdim=False: _torch_norm_ref(m, x, p, dim, keepdim),
       cases(("fro", (M(3, 4),), {}), ("p1", (M(3, 4), 1), {"dim": 1}), ("p3", (M(2, 3, 4), 3), {"dim": (0, 2)}),
             ("keep", (M(3, 4),), {"dim": 0, "keepdim": True}), ("nuc", (M(3, 4), "nuc"), {})),
       method="norm")


def _torch_norm_ref(m, x, p, dim, keepdim):
    if p == "nuc":
        return m.sum(m.linalg.svd(x, compute_uv=False), axis=-1)
    p = 2 if p == "fro" else p
    dim = tuple(range(x.ndim)) if dim is None else (dim,) if isinstance(dim, int) else dim
    return m.sum(m.abs(x) ** p, axis=dim, keepdims=keepdim) ** (1 / p)


# ------------------------------------------------------------------ xtensor.linalg (entries without a torch function)
def linalg(name, ref, samples, fn, **kw):
    record(f"linalg_{name}", ref, samples, table=False, fn=fn, **kw)


linalg("inv", lambda m, x: m.linalg.inv(x), _square("inv"), lambda ns: ns.linalg.inv)
linalg("svdvals", lambda m, x: m.linalg.svd(x, compute_uv=False), _rect(), lambda ns: ns.linalg.svdvals)
linalg("svd_U", lambda m, x: m.linalg.svd(x, full_matrices=False)[0] ** 2, _rect(),
       lambda ns: lambda x: ns.linalg.svd(x, full_matrices=False)[0] ** 2)
linalg("svd_Vh", lambda m, x: m.linalg.svd(x, full_matrices=False)[2] ** 2, _rect(),
       lambda ns: lambda x: ns.linalg.svd(x, full_matrices=False)[2] ** 2)
linalg("eigh_values", lambda m, x: m.linalg.eigh(x)[0], _square("spd"), lambda ns: lambda x: ns.linalg.eigh(x)[0])
linalg("eigh_vectors", lambda m, x: m.linalg.eigh(x)[1] ** 2, _square("spd"),
       lambda ns: lambda x: ns.linalg.eigh(x)[1] ** 2)
linalg("eigvalsh", lambda m, x: m.linalg.eigh(x)[0], _square("spd"), lambda ns: ns.linalg.eigvalsh)
linalg("qr_R", lambda m, x: m.linalg.qr(x)[1] ** 2, _rect(), lambda ns: lambda x: ns.linalg.qr(x)[1] ** 2)
linalg("cholesky_upper", lambda m, x: m.swapaxes(m.linalg.cholesky(x), -1, -2), _square("spd"),
       lambda ns: lambda x: ns.linalg.cholesky(x, upper=True))
linalg("slogdet", lambda m, x: m.linalg.slogdet(x)[1], _square("inv"), lambda ns: lambda x: ns.linalg.slogdet(x)[1])
linalg("solve", lambda m, a, b: _solve_ref(m, a, b),
       cases(("matrix", (M(3, 3, kind="inv"), M(3, 2)), {}), ("vector", (M(3, 3, kind="inv"), M(3)), {}),
             ("batch-vec", (M(2, 3, 3, kind="inv"), M(2, 3)), {}), ("bcast", (M(2, 3, 3, kind="inv"), M(3, 2)), {}),
             ("T", (M(3, 3, kind="inv"), M(3, 2)), {}, (0,))),
       lambda ns: ns.linalg.solve)


def _solve_ref(m, a, b):
    if b.ndim == 1 or b.shape == a.shape[:-1]:
        return m.linalg.solve(a, b[..., None])[..., 0]
    return m.linalg.solve(a, b)


linalg("pinv", lambda m, x: m.linalg.pinv(x), _rect(), lambda ns: ns.linalg.pinv)
linalg("lstsq", lambda m, a, b: m.linalg.pinv(a) @ b,
       cases(("tall", (M(5, 3), M(5, 2)), {}), ("square", (M(3, 3, kind="inv"), M(3, 1)), {})),
       lambda ns: lambda a, b: ns.linalg.lstsq(a, b).solution)
linalg("vector_norm", lambda m, x, ord=2, dim=None, keepdim=False: _vector_norm_ref(m, x, ord, dim, keepdim),
       cases(("2", (M(3, 4),), {}), ("1", (M(3, 4), 1), {"dim": 1}), ("inf", (M(3, 4), float("inf")), {"dim": 0}),
             ("-inf", (M(3, 4), -float("inf")), {}), ("3", (M(2, 3, 4), 3), {"dim": (0, 2), "keepdim": True}),
             ("0.5", (M(3, 4), 0.5), {}), ("0", (M(3, 4), 0), {"dim": 1})),
       lambda ns: ns.linalg.vector_norm)


def _vector_norm_ref(m, x, ord, dim, keepdim):
    dim = tuple(range(x.ndim)) if dim is None else (dim,) if isinstance(dim, int) else dim
    a = m.abs(x)
    if ord == float("inf"):
        return m.max(a, axis=dim, keepdims=keepdim)
    if ord == -float("inf"):
        return m.min(a, axis=dim, keepdims=keepdim)
    if ord == 0:
        return m.sum((x != 0).astype(x.dtype), axis=dim, keepdims=keepdim)
    return m.sum(a ** ord, axis=dim, keepdims=keepdim) ** (1 / ord)


linalg("matrix_norm", lambda m, x, ord="fro", keepdim=False: _matrix_norm_ref(m, x, ord, keepdim),
       cases(("fro", (M(3, 4),), {}), ("nuc", (M(2, 3, 4), "nuc"), {}), ("2", (M(3, 4), 2), {}),
             ("-2", (M(3, 3), -2), {}), ("1", (M(3, 4), 1), {"keepdim": True}), ("inf", (M(2, 3, 4), float("inf")), {}),
             ("-1", (M(3, 4), -1), {})),
       lambda ns: ns.linalg.matrix_norm)


def _matrix_norm_ref(m, x, ord, keepdim):
    if ord in ("nuc", 2, -2):
        s = m.linalg.svd(x, compute_uv=False)
        r = m.sum(s, axis=-1) if ord == "nuc" else m.max(s, axis=-1) if ord == 2 else m.min(s, axis=-1)
    elif ord == "fro":
        r = m.sqrt(m.sum(x * x, axis=(-2, -1)))
    else:
        sums = m.sum(m.abs(x), axis=-2 if ord in (1, -1) else -1)
        r = m.max(sums, axis=-1) if ord > 0 else m.min(sums, axis=-1)
    return r[..., None, None] if keepdim else r


linalg("vecdot", lambda m, x, y, dim=-1: m.sum(x * y, axis=dim),
       cases(("v", (M(3, 4), M(3, 4)), {}), ("bcast", (M(4,), M(3, 4)), {}), ("dim", (M(3, 4), M(3, 4)), {"dim": 0})),
       lambda ns: ns.linalg.vecdot)
linalg("multi_dot", lambda m, *ms: _multi_dot_ref(m, ms),
       cases(("mats", (M(2, 3), M(3, 4), M(4, 2)), {}), ("vec-ends", (M(3), M(3, 4), M(4, 2), M(2)), {})),
       lambda ns: lambda *ms: ns.linalg.multi_dot(list(ms)))


def _multi_dot_ref(m, ms):
    out = ms[0]
    for t in ms[1:]:
        out = out @ t
    return out


linalg("matrix_rank", lambda m, x: m.sum(m.linalg.svd(x, compute_uv=False) > 1e-6, axis=-1),
       cases(("full", (M(3, 4),), {}), ("batch", (M(2, 3, 3),), {})),
       lambda ns: ns.linalg.matrix_rank, differentiable=False, out_dtype=lambda args, kw: np.dtype("int64"))


# ------------------------------------------------------------------ fft (complex results as stacked parts)
def _parts(ns, z):
    if ns is xt:
        return xt.stack([_xt_real(z), _xt_imag(z)], -1)
    return ns.view_as_real(z.resolve_conj())


def _np_parts(m, z):
    return m.stack([m.real(z), m.imag(z)], axis=-1)


def _fft_norm(norm):
    return "backward" if norm is None else norm


def fft_record(name, ref, samples, complex_out=True, via_rfft=False):
    """``xtensor.fft.<name>`` on real input; complex input made by an rfft first (``via_rfft``)."""
    def fn(ns):
        transform = getattr(ns.fft, name)

        def call(x, *args, **kw):
            y = transform(ns.fft.rfft(x) if via_rfft else x, *args, **kw)
            return _parts(ns, y) if complex_out else y
        return call

    def full_ref(m, x, *args, **kw):
        y = ref(m, m.fft.rfft(x) if via_rfft else x, *args, **kw)
        return _np_parts(m, y) if complex_out else y

    record(f"fft_{name}", full_ref, samples, table=False, fn=fn, out_dtype=rule_first)


_ONE_DIM = cases(("plain", (M(3, 8),), {}), ("n-pad", (M(3, 5), 8), {}), ("n-crop", (M(3, 8), 5), {}),
                 ("dim0", (M(6, 3),), {"dim": 0}), ("ortho", (M(3, 8),), {"norm": "ortho"}),
                 ("forward", (M(7),), {"norm": "forward"}))
_N_DIM = cases(("all", (M(3, 4),), {}), ("s", (M(3, 4), (4, 6)), {}), ("dims", (M(2, 3, 4),), {"dim": (0, 2)}),
               ("ortho", (M(3, 4),), {"norm": "ortho"}))


def _np_one(f):
    return lambda m, x, n=None, dim=-1, norm=None: f(m)(x, n=n, axis=dim, norm=_fft_norm(norm))


def _np_many(f):
    def ref(m, x, s=None, dim=None, norm=None):
        if dim is None and s is not None:  # the last len(s) axes, spelled out (numpy 2 wants them)
            dim = tuple(range(x.ndim - len(s), x.ndim))
        return f(m)(x, s=s, axes=dim, norm=_fft_norm(norm))
    return ref


fft_record("fft", _np_one(lambda m: m.fft.fft), _ONE_DIM)
fft_record("ifft", _np_one(lambda m: m.fft.ifft), _ONE_DIM)
fft_record("rfft", _np_one(lambda m: m.fft.rfft), _ONE_DIM)
fft_record("ihfft", _np_one(lambda m: m.fft.ihfft), _ONE_DIM)
fft_record("fftn", _np_many(lambda m: m.fft.fftn), _N_DIM)
fft_record("ifftn", _np_many(lambda m: m.fft.ifftn), _N_DIM)
fft_record("rfftn", _np_many(lambda m: m.fft.rfftn), _N_DIM)
fft_record("irfft", _np_one(lambda m: m.fft.irfft), cases(
    ("plain", (M(3, 8),), {}), ("n-odd", (M(3, 8), 7), {}), ("n-pad", (M(3, 6), 12), {}),
    ("ortho", (M(3, 8),), {"norm": "ortho"})), complex_out=False, via_rfft=True)
fft_record("hfft", _np_one(lambda m: m.fft.hfft), cases(
    ("plain", (M(3, 8),), {}), ("n-odd", (M(3, 8), 9), {}), ("forward", (M(3, 8),), {"norm": "forward"})),
    complex_out=False, via_rfft=True)
fft_record("irfftn", _np_many(lambda m: m.fft.irfftn), cases(
    ("plain", (M(3, 8),), {}), ("s", (M(3, 8), (4, 9)), {}), ("ortho", (M(3, 8),), {"norm": "ortho"})),
    complex_out=False, via_rfft=True)
for _name in ("fftshift", "ifftshift"):
    record(f"fft_{_name}", (lambda f: lambda m, x, dim=None: getattr(m.fft, f)(x, axes=dim))(_name),
           cases(("all", (M(3, 5),), {}), ("dim", (M(4, 5), 1), {})), table=False,
           fn=(lambda f: lambda ns: getattr(ns.fft, f))(_name), dtypes=FLOATS + ("int64",))
