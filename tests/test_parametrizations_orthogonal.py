"""nn.utils.parametrizations.orthogonal against PyTorch 2.13: from the same weights, each map (matrix_exp, cayley,
householder; with and without the dynamic trivialization; tall and wide) gives PyTorch's orthogonal weight,
state dict names and gradients, on every backend; a training step keeps the weight orthogonal."""
import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

CASES = {  # name -> (out_features, in_features, keyword arguments of orthogonal)
    "square-matrix_exp": (4, 4, {}),
    "square-cayley": (4, 4, {"orthogonal_map": "cayley"}),
    "tall-householder": (5, 3, {}),
    "wide-householder-no-trivialization": (3, 5, {"use_trivialization": False}),
    "tall-matrix_exp": (5, 3, {"orthogonal_map": "matrix_exp"}),
}
X = np.cos(np.arange(15.0)).reshape(3, 5)


def _linear(lib, out_features, in_features):
    layer = lib.nn.Linear(in_features, out_features, dtype=lib.float64)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(np.random.default_rng(0).standard_normal((out_features, in_features))))
        layer.bias.zero_()
    return layer


def _parametrized(lib, name, base=None):
    out_features, in_features, options = CASES[name]
    layer = lib.nn.utils.parametrizations.orthogonal(_linear(lib, out_features, in_features), **options)
    if base is not None:  # a non-square trivialization completes its base with random columns: take PyTorch's
        layer.parametrizations.weight[0].base = lib.tensor(base)
    return layer


def _loss_and_gradient(lib, layer):
    (layer(lib.tensor(X[:, :layer.in_features])) ** 3).sum().backward()
    return layer.weight, layer.parametrizations.weight.original.grad


# jax compiles each linalg op at first use (seconds each): there one case, the one with the most ops, stands for all
RUNS = [(backend, name) for backend in ("numpy", "array_api_strict") for name in CASES] + [
    ("jax", "wide-householder-no-trivialization")]


@pytest.mark.parametrize("backend, name", RUNS, indirect=["backend"])
def test_orthogonal_weight_and_its_gradient_are_pytorchs(backend, name):
    theirs = _parametrized(torch, name)
    base = getattr(theirs.parametrizations.weight[0], "base", None)
    ours = _parametrized(xt, name, None if base is None else base.numpy())
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    np.testing.assert_allclose(ours.parametrizations.weight.original.detach().numpy(),
                               theirs.parametrizations.weight.original.detach().numpy(), atol=1e-12)
    (weight, grad), (expected_weight, expected_grad) = _loss_and_gradient(xt, ours), _loss_and_gradient(torch, theirs)
    assert weight.backend == backend
    np.testing.assert_allclose(weight.detach().numpy(), expected_weight.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(grad.numpy(), expected_grad.numpy(), atol=1e-9)


def test_square_weight_initializes_to_the_qr_orthogonalization_of_the_original():
    ours, theirs = _parametrized(xt, "square-matrix_exp"), _parametrized(torch, "square-matrix_exp")
    np.testing.assert_allclose(ours.parametrizations.weight[0].base.numpy(),
                               theirs.parametrizations.weight[0].base.numpy(), atol=1e-12)


def test_weight_stays_orthogonal_while_training():
    layer = _parametrized(xt, "tall-householder")
    optimizer = xt.optim.SGD(layer.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        (layer(xt.tensor(X[:, :3])) ** 2).sum().backward()
        optimizer.step()
    weight = layer.weight.detach().numpy()
    np.testing.assert_allclose(weight.T @ weight, np.eye(3), atol=1e-12)


@pytest.mark.parametrize("call", [lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias"),
                                  lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2),
                                                                                       orthogonal_map="qr")])
def test_bad_arguments_raise_pytorchs_value_error(call):
    with pytest.raises(ValueError) as theirs:
        call(torch)
    with pytest.raises(ValueError, match=str(theirs.value).split(".")[0]):
        call(xt)


def test_assigning_to_a_matrix_exp_without_trivialization_is_refused_as_in_pytorch():
    layer = xt.nn.utils.parametrizations.orthogonal(_linear(xt, 3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential"):
        layer.weight = xt.eye(3, dtype=xt.float64)
