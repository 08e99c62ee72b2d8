"""A graph is freed by reference counting alone when its outputs go away: no cycles keep arrays alive; training
loops with nn, optim, lr_scheduler and DataLoader keep memory flat, and their objects die by refcount.

The long runs (10,000 training steps per backend; minutes on jax, whose eager steps cost ~10 ms):

    XTENSOR_MEMORY_STEPS=10000 python -m pytest tests/test_memory.py -k training
"""
import gc
import os
import tracemalloc
import weakref

import numpy as np
import pytest

import xtensor as t
from xtensor import nn
from xtensor.nn import functional as F
from xtensor.utils.data import DataLoader, TensorDataset

STEPS = os.environ.get("XTENSOR_MEMORY_STEPS")  # the long run: 10000


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _graph_of(x):
    y = x * 2
    y = y[1:]
    z = y.exp()
    z.mul_(3)  # in-place on a view of a non-leaf: CopySlices rewrites the base's history
    return (z.tanh() @ z).sum()


@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
def test_graph_is_freed_when_its_output_is_dropped(backend, no_gc):
    x = t.rand(4, backend=backend, requires_grad=True)
    out = _graph_of(x)
    node = weakref.ref(out.grad_fn)
    del out
    assert node() is None


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
def test_node_keeps_no_input_its_vjps_do_not_read(backend, create_graph, no_gc):
    """``add`` reads neither operand (PyTorch's AddBackward0 saves nothing): once the caller drops the product, it
    is freed while the sum's graph lives on, and the gradients, broadcast to the bias, come out as before."""
    x, w, b = (np.random.default_rng(4).standard_normal(shape) for shape in [(64, 32), (32, 48), (48,)])
    tw, tb = t.tensor(w, backend=backend, requires_grad=True), t.tensor(b, backend=backend, requires_grad=True)
    product = t.tensor(x, backend=backend) @ tw
    alive = weakref.ref(product)
    out = product + tb
    del product
    assert alive() is None
    gw, gb = t.autograd.grad((out * out).sum(), (tw, tb), create_graph=create_graph)
    assert gw.grad_fn is not None if create_graph else gw.grad_fn is None
    z = x @ w + b
    np.testing.assert_allclose(gw.detach().numpy(), x.T @ (2 * z), rtol=1e-10)
    np.testing.assert_allclose(gb.detach().numpy(), (2 * z).sum(0), rtol=1e-10)


@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
def test_graph_written_through_a_view_of_its_base_is_freed(backend, no_gc):
    x = t.rand(4, 3, backend=backend, requires_grad=True)
    base = x * 2
    view = base[1]
    view.mul_(3)  # the base's history now runs through the view's node (CopySlices), which must not hold the base
    loss = base.sum()
    alive, node = weakref.ref(base), weakref.ref(base.grad_fn)
    del base, view, loss
    assert alive() is None and node() is None


@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
def test_saved_outputs_are_freed_after_backward(backend, no_gc):
    x = t.rand(4, backend=backend, requires_grad=True)
    y = x.exp()  # ExpBackward0 keeps its output's array for the gradient, MulBackward0 keeps y
    z = (y * y).sum()
    saved = weakref.ref(y._value)
    del y
    assert saved() is not None
    z.backward()
    assert saved() is None and x.grad is not None


def test_leaf_and_its_accumulator_are_freed_together(no_gc):
    x = t.rand(3, requires_grad=True)
    y = x * 2
    leaf, acc = weakref.ref(x), weakref.ref(y.grad_fn.next_functions[0][0])
    del x, y
    assert leaf() is None and acc() is None


BACKENDS = ["numpy", "jax", "array_api_strict"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_intermediate_saved_tensors_are_freed_after_backward(backend, no_gc):
    x = t.rand(4, backend=backend, requires_grad=True)
    y = (x * 2).exp()
    z = (y * y).sum()  # MulBackward0 keeps y for its gradient
    saved = weakref.ref(y)
    del y
    assert saved() is not None
    z.backward()
    assert saved() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_retain_graph_keeps_saved_tensors_until_the_output_goes(backend, no_gc):
    x = t.rand(4, backend=backend, requires_grad=True)
    y = x.exp()
    z = (y * y).sum()
    saved = weakref.ref(y)
    del y
    z.backward(retain_graph=True)
    assert saved() is not None
    del z
    assert saved() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_hook_on_non_leaf_does_not_keep_the_graph_alive(backend, no_gc):
    x = t.rand(3, backend=backend, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.shape))
    y.retain_grad()
    node = weakref.ref(y.grad_fn)
    out = (y * y).sum()
    out.backward()
    assert seen == [(3,)] and y.grad is not None
    del y, out
    assert node() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_leaf_hook_does_not_keep_the_leaf_alive(backend, no_gc):
    x = t.rand(3, backend=backend, requires_grad=True)
    x.register_hook(lambda g: g * 2)
    (x * 3).sum().backward()
    leaf = weakref.ref(x)
    del x
    assert leaf() is None


