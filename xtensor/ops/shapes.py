"""Shape ops: views (view, permute, transpose, t, expand, squeeze, unsqueeze, diagonal, unfold, as_strided,
and views written with them: movedim, split, chunk, unbind, unflatten...), joining (cat, stack, hstack...)
and copies that rearrange elements (flip, roll, repeat, tile, repeat_interleave)."""
import itertools
import math

import numpy as np

from .. import _dtypes
from .._dispatch import (BroadcastError, Dims, Dims2, InputMeta, Op, apply, history_alias, make_view, node_class,
                         edge_of, overload_name)
from .._inplace import check_inplace
from .._modes import grad_state as _grad_state
from .._ns import raw_ns
from .._table import TABLE, defcomposite, defop, dims_of, renamed
from .._tensor import Size, Tensor, ViewMeta, basic_meta, check_dim, contiguous_strides, elements_at
from ._composite import _fn
from .indexing import _getitem_vjp, gather_positions, positions_of


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
        return contiguous_strides(tuple(new_shape))  # (Python ints, as PyTorch's stride())
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


def _reshape_vjp(ns, g, ans, x, shape):
    return ns.reshape(g, x.shape)


defop("view", lambda xp, x, shape: xp.reshape(x, shape), (_reshape_vjp,), sig=_view_sig, view=_view_meta,
      saves=("meta0",))
defop("_reshape_copy", lambda xp, x, shape: xp.reshape(x, shape, copy=True), (_reshape_vjp,),  # (contiguous, as PyTorch's)
      node="UnsafeViewBackward0", saves=("meta0",), function=False, method=False)


def _permute_sig(input, *dims):
    dims = dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims
    n = input.ndim
    if len(dims) != n:  # checked before the dims themselves, as PyTorch does
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}")
    norm = tuple(dims_of(d, n)[0] for d in dims) if n else tuple(dims)
    if sorted(norm) != list(range(n)):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return (input,), (norm,)


def _permute_meta(shape, stride, offset, dims):
    return tuple(shape[d] for d in dims), tuple(stride[d] for d in dims), offset


