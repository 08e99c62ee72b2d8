"""Compiled training steps: ``xtensor.compile`` against the same step in plain ``jax.jit`` and PyTorch eager,
data-parallel scaling over simulated devices, and the demo's time per epoch.

Run from the repository root::

    python -m benchmarks.bench_compile                  # the step and the scaling tables (~1 min)
    python -m benchmarks.bench_compile --quick          # smoke run (a few seconds of timing)
    python -m benchmarks.bench_compile --demo           # also time `xtensor demo` per epoch in each mode
    python -m benchmarks.bench_compile --json out.json

The step is the demo's (``xtensor demo``): its MLP 64-128-64-10 with ReLU, cross entropy, Adam with a tensor
learning rate, on a float32 batch of 8x8 images. Columns:

* ``xtensor.compile``  the PyTorch-style step (``zero_grad``, forward, ``backward()``, ``step()``) through
                       ``xtensor.compile`` on the jax backend, its loss blocked on
* ``jax.jit``          the same step written in plain jax: ``jax.value_and_grad`` and Adam's update over a
                       pytree, ``jax.jit`` with the state donated (the floor ``xtensor.compile`` is held to:
                       target <= 1.1x)
* ``jax.jit, PyTorch's Adam``
                       the same with Adam's state as PyTorch keeps it: a step counter per parameter, and the
                       gradients returned and kept until the next step (as ``.grad``)
* ``xtensor program``  the XLA program ``xtensor.compile`` runs for the step, called through its ``jax.jit`` on the
                       raw arrays, without xtensor's host work (no guards, no write-back into tensors, the
                       ``.grad`` outputs dropped): the floor of a compiled call
* ``torch``            PyTorch eager on CPU (``torch.nn``, ``torch.optim.Adam``)
* ``xtensor[numpy]``   xtensor eager on numpy (the demo's default)

Every column starts from the same weights, and the first step's losses are checked equal before timing.
Timing reuses ``bench_overhead``'s auto-ranged rounds (median per step); the four jitted columns are
interleaved round by round. As a program it runs single-threaded (as ``bench_overhead``).

GPT loop (``gpt_rows``): the ordinary loop a PyTorch user writes around a small GPT (``GPT_SIZE``: embeddings, two
pre-norm transformer blocks, a language-model head; AdamW) -- ``logits, loss = model(x, y); zero_grad();
loss.backward(); optimizer.step()`` -- per iteration, waited for: with ``torch.compile(model)`` on jax (the model's
call one node, forward and backward one program each; AdamW's eager step one cached program, ``optim/_fused.py``),
the same with AdamW's step run op by op (``AdamW per op``, the eager step before it was fused), the same with the
optimizer passed to ``xtensor.compile`` too (its step one program), xtensor eager on jax, PyTorch eager and
xtensor eager on numpy, from the same weights (first losses checked equal). Target: ``torch.compile(model)`` <= 0.5x
PyTorch eager.

Scaling: ``data_parallel`` over meshes of 1, 2, 4 and 8 devices runs in a subprocess started with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` (jax fixes its devices at start-up), next to plain
``jax.jit`` of the step with the batch sharded the same way (both move each batch from one device onto the
mesh on every call). Simulated devices share the machine's cores:
the rows show what splitting costs and how XLA's CPU runtime spreads the parts, not a speed-up that real
devices would give.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

if __name__ == "__main__" and "--scaling-child" not in sys.argv:  # one thread, as bench_overhead
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.bench_overhead import metadata  # noqa: E402

BATCHES = (32, 256)
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}  # cpu: the process's CPU time (XLA's threads too)
PYTORCH_ADAM = "jax.jit, PyTorch's Adam"  # a column
LR, BETAS, EPS = 3e-3, (0.9, 0.999), 1e-8
DEVICE_COUNTS = (1, 2, 4, 8)
QUICK = {"repeat": 3, "target_time": 0.02}
FULL = {"repeat": 7, "target_time": 0.2}


def _batch(size):
    rng = np.random.default_rng(size)
    return rng.random((size, 1, 8, 8), dtype=np.float32), rng.integers(0, 10, size)


# --------------------------------------------------------------------------- the step, six ways
def _adam_step(lib, net):
    """The demo's training step written as PyTorch code, for ``lib`` (xtensor or torch): Adam, tensor learning rate."""
    optimizer = lib.optim.Adam(net.parameters(), lr=lib.tensor(LR), betas=BETAS, eps=EPS)
    loss_fn = lib.nn.CrossEntropyLoss()

    def train_step(inputs, targets):
        optimizer.zero_grad()
        loss = loss_fn(net(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss
    return train_step


def _xtensor_step(backend, compiled):
    """The demo's step on ``backend``; returns (step(x, y) -> loss, the model, the batch maker)."""
    import xtensor
    from xtensor.cli import _digits_model

    with xtensor.use_backend(backend):
        xtensor.manual_seed(0)
        net = _digits_model(xtensor.nn, "mlp")
        train_step = _adam_step(xtensor, net)

    def tensors(size):
        x, y = _batch(size)
        with xtensor.use_backend(backend):
            return xtensor.tensor(x), xtensor.tensor(y)
    return (xtensor.compile(train_step) if compiled else train_step), net, tensors


def _initial_weights():
    """The xtensor model's initial weights (seed 0) as numpy arrays: every column starts from them."""
    _, net, _ = _xtensor_step("numpy", compiled=False)
    return [p.detach().numpy().copy() for p in net.parameters()]


def _torch_step(weights):
    import torch

    from xtensor.cli import _digits_model

    net = _digits_model(torch.nn, "mlp")
    with torch.no_grad():
        for p, w in zip(net.parameters(), weights):
            p.copy_(torch.from_numpy(w))
    return _adam_step(torch, net), lambda size: tuple(torch.from_numpy(a) for a in _batch(size))


def _jax_step(weights, shardings=None, pytorch_adam=False):
    """The step in plain jax; ``shardings`` = (replicated, batch-sharded) places it on a mesh: the state once,
    each batch (a one-device array, as data_parallel is given) on every call. ``pytorch_adam``: Adam as PyTorch
    keeps it (a step counter per parameter, the gradients kept between steps as ``.grad``)."""
    import jax
    import jax.numpy as jnp

    def loss_fn(params, x, y):
        h = x.reshape(x.shape[0], -1)
        for i in range(0, len(params), 2):
            h = h @ params[i].T + params[i + 1]
            if i + 2 < len(params):
                h = jax.nn.relu(h)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(h), y[:, None], axis=1))

    def step(params, m, v, t, lr, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        t = t + 1
        m = [BETAS[0] * a + (1 - BETAS[0]) * g for a, g in zip(m, grads)]
        v = [BETAS[1] * a + (1 - BETAS[1]) * g * g for a, g in zip(v, grads)]
        scale, root = lr / (1 - BETAS[0] ** t), jnp.sqrt(1 - BETAS[1] ** t)
        params = [p - scale * a / (jnp.sqrt(b) / root + EPS) for p, a, b in zip(params, m, v)]
        return params, m, v, t, loss

    def step_per_parameter(params, m, v, steps, lr, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        steps = [t + 1 for t in steps]
        m = [BETAS[0] * a + (1 - BETAS[0]) * g for a, g in zip(m, grads)]
        v = [BETAS[1] * a + (1 - BETAS[1]) * g * g for a, g in zip(v, grads)]
        params = [p - lr / (1 - BETAS[0] ** t) * a / (jnp.sqrt(b) / jnp.sqrt(1 - BETAS[1] ** t) + EPS)
                  for p, a, b, t in zip(params, m, v, steps)]
        return grads, params, m, v, steps, loss

    replicated, sharded = shardings or (None, None)
    put = (lambda a, s: jax.device_put(a, s)) if shardings else (lambda a, s: jnp.asarray(a))
    state = [[put(w, replicated) for w in weights], [put(np.zeros_like(w), replicated) for w in weights],
             [put(np.zeros_like(w), replicated) for w in weights], put(np.float32(0), replicated),
             put(np.float32(LR), replicated)]
    if pytorch_adam:
        state[3] = [put(np.float32(0), replicated) for _ in weights]
    jitted = jax.jit(step_per_parameter if pytorch_adam else step, donate_argnums=(0, 1, 2, 3))

    grads = []  # with pytorch_adam: the last step's gradients, alive until the next (as .grad)

    def train_step(x, y):
        if shardings:
            x, y = jax.device_put(x, sharded), jax.device_put(y, sharded)
        out = jitted(*state, x, y)
        if pytorch_adam:
            grads[:], out = out[:1], out[1:]
        *state[:4], loss = out
        return loss
    return train_step, lambda size: tuple(jnp.asarray(a) for a in _batch(size))


class _ProgramOnly:
    """The ``xtensor program`` column: its first two calls go through ``xtensor.compile`` (the first makes Adam's
    state, the second compiles the steady program); later ones call that program on the storages' arrays."""

    def __init__(self):
        self.step, _, self.tensors = _xtensor_step("jax", compiled=True)
        self.fast = self.arguments = None

    def __call__(self, x, y):
        fast = self.fast
        if fast is None:
            loss = self.step(x, y)
            self.fast = self.step._fast  # the reused walk, once the steady program runs
            self.arguments = [t._storage.array for t in (x, y)]
            return loss._value
        arguments = self.arguments
        outs = fast.program.executable([*fast.pick_donated(fast.written_arrays)],
                                       [*(arguments[i] for i in fast.args_read), *(st.array for st in fast.kept)], [])
        fast.written_arrays = outs[:len(fast.written)]
        for st, out in zip(fast.written, outs):
            st.array = out
        return outs[-1]  # the loss: the step returns one tensor, the program's last output


def _blocking(step, x, y, block):
    """A zero-argument callable running one step and waiting for its loss."""
    return lambda: block(step(x, y))


def _columns(size):
    """column -> a zero-argument callable running one training step on a batch of ``size``; and the first
    step's loss of each column (computed here, from the same weights, before any timing)."""
    weights = _initial_weights()
    builds = {}
    try:
        import jax  # noqa: F401

        def compiled():
            step, _, tensors = _xtensor_step("jax", compiled=True)
            return step, tensors, lambda loss: loss._value.block_until_ready()

        def plain_jit():
            step, arrays = _jax_step(weights)
            return step, arrays, lambda loss: loss.block_until_ready()
        def pytorch_adam_jit():
            step, arrays = _jax_step(weights, pytorch_adam=True)
            return step, arrays, lambda loss: loss.block_until_ready()

        def program_only():
            step = _ProgramOnly()
            return step, step.tensors, lambda loss: loss.block_until_ready()
        builds.update({"xtensor.compile": compiled, "jax.jit": plain_jit, PYTORCH_ADAM: pytorch_adam_jit,
                       "xtensor program": program_only})
    except ImportError:
        pass
    try:
        import torch  # noqa: F401
        builds["torch"] = lambda: (*_torch_step(weights), lambda loss: loss)
    except ImportError:
        pass

    def eager_numpy():
        step, _, tensors = _xtensor_step("numpy", compiled=False)
        return step, tensors, lambda loss: loss
    builds["xtensor[numpy]"] = eager_numpy
    fns, first = {}, {}
    for column, build in builds.items():
        step, batch, block = build()
        x, y = batch(size)
        first[column] = step(x, y).item()
        fns[column] = _blocking(step, x, y, block)
    return fns, first


def _time(fns, groups, repeat, target_time, warmup=5, clock=time.perf_counter):
    """(median, best round, per round) µs per call of each callable, timed on ``clock``; the callables of one group
    are interleaved round by round (so the rounds of a group pair up). On a machine shared with other jobs the best
    round is the steadier figure of the two, and the median of paired rounds' ratios the steadier ratio."""
    for fn in fns.values():
        for _ in range(warmup):  # compilation (xtensor.compile compiles its first two calls), caches
            fn()
    rounds = {c: [] for c in fns}
    for group in groups:
        members = [c for c in group if c in fns]
        numbers = {c: _calls_per_round(fns[c], target_time, clock) for c in members}
        for _ in range(repeat):
            for c in members:
                rounds[c].append(_loop(fns[c], numbers[c], clock) / numbers[c] * 1e6)
    return ({c: statistics.median(r) for c, r in rounds.items() if r},
            {c: min(r) for c, r in rounds.items() if r}, rounds)


def _loop(fn, number, clock):
    """Seconds on ``clock`` for ``number`` calls of ``fn`` (the garbage collector left on, as ``bench_overhead``)."""
    t0 = clock()
    for _ in range(number):
        fn()
    return clock() - t0


def _calls_per_round(fn, target_time, clock):
    """The number of calls (1, 2, 5, 10, 20...) whose round lasts at least ``target_time`` seconds on ``clock``."""
    i = 1
    while True:
        for j in (1, 2, 5):
            if _loop(fn, i * j, clock) >= target_time:
                return i * j
        i *= 10


def _paired_ratio(rounds, ours, theirs):
    """The median over interleaved rounds of each round's ratio ``ours / theirs``; None when either is missing."""
    if not rounds.get(ours) or not rounds.get(theirs):
        return None
    return statistics.median(a / b for a, b in zip(rounds[ours], rounds[theirs]))


def step_rows(repeat, target_time, batches=BATCHES, clock=time.perf_counter):
    """One row per batch size: µs per training step in each column, and the ratios (``paired``: the median of the
    interleaved rounds' own ratios)."""
    rows = []
    for size in batches:
        fns, first = _columns(size)
        losses = list(first.values())
        if max(losses) - min(losses) > 1e-4 * abs(losses[0]):
            raise RuntimeError(f"the columns do not compute the same step: first losses {first}")
        jitted = ("xtensor.compile", "jax.jit", PYTORCH_ADAM, "xtensor program")
        times, best, rounds = _time(fns, (jitted, ("torch",), ("xtensor[numpy]",)), repeat, target_time, clock=clock)
        ratios = {f"xtensor.compile/{c}": times["xtensor.compile"] / times[c]
                  for c in ("jax.jit", "torch", "xtensor[numpy]") if c in times and "xtensor.compile" in times}
        best_ratio = best["xtensor.compile"] / best["jax.jit"] if "jax.jit" in best else None
        program_ratio = best["xtensor program"] / best["jax.jit"] if "jax.jit" in best else None
        rows.append({"batch": size, "times_us": times, "min_us": best, "ratios": ratios,
                     "best_ratio_jax_jit": best_ratio, "best_ratio_program_jax_jit": program_ratio,
                     "paired_ratio_jax_jit": _paired_ratio(rounds, "xtensor.compile", "jax.jit"),
                     "paired_ratio_program_jax_jit": _paired_ratio(rounds, "xtensor program", "jax.jit"),
                     "first_loss": first})
    return rows


# --------------------------------------------------------------------------- a GPT loop around torch.compile(model)
GPT_SIZE = {"vocab": 65, "block": 32, "width": 64, "heads": 4, "layers": 2, "batch": 8}
UNFUSED = "torch.compile(model), AdamW per op"  # a column: the eager step without its fused program
GPT_COLUMNS = ("torch.compile(model)", UNFUSED, "compiled model + optimizer", "xtensor[jax] eager", "torch",
               "xtensor[numpy]")


def _gpt_class(lib):
    """A small GPT (token and position embeddings, pre-norm transformer blocks with causal self-attention, a
    language-model head; the loss from ``forward(idx, targets)``, as nanoGPT's) written as PyTorch code for
    ``lib`` (xtensor or torch)."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self, width, heads, block):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
            self.heads = heads
            self.register_buffer("mask", lib.tril(lib.ones(block, block)).view(1, 1, block, block))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (a.view(B, T, self.heads, C // self.heads).transpose(1, 2) for a in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / (C // self.heads) ** 0.5)
            att = F.softmax(att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf")), dim=-1)
            x = x + self.proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self, vocab, block, width, heads, layers):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.ModuleList([Block(width, heads, block) for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab, bias=False)

        def forward(self, idx, targets=None):
            B, T = idx.shape
            x = self.wte(idx) + self.wpe(lib.arange(T, device=idx.device))
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln(x))
            loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss
    return GPT


def _gpt_loop(lib, model, compile_optimizer=False, fused=True):
    """One iteration of the ordinary training loop a PyTorch user writes, blocked on by the caller. ``fused=False``
    runs the eager ``optimizer.step()`` op by op on jax (as before its update became one cached program)."""
    optimizer = lib.optim.AdamW(model.parameters(), lr=1e-3)
    if not fused:
        optimizer._fusable = False
    if compile_optimizer:
        optimizer = lib.compile(optimizer)

    def iteration(x, y):
        logits, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss
    return iteration


def _gpt_columns(columns=GPT_COLUMNS):
    """column -> a zero-argument callable running one loop iteration, for each of ``columns`` (and PyTorch's, which
    the ratios need); and each column's first loss (same weights)."""
    import xtensor

    size = {k: v for k, v in GPT_SIZE.items() if k != "batch"}
    rng = np.random.default_rng(0)
    tokens = [rng.integers(0, GPT_SIZE["vocab"], (GPT_SIZE["batch"], GPT_SIZE["block"])) for _ in range(2)]
    xtensor.manual_seed(0)
    weights = {k: v.numpy().copy() for k, v in _gpt_class(xtensor)(**size).state_dict().items()}
    builds = {}

    def xtensor_column(backend, compiled, compile_optimizer=False, fused=True):
        def build():
            with xtensor.use_backend(backend):
                model = _gpt_class(xtensor)(**size)
                model.load_state_dict({k: xtensor.tensor(v) for k, v in weights.items()})
                if compiled:
                    model = xtensor.compile(model)
                x, y = (xtensor.tensor(a) for a in tokens)
            iteration = _gpt_loop(xtensor, model, compile_optimizer, fused)
            first = next(iter(model.parameters()))
            block = (lambda: first._value.block_until_ready()) if backend == "jax" else (lambda: None)
            return iteration, x, y, block
        return build
    try:
        import jax  # noqa: F401
        builds.update({"torch.compile(model)": xtensor_column("jax", True),
                       UNFUSED: xtensor_column("jax", True, fused=False),
                       "compiled model + optimizer": xtensor_column("jax", True, True),
                       "xtensor[jax] eager": xtensor_column("jax", False)})
    except ImportError:
        pass
    try:
        import torch

        def torch_column():
            model = _gpt_class(torch)(**size)
            model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
            return _gpt_loop(torch, model), *(torch.from_numpy(a) for a in tokens), lambda: None
        builds["torch"] = torch_column
    except ImportError:
        pass
    builds["xtensor[numpy]"] = xtensor_column("numpy", False)
    fns, first = {}, {}
    for column, build in builds.items():
        if column not in columns and column != "torch":
            continue
        iteration, x, y, block = build()
        first[column] = iteration(x, y).item()

        def run(iteration=iteration, x=x, y=y, block=block):
            iteration(x, y)
            block()
        fns[column] = run
    return fns, first


def gpt_rows(repeat, target_time, clock=time.perf_counter, columns=None):
    """µs per iteration of the GPT loop in each of ``columns`` (default all), and the ratios to PyTorch eager (best
    rounds, and the median of the interleaved rounds' own ratios)."""
    unknown = set(columns or ()).difference(GPT_COLUMNS)
    if unknown:
        raise ValueError(f"unknown GPT columns {sorted(unknown)}; the columns are {list(GPT_COLUMNS)}")
    fns, first = _gpt_columns(columns or GPT_COLUMNS)
    losses = list(first.values())
    if max(losses) - min(losses) > 1e-4 * abs(losses[0]):
        raise RuntimeError(f"the GPT columns do not compute the same loss: {first}")
    times, best, rounds = _time(fns, (GPT_COLUMNS,), repeat, target_time, warmup=3, clock=clock)  # interleaved
    ratios = {c: best[c] / best["torch"] for c in best if "torch" in best}
    paired = {c: _paired_ratio(rounds, c, "torch") for c in best if "torch" in best}
    return {"size": GPT_SIZE, "times_us": times, "min_us": best, "best_ratio_torch": ratios,
            "paired_ratio_torch": paired, "first_loss": first}


# --------------------------------------------------------------------------- scaling (in a subprocess)
def _scaling_child(repeat, target_time):
    """In a process with 8 simulated devices: µs per step of data_parallel and of the sharded jax.jit step."""
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    import xtensor
    from xtensor.distributed import data_parallel, init_device_mesh

    weights = _initial_weights()
    rows = []
    for size in BATCHES:
        for n in DEVICE_COUNTS:
            mesh = init_device_mesh("cpu", (n,), mesh_dim_names=("dp",))
            step, _, tensors = _xtensor_step("jax", compiled=False)
            parallel = data_parallel(step, mesh)
            x, y = tensors(size)
            shardings = (NamedSharding(mesh.jax_mesh, P()), NamedSharding(mesh.jax_mesh, P("dp")))
            jax_step, arrays = _jax_step(weights, shardings)
            jx, jy = arrays(size)
            fns = {"data_parallel": _blocking(parallel, x, y, lambda loss: loss._value.block_until_ready()),
                   "jax.jit sharded": _blocking(jax_step, jx, jy, lambda loss: loss.block_until_ready())}
            times, best, _ = _time(fns, (tuple(fns),), repeat, target_time)
            rows.append({"batch": size, "devices": n, "split": parallel.batch_split, "times_us": times,
                         "min_us": best})
    print(json.dumps({"jax_devices": len(jax.devices()), "xla_flags": os.environ.get("XLA_FLAGS", ""),
                      "xtensor": xtensor.__version__, "rows": rows}))


def scaling_rows(repeat, target_time):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-m", "benchmarks.bench_compile", "--scaling-child",
                           "--repeat", str(repeat), "--target-time", str(target_time)],
                          env=env, cwd=root, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- the demo, per epoch
DEMO_MODES = (("numpy eager", ["--backend", "numpy"], {}),
              ("jax eager", ["--backend", "jax"], {}),
              ("jax --compile", ["--backend", "jax", "--compile"], {}),
              ("jax --devices 1", ["--backend", "jax", "--devices", "1"], {}),
              ("jax --devices 8 (simulated)", ["--backend", "jax", "--devices", "8"],
               {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}))


def demo_rows(epochs, modes=DEMO_MODES, platform="cpu"):
    """``xtensor demo`` (MLP, defaults otherwise) in each of ``modes`` (name, flags[, environment]), as a user runs
    it: the first epoch (data loading, compilation) and the mean of the later ones, parsed from its last line; the
    threads are the machine's; jax on ``platform`` (None: jax's default, a GPU where there is one)."""
    rows = []
    for name, flags, *env in modes:
        environment = {k: v for k, v in os.environ.items()
                       if k not in ("XLA_FLAGS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        environment.update(*env, **({"JAX_PLATFORMS": platform} if platform else {}))
        out = subprocess.run([sys.executable, "-m", "xtensor", "demo", "--epochs", str(epochs), "--save", "",
                              "--plot", "", *flags], env=environment, capture_output=True, text=True,
                             check=True).stdout
        last = out.strip().splitlines()[-1]
        first = float(last.split("epoch 1 ")[1].split(" s")[0])
        later = float(last.split("then ")[1].split(" s")[0])
        accuracy = float(out.split("test accuracy: ")[1].split()[0])
        rows.append({"mode": name, "epochs": epochs, "first_epoch_s": first, "later_epoch_s": later,
                     "test_acc": accuracy})
    return rows


# --------------------------------------------------------------------------- output
def _fmt(v):
    return "—" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def markdown(steps, scaling, demo, gpt=None):
    lines = ["| batch | xtensor.compile µs | jax.jit µs | jax.jit, PyTorch's Adam µs | xtensor program µs | "
             "torch µs | xtensor[numpy] µs | compile/jax.jit (target <= 1.1) | same, best rounds | "
             "same, paired rounds | program/jax.jit, best rounds | same, paired rounds | compile/torch |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in steps:
        t, q = r["times_us"], r["ratios"]
        lines.append(f"| {r['batch']} | {_fmt(t.get('xtensor.compile'))} | {_fmt(t.get('jax.jit'))} | "
                     f"{_fmt(t.get(PYTORCH_ADAM))} | {_fmt(t.get('xtensor program'))} | "
                     f"{_fmt(t.get('torch'))} | {_fmt(t.get('xtensor[numpy]'))} | "
                     f"{q.get('xtensor.compile/jax.jit', 0):.2f}x | {r['best_ratio_jax_jit'] or 0:.2f}x | "
                     f"{r['paired_ratio_jax_jit'] or 0:.2f}x | {r['best_ratio_program_jax_jit'] or 0:.2f}x | "
                     f"{r['paired_ratio_program_jax_jit'] or 0:.2f}x | {q.get('xtensor.compile/torch', 0):.2f}x |")
    if scaling:
        lines += ["", "| batch | devices | split | data_parallel µs | vs 1 device | jax.jit sharded µs | vs 1 device |",
                  "|---:|---:|---|---:|---:|---:|---:|"]
        base = {}
        for r in scaling["rows"]:
            t = r["times_us"]
            one = base.setdefault(r["batch"], t)
            lines.append(f"| {r['batch']} | {r['devices']} | {r['split']} | {_fmt(t['data_parallel'])} | "
                         f"{t['data_parallel'] / one['data_parallel']:.2f}x | {_fmt(t['jax.jit sharded'])} | "
                         f"{t['jax.jit sharded'] / one['jax.jit sharded']:.2f}x |")
    if gpt:
        lines += ["", "| GPT loop column | µs per iteration (best round) | median | x torch, best rounds (target for "
                  "torch.compile(model): <= 0.5) | x torch, paired rounds |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {c} | {_fmt(gpt['min_us'][c])} | {_fmt(gpt['times_us'][c])} | "
                  f"{gpt['best_ratio_torch'].get(c, 0):.2f}x | {gpt['paired_ratio_torch'].get(c) or 0:.2f}x |"
                  for c in GPT_COLUMNS if c in gpt["min_us"]]
    if demo:
        lines += ["", "| `xtensor demo` | epoch 1 s | later epochs s (mean) | test accuracy |", "|---|---:|---:|---:|"]
        lines += [f"| {r['mode']} | {r['first_epoch_s']:.2f} | {r['later_epoch_s']:.2f} | {r['test_acc']:.4f} |"
                  for r in demo]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few repeats, short rounds (smoke runs)")
    parser.add_argument("--repeat", type=int, help=f"timed rounds (default {FULL['repeat']})")
    parser.add_argument("--target-time", type=float, help=f"seconds per round (default {FULL['target_time']})")
    parser.add_argument("--no-scaling", action="store_true", help="skip the data-parallel scaling subprocess")
    parser.add_argument("--no-gpt", action="store_true", help="skip the GPT training loop around torch.compile(model)")
    parser.add_argument("--only-gpt", action="store_true", help="time only the GPT training loop")
    parser.add_argument("--demo", action="store_true", help="also time `xtensor demo` per epoch in each mode")
    parser.add_argument("--demo-epochs", type=int, default=5, help="epochs per demo run (default 5)")
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)), help="the step's batch sizes (default "
                        f"{','.join(map(str, BATCHES))})")
    parser.add_argument("--gpt-columns", help="the GPT loop's columns to time, comma-separated (default: all)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: time.perf_counter; cpu: the process's CPU time (time.process_time, XLA's threads "
                             "included), steadier on a machine loaded past its cores")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH")
    parser.add_argument("--scaling-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    repeat, target_time = args.repeat or preset["repeat"], args.target_time or preset["target_time"]
    if args.scaling_child:
        _scaling_child(repeat, target_time)
        return 0
    meta = dict(metadata(repeat, target_time, args.quick), clock=args.clock)
    steps, gpt = [], None
    if not args.only_gpt:
        print("  timing the training step ...", file=sys.stderr, flush=True)
        steps = step_rows(repeat, target_time, tuple(map(int, args.batches.split(","))), CLOCKS[args.clock])
    if not args.no_gpt:
        print("  timing the GPT loop (the first eager jax iteration compiles each op: ~1 min) ...", file=sys.stderr,
              flush=True)
        gpt = gpt_rows(repeat, target_time, CLOCKS[args.clock], args.gpt_columns and args.gpt_columns.split(","))
    scaling = None
    if not args.no_scaling and not args.only_gpt:
        print("  timing data_parallel over 1/2/4/8 simulated devices (a subprocess) ...", file=sys.stderr, flush=True)
        scaling = scaling_rows(repeat, target_time)
    demo = None
    if args.demo:
        print(f"  running xtensor demo ({args.demo_epochs} epochs) in each mode ...", file=sys.stderr, flush=True)
        demo = demo_rows(args.demo_epochs)
    print(markdown(steps, scaling, demo, gpt))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "steps": steps, "gpt": gpt, "scaling": scaling, "demo": demo}, f, indent=2,
                      default=str)
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
