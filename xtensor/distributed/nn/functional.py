"""Collectives that autograd differentiates through (PyTorch's ``torch.distributed.nn.functional``).

Each returns new tensors (the in-place collectives of ``xtensor.distributed`` run on a clone), its node named as
PyTorch's (``_AllReduceBackward``...), and has PyTorch's backward: the gradient of ``all_reduce`` is the ``all_reduce`` of the gradient, of ``broadcast`` the ``reduce``
of it to the source (zero elsewhere), of ``all_gather`` the sum of the ``all_to_all`` of the gradients, and so
on in pairs (gather/scatter, reduce/broadcast, reduce_scatter/all_gather, all_to_all with itself). In a world of
one process these are identities and copies, with PyTorch's tuple-or-tensor results and errors.
PyTorch's FutureWarnings pointing to ``torch.distributed._functional_collectives`` are not given: xtensor has
no such module to point to.
"""
from ...autograd.function import Function
from ... import empty_like, stack, zeros_like  # xtensor is whole by the time torch.distributed.nn is imported
from .. import distributed_c10d as dist
from ..distributed_c10d import ReduceOp, group

__all__ = ["broadcast", "gather", "scatter", "reduce", "reduce_scatter", "all_gather", "all_to_all",
           "all_to_all_single", "all_reduce"]


def broadcast(tensor, src, group=group.WORLD):
    """``tensor`` from rank ``src``, on every rank."""
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=group.WORLD):
    """Every rank's ``tensor``, as a tuple on rank ``dst`` (zeros elsewhere)."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=group.WORLD):
    """Rank ``src``'s ``tensors[rank]`` on each rank."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=group.WORLD):
    """``tensor`` reduced with ``op`` over the ranks, on rank ``dst``."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=group.WORLD):
    """``input_list[rank]`` reduced over the ranks, written into ``output`` and returned."""
    return _Reduce_Scatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=group.WORLD):
    """Every rank's ``tensor``, as a tuple on every rank."""
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=group.WORLD):
    """Rank ``i``'s ``input_tensor_list[j]`` lands in rank ``j``'s ``output_tensor_list[i]``; that tuple."""
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=group.WORLD):
    """``all_to_all`` of ``input`` split along dim 0, gathered into ``output`` and returned."""
    return _AlltoAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=group.WORLD):
    """``tensor`` reduced with ``op`` over the ranks, on every rank."""
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group, ctx.rank = src, group, dist._rank()
        tensor = tensor.clone()
        dist.broadcast(tensor, src, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.rank:
            gx = zeros_like(gx)
        return None, None, gx


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        tensor_list = [zeros_like(tensor) for _ in range(dist._world_size())]
        dist.gather(tensor, tensor_list if dist._rank() == dst else None, dst, group=group)
        return tuple(tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs)


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src, ctx.group = src, group
        if any(t.shape != tensors[0].shape for t in tensors):
            raise ValueError("scatter: every tensor to scatter must have the same size, got "
                             f"{[tuple(t.shape) for t in tensors]}")
        output = zeros_like(tensors[0])
        dist.scatter(output, list(tensors) if dist._rank() == src else None, src, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad_output)


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        tensor = tensor.clone()
        dist.reduce(tensor, dst, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _Reduce_Scatter(Function):
    @staticmethod
    def forward(ctx, op, group, output, *input_list):
        ctx.group = group
        dist.reduce_scatter(output, list(input_list), op=op, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None) + _AllGather.apply(ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        gathered = [empty_like(tensor) for _ in range(dist._world_size())]
        dist.all_gather(gathered, tensor, group=group)
        return tuple(gathered)

    @staticmethod
    def backward(ctx, *grad_outputs):
        """gloo's path in PyTorch (no reduce_scatter there): an ``all_to_all`` of the gradients, summed."""
        received = _AlltoAll.apply(ctx.group, [empty_like(g) for g in grad_outputs], *grad_outputs)
        return None, stack(received).sum(dim=0)


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, group, output_tensor_list, *tensors):
        ctx.group, ctx.input_shapes = group, [t.shape for t in tensors]
        dist.all_to_all(output_tensor_list, list(tensors), group=group)
        return tuple(output_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        like = grad_outputs[0]
        received = [like.new_empty(shape) for shape in ctx.input_shapes]
        return (None, None) + _AlltoAll.apply(ctx.group, received, *grad_outputs)


class _AlltoAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group, ctx.input_shape = group, input.shape
        ctx.output_split_sizes, ctx.input_split_sizes = input_split_sizes, output_split_sizes
        dist.all_to_all_single(output, input, output_split_sizes, input_split_sizes, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        received = grad_output.new_empty(ctx.input_shape)
        return (None, None, None, None, _AlltoAllSingle.apply(ctx.group, received, ctx.output_split_sizes,
                                                               ctx.input_split_sizes, grad_output.contiguous()))


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        tensor = tensor.clone()
        dist.all_reduce(tensor, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)
