"""Shape ops: views (view, permute, transpose, t, expand, squeeze, unsqueeze) and joining (cat, stack)."""
import math

import numpy as np

from .. import _dtypes
from .._dispatch import Dims, Dims2, overload_name
from .._table import TABLE, defop, dims_of


# ------------------------------------------------------------------ views
def _view_shape(shape, numel):
    """Resolve one ``-1`` in a requested shape, with PyTorch's errors."""
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def view_strides(old_shape, old_stride, new_shape):
    """Strides viewing ``old`` as ``new_shape`` without a copy, or None (PyTorch's computeStride)."""
    if not old_shape:
        return tuple(1 for _ in new_shape)
    numel = math.prod(old_shape)
    if numel == 0:
        return tuple(reversed(list(np.cumprod([1] + [max(s, 1) for s in reversed(new_shape[1:])])))) \
            if new_shape else ()
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _view_sig(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], _dtypes.DType):
        raise NotImplementedError("view(dtype) is not supported")
    shape = _view_shape(shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape, input.numel())
    s, st, _ = input._meta()
    if view_strides(s, st, shape) is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return (input,), (shape,)


def _view_meta(shape, stride, offset, new_shape):
    return new_shape, view_strides(shape, stride, new_shape), offset


def _reshape_vjp(g, ans, x, shape):
    return g.reshape(x.shape)


defop("view", lambda xp, x, shape: xp.reshape(x, shape), (_reshape_vjp,), sig=_view_sig, view=_view_meta,
      saves=())
defop("_reshape_copy", lambda xp, x, shape: xp.reshape(xp.asarray(x, copy=True), shape), (_reshape_vjp,),
      node="UnsafeViewBackward0", saves=(), function=False, method=False)


def _permute_sig(input, *dims):
    dims = dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims
    n = input.ndim
    norm = tuple(dims_of(d, n)[0] for d in dims) if n else tuple(dims)
    if sorted(norm) != list(range(n)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}" if len(norm) != n else
                           "permute(): duplicate dims are not allowed.")
    return (input,), (norm,)


def _permute_meta(shape, stride, offset, dims):
    return tuple(shape[d] for d in dims), tuple(stride[d] for d in dims), offset


defop("permute", lambda xp, x, dims: xp.permute_dims(x, dims),
      (lambda g, ans, x, dims: g.permute(tuple(int(i) for i in np.argsort(dims))),),
      sig=_permute_sig, view=_permute_meta, api="permute_dims", saves=(),
      api_sig=lambda x, /, axes: _permute_sig(x, tuple(axes)))


def _transpose_dims(ndim, d0, d1):
    if ndim == 0:
        return ()
    dims = list(range(ndim))
    a, b = dims_of(d0, ndim)[0], dims_of(d1, ndim)[0]
    dims[a], dims[b] = dims[b], dims[a]
    return tuple(dims)


defop("transpose", lambda xp, x, dims: xp.permute_dims(x, dims) if dims else x,
      (lambda g, ans, x, dims: g.permute(tuple(int(i) for i in np.argsort(dims))) if dims else g,),
      sig=lambda input, dim0, dim1: ((input,), (_transpose_dims(input.ndim, dim0, dim1),)),
      view=lambda shape, stride, offset, dims: _permute_meta(shape, stride, offset, dims) if dims
      else (shape, stride, offset), saves=())


