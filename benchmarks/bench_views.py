"""What views and in-place writes cost: xtensor against numpy, torch and jax, in one run.

Run from the repository root::

    python -m benchmarks.bench_views            # full run
    python -m benchmarks.bench_views --quick    # smoke run

Three claims of xtensor's storage model (``xtensor/_tensor.py``), each measured:

* reading an unmodified view costs what the backend's own slice costs (``slice+sum``, ``view read``);
* an in-place op through a view on numpy is truly in place: no hidden copy of the base (``peak KiB``,
  measured with ``tracemalloc``, which sees numpy's allocations; the base is 7.6 MiB);
* on jax an in-place write through a view is one functional update of the base, whatever the number
  of other aliases (``write via view``, ``... 20 aliases``): compare with jax's own ``.at[].add``.

Timing reuses ``bench_overhead``'s auto-ranged, family-interleaved rounds; the figure is the median
per-call time in µs. Nothing is asserted here (tests/test_views.py checks the no-copy claim).
"""
import argparse
import statistics
import tracemalloc

import numpy as np

try:
    from . import bench_overhead as bench
except ImportError:  # run as a script
    import bench_overhead as bench

N = 1000  # the base is N x N float64 (7.6 MiB)
ROWS, COLS = slice(10, 90), slice(None, None, 2)
ALIASES = 20
COLUMNS = ("numpy", "xtensor[numpy]", "torch", "jax", "xtensor[jax]")
RATIOS = {"xtensor[numpy]/numpy": ("xtensor[numpy]", "numpy"), "xtensor[numpy]/torch": ("xtensor[numpy]", "torch"),
          "xtensor[jax]/jax": ("xtensor[jax]", "jax")}


def _base():
    return np.random.default_rng(0).standard_normal((N, N))


def _xt_base(backend):
    return bench._xt_tensors(backend, [_base()], [False])[0]


# ------------------------------------------------------------------ cases: name -> column -> builder
def _slice_sum():
    def numpy():
        a = _base()
        return lambda: a[ROWS, COLS].sum()

    def xtensor(backend, block):
        x = _xt_base(backend)
        return lambda: block(x[ROWS, COLS].sum())

    def torch():
        t = bench._torch().from_numpy(_base())
        return lambda: t[ROWS, COLS].sum()

    def jax():
        jax_, jnp = bench._jax()
        a = jnp.asarray(_base())
        return lambda: a[ROWS, COLS].sum().block_until_ready()
    return numpy, xtensor, torch, jax


def _view_read():
    """An existing, unmodified view read again: its cached value, no gather from the base."""
    def numpy():
        v = _base()[ROWS, COLS]
        return lambda: v.sum()

    def xtensor(backend, block):
        v = _xt_base(backend)[ROWS, COLS]
        return lambda: block(v.sum())

    def torch():
        v = bench._torch().from_numpy(_base())[ROWS, COLS]
        return lambda: v.sum()

    def jax():
        jax_, jnp = bench._jax()
        v = jnp.asarray(_base())[ROWS, COLS]
        return lambda: v.sum().block_until_ready()
    return numpy, xtensor, torch, jax


def _write(aliases):
    """``view += 1`` through a strided view of the base, with ``aliases`` other views of it alive."""
    def numpy():
        a = _base()
        others = [a[i] for i in range(aliases)]  # noqa: F841  (kept alive, as in the other columns)

        def step():
            a[ROWS, COLS] += 1
        return step

    def xtensor(backend, block):
        x = _xt_base(backend)
        v = x[ROWS, COLS]
        others = [x[i] for i in range(aliases)]  # noqa: F841

        def step():
            v.add_(1)
            block(x)
        return step

    def torch():
        t = bench._torch().from_numpy(_base())
        v = t[ROWS, COLS]
        others = [t[i] for i in range(aliases)]  # noqa: F841
        return lambda: v.add_(1)

    def jax():
        jax_, jnp = bench._jax()
        state = {"a": jnp.asarray(_base())}

        def step():  # jax's own functional update of the base
            state["a"] = state["a"].at[ROWS, COLS].add(1)
            state["a"].block_until_ready()
        return step
    return numpy, xtensor, torch, jax


CASES = {"slice+sum": _slice_sum, "view read": _view_read, "write via view": lambda: _write(0),
         f"write via view, {ALIASES} aliases": lambda: _write(ALIASES)}


def _builders(case):
    numpy, xtensor, torch, jax = CASES[case]()
    return {"numpy": numpy, "xtensor[numpy]": lambda: xtensor("numpy", lambda t: t),
            "xtensor[jax]": lambda: xtensor("jax", lambda t: bench._block_xt(t)), "torch": torch, "jax": jax}


def time_case(case, repeat, target_time):
    """Median µs per call for each available column (rounds interleaved within a runtime, as bench_overhead)."""
    builders = _builders(case)
    fns = {}
    for column in COLUMNS:
        if bench.column_available(column)[0]:
            fn = builders[column]()
            fn()  # warm up (jax compiles here)
            fns[column] = fn
    rounds = {column: [] for column in fns}
    for family in bench._FAMILIES:
        members = [c for c in family if c in fns]
        numbers = {c: bench.autorange(fns[c], target_time)[0] for c in members}
        for _ in range(repeat):
            for c in members:
                rounds[c].append(bench._loop(fns[c], numbers[c]) / numbers[c])
    return {c: statistics.median(r) * 1e6 for c, r in rounds.items()}


def peak_kib(step):
    """Peak memory (KiB) Python and numpy allocate during one call of ``step``."""
    tracemalloc.start()
    try:
        step()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def inplace_peaks():
    """Peak KiB of one ``view += 1`` on numpy and on xtensor[numpy] (the base is ~7.6 MiB)."""
    numpy, xtensor, _, _ = _write(ALIASES)
    return {"numpy": peak_kib(numpy()), "xtensor[numpy]": peak_kib(xtensor("numpy", lambda t: t))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few short rounds (smoke run)")
    args = parser.parse_args(argv)
    settings = bench.QUICK if args.quick else bench.FULL
    header = ["case"] + [f"{c} µs" for c in COLUMNS] + list(RATIOS)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for case in CASES:
        times = time_case(case, settings["repeat"], settings["target_time"])
        cells = [f"{times[c]:.1f}" if c in times else "-" for c in COLUMNS]
        ratios = [bench._ratio(times, *cols) for cols in RATIOS.values()]
        cells += [f"{r:.2f}" if r else "-" for r in ratios]
        print(f"| {case} | " + " | ".join(cells) + " |")
    peaks = inplace_peaks()
    print(f"\npeak memory of one `view += 1` on a {N}x{N} float64 base ({N * N * 8 / 1024:.0f} KiB): "
          + ", ".join(f"{c} {v:.1f} KiB" for c, v in peaks.items()))


if __name__ == "__main__":
    main()
