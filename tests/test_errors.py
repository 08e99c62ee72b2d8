"""Bad input gets the error type a PyTorch user knows, with a message naming what was wrong."""
import subprocess
import sys

import pytest

import xtensor as t


def test_unknown_backend_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="no_such_backend"):
        t.set_default_backend("no_such_backend")


def test_missing_optional_backend_says_how_to_install_it():
    code = ("import sys; sys.modules['jax'] = None\n"
            "import xtensor\n"
            "try:\n    xtensor.get_backend('jax')\n"
            "except ImportError as e:\n    print('ImportError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "ImportError:" in out and "pip install 'xtensor[jax]'" in out


def test_requires_grad_on_integer_tensor_is_refused():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        t.tensor([1, 2], requires_grad=True)


def test_backward_of_non_scalar_needs_a_gradient():
    x = t.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_backward_of_tensor_without_history_is_refused():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        t.ones(1).backward()


def test_broadcast_mismatch_names_both_sizes_and_is_runtime_and_value_error():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(4\)") as e:
        t.ones(3) + t.ones(4)
    assert isinstance(e.value, ValueError)


def test_mm_shape_mismatch_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        t.ones(2, 3).mm(t.ones(4, 5))


def test_matmul_dtype_mismatch_names_both_dtypes():
    with pytest.raises(RuntimeError, match="float32 != float64"):
        t.ones(2, 2) @ t.ones(2, 2, dtype=t.float64)


def test_mixing_two_non_host_backends_names_both():
    a = t.ones(2, backend="jax")
    b = t.ones(2, backend="array_api_strict")
    with pytest.raises(RuntimeError, match="jax and array_api_strict"):
        a + b


def test_item_of_many_elements_is_refused():
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        t.ones(2).item()


def test_index_out_of_range_is_an_index_error_on_every_backend():
    for backend in ("numpy", "jax", "array_api_strict"):
        with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
            t.ones(3, backend=backend)[5]


def test_float_index_is_an_index_error():
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        t.ones(3)[t.tensor([0.0])]


def test_in_place_on_leaf_requiring_grad_is_refused():
    w = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.add_(1)


@pytest.mark.parametrize("fill", [
    lambda ns, x: x.masked_fill(x > 0, float("nan")),  # found by the differential fuzzer
    lambda ns, x: x.fill_(float("inf")),
    lambda ns, x: ns.full((2,), 2.0 ** 40, dtype=ns.int32),
    lambda ns, x: x.masked_fill(x > 0, 2 ** 63),
], ids=["masked_fill-nan", "fill_-inf", "full-int32-too-large", "masked_fill-int64-too-large"])
def test_a_number_an_integer_tensor_cannot_hold_is_refused_as_torch(backend, fill):
    expected = "value cannot be converted to type .* without overflow"
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=expected) as theirs:
        fill(torch, torch.tensor([1, 2]))
    with pytest.raises(RuntimeError) as ours:
        fill(t, t.tensor([1, 2]))
    assert str(ours.value) == str(theirs.value)
