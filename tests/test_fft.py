"""xtensor.fft and xtensor.array_api.fft beyond the OpInfo records: dtypes (float32 -> complex64, integers
through the default float), frequencies, shifts, bad input as PyTorch raises it, and a gradient through a
complex intermediate against real PyTorch, on every backend."""
import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

torch = pytest.importorskip("torch")


def _signal(backend, *shape, dtype="float64", seed=0):
    values = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return xt.tensor(values, backend=backend), torch.tensor(values)


def _close(ours, theirs, atol=1e-10):
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(np.asarray(ours.detach()), theirs.detach().resolve_conj().numpy(), atol=atol)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
def test_real_float32_input_gives_complex64_like_torch(backend, name):
    x, t = _signal(backend, 8, dtype="float32")
    _close(getattr(xt.fft, name)(x), getattr(torch.fft, name)(t), atol=1e-5)


def test_integer_input_is_transformed_in_the_default_float_dtype(backend):
    ours = xt.fft.fft(xt.arange(6, backend=backend))
    _close(ours, torch.fft.fft(torch.arange(6)), atol=1e-5)


@pytest.mark.parametrize("kw", [{"n": 5}, {"n": 12}, {"dim": 0}, {"norm": "ortho"}, {"norm": "forward"}])
def test_fft_options_match_torch(backend, kw):
    x, t = _signal(backend, 6, 8)
    _close(xt.fft.fft(x, **kw), torch.fft.fft(t, **kw))


@pytest.mark.parametrize("kw", [{}, {"n": 7}, {"n": 10, "norm": "ortho"}])
def test_irfft_and_hfft_lengths_match_torch(backend, kw):
    x, t = _signal(backend, 3, 8)
    for name in ("irfft", "hfft"):
        _close(getattr(xt.fft, name)(xt.fft.rfft(x), **kw), getattr(torch.fft, name)(torch.fft.rfft(t), **kw))


def test_fft2_and_irfftn_with_sizes_match_torch(backend):
    x, t = _signal(backend, 2, 4, 6)
    _close(xt.fft.fft2(x, s=(3, 8)), torch.fft.fft2(t, s=(3, 8)))
    _close(xt.fft.irfftn(xt.fft.rfftn(x), s=(4, 6), dim=(1, 2)),
           torch.fft.irfftn(torch.fft.rfftn(t), s=(4, 6), dim=(1, 2)))


@pytest.mark.parametrize("kw", [{}, {"s": (4, 8), "dim": (0, 2)}, {"dim": (1,), "norm": "ortho"},
                                {"s": (3, 3, 7), "norm": "forward"}])
def test_hfftn_and_ihfftn_match_torch(backend, kw):
    x, t = _signal(backend, 3, 4, 6)
    _close(xt.fft.ihfftn(x, **kw), torch.fft.ihfftn(t, **kw))
    _close(xt.fft.hfftn(xt.fft.ihfftn(x), **kw), torch.fft.hfftn(torch.fft.ihfftn(t), **kw))


def test_fftfreq_and_rfftfreq_match_torch(backend):
    _close(xt.fft.fftfreq(7, 0.5, backend=backend), torch.fft.fftfreq(7, 0.5), atol=1e-7)
    _close(xt.fft.rfftfreq(8, dtype=xt.float64, backend=backend), torch.fft.rfftfreq(8, dtype=torch.float64))


def test_shifts_roll_by_half_like_torch(backend):
    x, t = _signal(backend, 3, 5)
    _close(xt.fft.fftshift(x), torch.fft.fftshift(t))
    _close(xt.fft.ifftshift(x, dim=1), torch.fft.ifftshift(t, dim=1))
    np.testing.assert_array_equal(np.asarray(xt.fft.ifftshift(xt.fft.fftshift(x))), np.asarray(x))


def _grads_agree(backend, loss):
    x, t = _signal(backend, 16)
    x.requires_grad_(True)
    t.requires_grad_(True)
    gx, = xt.autograd.grad(loss(xt, x), [x])
    gt, = torch.autograd.grad(loss(torch, t), [t])
    np.testing.assert_allclose(np.asarray(gx), gt.numpy(), rtol=1e-9, atol=1e-10)


def test_gradient_through_complex_spectra_matches_torch(backend):
    """Transforms there and back, with complex intermediates and a real loss."""
    _grads_agree(backend, lambda ns, v: (ns.fft.irfft(ns.fft.rfft(v, norm="ortho") * 3.0, n=16) ** 2).sum()
                 + (ns.fft.hfft(ns.fft.ihfft(v), n=16) ** 3).sum() + ns.fft.fft(v).abs().sum())


def test_gradient_through_a_product_of_spectra_matches_torch(backend):
    _grads_agree(backend, lambda ns, v: (ns.fft.irfft(ns.fft.rfft(v) * ns.fft.rfft(v), n=16) ** 2).sum())


@pytest.mark.parametrize("case", {
    "zero_n": lambda t, x: t.fft.fft(x, n=0),
    "bad_dim": lambda t, x: t.fft.fft(x, dim=3),
    "bad_norm": lambda t, x: t.fft.fft(x, norm="sideways"),
    "rfft_complex": lambda t, x: t.fft.rfft(t.fft.fft(x)),
    "repeated_dims": lambda t, x: t.fft.fftn(x, dim=(0, 0)),
}.items(), ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_bad_input_raises_like_torch(case):
    _, call = case
    values = np.ones((4, 4))
    with pytest.raises(Exception) as expected:
        call(torch, torch.tensor(values))
    with pytest.raises(type(expected.value)):
        call(xt, xt.tensor(values))


def test_array_api_fft_keeps_precision(backend):
    x = xt.tensor(np.ones((4,), dtype=np.complex64), backend=backend)
    assert xa.fft.fft(x).dtype is xt.complex64
    assert xa.fft.irfft(x).dtype is xt.float32
    assert xa.fft.rfft(xt.ones(4, dtype=xt.float64, backend=backend)).dtype is xt.complex128


def test_array_api_fftn_takes_axes_and_s(backend):
    values = np.random.default_rng(5).standard_normal((3, 4, 5)) + 0j
    r = xa.fft.fftn(xt.tensor(values, backend=backend), s=(6, 3), axes=(0, 2), norm="ortho")
    np.testing.assert_allclose(np.asarray(r), np.fft.fftn(values, s=(6, 3), axes=(0, 2), norm="ortho"), atol=1e-12)


def test_array_api_fftfreq_uses_the_default_float(backend):
    assert xa.fft.fftfreq(4, d=2.0).dtype is xa.__array_namespace_info__().default_dtypes()["real floating"]
