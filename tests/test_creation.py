"""Creation: ``tensor`` and its dtype inference, the legacy and typed constructors, factories,
``new_*`` / ``*_like``, and the seeded random functions -- against PyTorch 2.13 on every backend.

Deterministic results are compared with PyTorch's repr (``torch.`` spelled ``xtensor.``). Random
results are compared with PyTorch in shape and dtype, and checked in distribution with loose
statistical bounds (about 6 standard errors, so a correct sampler fails about once in 10^8 runs).
"""
import numpy as np
import pytest

import xtensor as xt

N = 200_000  # draws per distribution check


def _torch():
    return pytest.importorskip("torch")


def _both(expr):
    """``expr`` evaluated with ``T`` = torch and ``T`` = xtensor: (torch's repr as xtensor spells it, ours)."""
    torch = _torch()
    expected = repr(eval(expr, {"T": torch, "np": np})).replace("torch.", "xtensor.")
    return expected, repr(eval(expr, {"T": xt, "np": np}))


DETERMINISTIC = [
    # tensor(): PyTorch's dtype inference
    "T.tensor([1, 2])", "T.tensor([1., 2])", "T.tensor([True, False])", "T.tensor(3)", "T.tensor(2.5)",
    "T.tensor([1+2j, 3])", "T.tensor([[1, 2], [3, 4.5]])", "T.tensor(np.float32(2.5))",
    "T.tensor(np.array([1, 2], dtype=np.int32))", "T.tensor([np.float64(1.0)])", "T.tensor([np.float32(1), 2.0])",
    "T.tensor([np.int32(1), 2])", "T.tensor([np.int32(1), 2.5])", "T.tensor([1, np.float16(2)])",
    "T.tensor([[np.int8(1)], [np.int16(2)]])", "T.tensor(())", "T.tensor([], dtype=T.int64)",
    "T.tensor([1, 2], dtype=T.float64)", "T.tensor([1.7, -2.7], dtype=T.int32)", "T.tensor([0, 2], dtype=T.bool)",
    "T.tensor([1., 2.], requires_grad=True)", "T.tensor(np.ones((2, 2)))",
    # legacy constructor and typed constructors
    "T.Tensor([[1, 2, 3], [4, 5, 6]])", "T.Tensor(np.array([1, 2]))", "T.Tensor(2, 3).shape", "T.Tensor(T.Size([2])).shape",
    "T.Tensor().shape", "T.Tensor((2, 3))", "T.FloatTensor([1, 2])", "T.LongTensor([1.7, 2])", "T.IntTensor([3])",
    "T.BoolTensor([1, 0])", "T.DoubleTensor([1])", "T.ByteTensor([1, 2])", "T.HalfTensor([1.5])", "T.ShortTensor([2])",
    "T.CharTensor([-2])", "T.DoubleTensor(2, 2).shape", "T.autograd.Variable(T.ones(2), requires_grad=True)",
    # factories
    "T.zeros(2, 3, dtype=T.int8)", "T.zeros((2, 3))", "T.ones((2,))", "T.ones(2, 2, dtype=T.bool)", "T.empty(0, 3)",
    "T.full((2, 2), 7)", "T.full((2,), 1.5)", "T.full((2,), True)", "T.full((2,), 2, dtype=T.float64)",
    "T.eye(3)", "T.eye(2, 3)", "T.eye(3, 2, dtype=T.int32)",
    "T.arange(5)", "T.arange(1, 4)", "T.arange(0, 1, 0.25)", "T.arange(1, 4, dtype=T.float64)", "T.arange(5, 0, -2)",
    "T.arange(1., 11.)", "T.arange(1, 0, -0.1)", "T.linspace(0, 1, 5)", "T.linspace(-10, 10, 4)", "T.linspace(1, 10, 1)",
    "T.linspace(0, 1, 3, dtype=T.float64)", "T.logspace(0, 2, 3)", "T.logspace(0, 3, 4, base=2)",
    # *_like and new_*
    "T.zeros_like(T.tensor([1, 2]))", "T.ones_like(T.tensor([1., 2]), dtype=T.int32)",
    "T.full_like(T.tensor([1, 2]), 3.7)", "T.empty_like(T.tensor([[1., 2.]])).shape",
    "T.tensor([1., 2.]).new_tensor([3, 4])", "T.tensor([1., 2.]).new_zeros(2, 2)", "T.tensor([1, 2]).new_full((2,), 3.5)",
    "T.tensor([1, 2]).new_ones(3, dtype=T.float64)", "T.tensor([1.], dtype=T.float64).new(2).dtype",
    "T.tensor((), dtype=T.int32).new_ones((2, 3))", "T.tensor([1., 2.]).new_empty(3).shape",
]


