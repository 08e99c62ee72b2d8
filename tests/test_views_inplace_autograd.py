"""Regression tests of issue 10: views, in-place writes and autograd as in PyTorch.

Each test is a short PyTorch program (the ``tests/fuzz_programs.py`` form: ``read(x)`` records what a
user sees of ``x``). It runs on xtensor on each backend and, when PyTorch is importable, must give what
PyTorch gives at every read and error; the outcome PyTorch documents is also asserted directly, so the
tests hold without PyTorch.
"""
import warnings

import numpy as np
import pytest

import xtensor
from fuzz_programs import first_difference, program_from_source, run

try:
    import torch
except ImportError:
    torch = None


def outcome(source):
    """Records of ``source`` run on xtensor (the current backend), checked against PyTorch's first."""
    program = program_from_source(source)
    records = run(xtensor, program)
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = run(torch, program)
        difference = first_difference(expected, records)
        assert difference is None, difference
    return records


def seen(records, expression):
    """What the last ``read(expression)`` saw."""
    return [r["seen"] for r in records if r["kind"] == "read" and r["source"] == expression][-1]


def error_at(records, statement):
    """The error types raised at ``statement`` (``fuzz_programs``' classification; None if it ran)."""
    last = records[-1]
    return last["error"] if last["kind"] == "error" and last["source"] == statement else None


W = "w = torch.arange(24., dtype=torch.float64).reshape(2, 3, 4).requires_grad_()"


# -- family 1: a view's history after its base (or another alias) is written in place

def test_view_of_zeroed_base_carries_no_gradient(backend):
    """The issue's smallest case: base.zero_() erases a0's dependence on w."""
    records = outcome(f"""
        {W}
        base = w * 1
        a0 = base[0]
        base.zero_()
        read(a0)
        (a0 * 2).sum().backward()
        read(w.grad)
    """)
    assert seen(records, "a0")["grad_fn"] == "AsStridedBackward0"
    assert seen(records, "w.grad")["values"].sum() == 0


def test_view_sees_scaling_of_its_base(backend):
    records = outcome(f"""
        {W}
        base = w * 1
        a0 = base[:, 1]
        base.mul_(3)
        read(a0)
        a0.sum().backward()
        read(w.grad)
    """)
    expected = np.zeros((2, 3, 4))
    expected[:, 1] = 3
    np.testing.assert_array_equal(seen(records, "w.grad")["values"], expected)


def test_write_through_view_then_base_zeroed(backend):
    """base.add_(-1), then a0[idx] = v (v from w), then base.zero_(): no gradient reaches w."""
    records = outcome(f"""
        {W}
        base = w * 1
        a0 = base[1].mT
        base.add_(-1)
        a0[1:, ::2] = w[0, :3, :2] * 5
        read(a0)
        base.zero_()
        read(a0)
        (a0 * a0).sum().backward()
        read(w.grad)
    """)
    assert not seen(records, "w.grad")["values"].any()


def test_view_taken_before_write_through_sibling(backend):
    """A write through one alias reaches the history of another alias of the same base."""
    records = outcome(f"""
        {W}
        base = w * 1
        a0 = base[0, 0]
        a1 = base.select(2, 1)
        a1.mul_(10)
        read(a0)
        a0.sum().backward()
        read(w.grad)
    """)
    expected = np.zeros((2, 3, 4))
    expected[0, 0] = [1, 10, 1, 1]
    np.testing.assert_array_equal(seen(records, "w.grad")["values"], expected)


# -- family 2: writing a value that requires grad into a tensor that does not

def test_add_into_view_of_plain_tensor_makes_base_require_grad(backend):
    records = outcome(f"""
        {W}
        base = torch.zeros(2, 3, 4, dtype=torch.float64)
        a = base[0]
        other = base[:, :, 1]
        a += w[1] * 3
        read(base)
        read(other)
        (base * base).sum().backward()
        read(w.grad)
    """)
    assert seen(records, "base")["requires_grad"] and seen(records, "base")["grad_fn"] == "CopySlices"
    assert seen(records, "other")["requires_grad"]
    grad = seen(records, "w.grad")["values"]
    np.testing.assert_array_equal(grad[0], 0)
    np.testing.assert_allclose(grad[1], 18 * np.arange(12.0, 24.0).reshape(3, 4))  # d/dw (3w)^2