def _t_sig(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return (input,), ((1, 0) if input.ndim == 2 else (),)


defop("t", TABLE["transpose"].op.fwd, TABLE["transpose"].op.vjps, sig=_t_sig, view=TABLE["transpose"].op.view,
      saves=(), inplace=False)


def _expand_sig(input, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
    shape = tuple(input.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({input.type()}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = []
    for i, s in enumerate(sizes):
        cur = shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            s = cur
        elif cur is not None and cur != 1 and cur != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(shape)}")
        out.append(int(s))
    return (input,), (tuple(out),)


def _expand_meta(shape, stride, offset, sizes):
    lead = len(sizes) - len(shape)
    new_stride = tuple(0 if i < lead or (shape[i - lead] == 1 and s != 1) else stride[i - lead]
                       for i, s in enumerate(sizes))
    return sizes, new_stride, offset


defop("expand", lambda xp, x, sizes: xp.broadcast_to(x, sizes), (lambda g, ans, x, sizes: g,), sig=_expand_sig,
      view=_expand_meta, saves=())


def _squeeze_sig(input, dim=None):
    shape = input.shape
    dims = tuple(d for d in dims_of(dim, input.ndim) if shape[d] == 1)
    # PyTorch's overloads squeeze(), squeeze(int), squeeze(dims) name SqueezeBackward0/1/2
    return (input,), (dims if dim is None else Dims(dims) if isinstance(dim, int) else Dims2(dims),)


def _squeeze_meta(shape, stride, offset, dims):
    keep = [i for i in range(len(shape)) if i not in dims]
    return tuple(shape[i] for i in keep), tuple(stride[i] for i in keep), offset


defop("squeeze", lambda xp, x, dims: xp.squeeze(x, axis=dims) if dims else x,
      (lambda g, ans, x, dims: g.reshape(x.shape),), sig=_squeeze_sig, view=_squeeze_meta, saves=(),
      names=overload_name("SqueezeBackward"), api=True, api_sig=lambda x, /, axis: ((x,), (dims_of(axis, x.ndim),)))


def _unsqueeze_sig(input, dim):
    n = input.ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return (input,), (dim % n,)


def _unsqueeze_meta(shape, stride, offset, dim):
    new_stride = stride[dim] * shape[dim] if dim < len(shape) else 1
    return shape[:dim] + (1,) + shape[dim:], stride[:dim] + (new_stride,) + stride[dim:], offset


defop("unsqueeze", lambda xp, x, dim: xp.expand_dims(x, axis=dim), (lambda g, ans, x, dim: g.squeeze(dim),),
      sig=_unsqueeze_sig, view=_unsqueeze_meta, saves=(), api="expand_dims",
      api_sig=lambda x, /, axis=0: _unsqueeze_sig(x, axis))


# ------------------------------------------------------------------ joining
def _cat_sig(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in tensors if t.ndim), tensors[0])
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = dims_of(dim, ref.ndim)[0]
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0:
            continue
        if t.ndim != ref.ndim or any(a != b for k, (a, b) in enumerate(zip(t.shape, ref.shape)) if k != d):
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                               f"{_mismatch(ref, t, d)} but got size {_mismatch(t, ref, d)} for tensor number "
                               f"{i} in the list.")
    return tensors, (d,)


def _mismatch(a, b, d):
    for k, (x, y) in enumerate(zip(a.shape, b.shape)):
        if k != d and x != y:
            return x
    return a.ndim


def _cat_vjp(g, ans, *args):
    *tensors, d = args
    grads, start = [], 0
    for t in tensors:
        n = t.shape[d] if t.ndim else 0
        grads.append(g.narrow(d, start, n) if t.ndim == g.ndim else g.new_zeros(t.shape))
        start += n
    return grads


def _stack_sig(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
    n = tensors[0].ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return tensors, (dim % n,)


defop("cat", lambda xp, *args: xp.concat(args[:-1], axis=args[-1]), vjp_all=_cat_vjp, sig=_cat_sig,
      method=False, api="concat", out=True,
      api_sig=lambda arrays, /, *, axis=0: _cat_sig(arrays, axis) if axis is not None else
      _cat_sig([a.reshape(-1) for a in arrays], 0))
defop("stack", lambda xp, *args: xp.stack(args[:-1], axis=args[-1]),
      vjp_all=lambda g, ans, *args: [g.select(args[-1], i) for i in range(len(args) - 1)],
      sig=_stack_sig, method=False, api=True, out=True,
      api_sig=lambda arrays, /, *, axis=0: _stack_sig(arrays, axis))
