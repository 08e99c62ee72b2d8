"""Tensors placed on a ``DeviceMesh``: PyTorch's ``torch.distributed.tensor`` spelling over ``jax.sharding``.

A placed tensor is an ordinary xtensor Tensor whose jax array carries a ``NamedSharding``: its shape is
the global shape (what PyTorch's DTensor reports), each device holds its shard, and every op -- eager,
under ``jax.jit`` or ``xtensor.compile`` -- runs on the global array while XLA moves the data (GSPMD).
So there is no DTensor class and no ``to_local()``: code written for plain tensors runs unchanged.

Placements: one per mesh dimension, ``Shard(dim)`` (split the tensor's ``dim`` over that mesh
dimension) or ``Replicate()``; a ``jax.sharding.PartitionSpec`` over the mesh's axis names is taken
too. Unlike PyTorch, jax shards evenly only: a dimension that does not divide by its devices is an
error naming the sizes (pad, drop the remainder, or replicate).
"""
import math

import numpy as np

from ..._dispatch import Op, apply, wrap
from ..._tensor import Tensor
from ..device_mesh import DeviceMesh, _jax

__all__ = ["Placement", "Shard", "Replicate", "distribute_tensor", "distribute_module", "redistribute",
           "from_local", "DeviceMesh"]


class Placement:
    """How a tensor lies along one mesh dimension."""

    __slots__ = ()

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False


class Shard(Placement):
    """The tensor's ``dim`` is split in equal blocks over the mesh dimension's devices, in order."""

    __slots__ = ("dim",)

    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self):
        return hash(("shard", self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"


class Replicate(Placement):
    """Every device of the mesh dimension holds the whole tensor."""

    __slots__ = ()

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("replicate")

    def __repr__(self):
        return "Replicate()"


def default_mesh():
    """A 1-D mesh over every device of jax's default platform (PyTorch's world)."""
    from ...adapters.jax import _PLATFORM_TO_TORCH
    from ..device_mesh import init_device_mesh
    jax = _jax()
    platform = jax.default_backend()
    return init_device_mesh(_PLATFORM_TO_TORCH.get(platform, platform), (len(jax.devices()),))


def partition_spec(device_mesh, placements, ndim):
    """The ``PartitionSpec`` that ``placements`` (one per mesh dimension; None: replicated) give a tensor of
    ``ndim`` dims on ``device_mesh``; a ``PartitionSpec`` is checked against the mesh's axis names."""
    from jax.sharding import PartitionSpec
    if isinstance(placements, PartitionSpec):
        for entry in placements:
            for name in (entry if isinstance(entry, tuple) else (entry,)):
                if name is not None and name not in device_mesh.axis_names:
                    raise ValueError(f"PartitionSpec {placements} names mesh axis {name!r}; the mesh has "
                                     f"{list(device_mesh.axis_names)}")
        if len(placements) > ndim:
            raise ValueError(f"PartitionSpec {placements} has {len(placements)} entries for a tensor of {ndim} dims")
        return placements
    placements = (Replicate(),) * device_mesh.ndim if placements is None else tuple(placements)
    if len(placements) != device_mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! Found placements "
                         f"length: {len(placements)}, and device_mesh.ndim: {device_mesh.ndim}.")
    axes_per_dim = [[] for _ in range(ndim)]
    for axis, placement in zip(device_mesh.axis_names, placements):
        if isinstance(placement, Shard):
            if not -ndim <= placement.dim < ndim or ndim == 0:
                n = max(ndim, 1)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                                 f"{placement.dim})")
            axes_per_dim[placement.dim % ndim].append(axis)
        elif not isinstance(placement, Replicate):
            raise TypeError(f"placements are Shard(dim) or Replicate() (or one jax PartitionSpec), got {placement!r}")
    return PartitionSpec(*(tuple(a) if len(a) > 1 else a[0] if a else None for a in axes_per_dim))


def sharding(device_mesh, placements, shape):
    """The ``NamedSharding`` of a tensor of ``shape`` placed on ``device_mesh`` as ``placements``; mesh axes
    the placements do not name (the other dimensions of a sliced mesh) replicate."""
    from jax.sharding import NamedSharding
    spec = partition_spec(device_mesh, placements, len(shape))
    mesh_sizes = dict(zip(device_mesh.jax_mesh.axis_names, device_mesh.jax_mesh.devices.shape))
    for dim, (size, entry) in enumerate(zip(shape, spec)):
        axes = entry if isinstance(entry, tuple) else () if entry is None else (entry,)
        parts = math.prod(mesh_sizes[a] for a in axes)
        if size % parts:
            raise ValueError(f"cannot shard dim {dim} (size {size}) of a tensor of shape {list(shape)} over mesh "
                             f"dimension(s) {list(axes)} ({parts} devices): jax splits only evenly; pad it, drop "
                             "the remainder (DataLoader(drop_last=True)) or Replicate() it")
    return NamedSharding(device_mesh.jax_mesh, spec)


def place(array, target):
    """jax ``array`` laid out as ``target`` (a NamedSharding): under a trace a sharding constraint for XLA;
    a process's own array onto devices of several processes from its (identical) host values; else a
    device-to-device transfer."""
    jax = _jax()
    if isinstance(array, jax.core.Tracer):
        return jax.lax.with_sharding_constraint(array, target)
    if target.is_fully_addressable or not array.is_fully_addressable or array.sharding == target:
        return jax.device_put(array, target)
    host = np.asarray(array)
    return jax.make_array_from_callback(host.shape, target, host.__getitem__)


