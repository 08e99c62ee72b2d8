"""Autograd behaviour, specified against PyTorch (and the seed tutorials' printed outputs).

Each test runs once per backend (the ``backend`` fixture). Where a test compares against PyTorch it
builds the same computation with ``m`` standing for either module: ``m = torch`` or ``m = xtensor``.
"""
import re
import threading

import numpy as np
import pytest

import xtensor as t


def _torch():
    return pytest.importorskip("torch")


def _torch_repr(obj):
    return repr(obj).replace("dtype=torch.", "dtype=xtensor.").replace("torch.Size(", "xtensor.Size(")


def _node_repr(node):
    """A node's repr without its address: '<AddBackward0 object>'."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(node))


def _graph(node, depth=6):
    """The structure under a grad_fn: (name, ((child, input_nr), ...)) with None for no function."""
    if node is None:
        return None
    name = type(node).__name__
    if depth == 0:
        return name
    return name, tuple((_graph(child, depth - 1), nr) for child, nr in node.next_functions)


def _values(x):
    return None if x is None else np.asarray(x.tolist(), dtype=float)


def _close(x, tx):
    if tx is None:
        assert x is None
        return
    assert x is not None
    np.testing.assert_allclose(_values(x), _values(tx), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------ requires_grad

def test_requires_grad_propagates_to_results(backend):
    x = t.ones(2, requires_grad=True)
    c = t.ones(2)
    assert (x * c).requires_grad
    assert (c + 1).requires_grad is False
    assert (x.sum() * 2).requires_grad


def test_leaf_tensors_and_results(backend):
    a = t.ones(3, requires_grad=True)
    b = t.zeros(3)
    c = (a + b).sum()
    assert a.is_leaf and b.is_leaf and not c.is_leaf
    assert a.grad_fn is None and b.grad_fn is None and c.grad_fn is not None


def test_requires_grad_setter_and_method(backend):
    a = t.randn(3, 4)
    assert a.requires_grad is False
    a.requires_grad = True
    assert a.requires_grad and a.is_leaf
    b = t.zeros(3, 4).requires_grad_()
    assert b.requires_grad and b.is_leaf
    b.requires_grad_(False)
    assert b.requires_grad is False


def test_requires_grad_on_integer_tensor_raises(backend):
    with pytest.raises(RuntimeError, match="floating point"):
        t.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        t.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        t.ones(2, dtype=t.int64, requires_grad=True)


def test_changing_requires_grad_of_non_leaf_raises(backend):
    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        (x * 2).requires_grad_(False)


# ------------------------------------------------------------------------------------------ backward

def test_gradients_accumulate_across_backward_calls(backend):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    (x * x).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]


def test_grad_is_none_before_backward_and_has_the_leaf_shape_and_dtype(backend):
    x = t.ones(2, 3, dtype=t.float64, requires_grad=True)
    assert x.grad is None
    (x * 2).sum().backward()
    assert x.grad.shape == (2, 3) and x.grad.dtype == t.float64
    assert x.grad.requires_grad is False and x.grad.backend == backend


def test_backward_with_gradient_argument(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        z = (2 * x).view(2, 2)
        z.backward(m.tensor([[1.0, 0.1], [0.01, 0.001]]))
        return x.grad

    assert repr(run(t)) == _torch_repr(run(torch))


def test_backward_gradient_keyword(backend):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(gradient=t.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 40.0]


def test_backward_gradient_of_wrong_shape_raises(backend):
    x = t.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="shape"):
        (x * 2).backward(t.ones(2))


def test_backward_on_non_scalar_without_gradient_raises(backend):
    x = t.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (x * 2).backward()


def test_backward_on_tensor_without_grad_fn_raises(backend):
    with pytest.raises(RuntimeError, match="does not require grad"):
        t.ones(2).sum().backward()


def test_second_backward_through_mul_raises_mentioning_second_time(backend):
    x = t.ones(3, requires_grad=True)
    z = (x * x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()


def test_second_backward_through_add_works_as_in_torch(backend):
    torch = _torch()

    def run(m):
        x = m.ones(3, requires_grad=True)
        z = (x + 2).sum()
        z.backward()
        z.backward()
        return x.grad

    assert run(t).tolist() == run(torch).tolist()


def test_retain_graph_allows_a_second_backward(backend):
    x = t.tensor([2.0], requires_grad=True)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.tolist() == [8.0]


def test_create_graph_gives_second_derivative_of_cube(backend):
    x = t.tensor(2.0, requires_grad=True)
    y = x ** 3
    (g,) = t.autograd.grad(y, x, create_graph=True)
    assert g.item() == 12.0  # 3 x**2
    assert g.requires_grad
    (g2,) = t.autograd.grad(g, x)
    assert g2.item() == 12.0  # 6 x


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_with_create_graph_then_backward_of_grad(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x ** 3).sum()
        y.backward(create_graph=True)
        g = x.grad.clone()
        x.grad = None
        g.sum().backward()
        return g.detach(), x.grad

    (g, h), (tg, th) = run(t), run(torch)
    _close(g, tg)
    _close(h, th)


def test_third_derivative(backend):
    x = t.tensor(1.5, requires_grad=True)
    y = x ** 4
    (g1,) = t.autograd.grad(y, x, create_graph=True)
    (g2,) = t.autograd.grad(g1, x, create_graph=True)
    (g3,) = t.autograd.grad(g2, x)
    assert g3.item() == pytest.approx(24 * 1.5)


# ------------------------------------------------------------------------------------------ autograd.grad

def test_autograd_grad_returns_a_tuple_and_leaves_grad_untouched(backend):
    x = t.ones(3, requires_grad=True)
    w = t.tensor([0.5, 1.5, 2.5], requires_grad=True)
    y = x * w
    z = y.sum()
    result = t.autograd.grad(z, y)
    assert isinstance(result, tuple) and len(result) == 1
    assert repr(result) == "(tensor([1., 1., 1.]),)"
    assert x.grad is None and w.grad is None


def test_autograd_grad_of_several_inputs(backend):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    w = t.tensor([3.0, 4.0], requires_grad=True)
    gx, gw = t.autograd.grad((x * w).sum(), [x, w])
    assert gx.tolist() == [3.0, 4.0] and gw.tolist() == [1.0, 2.0]


def test_autograd_grad_with_unused_input_raises_without_allow_unused(backend):
    x = t.ones(2, requires_grad=True)
    unused = t.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused"):
        t.autograd.grad((x * 2).sum(), [x, unused])


def test_autograd_grad_allow_unused_gives_none(backend):
    x = t.ones(2, requires_grad=True)
    unused = t.ones(1, requires_grad=True)
    gx, gu = t.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0]
    assert gu is None


def test_autograd_grad_materialize_grads_gives_zeros(backend):
    x = t.ones(2, requires_grad=True)
    unused = t.ones(1, requires_grad=True)
    gx, gu = t.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True, materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_autograd_grad_with_grad_outputs(backend):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    (g,) = t.autograd.grad(x * x, x, grad_outputs=t.tensor([1.0, 0.5]))
    assert g.tolist() == [2.0, 2.0]


def test_autograd_backward_function(backend):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    t.autograd.backward((x * x).sum())
    assert x.grad.tolist() == [2.0, 4.0]


# ------------------------------------------------------------------------------------------ grad mode

def test_no_grad_context_stops_recording(backend):
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        y = x * 2
        assert t.is_grad_enabled() is False
    assert t.is_grad_enabled() is True
    assert y.requires_grad is False and y.grad_fn is None
    assert (x * 2).requires_grad


def test_no_grad_as_decorator(backend):
    x = t.ones(2, requires_grad=True)

    @t.no_grad()
    def f():
        return x * 2

    @t.no_grad
    def g():
        return x * 2

    assert f().requires_grad is False
    assert g().requires_grad is False
    assert t.is_grad_enabled()


def test_enable_grad_inside_no_grad(backend):
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        with t.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_enable_grad_as_decorator(backend):
    x = t.ones(2, requires_grad=True)

    @t.enable_grad()
    def f():
        return x * 2

    with t.no_grad():
        y = f()
    assert y.requires_grad


def test_set_grad_enabled_as_function(backend):
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    t.set_grad_enabled(False)
    try:
        y = x * w
        assert (x.requires_grad, w.requires_grad, y.requires_grad) == (False, True, False)
    finally:
        t.set_grad_enabled(True)
    assert t.is_grad_enabled()
    assert (x * w).requires_grad


def test_set_grad_enabled_as_context_manager(backend):
    x = t.ones(2, requires_grad=True)
    with t.set_grad_enabled(False):
        y = x * 2
    with t.set_grad_enabled(True):
        z = x * 2
    assert not y.requires_grad and z.requires_grad
    assert t.is_grad_enabled()


def test_set_grad_enabled_as_decorator(backend):
    x = t.ones(2, requires_grad=True)

    @t.set_grad_enabled(False)
    def f():
        return x * 2

    assert f().requires_grad is False
    assert t.is_grad_enabled()


def test_no_grad_restores_mode_after_exception(backend):
    with pytest.raises(ValueError):
        with t.no_grad():
            raise ValueError("boom")
    assert t.is_grad_enabled()


def test_grad_mode_is_thread_local(backend):
    x = t.ones(2, requires_grad=True)
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with t.no_grad():
            seen["thread_enabled"] = t.is_grad_enabled()
            entered.set()
            release.wait(10)

    th = threading.Thread(target=worker)
    th.start()
    try:
        assert entered.wait(10)
        assert t.is_grad_enabled() is True
        y = x * 2
        assert y.requires_grad and y.grad_fn is not None
    finally:
        release.set()
        th.join(10)
    assert seen["thread_enabled"] is False


def test_main_thread_no_grad_does_not_affect_a_new_thread(backend):
    seen = {}

    def worker():
        seen["enabled"] = t.is_grad_enabled()

    with t.no_grad():
        th = threading.Thread(target=worker)
        th.start()
        th.join(10)
    assert seen["enabled"] is True


# ------------------------------------------------------------------------------------------ detach / data

def test_detach_has_no_history(backend):
    x = t.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.requires_grad is False and d.grad_fn is None and d.is_leaf


def test_detach_shares_storage(backend):
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.detach()
    d[0] = 5.0
    assert x.tolist() == [5.0, 2.0, 3.0]
    with t.no_grad():
        x[1] = 7.0
    assert d.tolist() == [5.0, 7.0, 3.0]


def test_data_has_no_history_and_shares_storage(backend):
    a = t.ones(3, 4, requires_grad=True)
    assert repr(a.data) == "tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]])"
    assert a.data.requires_grad is False
    a.data[0, 0] = 9.0
    assert a[0, 0].item() == 9.0


def test_changes_through_data_are_not_recorded(backend):
    # seed 000 cell 86
    x = t.ones(1, requires_grad=True)
    assert repr(x.data) == "tensor([1.])"
    y = x * 2
    x.data *= 100
    y.backward()
    assert repr(x) == "tensor([100.], requires_grad=True)"
    assert repr(x.grad) == "tensor([2.])"


def test_detach_equals_original(backend):
    # seed 003 cell 19
    x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x.detach()
    assert x.requires_grad and not y.requires_grad
    assert repr(x.eq(y).all()) == "tensor(True)"


# ------------------------------------------------------------------------------------------ graph structure

def test_grad_fn_repr_names_the_node(backend):
    x = t.ones(2, 2, requires_grad=True)
    y = x + 2
    assert _node_repr(y.grad_fn) == "<AddBackward0 object>"
    assert re.fullmatch(r"<AddBackward0 object at 0x[0-9a-fA-F]+>", repr(y.grad_fn))


def test_next_functions_of_add_of_mul_and_leaf(backend):
    # seed 004 cells 136-141
    x = t.ones(1)
    b = t.tensor([0.25], requires_grad=True)
    w = t.tensor([0.75], requires_grad=True)
    y = w * x
    z = y + b
    assert (x.requires_grad, b.requires_grad, w.requires_grad) == (False, True, True)
    assert y.requires_grad
    assert type(z.grad_fn).__name__ == "AddBackward0"
    (n0, i0), (n1, i1) = z.grad_fn.next_functions
    assert (type(n0).__name__, i0, type(n1).__name__, i1) == ("MulBackward0", 0, "AccumulateGrad", 0)
    assert n0 is y.grad_fn
    (m0, j0), (m1, j1) = y.grad_fn.next_functions
    assert (type(m0).__name__, j0, m1, j1) == ("AccumulateGrad", 0, None, 0)
    assert (w.grad_fn, x.grad_fn) == (None, None)


def test_next_functions_repr_like_torch(backend):
    x = t.ones(1)
    b = t.tensor([0.25], requires_grad=True)
    w = t.tensor([0.75], requires_grad=True)
    z = w * x + b
    assert _node_repr(z.grad_fn.next_functions) == "((<MulBackward0 object>, 0), (<AccumulateGrad object>, 0))"


def test_accumulate_grad_node_holds_its_leaf(backend):
    b = t.tensor([0.25], requires_grad=True)
    z = b * 2
    acc = z.grad_fn.next_functions[0][0]
    assert acc.variable is b


def test_accumulate_grad_node_is_shared_by_uses_of_a_leaf(backend):
    x = t.ones(2, requires_grad=True)
    y = x * 2
    z = x + 1
    assert y.grad_fn.next_functions[0][0] is z.grad_fn.next_functions[0][0]


GRAPH_CASES = {
    "add_mul": lambda m, x, w: (x * w + x).sum(),
    "mean_pow": lambda m, x, w: ((x + 2) ** 2).mean(),
    "div_sub": lambda m, x, w: (x / w - 1).sum(),
    "view_t": lambda m, x, w: (x.view(2, 2).t() * 3).sum(),
    "exp_log": lambda m, x, w: m.log(m.exp(x) + w).sum(),
    "index_slice": lambda m, x, w: (x[1:] * w[0]).sum(),
    "mm": lambda m, x, w: x.view(2, 2).mm(w.view(2, 2)).sum(),
    "rsub_neg": lambda m, x, w: (1 - (-x)).sum(),
}



@pytest.mark.parametrize("case", list(GRAPH_CASES))
def test_graph_structure_matches_torch(backend, case, request):
    torch = _torch()
    f = GRAPH_CASES[case]

    def build(m):
        x = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        w = m.tensor([0.5, 1.5, 2.5, 3.5], requires_grad=True)
        return f(m, x, w)

    assert _graph(build(t).grad_fn) == _graph(build(torch).grad_fn)


NODE_NAME_CASES = {
    "add": lambda m, x: x + x,
    "add_scalar": lambda m, x: x + 2,
    "sub": lambda m, x: x - x,
    "rsub": lambda m, x: 2 - x,
    "mul": lambda m, x: x * x,
    "mul_scalar": lambda m, x: x * 3,
    "div": lambda m, x: x / (x + 1),
    "div_scalar": lambda m, x: x / 2,
    "neg": lambda m, x: -x,
    "pow_scalar": lambda m, x: x ** 2,
    "pow_tensor": lambda m, x: x ** x,
    "rpow": lambda m, x: 2 ** x,
    "exp": lambda m, x: m.exp(x),
    "log": lambda m, x: m.log(x),
    "sin": lambda m, x: m.sin(x),
    "cos": lambda m, x: m.cos(x),
    "tanh": lambda m, x: m.tanh(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "sqrt": lambda m, x: m.sqrt(x),
    "abs": lambda m, x: x.abs(),
    "relu": lambda m, x: m.relu(x),
    "sum": lambda m, x: x.sum(),
    "sum_dim": lambda m, x: x.sum(dim=1),
    "mean": lambda m, x: x.mean(),
    "mean_dim": lambda m, x: x.mean(dim=0),
    "max": lambda m, x: x.max(),
    "view": lambda m, x: x.view(6),
    "reshape": lambda m, x: x.reshape(3, 2),
    "t": lambda m, x: x.t(),
    "transpose": lambda m, x: x.transpose(0, 1),
    "permute": lambda m, x: x.permute(1, 0),
    "expand": lambda m, x: x[:1].expand(4, 3),
    "select": lambda m, x: x[0],
    "slice": lambda m, x: x[0:1],
    "advanced_index": lambda m, x: x[[0, 1]],
    "unsqueeze": lambda m, x: x.unsqueeze(0),
    "squeeze_dim": lambda m, x: x.unsqueeze(0).squeeze(0),
    "squeeze_dims": lambda m, x: x.unsqueeze(0).squeeze((0,)),
    "squeeze_all": lambda m, x: x.unsqueeze(0).squeeze(),
    "sum_every_dim": lambda m, x: x.sum((0, 1)),
    "sum_dtype": lambda m, x: x.sum(dtype=m.float64),
    "mean_keepdim": lambda m, x: x.mean(1, keepdim=True),
    "clone": lambda m, x: x.clone(),
    "mm": lambda m, x: x.mm(x.t()),
    "matmul": lambda m, x: x @ x.t(),
    "to_double": lambda m, x: x.double(),
    "cat": lambda m, x: m.cat([x, x]),
    "stack": lambda m, x: m.stack([x, x]),
    "where": lambda m, x: m.where(x > 2, x, x * 0),
    "maximum": lambda m, x: m.maximum(x, x * 2),
    "clamp": lambda m, x: m.clamp(x, min=2, max=4),
}


@pytest.mark.parametrize("case", list(NODE_NAME_CASES))
def test_node_name_matches_torch(backend, case):
    torch = _torch()
    f = NODE_NAME_CASES[case]
    y = f(t, t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True))
    ty = f(torch, torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True))
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__


@pytest.mark.parametrize("case", list(NODE_NAME_CASES))
def test_gradient_of_op_matches_torch(backend, case, request):
    torch = _torch()
    f = NODE_NAME_CASES[case]
    x = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    tx = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y, ty = f(t, x), f(torch, tx)
    weights = np.arange(1, ty.numel() + 1, dtype=np.float64).reshape(tuple(ty.shape)) / 7
    y.backward(t.tensor(weights, dtype=y.dtype))
    ty.backward(torch.tensor(weights, dtype=ty.dtype))
    _close(x.grad, tx.grad)


# ------------------------------------------------------------------------------------------ hooks

def test_register_hook_sees_the_gradient(backend, capsys):
    # seed 004 cell 160
    def variable_hook(grad):
        print("y的梯度：", grad)

    x = t.ones(3, requires_grad=True)
    w = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
    y = x * w
    hook_handle = y.register_hook(variable_hook)
    z = y.sum()
    z.backward()
    hook_handle.remove()
    assert capsys.readouterr().out == "y的梯度： tensor([1., 1., 1.])\n"


def test_removed_hook_is_not_called(backend):
    calls = []
    x = t.ones(2, requires_grad=True)
    handle = x.register_hook(lambda g: calls.append(g.tolist()))
    (x * 2).sum().backward()
    handle.remove()
    (x * 2).sum().backward()
    assert calls == [[2.0, 2.0]]


def test_hook_returning_a_tensor_replaces_the_gradient_of_a_leaf(backend):
    x = t.ones(2, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]


def test_hook_returning_a_tensor_replaces_the_gradient_flowing_on(backend):
    x = t.ones(2, requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_hooks_run_in_registration_order(backend):
    order = []
    x = t.ones(1, requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: order.append("first"))
    y.register_hook(lambda g: order.append("second"))
    y.backward()
    assert order == ["first", "second"]


def test_register_hook_on_tensor_not_requiring_grad_raises(backend):
    with pytest.raises(RuntimeError):
        t.ones(2).register_hook(lambda g: g)


def test_retain_grad_keeps_a_non_leaf_gradient(backend):
    x = t.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 4.0, 4.0]
    assert x.grad.tolist() == [8.0, 8.0, 8.0]


def test_autograd_grad_runs_no_hook_off_the_path_to_its_inputs(backend):
    """As PyTorch's engine, autograd.grad runs only the nodes leading to its inputs: a hook or retain_grad of a tensor
    off that path never fires (found by the views fuzzer: a retained view's .grad filled by autograd.grad)."""
    x = t.tensor([1.0, 2.0], backend=backend, requires_grad=True)
    y = t.tensor([3.0, 4.0], backend=backend, requires_grad=True)
    u = x * 2
    fired = []
    u.register_hook(fired.append)
    u.retain_grad()
    (g,) = t.autograd.grad((u + y).sum(), (y,))
    assert g.tolist() == [1.0, 1.0]
    assert fired == [] and u.grad is None and x.grad is None


def test_non_leaf_grad_is_none_without_retain_grad(backend):
    x = t.ones(3, requires_grad=True)
    w = t.tensor([0.5, 0.25, 0.125], requires_grad=True)
    y = x * w
    z = y.sum()
    z.backward()
    with pytest.warns(UserWarning):
        assert y.grad is None
    assert (repr(x.grad), repr(w.grad)) == ("tensor([0.5000, 0.2500, 0.1250])", "tensor([1., 1., 1.])")


# ------------------------------------------------------------------------------------------ in-place

def test_in_place_on_leaf_requiring_grad_raises(backend):
    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[0] = 5.0


def test_in_place_on_leaf_under_no_grad_is_allowed(backend):
    w = t.ones(2, requires_grad=True)
    with t.no_grad():
        w.sub_(0.5 * t.ones(2))
    assert w.tolist() == [0.5, 0.5] and w.requires_grad and w.is_leaf


def test_in_place_on_non_leaf_is_recorded(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.add_(1)
        name_after_add = type(y.grad_fn).__name__
        y.mul_(3)
        (y * y).sum().backward()
        return name_after_add, type(y.grad_fn).__name__, x.grad

    (a, b, g), (ta, tb, tg) = run(t), run(torch)
    assert (a, b) == (ta, tb)
    _close(g, tg)



def test_in_place_op_needing_its_own_old_value_is_differentiated(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.add_(1)
        y.mul_(x)
        y.sum().backward()
        return x.grad

    _close(run(t), run(torch))


def test_in_place_through_a_view_of_a_non_leaf_is_differentiated(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.clone()
        y[0] *= 10
        y[1:].mul_(2)
        (y * y).sum().backward()
        return y.detach(), x.grad

    (y, g), (ty, tg) = run(t), run(torch)
    _close(y, ty)
    _close(g, tg)


def test_in_place_through_a_view_with_a_tensor_operand_is_differentiated(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.clone()
        y[1:].mul_(x[1:])
        y.sum().backward()
        return x.grad

    _close(run(t), run(torch))


def test_modifying_a_saved_tensor_in_place_makes_backward_raise(backend):
    x = t.ones(2, requires_grad=True)
    a = x * 1
    y = a * a
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ------------------------------------------------------------------------------------------ seed 004 cells 119-165

def test_seed004_cells_119_123_leaf_flags_and_gradient_of_sum(backend):
    a = t.randn(3, 4, requires_grad=True)
    b = t.zeros(3, 4).requires_grad_()
    c = (a + b).sum()
    c.backward()
    assert re.fullmatch(r"tensor\(-?\d+\.\d{4}, grad_fn=<SumBackward0>\)", repr(c))
    assert repr(a.grad) == ("tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n"
                            "        [1., 1., 1., 1.]])")
    assert (a.requires_grad, b.requires_grad, c.requires_grad) == (True, True, True)
    assert (a.is_leaf, b.is_leaf, c.is_leaf) == (True, True, False)


def test_seed004_cells_124_128_is_leaf_of_created_and_computed(backend):
    assert t.rand(10, requires_grad=True).is_leaf
    assert not (t.rand(10, requires_grad=True) + 2).is_leaf
    d = t.rand(10)
    assert (d.requires_grad, d.is_leaf) == (False, True)
    assert t.rand(10).requires_grad_().is_leaf


def test_seed004_cells_130_133_autograd_matches_hand_derivative(backend):
    torch = _torch()
    values = [[-1.2, 0.3, 0.9, 1.6], [-0.5, -0.4, 0.7, 0.95], [-0.1, 1.05, 0.11, -0.55]]

    def run(m):
        def f(x):
            return x ** 2 * m.exp(x)

        def gradf(x):
            return 2 * x * m.exp(x) + x ** 2 * m.exp(x)

        x = m.tensor(values, requires_grad=True)
        y = f(x)
        y.backward(m.ones(y.size()))
        return y, x.grad, gradf(x)

    (y, g, hand), (ty, tg, thand) = run(t), run(torch)
    assert repr(y) == _torch_repr(ty)
    assert repr(g) == _torch_repr(tg)
    assert repr(hand) == _torch_repr(thand)
    np.testing.assert_allclose(_values(g), _values(hand.detach()), rtol=1e-5)


def test_seed004_cells_143_144_retain_graph_accumulates(backend):
    x = t.ones(1)
    b = t.tensor([0.4], requires_grad=True)
    w = t.tensor([0.6], requires_grad=True)
    z = w * x + b
    z.backward(retain_graph=True)
    assert repr(w.grad) == "tensor([1.])"
    z.backward()
    assert repr(w.grad) == "tensor([2.])"


def test_seed004_cell_146_data_dependent_control_flow(backend):
    def abs(x):
        if x.data[0] > 0:
            return x
        else:
            return -x

    x = t.ones(1, requires_grad=True)
    y = abs(x)
    y.backward()
    assert repr(x.grad) == "tensor([1.])"


def test_seed004_cells_149_152_no_grad_and_set_grad_enabled(backend):
    x = t.ones(1, requires_grad=True)
    w = t.rand(1, requires_grad=True)
    y = x * w
    assert (x.requires_grad, w.requires_grad, y.requires_grad) == (True, True, True)
    with t.no_grad():
        x = t.ones(1)
        w = t.rand(1, requires_grad=True)
        y = x * w
    assert (x.requires_grad, w.requires_grad, y.requires_grad) == (False, True, False)
    t.set_grad_enabled(False)
    try:
        x = t.ones(1)
        w = t.rand(1, requires_grad=True)
        y = x * w
        assert (x.requires_grad, w.requires_grad, y.requires_grad) == (False, True, False)
    finally:
        t.set_grad_enabled(True)
    assert t.is_grad_enabled()


def test_seed004_cells_157_158_gradients_of_leaves_only(backend):
    torch = _torch()

    def run(m):
        x = m.ones(3, requires_grad=True)
        w = m.tensor([0.8637, 0.1238, 0.0123], requires_grad=True)
        y = x * w
        z = y.sum()
        assert (x.requires_grad, w.requires_grad, y.requires_grad) == (True, True, True)
        z.backward()
        return x.grad, w.grad

    (gx, gw), (tgx, tgw) = run(t), run(torch)
    assert (repr(gx), repr(gw)) == (_torch_repr(tgx), _torch_repr(tgw))
    assert (repr(gx), repr(gw)) == ("tensor([0.8637, 0.1238, 0.0123])", "tensor([1., 1., 1.])")


def test_seed004_cell_159_autograd_grad_of_intermediate(backend):
    x = t.ones(3, requires_grad=True)
    w = t.rand(3, requires_grad=True)
    y = x * w
    z = y.sum()
    assert repr(t.autograd.grad(z, y)) == "(tensor([1., 1., 1.]),)"


def test_seed004_cells_163_165_custom_function(backend):
    Function = t.autograd.Function

    class MultiplyAdd(Function):
        @staticmethod
        def forward(ctx, w, x, b):
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_tensors
            return grad_output * x, grad_output * w, grad_output * 1

    x = t.ones(1)
    w = t.tensor([0.3763], requires_grad=True)
    b = t.tensor([0.5], requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    z.backward()
    assert (x.grad, repr(w.grad), repr(b.grad)) == (None, "tensor([1.])", "tensor([1.])")
    z = MultiplyAdd.apply(w, x, b)
    assert re.fullmatch(r"<\S*MultiplyAddBackward object at 0x[0-9a-fA-F]+>", repr(z.grad_fn))
    assert repr(z.grad_fn.apply(t.ones(1))) == \
        "(tensor([1.]), tensor([0.3763], grad_fn=<MulBackward0>), tensor([1.]))"


# ------------------------------------------------------------------------------------------ seeds 000, 001, 003

def test_seed003_requires_grad_of_power_inside_and_outside_no_grad(backend):
    x = t.randn(3, requires_grad=True)
    assert x.requires_grad and (x ** 2).requires_grad
    with t.no_grad():
        assert (x ** 2).requires_grad is False


def test_seed003_vector_jacobian_product_of_repeated_doubling(backend):
    torch = _torch()

    def run(m):
        x = m.tensor([1.2388, -0.30495, -0.2402], requires_grad=True)
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        y.backward(m.tensor([0.1, 1.0, 0.001], dtype=m.float))
        return y, x.grad

    (y, g), (ty, tg) = run(t), run(torch)
    assert repr(y) == _torch_repr(ty)
    assert repr(g) == _torch_repr(tg) == "tensor([ 102.4000, 1024.0000,    1.0240])"


# ------------------------------------------------------------------------------------------ errors as PyTorch's

def _nonscalar(m):
    (m.ones(3, requires_grad=True) * 2).backward()


def _without_grad(m):
    m.ones(2).sum().backward()


def _twice_through_freed(m):
    x = m.ones(3, requires_grad=True)
    z = (x * x).sum()
    z.backward()
    z.backward()


def _in_place_on_leaf(m):
    m.ones(2, requires_grad=True).add_(1)


def _in_place_on_view_of_leaf(m):
    m.ones(2, requires_grad=True)[:1].mul_(2)


def _basic_setitem_on_leaf(m):
    m.ones(2, requires_grad=True)[0] = 5


def _advanced_setitem_on_leaf(m):
    m.ones(2, requires_grad=True)[m.tensor([0])] = 5


def _saved_input_modified(m):
    x = m.ones(2, requires_grad=True)
    a = x * 1
    y = a * a
    a.sub_(2)
    y.sum().backward()


def _saved_output_modified(m):
    a = m.ones(2, requires_grad=True).exp()
    y = a.exp()
    a.mul_(2)
    y.sum().backward()


def _saved_plain_tensor_modified(m):
    w = m.ones(2, requires_grad=True)
    x = m.ones(2)
    y = w * x
    x.add_(1)
    y.sum().backward()


def _requires_grad_on_int(m):
    m.tensor([1, 2]).requires_grad_()


def _requires_grad_attribute_on_int(m):
    m.tensor([1, 2]).requires_grad = True


def _requires_grad_on_bool(m):
    m.tensor([True, False]).requires_grad_()


def _unused_input(m):
    x = m.ones(2, requires_grad=True)
    m.autograd.grad((x * 2).sum(), [x, m.ones(1, requires_grad=True)])


def _grad_of_input_without_grad(m):
    x = m.ones(2, requires_grad=True)
    m.autograd.grad((x * 2).sum(), [m.ones(2)])


def _backward_of_integer_result(m):
    x = m.ones(2, requires_grad=True)
    (x * 2).sum().long().backward()


def _requires_grad_off_on_non_leaf(m):
    (m.ones(2, requires_grad=True) * 2).requires_grad_(False)


def _hook_without_grad(m):
    m.ones(2).register_hook(lambda g: g)


def _retain_grad_without_grad(m):
    m.ones(2).retain_grad()


def _gradient_of_wrong_shape(m):
    (m.ones(3, requires_grad=True) * 2).backward(m.ones(2))


def _assign_grad_of_wrong_shape(m):
    m.ones(2, requires_grad=True).grad = m.ones(3)


ERROR_CASES = [_nonscalar, _without_grad, _twice_through_freed, _in_place_on_leaf, _in_place_on_view_of_leaf,
               _basic_setitem_on_leaf, _advanced_setitem_on_leaf,
               _saved_input_modified, _saved_output_modified, _saved_plain_tensor_modified, _requires_grad_on_int,
               _requires_grad_attribute_on_int, _requires_grad_on_bool, _unused_input, _grad_of_input_without_grad,
               _backward_of_integer_result,
               _requires_grad_off_on_non_leaf, _hook_without_grad, _retain_grad_without_grad,
               _gradient_of_wrong_shape, _assign_grad_of_wrong_shape]


def _error_of(fn, m):
    with pytest.raises(Exception) as info:
        fn(m)
    # PyTorch's hint names its anomaly mode, which xtensor lacks: compare up to the hint
    message = str(info.value).replace("torch.", "").replace("xtensor.", "").split(" Hint:")[0]
    return type(info.value), message


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda f: f.__name__.strip("_"))
def test_error_type_and_message_match_torch(backend, case):
    torch = _torch()
    (ours_type, ours), (theirs_type, theirs) = _error_of(case, t), _error_of(case, torch)
    assert issubclass(ours_type, theirs_type) and ours == theirs


# ------------------------------------------------------------------------------------------ is_leaf rules

@pytest.mark.parametrize("convert", [lambda x: x.to(t.float64), lambda x: x.double(),
                                     lambda x: x.to(dtype=t.float64), lambda x: x.type(t.float64)],
                         ids=["to_dtype", "double", "to_dtype_keyword", "type"])
def test_conversion_of_a_requires_grad_leaf_is_not_a_leaf(backend, convert):
    x = t.ones(2, requires_grad=True)
    y = convert(x)
    assert y.requires_grad and not y.is_leaf and type(y.grad_fn).__name__ == "ToCopyBackward0"


def test_moving_a_requires_grad_leaf_to_another_backend_is_not_a_leaf(backend):
    other = "numpy" if backend != "numpy" else "jax"
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(other)
    assert y.requires_grad and not y.is_leaf and y.backend == other
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and x.grad.backend == backend


def test_conversion_to_the_same_dtype_returns_the_leaf_itself(backend):
    x = t.ones(2, requires_grad=True)
    assert x.to(t.float32) is x and x.float() is x and x.cpu() is x


def test_conversion_of_a_leaf_without_grad_is_a_leaf(backend):
    assert t.ones(2).double().is_leaf


def test_detached_tensor_is_a_leaf_that_can_require_grad(backend):
    y = (t.ones(2, requires_grad=True) * 2).detach().requires_grad_()
    assert y.is_leaf and y.requires_grad


# ------------------------------------------------------------------------------------------ more grad modes

def test_enable_grad_as_bare_decorator(backend):
    x = t.ones(2, requires_grad=True)

    @t.enable_grad
    def f():
        return x * 2

    with t.no_grad():
        assert f().requires_grad


def test_no_grad_decorates_a_generator(backend):
    x = t.ones(2, requires_grad=True)

    @t.no_grad()
    def gen():
        yield x * 2
        yield x * 3

    results = list(gen())
    assert not any(r.requires_grad for r in results) and t.is_grad_enabled()


def test_nested_set_grad_enabled_restores_each_level(backend):
    with t.set_grad_enabled(False):
        with t.set_grad_enabled(True):
            assert t.is_grad_enabled()
        assert not t.is_grad_enabled()
    assert t.is_grad_enabled()


def test_inference_mode_context(backend):
    x = t.ones(2, requires_grad=True)
    with t.inference_mode():
        y = x.sum()
        assert not t.is_grad_enabled() and t.autograd.is_inference_mode_enabled()
    assert t.is_grad_enabled() and not t.autograd.is_inference_mode_enabled()
    assert not y.requires_grad


@pytest.mark.parametrize("parentheses", [True, False])
def test_inference_mode_as_decorator(backend, parentheses):
    def f():
        return t.autograd.is_inference_mode_enabled(), t.is_grad_enabled()

    decorated = t.inference_mode()(f) if parentheses else t.inference_mode(f)
    assert decorated() == (True, False)
    assert f() == (False, True)


def test_inference_mode_false_turns_grad_on(backend):
    torch = _torch()

    def run(m):
        with m.no_grad():
            with m.inference_mode(False):
                return m.is_grad_enabled(), m.is_inference_mode_enabled()

    assert run(t) == run(torch) == (True, False)


def test_tensors_made_in_inference_mode_are_inference_tensors(backend):
    x = t.ones(3)
    with t.inference_mode():
        made, reduced = t.ones(2), x.sum()
    assert made.is_inference() and reduced.is_inference()
    assert not x.is_inference() and not t.ones(2).is_inference()


def test_tensors_made_in_no_grad_are_not_inference_tensors(backend):
    with t.no_grad():
        assert not t.ones(2).is_inference()


def test_operator_results_in_inference_mode_are_inference_tensors(backend):
    x = t.ones(3)
    with t.inference_mode():
        assert (x + 1).is_inference()


def test_inference_tensor_cannot_be_saved_for_backward(backend):
    torch = _torch()

    def run(m):
        with m.inference_mode():
            x = m.ones(2)
        w = m.ones(2, requires_grad=True)
        return _error_of(lambda mod: w * x, m)

    assert run(t) == run(torch)


def test_inference_tensor_cannot_require_grad_outside_inference_mode(backend):
    with t.inference_mode():
        x = t.ones(2)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        x.requires_grad_()


def test_inference_mode_is_thread_local(backend):
    seen = {}

    def worker():
        seen["inference"] = t.autograd.is_inference_mode_enabled()

    with t.inference_mode():
        th = threading.Thread(target=worker)
        th.start()
        th.join(10)
    assert seen["inference"] is False


# ------------------------------------------------------------------------------------------ dynamic control flow
# The oracle is jax.grad of the same Python program (jax differentiates through Python branches on concrete
# values); xtensor's version branches on .item()/.data as the seeds do.

def _jax():
    jax = pytest.importorskip("jax")
    return jax, jax.numpy


@pytest.mark.parametrize("value", [1.5, -0.5])
def test_abs_by_branch_gives_the_seed_gradient(backend, value):
    jax, jnp = _jax()

    def branch_abs(x):
        return x if x.data[0] > 0 else -x

    x = t.tensor([value], requires_grad=True)
    branch_abs(x).backward()
    assert x.grad.tolist() == [float(jax.grad(lambda v: jnp.abs(v).sum())(jnp.array([value]))[0])]


def test_for_loop_with_branches_on_item_matches_jax(backend):
    jax, jnp = _jax()
    start = [0.5, -0.25, 1.0]

    def xtensor_program(x):
        y = x
        for step in range(4):
            if y.sum().item() < 3:
                y = y * (step + 1.5)
            else:
                y = y.sin() + y
        return (y * y).sum()

    def jax_program(x):
        y = x
        for step in range(4):
            if y.sum() < 3:
                y = y * (step + 1.5)
            else:
                y = jnp.sin(y) + y
        return (y * y).sum()

    x = t.tensor(start, dtype=t.float64, requires_grad=True)
    xtensor_program(x).backward()
    np.testing.assert_allclose(_values(x.grad), np.asarray(jax.grad(jax_program)(jnp.array(start))), rtol=1e-12)


def test_norm_doubling_while_loop_matches_jax(backend):
    jax, jnp = _jax()
    start, weights = [1.2388, -0.30495, -0.2402], [0.1, 1.0, 0.001]

    def jax_program(x):
        y = x * 2
        while jnp.linalg.norm(y) < 1000:
            y = y * 2
        return (y * jnp.array(weights)).sum()

    x = t.tensor(start, dtype=t.float64, requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    y.backward(t.tensor(weights, dtype=t.float64))
    np.testing.assert_allclose(_values(x.grad), np.asarray(jax.grad(jax_program)(jnp.array(start))), rtol=1e-12)


def test_gradients_cross_checked_with_jax_grad(backend):
    jax, jnp = _jax()
    start = np.array([[0.3, -1.1, 0.7], [1.4, 0.2, -0.6]])

    def program(m, x):
        h = m.tanh(x @ x.T) * m.exp(-x.sum() / 4)
        return (h ** 2).mean() + (m.sin(x) * x).sum()

    x = t.tensor(start, requires_grad=True)
    program(t, x).backward()
    expected = jax.grad(lambda v: program(jnp, v))(jnp.array(start))
    np.testing.assert_allclose(_values(x.grad), np.asarray(expected), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("op", ["floor", "ceil", "trunc", "round", "sign"])
def test_piecewise_constant_ops_have_constant_zero_gradients_under_create_graph(backend, op):
    """Found by the differential fuzzer: PyTorch's formula is zeros_like(grad) -- a constant (it does not require
    grad under create_graph) and 0 even where the incoming gradient is NaN."""
    x = t.tensor([1.5, -0.25], backend=backend, requires_grad=True)
    (g,) = t.autograd.grad((getattr(x, op)() * float("nan")).sum(), x, create_graph=True)
    assert not g.requires_grad
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_a_rounding_mode_has_constant_zero_gradients_under_create_graph(backend, mode):
    """Found by the differential fuzzer, as for the piecewise-constant ops above."""
    x = t.tensor([1.5, -0.25], backend=backend, requires_grad=True)
    y = t.tensor([0.5, 2.0], backend=backend, requires_grad=True)
    gx, gy = t.autograd.grad(t.div(x, y, rounding_mode=mode).sum(), [x, y], create_graph=True)
    assert not gx.requires_grad and not gy.requires_grad
    np.testing.assert_array_equal(np.stack([gx.numpy(), gy.numpy()]), np.zeros((2, 2)))


def test_logit_gradient_is_nan_outside_zero_one_as_torch(backend):
    """Found by the differential fuzzer: PyTorch's formula gives NaN outside [0, 1] when no eps clamps x."""
    x = t.tensor([-0.5, 0.5, 1.5], dtype=t.float64, backend=backend, requires_grad=True)
    x.logit().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [np.nan, 4.0, np.nan])


def test_cumprod_gradient_along_a_dim_of_one_is_the_incoming_gradient(backend):
    """Found by the differential fuzzer: PyTorch's cumprod_backward returns the gradient itself there -- under
    create_graph it does not depend on the input."""
    y = t.tensor([[0.5], [2.0]], backend=backend, requires_grad=True)
    (g,) = t.autograd.grad(y.cumprod(1).sum(), y, create_graph=True)
    assert not g.requires_grad and g.tolist() == [[1.0], [1.0]]


def test_prod_gradient_of_a_0d_tensor_is_the_incoming_gradient(backend):
    """Found by the differential fuzzer, as cumprod above: PyTorch's prod_backward of a 0-d input is the gradient."""
    x = t.tensor(0.125, dtype=t.float64, backend=backend, requires_grad=True)
    (g,) = t.autograd.grad(x.prod(dim=0, keepdim=True).sum(), x, create_graph=True)
    assert not g.requires_grad and g.item() == 1.0


def test_xlogy_gradient_is_torchs_formula(backend):
    """Found by the differential fuzzer: PyTorch's d/dx is ``xlogy(grad, y)`` with 0 where x == 0 and y <= 0 -- so 0
    (not NaN) where the incoming gradient is 0 and y < 0, and log(y) (not 0) where x == 0 < y."""
    x = t.tensor([-0.5, 0.0, 2.0, 0.0], dtype=t.float64, backend=backend, requires_grad=True)
    y = t.tensor([-1.0, -1.0, 3.0, 2.0], dtype=t.float64, backend=backend)
    t.xlogy(x, y).backward(t.tensor([0.0, 1.0, 1.0, 1.0], dtype=t.float64, backend=backend))
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, np.log(3.0), np.log(2.0)])


@pytest.mark.parametrize("expression", ["True * x", "x * False", "x / True"])
def test_gradient_through_a_product_with_a_python_bool(backend, expression):
    """Found by the differential fuzzer: array_api_strict refused ``grad * True`` in the VJP."""
    x = t.tensor([0.5, -2.0], backend=backend, requires_grad=True)
    eval(expression, {"x": x}).sum().backward()
    factor = {"True * x": 1.0, "x * False": 0.0, "x / True": 1.0}[expression]
    np.testing.assert_array_equal(x.grad.numpy(), [factor, factor])
