"""torch's smaller modules that real programs and libraries import (``torch.utils.checkpoint``, ``torch.random``,
``torch.utils._pytree``, ``torch.func``, ``torch.nn.attention``, ``torch.nn.utils.parametrizations``,
``torch.distributions``...), each compared with the installed PyTorch on every backend."""

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

W = np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], np.float32)
X = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)


def _pair(lib, array, requires_grad=False):
    return lib.tensor(array, requires_grad=requires_grad)


def _linear_pair():
    """The same Linear(3, 2) in xtensor and torch."""
    mods = []
    for lib in (xt, torch):
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(W))
            m.bias.copy_(lib.tensor([0.1, -0.1]))
        mods.append(m)
    return mods


# --------------------------------------------------------------------------- torch.utils.checkpoint
@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gives_direct_call_values_and_gradients(backend, use_reentrant):
    results = []
    for lib, module in zip((xt, torch), _linear_pair()):
        x = _pair(lib, X, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint(lambda a: module(a).tanh(), x, use_reentrant=use_reentrant)
        out.sum().backward()
        results.append([t.detach().numpy() for t in (out, x.grad, module.weight.grad)])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7)


def test_checkpoint_without_use_reentrant_warns_as_torch():
    for lib in (xt, torch):
        with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
            lib.utils.checkpoint.checkpoint(lib.sin, lib.ones(2, requires_grad=True))


def test_reentrant_checkpoint_of_inputs_without_grad_warns_and_returns_no_grad():
    for lib, module in zip((xt, torch), _linear_pair()):
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            out = lib.utils.checkpoint.checkpoint(module, _pair(lib, X), use_reentrant=True)
        assert not out.requires_grad


def test_checkpoint_passes_keywords_only_when_not_reentrant():
    for lib in (xt, torch):
        out = lib.utils.checkpoint.checkpoint(lambda a, b=1: a * b, lib.ones(2), b=3, use_reentrant=False)
        assert out.tolist() == [3.0, 3.0]
        with pytest.raises(ValueError, match="Unexpected keyword arguments: b"):
            lib.utils.checkpoint.checkpoint(lambda a, b=1: a * b, lib.ones(2), b=3, use_reentrant=True)


def test_checkpoint_sequential_matches_torch(backend):
    results = []
    for lib in (xt, torch):
        lib.manual_seed(0)
        layers = [lib.nn.Linear(3, 3) for _ in range(4)]
        for layer, k in zip(layers, range(4)):
            with lib.no_grad():
                layer.weight.copy_(lib.tensor(np.eye(3, dtype=np.float32) * (k + 1) - 0.5))
                layer.bias.fill_(0.1 * k)
        x = _pair(lib, X, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint_sequential(lib.nn.Sequential(*layers), 2, x, use_reentrant=False)
        out.pow(2).sum().backward()
        results.append([out.detach().numpy(), x.grad.numpy(), layers[0].weight.grad.numpy()])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5)


# --------------------------------------------------------------------------- torch.random, types, multiprocessing
def test_random_seed_functions_are_the_global_generators(backend):
    xt.random.manual_seed(7)
    assert xt.random.initial_seed() == 7 == torch.random.manual_seed(7).initial_seed()
    first = xt.rand(3).tolist()
    xt.random.manual_seed(7)
    assert xt.rand(3).tolist() == first


def test_fork_rng_restores_the_stream_after_its_block(backend):
    for lib in (xt, torch):
        lib.manual_seed(3)
        with lib.random.fork_rng():
            inside = lib.rand(2).tolist()
        assert lib.rand(2).tolist() == inside


def test_fork_rng_disabled_lets_draws_advance_the_stream(backend):
    for lib in (xt, torch):
        lib.manual_seed(3)
        with lib.random.fork_rng(enabled=False):
            inside = lib.rand(2).tolist()
        assert lib.rand(2).tolist() != inside


def test_set_rng_state_replays_draws(backend):
    state = xt.random.get_rng_state()
    drawn = xt.randn(4).tolist()
    xt.random.set_rng_state(state)
    assert xt.randn(4).tolist() == drawn


def test_type_alias_modules_have_torchs_names():
    for theirs, mine in ((torch.types, xt.types), (torch.nn.common_types, xt.nn.common_types)):
        public = {n for n in dir(theirs) if n.startswith("_") and not n.startswith("__") and n[1].islower()}
        wanted = public & {"_size", "_int", "_float", "_bool", "_device", "_dtype"} | {
            n for n in public if n.startswith(("_size_", "_scalar_or_tuple", "_ratio_"))}
        assert wanted <= set(dir(mine))
    assert set(torch.types.__all__) <= set(dir(xt.types))


