"""On the jax backend tensors are pytrees: jax.jit compiles code that runs xtensor's own tape."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")

import xtensor as t  # noqa: E402


def _loss_and_step(w, x):
    loss = ((x * w).tanh() ** 2).sum()
    loss.backward()
    with t.no_grad():
        return loss.detach(), w - 0.1 * w.grad


def test_jit_runs_forward_and_backward_of_the_tape():
    with t.use_backend("jax"):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = t.tensor([0.5, 0.1, 0.2])
        loss, new_w = jax.jit(_loss_and_step)(w, x)
    expected_grad = 2 * np.tanh([0.5, 0.2, 0.6]) * (1 - np.tanh([0.5, 0.2, 0.6]) ** 2) * [0.5, 0.1, 0.2]
    assert loss.backend == "jax"
    assert loss.item() == pytest.approx(float((np.tanh([0.5, 0.2, 0.6]) ** 2).sum()), rel=1e-6)
    np.testing.assert_allclose(new_w.numpy(), np.array([1.0, 2.0, 3.0]) - 0.1 * expected_grad, rtol=1e-5)


def test_jit_traces_writes_through_views():
    def bump_first_row(x):
        row = x[0, :]
        row += 1
        return x

    with t.use_backend("jax"):
        out = jax.jit(bump_first_row)(t.zeros(2, 3))
    assert out.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]


def test_jax_grad_differentiates_a_product_scatter_with_repeated_positions_and_zeros():
    """jax's own scatter-multiply has no gradient where positions repeat; the jax backend's product scatter does
    (index_reduce/scatter_reduce 'prod' under jax.vjp), and agrees with PyTorch's gradient, zeros included."""
    torch = pytest.importorskip("torch")
    x = np.array([[2.0, 0.5], [3.0, 0.0], [1.5, -1.0]])
    src = np.array([[0.5, 2.0], [0.0, 4.0], [3.0, -0.5], [1.25, 2.0]])
    index = np.array([[0, 2], [0, 1], [2, 1], [0, 1]])

    def loss(lib, x, src):
        return (lib.as_tensor(x).scatter_reduce(0, lib.as_tensor(index), lib.as_tensor(src), "prod") ** 2).sum()

    with t.use_backend("jax"):
        _, vjp = jax.vjp(lambda a, b: loss(t, a, b), jax.numpy.asarray(x), jax.numpy.asarray(src))
        grads = vjp(t.tensor(1.0, dtype=t.float64))
    tx, tsrc = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    loss(torch, tx, tsrc).backward()
    np.testing.assert_allclose(np.asarray(grads[0]), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grads[1]), tsrc.grad.numpy(), rtol=1e-12)
