"""Linear algebra: matmul and mm."""
from .._table import defop


# ------------------------------------------------------------------ linear algebra
def _matmul_sig(input, other):
    if not hasattr(other, "_dtype") or not hasattr(input, "_dtype"):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(other).__name__}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{input.dtype.name} != {other.dtype.name}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D and "
                           f"{other.ndim}D")
    k1 = input.shape[-1]
    k2 = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if k1 != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_shape_str(input)} and {_shape_str(other)})")
    return (input, other), ()


def _shape_str(t):
    return "x".join(str(n) for n in (t.shape if t.ndim > 1 else (1, *t.shape)))


def _mm_sig(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    return _matmul_sig(input, mat2)


# PyTorch's matmul dispatches on the ranks (batched products end in a reshape: UnsafeViewBackward0)
_MATMUL_NODES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0", (1, 2): "SqueezeBackward4"}


def _matmul_vjp_x(g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * y
    g2 = g.unsqueeze(-1) if y.ndim == 1 else g
    g2 = g2.unsqueeze(-2) if x.ndim == 1 else g2
    gx = g2 @ (y.unsqueeze(-1) if y.ndim == 1 else y).mT
    return gx.squeeze(-2) if x.ndim == 1 else gx


def _matmul_vjp_y(g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * x
    g2 = g.unsqueeze(-1) if y.ndim == 1 else g
    g2 = g2.unsqueeze(-2) if x.ndim == 1 else g2
    gy = (x.unsqueeze(-2) if x.ndim == 1 else x).mT @ g2
    return gy.squeeze(-1) if y.ndim == 1 else gy


defop("matmul", lambda xp, x, y: xp.matmul(x, y), (_matmul_vjp_x, _matmul_vjp_y), sig=_matmul_sig, api=True,
      out=True, operators=("__matmul__", "__rmatmul__"), names=lambda x, y: _MATMUL_NODES.get(
          (x.ndim, y.ndim), "UnsafeViewBackward0"))
defop("mm", lambda xp, x, y: xp.matmul(x, y), (_matmul_vjp_x, _matmul_vjp_y), sig=_mm_sig, out=True)