defop("permute", lambda xp, x, dims: xp.permute_dims(x, dims),
      (lambda ns, g, ans, x, dims: ns.permute(g, tuple(int(i) for i in np.argsort(dims))),),
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
      (lambda ns, g, ans, x, dims: ns.permute(g, dims) if dims else g,),  # a swap of two dims undoes itself
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
    """PyTorch's inferExpandGeometry: an expanded dim has stride 0; a new leading dim of size 1 the stride of the
    dim after it times its size (as a contiguous tensor would: ``x.expand(1, n)`` is ``x[None]``)."""
    lead = len(sizes) - len(shape)
    new_stride = [0] * len(sizes)
    for i in reversed(range(len(sizes))):
        if i >= lead and not (shape[i - lead] == 1 and sizes[i] != 1):
            new_stride[i] = stride[i - lead]
        elif i < lead and sizes[i] == 1:
            new_stride[i] = sizes[i + 1] * new_stride[i + 1] if i + 1 < len(sizes) else 0
    return sizes, tuple(new_stride), offset


defop("expand", lambda xp, x, sizes: xp.broadcast_to(x, sizes), (lambda ns, g, ans, x, sizes: g,), sig=_expand_sig,
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
      (lambda ns, g, ans, x, dims: ns.reshape(g, x.shape),), sig=_squeeze_sig, view=_squeeze_meta, saves=("meta0",),
      names=overload_name("SqueezeBackward"), api=True, api_sig=lambda x, /, axis: ((x,), (dims_of(axis, x.ndim),)))


def _unsqueeze_sig(input, dim):
    return (input,), ((check_dim(dim, input.ndim + 1),),)


def _expand_dims_sig(x, /, axis=0):
    """The standard's ``expand_dims``: one axis or (since 2025.12) a tuple, each counted in the result's dims."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = x.ndim + len(axes)
    for a in axes:
        if not -n <= a < n:
            raise IndexError(f"axis {a} is out of bounds for a result of {n} dimensions")
    dims = tuple(sorted(a % n for a in axes))
    if len(set(dims)) != len(dims):
        raise ValueError(f"expand_dims: repeated axes {axes}")
    return (x,), (dims,)


def _unsqueeze_fwd(xp, x, dims):
    for d in dims:
        x = xp.expand_dims(x, axis=d)
    return x


def _unsqueeze_meta(shape, stride, offset, dims):
    for dim in dims:  # ascending: each dim counts the ones inserted before it
        new_stride = stride[dim] * shape[dim] if dim < len(shape) else 1
        shape, stride = shape[:dim] + (1,) + shape[dim:], stride[:dim] + (new_stride,) + stride[dim:]
    return shape, stride, offset


defop("unsqueeze", _unsqueeze_fwd, (lambda ns, g, ans, x, dims: ns.reshape(g, x.shape),),
      sig=_unsqueeze_sig, view=_unsqueeze_meta, saves=("meta0",), api="expand_dims", api_sig=_expand_dims_sig)


# ------------------------------------------------------------------ joining
def _cat_sig(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
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


def _cat_vjp(ns, g, ans, *args):
    *tensors, d = args
    grads, start = [], 0
    for t in tensors:
        n = t.shape[d] if t.ndim else 0
        grads.append(ns.narrow(g, d, start, n) if t.ndim == g.ndim else ns.zeros(t.shape, g))
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
    return tensors, (check_dim(dim, tensors[0].ndim + 1),)


defop("cat", lambda xp, *args: xp.concat(args[:-1], axis=args[-1]), vjp_all=_cat_vjp, sig=_cat_sig,
      method=False, api="concat", out=True, saves=("meta*",), aliases=("concat", "concatenate"),
      api_sig=lambda arrays, /, *, axis=0: _cat_sig(arrays, axis) if axis is not None else
      _cat_sig([a.reshape(-1) for a in arrays], 0))
defop("stack", lambda xp, *args: xp.stack(args[:-1], axis=args[-1]),
      vjp_all=lambda ns, g, ans, *args: [ns.select(g, args[-1], i) for i in range(len(args) - 1)],
      sig=_stack_sig, method=False, api=True, out=True,
      api_sig=lambda arrays, /, *, axis=0: _stack_sig(arrays, axis), saves=("meta*",))  # reads the count and axis


# ------------------------------------------------------------------ strided views beyond slicing
# diagonal, unfold and as_strided select elements by strides no basic index expresses. On numpy the
# forward is numpy's own view; on other backends it gathers the view's elements at host positions
# computed from the metadata rule over the input's own (contiguous) layout, so it stays jit-traceable.
# The gradient scatters back through those positions (adding where a view repeats an element).
def _gather_by_rule(xp, x, rule, *params):
    shape, stride, offset = rule(tuple(x.shape), contiguous_strides(tuple(x.shape)), 0, *params)
    return gather_positions(xp, x, ViewMeta.of(shape, stride, offset).positions())


def _index_by_rule(shape, rule, *params):
    """The view ``rule(..., *params)`` of a tensor of ``shape``, as an advanced index into that tensor."""
    meta = ViewMeta.of(*rule(shape, contiguous_strides(shape), 0, *params))
    return tuple(np.asarray(i) for i in np.unravel_index(meta.positions(), shape)) if shape else ()


def _scatter_by_rule(ns, g, x, rule, *params):
    """The gradient of a strided view: ``g`` added back at the input positions the view reads."""
    return ns.index_add(tuple(x.shape), _index_by_rule(tuple(x.shape), rule, *params), g)


def _diagonal_meta(shape, stride, offset, diag_offset, dim1, dim2):
    n1, n2 = shape[dim1], shape[dim2]
    length = max(min(n1, n2 - diag_offset), 0) if diag_offset >= 0 else max(min(n1 + diag_offset, n2), 0)
    if length:
        offset += diag_offset * stride[dim2] if diag_offset >= 0 else -diag_offset * stride[dim1]
    keep = [i for i in range(len(shape)) if i not in (dim1, dim2)]
    return (tuple(shape[i] for i in keep) + (length,),
            tuple(stride[i] for i in keep) + (stride[dim1] + stride[dim2],), offset)


def _diagonal_sig(input, offset=0, dim1=0, dim2=1):
    d1, d2 = (dims_of(d, input.ndim)[0] for d in (dim1, dim2))
    if input.ndim < 2:
        raise RuntimeError(f"diagonal(): expected a tensor of at least 2 dimensions, got {input.ndim}")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return (input,), (int(offset), d1, d2)


def _diagonal_fwd(xp, x, offset, dim1, dim2):
    if isinstance(x, np.ndarray):
        return np.diagonal(x, offset, dim1, dim2)
    return _gather_by_rule(xp, x, _diagonal_meta, offset, dim1, dim2)


defop("diagonal", _diagonal_fwd,
      (lambda ns, g, ans, x, offset, dim1, dim2: _scatter_by_rule(ns, g, x, _diagonal_meta, offset, dim1, dim2),),
      sig=_diagonal_sig, view=_diagonal_meta, saves=("meta0",))


def _unfold_meta(shape, stride, offset, dim, size, step):
    if not shape:
        return (size,), (1,), offset
    n = (shape[dim] - size) // step + 1
    return (shape[:dim] + (n,) + shape[dim + 1:] + (size,),
            stride[:dim] + (stride[dim] * step,) + stride[dim + 1:] + (stride[dim],), offset)


def _unfold_sig(input, dimension, size, step):
    d = dims_of(dimension, input.ndim)[0] if input.ndim else 0
    extent = input.shape[d] if input.ndim else 1
    if size > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return (input,), (d, int(size), int(step))


def _unfold_fwd(xp, x, dim, size, step):
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return x.reshape(1)
        windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=dim)
        return windows[(slice(None),) * dim + (slice(None, None, step),)]
    return _gather_by_rule(xp, x, _unfold_meta, dim, size, step)


defop("unfold", _unfold_fwd,
      (lambda ns, g, ans, x, dim, size, step: _scatter_by_rule(ns, g, x, _unfold_meta, dim, size, step),),
      sig=_unfold_sig, view=_unfold_meta, saves=("meta0",), function=False)


def _as_strided_meta(shape, stride, offset, size, new_stride, storage_offset, index, root):
    return size, new_stride, storage_offset


def _as_strided_sig(input, size, stride, storage_offset=None):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} sizes")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: negative sizes or strides are not supported, got sizes {list(size)} and "
                           f"strides {list(stride)}")
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    storage_size = math.prod(input._storage.array.shape)
    needed = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1 if math.prod(size) else 0
    if needed > storage_size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {input.element_size()} requiring a storage size of "
                           f"{needed * input.element_size()} are out of bounds for storage of size "
                           f"{storage_size * input.element_size()}")
    # where each element of the view sits among the input's own elements (the gradient goes there)
    flat_index = elements_at(input, ViewMeta.of(size, stride, offset).positions())
    if flat_index is None:
        raise RuntimeError("as_strided: the requested view reads storage outside the elements of the input "
                           "tensor; xtensor supports as_strided within the input's elements only")
    index = np.unravel_index(flat_index, tuple(input.shape)) if input.ndim else ()
    root = input._storage.array if input._backend.mutable else None
    return (input,), (size, stride, offset, tuple(np.asarray(i) for i in index), root)


def _as_strided_fwd(xp, x, size, stride, offset, index, root):
    if isinstance(root, np.ndarray):
        flat = root.reshape(-1)[offset:]
        return np.lib.stride_tricks.as_strided(flat, size, [s * root.itemsize for s in stride])
    if not index:
        return xp.broadcast_to(x, size)
    return gather_positions(xp, x, positions_of(tuple(x.shape))[index])


defop("as_strided", _as_strided_fwd,  # (an empty view's gradient: fresh zeros, as PyTorch's as_strided_backward)
      (lambda ns, g, ans, x, size, stride, offset, index, root:
          ns.zeros(tuple(x.shape), g) if 0 in size else _getitem_vjp(ns, g, None, x, index, None),),
      sig=_as_strided_sig, view=_as_strided_meta, saves=("meta0",))


# ------------------------------------------------------------------ views written with other views
def movedim(input, source, destination):
    """``movedim``/``moveaxis``: a permute that moves ``source`` dims to ``destination``."""
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    n = input.ndim
    norm_src = [dims_of(d, n)[0] if n else dims_of(d, n) and 0 for d in src]
    norm_dst = [dims_of(d, n)[0] if n else dims_of(d, n) and 0 for d in dst]
    for name, dims, given in (("source", norm_src, src), ("destination", norm_dst, dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    if n == 0:
        return input.permute(())
    order = [None] * n
    for s, d in zip(norm_src, norm_dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in norm_src)
    return input.permute(tuple(o if o is not None else next(rest) for o in order))


defcomposite("movedim", movedim)
defcomposite("moveaxis", movedim, api=True, api_impl=lambda x, source, destination, /: movedim(x, source, destination))


def swapaxes(input, axis0, axis1):
    """``swapaxes``/``swapdims``: ``transpose`` under NumPy's name."""
    return input.transpose(axis0, axis1)


defcomposite("swapaxes", swapaxes)
defcomposite("swapdims", swapaxes)


def unflatten(input, dim, sizes):
    """Split one dim into ``sizes`` (one may be -1): always a view."""
    d = dims_of(dim, input.ndim)[0]
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d]
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                               f"({n}) in the input tensor")
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor")
    shape = tuple(input.shape)
    return input.view(shape[:d] + sizes + shape[d + 1:])


