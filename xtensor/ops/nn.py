"""Neural-network ops that need an entry of their own: ``softmax``, ``log_softmax``, ``nll_loss``, and
``convolution`` on backends with a native kernel (see its section).

The softmaxes are primitives rather than composites for stability and speed: the forward shifts by the
maximum along ``dim`` (no overflow at extreme logits), and the VJPs are one line each, reusing the
output (``softmax``: ``y * (g - sum(g * y))``; ``log_softmax``: ``g - exp(y) * sum(g)``). ``nll_loss`` is one
for speed: PyTorch's ``cross_entropy`` is ``nll_loss(log_softmax(x))`` and both are single kernels there; as a
composite (gather, masks, weights, two sums) it cost a dozen recorded ops. Everything else
``xtensor.nn.functional`` offers is a composite of existing ops (see that module).
"""
import math

import numpy as np

from .._dispatch import Op, _native, _unify, apply
from .._ns import raw_ns
from .._table import defop, dims_of, to_float


def _along(ns, t, dim):
    """``t`` summed over ``dim`` keeping it (a 0-d tensor has nothing to sum over)."""
    return t if dim is None else ns.sum(t, (dim,), True)


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
    if type(x) is np.ndarray and dim is not None:  # numpy: the ufunc's reduce, -inf maxima zeroed in place (~3 us less)
        top = _row_maxima(x) if x.ndim == 2 and dim == 1 and x.shape[1] <= 128 else \
            np.maximum.reduce(x, dim, keepdims=True)
        top[top == -math.inf] = 0
        return x - top
    top = xp.max(x, axis=dim, keepdims=True)
    return x - xp.where(top == -math.inf, xp.zeros_like(top), top)


def _row_maxima(x):
    """Each row's maximum of a matrix of at most 128 columns, as a column: reduced down the columns of its transposed
    copy, where numpy's reduction runs along rows of the batch's length (320x50: ~10 us against ~16 along each short
    row; the same values: a maximum does not depend on the order)."""
    return np.maximum.reduce(np.ascontiguousarray(x.T), 0)[:, None]


def _own_numpy(z, x, dim):
    """Whether ``z``, the shifted ``x``, is a fresh numpy array to finish a softmax in (in place: no temporaries)."""
    return type(z) is np.ndarray and z is not x and dim is not None


def _softmax_fwd(xp, x, dim):
    z = _shifted(xp, x, dim)
    if _own_numpy(z, x, dim):
        np.exp(z, out=z)
        return np.divide(z, np.add.reduce(z, dim, keepdims=True), out=z)
    e = xp.exp(z)
    return e / xp.sum(e, axis=dim, keepdims=True)


def _log_softmax_fwd(xp, x, dim):
    z = _shifted(xp, x, dim)
    if _own_numpy(z, x, dim):
        total = np.add.reduce(np.exp(z), dim, keepdims=True)
        return np.subtract(z, np.log(total, out=total), out=z)
    return z - xp.log(xp.sum(xp.exp(z), axis=dim, keepdims=True))


def _numpy_pair(g, ans, dim):
    """Whether a softmax's VJP can run in one fresh numpy array, written in place: the same operations in the same
    order as the expression (the same bits) without its temporaries -- each a pass over memory, and above ~32 MB
    (a 33K-word vocabulary's log-probabilities) an allocation glibc maps fresh and faults in page by page."""
    return type(g) is np.ndarray and type(ans) is np.ndarray and dim is not None and g.dtype == ans.dtype and \
        ans.dtype.kind == "f" and g.shape == ans.shape


def _softmax_vjp(ns, g, ans, x, dim):
    if _numpy_pair(g, ans, dim):
        t = np.multiply(g, ans)
        np.subtract(g, _along(ns, t, dim), out=t)
        return np.multiply(ans, t, out=t)
    return ans * (g - _along(ns, g * ans, dim))


def _log_softmax_vjp(ns, g, ans, x, dim):
    if _numpy_pair(g, ans, dim):
        e = np.exp(ans)
        np.multiply(e, _along(ns, g, dim), out=e)
        return np.subtract(g, e, out=e)
    return g - ns.exp(ans) * _along(ns, g, dim)


defop("softmax", _softmax_fwd, (_softmax_vjp,), sig=_softmax_sig("softmax"), cast=to_float, saves=(1, "result"))
defop("log_softmax", _log_softmax_fwd, (_log_softmax_vjp,), sig=_softmax_sig("log_softmax"), cast=to_float,
      saves=(1, "result"))


