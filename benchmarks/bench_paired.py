"""xtensor[numpy] against torch on ``bench_overhead``'s cases, paired round by round: each round times a batch of
xtensor calls and then a batch of torch calls, so a loaded machine's slow moments hit both sides of a round alike
(``bench_overhead`` times the torch column after the numpy ones, minutes apart on a long run). Reports each side's
best round (µs per call), their ratio, and the median of the rounds' own ratios.

    python -m benchmarks.bench_paired --cases lstm_lm_step,sum+grad --rounds 40
    python -m benchmarks.bench_paired --quick      # smoke run
    python -m benchmarks.bench_paired --clock cpu  # this thread's CPU time (time.thread_time) instead of wall time

With ``--clock cpu`` the time another process holds the core is not counted: on a machine loaded past its cores (load
8-10 on 2 cores) the wall clock's best rounds move by 2x run to run, the CPU clock's by a few percent (what remains:
caches the other processes evict). Both sides run on one thread (numpy's BLAS, torch's pool).
"""
import argparse
import os
import statistics
import sys
import time

if __name__ == "__main__":  # one thread, as bench_overhead
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import bench_overhead as bo  # noqa: E402

DEFAULT_CASES = ("lstm_lm_step", "mlp_step", "tiny_graph", "sum", "sum+grad", "add+grad", "mul+grad", "exp+grad")


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}


def _calls_per_round(fn, target, clock=time.perf_counter):
    """The number of calls (a power of 2) that lasts at least ``target`` seconds."""
    n = 1
    while True:
        t0 = clock()
        for _ in range(n):
            fn()
        if clock() - t0 >= target:
            return n
        n *= 2


def measure(names, rounds, target, clock=time.perf_counter):
    """{case: (xtensor µs, torch µs, median ratio)}: the best round of each, the two timed alternately on ``clock``,
    and the median over rounds of each round's ratio (the two halves of a round meet the same load)."""
    import torch
    torch.set_num_threads(1)
    results = {}
    for name in names:
        builders = bo.CASES[name].builders
        fns = [builders["xtensor[numpy]"](), builders["torch"]()]
        for fn in fns:  # warm-up
            for _ in range(3):
                fn()
        counts = [_calls_per_round(fn, target, clock) for fn in fns]
        results[name] = paired_rounds(fns, counts, rounds, clock)
    return results


def paired_rounds(fns, counts, rounds, clock):
    """(our best µs per call, their best, the median of the rounds' ratios): each round times ``counts[0]`` calls of
    ``fns[0]`` and then ``counts[1]`` of ``fns[1]``."""
    best, ratios = [float("inf")] * 2, []
    for _ in range(rounds):
        spent = []
        for i, (fn, n) in enumerate(zip(fns, counts)):
            t0 = clock()
            for _ in range(n):
                fn()
            spent.append((clock() - t0) / n * 1e6)
            best[i] = min(best[i], spent[-1])
        ratios.append(spent[0] / spent[1])
    return (*best, statistics.median(ratios))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES))
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--target-time", type=float, default=0.005, help="minimum seconds per round and side")
    parser.add_argument("--quick", action="store_true", help="3 rounds of at least 1 ms")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: time.perf_counter; cpu: this thread's CPU time (time.thread_time)")
    args = parser.parse_args(argv)
    rounds, target = (3, 0.001) if args.quick else (args.rounds, args.target_time)
    print("| case | xtensor[numpy] µs | torch µs | xtensor[numpy]/torch (best rounds) "
          "| median of the rounds' ratios |\n|---|---:|---:|---:|---:|")
    for name, (ours, theirs, ratio) in measure(args.cases.split(","), rounds, target, CLOCKS[args.clock]).items():
        print(f"| {name} | {ours:,.2f} | {theirs:,.2f} | {ours / theirs:.2f}x | {ratio:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
