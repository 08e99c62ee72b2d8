"""Linear algebra beyond the OpInfo records (``opinfo_linalg.py``): named results, PyTorch's errors on bad
input (checked against real PyTorch where it runs), singular and non-positive-definite matrices on every
backend, node names, and the array-API ``linalg`` extension's spellings."""
import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

torch = pytest.importorskip("torch")


def _mat(backend, *shape, seed=0, dtype="float64"):
    return xt.tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype), backend=backend)


def _torch_error(call):
    """The exception real PyTorch raises for ``call(torch)``."""
    with pytest.raises(Exception) as info:
        call(torch)
    return info.value


def _same_error(call, backend="numpy", match=None):
    """xtensor raises PyTorch's exception type, with PyTorch's message (or ``match``)."""
    expected = _torch_error(call)
    with pytest.raises(type(expected) if not isinstance(expected, torch.linalg.LinAlgError) else RuntimeError) as info:
        call(xt if backend == "numpy" else _OnBackend(backend))
    assert (match or str(expected).split("\n")[0]) in str(info.value)


class _OnBackend:
    """``xtensor`` with ``tensor`` bound to a backend (so one call spells the case for torch and xtensor)."""

    def __init__(self, backend):
        self.backend = backend

    def __getattr__(self, name):
        return getattr(xt, name)

    def tensor(self, data, **kw):
        return xt.tensor(data, backend=self.backend, **kw)


# --------------------------------------------------------------------------- named results
def test_linalg_results_are_named_tuples(backend):
    a = _mat(backend, 3, 3)
    spd = a @ a.mT + 3 * xt.eye(3, dtype=xt.float64, backend=backend)
    assert set(xt.linalg.svd(a)._fields) == {"U", "S", "Vh"}
    assert xt.linalg.eigh(spd)._fields == ("eigenvalues", "eigenvectors")
    assert xt.linalg.qr(a)._fields == ("Q", "R")
    assert xt.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert xt.svd(a)._fields == ("U", "S", "V")


def test_torch_svd_returns_v_not_vh(backend):
    a = _mat(backend, 4, 3)
    u, s, v = xt.svd(a)
    np.testing.assert_allclose(np.asarray(u @ xt.diag(s) @ v.mT), np.asarray(a), atol=1e-12)
    assert tuple(u.shape) == (4, 3) and tuple(v.shape) == (3, 3)


def test_svd_some_false_gives_square_factors(backend):
    u, s, v = xt.svd(_mat(backend, 4, 3), some=False)
    assert tuple(u.shape) == (4, 4) and tuple(v.shape) == (3, 3)


def test_array_api_linalg_results_are_named_tuples(backend):
    a = _mat(backend, 3, 3)
    r = xa.linalg.svd(a, full_matrices=False)
    assert r._fields == ("U", "S", "Vh")
    np.testing.assert_allclose(np.asarray((r.U * r.S[None, :]) @ r.Vh), np.asarray(a), atol=1e-12)
    assert xa.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert xa.linalg.eig(a)._fields == ("eigenvalues", "eigenvectors")


# --------------------------------------------------------------------------- bad input, as PyTorch
@pytest.mark.parametrize("case", {
    "mm_shapes": lambda t: t.mm(t.ones(2, 3), t.ones(4, 5)),
    "mm_rank": lambda t: t.mm(t.ones(2, 3, 4), t.ones(4, 5)),
    "bmm_rank": lambda t: t.bmm(t.ones(2, 3), t.ones(2, 3, 4)),
    "bmm_batches": lambda t: t.bmm(t.ones(2, 3, 4), t.ones(3, 4, 5)),
    "matmul_shapes": lambda t: t.matmul(t.ones(2, 3), t.ones(4)),
    "dot_sizes": lambda t: t.dot(t.ones(3), t.ones(4)),
    "inv_not_square": lambda t: t.linalg.inv(t.ones(2, 3)),
    "inv_1d": lambda t: t.linalg.inv(t.ones(3)),
    "det_int": lambda t: t.linalg.det(t.ones(2, 2, dtype=t.int64)),
    "trace_3d": lambda t: t.trace(t.ones(2, 2, 2)),
    "diag_3d": lambda t: t.diag(t.ones(2, 2, 2)),
    "cross_size": lambda t: t.linalg.cross(t.ones(2, 4), t.ones(2, 4)),
    "solve_shapes": lambda t: t.linalg.solve(t.eye(3), t.ones(4, 2)),
}.items(), ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_bad_input_raises_like_torch(case):
    name, call = case
    expected = _torch_error(call)
    with pytest.raises(type(expected)):
        call(xt)


def test_mm_shape_mismatch_message_matches_torch():
    _same_error(lambda t: t.mm(t.ones(2, 3), t.ones(4, 5)))


def test_inv_of_non_square_message_matches_torch():
    _same_error(lambda t: t.linalg.inv(t.ones(2, 3)))


@pytest.mark.parametrize("fn", ["inverse", "linalg.inv"])
def test_singular_inverse_raises_linalg_error(backend, fn):
    singular = xt.tensor([[1.0, 2.0], [2.0, 4.0]], backend=backend)
    f = xt.inverse if fn == "inverse" else xt.linalg.inv
    with pytest.raises(xt.linalg.LinAlgError, match="singular"):
        f(singular)
    with pytest.raises(torch.linalg.LinAlgError, match="singular"):
        torch.linalg.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))


