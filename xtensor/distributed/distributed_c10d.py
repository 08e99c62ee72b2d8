"""torch.distributed's collectives (``all_reduce``, ``all_gather``, ``broadcast``...) for a world of one process.

A lone process is a world of one here (xtensor.distributed needs no ``init_process_group`` for it): every
collective then has its one-rank result, as PyTorch's gloo gives with ``world_size=1`` -- a reduction over one
rank is the tensor itself, a gather or scatter moves the only entry. That is what a script written for
``torchrun`` meets when it is run as one process, and what ``torch.distributed.nn``'s differentiable
collectives are built on. Across several processes xtensor does not run collectives called from the program:
distribution is JAX's (a sharded batch in ``data_parallel``, a mesh), and XLA inserts the collectives; a
collective called with more than one process raises NotImplementedError saying so.
"""
import enum
import pickle
import sys

__all__ = ["ReduceOp", "group", "GroupMember", "all_reduce", "all_gather", "broadcast", "reduce", "gather", "scatter",
           "reduce_scatter", "all_to_all", "all_to_all_single", "barrier", "all_gather_object", "gather_object",
           "broadcast_object_list", "scatter_object_list"]


class ReduceOp(enum.Enum):
    """The element-wise reductions of ``all_reduce``/``reduce``/``reduce_scatter`` (PyTorch's names)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class _World:
    """The group of every process (PyTorch's ``group.WORLD``); ``None`` means it too."""

    def __repr__(self):
        return "<xtensor.distributed group WORLD>"


class group:  # noqa: N801  (PyTorch's spelling: ``torch.distributed.group.WORLD``)
    WORLD = _World()


GroupMember = group


def _world_size():
    """How many processes run the program: jax's count once jax is imported (``init_process_group`` imports
    it), else one -- without importing jax, which a numpy-only program may not have."""
    jax = sys.modules.get("jax")
    return 1 if jax is None else jax.process_count()


def _rank():
    jax = sys.modules.get("jax")
    return 0 if jax is None else jax.process_index()


def _one_rank(collective, ranks=()):
    """Check that this is a world of one and that every rank named is 0 (PyTorch's gloo errors otherwise)."""
    processes = _world_size()
    if processes != 1:
        raise NotImplementedError(
            f"torch.distributed.{collective} across {processes} processes: xtensor runs collectives in a world of "
            "one process only; across processes, distribution is JAX's (xtensor.distributed.data_parallel or a "
            "DeviceMesh), where XLA inserts the collectives")
    for rank in ranks:
        if rank != 0:
            raise RuntimeError(f"{collective}: invalid root rank: {rank} (a world of one process has rank 0 only)")


class _Work:
    """What a collective called with ``async_op=True`` returns: in a world of one it has already completed."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True


def _finished(async_op):
    return _Work() if async_op else None


def _only(collective, tensors, what):
    """The single entry of a list that must hold one tensor per rank."""
    if tensors is None or len(tensors) != 1:
        count = "None" if tensors is None else len(tensors)
        raise RuntimeError(f"{collective}: invalid {what} at index 0 (expected length 1, got {count}): a world of one "
                           "process has one rank")
    return tensors[0]


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over every rank, in place: over one rank it keeps its value."""
    _one_rank("all_reduce")
    return _finished(async_op)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` into rank ``dst``, in place: over one rank it keeps its value."""
    _one_rank("reduce", [dst])
    return _finished(async_op)


def broadcast(tensor, src=0, group=None, async_op=False):
    """Send ``tensor`` from rank ``src`` to every rank, in place: rank 0 already holds it."""
    _one_rank("broadcast", [src])
    return _finished(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list`` (one tensor per rank) with every rank's ``tensor``: here its one entry."""
    _one_rank("all_gather")
    _only("all_gather", tensor_list, "output tensor list").copy_(tensor)
    return _finished(async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Fill rank ``dst``'s ``gather_list`` with every rank's ``tensor``: here its one entry."""
    _one_rank("gather", [dst])
    _only("gather", gather_list, "gather list").copy_(tensor)
    return _finished(async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Write rank ``src``'s ``scatter_list[rank]`` into each rank's ``tensor``: here the one entry."""
    _one_rank("scatter", [src])
    tensor.copy_(_only("scatter", scatter_list, "scatter list"))
    return _finished(async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list[rank]`` over the ranks into ``output``: over one rank, the one entry."""
    _one_rank("reduce_scatter")
    output.copy_(_only("reduce_scatter", input_list, "input tensor list"))
    return _finished(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank ``i`` sends ``input_tensor_list[j]`` to rank ``j``'s ``output_tensor_list[i]``: here one entry."""
    _one_rank("all_to_all")
    _only("all_to_all", output_tensor_list, "output tensor list").copy_(
        _only("all_to_all", input_tensor_list, "input tensor list"))
    return _finished(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """``all_to_all`` of one tensor split along dim 0: with one rank, ``output`` receives all of ``input``."""
    _one_rank("all_to_all_single")
    output.copy_(input)
    return _finished(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait for every rank: one rank waits for none."""
    _one_rank("barrier")
    return _finished(async_op)


def _sent(obj):
    """``obj`` as another rank receives it: pickled and unpickled, as PyTorch sends objects (a copy; an object
    that cannot be pickled fails here as it does there)."""
    return pickle.loads(pickle.dumps(obj))


def all_gather_object(object_list, obj, group=None):
    """Every rank's ``obj`` into ``object_list`` (one slot per rank): here slot 0."""
    _one_rank("all_gather_object")
    object_list[0] = _sent(obj)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every rank's ``obj`` into rank ``dst``'s ``object_gather_list``: here slot 0."""
    _one_rank("gather_object", [dst or group_dst or 0])
    object_gather_list[0] = _sent(obj)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank ``src``'s ``object_list`` into every rank's: rank 0 already holds it."""
    _one_rank("broadcast_object_list", [src or group_src or 0])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank ``src``'s ``scatter_object_input_list[rank]`` into each rank's ``scatter_object_output_list[0]``."""
    _one_rank("scatter_object_list", [src or group_src or 0])
    scatter_object_output_list[0] = _sent(_only("scatter_object_list", scatter_object_input_list,
                                                 "scatter object input list"))
