"""The tape's cheap paths keep PyTorch's behaviour: a node that saves its output keeps the output's attributes rather
than a storage made per node, so a write through any alias of the output -- also one made, or written, after the
output tensor itself is gone -- is still refused at backward; ``x.sum()`` on numpy runs numpy's reduction directly
and gives PyTorch's values, dtypes and node."""
import numpy as np
import pytest
import torch

import xtensor

MODIFIED = "modified by an inplace operation"


def _refusal(lib, make_alias):
    """The error of a backward through ``exp``'s saved output after ``make_alias(output)`` wrote it, or None."""
    x = lib.ones(3, requires_grad=True)
    y = x.exp()
    z = y.sum()
    write = make_alias(y)
    del y
    with lib.no_grad():
        write()
    try:
        z.backward()
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("alias", ["view", "detached"])
def test_saved_output_written_through_an_alias_after_the_output_is_gone_is_refused(backend, alias):
    def make_alias(y):
        a = y[:2] if alias == "view" else y.detach()
        return lambda: a.add_(1)

    ours, theirs = _refusal(xtensor, make_alias), _refusal(torch, make_alias)
    assert MODIFIED in theirs
    assert ours is not None and MODIFIED in ours
    assert "which is output 0 of Exp" in ours and "is at version 1; expected version 0" in ours


def test_saved_output_aliased_but_not_written_backpropagates(backend):
    x = xtensor.ones(3, requires_grad=True)
    y = x.exp()
    view = y[:2]
    y.sum().backward()
    assert view.shape == (2,)
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.ones(3, np.float32)), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
def test_whole_tensor_sum_matches_torch(backend, dtype):
    if backend == "array_api_strict" and dtype == "float16":
        pytest.skip("the array API standard has no float16")
    values = np.linspace(-2, 3, 7).astype(np.float32)
    ours = xtensor.tensor(values).to(getattr(xtensor, dtype)).requires_grad_()
    theirs = torch.tensor(values).to(getattr(torch, dtype)).requires_grad_()
    total, expected = ours.sum(), theirs.sum()
    assert str(total.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert total.grad_fn.name() == expected.grad_fn.name() == "SumBackward0"
    np.testing.assert_allclose(total.detach().numpy(), expected.detach().numpy(), rtol=1e-3)
    total.real.backward() if dtype.startswith("complex") else total.backward()
    expected.real.backward() if dtype.startswith("complex") else expected.backward()
    np.testing.assert_allclose(ours.grad.numpy(), expected_grad := theirs.grad.numpy(), rtol=0)
    assert ours.grad.numpy().dtype == expected_grad.dtype
