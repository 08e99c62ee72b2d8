"""Spectral ops: the transforms of PyTorch's ``torch.fft`` (``xtensor.fft`` names them; through
``xtensor.array_api.fft``, the standard's ``fft``) and the short-time transforms ``stft``/``istft``.

Three primitives over the backend's ``xp.fft`` carry every transform: complex-to-complex
(``fftn``/``ifftn``), real-to-complex (``rfftn``) and complex-to-real (``irfftn``), each over
``axes`` with a ``norm``. Their VJPs are the adjoint transforms (PyTorch's convention: the
gradient of a linear map ``A`` is ``A^H g``): the adjoint of a transform with ``norm`` is the
opposite transform with the dual norm ('backward' <-> 'forward'). Resizing to ``n``/``s``
(crop or zero-pad) happens before the primitive, in xtensor ops, so it differentiates too;
``hfft``/``ihfft`` are conjugations around ``irfft``/``rfft`` (as numpy defines them).
"""
from .. import _dtypes
from .._creation import arange
from .._dispatch import apply
from .._inplace import assign_out
from .._table import defcomposite, defop
from .._tensor import check_dim
from ._composite import _float, _fn
from .linalg import as_complex, conj

__all__ = ["fft", "ifft", "fftn", "ifftn", "fft2", "ifft2", "rfft", "irfft", "rfftn", "irfftn", "rfft2", "irfft2",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _c2c_fwd(xp, x, axes, norm, forward):
    if x.dtype not in (xp.complex64, xp.complex128):  # the standard's fftn takes complex input only
        x = xp.astype(x, xp.complex64 if x.dtype == xp.float32 else xp.complex128)
    return (xp.fft.fftn if forward else xp.fft.ifftn)(x, axes=axes, norm=norm)


def _c2c(x, axes, norm, forward, real_op=None):
    """``real_op``: the primitive for real ``x`` (``fft``/``ifft`` take it as PyTorch's r2c, which keeps ``x``;
    ``fftn`` converts it to complex first, and keeps nothing)."""
    op = _C2C if real_op is None or x.dtype.kind == "c" else real_op
    if not forward and x.dtype.kind != "c":  # as PyTorch: the inverse of real input is the conjugate forward one
        return conj(apply(op, (x,), (axes, _DUAL[norm], True)))
    return apply(op, (x,), (axes, norm, forward))


def _c2c_vjp(ns, g, ans, x, axes, norm, forward):
    gx = ns.apply("_fft_c2c", (g,), (axes, _DUAL[norm], not forward))
    return gx if ns.is_complex(x) else ns.apply("_complex_real", (gx,))


# Every primitive takes real or complex input and gives the other kind (or either, c2c): a raw VJP's input dtype
# differs from the result's (``raw_any_dtype``)
_C2C = defop("_fft_c2c", _c2c_fwd, (_c2c_vjp,), saves=("meta0",), function=False, method=False, raw_any_dtype=(0,),
             names=lambda x, *params: "FftC2CBackward0" if x.dtype.kind == "c" else "FftR2CBackward0")
_R2C_FULL = defop("_fft_r2c_full", _c2c_fwd, (_c2c_vjp,), saves=(0,), function=False, method=False, raw_any_dtype=(0,),
                  node="FftR2CBackward0")  # the two-sided spectrum of real input (PyTorch's r2c keeps its input)


def _r2c(x, axes, norm):
    return apply(_R2C, (x,), (axes, norm))


def _r2c_vjp(ns, g, ans, x, axes, norm):
    axis = axes[-1] % g.ndim
    missing = x.shape[axis] - g.shape[axis]  # the dropped half of the spectrum had no gradient: zeros
    full = ns.apply("constant_pad_nd", (g,), ((0, 0) * (g.ndim - 1 - axis) + (0, missing), 0)) if missing else g
    return ns.apply("_complex_real", (ns.apply("_fft_c2c", (full,), (axes, _DUAL[norm], False)),))


_R2C = defop("_fft_r2c", lambda xp, x, axes, norm: xp.fft.rfftn(x, axes=axes, norm=norm), (_r2c_vjp,),
             saves=(0,), function=False, method=False, raw_any_dtype=(0,),
             node="FftR2CBackward0")  # as PyTorch (its VJP: the shape)


def _c2r(x, axes, norm, n):
    return apply(_C2R, (x,), (axes, norm, n))


def _c2r_fwd(xp, x, axes, norm, n):
    return xp.fft.irfftn(x, s=tuple(x.shape[a] for a in axes[:-1]) + (n,), axes=axes, norm=norm)


def _c2r_vjp(ns, g, ans, x, axes, norm, n):
    """PyTorch's fft_c2r_backward: rfft of the gradient, the bins that stand for two (a bin and its mirror)
    counted twice."""
    gx = ns.apply("_fft_r2c", (g,), (axes, _DUAL[norm]))
    axis = axes[-1] % gx.ndim
    doubled = n - gx.shape[axis]  # bins 1..doubled have a mirror
    if doubled <= 0:
        return gx
    bin = ns.arange_along(gx, axis)
    return ns.where((bin >= 1) & (bin <= doubled), gx * 2, gx)


_C2R = defop("_fft_c2r", _c2r_fwd, (_c2r_vjp,), saves=(), function=False, method=False, raw_any_dtype=(0,),
             node="FftC2RBackward0")


# ------------------------------------------------------------------ arguments
class InvalidArgument(RuntimeError, ValueError):
    """A bad ``norm``: PyTorch raises a RuntimeError, an array-API user expects a ValueError."""


def _norm(norm, name):
    norm = "backward" if norm is None else norm
    if norm not in _DUAL:
        raise InvalidArgument(f"Invalid normalization mode: {norm}")
    return norm


def _resize(x, axis, n):
    """``x`` cropped or zero-padded to length ``n`` along ``axis`` (the standard's and PyTorch's ``n``/``s``)."""
    have = x.shape[axis]
    if n == have:
        return x
    if n < have:
        return x.narrow(axis, 0, n)
    pad = list(x.shape)
    pad[axis] = n - have
    return _fn("cat")([x, x.new_zeros(tuple(pad))], axis)


def _float_input(x, name, complex_ok=True):
    if not hasattr(x, "_dtype"):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.dtype.kind in "biu":
        return x.to(_dtypes.get_default_dtype())
    if x.dtype.kind == "c" and not complex_ok:
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype.scalar_name}")
    return x