def test_linalg_error_is_a_runtime_error():
    assert issubclass(xt.linalg.LinAlgError, RuntimeError)
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)


def test_singular_solve_raises_linalg_error(backend):
    with pytest.raises(xt.linalg.LinAlgError, match="singular"):
        xt.linalg.solve(xt.zeros(2, 2, dtype=xt.float64, backend=backend), xt.ones(2, dtype=xt.float64, backend=backend))


def test_cholesky_of_indefinite_matrix_raises_linalg_error(backend):
    with pytest.raises(xt.linalg.LinAlgError, match="positive-definite"):
        xt.linalg.cholesky(xt.tensor([[1.0, 2.0], [2.0, 1.0]], backend=backend))


def test_det_of_singular_matrix_is_zero(backend):
    assert xt.linalg.det(xt.tensor([[1.0, 2.0], [2.0, 4.0]], backend=backend)).item() == 0.0


def test_logdet_of_negative_determinant_is_nan(backend):
    r = xt.logdet(xt.tensor([[0.0, 1.0], [1.0, 0.0]], backend=backend))
    expected = torch.logdet(torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    assert np.isnan(r.item()) and torch.isnan(expected)


@pytest.mark.parametrize("name", ["addmm", "addmv"])
def test_integer_products_truncate_float_scalars_like_torch(name):
    args = {"addmm": ((2, 2), (2, 2), (2, 2)), "addmv": ((2,), (2, 2), (2,))}[name]
    values = [np.arange(4)[:int(np.prod(s))].reshape(s) + 1 for s in args]
    ours = getattr(xt, name)(*[xt.tensor(v) for v in values], beta=0.5, alpha=2.5)
    theirs = getattr(torch, name)(*[torch.tensor(v) for v in values], beta=0.5, alpha=2.5)
    assert ours.dtype is xt.int64
    np.testing.assert_array_equal(np.asarray(ours), theirs.numpy())


def test_integer_addr_refuses_float_scalars_like_torch():
    ints = [xt.ones(2, 2, dtype=xt.int64), xt.ones(2, dtype=xt.int64), xt.ones(2, dtype=xt.int64)]
    with pytest.raises(RuntimeError, match="beta must not be a floating point"):
        torch.addr(torch.ones(2, 2, dtype=torch.int64), torch.ones(2, dtype=torch.int64),
                   torch.ones(2, dtype=torch.int64), beta=0.5)
    with pytest.raises(RuntimeError, match="beta must not be a floating point"):
        xt.addr(*ints, beta=0.5)


# --------------------------------------------------------------------------- semantics against PyTorch
def test_eigh_reads_only_the_named_triangle(backend):
    a = np.random.default_rng(1).standard_normal((3, 3))
    for uplo in ("L", "U"):
        ours = xt.linalg.eigh(xt.tensor(a, backend=backend), UPLO=uplo).eigenvalues
        theirs = torch.linalg.eigh(torch.tensor(a), UPLO=uplo).eigenvalues
        np.testing.assert_allclose(np.asarray(ours), theirs.numpy(), atol=1e-12)


def test_solve_treats_batch_shaped_b_as_vectors_like_torch(backend):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), rng.standard_normal((2, 3))
    ours = xt.linalg.solve(xt.tensor(a, backend=backend), xt.tensor(b, backend=backend))
    np.testing.assert_allclose(np.asarray(ours), torch.linalg.solve(torch.tensor(a), torch.tensor(b)).numpy(),
                               atol=1e-12)