def test_hooks_removable_handle_is_the_modules_own():
    handle = xt.nn.Linear(2, 2).register_forward_hook(lambda *a: None)
    assert isinstance(handle, xt.utils.hooks.RemovableHandle)


def _record_rank(rank, folder):
    with open(f"{folder}/rank{rank}", "w") as f:
        f.write(str(rank))


def _fail_on_rank_one(rank):
    if rank == 1:
        raise ValueError("rank one failed")


def test_multiprocessing_has_torchs_names():
    assert set(torch.multiprocessing.__all__) <= set(dir(xt.multiprocessing))
    assert xt.multiprocessing.Process is __import__("multiprocessing").Process


# fork is the cheap start method; the children run a few lines of plain Python, none of jax's threads' work
FORK_AFTER_JAX = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")


@FORK_AFTER_JAX
def test_start_processes_runs_fn_with_each_rank(tmp_path):
    xt.multiprocessing.start_processes(_record_rank, args=(str(tmp_path),), nprocs=2, start_method="fork")
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == ["0", "1"]


@FORK_AFTER_JAX
def test_start_processes_reraises_a_childs_error_with_its_traceback():
    with pytest.raises(xt.multiprocessing.ProcessRaisedException, match="(?s)Process 1 terminated.*rank one"):
        xt.multiprocessing.start_processes(_fail_on_rank_one, nprocs=2, start_method="fork")


def test_spawn_with_another_start_method_warns_as_torch():
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        context = xt.multiprocessing.spawn(abs, nprocs=1, join=False, start_method="fork")
    assert context.join() is True


# --------------------------------------------------------------------------- torch.utils._pytree
Pair = __import__("collections").namedtuple("Pair", "first second")
TREE = {"x": [1, (2, None)], "y": Pair(3, {"z": 4}), "w": __import__("collections").OrderedDict(b=5, a=6)}


def test_tree_flatten_gives_torchs_leaves_and_round_trips():
    leaves, spec = xt.utils._pytree.tree_flatten(TREE)
    assert leaves == torch.utils._pytree.tree_flatten(TREE)[0]
    assert xt.utils._pytree.tree_unflatten(leaves, spec) == TREE
    assert spec.num_leaves == torch.utils._pytree.tree_structure(TREE).num_leaves


def test_tree_map_over_two_trees_matches_torch():
    other = xt.utils._pytree.tree_map(lambda v: 1, TREE)
    add = lambda a, b: a if a is None else a + b  # noqa: E731
    assert xt.utils._pytree.tree_map(add, TREE, other) == torch.utils._pytree.tree_map(add, TREE, other)


def test_treespecs_equal_only_for_the_same_structure():
    flatten = xt.utils._pytree.tree_flatten
    assert flatten([1, 2])[1] == flatten([3, 4])[1]
    assert flatten([1, 2])[1] != flatten((3, 4))[1]


def test_tree_unflatten_with_the_wrong_number_of_leaves_raises_valueerror():
    for lib in (xt, torch):
        spec = lib.utils._pytree.tree_structure([1, 2])
        with pytest.raises(ValueError, match="`leaves` has length 1"):
            lib.utils._pytree.tree_unflatten([1], spec)


def test_register_pytree_node_makes_a_class_a_node():
    class Box:
        def __init__(self, items):
            self.items = items
    xt.utils._pytree.register_pytree_node(Box, lambda b: (b.items, None), lambda children, _: Box(children))
    leaves, spec = xt.utils._pytree.tree_flatten([Box([1, 2]), 3])
    assert leaves == [1, 2, 3] and spec.unflatten([4, 5, 6])[0].items == [4, 5]
    with pytest.raises(ValueError, match="already registered"):
        xt.utils._pytree.register_pytree_node(Box, lambda b: (b.items, None), lambda children, _: Box(children))


# --------------------------------------------------------------------------- torch.func
def _both(function, *arrays):
    """``function(lib, *tensors)`` on xtensor and torch, results as nested lists."""
    results = []
    for lib in (xt, torch):
        out = function(lib, *(lib.tensor(a) for a in arrays))
        results.append(xt.utils._pytree.tree_map(lambda t: np.asarray(t.tolist()), out))
    return results


def _assert_trees_close(mine, theirs):
    for a, b in zip(*(xt.utils._pytree.tree_leaves(t) for t in (mine, theirs))):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def _loss(x, y):
    return (x.sin() * y).sum()


