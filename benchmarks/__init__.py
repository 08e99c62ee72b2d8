"""xtensor benchmarks (``python -m benchmarks.bench_overhead``); see benchmarks/README.md."""
