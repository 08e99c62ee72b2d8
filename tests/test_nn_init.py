"""nn.init and the layers' default initialisation: PyTorch's bounds and distributions (checked by bounds and
statistics, since xtensor's generator draws its own numbers), seeded reproducibility on every backend."""
import math

import numpy as np
import pytest

import xtensor as xt
from xtensor import nn

torch = pytest.importorskip("torch")


def test_calculate_gain_matches_torch():
    for name, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                        ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert nn.init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.calculate_gain("foo")


def _bound_hit(values, bound):
    """All values inside [-bound, bound] and the extremes near it (the bound is PyTorch's, not a looser one)."""
    return np.abs(values).max() <= bound and np.abs(values).max() > 0.9 * bound


@pytest.mark.parametrize("make, fan_in", [(lambda ns: ns.Linear(50, 40), 50), (lambda ns: ns.Conv2d(6, 30, 3), 54),
                                          (lambda ns: ns.Conv1d(4, 40, 5, groups=2), 10)])
def test_default_layer_initialisation_has_torch_bounds(backend, make, fan_in):
    ours = make(nn)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) gives sqrt(6 / ((1 + 5) fan_in))
    assert _bound_hit(ours.weight.detach().numpy(), bound)
    assert np.abs(ours.bias.detach().numpy()).max() <= bound
    assert ours.weight.backend == backend


def test_recurrent_and_attention_initialisation():
    lstm = nn.LSTM(10, 25)
    for p in lstm.parameters():
        assert np.abs(p.detach().numpy()).max() <= 1 / 5
    mha = nn.MultiheadAttention(8, 2)
    assert _bound_hit(mha.in_proj_weight.detach().numpy(), math.sqrt(6 / (8 + 24)))
    assert not mha.in_proj_bias.detach().numpy().any() and not mha.out_proj.bias.detach().numpy().any()
    emb = nn.Embedding(100, 20, padding_idx=3)
    assert abs(emb.weight.detach().numpy().std() - 1) < 0.1 and not emb.weight.detach().numpy()[3].any()


def test_same_seed_gives_same_parameters_on_every_backend():
    values = []
    for backend in ("numpy", "jax", "array_api_strict"):
        with xt.use_backend(backend):
            xt.manual_seed(7)
            values.append(nn.Linear(3, 4).weight.detach().numpy())
    np.testing.assert_array_equal(values[0], values[1])
    np.testing.assert_array_equal(values[0], values[2])


@pytest.mark.parametrize("init, std", [
    (lambda t: nn.init.normal_(t, 0.5, 2.0), 2.0),
    (lambda t: nn.init.xavier_normal_(t, gain=2.0), 2.0 * math.sqrt(2 / (300 + 200))),
    (lambda t: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 300)),
    (lambda t: nn.init.xavier_uniform_(t), math.sqrt(2 / (300 + 200))),
    (lambda t: nn.init.kaiming_uniform_(t, a=0.1), math.sqrt(2 / (1 + 0.01)) / math.sqrt(200)),
    (lambda t: nn.init.uniform_(t, -3.0, 3.0), math.sqrt(3.0)),
])
def test_initialisers_draw_with_torch_spread(backend, init, std):
    xt.manual_seed(0)
    t = xt.empty(300, 200)
    assert init(t) is t
    assert abs(t.numpy().std() / std - 1) < 0.03


def test_trunc_normal_stays_in_bounds_with_the_truncated_std(backend):
    xt.manual_seed(0)
    t = nn.init.trunc_normal_(xt.empty(200, 300), mean=1.0, std=2.0, a=-1.0, b=2.0)
    values = t.numpy()
    assert values.min() >= -1.0 and values.max() <= 2.0
    reference = torch.nn.init.trunc_normal_(torch.empty(600, 1000), mean=1.0, std=2.0, a=-1.0, b=2.0).numpy()
    assert abs(values.mean() - reference.mean()) < 0.02 and abs(values.std() - reference.std()) < 0.02


def test_orthogonal_constant_eye(backend):
    q = nn.init.orthogonal_(xt.empty(4, 6), gain=2.0).numpy()
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(4), atol=1e-5)
    np.testing.assert_array_equal(nn.init.eye_(xt.empty(2, 3)).numpy(), np.eye(2, 3))
    np.testing.assert_array_equal(nn.init.constant_(xt.empty(2), 0.3).numpy(), np.full(2, 0.3, np.float32))
    np.testing.assert_array_equal(nn.init.zeros_(xt.ones(2)).numpy(), [0, 0])
    np.testing.assert_array_equal(nn.init.ones_(xt.zeros(2)).numpy(), [1, 1])


def test_initialising_a_parameter_is_not_recorded():
    p = nn.Parameter(xt.empty(3, 3))
    nn.init.kaiming_uniform_(p)
    assert p.is_leaf and p.grad_fn is None


def test_init_errors_match_torch():
    for fn in ("xavier_uniform_", "kaiming_normal_"):
        with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2"):
            getattr(nn.init, fn)(xt.empty(3))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.eye_(xt.empty(2, 2, 2))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        nn.init.kaiming_uniform_(xt.empty(2, 2), mode="fan_avg")


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 1), ((6, 2, 3, 3), 3), ((2, 3, 3, 3, 3), 1)])
def test_dirac_is_torchs_convolution_identity(backend, shape, groups):
    weight = nn.init.dirac_(xt.empty(shape), groups)
    np.testing.assert_array_equal(weight.numpy(), torch.nn.init.dirac_(torch.empty(shape), groups).numpy())


def test_sparse_zeroes_the_same_count_in_every_column_as_torch(backend):
    weight = nn.init.sparse_(xt.empty(10, 4), sparsity=0.3, std=0.5)
    expected = torch.nn.init.sparse_(torch.empty(10, 4), sparsity=0.3, std=0.5)
    assert ((weight.numpy() == 0).sum(0) == (expected.numpy() == 0).sum(0)).all()


def test_deprecated_names_warn_as_torch_and_initialise():
    with pytest.warns(FutureWarning, match=r"`nn.init.constant` is now deprecated in favor of `nn.init.constant_`"):
        weight = nn.init.constant(xt.empty(3), 2.0)
    assert weight.tolist() == [2.0] * 3