def _axes_and_sizes(x, s, axes, name):
    """Normalized axes and their target lengths (``s`` entries of -1 keep the length)."""
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    elif isinstance(axes, int):
        axes = [axes]
    axes = list(axes)
    if s is not None and len(s) != len(axes):
        raise RuntimeError(f"When given, dim and shape arguments must have the same length: got {len(axes)} "
                           f"dims and {len(s)} shape")
    axes = [check_dim(a, x.ndim) for a in axes]
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"{name} dims must be unique")
    sizes = [x.shape[a] if s is None or s[i] == -1 else s[i] for i, a in enumerate(axes)]
    for size in sizes:
        if size < 1:
            raise RuntimeError(f"Invalid number of data points ({size}) specified")
    return tuple(axes), sizes


def _resized(x, axes, sizes):
    for a, n in zip(axes, sizes):
        x = _resize(x, a, n)
    return x


# ------------------------------------------------------------------ transforms (PyTorch spellings)
def _complex_transform(forward, name, real_op=None):
    def transform_n(input, s=None, dim=None, norm=None, *, out=None):
        x = _float_input(input, name)
        axes, sizes = _axes_and_sizes(x, s, dim, name)
        return _result(_c2c(_resized(x, axes, sizes), axes, _norm(norm, name), forward, real_op), out, name)
    return transform_n


def _one_dim(transform_n):
    """The 1-D transform (``n``, ``dim``) of an n-D one (``s``, ``dim``)."""
    def transform(input, n=None, dim=-1, norm=None, *, out=None):
        return transform_n(input, None if n is None else (n,), (dim,), norm, out=out)
    return transform


