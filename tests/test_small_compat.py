"""The small things a PyTorch script meets (issue 20 item 7), each against PyTorch 2.13 on every backend:
``size=`` on the factories, ``format()`` of tensors, no numpy floating-point warnings, ``numpy(force=True)``,
the random fills' keywords, embedding's node name, and PyTorch's errors for bad factory and ``to`` inputs.
"""
import warnings

import numpy as np
import pytest

import xtensor

torch = pytest.importorskip("torch")


def _outcome(call):
    """("returns", shape, dtype name) or ("raises", exception type, message)."""
    try:
        r = call()
        return ("returns", tuple(r.shape), str(r.dtype).split(".")[-1])
    except Exception as e:  # noqa: BLE001  (the outcome is what is compared)
        return ("raises", type(e), str(e))


# ------------------------------------------------------------------ size=
_SIZE_CALLS = [
    ("empty", lambda m: m.empty(size=(2, 3))), ("zeros", lambda m: m.zeros(size=[2])),
    ("ones-dtype", lambda m: m.ones(size=(2, 3), dtype=m.float64)), ("rand", lambda m: m.rand(size=(2,))),
    ("randn", lambda m: m.randn(size=(2, 1))), ("full", lambda m: m.full(size=(2,), fill_value=1.0)),
    ("randint-low-high", lambda m: m.randint(0, 5, size=(2,))), ("randint-high", lambda m: m.randint(5, size=(2,))),
    ("zeros-0d", lambda m: m.zeros(size=())), ("new_zeros", lambda m: m.ones(1).new_zeros(size=(3,))),
    ("both", lambda m: m.zeros(2, size=(3,))), ("neither", lambda m: m.zeros()),
    ("int-size", lambda m: m.empty(size=2)),
]


@pytest.mark.parametrize("name, call", _SIZE_CALLS, ids=[name for name, _ in _SIZE_CALLS])
def test_factory_takes_size_keyword_as_torch(backend, name, call):
    assert _outcome(lambda: call(xtensor)) == _outcome(lambda: call(torch))


# ------------------------------------------------------------------ bad inputs
_BAD_INPUTS = [
    ("full-str-dim", lambda m: m.full((2, "a"), 1.0)), ("zeros-str-dim", lambda m: m.zeros((2, "a"))),
    ("zeros-float-size", lambda m: m.zeros(2.5)), ("tensor-of-str-list", lambda m: m.tensor(["a"])),
    ("tensor-mixed-str", lambda m: m.tensor([1, "a"])), ("tensor-of-str", lambda m: m.tensor("a")),
]


@pytest.mark.parametrize("name, call", _BAD_INPUTS, ids=[name for name, _ in _BAD_INPUTS])
def test_bad_factory_input_raises_torchs_error(backend, name, call):
    assert _outcome(lambda: call(xtensor)) == _outcome(lambda: call(torch))


@pytest.mark.parametrize("target", ["float77", "float32"])
def test_to_an_unknown_string_is_torchs_invalid_device_error(backend, target):
    expected = _outcome(lambda: torch.ones(2).to(target))
    with pytest.raises(RuntimeError, match=f"Invalid device string: '{target}'") as caught:
        xtensor.ones(2).to(target)
    assert expected[:2] == ("raises", caught.type)


# ------------------------------------------------------------------ format
_FORMATS = [("float", 3.14159, ""), ("float-spec", 3.14159, ".3f"), ("float-width", 3.14159, ">8.2f"),
            ("int", 3, ""), ("int-d", 3, "d"), ("bool", True, ""), ("requires-grad", 2.5, ".1f")]


@pytest.mark.parametrize("name, value, spec", _FORMATS, ids=[name for name, _, _ in _FORMATS])
def test_zero_dim_tensor_formats_as_its_number_as_torch(backend, name, value, spec):
    grad = name == "requires-grad"
    got = format(xtensor.tensor(value, requires_grad=grad), spec)
    assert got == format(torch.tensor(value, requires_grad=grad), spec)


def test_tensor_of_elements_formats_as_str_and_refuses_a_spec_as_torch(backend):
    assert f"{xtensor.ones(2)}" == str(xtensor.ones(2))
    for lib in (xtensor, torch):
        with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
            f"{lib.ones(2):.2f}"