def _lacks_float16(backend, expr):
    """array_api_strict has only the standard's dtypes: float16 there is a clear TypeError."""
    if backend == "array_api_strict" and ("float16" in expr or "Half" in expr):
        with pytest.raises(TypeError, match="float16"):
            eval(expr, {"T": xt, "np": np})
        return True
    return False


@pytest.mark.parametrize("expr", DETERMINISTIC)
def test_creation_matches_torch(backend, expr):
    if _lacks_float16(backend, expr):
        return
    expected, actual = _both(expr)
    assert actual == expected


RANDOM = [
    "T.rand(2, 3)", "T.rand((4,))", "T.rand(2, dtype=T.float64)", "T.rand(2, dtype=T.float16)", "T.randn(3, 1)",
    "T.randn(2, dtype=T.float64)", "T.randint(3, 10, (2, 2))", "T.randint(10, (3,))",
    "T.randint(0, 5, (2,), dtype=T.int32)", "T.randperm(4)", "T.randperm(3, dtype=T.int32)",
    "T.normal(T.zeros(3), T.ones(3))", "T.normal(0., T.ones(2, 2))", "T.normal(T.zeros(2, 2), 1.)",
    "T.normal(0., 1., size=(2, 3))", "T.normal(T.zeros(3, dtype=T.float64), 1.)", "T.normal(2, 3, size=(1, 4))",
    "T.normal(mean=T.arange(1., 6.))", "T.normal(T.zeros(2, 1), T.ones(3))",
    "T.bernoulli(T.full((3,), 0.5))", "T.bernoulli(T.full((3,), 0.5, dtype=T.float64))",
    "T.multinomial(T.tensor([0.2, 0.8]), 4, replacement=True)", "T.multinomial(T.tensor([[0.2, 0.8], [0.5, 0.5]]), 2)",
    "T.randint_like(T.zeros(2, 2), 5)", "T.randint_like(T.zeros(2, dtype=T.int32), 1, 5)",
    "T.rand_like(T.zeros(2, dtype=T.float64))", "T.randn_like(T.zeros(2, 3))", "T.rand_like(T.zeros(2), dtype=T.float64)",
    "T.zeros(3).uniform_(2, 3)", "T.zeros(3).normal_()", "T.zeros(3, dtype=T.float64).normal_(1, 2)",
    "T.zeros(4).bernoulli_(0.3)", "T.zeros(4).exponential_()", "T.zeros(4, dtype=T.int64).random_(0, 5)",
    "T.rand(2, 3, requires_grad=True)",
]


@pytest.mark.parametrize("expr", RANDOM)
def test_random_shape_dtype_and_flags_match_torch(backend, expr):
    if _lacks_float16(backend, expr):
        return
    torch = _torch()
    expected = eval(expr, {"T": torch})
    actual = eval(expr, {"T": xt})
    assert (tuple(actual.shape), actual.dtype.name, actual.requires_grad) == \
        (tuple(expected.shape), str(expected.dtype).split(".")[1], expected.requires_grad)


@pytest.mark.parametrize("expr", RANDOM)
def test_random_draws_repeat_after_the_same_manual_seed(backend, expr):
    if _lacks_float16(backend, expr):
        return
    xt.manual_seed(7)
    first = np.asarray(eval(expr, {"T": xt}).detach())
    xt.manual_seed(7)
    again = np.asarray(eval(expr, {"T": xt}).detach())
    np.testing.assert_array_equal(again, first)


@pytest.mark.parametrize("expr", ["T.rand(5)", "T.randn(2, 2)", "T.normal(T.zeros(3), 2.)", "T.randint(9, (4,))",
                                  "T.randperm(6)", "T.bernoulli(T.full((5,), 0.5))", "T.zeros(3).uniform_(-1, 1)"])
