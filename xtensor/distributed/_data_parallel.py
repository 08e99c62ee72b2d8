"""Data parallelism the jax way: one compiled step over global tensors, the batch split over a mesh.

``data_parallel(step, mesh)`` is ``xtensor.compile(step)`` plus placement. Before each call, every tensor
the step reaches (model parameters and buffers, optimizer state, ``.grad``) that is not on the mesh yet
is replicated over it, in place; the step's tensor arguments (the batch) are split along ``batch_dim``.
Inside the one XLA program each device runs the forward and backward on its part of the batch, and
the gradient of the replicated parameters -- a sum over the whole batch -- comes out of XLA's all-reduce;
the optimizer update then runs replicated. Nothing here reduces anything: GSPMD derives the
collectives from the layouts, so the result is the single-device step's, to float rounding.
"""
from .._compile import _invalidate
from .._compile import compile as _compile
from .._tensor import Tensor
from .tensor import Replicate, Shard, distribute_tensor, on_mesh, place, sharding

__all__ = ["data_parallel", "DataParallelStep"]


def data_parallel(step, device_mesh, *, batch_dim=0):
    """``step`` (a training step, as for ``xtensor.compile``) compiled to run over ``device_mesh`` with its
    batch arguments split along ``batch_dim`` over the mesh's devices (all its dimensions; slice a larger
    mesh, ``mesh["dp"]``, to split over one and replicate over the others).

    A batch whose size does not divide by the devices is replicated instead (every device computes the
    whole of it: the same result, no speed-up); ``batch_split`` tells what the last call did."""
    return DataParallelStep(step, device_mesh, batch_dim)


class DataParallelStep:
    """A compiled step that lays its state and batch out on a mesh before each call (see ``data_parallel``)."""

    def __init__(self, step, device_mesh, batch_dim=0):
        self.compiled = _compile(step)
        # on the tensors the compiled step gathers, on each full walk (a call that reuses the last walk finds
        # every storage holding the array the last call left there: on the mesh already)
        self.compiled.lay_out = self._replicate_state
        self.device_mesh = device_mesh
        self.batch_dim = batch_dim
        self._batch = None  # the last call's first split tensor argument

    @property
    def compilations(self):
        return self.compiled.compilations

    @property
    def batch_split(self):
        """Each (of this process's) devices' part of the last call's batch: its size along ``batch_dim``."""
        if self._batch is None:
            return None
        return [shard.data.shape[self.batch_dim] for shard in self._batch._value.addressable_shards]

    def __call__(self, *args, **kwargs):
        self._batch = None
        args, kwargs = self._split(args), self._split(kwargs)
        return self.compiled(*args, **kwargs)

    def _replicate_state(self, gathered):
        """Replicate, in place, the tensors the step reaches that are off the mesh (``gathered`` by the compiled
        step: through its closure and globals, and through the arguments that are not data, a model or an
        optimizer; the data arguments are on the mesh already)."""
        for t in gathered.tensors:
            if t.backend != "jax":
                raise RuntimeError(f"data_parallel runs on the jax backend, but the step reaches a tensor of shape "
                                   f"{list(t.shape)} on {t.backend}: build the model under "
                                   "xtensor.use_backend('jax'), or lay it out first with "
                                   "xtensor.distributed.tensor.distribute_module(model, mesh)")
        storages, _ = gathered.storages()
        off_mesh = [st for st in storages if not on_mesh(st.array, self.device_mesh)]
        for st in off_mesh:
            st.array = place(st.array, sharding(self.device_mesh, None, tuple(st.array.shape)))
        _invalidate(off_mesh, gathered.tensors)

    def _split(self, obj):
        """``obj`` (the arguments) with each tensor of one or more dims split along ``batch_dim``."""
        if isinstance(obj, Tensor):
            return self._split_tensor(obj)
        if isinstance(obj, (list, tuple)):
            items = [self._split(x) for x in obj]
            return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
        if isinstance(obj, dict):
            return {k: self._split(v) for k, v in obj.items()}
        return obj

    def _split_tensor(self, t):
        if t.requires_grad:
            raise RuntimeError(f"data_parallel splits the step's tensor arguments as data, but one of shape "
                               f"{list(t.shape)} requires grad: keep parameters in a module or the step's closure")
        mesh = self.device_mesh
        devices = mesh.size()
        split = t.ndim > 0 and t.shape[self.batch_dim] % devices == 0
        placed = distribute_tensor(t, mesh, [Shard(self.batch_dim) if split else Replicate()] * mesh.ndim)
        if self._batch is None and t.ndim > 0:
            self._batch = placed
        return placed

