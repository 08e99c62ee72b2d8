"""Vision functions: pixel and channel shuffles, ``interpolate``/``upsample``, ``affine_grid`` and
``grid_sample``."""
import math
import warnings


from ... import _creation
from ...ops._composite import _fn
from ._convolution import _tuple
from ._pooling import _adaptive_avg_pool

__all__ = [
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "interpolate", "upsample",
    "upsample_nearest", "upsample_bilinear", "affine_grid", "grid_sample"
]


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    k = len(lead)
    out = input.reshape(*lead, c // (r * r), r, r, h, w).permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return out.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        dim, size = ("height", h) if h % r else ("width", w)
        raise RuntimeError(f"pixel_unshuffle expects {dim} to be divisible by downscale_factor, but input.size("
                           f"{-2 if h % r else -1})={size} is not divisible by {r}")
    k = len(lead)
    out = input.reshape(*lead, c, h // r, r, w // r, r).permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return out.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    n, c = input.shape[:2]
    return input.reshape(n, groups, c // groups, *input.shape[2:]).transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle


_INTERPOLATING = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, *spatial): ``nearest``/``nearest-exact`` pick a source element,
    ``linear``/``bilinear``/``trilinear`` blend the two neighbours of each spatial dim in turn (the modes are
    separable), ``area`` is adaptive average pooling. Source positions are PyTorch's (``align_corners``, and the
    scale 1 / scale_factor unless ``recompute_scale_factor``); they depend on the shapes only and are computed on
    the host."""
    n = input.ndim - 2
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if mode not in ("nearest", "nearest-exact", "area") + tuple(_INTERPOLATING):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})" if mode != "bicubic" else
                                  "xtensor's interpolate has no bicubic mode")
    if antialias:
        raise NotImplementedError("xtensor's interpolate has no antialias")
    if n < 1 or n > 3 or (mode in _INTERPOLATING and _INTERPOLATING[mode] != n):
        wanted = f", but {mode} mode needs {_INTERPOLATING[mode] + 2}D input" if mode in _INTERPOLATING else ""
        raise NotImplementedError(f"Got {input.ndim}D input{wanted}" if wanted else
                                  f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    spatial = tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes, scales = list(_tuple(size, n, "size")), [None] * n
    else:
        factors = [float(f) for f in (scale_factor if isinstance(scale_factor, (tuple, list)) else
                                      [scale_factor] * n)]
        if len(factors) != n:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, "
                             "s2, ...,sK) format.")
        sizes = [int(math.floor(length * f)) for length, f in zip(spatial, factors)]
        scales = [None] * n if recompute_scale_factor or mode == "area" else [1 / f for f in factors]
    if mode == "area":
        return _adaptive_avg_pool(input, sizes, n)
    import numpy as np  # source positions: geometry only
    out = input
    for i, (length, size, scale) in enumerate(zip(spatial, sizes, scales)):
        dim = 2 + i
        if align_corners and mode in _INTERPOLATING:
            scale = (length - 1) / (size - 1) if size > 1 else 0.0
        elif scale is None:
            scale = length / size
        target = np.arange(size, dtype=np.float64)
        if mode.startswith("nearest"):
            source = np.floor((target + (0.5 if mode == "nearest-exact" else 0.0)) * scale)
            out = out.index_select(dim, _creation.tensor(np.minimum(source, length - 1).astype(np.int64)).to(out.backend))
            continue
        source = target * scale if align_corners else np.maximum((target + 0.5) * scale - 0.5, 0.0)
        low = np.minimum(np.floor(source), length - 1).astype(np.int64)
        high = np.minimum(low + 1, length - 1)
        frac = _creation.tensor((source - low).reshape(size, *(1,) * (n - 1 - i)), dtype=out.dtype).to(out.backend)
        to = lambda a: _creation.tensor(a).to(out.backend)  # noqa: E731
        out = out.index_select(dim, to(low)) * (1 - frac) + out.index_select(dim, to(high)) * frac
    return out


def _align_corners(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, *spatial, n) of the affine maps ``theta`` (N, n, n + 1) over the [-1, 1] cube of an
    (N, C, *spatial) output, n = 2 or 3 (coordinates in x, y(, z) order, as grid_sample reads them)."""
    align_corners = _align_corners(align_corners)
    n = len(size) - 2
    if n not in (2, 3) or tuple(theta.shape[1:]) != (n, n + 1):
        raise ValueError(f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} for size {list(size)}. "
                         f"Got {list(theta.shape)}.")
    spatial = list(size[2:])

    def axis(length):
        steps = _creation.linspace(-1.0, 1.0, length, dtype=theta.dtype) if length > 1 else _creation.zeros(1, dtype=theta.dtype)
        return (steps if align_corners else steps * (length - 1) / length).to(theta.backend)
    coordinates = []  # x along the last spatial dim, y the one before (, z the first), each broadcast over all
    for i in reversed(range(n)):
        shape = [1] * n
        shape[i] = spatial[i]
        coordinates.append(axis(spatial[i]).reshape(shape).expand(spatial))
    ones = _creation.ones(spatial, dtype=theta.dtype).to(theta.backend)
    base = _fn("stack")(coordinates + [ones], -1)  # (*spatial, n + 1)
    return base.reshape(1, -1, n + 1).matmul(theta.transpose(1, 2)).reshape(size[0], *spatial, n)


