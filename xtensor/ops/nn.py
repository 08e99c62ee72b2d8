"""Neural-network ops that need an entry of their own: ``softmax`` and ``log_softmax``.

Both are primitives rather than composites for stability and speed: the forward shifts by the
maximum along ``dim`` (no overflow at extreme logits), and the VJPs are one line each, reusing the
output (``softmax``: ``y * (g - sum(g * y))``; ``log_softmax``: ``g - exp(y) * sum(g)``). Everything
else ``xtensor.nn.functional`` offers is a composite of existing ops (see that module).
"""
import math

from .._table import defop, dims_of, to_float


def _along(t, dim):
    """``t`` summed over ``dim`` keeping it (a 0-d tensor has nothing to sum over)."""
    return t if dim is None else t.sum(dim, keepdim=True)


def _softmax_sig(name):
    def sig(input, dim, dtype=None):
        if dtype is not None:
            input = input.to(dtype)
        dims = dims_of(dim, input.ndim)  # PyTorch checks the dim before the dtype
        if input.dtype.kind not in "fc":
            kernel = "softmax" if name == "softmax" else "log_softmax"
            raise NotImplementedError(f'"{kernel}_lastdim_kernel_impl" not implemented for '
                                      f"'{input.dtype.scalar_name}'")
        return (input,), (dims[0] if input.ndim else None,)
    return sig


def _shifted(xp, x, dim):
    """``x`` less its maximum along ``dim``; a row of -inf is not shifted (its softmax is 0/0, NaN, as PyTorch's),
    a +inf maximum is (inf - inf: NaN for the whole row, as PyTorch's); an empty tensor stays as it is."""
    if not math.prod(x.shape):
        return x
    top = xp.max(x, axis=dim, keepdims=True)
    return x - xp.where(top == -math.inf, xp.zeros_like(top), top)


def _softmax_fwd(xp, x, dim):
    e = xp.exp(_shifted(xp, x, dim))
    return e / xp.sum(e, axis=dim, keepdims=True)


def _log_softmax_fwd(xp, x, dim):
    z = _shifted(xp, x, dim)
    return z - xp.log(xp.sum(xp.exp(z), axis=dim, keepdims=True))


defop("softmax", _softmax_fwd, (lambda g, ans, x, dim: ans * (g - _along(g * ans, dim)),),
      sig=_softmax_sig("softmax"), cast=to_float)
defop("log_softmax", _log_softmax_fwd, (lambda g, ans, x, dim: g - ans.exp() * _along(g, dim),),
      sig=_softmax_sig("log_softmax"), cast=to_float)
