"""nn.Module, Parameter and the containers against PyTorch: registration, traversal order, modes,
conversions, state dicts (keys and errors), hooks and repr."""
import copy
import pickle

import numpy as np
import pytest

import xtensor as xt
from xtensor import nn

torch = pytest.importorskip("torch")


def _net(ns):
    """The same small model in either library (``ns`` is ``xtensor.nn`` or ``torch.nn``)."""
    class Net(ns.Module):
        def __init__(self):
            super().__init__()
            self.features = ns.Sequential(ns.Linear(3, 4), ns.ReLU(), ns.Linear(4, 4, bias=False))
            self.norm = ns.BatchNorm1d(4)
            self.heads = ns.ModuleDict({"a": ns.Linear(4, 2), "b": ns.Linear(4, 1)})
            self.scale = ns.Parameter(ns.init.ones_(ns.Linear(1, 1).weight.detach().clone()[0]))
            self.register_buffer("steps", ns.Linear(1, 1).bias.detach().clone() * 0)
            self.register_buffer("cache", ns.Linear(1, 1).bias.detach().clone() * 0, persistent=False)

        def forward(self, x):
            h = self.norm(self.features(x))
            return self.heads["a"](h) * self.scale
    return Net()


def test_traversal_orders_match_torch():
    ours, theirs = _net(nn), _net(torch.nn)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [type(m).__name__ for m in ours.modules()] == [type(m).__name__ for m in theirs.modules()]


def test_repr_matches_torch():
    assert repr(_net(nn)) == repr(_net(torch.nn))
    stack = [nn.ModuleList([nn.Linear(2, 2)] * 3 + [nn.ReLU()]), torch.nn.ModuleList([torch.nn.Linear(2, 2)] * 3 +
                                                                                     [torch.nn.ReLU()])]
    assert repr(stack[0]) == repr(stack[1])  # repeated blocks are collapsed: (0-2): 3 x Linear(...)


def test_parameter_prints_and_behaves_as_torch():
    p = nn.Parameter(xt.tensor([1.0, 2.0]))
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]))).replace("torch.", "xtensor.")
    assert p.requires_grad and p.is_leaf and isinstance(p, xt.Tensor)
    assert type(p * 2) is xt.Tensor
    assert not nn.Parameter(xt.ones(2), requires_grad=False).requires_grad
    assert isinstance(copy.deepcopy(p), nn.Parameter)
    assert isinstance(pickle.loads(pickle.dumps(p)), nn.Parameter)


def test_parameter_shares_storage_with_its_data(backend):
    data = xt.zeros(3)
    p = nn.Parameter(data)
    data.add_(1)
    np.testing.assert_array_equal(p.detach().numpy(), np.ones(3))


def test_load_state_dict_copies_values_in_place(backend):
    ours, theirs = _net(nn), _net(torch.nn)
    before = dict(ours.named_parameters())
    result = ours.load_state_dict({k: xt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    for name, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[name].numpy(), value.numpy())
    assert all(p is before[n] for n, p in ours.named_parameters())


def _load_error(model, state):
    with pytest.raises(Exception) as info:
        model.load_state_dict(state)
    return type(info.value), str(info.value)


def test_mismatched_state_dict_errors_match_torch():
    ours, theirs = nn.Sequential(nn.Linear(3, 2)), torch.nn.Sequential(torch.nn.Linear(3, 2))
    state = {"0.weight": np.zeros((2, 4), np.float32), "0.extra": np.zeros(1, np.float32),
             "1.weight": np.zeros(1, np.float32)}
    kind, message = _load_error(ours, {k: xt.tensor(v) for k, v in state.items()})
    t_kind, t_message = _load_error(theirs, {k: torch.tensor(v) for k, v in state.items()})
    assert kind is t_kind is RuntimeError
    assert message == t_message.replace("torch.Size", "xtensor.Size")
    result = ours.load_state_dict({"0.bias": xt.zeros(2), "x": xt.zeros(1)}, strict=False)
    t_result = theirs.load_state_dict({"0.bias": torch.zeros(2), "x": torch.zeros(1)}, strict=False)
    assert (result.missing_keys, result.unexpected_keys) == (t_result.missing_keys, t_result.unexpected_keys)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        ours.load_state_dict([1, 2])


def test_assigning_wrong_types_raises_as_torch():
    for ns in (nn, torch.nn):
        m = ns.Linear(2, 2)
        with pytest.raises(TypeError, match="cannot assign '.*' as parameter 'weight' \\(torch.nn.Parameter or None"):
            m.weight = m.weight.detach() * 1
        with pytest.raises(KeyError, match="attribute 'training' already exists"):
            m.register_buffer("training", None)
        with pytest.raises(KeyError, match=r'parameter name can.*t contain "\."'):
            m.register_parameter("a.b", None)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(xt.ones(1))
    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nothing'"):
        nn.Linear(1, 1).nothing


def test_train_eval_requires_grad_and_zero_grad():
    m = _net(nn)
    assert m.eval() is m and not any(sub.training for sub in m.modules())
    m.train()
    assert all(sub.training for sub in m.modules())
    m(xt.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters() if p is not m.heads["b"].weight and
               p is not m.heads["b"].bias)
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in m.parameters() if p.grad is not None)
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_apply_visits_children_first():
    seen = []
    m = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    m.apply(lambda mod: seen.append(type(mod).__name__))
    t_seen = []
    torch.nn.Sequential(torch.nn.Linear(1, 1), torch.nn.Sequential(torch.nn.ReLU())).apply(
        lambda mod: t_seen.append(type(mod).__name__))
    assert seen == t_seen