def _two_dim(transform_n):
    def transform(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return transform_n(input, s, dim, norm, out=out)
    return transform


def _result(r, out, name):
    if out is None:
        return r
    return assign_out(out, r, name)


fftn = _complex_transform(True, "fftn")
ifftn = _complex_transform(False, "ifftn")


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The transform of real input, keeping the non-negative frequencies of the last axis."""
    x = _float_input(input, "rfftn", complex_ok=False)
    axes, sizes = _axes_and_sizes(x, s, dim, "rfftn")
    return _result(_r2c(_resized(x, axes, sizes), axes, _norm(norm, "rfftn")), out, "rfftn")


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The real signal of a one-sided spectrum; the last axis' output length defaults to 2 * (m - 1)."""
    x = as_complex(_float_input(input, "irfftn"))
    axes, sizes = _axes_and_sizes(x, s, dim, "irfftn")
    if s is None or s[-1] == -1:
        sizes[-1] = 2 * (x.shape[axes[-1]] - 1)
        if sizes[-1] < 1:
            raise RuntimeError(f"Invalid number of data points ({sizes[-1]}) specified")
    last = sizes[-1]
    x = _resized(x, axes, sizes[:-1] + [last // 2 + 1])
    return _result(_c2r(x, axes, _norm(norm, "irfftn"), last), out, "irfftn")


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The real spectrum of a Hermitian-symmetric signal given by its first half: irfft of the conjugate."""
    return irfftn(conj(as_complex(_float_input(input, "hfftn"))), s, dim, _DUAL[_norm(norm, "hfftn")], out=out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _result(conj(rfftn(input, s, dim, _DUAL[_norm(norm, "ihfftn")])), out, "ihfftn")


fft, ifft = (_one_dim(_complex_transform(forward, name, _R2C_FULL)) for forward, name in ((True, "fftn"),
                                                                                            (False, "ifftn")))
rfft, irfft, hfft, ihfft = (_one_dim(f) for f in (rfftn, irfftn, hfftn, ihfftn))
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two_dim(f) for f in (fftn, ifftn, rfftn, irfftn, hfftn, ihfftn))
for _f, _name in ((fft, "fft"), (ifft, "ifft"), (rfft, "rfft"), (irfft, "irfft"), (hfft, "hfft"), (ihfft, "ihfft"),
                  (fft2, "fft2"), (ifft2, "ifft2"), (rfft2, "rfft2"), (irfft2, "irfft2"), (hfft2, "hfft2"),
                  (ihfft2, "ihfft2")):
    _f.__name__ = _f.__qualname__ = _name


# ------------------------------------------------------------------ frequencies and shifts
def _frequencies(count, n, d, dtype, backend, name):
    if not isinstance(n, int) or n < 1:
        raise RuntimeError(f"{name}: n must be a positive integer, got {n}")
    dtype = dtype or _dtypes.get_default_dtype()
    if dtype.kind not in "fc":
        raise RuntimeError(f"{name} expects a floating point dtype, got {dtype}")
    k = arange(count, dtype=_dtypes.int64, backend=backend)
    if name == "fftfreq":  # 0, 1, ..., ceil(n/2) - 1, then the negative frequencies
        k = k - (k >= (n + 1) // 2).to(_dtypes.int64) * n
    return k.to(dtype) / (n * d)


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, backend=None):
    """Sample frequencies of an n-point transform: [0, 1, ..., -1] / (d * n)."""
    return _frequencies(n, n, d, dtype, backend, "fftfreq").requires_grad_(requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, backend=None):
    """The non-negative frequencies an rfft keeps: [0, 1, ..., n // 2] / (d * n)."""
    return _frequencies(n // 2 + 1, n, d, dtype, backend, "rfftfreq").requires_grad_(requires_grad)


def _shift(x, dim, direction):
    if dim is None:
        dim = tuple(range(x.ndim))
    elif isinstance(dim, int):
        dim = (dim,)
    if not dim:
        return x
    shifts = tuple(direction * (x.shape[d] // 2) for d in dim)
    return x.roll(shifts, tuple(dim))


def fftshift(input, dim=None):
    """The zero frequency moved to the middle: a roll by n // 2 along each ``dim``."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """``fftshift`` undone: a roll by -(n // 2)."""
    return _shift(input, dim, -1)


del _f, _name


# ------------------------------------------------------------------ short-time Fourier transforms
def _pad_ends(x, p, mode):
    """``x`` padded by ``p`` on both ends of its last dim: 'reflect', 'constant' (zeros), 'replicate' or
    'circular', as ``F.pad`` does."""
    n = x.shape[-1]
    if p == 0:
        return x
    if mode == "reflect":
        if p >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({p}, {p}) at dimension {x.ndim - 1} of input {list(x.shape)}")
        left, right = x.narrow(-1, 1, p).flip(-1), x.narrow(-1, n - 1 - p, p).flip(-1)
    elif mode == "replicate":
        left = x.narrow(-1, 0, 1).expand(tuple(x.shape[:-1]) + (p,))
        right = x.narrow(-1, n - 1, 1).expand(tuple(x.shape[:-1]) + (p,))
    elif mode == "circular":
        left, right = x.narrow(-1, n - p, p), x.narrow(-1, 0, p)
    elif mode == "constant":
        left = right = x.new_zeros(tuple(x.shape[:-1]) + (p,))
    else:
        raise NotImplementedError(f"stft: pad_mode {mode!r} is not one of reflect, constant, replicate, circular")
    return _fn("cat")([left, x, right], -1)


def _full_window(window, win_length, n_fft, like):
    """The window of ``win_length`` (ones when None), zero-padded on both sides to ``n_fft``."""
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is None:
        window = like.new_ones(win_length, dtype=like.dtype if like.dtype.kind in "fc" else None)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = _fn("cat")([window.new_zeros(left), window, window.new_zeros(n_fft - win_length - left)])
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform of a 1-d signal or a batch of them: frames of ``n_fft`` every
    ``hop_length`` samples, times the window, Fourier-transformed; shape ``(..., n_fft // 2 + 1 (onesided)
    or n_fft, frames)``. ``return_complex=False`` (deprecated in PyTorch) stacks real and imaginary parts."""
    complex_input = input.dtype.kind == "c" or (window is not None and window.dtype.kind == "c")
    if return_complex is None:
        if not complex_input:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    x = _float(input)
    if center:
        x = _pad_ends(x, n_fft // 2, pad_mode)
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {x.shape[-1]}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop) * _full_window(window, win_length, n_fft, x)
    if onesided is None:
        onesided = not complex_input
    spectrum = rfft(frames, dim=-1) if onesided else fft(frames, dim=-1)
    if normalized:
        spectrum = spectrum * (n_fft ** -0.5)
    spectrum = spectrum.transpose(-1, -2)
    if return_complex:
        return spectrum
    return _fn("stack")([_fn("real")(spectrum), _fn("imag")(spectrum)], -1)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: each frame's inverse transform, windowed, overlap-added and divided by the
    overlap-added squared window (which must not vanish: PyTorch's NOLA check)."""
    if input.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if onesided is None:
        onesided = input.shape[-2] != n_fft
    spectrum = input.transpose(-1, -2)
    if normalized:
        spectrum = spectrum * (n_fft ** 0.5)
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = irfft(spectrum, n=n_fft, dim=-1)
    else:
        frames = ifft(spectrum, dim=-1)
        if not return_complex:
            frames = _fn("real")(frames)
    w = _full_window(window, win_length, n_fft, _fn("real")(input) if input.dtype.kind == "c" else input)
    frames = frames * w
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    index = (arange(n_frames, backend=input._backend).unsqueeze(-1) * hop +
             arange(n_fft, backend=input._backend)).reshape(-1)
    batch = tuple(frames.shape[:-2])
    signal = frames.new_zeros(batch + (total,)).index_add(-1, index, frames.reshape(batch + (-1,)))
    envelope = w.new_zeros(total).index_add(0, index, (w * w).expand(n_frames, n_fft).reshape(-1))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    end = min(end, total)
    if end > start and float(envelope[start:end].abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: 0.000000 (the window and hop do not satisfy the NOLA "
                           "constraint)")
    y = (signal / envelope.where(envelope.abs() > 1e-11, 1.0))[..., start:end]
    if length is not None and y.shape[-1] < length:
        y = _fn("cat")([y, y.new_zeros(batch + (length - y.shape[-1],))], -1)
    return y


defcomposite("stft", stft)
defcomposite("istft", istft)
