"""Where a training step's time goes, phase by phase, for xtensor on numpy against PyTorch: the MLP step and the LSTM
language-model step of ``bench_overhead`` cut into zero_grad + forward (module calls, dispatch, recording), the loss,
``backward()`` (the engine and the VJPs) and the optimizer step; the tiny graph into its forward and backward. The two
libraries run the same code, interleaved round by round; best round, µs per phase.

    python -m benchmarks.bench_phases            # ~1-2 min
    python -m benchmarks.bench_phases --quick    # smoke run
    python -m benchmarks.bench_phases --cases tiny_graph --clock cpu  # one case, on this thread's CPU time
    python -m benchmarks.bench_phases --cases lstm_lm_step_layers --clock cpu  # the LSTM forward cut at each module
"""
import argparse
import os
import sys
import time

if __name__ == "__main__":  # one thread, as bench_overhead
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import bench_overhead as bo  # noqa: E402


def _training_phases(lib, model, x, y, optimizer, flatten=None):
    state = {}

    def forward():
        optimizer.zero_grad()
        state["out"] = model(x)

    def loss():
        out = state["out"]
        state["loss"] = lib.nn.functional.cross_entropy(out if flatten is None else out.reshape(-1, flatten), y)
    return [("zero_grad + forward", forward), ("cross_entropy", loss),
            ("backward", lambda: state["loss"].backward()), ("optimizer step", optimizer.step)]


def mlp_phases(lib):
    x, y, params = bo._mlp_inputs()
    n_in, n_hidden, n_out = bo.MLP_SIZES
    model = lib.nn.Sequential(lib.nn.Linear(n_in, n_hidden), lib.nn.ReLU(), lib.nn.Linear(n_hidden, n_out))
    return _training_phases(lib, model, lib.tensor(x), lib.tensor(y), lib.optim.SGD(model.parameters(), lr=0.01))


def _lstm_setup(lib, layer):
    """The language model of ``bench_overhead``'s step, its input tokens, next-token targets and SGD."""
    size = bo.LSTM_SIZES
    model = bo._lstm_model(lib, layer)
    model.load_state_dict({k: lib.tensor(v) for k, v in bo._lstm_weights(layer).items()})
    tokens = lib.tensor(np.random.default_rng(5).integers(0, size["vocab"], (size["batch"], size["steps"] + 1)))
    return model, tokens[:, :-1], tokens[:, 1:].reshape(-1), lib.optim.SGD(model.parameters(), lr=0.1)


def lstm_phases(lib, layer="LSTM"):
    return _training_phases(lib, *_lstm_setup(lib, layer), flatten=bo.LSTM_SIZES["vocab"])


def lstm_layer_phases(lib, layer="LSTM"):
    """The LSTM step with its forward cut at each module (the model's own ``forward`` calls them in this order), so
    the recurrent layer's share and the rest's (embedding, decoder ``nn.Linear``, loss, SGD) read apart."""
    model, x, y, optimizer = _lstm_setup(lib, layer)
    state = {}

    def embed():
        optimizer.zero_grad()
        state["out"] = model.embed(x)

    def recurrent():
        state["out"], _ = model.lstm(state["out"])

    def head():
        state["out"] = model.head(state["out"])

    def loss():
        state["loss"] = lib.nn.functional.cross_entropy(state["out"].reshape(-1, bo.LSTM_SIZES["vocab"]), y)
    return [("zero_grad + embedding", embed), (f"nn.{layer} layer", recurrent), ("decoder nn.Linear", head),
            ("cross_entropy", loss), ("backward", lambda: state["loss"].backward()),
            ("optimizer step", optimizer.step)]


def tiny_graph_phases(lib):
    x, w, b = (lib.tensor(a, requires_grad=grad) for a, grad in zip(bo._small_inputs(), (False, True, True)))
    state = {}

    def forward():
        w.grad = b.grad = None
        state["loss"] = ((x * w + b).tanh()).sum()
    return [("forward (four recorded ops)", forward), ("backward", lambda: state["loss"].backward())]


CASES = {"mlp_step": (mlp_phases, 30), "tiny_graph": (tiny_graph_phases, 200), "lstm_lm_step": (lstm_phases, 3),
         "lstm_lm_step_layers": (lstm_layer_phases, 3),
         "gru_lm_step": (lambda lib: lstm_phases(lib, "GRU"), 3),
         "rnn_lm_step": (lambda lib: lstm_phases(lib, "RNN"), 3)}


def measure(names=None, rounds=25, scale=1, clock=time.perf_counter):
    """{case: [(phase, xtensor µs, torch µs)]} for the cases ``names`` (all by default); ``scale`` divides the calls
    per round (smoke runs); ``clock``: ``time.perf_counter`` (wall) or ``time.thread_time`` (this thread's CPU)."""
    import torch

    import xtensor
    torch.set_num_threads(1)
    results = {}
    for name in names or CASES:
        make, calls = CASES[name]
        calls = max(1, calls // scale)
        phases = {"xtensor[numpy]": make(xtensor), "torch": make(torch)}
        best = {lib: [float("inf")] * len(p) for lib, p in phases.items()}
        for _ in range(rounds):
            for lib, p in phases.items():
                spent = [0.0] * len(p)
                for _ in range(calls):
                    for i, (_, fn) in enumerate(p):
                        t0 = clock()
                        fn()
                        spent[i] += clock() - t0
                best[lib] = [min(b, s / calls * 1e6) for b, s in zip(best[lib], spent)]
        results[name] = [(label, best["xtensor[numpy]"][i], best["torch"][i])
                         for i, (label, _) in enumerate(phases["torch"])]
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help=f"a subset of {', '.join(CASES)}")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--quick", action="store_true", help="3 rounds of a tenth of the calls")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: time.perf_counter; cpu: this thread's CPU time (time.thread_time)")
    args = parser.parse_args(argv)
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    print("| case | phase | xtensor[numpy] µs | torch µs | ratio |\n|---|---|---:|---:|---:|")
    results = measure(args.cases.split(","), rounds=3 if args.quick else args.rounds, scale=10 if args.quick else 1,
                      clock=clock)
    for name, rows in results.items():
        for label, ours, theirs in rows:
            print(f"| {name} | {label} | {ours:,.1f} | {theirs:,.1f} | {ours / theirs:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
