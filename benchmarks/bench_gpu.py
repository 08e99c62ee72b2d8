"""The jax backend on a GPU (issue 22, item 4): ``xtensor demo --backend jax``, the demo's compiled step and the GPT
training loop around ``torch.compile(model)``, where jax's default device is a GPU, next to PyTorch on the same GPU.

Run from the repository root on a machine with a CUDA jax and, for the torch columns, a CUDA PyTorch::

    python -m benchmarks.bench_gpu --json gpu.json                 # every section (~5 min on an H100)
    python -m benchmarks.bench_gpu --sections env,demo --quick     # a few of them, short rounds

Sections, each written to the JSON as soon as it is done (a run cut short keeps what it finished):

* ``env``    the devices jax and torch see, and what ``torch.cuda`` and a new tensor report under xtensor's jax backend
* ``demo``   ``xtensor demo`` on numpy (the CPU), jax eager and jax ``--compile`` (jax's default device): epoch times
             and test accuracy
* ``step``   ``bench_compile``'s step table: the demo's step through ``xtensor.compile`` against plain ``jax.jit``
             (both on jax's default device) and PyTorch eager on the CPU
* ``gpt``    ``bench_compile``'s GPT loop (``torch.compile(model)`` on jax, xtensor eager on jax, PyTorch eager on
             CUDA), at ``bench_compile.GPT_SIZE`` and at nanoGPT's character-level Shakespeare size
             (``GPU_GPT_SIZE``), from the same weights; the first losses are reported side by side (XLA's default
             float32 products on a GPU may use TF32, PyTorch's do not)

It runs anywhere (jax and torch on the CPU when there is no GPU), so the sections can be tried before a GPU
machine is lent; the numbers mean something only where the ``env`` section names a GPU.
"""
import argparse
import json
import os
import sys

import numpy as np

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import bench_compile  # noqa: E402
from benchmarks.bench_overhead import metadata  # noqa: E402

GPU_GPT_SIZE = {"vocab": 65, "block": 256, "width": 384, "heads": 6, "layers": 6, "batch": 64}
SECTIONS = ("env", "demo", "step", "gpt")
DEMO_MODES = (("numpy", []), ("jax eager", ["--backend", "jax"]), ("jax --compile", ["--backend", "jax", "--compile"]))
QUICK = {"repeat": 3, "target_time": 0.05}
FULL = {"repeat": 7, "target_time": 0.3}


def environment():
    """What jax, torch and xtensor's ``torch.cuda`` see on this machine."""
    import jax

    import xtensor

    info = {"jax": jax.__version__, "jax default backend": jax.default_backend(),
            "jax devices": [f"{d.platform}:{d.id} {d.device_kind}" for d in jax.devices()]}
    with xtensor.use_backend("jax"):
        cuda = xtensor.cuda
        info["xtensor[jax] torch.cuda.is_available()"] = cuda.is_available()
        info["xtensor[jax] torch.cuda.device_count()"] = cuda.device_count()
        if cuda.is_available():
            info["xtensor[jax] torch.cuda.get_device_name()"] = cuda.get_device_name()
        info["xtensor[jax] new tensor's device"] = str(xtensor.ones(2).device)
        info["xtensor[jax] float32 matmul, max relative error"] = _matmul_error(xtensor)
    try:
        import torch
    except ImportError:
        return info
    info["torch"] = torch.__version__
    info["torch cuda device"] = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    info["torch float32 matmul, max relative error"] = _matmul_error(torch, _torch_device())
    return info


