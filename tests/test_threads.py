"""Threads: grad mode and the default backend are per thread; independent training runs in two threads give
bit-identical results to running them one after the other; backward in one thread while another records;
the backend registry and the node-class cache hand every thread the same objects. Threads meet at a
``threading.Barrier`` (no sleeps), so the interleavings tested are the ones that matter."""
import subprocess
import sys
import threading

import numpy as np
import pytest

import xtensor as xt
from xtensor._dispatch import node_class

BACKENDS = ["numpy", "jax", "array_api_strict"]


def _in_threads(*fns):
    """Run each ``fn`` in its own thread; re-raise the first exception; return their results."""
    results, errors = [None] * len(fns), []

    def run(i, fn):
        try:
            results[i] = fn()
        except BaseException as e:  # noqa: BLE001  (re-raised in the main thread)
            errors.append(e)
    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_grad_mode_is_per_thread():
    barrier = threading.Barrier(2)
    x = xt.ones(3, requires_grad=True)

    def without_grad():
        with xt.no_grad():
            barrier.wait()  # the other thread records while this one is inside no_grad
            out = (x * 2).requires_grad
            barrier.wait()
        return out

    def with_grad():
        barrier.wait()
        out = (x * 2).requires_grad
        barrier.wait()
        return out
    assert _in_threads(without_grad, with_grad) == [False, True]


def test_inference_mode_is_per_thread():
    barrier = threading.Barrier(2)

    def inside():
        with xt.inference_mode():
            barrier.wait()
            out = xt.ones(2).is_inference()
            barrier.wait()
        return out

    def outside():
        barrier.wait()
        out = xt.ones(2).is_inference()
        barrier.wait()
        return out
    assert _in_threads(inside, outside) == [True, False]


def test_use_backend_is_per_thread():
    barrier = threading.Barrier(2)

    def on(name):
        def fn():
            with xt.use_backend(name):
                barrier.wait()  # both blocks are open at once
                made = xt.zeros(2).backend
                barrier.wait()
            return made, xt.zeros(2).backend
        return fn
    assert _in_threads(on("jax"), on("array_api_strict")) == [("jax", "numpy"), ("array_api_strict", "numpy")]


# --------------------------------------------------------------------------- training in two threads
def _train_mlp(seed, backend, steps=15, barrier=None):
    """A 4-8-1 tanh MLP fitted by hand-written SGD on raw ops; returns the losses and the final weights."""
    rng = np.random.default_rng(seed)
    x = xt.tensor(rng.standard_normal((16, 4)), backend=backend)
    y = xt.tensor(rng.standard_normal((16, 1)), backend=backend)
    w1 = xt.tensor(rng.standard_normal((4, 8)) * 0.5, backend=backend, requires_grad=True)
    b1 = xt.zeros(8, dtype=xt.float64, backend=backend, requires_grad=True)
    w2 = xt.tensor(rng.standard_normal((8, 1)) * 0.5, backend=backend, requires_grad=True)
    params = [w1, b1, w2]
    losses = []
    for _ in range(steps):
        if barrier is not None:
            barrier.wait()  # the threads step in lockstep: their graphs and backward passes interleave
        loss = (((x @ w1 + b1).tanh() @ w2 - y) ** 2).mean()
        loss.backward()
        with xt.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad = None
        losses.append(loss.item())
    return losses, [p.detach().numpy() for p in params]


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_threads_training_match_sequential_runs(backend):
    sequential = [_train_mlp(seed, backend) for seed in (1, 2)]
    barrier = threading.Barrier(2)
    threaded = _in_threads(*(lambda s=seed: _train_mlp(s, backend, barrier=barrier) for seed in (1, 2)))
    for (seq_losses, seq_params), (thr_losses, thr_params) in zip(sequential, threaded):
        assert seq_losses == thr_losses
        for a, b in zip(seq_params, thr_params):
            np.testing.assert_array_equal(a, b)
    assert sequential[0][0][-1] < sequential[0][0][0]  # it trained


def test_backward_in_one_thread_while_another_records():
    barrier = threading.Barrier(2)
    rounds = 30

    def backward_loop():
        w = xt.tensor([1.0, 2.0, 3.0], requires_grad=True)
        grads = []
        for _ in range(rounds):
            loss = (w * w).sum()
            barrier.wait()  # the other thread is building its graph now
            loss.backward()
            grads.append(w.grad.numpy().copy())
            w.grad = None
        return grads

    def record_loop():
        v = xt.tensor([0.5, -1.0], requires_grad=True)
        made = []
        for _ in range(rounds):
            barrier.wait()
            out = (v.exp() * v).sum()  # recorded while the other thread runs backward
            made.append((out.grad_fn.name(), out.requires_grad))
        out.backward()
        return made, v.grad.numpy()

    grads, (made, v_grad) = _in_threads(backward_loop, record_loop)
    for g in grads:
        np.testing.assert_array_equal(g, [2.0, 4.0, 6.0])
    assert made == [("SumBackward0", True)] * rounds
    v = np.array([0.5, -1.0])
    np.testing.assert_allclose(v_grad, np.exp(v) * (1 + v))


def test_node_class_cache_gives_every_thread_one_class():
    """Eight threads ask for a new node class at once, 50 times; a tiny switch interval makes the interpreter
    switch threads inside the cache's check-then-set (before the fix, about one round in five made two)."""
    n = 8
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for round_ in range(50):
            barrier = threading.Barrier(n)

            def make(name=f"ThreadRace{round_}Backward0"):
                barrier.wait()
                return node_class(name)
            classes = _in_threads(*([make] * n))
            assert all(c is classes[0] for c in classes)
    finally:
        sys.setswitchinterval(interval)


def test_backend_registry_loads_each_backend_once_under_a_race():
    """In a fresh process (the registry is already filled in this one): eight threads ask for the same backends at
    the same moment and all get the same adapter objects."""
    code = """
import sys, threading
import xtensor
sys.setswitchinterval(1e-6)  # switch threads as often as possible
n = 8
barrier = threading.Barrier(n)
got = [None] * n
def ask(i):
    barrier.wait()
    got[i] = (xtensor.get_backend("array_api_strict"), xtensor.get_backend("jax"), xtensor.get_backend("numpy"))
threads = [threading.Thread(target=ask, args=(i,)) for i in range(n)]
for t in threads: t.start()
for t in threads: t.join()
assert all(g is not None for g in got), got
assert all(all(a is b for a, b in zip(g, got[0])) for g in got), "two adapters for one backend"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
