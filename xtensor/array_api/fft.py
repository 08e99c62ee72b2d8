"""xtensor.array_api.fft: the standard's ``fft`` extension, over the transforms of ``xtensor.fft``.

The standard's spelling: keyword-only ``n``/``s``, ``axis``/``axes``, ``norm='backward'``; ``fft``,
``ifft``, ``fftn``, ``ifftn``, ``irfft``, ``irfftn`` and ``hfft`` take complex input, ``rfft``,
``rfftn`` and ``ihfft`` real floating input.
"""
from ._array import with_standard_defaults as _with_standard_defaults
from .. import fft as _fft

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq",
           "fftshift", "ifftshift"]


def _one_dim(transform):
    def function(x, /, *, n=None, axis=-1, norm="backward"):
        return transform(x, n, axis, norm)
    function.__name__ = function.__qualname__ = transform.__name__
    function.__doc__ = f"The standard's ``{transform.__name__}``: ``xtensor.fft.{transform.__name__}``."
    return function


def _n_dim(transform, name):
    def function(x, /, *, s=None, axes=None, norm="backward"):
        return transform(x, s, axes, norm)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The standard's ``{name}``: ``xtensor.fft.{name}``."
    return function


fft, ifft, rfft, irfft, hfft, ihfft = (_one_dim(f) for f in (_fft.fft, _fft.ifft, _fft.rfft, _fft.irfft, _fft.hfft,
                                                              _fft.ihfft))
fftn, ifftn, rfftn, irfftn = (_n_dim(f, name) for f, name in ((_fft.fftn, "fftn"), (_fft.ifftn, "ifftn"),
                                                                 (_fft.rfftn, "rfftn"), (_fft.irfftn, "irfftn")))


def _default_float():
    from . import __array_namespace_info__
    return __array_namespace_info__().default_dtypes()["real floating"]


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return _fft.fftfreq(n, d, dtype=dtype or _default_float())


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return _fft.rfftfreq(n, d, dtype=dtype or _default_float())


def fftshift(x, /, *, axes=None):
    return _fft.fftshift(x, axes)


def ifftshift(x, /, *, axes=None):
    return _fft.ifftshift(x, axes)

_with_standard_defaults(globals(), __all__)