# ------------------------------------------------------------------ nll_loss
# ``x`` (N, C, *d) or (C,) log-probabilities, ``target`` int64 (N, *d) or (): the class per sample, ``weight`` (C,)
# or None. The loss per sample is -x[class] * weight[class], 0 where the class is ``ignore_index``; ``mean`` divides
# the sum by the kept samples' total weight (PyTorch's ``total_weight``). The functional checks shapes and classes.
def _classes(ns, target, ignore_index):
    """Whether each sample counts, and its class with ignored samples' at 0 (a class that always exists). On numpy,
    where asking is cheaper than masking, ``(None, target)`` when every sample counts."""
    kept = target != ignore_index
    if type(kept) is np.ndarray and kept.all():
        return None, target
    return kept, ns.cast_like(kept, target) * target


def _sample_weights(ns, x, kept, safe, weight):
    """Each sample's class weight (1 without ``weight``), 0 where it does not count; None where every one is 1."""
    if kept is None:
        return None if weight is None else ns.take(weight, safe)
    return ns.cast_like(kept, x) if weight is None else ns.where_zero(kept, ns.take(weight, safe))


def _nll_loss_fwd(xp, x, target, weight, ignore_index, reduction, backend):
    ns, axis = raw_ns(backend), min(x.ndim - 1, 1)
    kept, safe = _classes(ns, _native(target, backend, None), ignore_index)
    w = _sample_weights(ns, x, kept, safe, _native(weight, backend, None))
    loss = -ns.pick(x, safe, axis)
    if w is not None:
        loss = ns.where_zero(kept, loss * w) if kept is not None else loss * w
    if reduction == "none":
        return loss
    total = xp.sum(loss)
    return total if reduction == "sum" else total / (xp.sum(w) if w is not None else x.dtype.type(safe.size))


def _nll_scale(ns, g, x, kept, safe, weight, reduction):
    """What the loss's gradient ``g`` puts at each sample's class: ``-g * weight[class]`` (divided by the total weight
    for ``mean``), 0 where the sample is ignored."""
    w = _sample_weights(ns, x, kept, safe, weight)
    if w is None:  # (numpy, every weight 1: one scale for every sample, or ``-g`` itself)
        return -g if reduction != "mean" else -g / x.dtype.type(safe.size)
    scale = -g * w if reduction != "mean" else (-g / ns.sum(w, range(w.ndim))) * w
    return scale if kept is None else ns.where_zero(kept, scale)


def _nll_loss_vjp(ns, g, ans, x, target, weight, ignore_index, reduction, backend):
    """The scale at each counted sample's class, 0 elsewhere (also where every sample is ignored: the loss is 0/0
    then, its gradient 0, as PyTorch's)."""
    (kept, safe), axis = _classes(ns, target, ignore_index), min(x.ndim - 1, 1)
    scale = _nll_scale(ns, g, x, kept, safe, weight, reduction)
    return ns.add_picked(ns.zeros(x.shape, scale), safe, scale, axis)


NLL_LOSS = defop("nll_loss", _nll_loss_fwd, (_nll_loss_vjp,), method=False, function=False,
                 names=lambda x, *params: "NllLoss2DBackward0" if x.ndim > 2 else "NllLossBackward0",
                 saves=(0, 1, 2, 3, 4))


# ------------------------------------------------------------------ cross_entropy over class indices, one node
# ``log_softmax`` over the class dim and ``nll_loss`` of its result as one op (PyTorch records the two nodes; here the
# node is PyTorch's outer one, ``NllLossBackward0``, and ``next_functions`` leads straight to the logits' node): one
# dispatch and one node less, and the backward is the two VJPs' composition without the one-hot gradient between
# them -- ``scale * (onehot - softmax)``, computed as ``-(softmax * scale)`` plus ``scale`` at each sample's class,
# the same floating-point operations as the two nodes' (their row sum of the one-hot gradient is ``scale`` exactly).
# The log-probabilities are the op's second output, its workspace: the VJP reads them, and under ``create_graph`` a
# gradient's formula that read them sends its own gradient back through them.
def _cross_entropy_fwd(xp, x, target, weight, ignore_index, reduction, backend):
    logp = _log_softmax_fwd(xp, x, min(x.ndim - 1, 1))
    return _nll_loss_fwd(xp, logp, target, weight, ignore_index, reduction, backend), logp


def _cross_entropy_vjp(ns, grads, ans, x, target, weight, ignore_index, reduction, backend):
    (g, g_logp), logp = grads, ans[1]
    axis = min(logp.ndim - 1, 1)
    softmax = ns.exp(logp)
    if g is None:  # only the log-probabilities' gradient (the second order): log_softmax's VJP
        return g_logp - softmax * _along(ns, g_logp, axis)
    kept, safe = _classes(ns, target, ignore_index)
    scale = _nll_scale(ns, g, logp, kept, safe, weight, reduction)
    if g_logp is None and type(softmax) is np.ndarray and scale.dtype == softmax.dtype:  # numpy: in place, same bits
        rest = np.multiply(softmax, -ns.unsqueeze(scale, axis), out=softmax)
    elif g_logp is None:
        rest = -(softmax * ns.unsqueeze(scale, axis))
    else:
        rest = g_logp - softmax * ns.unsqueeze(scale + ns.sum(g_logp, (axis,)), axis)
    return ns.add_picked(rest, safe, scale, axis)