def test_fill_view_of_plain_tensor_with_value_requiring_grad(backend):
    records = outcome(f"""
        {W}
        base = torch.zeros(2, 3, 4, dtype=torch.float64)
        a = base[1, :2]
        a.fill_(w.sum())
        base.sum().backward()
        read(w.grad)
    """)
    np.testing.assert_array_equal(seen(records, "w.grad")["values"], np.full((2, 3, 4), 8.0))


@pytest.mark.parametrize("write", [
    "base[torch.tensor([True, False])] = w[1].unsqueeze(0)",
    "base.index_put_((torch.tensor([1, 1]),), w[1].expand(2, 3, 4), accumulate=True)",
    "base[0].copy_(w[1])",
])
def test_write_into_plain_tensor_carries_gradient(backend, write):
    """w[1] written (twice for index_put_ with accumulate) into base; base.sum()'s gradient reaches w[1]."""
    records = outcome(f"""
        {W}
        base = torch.zeros(2, 3, 4, dtype=torch.float64)
        view = base[:, 0]
        {write}
        read(base)
        read(view)
        base.sum().backward()
        read(w.grad)
    """)
    assert seen(records, "view")["requires_grad"]
    grad = seen(records, "w.grad")["values"]
    assert not grad[0].any() and np.all(grad[1] == (2 if "index_put_" in write else 1))


# -- family 3: errors PyTorch raises

@pytest.mark.parametrize("write", [
    "x.chunk(2)[1].mT.copy_(torch.ones(4, 3, dtype=torch.float64))",
    "x.split(1)[0][0].add_(1)",
    "x.unbind(1)[2].unsqueeze(0).mul_(2)",
])
def test_write_into_view_of_multi_output_view_raises(backend, write):
    records = outcome(f"""
        {W}
        x = w * 1
        {write}
    """)
    assert "RuntimeError" in error_at(records, write)


def test_saved_alias_modified_through_base_raises_at_backward(backend):
    records = outcome(f"""
        {W}
        base = w * 1
        a = base[0]
        p = (a * a).sum()
        base.add_(1)
        p.backward()
    """)
    assert "RuntimeError" in error_at(records, "p.backward()")


def test_add_of_product_that_saved_the_view_raises_at_backward(backend):
    records = outcome(f"""
        {W}
        base = w * 1
        a = base[1, 2]
        a.add_(a * a)
        base.sum().backward()
    """)
    assert "RuntimeError" in error_at(records, "base.sum().backward()")


# -- family 3b: ``.data`` has a version counter of its own, ``detach()`` shares its tensor's (found by fuzzing)

def test_write_through_data_is_not_seen_by_backward(backend):
    """PyTorch's documented hazard of ``.data``: the saved tensor is modified, backward uses the new values."""
    records = outcome(f"""
        {W}
        base = w * 1
        a = base[0]
        p = (a * a).sum()
        base.data[0].mul_(2)
        read(a)
        p.backward()
        read(w.grad)
    """)
    assert seen(records, "a")["grad_fn"] == "SelectBackward0"  # no write the view's history must follow
    np.testing.assert_array_equal(seen(records, "w.grad")["values"][0], 4 * np.arange(12.0).reshape(3, 4))


def test_views_of_data_follow_writes_into_data(backend):
    """``.data``'s own counter still counts its writes: its views re-derive their history from it."""
    records = outcome(f"""
        {W}
        plain = torch.zeros(2, 3, 4)
        a = plain.data[0].t()
        a.mul_(w[0].t())
        read(a)
        a.sum().backward()
        read(w.grad)
    """)
    assert seen(records, "a")["grad_fn"] == "AsStridedBackward0"