defcomposite("unflatten", unflatten)


def split(tensor, split_size_or_sections, dim=0):
    """Views of consecutive pieces along ``dim``: of ``split_size`` each (the last may be shorter) or of the
    given ``sections``."""
    d = dims_of(dim, tensor.ndim)[0]
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sections = [min(size, n - start) for start in range(0, n, size)] if n else [0]
        node = "SplitBackward0"
    else:
        sections = [int(s) for s in split_size_or_sections]
        if sum(sections) != n or any(s < 0 for s in sections):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={sections}")
        node = "SplitWithSizesBackward0"
    return _pieces(tensor, d, sections, node)


def chunk(input, chunks, dim=0):
    """``split`` into ``chunks`` pieces of ``ceil(size / chunks)`` (fewer when the size runs out)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = dims_of(dim, input.ndim)[0]
    n = input.shape[d]
    if n == 0:
        return _pieces(input, d, [0] * chunks, "SplitBackward0")
    return split(input, -(-n // chunks), d)


def unbind(input, dim=0):
    """The slices along ``dim``, each a view."""
    d = dims_of(dim, input.ndim)[0]
    lead = (slice(None),) * d
    return _views(input, [lead + (i, Ellipsis) for i in range(input.shape[d])], d, None, "UnbindBackward0")


def _pieces(input, d, sizes, node_name):
    """``split``'s views: consecutive pieces of ``sizes`` along dim ``d``."""
    lead, indices, start = (slice(None),) * d, [], 0
    for n in sizes:
        indices.append(lead + (slice(start, start + n), Ellipsis))
        start += n
    return _views(input, indices, d, tuple(sizes), node_name)