def _source_sharding(array):
    """Where a gradient should return to: the input's layout, unless it had none (traced, or uncommitted:
    jax lets such an array follow its operands)."""
    jax = _jax()
    return None if isinstance(array, jax.core.Tracer) or not array.committed else array.sharding


def _redistribute_vjp(ns, g, ans, x, target, source):
    """The gradient goes back to where the input was (nowhere in particular under a trace)."""
    return g if source is None else ns.apply(_REDISTRIBUTE, (g,), (source, None))


_REDISTRIBUTE = Op("_redistribute", lambda xp, x, target, source: place(x, target), (_redistribute_vjp,),
                   node="RedistributeBackward", saves=())


def redistribute(tensor, device_mesh=None, placements=None):
    """``tensor`` laid out on ``device_mesh`` as ``placements`` (default: replicated), differentiably: the
    gradient returns to the input's layout. DTensor's ``redistribute``; inside ``xtensor.compile`` or
    ``jax.jit`` it tells XLA the layout to use there. A tensor of another backend moves to jax first."""
    device_mesh = device_mesh or default_mesh()
    if tensor.backend != "jax":
        tensor = tensor.to("jax")
    target = sharding(device_mesh, placements, tuple(tensor.shape))
    return apply(_REDISTRIBUTE, (tensor,), (target, _source_sharding(tensor._value)))


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """A new leaf tensor with ``tensor``'s values laid out on ``device_mesh`` as ``placements`` (default: a
    1-D mesh over every device, replicated), requiring grad as ``tensor`` does (PyTorch's).

    Every process passes the same values, as PyTorch's ``distribute_tensor`` expects (``src_data_rank``
    is accepted for its code; no values are sent between processes). A tensor of another backend moves
    to jax, as PyTorch moves a CPU tensor to the mesh's device type."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"distribute_tensor expects a Tensor, got {type(tensor).__name__}")
    placed = redistribute(tensor.detach(), device_mesh, placements)
    return placed.requires_grad_(tensor.requires_grad)


def from_local(local_tensor, device_mesh=None, placements=None):
    """The global tensor whose shards are each process's ``local_tensor`` (DTensor's ``from_local``): along a
    ``Shard(d)`` mesh dimension the processes' pieces are concatenated in process order, so a process that
    loads only its own slice of a batch gives its part (in one process: the tensor itself, placed). A leaf;
    a tensor with autograd history must be detached first."""
    if local_tensor.grad_fn is not None:
        raise RuntimeError("from_local takes a tensor without autograd history: pass local_tensor.detach()")
    from jax.sharding import NamedSharding
    jax = _jax()
    device_mesh = device_mesh or default_mesh()
    local = local_tensor if local_tensor.backend == "jax" else local_tensor.to("jax")
    target = NamedSharding(device_mesh.jax_mesh, partition_spec(device_mesh, placements, local.ndim))
    array = jax.make_array_from_process_local_data(target, local._value)
    return wrap(array, local._backend, local._dtype).requires_grad_(local_tensor.requires_grad)


def place_(tensor, device_mesh, placements):
    """Lay ``tensor``'s memory out on ``device_mesh`` in place: the same Tensor object (a module's parameter,
    an optimizer's reference to it) now lives on the mesh, with the same values, version and aliases. A
    tensor of another backend moves to jax (through ``.data``)."""
    if tensor.backend != "jax":
        tensor.data = redistribute(tensor.detach(), device_mesh, placements)
        return
    from ..._compile import _invalidate
    st = tensor._storage
    st.array = place(st.array, sharding(device_mesh, placements, tuple(st.array.shape)))
    _invalidate([st], [tensor])


def on_mesh(array, device_mesh):
    """Whether jax ``array`` is laid out over ``device_mesh``'s devices (however sharded)."""
    from jax.sharding import NamedSharding
    return isinstance(getattr(array, "sharding", None), NamedSharding) and array.sharding.mesh == device_mesh.jax_mesh


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None, output_fn=None):
    """Lay ``module``'s parameters and buffers out on ``device_mesh`` in place: ``partition_fn(name,
    submodule, device_mesh)`` places what it wants (for each submodule), the rest is replicated.
    ``input_fn(module, inputs, device_mesh)`` and ``output_fn(module, outputs, device_mesh)`` become
    forward hooks, as in PyTorch. The Parameter objects stay the same, so an optimizer made before
    keeps working."""
    device_mesh = device_mesh or default_mesh()
    if partition_fn is not None:
        for name, submodule in module.named_modules():
            partition_fn(name, submodule, device_mesh)
    for t in (*module.parameters(), *module.buffers()):
        if t.backend != "jax" or not on_mesh(t._storage.array, device_mesh):
            place_(t, device_mesh, None)
    if input_fn is not None:
        module.register_forward_pre_hook(lambda mod, inputs: input_fn(mod, inputs, device_mesh))
    if output_fn is not None:
        module.register_forward_hook(lambda mod, inputs, outputs: output_fn(mod, outputs, device_mesh))
    return module