def test_write_through_detach_is_seen_by_backward(backend):
    records = outcome(f"""
        {W}
        base = w * 1
        p = (base * base).sum()
        base.detach()[0].mul_(2)
        p.backward()
    """)
    assert "RuntimeError" in error_at(records, "p.backward()")


def test_write_through_a_view_of_an_expanded_data_alias_fails_backward(backend):
    """The write's CopySlices lays the gradient out as its base, here ``.data`` of an expanded view, whose elements
    share memory: PyTorch's backward refuses (found by fuzzing)."""
    records = outcome(f"""
        {W}
        plain = torch.zeros(3, 4)
        a = plain[0].expand(2, 4).data.narrow(0, 0, 1)
        a.sub_(w[0, :1])
        a.sum().backward()
    """)
    assert "RuntimeError" in error_at(records, "a.sum().backward()")


def test_gradient_through_an_overwritten_history_has_no_graph_under_create_graph(backend):
    """``fill_`` of a non-leaf passes a fresh zero to its old history, as PyTorch's FillBackward (found by fuzzing
    second order)."""
    records = outcome(f"""
        {W}
        base = w * 1
        base.fill_(0.75)
        loss = base.sin().sum()
        grads = torch.autograd.grad(loss, (w,), create_graph=True)
        read_data(grads[0])
    """)
    assert seen(records, "grads[0]")["requires_grad"] is False
    assert not seen(records, "grads[0]")["values"].any()


def test_gradient_through_an_empty_rederived_view_has_no_graph_under_create_graph(backend):
    """An empty view's AsStridedBackward0 gives fresh zeros, as PyTorch's as_strided_backward (found by fuzzing)."""
    records = outcome(f"""
        {W}
        base = w * 1
        a = base.narrow(0, 0, 0).mT
        with torch.no_grad(): a.add_(0.5)
        read(a)
        grads = torch.autograd.grad((a * a).sum(), (w,), create_graph=True)
        read_data(grads[0])
    """)
    assert seen(records, "a")["grad_fn"] == "AsStridedBackward0"
    assert seen(records, "grads[0]")["requires_grad"] is False


# -- family 3c: retain_grad follows in-place writes (PyTorch moves its hook to the new history; found by fuzzing)

def test_retained_grad_is_of_the_value_after_an_inplace_write(backend):
    records = outcome(f"""
        {W}
        base = w * 1
        base.retain_grad()
        base *= 3
        (base * base).sum().backward()
        read_data(base.grad)
    """)
    np.testing.assert_array_equal(seen(records, "base.grad")["values"], 2 * 3 * np.arange(24.0).reshape(2, 3, 4))


def test_retained_grad_of_a_view_follows_a_write_into_its_base(backend):
    records = outcome(f"""
        {W}
        base = w * 1
        a = base[0]
        a.retain_grad()
        base.mul_(2)
        (a * a).sum().backward()
        read_data(a.grad)
    """)
    np.testing.assert_array_equal(seen(records, "a.grad")["values"], 2 * 2 * np.arange(12.0).reshape(3, 4))


# -- family 4: narrow with negative starts and out of range

def test_narrow_negative_start_counts_from_end(backend):
    records = outcome(f"""
        {W}
        read(w.narrow(-1, -1, 1))
        read(w.narrow(1, -2, 2))
    """)
    np.testing.assert_array_equal(seen(records, "w.narrow(-1, -1, 1)")["values"][..., 0], np.arange(3, 24, 4.0).reshape(2, 3))
    assert seen(records, "w.narrow(1, -2, 2)")["shape"] == (2, 2, 4)


@pytest.mark.parametrize("call", ["w.narrow(2, 3, 2)", "w.narrow(0, -3, 1)"])
def test_narrow_out_of_range_raises(backend, call):
    records = outcome(f"""
        {W}
        read({call})
    """)
    assert records[-1]["kind"] == "error" and {"RuntimeError", "IndexError"} & set(records[-1]["error"])