def _views(input, indices, dim, sizes, node_name):
    """``input[index]`` for each of the basic ``indices``, made as one op, as PyTorch's ``split``/``unbind``: under
    autograd one node called ``node_name`` with one output per view (its backward joins their gradients,
    ``_views_vjp``), and views that refuse in-place writes (PyTorch's rule for the outputs of a function that
    returns several views)."""
    value = input._arr if input._arr is not None else input._refresh()
    backend = input._backend
    views = []
    for i, index in enumerate(indices):
        meta = ViewMeta(input, basic_meta, (index,))
        if not backend.mutable:
            meta.resolve()  # immutable backends address storage through it at once
        view = make_view(input, value[index], meta)
        if view._creation is None:
            view._creation = ("multi", i)  # which output, for the error message (views of it say "multi" only)
        views.append(view)
    if _grad_state.enabled:
        if input._requires_grad and views:
            node = node_class(node_name)()
            node.op, node.n_outputs, node._edges = _VIEWS, len(views), (edge_of(input),)
            node._args, node._raw_ns = (InputMeta.of(input), dim, sizes), raw_ns(backend)
            node._out = node._saved_versions = None  # nothing saved: shapes only
            for i, view in enumerate(views):
                view._grad_fn, view._requires_grad = node, True  # also when input is a view made a leaf
                if i:
                    view._output_nr = i
    elif _grad_state.inference:
        for view in views:
            view._inference = True
    return tuple(views)


def _views_vjp(ns, grads, ans, x, dim, sizes):
    """The gradient of ``split`` (``sizes``: its pieces' lengths along ``dim``) or ``unbind`` (``sizes`` None): the
    views' gradients joined back along ``dim`` -- zeros for views that got none --, one concatenation (PyTorch's
    SplitBackward0/UnbindBackward0) rather than a scatter into zeros of the whole input per view."""
    like = next((g for g in grads if g is not None), None)
    if like is None:
        return None
    shape = tuple(x.shape)
    if sizes is None:
        return ns.apply("stack", [ns.zeros(shape[:dim] + shape[dim + 1:], like) if g is None else g for g in grads],
                        (dim,))
    parts = [ns.zeros(shape[:dim] + (n,) + shape[dim + 1:], like) if g is None else g for g, n in zip(grads, sizes)]
    return parts[0] if len(parts) == 1 else ns.apply("cat", parts, (dim,))


# the op of their nodes: its one VJP takes every output's gradient (``nout`` > 1; the node has one output per view)
_VIEWS = Op("split", None, (_views_vjp,), nout=2, saves=("meta0",))


defcomposite("split", split)
defcomposite("chunk", chunk)
defcomposite("unbind", unbind, api="unstack", api_impl=lambda x, /, *, axis=0: unbind(x, axis))


