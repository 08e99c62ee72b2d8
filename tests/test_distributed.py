"""xtensor.distributed over jax.sharding: meshes, placements, data- and tensor-parallel training on 8 simulated
devices (the same results as one device), and two processes joined by jax.distributed over localhost.

jax fixes its device count at start-up, so the multi-device observations come from ``distributed_probe.py``
run once in a subprocess with 8 simulated CPU devices, and the multi-process test runs
``examples/distributed_training.py`` as two processes of 2 devices each. Error messages are PyTorch's,
from torch/distributed's source (its process groups cannot start here without a launcher).
"""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from xla_flags import with_devices

pytest.importorskip("jax")

import xtensor as t  # noqa: E402
from xtensor import distributed as dist  # noqa: E402
from xtensor.distributed.tensor import Replicate, Shard  # noqa: E402

HERE = os.path.dirname(__file__)
EXAMPLE = os.path.join(HERE, os.pardir, "examples", "distributed_training.py")


def _run(args, devices, **env):
    environment = with_devices(devices) | env
    return subprocess.Popen([sys.executable, *args], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _output(process):
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def seen():
    return _output(_run([os.path.join(HERE, "distributed_probe.py")], 8))


def _assert_same_training(run, single):
    np.testing.assert_allclose(run["losses"], single["losses"], rtol=1e-5)
    for name in ("params", "moments"):
        for got, want in zip(run[name], single[name]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------- meshes
def test_init_device_mesh_lays_the_first_devices_out_in_row_major_order(seen):
    assert seen["mesh"] == ["DeviceMesh((dp=8), 'cpu', devices=[0, 1, 2, 3, 4, 5, 6, 7])", [8], 1, 8,
                            list(range(8)), ["dp"]]
    assert seen["grid"] == ["DeviceMesh((dp=4, tp=2), 'cpu', devices=[[0, 1], [2, 3], [4, 5], [6, 7]])", [4, 2], 2,
                            [[0, 1], [2, 3], [4, 5], [6, 7]]]
    assert seen["unnamed"] == "DeviceMesh((2, 2), 'cpu', devices=[[0, 1], [2, 3]])"


def test_slicing_a_mesh_by_name_gives_the_dimension_through_the_first_device(seen):
    assert seen["grid_slices"] == [["DeviceMesh((dp=4), 'cpu', devices=[0, 2, 4, 6])", [0, 2, 4, 6], ["dp"]],
                                   ["DeviceMesh((tp=2), 'cpu', devices=[0, 1])", [0, 1], ["tp"]]]


def test_mesh_errors_are_pytorchs(seen):
    assert seen["too_big"] == ["RuntimeError", "Mesh should not be bigger than default world size 8, but found 16 "
                                               "ranks!"]
    assert seen["bad_slice"] == ["KeyError", "\"Invalid mesh_dim_names ('pp',) specified. Valid mesh_dim_names are "
                                             "['dp', 'tp'].\""]
    assert seen["unordered_slice"][0] == "KeyError" and "ascending order" in seen["unordered_slice"][1]
    assert seen["unnamed_slice"] == ["RuntimeError", "Cannot slice a DeviceMesh without mesh_dim_names!"]
    assert seen["names_length"] == ["RuntimeError", "mesh_shape and mesh_dim_names should have same length! Found "
                                                    "len(mesh_dim_names): 1 and len(mesh_shape):2."]


# ---------------------------------------------------------------------------------------------- placing
@pytest.mark.parametrize("name, spec, shard_shape", [
    ("shard0", "P('dp', None)", [1, 8]),
    ("shard_last", "P(None, 'dp')", [8, 1]),
    ("replicate", "P(None, None)", [8, 8]),
    ("grid_shard0_shard1", "P('dp', 'tp')", [2, 4]),
    ("grid_both_on_0", "P(('dp', 'tp'), None)", [1, 8]),
    ("tp_slice", "P(None, 'tp')", [8, 4]),
    ("partition_spec", "P('tp', 'dp')", [4, 2]),
])
def test_distribute_tensor_shards_each_dim_over_its_mesh_dims_and_keeps_the_global_values(seen, name, spec,
                                                                                          shard_shape):
    assert seen["placed"][name] == [spec, [shard_shape], True, True]


def test_distribute_tensor_moves_a_tensor_of_another_backend_to_jax(seen):
    assert seen["on_numpy_moves"] == [["jax", "P(None,)", [1.0, 2.0]]]


def test_distribute_tensor_returns_a_leaf_that_requires_grad_as_its_input(seen):
    assert seen["leaf"] == [True, True, True]


def test_a_dimension_that_does_not_split_evenly_is_an_error_naming_the_sizes(seen):
    kind, message = seen["uneven"]
    assert kind == "ValueError" and "size 12" in message and "[12, 3]" in message and "8 devices" in message


def test_bad_placements_raise_pytorchs_errors(seen):
    assert seen["placements_length"] == ["ValueError", "`placements` must have the same length as "
                                         "`device_mesh.ndim`! Found placements length: 1, and device_mesh.ndim: 2."]
    assert seen["shard_dim_range"] == ["IndexError",
                                       "Dimension out of range (expected to be in range of [-2, 1], but got 2)"]
    assert seen["spec_unknown_axis"][0] == "ValueError" and "'tp'" in seen["spec_unknown_axis"][1]


def test_redistribute_is_differentiable_and_the_gradient_returns_to_the_source_layout(seen):
    assert seen["redistribute_grad"] == ["RedistributeBackward", "P('dp', None)", [[2.0, -4.0]] * 8, "cpu"]
    assert seen["grad_returns_to_source_device"] == ["cpu:3", [[3.0, 3.0]] * 8]


def test_distribute_module_replicates_parameters_in_place(seen):
    same_object, specs, same_values = seen["distribute_module"]
    assert same_object and same_values and specs == ["P(None, None)", "P(None,)"] * 2


# ---------------------------------------------------------------------------------------------- training
def test_data_parallel_step_on_8_devices_gives_the_single_device_result(seen):
    _assert_same_training(seen["data_parallel"], seen["single"])


def test_data_parallel_keeps_parameters_and_optimizer_state_replicated(seen):
    run = seen["data_parallel"]
    replicated = {"P()", "P(None,)", "P(None, None)"}  # no dimension names a mesh axis
    assert set(run["param_specs"] + run["moment_specs"]) <= replicated


def test_data_parallel_splits_the_batch_and_replicates_one_that_does_not_divide(seen):
    assert seen["data_parallel"]["batch_split"] == [12] * 8  # the last batch: 12 rows on 8 devices
    assert seen["dp_tp"]["batch_split"] == [3] * 8  # 12 rows over dp=4, each replicated over tp=2


def test_data_parallel_compiles_as_often_as_the_single_device_step(seen):
    assert seen["data_parallel"]["compilations"] == seen["single"]["compilations"] == 3


def test_data_and_tensor_parallel_on_a_4x2_mesh_gives_the_single_device_result(seen):
    _assert_same_training(seen["dp_tp"], seen["single"])
    assert seen["dp_tp"]["param_specs"] == ["P('tp', None)", "P('tp',)", "P(None, 'tp')", "P()"]


def test_tensor_parallel_linear_layers_give_the_single_device_gradients_eagerly(seen):
    plain, sharded = seen["eager_plain"], seen["eager_tp"]
    assert sharded["loss"] == pytest.approx(plain["loss"], rel=1e-6)
    for got, want in zip(sharded["grads"], plain["grads"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_colwise_output_is_sharded_on_features_and_rowwise_output_replicated(seen):
    assert seen["eager_tp"]["layouts"] == ["P(None, 'dp')", "P(None, None)"]
    assert seen["eager_tp"]["grad_specs"] == ["P('dp',)", "P('dp',)", "P(None, 'dp')", "P()"]


def test_parallel_styles_refuse_other_modules_and_meshes_as_pytorch(seen):
    assert seen["tp_not_linear"] == ["NotImplementedError",
                                     "ColwiseParallel currently only support nn.Linear and nn.Embedding!"]
    kind, message = seen["tp_2d_mesh"]
    assert kind == "ValueError" and message.startswith("Tensor Parallel only accepts a 1D DeviceMesh, but found 2D!")


# ---------------------------------------------------------------------------------------------- processes
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_over_localhost_train_as_one_process_does():
    coordinator = f"127.0.0.1:{_free_port()}"
    ranks = [_run([EXAMPLE, "--coordinator", coordinator, "--world-size", "2", "--rank", str(r), "--steps", "3"], 2)
             for r in (0, 1)]
    alone = _run([EXAMPLE, "--steps", "3"], 1)
    results, reference = [_output(p) for p in ranks], _output(alone)
    assert [(r["rank"], r["world_size"], r["devices"]) for r in results] == [(0, 2, 4), (1, 2, 4)]
    assert reference["devices"] == 1
    for result in results:
        assert result["batch_split"] == [8, 8]  # this process's 2 devices, 8 rows each of 32
        np.testing.assert_allclose(result["losses"], reference["losses"], rtol=1e-5)
        assert result["weight_sum"] == pytest.approx(reference["weight_sum"], rel=1e-5)


# ---------------------------------------------------------------------------------------------- one process
def test_a_lone_process_is_a_world_of_one():
    assert dist.is_available() and not dist.is_initialized()
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)


@pytest.mark.parametrize("kwargs, missing", [
    ({"init_method": "env://"}, "env:// rendezvous: environment variable MASTER_ADDR expected, but not set"),
    ({"init_method": "tcp://127.0.0.1:1", "rank": 0}, "tcp:// rendezvous: world_size parameter missing"),
    ({"init_method": "tcp://127.0.0.1:1", "world_size": 2}, "tcp:// rendezvous: rank parameter missing"),
])
def test_init_process_group_without_its_settings_raises_pytorchs_error(monkeypatch, kwargs, missing):
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    with pytest.raises(ValueError, match=f"^Error initializing torch.distributed using {missing}$"):
        dist.init_process_group(**kwargs)


def test_placements_print_and_compare_as_pytorchs():
    torch_tensor = pytest.importorskip("torch.distributed.tensor")
    for ours, theirs in ((Shard(0), torch_tensor.Shard(0)), (Shard(-1), torch_tensor.Shard(-1)),
                         (Replicate(), torch_tensor.Replicate())):
        assert repr(ours) == repr(theirs)
        assert ours.is_shard() == theirs.is_shard() and ours.is_replicate() == theirs.is_replicate()
    assert Shard(1) == Shard(1) and Shard(1) != Shard(0) and Replicate() == Replicate() and Shard(0) != Replicate()


@pytest.mark.parametrize("backend_name", ["numpy", "array_api_strict"])
def test_data_parallel_refuses_a_model_off_jax_naming_the_way_out(backend_name):
    pytest.importorskip(backend_name)
    with t.use_backend(backend_name):
        weight = t.ones(2, 2, requires_grad=True)

    def train_step(x):
        return (x @ weight).sum()

    step = dist.data_parallel(train_step, dist.init_device_mesh("cpu", (1,)))
    with pytest.raises(RuntimeError, match=f"on {backend_name}: build the model under xtensor.use_backend"):
        step(t.ones(2, 2))


def test_data_parallel_refuses_an_argument_that_requires_grad():
    with t.use_backend("jax"):
        step = dist.data_parallel(lambda x: x.sum(), dist.init_device_mesh("cpu", (1,)))
        with pytest.raises(RuntimeError, match=r"shape \[2\] requires grad"):
            step(t.ones(2, requires_grad=True))
