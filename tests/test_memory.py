"""A graph is freed by reference counting alone when its outputs go away: no cycles keep arrays alive."""
import gc
import weakref

import pytest

import xtensor as t


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


@pytest.mark.parametrize("backend", ["numpy", "jax", "array_api_strict"])
def test_saved_tensors_are_freed_after_backward(backend, no_gc):
    x = t.rand(4, backend=backend, requires_grad=True)
    y = x.exp()
    saved = weakref.ref(y.grad_fn._out)
    y.sum().backward()
    assert saved() is None and x.grad is not None


def test_leaf_and_its_accumulator_are_freed_together(no_gc):
    x = t.rand(3, requires_grad=True)
    y = x * 2
    leaf, acc = weakref.ref(x), weakref.ref(y.grad_fn.next_functions[0][0])
    del x, y
    assert leaf() is None and acc() is None
