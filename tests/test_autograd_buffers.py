"""Gradient buffers (issue 22): later gradients add into ``.grad`` in place, and ``.grad`` never shares memory with
another leaf's gradient or a tensor the user holds.

Each aliasing case is built twice, ``m`` standing for ``torch`` or ``xtensor``: after ``backward()`` one ``.grad`` is
changed in place and every other gradient and user-held tensor is read back, as PyTorch 2.13 leaves them -- except
where PyTorch itself aliases (views of one gradient handed to several leaves, pytorch/pytorch#34082): there the
values are the unaliased ones. ``add_``/``sub_`` with ``alpha`` keep the general path's bits on numpy.
"""
import numpy as np
import pytest
import torch

import xtensor
from xtensor._table import native_dtype

SHAPE = (2, 64)


def _leaf(m, seed=0):
    value = np.random.default_rng(seed).standard_normal(SHAPE).astype(np.float32)
    return m.tensor(value, requires_grad=True)


def _values(*tensors):
    return [np.asarray(t.detach().cpu().tolist() if hasattr(t, "cpu") else t.tolist()) for t in tensors]


def _same_as_torch(scenario):
    """``scenario(m)`` -> tensors to read back, run on torch and on xtensor; their values must agree."""
    want, got = scenario(torch), scenario(xtensor)
    assert len(want) == len(got)
    for w, g in zip(_values(*want), _values(*got)):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    return got


def test_a_gradient_handed_to_two_leaves_is_not_shared_by_their_grads(backend):
    def scenario(m):
        a, b = _leaf(m, 0), _leaf(m, 1)
        ((a + b) * 2).sum().backward()  # (add's backward hands one gradient to both)
        a.grad.add_(1)
        return a.grad, b.grad
    _same_as_torch(scenario)


def test_views_of_one_gradient_handed_to_two_leaves_are_not_shared_by_their_grads(backend):
    # PyTorch 2.13 steals both views here: its a.grad and b.grad share memory (pytorch/pytorch#34082)
    a, b = _leaf(xtensor, 0), _leaf(xtensor, 1)
    (a.reshape(-1) + b.reshape(-1)).mul(2).sum().backward()
    a.grad.add_(1)
    np.testing.assert_array_equal(b.grad.numpy(), np.full(SHAPE, 2, np.float32))
    np.testing.assert_array_equal(a.grad.numpy(), np.full(SHAPE, 3, np.float32))


def test_a_gradient_the_caller_passed_stays_the_callers(backend):
    def scenario(m):
        a, b = _leaf(m, 0), _leaf(m, 1)
        given = m.ones(SHAPE) * 3
        m.autograd.backward([a + b], [given])  # (passed on to both leaves unchanged)
        a.grad.add_(1)
        b.grad.mul_(5)
        return given, a.grad, b.grad
    _same_as_torch(scenario)


def test_a_view_of_a_gradient_the_caller_passed_stays_the_callers(backend):
    # PyTorch 2.13 steals the view here: its a.grad shares the caller's memory (pytorch/pytorch#34082)
    a = _leaf(xtensor)
    given = xtensor.ones(SHAPE[::-1]) * 3
    a.t().backward(given)
    a.grad.add_(1)
    np.testing.assert_array_equal(given.numpy(), np.full(SHAPE[::-1], 3, np.float32))


def test_a_gradient_a_hook_kept_is_not_the_grad(backend):
    def scenario(m):
        a = _leaf(m)
        seen = []
        a.register_hook(seen.append)
        (a * 2).sum().backward()
        a.grad.add_(1)
        return seen[0], a.grad
    _same_as_torch(scenario)


def test_a_gradient_a_hook_returned_is_not_the_grad(backend):
    def scenario(m):
        a = _leaf(m)
        replacement = m.ones(SHAPE) * 7
        a.register_hook(lambda grad: replacement)
        (a * 2).sum().backward()
        a.grad.add_(1)
        return replacement, a.grad
    _same_as_torch(scenario)


def test_a_retained_intermediate_gradient_is_not_a_leafs_grad(backend):
    def scenario(m):
        a = _leaf(m)
        h = a.reshape(-1) * 1
        h.retain_grad()
        (h * 3).sum().backward()
        a.grad.add_(1)
        return h.grad, a.grad
    _same_as_torch(scenario)


