"""Eager indexing on jax with host indices: xtensor[jax] against ``jax.numpy`` indexing the same arrays, paired round by
round (each round times a batch of xtensor calls, then a batch of jnp calls), on a float32[1437, 1, 8, 8] tensor (the
demo's digits): a 32-row gather, ``x[3]``, ``x[2:5]``, a boolean mask, a 32-row write, a write of ``x[2:5]``, and one epoch of a DataLoader
over a TensorDataset (45 batches of 32; jnp: the same gathers on the raw arrays). Reports each side's best round (µs per
call) and the median of the rounds' ratios.

    python -m benchmarks.bench_jax_indexing --rounds 15
    python -m benchmarks.bench_jax_indexing --clock process   # CPU time of every thread (jax computes on its own)
"""
import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from benchmarks.bench_paired import paired_rounds  # noqa: E402

CLOCKS = {"wall": time.perf_counter, "process": time.process_time}


def cases():
    """{name: (xtensor call, jnp call, calls per batch)}."""
    import xtensor as xt
    from xtensor.utils.data import DataLoader, TensorDataset

    rng = np.random.default_rng(0)
    x = xt.tensor(rng.standard_normal((1437, 1, 8, 8)).astype(np.float32), backend="jax")
    y = xt.tensor(rng.integers(0, 10, 1437), backend="jax")
    raw, raw_y = x._value, y._value
    rows = rng.integers(0, 1437, 32)
    mask = rng.random(1437) < 0.5
    mask_tensor = xt.tensor(mask, backend="jax")
    values = xt.zeros(32, 1, 8, 8, backend="jax")
    box = xt.zeros(3, 1, 8, 8, backend="jax")
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    batches = [np.sort(rng.permutation(1437)[i:i + 32]) for i in range(0, 1437, 32)]

    def write():
        x[rows] = values

    def write_slice():
        x[2:5] = box

    def epoch():
        for _ in loader:
            pass

    def jnp_epoch():
        for b in batches:
            raw[b], raw_y[b]
    return {"gather 32 rows": (lambda: x[rows], lambda: raw[rows], 20),
            "x[3]": (lambda: x[3], lambda: raw[3], 20),
            "x[2:5]": (lambda: x[2:5], lambda: raw[2:5], 20),
            "bool mask": (lambda: x[mask_tensor], lambda: raw[mask], 10),
            "write 32 rows": (write, lambda: raw.at[rows].set(values._value), 10),
            "x[2:5] = box": (write_slice, lambda: raw.at[2:5].set(box._value), 10),
            "DataLoader epoch": (epoch, jnp_epoch, 1)}


def measure(rounds, clock):
    results = {}
    for name, (ours, theirs, n) in cases().items():
        for fn in (ours, theirs):  # compile and warm up
            fn(), fn()
        results[name] = paired_rounds((ours, theirs), (n, n), rounds, clock)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    args = parser.parse_args(argv)
    print("| case | xtensor[jax] µs | jnp µs | median of the rounds' ratios |\n|---|---:|---:|---:|")
    for name, (ours, theirs, ratio) in measure(args.rounds, CLOCKS[args.clock]).items():
        print(f"| {name} | {ours:,.1f} | {theirs:,.1f} | {ratio:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