@pytest.mark.parametrize("transform", [
    lambda lib, x, y: lib.func.grad(_loss)(x, y),
    lambda lib, x, y: lib.func.grad(_loss, argnums=(0, 1))(x, y),
    lambda lib, x, y: lib.func.grad_and_value(_loss)(x, y),
    lambda lib, x, y: lib.func.grad(lambda a, b: (_loss(a, b), a.cos()), has_aux=True)(x, y),
    lambda lib, x, y: lib.func.grad(lambda a: lib.func.grad(_loss)(a, y).sum())(x),
    lambda lib, x, y: lib.func.jacrev(lambda a, b: a.exp() * b, argnums=(0, 1))(x, y),
    lambda lib, x, y: lib.func.jacfwd(lambda a: a.exp() * y)(x),
    lambda lib, x, y: lib.func.hessian(lambda a: (a ** 3 * y).sum())(x),
    lambda lib, x, y: lib.func.vmap(lambda a, b: (a * b).sum())(x.reshape(1, 3) * y, y.reshape(1, 3)),
], ids=["grad", "grad_argnums", "grad_and_value", "grad_has_aux", "grad_of_grad", "jacrev", "jacfwd", "hessian",
        "vmap"])
def test_func_transform_matches_torch(backend, transform):
    _assert_trees_close(*_both(transform, X[0], X[1]))


def test_vjp_matches_torch(backend):
    _assert_trees_close(*_both(lambda lib, x, y: lib.func.vjp(lambda a, b: a.exp() * b, x, y)[1](x + 1), X[0], X[1]))


def test_grad_of_a_non_scalar_function_raises_as_torch():
    for lib in (xt, torch):
        with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
            lib.func.grad(lambda a: a * 2)(lib.ones(2))


def test_functional_call_uses_the_given_tensors_and_leaves_the_module_unchanged(backend):
    results = []
    for lib, module in zip((xt, torch), _linear_pair()):
        weight = lib.tensor(W * 2, requires_grad=True)
        out = lib.func.functional_call(module, {"weight": weight}, (lib.tensor(X),))
        out.sum().backward()
        results.append([out.detach().numpy(), weight.grad.numpy(), module.weight.detach().numpy()])
        assert module.weight.grad is None and isinstance(module.weight, lib.nn.Parameter)
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


# --------------------------------------------------------------------------- torch.distributions
LOC, SCALE = np.array([0.0, 1.0, -0.5], np.float32), np.array([1.0, 2.0, 0.5], np.float32)
VALUE = np.array([0.5, -1.0, 0.0], np.float32)
LOGITS = np.array([[0.3, -1.0, 2.0], [0.0, 0.5, -0.5]], np.float32)
DISTRIBUTIONS = {  # name -> (lib, *parameter tensors) -> distribution, and a value in its support
    "normal": (lambda lib, a, b: lib.distributions.Normal(a, b), (LOC, SCALE), VALUE),
    "uniform": (lambda lib, a, b: lib.distributions.Uniform(a, a + b), (LOC, SCALE), LOC + 0.25),
    "bernoulli_logits": (lambda lib, a: lib.distributions.Bernoulli(logits=a), (LOGITS[0],), np.float32([1, 0, 1])),
    "bernoulli_probs": (lambda lib, a: lib.distributions.Bernoulli(probs=a.sigmoid()), (LOGITS[0],),
                        np.float32([1, 0, 1])),
    "categorical_logits": (lambda lib, a: lib.distributions.Categorical(logits=a), (LOGITS,), np.int64([2, 0])),
    "categorical_probs": (lambda lib, a: lib.distributions.Categorical(probs=a.exp()), (LOGITS,), np.int64([1, 2])),
    "multivariate_normal": (lambda lib, a, b: lib.distributions.MultivariateNormal(a, b @ b.mT + lib.eye(3)),
                            (LOC, LOGITS.T @ LOGITS), LOGITS[:, ::-1].copy()),
    "multivariate_normal_scale_tril": (lambda lib, a, b: lib.distributions.MultivariateNormal(
        a, scale_tril=b.tril() + 2 * lib.eye(3)), (LOC, LOGITS.T @ LOGITS), LOGITS.copy()),
}


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_distribution_log_prob_entropy_and_moments_match_torch(backend, name):
    make, params, value = DISTRIBUTIONS[name]
    results = []
    for lib in (xt, torch):
        tensors = [lib.tensor(p, requires_grad=True) for p in params]
        d = make(lib, *tensors)
        log_prob, entropy = d.log_prob(lib.tensor(value)), d.entropy()
        (log_prob.sum() + entropy.sum()).backward()
        moments = [np.asarray(m.tolist()) for m in (d.mean, d.variance)] if "categorical" not in name else []
        results.append([np.asarray(t.tolist()) for t in (log_prob, entropy, *(p.grad for p in tensors))] + moments
                       + [tuple(d.batch_shape), tuple(d.event_shape)])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_normal_rsample_is_differentiable_as_torchs(backend):
    grads = []
    for lib in (xt, torch):
        loc, scale = lib.tensor(LOC, requires_grad=True), lib.tensor(SCALE, requires_grad=True)
        draw = lib.distributions.Normal(loc, scale).rsample((4,))
        assert draw.shape == (4, 3)
        draw.sum().backward()
        grads.append(loc.grad.tolist())
    assert grads[0] == grads[1] == [4.0, 4.0, 4.0]  # d(loc + eps*scale)/d loc, summed over four draws