def test_a_custom_functions_returned_tensor_is_not_the_grad(backend):
    def scenario(m):
        kept = m.ones(SHAPE) * 4

        class PassesOn(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return kept

        a = _leaf(m)
        PassesOn.apply(a).sum().backward()
        a.grad.add_(1)
        return kept, a.grad
    _same_as_torch(scenario)


def test_gradients_autograd_grad_returns_are_not_a_leafs_grad(backend):
    def scenario(m):
        a = _leaf(m)
        h = a * 2
        (gh,) = m.autograd.grad((h * h).sum(), [h])
        h.backward(gh)
        gh.add_(1)
        return gh, a.grad
    _same_as_torch(scenario)


def test_backward_with_inputs_gives_the_leaf_a_grad_of_its_own(backend):
    def scenario(m):
        a, b = _leaf(m, 0), _leaf(m, 1)
        (a + b).mul(2).sum().backward(inputs=[a, b])
        a.grad.add_(1)
        return a.grad, b.grad
    _same_as_torch(scenario)


def test_contributions_summed_for_a_leaf_used_twice_leave_the_callers_gradients(backend):
    def scenario(m):
        a = _leaf(m)
        first, second = m.ones(SHAPE), m.ones(SHAPE) * 2
        m.autograd.backward([a * 1, a * 3], [first, second])
        a.grad.add_(1)
        return first, second, a.grad
    _same_as_torch(scenario)


def test_a_second_backward_adds_into_the_same_grad_a_caller_holds(backend):
    def scenario(m):
        a = _leaf(m)
        y = (a * 2 + a * 3).sum()  # (two contributions: summed by the engine)
        y.backward(retain_graph=True)
        held = a.grad
        y.backward()
        assert a.grad is held
        return held, a.grad
    _same_as_torch(scenario)


def test_a_grad_the_user_assigned_accumulates_in_place_as_pytorchs(backend):
    def scenario(m):
        a = _leaf(m)
        mine = m.ones(SHAPE)
        a.grad = mine
        (a * 2).sum().backward()
        return mine, a.grad
    _same_as_torch(scenario)


def test_second_order_gradients_still_build_graphs_through_grad(backend):
    def scenario(m):
        a = _leaf(m)
        (a * a).sum().backward(create_graph=True)
        first = a.grad
        first.sum().backward()
        return first.detach(), a.grad
    _same_as_torch(scenario)


def test_a_transposed_weights_grad_is_contiguous_as_pytorchs(backend):
    def scenario(m):
        layer = m.nn.Linear(SHAPE[1], 3)
        layer(m.ones(4, SHAPE[1])).sum().backward()
        assert layer.weight.grad.is_contiguous()
        return (layer.weight.grad.view(-1),)
    _same_as_torch(scenario)


@pytest.mark.parametrize("name, alpha", [("add_", -0.37), ("sub_", 3), ("add_", 1e-3)])
def test_scaled_add_in_place_keeps_the_out_of_place_bits(backend, name, alpha):
    rng = np.random.default_rng(0)
    start, other = (rng.standard_normal((3, 50)).astype(np.float32) for _ in range(2))
    x, y = xtensor.tensor(start), xtensor.tensor(other)
    want = (x + y * alpha) if name == "add_" else (x - y * alpha)
    assert getattr(x, name)(y, alpha=alpha) is x
    np.testing.assert_array_equal(x.numpy(), want.numpy())
    fused = getattr(torch.tensor(start), name)(torch.tensor(other), alpha=alpha)  # PyTorch's one rounding
    np.testing.assert_allclose(x.numpy(), fused.numpy(), rtol=1e-6, atol=1e-6)


def test_scaled_add_in_place_moves_the_version_a_saved_tensor_checks(backend):
    for m in (torch, xtensor):
        a, x = m.ones(3, requires_grad=True), m.ones(3)
        y = a * x  # (x saved for a's gradient)
        with m.no_grad():
            x.add_(m.ones(3), alpha=2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_scaled_add_in_place_through_data_updates_the_parameter_as_pytorchs(backend):
    def scenario(m):
        p = m.nn.Parameter(m.ones(3, 4))
        p.grad = m.full((3, 4), 2.0)
        p.data.add_(p.grad, alpha=-0.5)
        p.data.sub_(m.ones(4), alpha=2)  # (a broadcast operand: the general path)
        return (p,)
    _same_as_torch(scenario)


def test_scaled_add_in_place_refusals_are_pytorchs(backend):
    for m in (torch, xtensor):
        x = m.ones(3, 3)
        with pytest.raises(RuntimeError, match="single memory location"):
            x.add_(x.t(), alpha=2)
        leaf = m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.add_(m.ones(3), alpha=2)


def test_scaled_add_in_place_under_autograd_records_the_node_as_pytorchs(backend):
    def scenario(m):
        a = m.ones(3, requires_grad=True)
        x = m.zeros(3)
        x.add_(a * 1, alpha=2)
        assert type(x.grad_fn).__name__ == "AddBackward0"
        x.sum().backward()
        return a.grad, x
    _same_as_torch(scenario)


def test_a_dtype_the_namespace_lacks_is_answered_by_its_adapter_every_time():
    numpy_xp = xtensor.get_backend("numpy").xp
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for _ in range(2):  # the answer found, then the answer kept
        assert np.dtype(native_dtype(numpy_xp, xtensor.bfloat16)) == np.dtype(ml_dtypes.bfloat16)
    strict_xp = xtensor.get_backend("array_api_strict").xp
    for _ in range(2):  # a refusal is not kept as an answer
        with pytest.raises(TypeError, match="float16"):
            native_dtype(strict_xp, xtensor.float16)
