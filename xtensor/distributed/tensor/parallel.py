"""Tensor parallelism: PyTorch's ``parallelize_module`` with ``ColwiseParallel``/``RowwiseParallel``.

A style shards an ``nn.Linear``'s (or ``nn.Embedding``'s) weight over a 1-D mesh (slice a larger one:
``mesh["tp"]``) and pins the layouts of its input and output with forward hooks; XLA inserts the
collectives between them (``ColwiseParallel`` then ``RowwiseParallel`` is Megatron's MLP: one
all-reduce). Differences from PyTorch, all from tensors being global here: outputs are always the global
tensor (``use_local_output`` has nothing to choose), an input's layout is read from the input itself
(``input_layouts`` is accepted for PyTorch code), and parameters are re-laid in place, so the same
Parameter objects (and an optimizer made before) stay valid.
"""
import fnmatch
import warnings

from . import Replicate, Shard, distribute_module, place_, redistribute

__all__ = ["ParallelStyle", "ColwiseParallel", "RowwiseParallel", "parallelize_module"]


class ParallelStyle:
    """A layout for one module: which dim of each parameter is sharded, the input and output layouts."""

    weight_dims = {}  # module class name -> the weight dim this style shards
    bias_placement = None  # placement of a Linear's bias
    desired_input_layout = None
    default_output_layout = None

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = input_layouts
        self.output_layouts = output_layouts or self.default_output_layout
        self.use_local_output = use_local_output

    def _apply(self, module, device_mesh):
        from ...nn import Embedding, Linear
        kind = "Linear" if isinstance(module, Linear) else "Embedding" if isinstance(module, Embedding) else None
        if kind is None:
            raise NotImplementedError(f"{type(self).__name__} currently only support nn.Linear and nn.Embedding!")

        def partition(name, submodule, mesh):
            if submodule is module:
                for param_name, param in module.named_parameters(recurse=False):
                    placement = Shard(self.weight_dims[kind]) if param_name == "weight" else self.bias_placement
                    place_(param, mesh, [placement])

        desired_input = Replicate() if kind == "Embedding" else self.desired_input_layout
        return distribute_module(module, device_mesh, partition,
                                 lambda mod, inputs, mesh: _laid_out(inputs, mesh, desired_input),
                                 lambda mod, outputs, mesh: _laid_out(outputs, mesh, self.output_layouts))

    def __repr__(self):
        return (f"{type(self).__name__}(input_layouts={self.input_layouts}, output_layouts={self.output_layouts}, "
                f"use_local_output={self.use_local_output})")


class ColwiseParallel(ParallelStyle):
    """Split the output features: ``Linear.weight`` (out, in) and ``bias`` on dim 0 (``Embedding.weight`` on
    its embedding dim); the input is replicated, the output sharded on its last dim."""

    weight_dims = {"Linear": 0, "Embedding": 1}
    bias_placement = Shard(0)
    desired_input_layout = Replicate()
    default_output_layout = Shard(-1)


class RowwiseParallel(ParallelStyle):
    """Split the input features: ``Linear.weight`` on dim 1, ``bias`` replicated (``Embedding.weight`` on its
    rows); the input is sharded on its last dim, the output replicated (XLA's all-reduce of the partial
    sums)."""

    weight_dims = {"Linear": 1, "Embedding": 0}
    bias_placement = Replicate()
    desired_input_layout = Shard(-1)
    default_output_layout = Replicate()


def _laid_out(tensors, device_mesh, placement):
    """``tensors`` (one, or a tuple of inputs) with each tensor redistributed to ``placement``."""
    from ..._tensor import Tensor
    if isinstance(tensors, Tensor):
        return redistribute(tensors, device_mesh, [placement])
    return tuple(redistribute(t, device_mesh, [placement]) if isinstance(t, Tensor) else t for t in tensors)


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    """Apply ``parallelize_plan`` -- one ``ParallelStyle``, or ``{submodule path: style}`` where each dotted
    token may be an ``fnmatch`` pattern (``"layers.*.mlp.fc1"``) -- on a 1-D ``device_mesh``."""
    from . import default_mesh
    device_mesh = device_mesh or default_mesh()
    if device_mesh.ndim != 1:
        raise ValueError(f"Tensor Parallel only accepts a 1D DeviceMesh, but found {device_mesh.ndim}D! If you "
                         "have a 2-D or N-D device_mesh, consider passing in device_mesh[\"tp\"]")
    if parallelize_plan is None:
        warnings.warn("No parallelize_plan is provided and auto-parallel is not supported at the moment, so this "
                      "parallelize_module call will do nothing.", stacklevel=2)
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        return parallelize_plan._apply(module, device_mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError("Expect Union[ParallelStyle, Dict[str, ParallelStyle]] for parallelize_plan, "
                        f"{type(parallelize_plan)} found!")
    for path, style in parallelize_plan.items():
        matched = [m for name, m in module.named_modules() if _matches(name, path)]
        if not matched:
            warnings.warn(f"Parallelize plan key '{path}' could not be resolved: no submodule matches it in "
                          f"{type(module).__name__}, skipping this plan entry.", stacklevel=2)
        for submodule in matched:
            style._apply(submodule, device_mesh)
    return module


def _matches(name, path):
    """Whether submodule ``name`` matches plan key ``path`` token by token ("" is the module itself)."""
    if not path or not name:
        return path == name
    tokens, parts = path.split("."), name.split(".")
    return len(tokens) == len(parts) and all(fnmatch.fnmatchcase(p, t) for p, t in zip(parts, tokens))
