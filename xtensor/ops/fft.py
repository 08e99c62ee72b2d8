"""The short-time Fourier transforms, composites of the fft entries (``xtensor/fft.py`` holds the fft primitives)."""
from .._table import defcomposite
from ._composite import _float, _fn



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
    from .. import fft
    spectrum = fft.rfft(frames, dim=-1) if onesided else fft.fft(frames, dim=-1)
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
    from .. import fft
    spectrum = input.transpose(-1, -2)
    if normalized:
        spectrum = spectrum * (n_fft ** 0.5)
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = fft.irfft(spectrum, n=n_fft, dim=-1)
    else:
        frames = fft.ifft(spectrum, dim=-1)
        if not return_complex:
            frames = _fn("real")(frames)
    w = _full_window(window, win_length, n_fft, _fn("real")(input) if input.dtype.kind == "c" else input)
    frames = frames * w
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    from .._creation import arange
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