def _matmul_error(lib, device=None):
    """The largest error of a float32 1024x1024 product relative to the result's scale, against float64 numpy:
    ~1e-6 in full float32 (PyTorch's default, ``set_float32_matmul_precision("highest")``), ~1e-3 with TF32."""
    a, b = np.random.default_rng(0).standard_normal((2, 1024, 1024), dtype=np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    product = (lib.tensor(a, device=device) @ lib.tensor(b, device=device)).cpu().numpy()
    return float(np.abs(product - exact).max() / np.abs(exact).max())


def _torch_device():
    import torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def gpt_rows(size, repeat, target_time):
    """µs per iteration of the GPT loop: ``torch.compile(model)`` and eager on xtensor's jax backend (jax's default
    device), PyTorch eager on CUDA (or the CPU); ratios to PyTorch's; the first losses."""
    import torch

    import xtensor

    device = _torch_device()
    previous = xtensor.get_default_backend().name
    xtensor.set_default_backend("jax")  # as a jax user's script runs (XTENSOR_BACKEND=jax): factories in forward too
    try:
        return _gpt_rows(size, repeat, target_time, device)
    finally:
        xtensor.set_default_backend(previous)


def _gpt_rows(size, repeat, target_time, device):
    import torch

    import xtensor

    shape = {k: v for k, v in size.items() if k != "batch"}
    rng = np.random.default_rng(0)
    tokens = [rng.integers(0, size["vocab"], (size["batch"], size["block"])) for _ in range(2)]
    xtensor.manual_seed(0)
    weights = {k: v.numpy().copy() for k, v in bench_compile._gpt_class(xtensor)(**shape).state_dict().items()}

    def xtensor_column(compiled):
        model = bench_compile._gpt_class(xtensor)(**shape)
        model.load_state_dict({k: xtensor.tensor(v) for k, v in weights.items()})
        x, y = (xtensor.tensor(a) for a in tokens)
        iteration = bench_compile._gpt_loop(xtensor, xtensor.compile(model) if compiled else model)
        return iteration, x, y, lambda loss: loss._value.block_until_ready()

    def torch_column():
        model = bench_compile._gpt_class(torch)(**shape).to(device)
        model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        x, y = (torch.from_numpy(a).to(device) for a in tokens)
        return bench_compile._gpt_loop(torch, model), x, y, lambda loss: torch.cuda.synchronize() \
            if device == "cuda" else None

    builds = {"torch.compile(model)": lambda: xtensor_column(True), "xtensor[jax] eager": lambda: xtensor_column(False),
              f"torch eager ({device})": torch_column}
    fns, first = {}, {}
    for column, build in builds.items():
        iteration, x, y, block = build()
        first[column] = iteration(x, y).item()
        fns[column] = lambda iteration=iteration, x=x, y=y, block=block: block(iteration(x, y))
    times, best, _ = bench_compile._time(fns, (tuple(fns),), repeat, target_time, warmup=3)
    reference = f"torch eager ({device})"
    return {"size": size, "min_us": best, "median_us": times, "first_loss": first,
            "best_ratio_torch": {c: best[c] / best[reference] for c in best}}


def demo_rows(epochs):
    """``xtensor demo`` in each of ``DEMO_MODES`` on jax's default device (bench_compile's demo rows pin the CPU)."""
    return bench_compile.demo_rows(epochs, modes=DEMO_MODES, platform=None)


def markdown(results):
    lines = []
    if "env" in results:
        lines += ["| environment | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in results["env"].items()]
    if results.get("demo"):
        lines += ["", "| `xtensor demo` | epoch 1 s | later epochs s (mean) | test accuracy |", "|---|---:|---:|---:|"]
        lines += [f"| {r['mode']} | {r['first_epoch_s']:.2f} | {r['later_epoch_s']:.2f} | {r['test_acc']:.4f} |"
                  for r in results["demo"]]
    if results.get("step"):
        lines += ["", bench_compile.markdown(results["step"], None, None)]
    for gpt in results.get("gpt", []):
        size = ", ".join(f"{k} {v}" for k, v in gpt["size"].items())
        lines += ["", f"| GPT loop ({size}) | µs per iteration (best round) | median | x torch eager | first loss |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {c} | {bench_compile._fmt(gpt['min_us'][c])} | {bench_compile._fmt(gpt['median_us'][c])} | "
                  f"{gpt['best_ratio_torch'][c]:.2f}x | {gpt['first_loss'][c]:.5f} |" for c in gpt["min_us"]]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of {', '.join(SECTIONS)}")
    parser.add_argument("--quick", action="store_true", help="few repeats, short rounds")
    parser.add_argument("--demo-epochs", type=int, default=5)
    parser.add_argument("--gpt-sizes", default="small,gpu", help="small (bench_compile's), gpu (nanoGPT's), or both")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH, after each section")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    sizes = {"small": bench_compile.GPT_SIZE, "gpu": GPU_GPT_SIZE}
    results = {"meta": metadata(preset["repeat"], preset["target_time"], args.quick)}
    runs = {"env": environment, "demo": lambda: demo_rows(args.demo_epochs),
            "step": lambda: bench_compile.step_rows(**preset),
            "gpt": lambda: [gpt_rows(sizes[s], **preset) for s in args.gpt_sizes.split(",")]}
    for section in args.sections.split(","):
        print(f"  {section} ...", file=sys.stderr, flush=True)
        results[section] = runs[section]()
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2, default=str)
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