CROSS_ENTROPY = Op("cross_entropy_loss", _cross_entropy_fwd, (_cross_entropy_vjp,), nout=2,
                   saves=(1, 2, 3, 4, "result1"),
                   names=lambda x, *params: "NllLoss2DBackward0" if x.ndim > 2 else "NllLossBackward0")


# ------------------------------------------------------------------ convolution with a native kernel
# ``xtensor.nn.functional`` convolves with standard ops (windows + einsum) on any backend; an adapter whose library
# has a convolution kernel offers it as ``native_conv`` (jax: ``lax.conv_general_dilated``), and then conv1d/conv2d
# run this entry instead. Its arguments are lax's: ``pads`` a (low, high) pair per spatial dim (negative crops),
# ``lhs_dilation`` the spacing of the input's elements (1: a plain convolution; the input-gradient needs more) and
# ``dilation`` the kernel's. The gradients are convolutions again (jax's transpose rules, written with xtensor ops,
# so they run on the same native kernel and are differentiable to any order): the input's is the gradient convolved
# with the flipped, group-transposed kernel, input and stride swapping roles with lhs_dilation; the weight's is the
# input convolved with the gradient, batch and channels exchanged so that each group meets its own outputs.
def _conv_fwd(xp, x, w, b, stride, pads, lhs_dilation, dilation, groups, backend):
    out = backend.native_conv(x, w, stride, pads, lhs_dilation, dilation, groups)
    return out if b is None else out + xp.reshape(b, (1, -1) + (1,) * (x.ndim - 2))


def _conv_input_grad(ns, g, ans, x, w, b, stride, pads, lhs_dilation, dilation, groups, backend):
    out_channels, group_in, *kernel = w.shape
    spatial = tuple(range(2, w.ndim))
    per_group = ns.reshape(w, (groups, out_channels // groups, group_in, *kernel))
    flipped = ns.flip(ns.reshape(ns.permute(per_group, (0, 2, 1, *range(3, w.ndim + 1))),
                                 (groups * group_in, out_channels // groups, *kernel)), spatial)
    pads = tuple((d * (k - 1) - lo, (size - 1) * a + lo - (out - 1) * s) for k, d, (lo, _), size, a, out, s in
                 zip(kernel, dilation, pads, x.shape[2:], lhs_dilation, g.shape[2:], stride))
    return ns.apply("convolution", (g, flipped), (None, lhs_dilation, pads, stride, dilation, groups, backend))


def _conv_weight_grad(ns, g, ans, x, w, b, stride, pads, lhs_dilation, dilation, groups, backend):
    (batch, channels), out_channels, kernel = x.shape[:2], w.shape[0], w.shape[2:]
    spatial = tuple(range(3, x.ndim + 1))
    inputs = ns.reshape(ns.permute(ns.reshape(x, (batch, groups, channels // groups, *x.shape[2:])), (2, 1, 0, *spatial)),
                        (channels // groups, groups * batch, *x.shape[2:]))
    grads = ns.reshape(ns.permute(ns.reshape(g, (batch, groups, out_channels // groups, *g.shape[2:])),
                                  (1, 2, 0, *spatial)), (out_channels, batch, *g.shape[2:]))
    pads = tuple((lo, (out - 1) * s - (size - 1) * a + d * (k - 1) - lo) for k, d, (lo, _), size, a, out, s in
                 zip(kernel, dilation, pads, x.shape[2:], lhs_dilation, g.shape[2:], stride))
    gw = ns.apply("convolution", (inputs, grads), (None, dilation, pads, lhs_dilation, stride, groups, backend))
    return ns.permute(gw, (1, 0, *range(2, gw.ndim)))


_CONVOLUTION = defop("convolution", _conv_fwd, (
    _conv_input_grad, _conv_weight_grad, lambda ns, g, ans, x, w, b, *geometry: ns.sum(g, (0, *range(2, g.ndim)))),
    method=False, function=False, node="ConvolutionBackward0", saves=((0, 1, 3, 4, 5, 6, 7), (0, 1, 3, 4, 5, 6, 7), ()))


def convolution(input, weight, bias, stride, pads, lhs_dilation, dilation, groups):
    """The adapter's native convolution of batched ``input`` (N, C, *spatial) with ``weight`` (O, C / groups,
    *kernel), plus ``bias`` (O,) unless None; the geometry as in ``_conv_fwd``, checked by the caller."""
    tensors = (input, weight) if bias is None else (input, weight, bias)
    geometry = (tuple(stride), tuple(pads), tuple(lhs_dilation), tuple(dilation), groups, _unify(tensors))
    return apply(_CONVOLUTION, tensors, ((None,) if bias is None else ()) + geometry)