def test_array_api_solve_treats_only_1d_b_as_vector(backend):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 3))
    r = xa.linalg.solve(xt.tensor(a, backend=backend), xt.tensor(b, backend=backend))
    np.testing.assert_allclose(np.asarray(r), np.linalg.solve(a, b), atol=1e-12)


def test_array_api_matmul_family_promotes_mixed_dtypes(backend):
    a = xt.ones(2, 2, dtype=xt.float32, backend=backend)
    b = xt.ones(2, 2, dtype=xt.float64, backend=backend)
    assert xa.linalg.outer(a[0], b[0]).dtype is xt.float64
    assert xa.linalg.cross(xt.ones(3, dtype=xt.float32, backend=backend),
                           xt.ones(3, dtype=xt.float64, backend=backend)).dtype is xt.float64


def test_matrix_rank_of_rank_one_matrix(backend):
    v = xt.tensor([1.0, 2.0, 3.0], backend=backend)
    assert xt.linalg.matrix_rank(xt.outer(v, v)).item() == 1


def test_matrix_power_zero_is_identity(backend):
    r = xt.linalg.matrix_power(_mat(backend, 2, 3, 3), 0)
    np.testing.assert_array_equal(np.asarray(r), np.broadcast_to(np.eye(3), (2, 3, 3)))


