"""bfloat16, against PyTorch's: the dtype and its promotion, factories and casts, values and gradients (which stay
bfloat16) of elementwise ops, reductions and matmul, printing, ``item``/``tolist`` and save/load both ways.
jax has bfloat16 natively, numpy through ml_dtypes' bfloat16 (installed with jax); array_api_strict has none and
says so."""
import sys

import numpy as np
import pytest

import xtensor as xt
import xtensor.nn.functional as XF
from xtensor import _dtypes

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

BF16_BACKENDS = pytest.mark.parametrize("backend", ["numpy", "jax"])
VALUES = [[0.1, -1.5, 2.75], [3.0, 0.0078125, -0.4]]
TOL = dict(rtol=1.6e-2, atol=1e-2)  # two bfloat16 ulps (eps = 2**-7)


def _ours(backend, values=VALUES):
    return xt.tensor(values, dtype=xt.bfloat16, backend=backend, requires_grad=True)


def _theirs(values=VALUES):
    return torch.tensor(values, dtype=torch.bfloat16, requires_grad=True)


def _assert_like_torch(ours, theirs):
    assert ours.dtype is xt.bfloat16 and theirs.dtype == torch.bfloat16
    np.testing.assert_allclose(ours.detach().double().numpy(), theirs.detach().double().numpy(), **TOL)


def test_dtype_repr_and_type_name():
    assert repr(xt.bfloat16) == "xtensor.bfloat16"
    assert xt.bfloat16.is_floating_point and xt.bfloat16.itemsize == 2
    assert xt.ones(1, dtype=xt.bfloat16).type() == "xtensor.BFloat16Tensor"


def test_finfo_as_torch():
    ours, theirs = xt.finfo(xt.bfloat16), torch.finfo(torch.bfloat16)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.dtype == "bfloat16"


@pytest.mark.parametrize("other", ["float16", "float32", "float64", "int64", "uint8", "bool", "complex64"])
def test_promotion_as_torch(other):
    expected = torch.promote_types(torch.bfloat16, getattr(torch, other))
    assert xt.promote_types(xt.bfloat16, getattr(xt, other)).name == str(expected).removeprefix("torch.")
    assert xt.promote_types(getattr(xt, other), xt.bfloat16).name == str(expected).removeprefix("torch.")


@BF16_BACKENDS
def test_python_scalars_keep_bfloat16(backend):
    x = xt.tensor([1.0, 2.0], dtype=xt.bfloat16, backend=backend)
    for result in (x + 1.5, 2.5 * x, x - 1, x / 3, x ** 2.0, xt.where(x > 1, x, 0.5)):
        assert result.dtype is xt.bfloat16


@BF16_BACKENDS
def test_factories_and_casts(backend):
    with xt.use_backend(backend):
        made = [xt.ones(2, dtype=xt.bfloat16), xt.zeros(2, dtype=xt.bfloat16), xt.full((2,), 0.1, dtype=xt.bfloat16),
                xt.arange(3, dtype=xt.bfloat16), xt.tensor([0.1, 7.0]).bfloat16(), xt.tensor([1, 2]).to(xt.bfloat16)]
    expected = [torch.ones(2, dtype=torch.bfloat16), torch.zeros(2, dtype=torch.bfloat16),
                torch.full((2,), 0.1, dtype=torch.bfloat16), torch.arange(3, dtype=torch.bfloat16),
                torch.tensor([0.1, 7.0]).bfloat16(), torch.tensor([1, 2]).to(torch.bfloat16)]
    for ours, theirs in zip(made, expected):
        assert ours.is_floating_point()
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())  # rounding as torch's


@BF16_BACKENDS
def test_module_bfloat16_casts_parameters_and_trains_like_torch(backend):
    with xt.use_backend(backend):
        ours = xt.nn.Linear(3, 2)
    theirs = torch.nn.Linear(3, 2)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.tolist()))
        theirs.bias.copy_(torch.tensor(ours.bias.tolist()))
    ours, theirs = ours.bfloat16(), theirs.bfloat16()
    x, t = xt.tensor(VALUES, dtype=xt.bfloat16, backend=backend), torch.tensor(VALUES, dtype=torch.bfloat16)
    y, u = ours(x), theirs(t)
    _assert_like_torch(y, u)
    y.square().sum().backward()
    u.square().sum().backward()
    _assert_like_torch(ours.weight.grad, theirs.weight.grad)


