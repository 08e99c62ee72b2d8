"""``xtensor.distributed``: PyTorch's spelling over JAX's own distribution, never a collective of ours.

* ``init_device_mesh`` / ``DeviceMesh``: a grid of jax devices (a ``jax.sharding.Mesh``).
* ``xtensor.distributed.tensor``: ``distribute_tensor(t, mesh, [Shard(0)])`` lays a tensor out on a mesh
  (its jax array carries a ``NamedSharding``); ``distribute_module`` replicates a model's parameters.
* ``xtensor.distributed.tensor.parallel``: ``parallelize_module`` with ``ColwiseParallel`` /
  ``RowwiseParallel`` shards ``nn.Linear`` weights over one mesh axis (tensor parallelism).
* ``data_parallel(step, mesh)``: a training step compiled (``xtensor.compile``) with the batch split over the
  mesh and everything else replicated; XLA reduces the gradients across devices.
* ``init_process_group``: several processes (hosts) join through ``jax.distributed.initialize``; a mesh then
  spans every process's devices and the same program runs in each (``examples/distributed_training.py``).
* ``all_reduce``, ``all_gather``, ``broadcast``... (``distributed_c10d``) and their differentiable twins in
  ``xtensor.distributed.nn``: a world of one process only (a script written for torchrun, run alone).

One program drives every device (jax's model): a tensor's shape is its global shape wherever it is
placed, so the same step gives the single-device result on any number of devices, to float rounding.
"""
import os

from .device_mesh import DeviceMesh, _jax, init_device_mesh
from ._data_parallel import DataParallelStep, data_parallel
from . import tensor  # noqa: F401  (xtensor.distributed.tensor, as torch.distributed.tensor)
from .distributed_c10d import (GroupMember, ReduceOp, all_gather, all_gather_object, all_reduce, all_to_all,
                               all_to_all_single, barrier, broadcast, broadcast_object_list, gather, gather_object,
                               group, reduce, reduce_scatter, scatter, scatter_object_list)

__all__ = ["DeviceMesh", "init_device_mesh", "data_parallel", "DataParallelStep", "is_available",
           "init_process_group", "is_initialized", "get_rank", "get_world_size", "destroy_process_group",
           "ReduceOp", "group", "GroupMember", "all_reduce", "all_gather", "broadcast", "reduce", "gather", "scatter",
           "reduce_scatter", "all_to_all", "all_to_all_single", "barrier", "all_gather_object", "gather_object",
           "broadcast_object_list", "scatter_object_list"]


def is_available():
    """Whether distribution can run here: it needs jax."""
    try:
        _jax()
    except ImportError:
        return False
    return True


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1):
    """Join this process to the others through ``jax.distributed.initialize`` (call it first, before any
    jax tensor is made). Rank 0 hosts the coordinator at ``init_method`` = ``tcp://host:port``, or, with
    ``env://`` (the default), at ``MASTER_ADDR:MASTER_PORT`` with ``RANK`` and ``WORLD_SIZE`` from the
    environment as torchrun sets them. Without those variables jax detects the cluster itself (SLURM,
    Open MPI, Cloud TPU). ``backend`` ("gloo", "nccl") is PyTorch's choice of collectives; here XLA picks
    them for the platform, so it is accepted and not used; ``timeout`` (a timedelta) bounds the wait."""
    import jax  # not the jax backend yet: making it starts XLA, which must come after joining
    scheme = coordinator = None
    if init_method is not None and not init_method.startswith(("tcp://", "env://")):
        raise ValueError(f"init_method {init_method!r}: xtensor joins processes over tcp://host:port or env://")
    if init_method is not None and init_method.startswith("tcp://"):
        scheme, coordinator = "tcp", init_method[len("tcp://"):].split("?")[0]
    elif init_method is not None or "MASTER_ADDR" in os.environ:
        scheme, coordinator = "env", f"{_setting('env', 'MASTER_ADDR')}:{_setting('env', 'MASTER_PORT')}"
    if scheme is not None:
        world_size = int(_setting(scheme, "WORLD_SIZE", "world_size")) if world_size == -1 else world_size
        rank = int(_setting(scheme, "RANK", "rank")) if rank == -1 else rank
    options = {} if timeout is None else {"initialization_timeout": int(timeout.total_seconds())}
    jax.distributed.initialize(coordinator, world_size if scheme else None, rank if scheme else None, **options)


def _setting(scheme, variable, parameter=None):
    """An environment variable env:// needs; tcp:// needs the parameter instead (PyTorch's errors)."""
    value = os.environ.get(variable) if scheme == "env" else None
    if value is None:
        missing = f"environment variable {variable} expected, but not set" if scheme == "env" \
            else f"{parameter} parameter missing"
        raise ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {missing}")
    return value


def is_initialized():
    """Whether ``init_process_group`` ran (a lone process needs none: it is a world of one)."""
    return is_available() and _jax().distributed.is_initialized()


def get_rank(group=None):
    """This process's index among the processes (``jax.process_index()``); 0 for a lone process."""
    return _jax().process_index()


def get_world_size(group=None):
    """How many processes run the program (``jax.process_count()``; each may drive several devices)."""
    return _jax().process_count()


def destroy_process_group(group=None):
    """Leave the process group (``jax.distributed.shutdown``)."""
    _jax().distributed.shutdown()