@pytest.mark.parametrize("case", {
    "trace": lambda t, a, v: t.trace(a), "diag_matrix": lambda t, a, v: t.diag(a), "diag_vector": lambda t, a, v: t.diag(v),
    "triu": lambda t, a, v: t.triu(a), "bmm": lambda t, a, v: t.bmm(a[None], a[None]), "mv": lambda t, a, v: t.mv(a, v),
    "dot": lambda t, a, v: t.dot(v, v), "addmm": lambda t, a, v: t.addmm(a, a, a),
    "inverse": lambda t, a, v: t.inverse(a), "det": lambda t, a, v: t.det(a), "svd": lambda t, a, v: t.linalg.svd(a).S,
    "cholesky": lambda t, a, v: t.linalg.cholesky(a @ a.mT + t.eye(3, dtype=t.float64)),
    "torch_cholesky": lambda t, a, v: t.cholesky(a @ a.mT + t.eye(3, dtype=t.float64)),
    "qr": lambda t, a, v: t.linalg.qr(a).R, "eigh": lambda t, a, v: t.linalg.eigh(a).eigenvalues,
    "solve": lambda t, a, v: t.linalg.solve(a, v), "pinv": lambda t, a, v: t.linalg.pinv(a),
    "vector_norm": lambda t, a, v: t.linalg.vector_norm(a), "cross": lambda t, a, v: t.linalg.cross(a, a),
    "slogdet": lambda t, a, v: t.linalg.slogdet(a).logabsdet, "outer": lambda t, a, v: t.outer(v, v),
    "fft": lambda t, a, v: t.fft.fft(v), "rfft": lambda t, a, v: t.fft.rfft(v), "ifft": lambda t, a, v: t.fft.ifft(v),
    "irfft": lambda t, a, v: t.fft.irfft(t.fft.rfft(v)), "ihfft": lambda t, a, v: t.fft.ihfft(v),
}.items(), ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_grad_fn_names_match_torch(case):
    name, f = case
    rng = np.random.default_rng(4)
    a, v = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal(3)
    ours = f(xt, xt.tensor(a, requires_grad=True), xt.tensor(v, requires_grad=True))
    theirs = f(torch, torch.tensor(a, requires_grad=True), torch.tensor(v, requires_grad=True))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("driver", [None, "gelsd"])
def test_lstsq_result_matches_torch(backend, driver):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    ours = xt.linalg.lstsq(xt.tensor(a, backend=backend), xt.tensor(b, backend=backend), driver=driver)
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    assert ours._fields == ("solution", "residuals", "rank", "singular_values")
    for field in ("solution", "residuals", "rank"):
        np.testing.assert_allclose(np.asarray(getattr(ours, field)), getattr(theirs, field).numpy(), atol=1e-10)


@pytest.mark.parametrize("case", {
    "matmul": lambda t, a, b, v: a @ b, "mv": lambda t, a, b, v: t.mv(a, v), "dot": lambda t, a, b, v: t.dot(v, v * 2),
    "vdot": lambda t, a, b, v: t.vdot(v, b[0]), "addr": lambda t, a, b, v: t.addr(a, v, b[1]),
    "inverse": lambda t, a, b, v: t.linalg.inv(a), "det": lambda t, a, b, v: t.linalg.det(a),
    "solve": lambda t, a, b, v: t.linalg.solve(a, b), "solve_vector": lambda t, a, b, v: t.linalg.solve(a, v),
    "pinv": lambda t, a, b, v: t.linalg.pinv(a), "einsum": lambda t, a, b, v: t.einsum("ij,jk->ik", a, b),
}.items(), ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_complex_gradients_follow_torch_convention(case, backend):
    """PyTorch's convention for complex inputs: the gradient of a real loss is dL/dRe + i dL/dIm."""
    _, f = case
    rng = np.random.default_rng(7)
    values = [rng.standard_normal(s) + 1j * rng.standard_normal(s) + (3 * np.eye(3) if s == (3, 3) else 0)
              for s in ((3, 3), (3, 3), (3,))]
    ours = [xt.tensor(v, backend=backend, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    our_grads = xt.autograd.grad(f(xt, *ours).abs().sum(), ours, allow_unused=True)
    their_grads = torch.autograd.grad(f(torch, *theirs).abs().sum(), theirs, allow_unused=True)
    for g, e in zip(our_grads, their_grads):
        if e is None:
            assert g is None
        else:
            np.testing.assert_allclose(np.asarray(g), e.numpy(), rtol=1e-9, atol=1e-10)


def test_linalg_and_fft_trace_under_jax_jit():
    """The LinAlgError check reads values on the host; under jit it steps aside instead of failing the trace."""
    jax = pytest.importorskip("jax")
    a_values = np.random.default_rng(8).standard_normal((3, 3)) + 3 * np.eye(3)

    def f(ns, t):
        return ns.linalg.inv(t) @ ns.linalg.cholesky(t @ t.mT).sum(0) + ns.fft.irfft(ns.fft.rfft(t), n=3)

    ours = jax.jit(lambda t: f(xt, t))(xt.tensor(a_values, backend="jax"))
    np.testing.assert_allclose(np.asarray(ours), f(torch, torch.tensor(a_values)).numpy(), atol=1e-10)


@pytest.mark.parametrize("kind", ["real", "complex"])
def test_eig_gradient_matches_torch(backend, kind):
    """A loss that does not depend on the eigenvectors' phases (PyTorch refuses the others)."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((2, 3, 3)) + (1j * rng.standard_normal((2, 3, 3)) if kind == "complex" else 0)

    def loss(ns, t):
        values, vectors = ns.linalg.eig(t)
        return values.abs().sum() + (vectors.abs() ** 3).sum()

    ours, theirs = xt.tensor(a, backend=backend, requires_grad=True), torch.tensor(a, requires_grad=True)
    g, = xt.autograd.grad(loss(xt, ours), [ours])
    e, = torch.autograd.grad(loss(torch, theirs), [theirs])
    np.testing.assert_allclose(np.asarray(g), e.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("fn", ["vector_norm", "matrix_norm", "norm"])
def test_norm_of_a_complex_tensor_is_real_as_in_torch(backend, fn):
    z = np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]], dtype=np.complex64)
    ours = getattr(xt.linalg, fn)(xt.tensor(z))
    theirs = getattr(torch.linalg, fn)(torch.tensor(z))
    assert ours.dtype is xt.float32 and theirs.dtype is torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_array_api_norms_of_complex_arrays_are_real(backend):
    z = xa.asarray([[1 + 2j, 3 - 1j], [0.5j, 2.0]], dtype=xa.complex64)
    assert xa.linalg.vector_norm(z).dtype == xa.float32
    assert xa.linalg.matrix_norm(z).dtype == xa.float32
