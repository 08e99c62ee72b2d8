"""xtensor.autograd.Function: custom forward/backward pairs, as PyTorch users write them.

Each test runs on every backend (the ``backend`` fixture); gradients are checked against jax.grad,
node names and error messages against PyTorch 2.x.
"""
import re

import numpy as np
import pytest

import xtensor as t
from xtensor.autograd import Function, once_differentiable

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _np(x):
    return np.asarray(x.tolist(), dtype=float)


class Exp(Function):
    """Saves its output: the backward reads it."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class Cube(Function):
    """Saves its input; backward written in xtensor ops, so it is differentiable again."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


class ScaleBy(Function):
    """A non-tensor argument: its gradient is None."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k, None


class SinCos(Function):
    """Two outputs."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        (x,) = ctx.saved_tensors
        return g_sin * x.cos() - g_cos * x.sin()


X = [0.3, -1.2, 2.0]


def test_custom_function_gradient_matches_jax(backend):
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    (Exp.apply(x) * t.tensor([1.0, 2.0, 3.0], dtype=t.float64)).sum().backward()
    expected = jax.grad(lambda v: (jnp.exp(v) * jnp.array([1.0, 2.0, 3.0])).sum())(jnp.array(X))
    np.testing.assert_allclose(_np(x.grad), np.asarray(expected), rtol=1e-12)


def test_custom_function_node_is_named_class_backward(backend):
    y = Exp.apply(t.ones(2, requires_grad=True))
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert re.fullmatch(r"<xtensor\.autograd\.function\.ExpBackward object at 0x[0-9a-f]+>", repr(y.grad_fn))


def test_custom_function_next_functions_as_torch(backend):
    torch = pytest.importorskip("torch")

    class MultiplyAdd(Function):
        @staticmethod
        def forward(ctx, w, x, b):
            return w * x + b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, grad

    class TorchMultiplyAdd(torch.autograd.Function):
        forward = MultiplyAdd.forward
        backward = MultiplyAdd.backward

    def structure(node):
        return [(type(n).__name__ if n is not None else None, i) for n, i in node.next_functions]

    ours = MultiplyAdd.apply(t.ones(1, requires_grad=True), t.ones(1), t.ones(1, requires_grad=True) * 2)
    theirs = TorchMultiplyAdd.apply(torch.ones(1, requires_grad=True), torch.ones(1),
                                    torch.ones(1, requires_grad=True) * 2)
    assert structure(ours.grad_fn) == structure(theirs.grad_fn)


def test_ctx_is_the_node(backend):
    x = t.ones(2, requires_grad=True)
    y = Cube.apply(x)
    (saved,) = y.grad_fn.saved_tensors
    assert saved is x


