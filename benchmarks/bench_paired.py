"""xtensor[numpy] against torch on ``bench_overhead``'s cases, paired round by round: each round times a batch of
xtensor calls and then a batch of torch calls, so a loaded machine's slow moments hit both sides of a round alike
(``bench_overhead`` times the torch column after the numpy ones, minutes apart on a long run). Reports each side's
best round (µs per call) and their ratio.

    python -m benchmarks.bench_paired --cases lstm_lm_step,sum+grad --rounds 40
    python -m benchmarks.bench_paired --quick      # smoke run
"""
import argparse
import os
import sys
import time

if __name__ == "__main__":  # one thread, as bench_overhead
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import bench_overhead as bo  # noqa: E402

DEFAULT_CASES = ("lstm_lm_step", "mlp_step", "tiny_graph", "sum", "sum+grad", "add+grad", "mul+grad", "exp+grad")


def _calls_per_round(fn, target):
    """The number of calls (a power of 2) that lasts at least ``target`` seconds."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= target:
            return n
        n *= 2


def measure(names, rounds, target):
    """{case: (xtensor µs, torch µs)}: the best round of each, the two timed alternately."""
    import torch
    torch.set_num_threads(1)
    results = {}
    for name in names:
        builders = bo.CASES[name].builders
        fns = [builders["xtensor[numpy]"](), builders["torch"]()]
        for fn in fns:  # warm-up
            for _ in range(3):
                fn()
        counts = [_calls_per_round(fn, target) for fn in fns]
        best = [float("inf")] * 2
        for _ in range(rounds):
            for i, (fn, n) in enumerate(zip(fns, counts)):
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                best[i] = min(best[i], (time.perf_counter() - t0) / n * 1e6)
        results[name] = tuple(best)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES))
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--target-time", type=float, default=0.005, help="minimum seconds per round and side")
    parser.add_argument("--quick", action="store_true", help="3 rounds of at least 1 ms")
    args = parser.parse_args(argv)
    rounds, target = (3, 0.001) if args.quick else (args.rounds, args.target_time)
    print("| case | xtensor[numpy] µs | torch µs | xtensor[numpy]/torch |\n|---|---:|---:|---:|")
    for name, (ours, theirs) in measure(args.cases.split(","), rounds, target).items():
        print(f"| {name} | {ours:,.2f} | {theirs:,.2f} | {ours / theirs:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