# ------------------------------------------------------------------ numpy floating-point warnings
_SILENT_OPS = [
    ("log-zero", lambda m: m.log(m.zeros(2))), ("divide-by-zero", lambda m: m.ones(2) / m.zeros(2)),
    ("zero-by-zero", lambda m: m.zeros(2) / m.zeros(2)), ("exp-overflow", lambda m: m.exp(m.tensor([1000.0]))),
    ("mul-overflow", lambda m: m.tensor([1e38]) * 10), ("sqrt-negative", lambda m: m.tensor([-1.0]).sqrt()),
    ("pow-negative", lambda m: m.tensor([0.0]) ** -1), ("log-grad-at-zero", lambda m: _grad(m, "log")),
    ("sqrt-grad-at-zero", lambda m: _grad(m, "sqrt")),
]


def _grad(m, name):
    x = m.zeros(2, requires_grad=True)
    getattr(x, name)().sum().backward()
    return x.grad


@pytest.mark.parametrize("name, call", _SILENT_OPS, ids=[name for name, _ in _SILENT_OPS])
def test_op_is_silent_where_torch_is(backend, name, call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = call(torch)
        got = call(xtensor)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


def test_users_own_numpy_still_warns_after_xtensor_ops():
    xtensor.log(xtensor.zeros(1))
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))


# ------------------------------------------------------------------ numpy(force=True), random fill keywords
def test_numpy_force_detaches_a_tensor_that_requires_grad(backend):
    x = xtensor.ones(2, requires_grad=True)
    np.testing.assert_array_equal(x.numpy(force=True), torch.ones(2, requires_grad=True).numpy(force=True))


_FILLS = [("normal_", {"mean": 3.0, "std": 0.5}), ("uniform_", {"from": 2.0, "to": 3.0}),
          ("random_", {"from": 4, "to": 9}), ("exponential_", {"lambd": 2.0}), ("log_normal_", {"mean": 0.5, "std": 0.5}),
          ("cauchy_", {"median": 1.5, "sigma": 2.0})]


@pytest.mark.parametrize("method, keywords", _FILLS, ids=[m for m, _ in _FILLS])
def test_random_fill_takes_torchs_keywords(backend, method, keywords):
    getattr(torch.ones(3), method)(**keywords)  # PyTorch's own keyword names
    xtensor.manual_seed(0)
    by_keyword = getattr(xtensor.ones(3), method)(**keywords)
    xtensor.manual_seed(0)
    by_position = getattr(xtensor.ones(3), method)(*keywords.values())
    np.testing.assert_array_equal(by_keyword.numpy(), by_position.numpy())


def test_random_fill_refuses_an_unknown_keyword_as_torch(backend):
    for lib in (torch, xtensor):
        with pytest.raises(TypeError, match="unexpected keyword argument 'mu'"):
            lib.ones(3).normal_(mu=1.0)


# ------------------------------------------------------------------ embedding's node
def test_embedding_is_one_node_named_as_torchs(backend):
    weights = np.arange(12.0).reshape(4, 3)
    indices = [[0, 1], [1, 3]]
    results = []
    for lib in (torch, xtensor):
        w = lib.tensor(weights, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(indices), w)
        (out * lib.tensor(np.arange(12.0).reshape(2, 2, 3))).sum().backward()
        results.append((type(out.grad_fn).__name__, out.detach().numpy(), w.grad.numpy()))
    (name_expected, out_expected, grad_expected), (name_got, out_got, grad_got) = results
    assert name_got == name_expected == "EmbeddingBackward0"
    np.testing.assert_array_equal(out_got, out_expected)
    np.testing.assert_array_equal(grad_got, grad_expected)


def test_embedding_gradient_is_differentiable_twice():
    w = xtensor.tensor(np.random.default_rng(0).standard_normal((4, 3)), requires_grad=True)
    indices = xtensor.tensor([[0, 1], [1, 3]])
    assert xtensor.autograd.gradgradcheck(lambda w: xtensor.nn.functional.embedding(indices, w) ** 2, (w,))


# ------------------------------------------------------------------ negative slice steps
# PyTorch refuses ``x[::-1]``; the array API standard requires it to reverse. A tensor knows the namespace that made
# it: PyTorch-style tensors raise PyTorch's error, the array API's reverse (``test_array_api_tensors.py``).
@pytest.mark.parametrize("index", [
    lambda x: x[::-1], lambda x: x[1:, ::-2], lambda x: x.__setitem__((slice(None, None, -1), 0), 0.0),
], ids=["read", "read-2d", "write"])
def test_negative_slice_step_raises_pytorchs_error(backend, index):
    assert _outcome(lambda: index(xtensor.ones(3, 4))) == _outcome(lambda: index(torch.ones(3, 4)))