@pytest.mark.parametrize("name", ["normal", "uniform", "bernoulli_logits", "categorical_logits",
                                  "multivariate_normal"])
def test_distribution_samples_follow_the_distribution(backend, name):
    """Seeded statistics: the sample mean and variance (for Categorical, the frequencies) of 4000 draws lie within
    a few standard errors of the exact values torch computes."""
    make, params, _ = DISTRIBUTIONS[name]
    xt.manual_seed(0)
    samples = np.asarray(make(xt, *(xt.tensor(p) for p in params)).sample((4000,)).tolist(), np.float64)
    exact = make(torch, *(torch.tensor(p) for p in params))
    if name.startswith("categorical"):
        frequencies = np.stack([(samples == k).mean(0) for k in range(3)], -1)
        np.testing.assert_allclose(frequencies, exact.probs.numpy(), atol=0.03)
        return
    std_error = np.sqrt(exact.variance.numpy() / 4000)
    assert np.all(np.abs(samples.mean(0) - exact.mean.numpy()) < 5 * std_error)
    np.testing.assert_allclose(samples.var(0), exact.variance.numpy(), rtol=0.15)


def test_kl_divergence_of_normals_matches_torch(backend):
    results = []
    for lib in (xt, torch):
        loc = lib.tensor(LOC, requires_grad=True)
        kl = lib.distributions.kl_divergence(lib.distributions.Normal(loc, lib.tensor(SCALE)),
                                             lib.distributions.Normal(lib.tensor(0.5), lib.tensor(1.5)))
        kl.sum().backward()
        results.append([kl.tolist(), loc.grad.tolist()])
    np.testing.assert_allclose(np.array(results[0], dtype=object).tolist(), results[1], rtol=1e-5)


@pytest.mark.parametrize("build, message", [
    (lambda lib: lib.distributions.Normal(lib.zeros(2), -lib.ones(2)), "Expected parameter scale"),
    (lambda lib: lib.distributions.Normal(lib.zeros(2), lib.ones(2)).log_prob(lib.tensor([float("nan"), 0.0])),
     "Expected value argument .* to be within the support"),
    (lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])), "constraint Interval"),
    (lambda lib: lib.distributions.Bernoulli(), "Either `probs` or `logits` must be specified"),
    (lambda lib: lib.distributions.Categorical(probs=lib.ones(3)).log_prob(lib.tensor([3])), "within the support"),
    (lambda lib: lib.distributions.Uniform(lib.ones(2), lib.zeros(2)), "Expected parameter low .* LessThan"),
], ids=["negative_scale", "nan_value", "probs_above_one", "no_parameter", "category_out_of_range", "low_above_high"])
def test_invalid_distribution_arguments_raise_torchs_valueerror(build, message):
    for lib in (xt, torch):
        with pytest.raises(ValueError, match=message):
            build(lib)


def test_validate_args_false_skips_the_checks():
    assert xt.distributions.Normal(xt.zeros(1), -xt.ones(1), validate_args=False).scale.tolist() == [-1.0]


def test_bernoulli_has_no_rsample_as_torch():
    for lib in (xt, torch):
        with pytest.raises(NotImplementedError):
            lib.distributions.Bernoulli(probs=lib.tensor([0.5])).rsample()


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_expand_broadcasts_the_batch_shape_as_torch(name):
    make, params, value = DISTRIBUTIONS[name]
    results = []
    for lib in (xt, torch):
        d = make(lib, *(lib.tensor(p) for p in params))
        d = d.expand((2,) + tuple(d.batch_shape))
        results.append([tuple(d.batch_shape), np.asarray(d.log_prob(lib.tensor(value)).tolist())])
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


