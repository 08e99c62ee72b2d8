"""Data-parallel training over several processes (hosts) with ``xtensor.distributed`` on jax.

Two processes on this machine, each driving 2 simulated CPU devices (a mesh of 4 in all):

    export XLA_FLAGS=--xla_force_host_platform_device_count=2
    python examples/distributed_training.py --coordinator 127.0.0.1:29500 --world-size 2 --rank 0 &
    python examples/distributed_training.py --coordinator 127.0.0.1:29500 --world-size 2 --rank 1

On real hosts, start one process per host with the first host's address as the coordinator (or set
torchrun's MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK and omit the options). Without options the
script runs alone on this process's devices. Every process prints the same losses, and they equal a
run on one process: the step is one program over global tensors, XLA reduces the gradients.
"""
import argparse
import json

import jax
import numpy as np

import xtensor as torch
from xtensor import distributed as dist
from xtensor.distributed.tensor import Shard, from_local


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coordinator", help="host:port of rank 0's coordinator (else env:// or alone)")
    parser.add_argument("--world-size", type=int, default=-1)
    parser.add_argument("--rank", type=int, default=-1)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args(argv)

    if args.coordinator:  # before any jax tensor exists
        dist.init_process_group(init_method=f"tcp://{args.coordinator}", world_size=args.world_size,
                                rank=args.rank)
    torch.set_default_backend("jax")
    rank, world = dist.get_rank(), dist.get_world_size()
    device_type = "cuda" if torch.cuda.is_available() else "cpu"
    mesh = dist.init_device_mesh(device_type, (jax.device_count(),), mesh_dim_names=("dp",))  # every process's

    torch.manual_seed(0)  # the same initial weights in every process
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()

    def train_step(inputs, targets):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    step = dist.data_parallel(train_step, mesh)
    data = np.random.default_rng(0)
    losses = []
    for _ in range(args.steps):
        inputs = data.standard_normal((32, 8)).astype(np.float32)
        targets = (inputs[:, 0] > 0).astype(np.int64) + (inputs[:, 1] > 1)
        rows = slice(rank * 32 // world, (rank + 1) * 32 // world)  # each process loads only its rows
        batch = [from_local(torch.tensor(part[rows]), mesh, [Shard(0)]) for part in (inputs, targets)]
        losses.append(step(*batch).item())
    print(json.dumps({"rank": rank, "world_size": world, "devices": mesh.size(), "batch_split": step.batch_split,
                      "losses": losses, "weight_sum": model[0].weight.sum().item()}), flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
