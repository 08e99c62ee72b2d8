"""Observations of ``xtensor.distributed`` on 8 simulated jax CPU devices, printed as JSON.

jax fixes its device count when it starts, so ``tests/test_distributed.py`` runs this file in a subprocess
with ``XLA_FLAGS=--xla_force_host_platform_device_count=8``. Each training run is compared with the same
run on one device in this process (the single-device result is the oracle). Shapes are tiny and the
runs few: every compiled step costs a compilation.
"""
import json
import sys

import numpy as np
from jax.sharding import PartitionSpec as P

import xtensor as t
from xtensor import nn, optim
from xtensor.distributed import data_parallel, init_device_mesh
from xtensor.distributed.tensor import Replicate, Shard, distribute_module, distribute_tensor, redistribute
from xtensor.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 4)).astype(np.float32)
Y = RNG.integers(0, 3, 16)
X_ODD, Y_ODD = X[:12], Y[:12]  # 12 rows do not split over 8 devices


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is observed
        return [type(e).__name__, str(e)]
    return None


def _spec(x):
    """The PartitionSpec of a placed tensor, or the device of one that is not."""
    sharding = x._value.sharding
    return str(sharding.spec) if hasattr(sharding, "spec") else str(x.device)


def _shard_shapes(x):
    return sorted({tuple(s.data.shape) for s in x._value.addressable_shards})


def _model():
    t.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    return model, optim.Adam(model.parameters(), lr=0.05)


def _train(run, lay_out=None, state_in_arguments=False):
    """Three steps on X (and one on the odd batch) of an MLP with Adam: losses, parameters, Adam's moments.
    The step finds the model and optimizer in its closure, or as its arguments (``state_in_arguments``)."""
    model, optimizer = _model()
    if lay_out is not None:
        lay_out(model)
    loss_fn = nn.CrossEntropyLoss()

    def train_step(net, opt, x, y):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss

    state = (model, optimizer) if state_in_arguments else ()
    step = run(train_step if state_in_arguments else lambda x, y: train_step(model, optimizer, x, y))
    losses = [step(*state, t.tensor(X), t.tensor(Y)).item() for _ in range(3)]
    losses.append(step(*state, t.tensor(X_ODD), t.tensor(Y_ODD)).item())
    moments = [optimizer.state[p]["exp_avg_sq"] for p in model.parameters()]
    return {"losses": losses, "params": [p.tolist() for p in model.parameters()],
            "moments": [m.tolist() for m in moments], "param_specs": [_spec(p) for p in model.parameters()],
            "moment_specs": [_spec(m) for m in moments], "step": step}


def _eager_gradients(lay_out):
    """One eager forward and backward: the loss, the parameters' gradients and the layouts in between."""
    model, _ = _model()
    if lay_out is not None:
        lay_out(model)
    hidden = model[0](t.tensor(X))
    output = model[2](model[1](hidden))
    loss = nn.functional.cross_entropy(output, t.tensor(Y))
    loss.backward()
    return {"loss": loss.item(), "grads": [p.grad.tolist() for p in model.parameters()],
            "layouts": [_spec(hidden), _spec(output)], "grad_specs": [_spec(p.grad) for p in model.parameters()]}


def _tensor_parallel(model, mesh):
    return parallelize_module(model, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})