def test_to_and_double_keep_parameter_objects_and_integer_buffers():
    m = nn.BatchNorm1d(3)
    weight = m.weight
    assert m.double() is m and m.weight is weight and m.weight.dtype is xt.float64
    assert m.running_mean.dtype is xt.float64 and m.num_batches_tracked.dtype is xt.int64
    m.to(xt.float32)
    assert m.weight.dtype is xt.float32 and m.num_batches_tracked.dtype is xt.int64
    pytest.importorskip("jax")
    m.to("jax")
    assert m.weight is weight and m.weight.backend == "jax" and m.running_var.backend == "jax"
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        m.to(xt.int64)


def test_forward_hooks_run_in_order_and_can_replace_values():
    m = nn.Linear(2, 2)
    calls = []
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    post = m.register_forward_hook(lambda mod, args, out: calls.append("post") or out + 1)
    m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    out = m(xt.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), (m.bias.detach() + 1).numpy()[None], rtol=1e-6)
    assert calls == ["first", "post"]
    pre.remove()
    post.remove()
    np.testing.assert_allclose(m(xt.zeros(1, 2)).detach().numpy(), m.bias.detach().numpy()[None], rtol=1e-6)


def test_sequential_and_module_list_indexing_as_torch():
    layers = [nn.Linear(1, 1), nn.ReLU(), nn.Tanh()]
    seq = nn.Sequential(*layers)
    assert seq[-1] is layers[2] and isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[0] is layers[1]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    ml = nn.ModuleList(layers)
    ml.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "Linear", "ReLU", "Tanh"]
    assert len(list(nn.ModuleList(layers + layers).parameters())) == 2  # shared modules counted once


def test_parameter_list_and_dict():
    pl = nn.ParameterList([xt.ones(2), nn.Parameter(xt.zeros(3))])
    tl = torch.nn.ParameterList([torch.ones(2), torch.nn.Parameter(torch.zeros(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl)
    assert repr(pl) == repr(tl).replace("torch.", "xtensor.")
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pd = nn.ParameterDict({"w": xt.ones(1)})
    assert isinstance(pd["w"], nn.Parameter) and "w" in pd and list(pd.keys()) == ["w"]
    with pytest.raises(RuntimeError, match="ParameterList should not be called"):
        pl(1)


def _buffered(ns):
    """A module given its state through ``nn.Buffer`` assignments (PyTorch 2.3's spelling of register_buffer)."""
    m = ns.Module()
    m.mean = ns.Buffer(ns.Linear(1, 2).bias.detach() * 0)
    m.cache = ns.Buffer(ns.Linear(1, 2).bias.detach() * 0, persistent=False)
    m.cache = m.cache + 1  # a plain tensor assigned to a buffer's name stays a buffer, still not persistent
    return m


def test_buffer_assignment_registers_a_buffer_like_torch():
    ours, theirs = _buffered(nn), _buffered(torch.nn)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["mean"]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()] == ["mean", "cache"]
    assert isinstance(ours.mean, nn.Buffer) and type(ours.mean) is xt.Tensor and ours.mean.persistent is True
    assert not isinstance(ours.cache, nn.Buffer) and not list(ours.parameters())


@pytest.mark.parametrize("ns", [nn, torch.nn], ids=["xtensor", "torch"])
def test_buffer_assignment_over_an_attribute_or_parameter_is_refused(ns):
    m = ns.Module()
    m.plain = 3
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.plain = ns.Buffer(ns.Linear(1, 1).bias.detach())
    m.weight = ns.Parameter(ns.Linear(1, 1).bias.detach())
    with pytest.raises(TypeError, match="cannot assign '.*' as parameter 'weight'"):
        m.weight = ns.Buffer(ns.Linear(1, 1).bias.detach())
