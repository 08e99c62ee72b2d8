"""In-place and ``out=`` writes, as PyTorch makes them: its refusals first (``check_inplace``: writes autograd
cannot record; ``refuse_overlap``: writes into memory an operand shares), then the write, which rewrites the
written tensor's history under autograd (``assign_inplace``/``rebase_history``: a root takes the result's node, a
view rewrites its base's through a ``CopySlices`` node), or lands in ``out=`` (``assign_out``). The generated
``_`` and ``out=`` variants (``_variants``), indexing's writes (``_index``) and the ops that take ``out=``
themselves all write through here.
"""
from . import _dtypes
from ._dispatch import apply, detached, edge_of, history_alias, move_retained_grad, node_class, view_rebase_message
from ._modes import grad_state as _grad_state
from ._registry import TABLE
from ._table import renamed
from ._tensor import OVERLAP_ERROR, PARTIAL_OVERLAP_ERROR, Tensor, overlap

__all__ = ["check_inplace", "refuse_overlap", "assign_inplace", "rebase_history", "spread_requires_grad", "assign_out"]

_copy_slices = node_class("CopySlices")


def _refuse_overlapping_gradient(self, *grads):
    raise RuntimeError(OVERLAP_ERROR)


# A write through a view whose elements share memory (fill_ of an expanded view): PyTorch records it, and its
# backward, which writes the view's gradient into that shared memory, refuses.
_overlapping_copy_slices = type("CopySlices", (_copy_slices,), {"__slots__": (), "apply": _refuse_overlapping_gradient})


def check_inplace(t, *values):
    """PyTorch's refusals before a recorded in-place write into ``t`` (grad mode on, and ``t`` or one of the
    ``values`` written into it requires grad): into a view made under no_grad, or one of several views one op
    returned (and views of those); into a view of a leaf that requires grad; into such a leaf."""
    base = t._base
    if not _grad_state.enabled or not (t._requires_grad or base is not None and base._requires_grad or any(
            isinstance(v, Tensor) and v._requires_grad for v in values)):
        return
    if base is not None:
        if t._creation is not None:
            raise RuntimeError(view_rebase_message(t, indirect=False))
        if t._requires_grad and base._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        if t._grad_fn is None and base._grad_fn is not None:  # PyTorch reads the view's cached history: made
            # before its base had one and not looked at since (no grad_fn/is_leaf read), the view counts as a leaf
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    elif t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def refuse_overlap(target, operands, kinds=("partial",)):
    """PyTorch's refusal to write into memory an operand shares in one of ``kinds`` of ``overlap``: elementwise writes
    refuse "partial" (``x.add_(x.t())``, ``out=`` a transposed alias of the input), index_put both."""
    for v in operands:
        if isinstance(v, Tensor) and overlap(target, v) in kinds:
            raise RuntimeError(PARTIAL_OVERLAP_ERROR)


def _check_castable(src_dtype, target):
    if src_dtype is not target._dtype and not _dtypes.can_cast(src_dtype, target._dtype):
        raise RuntimeError(f"result type {src_dtype.scalar_name} can't be cast to the desired output type "
                           f"{target._dtype.scalar_name}")


def assign_inplace(target, result, node_name=None, overlap_ok=False):
    """Write ``result`` into ``target``; when autograd records the write, rewrite the history (see
    ``rebase_history``). ``node_name``: PyTorch's name for the write's own node where it is not the name of
    the op that computed ``result`` (``zero_`` is ZeroBackward0, ``copy_`` CopyBackwards)."""
    if result.shape != target.shape:
        raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                           f"{list(result.shape)}")
    _check_castable(result._dtype, target)
    recorded = _grad_state.enabled and (target._requires_grad or result._requires_grad)
    if recorded and target._base is None and target._requires_grad and (
            node_name is not None or not result._requires_grad):
        result = apply(TABLE["overwrite"].op, (history_alias(target), result))  # (see ops/indexing's ``overwrite``)
    target._write(result._value, overlap_ok)
    if recorded:
        if node_name is not None and target._base is None:
            renamed(result, node_name)  # a node made for this write only
        rebase_history(target, result)
    return target


def rebase_history(target, result):
    """After ``target`` was overwritten by ``result`` under autograd, the graph sees the new value (PyTorch's
    rebase_history). A root takes the result's history. A view rewrites its base's: a ``CopySlices`` node
    whose gradient is the incoming one with the view's positions routed through ``result``; the view itself,
    and every other view of the base, then re-derive their history from the base (``view_grad_fn``: the
    write moved the storage version). Either way the base, and so every view of it, now requires grad."""
    base = target._base
    if base is None:
        target._grad_fn, target._output_nr = result._grad_fn, result._output_nr
        base = target
    else:
        # its backward writes the gradient into the base's layout, then the view's: either may overlap itself
        overlapping = target._view.overlaps() or base._view is not None and base._view.overlaps()
        node = _overlapping_copy_slices() if overlapping else _copy_slices()
        node.op = TABLE["index_put"].op
        node.n_outputs = 1
        node._edges = (edge_of(base), edge_of(result))
        node._args = (detached(base), result, target._view.index_in(base), base._backend)  # not base: no cycle
        node._out = None
        node._saved_versions = None
        node._raw_ns = None
        base._grad_fn, base._output_nr = node, 0
    move_retained_grad(base, base._grad_fn)
    if not base._requires_grad:
        spread_requires_grad(base, True)


def spread_requires_grad(base, value):
    """Set ``requires_grad`` of a base and of every view of it (a view requires grad when its base does)."""
    base._requires_grad = value
    for t in base._storage.live_aliases():
        if t._base is base:
            t._requires_grad = value


def assign_out(out, result, name, inputs=()):
    """The ``out=`` variant: results land in ``out`` (resized when its shape differs, as PyTorch does); ``inputs``:
    those an elementwise op reads, which may not partly overlap ``out``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    refuse_overlap(out, inputs)
    if _grad_state.enabled and (result._requires_grad or out._requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    _check_castable(result._dtype, out)
    if result.shape != out.shape:
        xp = out._backend.xp
        out._set_storage(xp.astype(result._value, out._backend.native[out._dtype]))
    else:
        out._write(result._value)
    return out