def observe():
    seen = {}
    t.set_default_backend("jax")
    mesh = init_device_mesh("cpu", (8,), mesh_dim_names=("dp",))
    grid = init_device_mesh("cpu", (4, 2), mesh_dim_names=("dp", "tp"))
    seen["mesh"] = [repr(mesh), list(mesh.shape), mesh.ndim, mesh.size(), mesh.mesh.tolist(), mesh.mesh_dim_names]
    seen["grid"] = [repr(grid), list(grid.shape), grid.size(1), grid.mesh.tolist()]
    seen["grid_slices"] = [[repr(grid[name]), grid[name].mesh.tolist(), grid[name].mesh_dim_names]
                           for name in ("dp", "tp")]
    seen["unnamed"] = repr(init_device_mesh("cpu", (2, 2)))
    seen["too_big"] = _error(lambda: init_device_mesh("cpu", (16,)))
    seen["bad_slice"] = _error(lambda: grid["pp"])
    seen["unordered_slice"] = _error(lambda: grid["tp", "dp"])
    seen["unnamed_slice"] = _error(lambda: init_device_mesh("cpu", (8,))["dp"])
    seen["names_length"] = _error(lambda: init_device_mesh("cpu", (4, 2), mesh_dim_names=("dp",)))

    values = t.arange(64.0).view(8, 8)
    placed = {
        "shard0": distribute_tensor(values, mesh, [Shard(0)]),
        "shard_last": distribute_tensor(values, mesh, [Shard(-1)]),
        "replicate": distribute_tensor(values, mesh, [Replicate()]),
        "grid_shard0_shard1": distribute_tensor(values, grid, [Shard(0), Shard(1)]),
        "grid_both_on_0": distribute_tensor(values, grid, [Shard(0), Shard(0)]),
        "tp_slice": distribute_tensor(values, grid["tp"], [Shard(1)]),
        "partition_spec": distribute_tensor(values, grid, P("tp", "dp")),
    }
    seen["placed"] = {k: [_spec(x), _shard_shapes(x), x.shape == values.shape,
                          bool((x == values).all().item())] for k, x in placed.items()}
    seen["on_numpy_moves"] = [(lambda x: [x.backend, _spec(x), x.tolist()])(
        distribute_tensor(t.tensor([1.0, 2.0]).to("numpy"), mesh, [Replicate()]))]
    leaf = t.ones(8, 2, requires_grad=True)
    distributed_leaf = distribute_tensor(leaf * 2, mesh, [Shard(0)])
    seen["leaf"] = [distributed_leaf.is_leaf, distributed_leaf.requires_grad, distributed_leaf.grad_fn is None]
    seen["uneven"] = _error(lambda: distribute_tensor(t.ones(12, 3), mesh, [Shard(0)]))
    seen["placements_length"] = _error(lambda: distribute_tensor(values, grid, [Shard(0)]))
    seen["shard_dim_range"] = _error(lambda: distribute_tensor(values, mesh, [Shard(2)]))
    seen["spec_unknown_axis"] = _error(lambda: distribute_tensor(values, mesh, P("tp")))

    x = t.tensor([[1.0, -2.0]] * 8, requires_grad=True)
    y = redistribute(x, mesh, [Shard(0)])
    (y * y).sum().backward()
    seen["redistribute_grad"] = [type(y.grad_fn).__name__, _spec(y), x.grad.tolist(), str(x.grad.device)]
    on_3 = x.detach().to("cpu:3").requires_grad_()
    (redistribute(on_3, mesh, [Shard(0)]) * 3).sum().backward()
    seen["grad_returns_to_source_device"] = [str(on_3.grad.device), on_3.grad.tolist()]

    model, _ = _model()
    weight = model[0].weight
    distribute_module(model, mesh)
    seen["distribute_module"] = [model[0].weight is weight, [_spec(p) for p in model.parameters()],
                                 model[0].weight.tolist() == _model()[0][0].weight.tolist()]

    single = _train(t.compile)
    # a model committed to one device must be replicated first (jax refuses to mix it with the mesh's arrays)
    data_parallel_run = _train(lambda step: data_parallel(step, mesh), lambda m: m.to("cpu:3"),
                               state_in_arguments=True)
    both = _train(lambda step: data_parallel(step, grid["dp"]), lambda m: _tensor_parallel(m, grid["tp"]))
    for name, run in (("single", single), ("data_parallel", data_parallel_run), ("dp_tp", both)):
        step = run.pop("step")
        run["compilations"] = step.compilations
        run["batch_split"] = getattr(step, "batch_split", None)
        seen[name] = run

    seen["eager_plain"] = _eager_gradients(None)
    seen["eager_tp"] = _eager_gradients(lambda m: _tensor_parallel(m, mesh))
    seen["tp_not_linear"] = _error(lambda: parallelize_module(nn.ReLU(), mesh, ColwiseParallel()))
    seen["tp_2d_mesh"] = _error(lambda: parallelize_module(model, grid, ColwiseParallel()))
    return seen


if __name__ == "__main__":
    json.dump(observe(), sys.stdout)