# ------------------------------------------------------------------ copies
def _owned(a):
    """``a`` in memory of its own: numpy hands back views (a flipped one has negative strides)."""
    return a.copy() if isinstance(a, np.ndarray) else a


def _flip_sig(input, *dims):
    dims = dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims
    return (input,), (dims_of(tuple(dims), input.ndim),)


defop("flip", lambda xp, x, dims: _owned(xp.flip(x, axis=dims)) if dims else xp.asarray(x, copy=True),
      (lambda ns, g, ans, x, dims: ns.flip(g, dims),), sig=_flip_sig, saves=(), api=True,
      api_sig=lambda x, /, *, axis=None: ((x,), (dims_of(axis, x.ndim),)))


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


defcomposite("fliplr", fliplr)
defcomposite("flipud", flipud)


def _roll_sig(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return (input,), (shifts, None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(check_dim(d, input.ndim) for d in dims)
    return (input,), (shifts, dims if input.ndim else None)


def _roll_fwd(xp, x, shifts, dims):
    if dims is None:
        return xp.reshape(xp.roll(xp.reshape(x, (-1,)), shifts[0]), x.shape)
    return xp.roll(x, shifts, axis=dims)


defop("roll", _roll_fwd, (lambda ns, g, ans, x, shifts, dims: ns.apply("roll", (g,), (tuple(-s for s in shifts), dims)),),
      sig=_roll_sig, saves=(), api=True,
      api_sig=lambda x, /, shift, *, axis=None: _roll_sig(x, shift, axis))


# ------------------------------------------------------------------ constant_pad_nd
def _constant_pad_sig(input, pad, value=0):
    """``pad``: (before, after) pairs from the last dim backwards, as ``F.pad``; negative ones crop."""
    pad = tuple(pad)
    for i, p in enumerate(pad):
        if not isinstance(p, int):
            raise TypeError(f"constant_pad_nd(): argument 'pad' (position 2) must be tuple of ints, but found element "
                            f"of type {type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)} while the input has {input.ndim} dimensions.")
    for i in range(len(pad) // 2):
        if input.shape[input.ndim - 1 - i] + min(pad[2 * i], 0) + min(pad[2 * i + 1], 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    kind = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[input.dtype.kind]
    return (input,), (pad, kind(value))  # the value in the input's kind, as PyTorch casts it (2.7 -> 2 for ints)


def _constant_pad_fwd(xp, x, pad, value):
    if not pad:
        return xp.asarray(x, copy=True)  # a new tensor, never the input's array
    for i in range(len(pad) // 2):
        dim, before, after = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        x = x[(slice(None),) * dim + (slice(max(-before, 0), x.shape[dim] - max(-after, 0)), ...)]  # the crops

        def side(n):
            return [xp.full(x.shape[:dim] + (n,) + x.shape[dim + 1:], value, dtype=x.dtype)] if n > 0 else []
        x = xp.concat(side(before) + [x] + side(after), axis=dim)
    return x


# its gradient crops what it padded and pads what it cropped: itself, with the pads negated
defop("constant_pad_nd", _constant_pad_fwd,
      (lambda ns, g, ans, x, pad, value: ns.apply("constant_pad_nd", (g,), (tuple(-p for p in pad), 0)),),
      sig=_constant_pad_sig, method=False, saves=())


def _repeat_sig(input, *sizes):
    sizes = tuple(int(s) for s in (sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes))
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(sizes)}")
    return (input,), (sizes,)


def _repeat_fwd(xp, x, sizes):
    x = xp.reshape(x, (1,) * (len(sizes) - x.ndim) + tuple(x.shape))
    return _owned(xp.tile(x, sizes)) if sizes else xp.asarray(x, copy=True)


def _repeat_vjp(ns, g, ans, x, sizes):
    """Each input element's gradient sums its copies: view ``g`` as (repeat, size) pairs and sum the repeats."""
    shape = (1,) * (len(sizes) - x.ndim) + tuple(x.shape)
    pairs = tuple(n for r, s in zip(sizes, shape) for n in (r, s))
    return ns.reshape(ns.sum(ns.reshape(g, pairs), tuple(range(0, len(pairs), 2))), x.shape) if sizes else g


defop("repeat", _repeat_fwd, (_repeat_vjp,), sig=_repeat_sig, saves=("meta0",), function=False)


def tile(input, dims):
    """``repeat`` with missing leading ``dims`` taken as 1 (NumPy's ``tile``)."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return input.repeat((1,) * (input.ndim - len(dims)) + dims)


defcomposite("tile", tile, api=True, api_impl=lambda x, repetitions, /: tile(x, repetitions))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element ``repeats`` times along ``dim`` (the flattened input when ``dim`` is None)."""
    if dim is None:
        input, dim = input.reshape(-1), 0
    d = dims_of(dim, input.ndim)[0] if input.ndim else 0
    if input.ndim == 0:
        input = input.reshape(1)
    n = input.shape[d]
    if isinstance(repeats, int) or (hasattr(repeats, "numel") and repeats.ndim == 0):
        r = int(repeats)
        if r < 0:
            raise RuntimeError("repeats can not be negative")
        shape = tuple(input.shape)
        expanded = input.unsqueeze(d + 1).expand(shape[:d + 1] + (r,) + shape[d + 1:])
        return apply(TABLE["_reshape_copy"].op, (expanded,), (shape[:d] + (n * r,) + shape[d + 1:],))  # a copy, never a view
    counts = np.asarray(repeats.tolist() if hasattr(repeats, "tolist") else repeats, dtype=np.int64).reshape(-1)
    if counts.size == 1:
        counts = np.repeat(counts, n)
    if counts.size != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.size} and input.size({d}) = {n}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return input[(slice(None),) * d + (np.repeat(np.arange(n), counts),)]


defcomposite("repeat_interleave", repeat_interleave,
             api="repeat", api_impl=lambda x, repeats, /, *, axis=None: repeat_interleave(x, repeats, axis))


def broadcast_shapes(*shapes):
    """The shape ``shapes`` broadcast to, with PyTorch's error."""
    out = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i in range(1, len(shape) + 1):
            s = shape[-i]
            if i > len(out):
                out.insert(0, s)
            elif out[-i] == 1:
                out[-i] = s
            elif s != 1 and s != out[-i]:
                raise BroadcastError(f"The size of tensor a ({out[-i]}) must match the size of tensor b ({s}) at "
                                     f"non-singleton dimension {len(out) - i}")
    return Size(out)


def broadcast_to(input, size):
    return input.expand(tuple(size))


def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape."""
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


defcomposite("broadcast_to", broadcast_to, api=True, api_impl=lambda x, /, shape: broadcast_to(x, shape))
defcomposite("broadcast_tensors", broadcast_tensors, method=False, api="broadcast_arrays",
             api_impl=lambda *arrays: tuple(broadcast_tensors(*arrays)))  # a tuple since 2025.12


def ravel(input):
    return input.reshape(-1)


defcomposite("ravel", ravel)


def _at_least(ndim, lift):
    def at_least(*tensors):
        if len(tensors) == 1 and not hasattr(tensors[0], "_dtype"):
            return tuple(at_least(t) for t in tensors[0])
        if len(tensors) > 1:
            return tuple(at_least(t) for t in tensors)
        t = tensors[0]
        return lift(t) if t.ndim < ndim else t
    at_least.__name__ = f"atleast_{ndim}d"
    at_least.__doc__ = f"Tensors of at least {ndim} dimensions (views; higher-dimensional ones as they are)."
    return at_least


atleast_1d = _at_least(1, lambda t: t.reshape(1))
atleast_2d = _at_least(2, lambda t: t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0))
atleast_3d = _at_least(3, lambda t: t.reshape(1, 1, 1) if t.ndim == 0 else
                       t.unsqueeze(0).unsqueeze(-1) if t.ndim == 1 else t.unsqueeze(-1))
for _f in (atleast_1d, atleast_2d, atleast_3d):
    defcomposite(_f.__name__, _f, method=False)


def _stacker(name, prepare, dim):
    def stacker(tensors):
        tensors = [prepare(t) for t in tensors]
        return _cat(tensors, dim(tensors) if callable(dim) else dim)
    stacker.__name__ = name
    stacker.__doc__ = f"``{name}``: ``cat`` after lifting every tensor to the needed number of dimensions."
    return stacker


def _cat(tensors, dim):
    return _fn("cat")(tensors, dim)


def _column(t):
    return t.reshape(-1, 1) if t.ndim < 2 else t


hstack = _stacker("hstack", atleast_1d, lambda ts: 0 if all(t.ndim == 1 for t in ts) else 1)
vstack = _stacker("vstack", atleast_2d, 0)
dstack = _stacker("dstack", atleast_3d, 2)
column_stack = _stacker("column_stack", _column, 1)
for _f in (hstack, vstack, dstack, column_stack):
    defcomposite(_f.__name__, _f, method=False, out=True)
defcomposite("row_stack", vstack, method=False, out=True)


# ------------------------------------------------------------------ methods beyond the generated ones
def _method_of(name):
    """The Tensor method of an entry that PyTorch has as a method only (``unfold``, ``repeat``)."""
    entry = TABLE[name]

    def method(self, *args, **kwargs):
        tensors, params = entry.sig(self, *args, **kwargs)
        return apply(entry.op, tensors, params)
    method.__name__ = method.__qualname__ = name
    return method


def _inplace_view(name, node):
    """``t_``, ``transpose_``...: ``self`` becomes the view ``self.<name>(...)`` (PyTorch's in-place view ops).

    The tensor keeps its identity and storage; its strided metadata and, under autograd, its history (the
    view op's node, named as PyTorch names the in-place overload) are the view's.
    """
    def inplace(self, *args, **kwargs):
        check_inplace(self)
        # the view op's node keeps its input: an alias with self's current history, not self (which changes)
        before = history_alias(self)
        view = getattr(before, name)(*args, **kwargs)
        meta = view._view
        meta.resolve()  # computed from self's current metadata, before self takes it over
        self._arr, self._view = view._arr, meta
        if not self._backend.mutable:
            self._storage.track(self)
        if view._grad_fn is not None:
            renamed(view, node)
            self._grad_fn, self._output_nr, self._requires_grad = view._grad_fn, 0, True
        return self
    inplace.__name__ = inplace.__qualname__ = name + "_"
    return inplace


def _conj_transpose(x):
    return x.conj() if x.is_complex() else x


def _adjoint(x):
    if x.ndim > 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {x.ndim}-D tensor.")
    return _conj_transpose(x.t())


INPLACE_VIEW_OPS = {
    "t_": _inplace_view("t", "TBackward1"),
    "transpose_": _inplace_view("transpose", "TransposeBackward1"),
    "swapaxes_": _inplace_view("transpose", "TransposeBackward1"),
    "swapdims_": _inplace_view("transpose", "TransposeBackward1"),
    "squeeze_": _inplace_view("squeeze", "SqueezeBackward3"),
    "unsqueeze_": _inplace_view("unsqueeze", "UnsqueezeBackward1"),
    "as_strided_": _inplace_view("as_strided", "AsStridedBackward1"),
}

TENSOR_METHODS = {
    **INPLACE_VIEW_OPS,
    "unfold": _method_of("unfold"),
    "repeat": _method_of("repeat"),
    "mH": property(lambda self: _conj_transpose(self.transpose(-2, -1))),
    "H": property(_adjoint),
}


def install_methods(cls):
    for name, value in TENSOR_METHODS.items():
        setattr(cls, name, value)


# ------------------------------------------------------------------ views and copies written with other entries
def diagflat(input, offset=0):
    """The flattened input as the ``offset`` diagonal of a square matrix."""
    return _fn("diag")(input.reshape(-1), offset)


defcomposite("diagflat", diagflat)


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-d) as blocks on the diagonal of one matrix, in their promoted dtype."""
    mats = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not mats:
        from .._creation import zeros
        return zeros(1, 0)
    dtype = _dtypes.result_type(*mats)
    cols = sum(m.shape[1] for m in mats)
    rows, c = [], 0
    for m in mats:
        h, w = m.shape
        rows.append(_fn("cat")([m.new_zeros((h, c), dtype=dtype), m.to(dtype),
                                m.new_zeros((h, cols - c - w), dtype=dtype)], 1))
        c += w
    return _fn("cat")(rows, 0)


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-d tensor, one per row (a 1-d result for one tensor)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = _fn("meshgrid")(*tensors, indexing="ij")
    return _fn("stack")([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of a 1-d tensor, one per row (``itertools`` order)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_zeros((0,))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    from .._creation import tensor
    index = tensor(rows, dtype=_dtypes.int64, backend=input._backend).reshape(len(rows), r)
    return input[index.reshape(-1)].reshape(len(rows), r)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors: ``indexing='ij'`` (PyTorch's default) or ``'xy'``; views of the inputs."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}D")
    flat = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t.shape[0] for t in flat)
    n = len(flat)
    grids = [t.reshape((1,) * i + (-1,) + (1,) * (n - i - 1)).expand(shape) for i, t in enumerate(flat)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


defcomposite("block_diag", block_diag, method=False)
defcomposite("cartesian_prod", cartesian_prod, method=False)
defcomposite("combinations", combinations, method=False)
defcomposite("meshgrid", meshgrid, method=False)


def torch_broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, as PyTorch computes it (ints count as 1-d shapes)."""
    result = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i, n in enumerate(reversed(shape)):
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
            if i == len(result):
                result.append(n)
            elif result[i] == 1:
                result[i] = n
            elif n != 1 and n != result[i]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                                   f"between {result[i]} and {n} at non-singleton dimension {len(result) - i - 1}")
    return Size(reversed(result))


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane ``dims``, from the first towards the second axis."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    a, b = dims_of(dims[0], input.ndim)[0], dims_of(dims[1], input.ndim)[0]
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip(b).transpose(a, b)
    if k == 2:
        return input.flip((a, b))
    if k == 3:
        return input.flip(a).transpose(a, b)
    return input.clone()


defcomposite("rot90", rot90)


def _tri_indices(row, col, offset, dtype, backend, lower):
    from .._creation import tensor
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1), dtype=dtype or _dtypes.int64, backend=backend)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, backend=None):
    """The (row, column) indices of the lower triangle of a ``row x col`` matrix, row by row."""
    return _tri_indices(row, col, offset, dtype, backend, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, backend=None):
    """The (row, column) indices of the upper triangle of a ``row x col`` matrix, row by row."""
    return _tri_indices(row, col, offset, dtype, backend, False)


def tensor_split(input, indices_or_sections, dim=0):
    """Views: ``n`` nearly equal parts (the first ``size % n`` one longer), or the parts between indices."""
    d = dims_of(dim, input.ndim)[0]
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.ndim == 0:
            indices_or_sections = int(indices_or_sections)
        else:
            indices_or_sections = [int(i) for i in indices_or_sections.tolist()]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        bounds, start = [], 0
        for i in range(n):
            start += size // n + (1 if i < size % n else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = list(indices_or_sections)
    parts, start = [], 0
    for stop in bounds + [size]:
        lo, hi = min(max(start, 0), size), min(max(stop, 0), size)
        parts.append(input.narrow(d, lo, max(hi - lo, 0)))
        start = stop
    return tuple(parts)


def _split_at(name, min_dim, dim):
    def split(input, indices_or_sections):
        if input.ndim < min_dim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the dimension "
                               f"{input.shape[d]} is not divisible by the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = f"``tensor_split`` along dim {dim}, in equal parts when given a number of sections."
    return split


defcomposite("tensor_split", tensor_split)
defcomposite("hsplit", _split_at("hsplit", 1, 1))
defcomposite("vsplit", _split_at("vsplit", 2, 0))
defcomposite("dsplit", _split_at("dsplit", 3, 2))


def split_with_sizes(input, split_sizes, dim=0):
    """``split`` with a list of sizes that must add up to the dim's size."""
    d = dims_of(dim, input.ndim)[0]
    if sum(split_sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return _fn("split")(input, list(split_sizes), dim)


defcomposite("split_with_sizes", split_with_sizes)


def _scatter_into(view_of):
    """``input`` with ``src`` written into the part ``view_of(copy)`` picks: a differentiable in-place write
    into a fresh copy (so the gradient of ``input`` is zero there, and ``src``'s is the gradient's part)."""
    def scatter(input, src, *args, **kwargs):
        out = input.clone()
        view = view_of(out, *args, **kwargs)
        if tuple(view.shape) != tuple(src.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(src.shape)}, slice size = {list(view.shape)}")
        view.copy_(src)
        return out
    return scatter


def _slice_view(t, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * t.ndim
    index[dims_of(dim, t.ndim)[0]] = slice(start, end, step)
    return t[tuple(index)]


diagonal_scatter = _scatter_into(lambda t, offset=0, dim1=0, dim2=1: t.diagonal(offset, dim1, dim2))
select_scatter = _scatter_into(lambda t, dim, index: t.select(dim, index))
slice_scatter = _scatter_into(_slice_view)
for _name, _impl in (("diagonal_scatter", diagonal_scatter), ("select_scatter", select_scatter),
                     ("slice_scatter", slice_scatter)):
    _impl.__name__ = _name
    _impl.__doc__ = f"A copy of ``input`` with ``src`` written into its ``{_name[:-8]}`` (differentiable in both)."
    defcomposite(_name, _impl, out=True)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of (contiguous) ``input`` with ``src`` written into its ``as_strided(size, stride, offset)``."""
    out = input.clone()
    view = out.as_strided(size, stride, storage_offset or 0)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    view.copy_(src)
    return out


defcomposite("as_strided_scatter", as_strided_scatter)