class _SaveBoth(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(x, out)
        ctx.scale = 2.0
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return grad * out


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_function_ctx_makes_no_cycle(backend, no_gc):
    x = t.rand(3, backend=backend, requires_grad=True)
    out = _SaveBoth.apply(x)
    node, output = weakref.ref(out.grad_fn), weakref.ref(out)
    del out
    assert node() is None and output() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_function_saved_tensors_freed_after_backward(backend, no_gc):
    x = t.rand(3, backend=backend, requires_grad=True)
    y = x * 1
    out = _SaveBoth.apply(y)
    saved_input = weakref.ref(y)
    del y
    out.sum().backward()
    assert saved_input() is None


def _linear_regression(backend):
    """One gradient-descent step of least squares on fixed data, and the weights it trains."""
    t.manual_seed(0)
    x = t.cat([t.randn(16, 2, dtype=t.float64, backend=backend), t.ones(16, 1, dtype=t.float64, backend=backend)], 1)
    y = x @ t.tensor([[1.0], [-2.0], [0.5]], dtype=t.float64, backend=backend)
    w = t.zeros(3, 1, dtype=t.float64, backend=backend, requires_grad=True)

    def step():
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with t.no_grad():
            w.sub_(w.grad, alpha=0.1)
        w.grad = None
    return step, w


def test_training_loop_memory_stays_flat(no_gc):
    """10,000 steps on numpy: after warm-up, live memory (every allocation, traced) does not grow -- a leak
    of one small object per step would show as hundreds of kilobytes -- with the collector off. Tracing
    starts before the warm-up, so buffers numpy caches for reuse are counted from the start."""
    step, w = _linear_regression("numpy")
    tracemalloc.start()
    try:
        for _ in range(1000):
            step()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(9000):
            step()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 8 * 1024, f"live memory grew by {grown} bytes over 9000 steps"
    np.testing.assert_allclose(np.asarray(w.detach().tolist()).ravel(), [1.0, -2.0, 0.5], atol=1e-6)


def _live_autograd_objects():
    from xtensor._autograd import Node
    return sum(1 for o in gc.get_objects() if issubclass(type(o), (t.Tensor, Node)))  # type(): no proxies asked


@pytest.mark.parametrize("backend", ["jax", "array_api_strict"])
def test_training_loop_keeps_no_tensors_or_nodes(backend, no_gc):
    """On jax and array-api-strict the backends' own caches take ~1000 steps to fill, so the check counts
    xtensor's objects instead: no tensor or graph node outlives its step, with the collector off."""
    step, w = _linear_regression(backend)
    for _ in range(20):
        step()
    before = _live_autograd_objects()
    for _ in range(200):
        step()
    assert _live_autograd_objects() == before


def _nn_training(backend):
    """A tiny regression model with forward (pre-)hooks and a tensor hook on a weight, Adam (per-parameter state),
    a StepLR schedule (it wraps ``optimizer.step``) and a shuffling DataLoader; ``run(steps)`` trains."""
    t.manual_seed(0)
    x = t.randn(64, 4, backend=backend)
    y = x @ t.tensor([[1.0], [-2.0], [0.5], [3.0]], backend=backend)
    with t.use_backend(backend):
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    hooks = [lambda module, args, out: None, lambda module, args: None, lambda g: g * 1]
    model[0].register_forward_hook(hooks[0])
    model[2].register_forward_pre_hook(hooks[1])
    model[0].weight.register_hook(hooks[2])
    optimizer = t.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = t.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.9)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)

    def run(steps):
        done = 0
        while done < steps:
            for xb, yb in loader:
                loss = F.mse_loss(model(xb), yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                scheduler.step()
                done += 1
                if done == steps:
                    return float(loss)
    return model, optimizer, scheduler, loader, hooks, run


@pytest.mark.parametrize("backend, steps", [("numpy", 1000), ("jax", 50)])
def test_nn_training_loop_keeps_no_tensors_or_nodes_alive(backend, steps, no_gc):
    """With the collector off, after warm-up (Adam's state made) no tensor or graph node outlives its training step:
    one leaked object per step shows as hundreds. CI runs a few hundred steps; XTENSOR_MEMORY_STEPS the long run."""
    *_, run = _nn_training(backend)
    first = run(20)
    before = _live_autograd_objects()
    last = run(int(STEPS or steps))
    assert _live_autograd_objects() == before
    assert last < first  # it trains


def test_nn_training_loop_memory_stays_flat_on_numpy(no_gc):
    """Every allocation traced: after warm-up, live memory does not grow over the steps (600 in CI, ~7 KB of noise
    from allocator caches settling; one leaked object a step would add 56 bytes or more a step, 34 KB)."""
    *_, run = _nn_training("numpy")
    tracemalloc.start()
    try:
        run(400)
        before = tracemalloc.get_traced_memory()[0]
        run(int(STEPS or 600))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 24 * 1024, f"live memory grew by {grown} bytes"


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_model_hooks_optimizer_scheduler_and_loader_are_freed_by_refcount(backend, no_gc):
    """No cycle through modules, hooks, the optimizer (and the scheduler's wrapper of its ``step``) or the loader
    and its iterator: each dies on ``del`` with the collector off."""
    model, optimizer, scheduler, loader, hooks, run = _nn_training(backend)
    run(5)
    batches = iter(loader)
    next(batches)
    objects = [model, model[0], model[0].weight, optimizer, scheduler, loader, batches, *hooks]
    refs = [weakref.ref(o) for o in objects]
    del model, optimizer, scheduler, loader, hooks, run, batches, objects
    alive = [type(r()).__name__ for r in refs if r() is not None]
    assert not alive, f"kept alive by a reference cycle: {alive}"
