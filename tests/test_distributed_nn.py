"""torch.distributed's collectives and torch.distributed.nn's differentiable ones, in a world of one process,
against PyTorch 2.13 running gloo with world_size=1: the same values, result types, gradients and errors, on
every backend; a collective across several processes says it is not run by xtensor."""
import numpy as np
import pytest

import xtensor as xt
import xtensor.distributed as xdist
import xtensor.distributed.nn as xdist_nn

torch = pytest.importorskip("torch")
import torch.distributed as tdist  # noqa: E402
import torch.distributed.nn as tdist_nn  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:torch.distributed.nn.functional:FutureWarning")
VALUES = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
WEIGHTS = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]], dtype=np.float32)


@pytest.fixture(scope="module", autouse=True)
def torch_world_of_one():
    """PyTorch's collectives need a process group: gloo over an in-memory store, one rank."""
    tdist.init_process_group("gloo", store=tdist.HashStore(), rank=0, world_size=1)
    yield
    tdist.destroy_process_group()


COLLECTIVES = {  # name -> (what it returns given the module and an input x, which is then weighted and summed)
    "all_reduce": lambda f, lib, x: f.all_reduce(x),
    "all_reduce_max": lambda f, lib, x: f.all_reduce(x, op=lib.distributed.ReduceOp.MAX),
    "all_gather": lambda f, lib, x: f.all_gather(x),
    "broadcast": lambda f, lib, x: f.broadcast(x, src=0),
    "reduce": lambda f, lib, x: f.reduce(x, dst=0),
    "gather": lambda f, lib, x: f.gather(x, dst=0),
    "scatter": lambda f, lib, x: f.scatter([x * 2], src=0),
    "reduce_scatter": lambda f, lib, x: f.reduce_scatter(lib.zeros(2, 3), [x]),
    "all_to_all": lambda f, lib, x: f.all_to_all([lib.empty(2, 3)], [x]),
    "all_to_all_single": lambda f, lib, x: f.all_to_all_single(lib.empty(2, 3), x),
}


def _run(lib, functional, name):
    x = lib.tensor(VALUES, requires_grad=True)
    result = COLLECTIVES[name](functional, lib, x)
    outputs = result if isinstance(result, tuple) else (result,)
    sum(((out * lib.tensor(WEIGHTS)) ** 2).sum() for out in outputs).backward()
    return result, x.grad


@pytest.mark.parametrize("name", COLLECTIVES)
def test_differentiable_collective_gives_pytorchs_values_and_gradient(backend, name):
    result, grad = _run(xt, xdist_nn, name)
    expected, expected_grad = _run(torch, tdist_nn, name)
    assert isinstance(result, tuple) == isinstance(expected, tuple)
    for ours, theirs in zip(*((r if isinstance(r, tuple) else (r,)) for r in (result, expected))):
        assert ours.backend == backend
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy())
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(grad.numpy(), expected_grad.numpy())


def test_torch_distributed_nn_has_every_collective_pytorchs_defines():
    functional = tdist_nn.functional
    theirs = {name for name, value in vars(functional).items()
              if not name.startswith("_") and getattr(value, "__module__", None) == functional.__name__}
    assert theirs and theirs == set(xdist_nn.__all__)


def test_in_place_collectives_keep_or_copy_the_one_rank_s_tensor(backend):
    for lib, dist in ((xt, xdist), (torch, tdist)):
        t = lib.tensor(VALUES)
        gathered = [lib.zeros(2, 3)]
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        dist.broadcast(t, src=0)
        dist.all_gather(gathered, t)
        dist.barrier()
        np.testing.assert_allclose(t.numpy(), VALUES)
        np.testing.assert_allclose(gathered[0].numpy(), VALUES)
    assert xdist.all_reduce(xt.tensor(VALUES), async_op=True).wait()


def test_object_collectives_give_pytorchs_lists():
    def run(dist):
        metrics, gathered, scattered, shared = {"accuracy": 0.75}, [None], [None], [1, "config"]
        everyone = [None, None]  # longer than the world: PyTorch fills the slots of the ranks there are
        dist.all_gather_object(everyone, metrics)
        dist.gather_object(metrics, gathered, dst=0)
        dist.scatter_object_list(scattered, [{"shard": 0}], src=0)
        dist.broadcast_object_list(shared, src=0)
        return everyone, gathered, scattered, shared, everyone[0] is metrics
    assert run(xdist) == run(tdist) == ([{"accuracy": 0.75}, None], [{"accuracy": 0.75}], [{"shard": 0}],
                                        [1, "config"], False)


@pytest.mark.parametrize("call", [lambda dist, lib, t: dist.broadcast(t, src=1),
                                  lambda dist, lib, t: dist.all_gather([t, lib.zeros(2, 3)], t)])
def test_a_rank_or_list_beyond_the_world_of_one_raises_pytorchs_error(call):
    with pytest.raises(RuntimeError) as theirs:
        call(tdist, torch, torch.tensor(VALUES))
    gist = str(theirs.value).split(": ", 1)[1].split(" (")[0]  # "invalid root rank: 1", "invalid output tensor list..."
    with pytest.raises(RuntimeError, match=gist):
        call(xdist, xt, xt.tensor(VALUES))


def test_several_processes_are_refused_with_a_pointer_to_jax_distribution(monkeypatch):
    monkeypatch.setattr(xdist.distributed_c10d, "_world_size", lambda: 4)
    with pytest.raises(NotImplementedError, match="all_reduce across 4 processes.*data_parallel"):
        xdist_nn.all_reduce(xt.tensor(VALUES))
    with pytest.raises(NotImplementedError, match="SyncBatchNorm across several processes"):
        xt.nn.SyncBatchNorm(2)(xt.ones(3, 2))


def test_a_world_of_one_needs_no_jax():
    """A numpy-only program's collectives must not import jax (it may not be installed)."""
    import subprocess
    import sys
    code = ("import sys; import xtensor as xt, xtensor.distributed as d, xtensor.distributed.nn as n; "
            "t = xt.ones(2); d.all_reduce(t); n.all_gather(t); d.barrier(); print('jax' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