def test_needs_input_grad_per_argument(backend):
    seen = {}

    class Record(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["needs"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, None

    Record.apply(t.ones(2, requires_grad=True), t.ones(2), 3.0)
    assert seen["needs"] == (True, False, False)


def test_non_tensor_argument_gets_no_gradient(backend):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    ScaleBy.apply(x, 4.0).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_gradient_for_a_non_tensor_argument_raises(backend):
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    with pytest.raises(RuntimeError, match="returned a gradient different than None at position 2, but the "
                                           "corresponding forward input was not a Variable"):
        Bad.apply(t.ones(2, requires_grad=True), 2.0).sum().backward()


def test_wrong_number_of_gradients_raises(backend):
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        Bad.apply(t.ones(2, requires_grad=True), t.ones(2)).sum().backward()


def test_input_not_requiring_grad_gets_no_grad(backend):
    w = t.tensor([2.0], requires_grad=True)
    x = t.ones(1)

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * b, grad * a

    Mul.apply(w, x).backward()
    assert x.grad is None and w.grad.tolist() == [1.0]


def test_several_outputs_gradients_match_jax(backend):
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    s, c = SinCos.apply(x)
    assert (s.grad_fn is c.grad_fn, s.output_nr, c.output_nr) == (True, 0, 1)
    (s * 2 + c * c).sum().backward()
    expected = jax.grad(lambda v: (jnp.sin(v) * 2 + jnp.cos(v) ** 2).sum())(jnp.array(X))
    np.testing.assert_allclose(_np(x.grad), np.asarray(expected), rtol=1e-12)


def test_unused_output_gets_zeros_by_default(backend):
    seen = {}

    class Spy(SinCos):
        @staticmethod
        def backward(ctx, g_sin, g_cos):
            seen["g_cos"] = g_cos
            return SinCos.backward(ctx, g_sin, g_cos)

    x = t.tensor(X, requires_grad=True)
    s, _ = Spy.apply(x)
    s.sum().backward()
    assert seen["g_cos"].tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(_np(x.grad), np.cos(X), rtol=1e-6)


def test_set_materialize_grads_false_passes_none(backend):
    seen = {}

    class Spy(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g_a, g_b):
            seen["g_b"] = g_b
            return g_a * 2

    x = t.ones(2, requires_grad=True)
    a, _ = Spy.apply(x)
    a.sum().backward()
    assert seen["g_b"] is None and x.grad.tolist() == [2.0, 2.0]


def test_mark_non_differentiable_output(backend):
    seen = {}

    class SortWithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            values = x * 2
            flags = x > 0
            ctx.mark_non_differentiable(flags)
            return values, flags

        @staticmethod
        def backward(ctx, g_values, g_flags):
            seen["g_flags"] = g_flags
            return g_values * 2

    x = t.tensor([1.0, -1.0], requires_grad=True)
    values, flags = SortWithIndex.apply(x)
    assert values.requires_grad and not flags.requires_grad
    values.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and seen["g_flags"].tolist() == [False, False]


def test_mark_non_differentiable_float_output_does_not_require_grad(backend):
    class Pair(Function):
        @staticmethod
        def forward(ctx, x):
            frozen = x * 3
            ctx.mark_non_differentiable(frozen)
            return x * 2, frozen

        @staticmethod
        def backward(ctx, g, g_frozen):
            return g * 2

    _, frozen = Pair.apply(t.ones(2, requires_grad=True))
    assert not frozen.requires_grad and frozen.grad_fn is None


class DoubleInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_mark_dirty_gives_the_input_the_new_history(backend):
    w = t.tensor([1.0, 3.0], requires_grad=True)
    a = w * 1
    out = DoubleInPlace.apply(a)
    assert out is a and type(a.grad_fn).__name__ == "DoubleInPlaceBackward"
    assert a.tolist() == [2.0, 6.0]
    (a * a).sum().backward()
    assert w.grad.tolist() == [8.0, 24.0]  # d/dw (2w)^2


def test_mark_dirty_on_leaf_requiring_grad_raises(backend):
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place "
                                           "operation"):
        DoubleInPlace.apply(t.ones(2, requires_grad=True))


def test_input_returned_unchanged_is_a_new_tensor_with_history(backend):
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    x = t.ones(2, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_saved_tensor_modified_in_place_raises_on_backward(backend):
    x = t.ones(2, requires_grad=True)
    a = x * 1
    y = Cube.apply(a)
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_tensors_freed_after_backward(backend):
    y = Cube.apply(t.ones(2, requires_grad=True))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


def test_retain_graph_keeps_saved_tensors(backend):
    x = t.tensor([2.0], requires_grad=True)
    y = Cube.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [24.0]


def test_function_without_saved_tensors_backwards_twice(backend):
    x = t.tensor([2.0], requires_grad=True)
    y = ScaleBy.apply(x, 3.0).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [6.0]


def test_create_graph_through_backward_written_in_xtensor_ops(backend):
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    (g,) = t.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = t.autograd.grad((g * g).sum(), x)
    expected = jax.grad(lambda v: (jax.grad(lambda u: (u ** 3).sum())(v) ** 2).sum())(jnp.array(X))
    np.testing.assert_allclose(_np(h), np.asarray(expected), rtol=1e-12)


def test_create_graph_through_a_saved_output(backend):
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    (g,) = t.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_np(h), np.exp(X), rtol=1e-12)


def test_grad_fn_apply_calls_backward_as_in_seed_004(backend):
    w = t.tensor([0.5], requires_grad=True)
    y = Cube.apply(w)
    (g,) = (y.grad_fn.apply(t.ones(1)),)
    assert g.tolist() == [0.75] and type(g.grad_fn).__name__ == "MulBackward0"


class SquareOnce(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


def test_once_differentiable_backward_gives_first_derivative(backend):
    x = t.tensor(X, requires_grad=True)
    (g,) = t.autograd.grad(SquareOnce.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(_np(g), 2 * np.array(X), rtol=1e-6)
    assert not g.requires_grad


def test_once_differentiable_raises_when_differentiated_twice(backend):
    x = t.tensor(X, requires_grad=True)
    v = t.ones(3, requires_grad=True)
    (g,) = t.autograd.grad(SquareOnce.apply(x), x, grad_outputs=v, create_graph=True)
    assert type(g.grad_fn).__name__ == "Error"
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        g.sum().backward()


def test_apply_under_no_grad_records_nothing(backend):
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        y = Cube.apply(x)
    assert y.grad_fn is None and not y.requires_grad


def test_forward_runs_without_recording(backend):
    seen = {}

    class Spy(Function):
        @staticmethod
        def forward(ctx, x):
            inner = x * 2
            seen["inner"] = (inner.requires_grad, t.is_grad_enabled())
            return inner

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    Spy.apply(t.ones(2, requires_grad=True))
    assert seen["inner"] == (False, False)


def test_setup_context_style(backend):
    class Mul(Function):
        @staticmethod
        def forward(a, b):
            return a * b

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * b, grad * a

    a = t.tensor([2.0], requires_grad=True)
    b = t.tensor([5.0], requires_grad=True)
    Mul.apply(a, b).backward()
    assert (a.grad.tolist(), b.grad.tolist()) == ([5.0], [2.0])


def test_broadcast_gradient_is_summed_to_the_input_shape(backend):
    class Expand(Function):
        @staticmethod
        def forward(ctx, x):
            return x.expand(3, 2).clone()

        @staticmethod
        def backward(ctx, grad):
            return grad  # shape (3, 2) for an input of shape (2,)

    x = t.ones(2, requires_grad=True)
    Expand.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_custom_function_passes_gradcheck(backend):
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(Exp.apply, (x,))
    assert t.autograd.gradgradcheck(Cube.apply, (x,))


def test_legacy_instantiation_raises(backend):
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward method"):
        Exp()