@BF16_BACKENDS
@pytest.mark.parametrize("fn", [
    lambda ns, F, x: ns.exp(x) * x + 2.5,
    lambda ns, F, x: ns.tanh(x) / (x * x + 1),
    lambda ns, F, x: ns.sigmoid(x).sqrt(),
], ids=["exp_mul_add", "tanh_div", "sigmoid_sqrt"])
def test_elementwise_value_and_bfloat16_grad_like_torch(fn, backend):
    x, t = _ours(backend), _theirs()
    y, u = fn(xt, XF, x), fn(torch, TF, t)
    _assert_like_torch(y, u)
    y.sum().backward()
    u.sum().backward()
    _assert_like_torch(x.grad, t.grad)


@BF16_BACKENDS
@pytest.mark.parametrize("fn", [
    lambda ns, F, x: x.sum(dim=1),
    lambda ns, F, x: x.mean(),
    lambda ns, F, x: x.amax(dim=0),
    lambda ns, F, x: ns.logsumexp(x, dim=-1),
    lambda ns, F, x: F.softmax(x, dim=-1),
], ids=["sum", "mean", "amax", "logsumexp", "softmax"])
def test_reduction_value_and_bfloat16_grad_like_torch(fn, backend):
    x, t = _ours(backend), _theirs()
    y, u = fn(xt, XF, x), fn(torch, TF, t)
    _assert_like_torch(y, u)
    (y * y).sum().backward()
    (u * u).sum().backward()
    _assert_like_torch(x.grad, t.grad)


@pytest.mark.parametrize("fn", ["sum", "mean", "cumsum"])
@BF16_BACKENDS
def test_long_reductions_accumulate_in_float32_like_torch(fn, backend):
    """ml_dtypes' loops add in bfloat16, where a sum of 10,000 ones stops at 256."""
    values = np.linspace(0.5, 1.5, 10000)
    call = (lambda t: t.cumsum(0)) if fn == "cumsum" else (lambda t: getattr(t, fn)())
    _assert_like_torch(call(xt.tensor(values, dtype=xt.bfloat16, backend=backend)),
                       call(torch.tensor(values, dtype=torch.bfloat16)))


@BF16_BACKENDS
def test_matmul_value_and_bfloat16_grads_like_torch(backend):
    a, b = _ours(backend), _ours(backend, np.transpose(VALUES).tolist())
    s, t = _theirs(), _theirs(np.transpose(VALUES).tolist())
    _assert_like_torch(a @ b, s @ t)
    (a @ b).sum().backward()
    (s @ t).sum().backward()
    _assert_like_torch(a.grad, s.grad)
    _assert_like_torch(b.grad, t.grad)


@BF16_BACKENDS
@pytest.mark.parametrize("values", [[1.0, 2.0], [1.0, 2.5], [0.1, 7.0], [1.5, -2.25, 3e30], 3.5])
def test_repr_as_torch(values, backend):
    ours = repr(xt.tensor(values, dtype=xt.bfloat16, backend=backend))
    assert ours == repr(torch.tensor(values, dtype=torch.bfloat16)).replace("torch.", "xtensor.")


@BF16_BACKENDS
def test_item_and_tolist_as_torch(backend):
    ours, theirs = xt.tensor(VALUES, dtype=xt.bfloat16, backend=backend), torch.tensor(VALUES, dtype=torch.bfloat16)
    assert ours.tolist() == theirs.tolist()
    assert ours[0, 0].item() == theirs[0, 0].item() and type(ours[0, 0].item()) is float


@BF16_BACKENDS
def test_save_loads_in_torch(backend, tmp_path):
    xt.save({"w": xt.tensor(VALUES, dtype=xt.bfloat16, backend=backend)}, tmp_path / "w.pt")
    loaded = torch.load(tmp_path / "w.pt", weights_only=True)["w"]
    assert loaded.dtype == torch.bfloat16
    assert torch.equal(loaded, torch.tensor(VALUES, dtype=torch.bfloat16))


@BF16_BACKENDS
def test_torch_save_loads_in_xtensor(backend, tmp_path):
    torch.save({"w": torch.tensor(VALUES, dtype=torch.bfloat16)}, tmp_path / "w.pt")
    loaded = xt.load(tmp_path / "w.pt", map_location=backend)["w"]
    assert loaded.dtype is xt.bfloat16
    assert loaded.tolist() == torch.tensor(VALUES, dtype=torch.bfloat16).tolist()


def test_backend_without_bfloat16_is_a_clear_error():
    with pytest.raises(TypeError, match="dtype xtensor.bfloat16 is not supported by backend .array_api_strict."):
        xt.ones(2, dtype=xt.bfloat16, backend="array_api_strict")


def test_numpy_without_ml_dtypes_names_the_missing_package(monkeypatch):
    from xtensor.adapters.numpy import NumpyAdapter
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes now raises ImportError
    with pytest.raises(TypeError, match="not supported by backend 'numpy': .*ml_dtypes"):
        NumpyAdapter().native_dtype(_dtypes.bfloat16)