def test_random_draws_are_the_same_on_numpy_and_jax(expr):
    pytest.importorskip("jax")
    draws = []
    for name in ("numpy", "jax"):
        with xt.use_backend(name):
            xt.manual_seed(3)
            draws.append(np.asarray(eval(expr, {"T": xt})))
    np.testing.assert_array_equal(draws[1], draws[0])


def test_a_generator_draws_its_own_reproducible_stream(backend):
    a, b = xt.Generator().manual_seed(5), xt.Generator().manual_seed(5)
    xt.manual_seed(0)
    x = xt.rand(4, generator=a)
    xt.rand(4)  # the default generator does not disturb ``b``
    np.testing.assert_array_equal(np.asarray(xt.rand(4, generator=b)), np.asarray(x))


def test_manual_seed_returns_the_default_generator_with_its_seed():
    g = xt.manual_seed(11)
    assert g is xt.default_generator and g.initial_seed() == 11 == xt.initial_seed()


def test_rng_state_round_trip_repeats_draws(backend):
    state = xt.get_rng_state()
    first = np.asarray(xt.randn(3))
    xt.set_rng_state(state)
    np.testing.assert_array_equal(np.asarray(xt.randn(3)), first)


# --------------------------------------------------------------------------- distributions
def _draw(expr):
    xt.manual_seed(1234)
    return np.asarray(eval(expr, {"T": xt, "N": N}), dtype=np.float64)


def _assert_mean_std(x, mean, std):
    x = x.reshape(-1)
    assert abs(x.mean() - mean) < 6 * std / np.sqrt(x.size)
    assert abs(x.std() - std) < 6 * std / np.sqrt(2 * x.size) + 1e-12


def test_rand_is_uniform_on_the_unit_interval(backend):
    x = _draw("T.rand(N, dtype=T.float64)")
    assert 0 <= x.min() and x.max() < 1
    _assert_mean_std(x, 0.5, np.sqrt(1 / 12))


def test_randn_is_standard_normal(backend):
    _assert_mean_std(_draw("T.randn(N, dtype=T.float64)"), 0.0, 1.0)


def test_normal_with_mean_and_std_tensors_draws_each_element_from_its_own(backend):
    x = _draw("T.normal(T.tensor([[-3.], [5.]]).expand(2, N), T.tensor([[0.5], [2.]]).expand(2, N))")
    _assert_mean_std(x[0], -3.0, 0.5)
    _assert_mean_std(x[1], 5.0, 2.0)


def test_normal_with_float_mean_and_std_tensor(backend):
    _assert_mean_std(_draw("T.normal(1.5, T.full((N,), 3.))"), 1.5, 3.0)


def test_normal_with_mean_tensor_and_float_std(backend):
    _assert_mean_std(_draw("T.normal(T.full((N,), -2.), 0.25)"), -2.0, 0.25)


def test_normal_with_float_mean_std_and_size(backend):
    _assert_mean_std(_draw("T.normal(2., 3., size=(N,))"), 2.0, 3.0)


def test_normal_inplace_uses_its_mean_and_std(backend):
    _assert_mean_std(_draw("T.zeros(N, dtype=T.float64).normal_(4, 0.5)"), 4.0, 0.5)


def test_uniform_inplace_covers_its_interval(backend):
    x = _draw("T.zeros(N, dtype=T.float64).uniform_(-2, 6)")
    assert -2 <= x.min() and x.max() < 6
    _assert_mean_std(x, 2.0, 8 / np.sqrt(12))


def test_randint_draws_every_value_of_its_range_equally_often(backend):
    x = _draw("T.randint(3, 8, (N,))")
    counts = np.bincount(x.astype(int) - 3, minlength=5)
    assert x.min() == 3 and x.max() == 7
    assert np.all(np.abs(counts / N - 0.2) < 6 * np.sqrt(0.2 * 0.8 / N))


def test_randperm_is_a_permutation(backend):
    assert sorted(_draw("T.randperm(50)").astype(int).tolist()) == list(range(50))


def test_bernoulli_is_one_with_the_given_probability(backend):
    x = _draw("T.bernoulli(T.full((N,), 0.3))")
    assert set(np.unique(x)) <= {0.0, 1.0}
    assert abs(x.mean() - 0.3) < 6 * np.sqrt(0.3 * 0.7 / N)


