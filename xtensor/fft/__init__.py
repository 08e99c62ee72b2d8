"""xtensor.fft: PyTorch's ``torch.fft`` (and, through ``xtensor.array_api.fft``, the standard's ``fft``). The
transforms and their primitives live with the other op-table entries, in ``xtensor/ops/spectral.py``."""
from ..ops.spectral import (fft, fft2, fftfreq, fftn, fftshift, hfft, hfft2, hfftn, ifft, ifft2, ifftn, ifftshift,
                            ihfft, ihfft2, ihfftn, irfft, irfft2, irfftn, rfft, rfft2, rfftfreq, rfftn)

__all__ = ["fft", "ifft", "fftn", "ifftn", "fft2", "ifft2", "rfft", "irfft", "rfftn", "irfftn", "rfft2", "irfft2",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