# ------------------------------------------------------------------ in-place writes through stale views (item 8)
# ``u`` is made while ``base`` has no history; a write of a value that requires grad gives ``base`` one. PyTorch's
# in-place check reads ``u``'s cached history: until something looks at it (grad_fn, is_leaf, an op using ``u``),
# ``u`` is a leaf that requires grad and refuses in-place writes.
_STALE_VIEW_PROGRAMS = [
    "u = base[1:]; base[:2] = w[:2] * 2; u.mul_(3)",
    "u = base[1:]; base[:2] = w[:2] * 2; u.requires_grad; u.mul_(3)",
    "v = base[:2]; u = base[2:]; v.copy_(w[:2] * 2); u.mul_(3)",
    "v = base[:1]; u = base[1:]; v.add_(1); base[:2] = w[:2] * 2; u.mul_(3)",
    "u = base[1:]; base.copy_(w * 2); u.add_(w[1:])",
    "u = base[1:]; base[:2] = w[:2] * 2; u.grad_fn; u.mul_(3)",
    "u = base[1:]; base[:2] = w[:2] * 2; u.is_leaf; u.mul_(3)",
    "u = base[1:]; base[:2] = w[:2] * 2; (u * 2).sum(); u.mul_(3)",
    "u = base[1:]; base[:2] = w[:2] * 2; u[0].add_(1)",
    "u = base[1:]; base[:2] = w[:2] * 2; u.detach().mul_(2)",
]


@pytest.mark.parametrize("program", _STALE_VIEW_PROGRAMS)
def test_write_through_a_view_older_than_its_bases_history_as_torch(backend, program):
    outcomes = []
    for lib in (torch, xtensor):
        env = {"torch": lib, "w": lib.ones(3, requires_grad=True), "base": lib.zeros(3)}
        try:
            exec(program, env)
            outcomes.append(("runs", env["base"].detach().numpy().tolist()))
        except RuntimeError as e:
            outcomes.append(("raises", str(e)))
    assert outcomes[1] == outcomes[0]


# ------------------------------------------------------------------ NumPy scalars as operands
_NUMPY_SCALAR_CALLS = [
    ("float64 / 0-d float64", lambda m: np.float64(2.0) / m.tensor(0.5, dtype=m.float64)),
    ("0-d float64 + float64", lambda m: m.tensor(0.5, dtype=m.float64) + np.float64(2.0)),
    ("float64 * float32 tensor", lambda m: np.float64(2.0) * m.tensor([1.0, 2.0])),
    ("float32 tensor * float64", lambda m: m.tensor([1.0, 2.0]) * np.float64(2.0)),
    ("int tensor * float32", lambda m: m.tensor([1, 2]) * np.float32(2.0)),
    ("float32 tensor - int64", lambda m: m.tensor([1.0, 2.0]) - np.int64(3)),
]


@pytest.mark.parametrize("name, call", _NUMPY_SCALAR_CALLS, ids=[name for name, _ in _NUMPY_SCALAR_CALLS])
def test_numpy_scalar_operands_count_as_python_numbers_as_in_torch(backend, name, call):
    r, expected = call(xtensor), call(torch)
    assert str(r.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(r.numpy(), expected.numpy())


# ------------------------------------------------------------------ real and imag are attributes
def _parts_program(m):
    """Reads and assignments of ``.real``/``.imag`` as scripts write them; every value and error along the way."""
    seen = []
    x = m.ones(2)
    seen.append(x.real is x)
    seen.append(_outcome(lambda: x.imag))
    z = m.tensor([1 + 2j, 3 - 1j])
    seen += [z.real.tolist(), z.imag.tolist()]
    z.real = m.tensor([5.0, 6.0])
    z.imag = m.tensor([0.0, 1.0])
    seen.append(z.tolist())
    x.real = m.zeros(2)
    seen.append(x.tolist())
    seen.append(_outcome(lambda: setattr(x, "imag", m.zeros(2))))
    w = m.tensor([1 + 2j], requires_grad=True)
    (w.real * 2 + w.imag * 3).sum().backward()
    seen.append(w.grad.tolist())
    return seen


def test_real_and_imag_are_attributes_read_and_assigned_as_in_torch(backend):
    assert _parts_program(xtensor) == _parts_program(torch)