def test_multinomial_with_replacement_follows_the_weights(backend):
    x = _draw("T.multinomial(T.tensor([1., 3.]), N, replacement=True)")
    assert abs(x.mean() - 0.75) < 6 * np.sqrt(0.75 * 0.25 / N)


def test_multinomial_without_replacement_draws_distinct_indices(backend):
    x = _draw("T.multinomial(T.ones(3, 10), 10)")
    assert all(sorted(row) == list(range(10)) for row in x.astype(int).tolist())


def test_randn_like_and_rand_like_follow_the_input_shape_and_dtype(backend):
    x = xt.zeros(2, 3, dtype=xt.float64)
    assert (xt.randn_like(x).shape, xt.rand_like(x).dtype) == (x.shape, xt.float64)


# --------------------------------------------------------------------------- errors as PyTorch raises them
ERRORS = [
    "T.normal(T.zeros(2), -T.ones(2))", "T.normal(T.zeros(2, dtype=T.int64), 1.)", "T.normal(0., -1., size=(2,))", "T.randint(5, 5, (2,))",
    "T.rand(2, dtype=T.int64)", "T.randn(2, dtype=T.int32)", "T.multinomial(T.tensor([0.5, 0.5]), 3)",
    "T.multinomial(T.tensor([-1., 2.]), 1)", "T.bernoulli(T.full((2,), 1.5))", "T.zeros(-1)", "T.arange(0, 5, 0)",
    "T.tensor([[1, 2], [3]])", "T.linspace(0, 1, -1)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_bad_input_raises_torchs_error_type(backend, expr):
    torch = _torch()
    with pytest.raises(Exception) as expected:
        eval(expr, {"T": torch})
    with pytest.raises(Exception) as actual:
        eval(expr, {"T": xt})
    assert actual.type is expected.type, f"torch raised {expected.value!r}, xtensor {actual.value!r}"
    if expected.type is NotImplementedError:  # the kernel-named message PyTorch users search for
        assert str(actual.value) == str(expected.value)


def test_version_is_a_version_string():
    assert isinstance(xt.__version__, str) and xt.__version__[0].isdigit()


def test_variable_is_the_tensor_itself_with_requires_grad(backend):
    v = xt.autograd.Variable(xt.ones(2), requires_grad=True)
    assert isinstance(v, xt.Tensor) and v.requires_grad and v.is_leaf


# ------------------------------------------------------------------ the default device
def _under_default_device(ns, device):
    """What factories do with ``device`` set as the default (``ns``: xtensor or torch): each result's device, or the
    error a factory raises; ``*_like`` results; what is made after the default is reset."""
    ns.set_default_device(device)
    try:
        made = [str(f().device) for f in (lambda: ns.zeros(2), lambda: ns.tensor([1.0]), lambda: ns.arange(3),
                                          lambda: ns.randn(2), lambda: ns.nn.Linear(2, 2).weight)]
    except AssertionError as e:
        made = ("AssertionError", str(e))
    try:
        like = str(ns.zeros_like(ns.tensor([1.0], device="cpu")).device)
    finally:
        ns.set_default_device(None)
    return made, like, str(ns.ones(2).device)


def _without_cuda(backend):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() or "cuda" in {kind for kind, _ in xt.get_backend(backend).devices()}:
        pytest.skip("a CUDA device is present")
    return torch


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_set_default_device_places_factories_as_torch(backend, device):
    """Factories without ``device=`` use the default (raising at the factory where the backend lacks it, as
    PyTorch's CUDA default on a CPU build); ``*_like`` follow their input; ``None`` resets it."""
    torch = _without_cuda(backend)
    assert _under_default_device(xt, device) == _under_default_device(torch, device)


def _in_device_block(ns):
    try:
        with ns.device("cuda"):
            ns.empty(1)
        inside = "made"
    except AssertionError as e:
        inside = str(e)
    with ns.device("cpu") as d:
        entered = (d == ns.device("cpu"), str(ns.full((1,), 2.0).device))
    return inside, entered, str(ns.empty(1).device)


def test_device_as_a_context_manager_sets_the_default_inside_the_block_only(backend):
    torch = _without_cuda(backend)
    assert _in_device_block(xt) == _in_device_block(torch)