# --------------------------------------------------------------------------- torch.nn.attention
def test_sdpbackend_has_torchs_names_and_values():
    assert {n: int(v) for n, v in xt.nn.attention.SDPBackend.__members__.items()} == {
        n: int(v) for n, v in torch.nn.attention.SDPBackend.__members__.items()}


@pytest.mark.parametrize("kernel", ["MATH", "FLASH_ATTENTION"])
def test_sdpa_kernel_with_a_cpu_kernel_gives_the_same_attention(backend, kernel):
    q = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) / 10
    results = []
    for lib in (xt, torch):
        with lib.nn.attention.sdpa_kernel([getattr(lib.nn.attention.SDPBackend, kernel)]):
            results.append(lib.nn.functional.scaled_dot_product_attention(*(lib.tensor(q),) * 3).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)


def test_sdpa_kernel_without_a_cpu_kernel_raises_as_torch_and_restores_the_flags():
    for lib in (xt, torch):
        q = lib.ones(1, 1, 2, 2)
        with lib.nn.attention.sdpa_kernel(lib.nn.attention.SDPBackend.EFFICIENT_ATTENTION):
            assert not lib.backends.cuda.math_sdp_enabled()
            with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention"):
                lib.nn.functional.scaled_dot_product_attention(q, q, q)
        assert lib.backends.cuda.math_sdp_enabled()


def test_sdpa_kernel_rejects_what_is_no_sdpbackend():
    for lib in (xt, torch):
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
            with lib.nn.attention.sdpa_kernel("math"):
                pass


# --------------------------------------------------------------------------- torch.nn.utils.parametrize(ations)
def _parametrized_pair(parametrization, **kwargs):
    mods = _linear_pair()
    for lib, module in zip((xt, torch), mods):
        getattr(lib.nn.utils.parametrizations, parametrization)(module, **kwargs)
    return mods


@pytest.mark.parametrize("parametrization", ["weight_norm", "spectral_norm"])
def test_parametrization_gives_torchs_weight_gradients_and_state_dict(backend, parametrization):
    mods = _parametrized_pair(parametrization)
    if parametrization == "spectral_norm":  # the power iteration starts from random vectors: start from torch's
        for name in ("_u", "_v"):
            setattr(mods[0].parametrizations.weight[0], name, xt.tensor(
                getattr(mods[1].parametrizations.weight[0], name).numpy()))
    results = []
    for lib, module in zip((xt, torch), mods):
        module(lib.tensor(X)).pow(2).sum().backward()
        state = module.state_dict()
        results.append([sorted(state), type(module).__name__, module.weight.detach().numpy()]
                       + [p.grad.numpy() for p in module.parametrizations.weight.parameters()])
    assert results[0][:2] == results[1][:2]
    for mine, theirs in zip(results[0][2:], results[1][2:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_assigning_a_parametrized_tensor_stores_its_right_inverse():
    results = []
    for lib, module in zip((xt, torch), _parametrized_pair("weight_norm")):
        module.weight = lib.tensor(W * 3)
        results.append([p.detach().numpy() for p in module.parametrizations.weight.parameters()])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_remove_parametrizations_leaves_a_plain_parameter_of_the_value():
    for lib, module in zip((xt, torch), _parametrized_pair("weight_norm")):
        value = module.weight.detach().numpy()
        lib.nn.utils.parametrize.remove_parametrizations(module, "weight")
        assert type(module) is lib.nn.Linear and not lib.nn.utils.parametrize.is_parametrized(module)
        assert isinstance(module.weight, lib.nn.Parameter) and sorted(module.state_dict()) == ["bias", "weight"]
        np.testing.assert_allclose(module.weight.detach().numpy(), value, rtol=1e-6)


def test_register_parametrization_of_a_custom_module_and_cached(backend):
    class Symmetric:
        def __init__(self, lib):
            self.module = type("Symmetric", (lib.nn.Module,), {"forward": lambda self, x: x.triu() + x.triu(1).T})()
    results = []
    for lib in (xt, torch):
        layer = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric(lib).module)
        with lib.nn.utils.parametrize.cached():
            assert layer.weight is layer.weight
        assert layer.weight is not layer.weight
        weight = layer.weight.detach().numpy()
        results.append(np.allclose(weight, weight.T))
    assert results == [True, True]


def test_parametrization_that_changes_the_shape_raises_unless_unsafe():
    for lib in (xt, torch):
        shrink = type("Shrink", (lib.nn.Module,), {"forward": lambda self, x: x[:1]})()
        with pytest.raises(ValueError, match="may not change the shape of the tensor"):
            lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(3, 2), "weight", shrink)