def _reflected(x, low, high):
    """Coordinates reflected into [low, high] (PyTorch's reflect_coordinates, in units of the doubled bounds)."""
    if low == high:
        return x * 0
    span = high - low
    x = (x - low).abs()
    flips = (x / span).floor()
    extra = x - flips * span
    return (extra + low).where(flips % 2 == 0, span - extra + low)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Values of (N, C, H, W) input at the (N, H', W', 2) grid's points, (x, y) in [-1, 1]: ``bilinear`` blends the
    four neighbours (the gradient reaches the grid through the weights), ``nearest`` picks one; outside the input
    ``zeros`` reads 0, ``border`` the edge, ``reflection`` the mirrored point."""
    align_corners = _align_corners(align_corners)
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"xtensor's grid_sample has no mode {mode!r} (bilinear and nearest)")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sample(): expected a 4D input and a 4D grid (N, H, W, 2) of the same batch size, "
                           f"but got input of shape {list(input.shape)} and grid of shape {list(grid.shape)}")
    n, c, height, width = input.shape
    points = []
    for coordinate, size in ((grid[..., 0], width), (grid[..., 1], height)):
        x = (coordinate + 1) / 2 * (size - 1) if align_corners else ((coordinate + 1) * size - 1) / 2
        if padding_mode == "reflection":
            x = _reflected(x, 0, size - 1) if align_corners else _reflected(x, -0.5, size - 0.5)
        if padding_mode != "zeros":
            x = x.clamp(0, size - 1)
        points.append(x)
    flat = input.reshape(n, c, height * width)

    def read(ix, iy):
        """input at integer points (zeros outside), as (N, C, H', W')."""
        inside = (ix >= 0) & (ix <= width - 1) & (iy >= 0) & (iy <= height - 1)
        index = (iy.clamp(0, height - 1) * width + ix.clamp(0, width - 1)).long().reshape(n, 1, -1)
        values = flat.gather(2, index.expand(n, c, index.shape[-1])).reshape(n, c, *ix.shape[1:])
        return values.where(inside.unsqueeze(1), values.new_zeros(()))
    x, y = points
    if mode == "nearest":
        return read(x.round(), y.round())
    x0, y0 = x.floor(), y.floor()
    wx, wy = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    return (read(x0, y0) * (1 - wx) * (1 - wy) + read(x0 + 1, y0) * wx * (1 - wy) + read(x0, y0 + 1) * (1 - wx) * wy
            + read(x0 + 1, y0 + 1) * wx * wy)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
