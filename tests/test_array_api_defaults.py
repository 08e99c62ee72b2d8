"""``xtensor.array_api`` behaves as it reports, over the same tensors as ``xtensor`` with PyTorch's defaults.

One dtype rule per namespace: the array-API functions compute integers in the default float
``__array_namespace_info__().default_dtypes()`` reports (float64, as NumPy), the ``xtensor`` ones in PyTorch's
(float32); the operators of each namespace's tensors follow it (``test_array_api_tensors.py``). One 0-d storage
rule: a 0-d result holds a 0-d array, never a NumPy scalar. And the edges between xtensor and NumPy: dtypes NumPy reads, ``__array__``'s copy protocol,
``__array_wrap__`` as PyTorch's, DLPack imports a backend cannot share.
"""
import array_api_strict
import numpy as np
import pytest
import scipy.special
import torch

import xtensor as xt
import xtensor.array_api as xa

INTS = [1, 2, 3]


def default_float():
    return xa.__array_namespace_info__().default_dtypes()["real floating"]


@pytest.mark.parametrize("compute", [
    lambda ints: xa.sin(ints), lambda ints: xa.divide(ints, ints), lambda ints: xa.sqrt(ints),
    lambda ints: xa.special.erf(ints), lambda ints: xa.special.softmax(ints), lambda ints: xa.special.gammaln(ints),
    lambda ints: xa.exp(ints), lambda ints: xa.special.logsumexp(ints),
], ids=["sin", "divide", "sqrt", "special.erf", "special.softmax", "special.gammaln", "exp",
        "special.logsumexp"])
def test_namespace_functions_compute_integers_in_the_default_float_it_reports(backend, compute):
    assert default_float() is xa.float64
    assert compute(xa.asarray(INTS)).dtype is xa.float64


def test_namespace_python_floats_and_new_arrays_take_the_reported_default(backend):
    assert xa.asarray(1.5).dtype is xa.float64
    assert xa.ones(2).dtype is xa.float64
    assert xa.add(xa.asarray(INTS), 1.5).dtype is xa.float64


def test_torch_namespace_keeps_pytorchs_float32_default(backend):
    for name in ("sin", "sqrt", "erf"):
        assert getattr(xt, name)(xt.tensor(INTS)).dtype.name == str(getattr(torch, name)(
            torch.tensor(INTS)).dtype).removeprefix("torch.")
    assert xt.tensor(1.5).dtype is xt.float32


def test_namespace_default_does_not_leak_into_torch_calls_after_it(backend):
    xa.sin(xa.asarray(INTS))
    assert xt.get_default_dtype() is xt.float32
    assert xt.sin(xt.tensor(INTS)).dtype is xt.float32


def test_integer_meeting_float32_in_the_namespace_promotes_as_numpy(backend):
    ints, f32 = xa.asarray(INTS), xa.asarray([1.0, 2.0, 3.0], dtype=xa.float32)
    expected = np.result_type(np.int64, np.float32).name  # float64: SciPy's rule too where the standard is silent
    assert xa.add(ints, f32).dtype.name == expected
    assert xa.result_type(ints, f32).name == expected
    assert xa.special.xlogy(ints, f32).dtype.name == expected
    assert xa.add(f32, 2).dtype is xa.float32  # a Python int takes the array's dtype (the standard)
    assert xa.multiply(xa.asarray([True]), f32).dtype is xa.float32  # bools are no integers


@pytest.mark.parametrize("scalar, dtype", [(1j, "float64"), (1j, "float32"), (2, "float32"), (1.5, "float32"),
                                           (True, "bool"), (3, "int8")])
def test_result_type_of_a_python_scalar_matches_array_api_strict(backend, scalar, dtype):
    ours = xa.result_type(scalar, xa.asarray(1, dtype=getattr(xa, dtype)))
    assert f"array_api_strict.{ours.name}" == str(array_api_strict.result_type(scalar, array_api_strict.asarray(
        1, dtype=getattr(array_api_strict, dtype))))


@pytest.mark.parametrize("scalar, dtype", [(1.5, "int64"), (1j, "int64"), (2, "bool")])
def test_result_type_of_a_scalar_of_higher_kind_is_the_functions_result(backend, scalar, dtype):
    """array_api_strict refuses these (the standard leaves them open): the dtype xtensor's functions give."""
    array = xa.asarray(1, dtype=getattr(xa, dtype))
    assert xa.result_type(scalar, array) is xa.add(array, scalar).dtype


@pytest.mark.parametrize("make", [
    lambda: xa.sum(xa.asarray([1.0, 2.0])), lambda: xa.asarray(1.0) + xa.asarray(2.0),
    lambda: xa.asarray(1.0) == xa.asarray(1.0), lambda: xa.exp(xa.asarray(0.0)), lambda: xa.max(xa.asarray([1, 5])),
    lambda: xt.tensor([1.0, 2.0]).mean(), lambda: xt.tensor(2.0) * 3,
], ids=["sum", "a0 + a0", "a0 == a0", "exp(a0)", "max", "mean", "a0 * 3"])
def test_zero_dim_results_export_as_zero_dim_arrays(backend, make):
    result = make()
    exported = np.from_dlpack(result)
    assert exported.shape == () and exported == result.item()
    assert isinstance(result.numpy(), np.ndarray)  # as torch.tensor(1.).numpy()


def test_zero_dim_result_on_numpy_shares_memory_with_its_export():
    result = xa.sum(xa.asarray([1.0, 2.0]))
    np.from_dlpack(result)[...] = 7.0
    assert result.item() == 7.0


def test_polygamma_orders_as_scipy(backend):
    n, x = np.array([-1, 0, 1, 3]), np.array([0.5, 1.5, 2.5, 3.5])
    np.testing.assert_allclose(xa.special.polygamma(xa.asarray(n), xa.asarray(x)).numpy(),
                               scipy.special.polygamma(n, x), rtol=1e-12)
    np.testing.assert_array_equal(xa.special.polygamma(-2, xa.asarray(x)).numpy(), scipy.special.polygamma(-2, x))
    empty = xa.special.polygamma(xa.asarray([], dtype=xa.int64), xa.asarray([]))
    assert empty.shape == (0,) and empty.dtype is xa.float64
    column = xa.special.polygamma(xa.asarray([[1], [2]]), xa.asarray(x))
    np.testing.assert_allclose(column.numpy(), scipy.special.polygamma(np.array([[1], [2]]), x), rtol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_integers_is_scipys(backend, name):
    ints = np.array([[1, 2, 3], [4, 0, 2]])
    for axis in (None, 1):
        ours = getattr(xa.special, name)(xa.asarray(ints), axis=axis)
        assert ours.dtype is xa.float64
        np.testing.assert_allclose(ours.numpy(), getattr(scipy.special, name)(ints, axis=axis), rtol=1e-12)


@pytest.mark.parametrize("dtype", [d for d in xa.__array_namespace_info__().dtypes().values()])
def test_numpy_reads_xtensor_dtypes(dtype):
    assert np.dtype(dtype) == np.dtype(dtype.name)
    assert np.zeros(2).astype(dtype).dtype == np.dtype(dtype.name)
    assert np.asarray([1, 0], dtype=dtype).dtype == np.dtype(dtype.name)


def test_finfo_and_iinfo_still_take_dtypes_that_numpy_reads():
    assert xt.finfo(xt.float32).eps == torch.finfo(torch.float32).eps
    assert xt.iinfo(xt.int16).max == torch.iinfo(torch.int16).max


def test_from_dlpack_copies_a_layout_the_backend_cannot_share(backend):
    column = np.arange(60.0).reshape(30, 2)[:, :1]  # strides jax refuses
    imported = xa.from_dlpack(column)
    np.testing.assert_array_equal(imported.numpy(), column)
    assert imported.backend == backend


def test_from_dlpack_copy_false_of_a_layout_jax_cannot_share_is_a_clear_error():
    with xt.use_backend("jax"), pytest.raises(BufferError, match="copy=False.*'jax'.*without a copy"):
        xa.from_dlpack(np.arange(60.0).reshape(30, 2)[:, :1], copy=False)


def test_numpy_asarray_of_a_tensor_is_writable_as_pytorchs(backend):
    assert np.asarray(torch.ones(3)).flags.writeable
    assert np.asarray(xt.ones(3)).flags.writeable
    assert np.asarray(xt.ones(3), dtype=np.float64).flags.writeable


def test_numpy_asarray_shares_a_numpy_tensors_memory_as_pytorch():
    t, expected = xt.zeros(3), torch.zeros(3)
    np.asarray(t)[0] = 1.0
    np.asarray(expected)[0] = 1.0
    assert t.tolist() == expected.tolist()


def test_numpy_copy_false_gives_the_buffer_or_refuses_a_cast(backend):
    t = xt.ones(3)
    assert np.asarray(t, copy=False).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="copy"):
        np.asarray(t, dtype=np.float64, copy=False)


@pytest.mark.parametrize("call", [lambda m, t: np.sin(t), lambda m, t: np.add(t, 1), lambda m, t: np.greater(t, 1),
                                  lambda m, t: np.sqrt(m.tensor(4.0))],
                         ids=["sin", "add", "greater", "sqrt of 0-d"])
def test_numpy_ufuncs_of_a_tensor_return_a_tensor_as_pytorch(backend, call):
    expected = call(torch, torch.tensor([1.0, 2.0]))
    result = call(xt, xt.tensor([1.0, 2.0]))
    assert isinstance(result, xt.Tensor) and isinstance(expected, torch.Tensor)
    assert str(result.dtype).removeprefix("xtensor.") == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-6)


def test_other_numpy_functions_see_tensors_as_arrays_as_pytorch(backend):
    expected = np.concatenate([torch.ones(2), torch.zeros(1)])
    result = np.concatenate([xt.ones(2), xt.zeros(1)])
    assert type(result) is type(expected) is np.ndarray
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("obj", ["a duck", [1, "a duck"]])
def test_asarray_of_a_string_is_a_clear_error(backend, obj):
    with pytest.raises(TypeError, match="Unsupported value 'a duck' of type str"):
        xa.asarray(obj)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_limits_are_scipys(backend, name):
    """At a = 0 and a = +-inf, and x < 0 (jax's own kernel gives NaN or finite values where SciPy differs)."""
    a = np.array([-np.inf, -np.inf, -np.inf, -0.5, np.inf, np.inf, np.inf, 0.0, 0.0])
    x = np.array([-0.5, 0.0, 0.5, 0.5, -0.5, 0.0, 0.5, 0.5, -1.0])
    np.testing.assert_array_equal(getattr(xa.special, name)(xa.asarray(a), xa.asarray(x)).numpy(),
                                  getattr(scipy.special, name)(a, x))


# poles, s < 1, s = 1 and the infinities; integers as SciPy's suite draws them
_EDGES = np.array([-np.inf, -12, -8, -3, -1, -0.0, 0, 0.5, 1, 1.5, 2, 3, np.inf])
_ZETA_GRIDS = {"float64": (_EDGES, _EDGES), "int64": ([-12, -8, -3, 0, 1, 2, 3], [-8, -1, 0, 1, 2])}


@pytest.mark.parametrize("dtype", list(_ZETA_GRIDS))
def test_hurwitz_zeta_at_poles_and_infinities_is_scipys(backend, dtype):
    """jax's own kernel gives inf for s < 1 at the poles q = 0, -1..., NaN for s > 1 there and at infinities."""
    s, q = np.meshgrid(*_ZETA_GRIDS[dtype], indexing="ij")
    ours = xa.special.zeta(xa.asarray(s, dtype=getattr(xa, dtype)), xa.asarray(q, dtype=getattr(xa, dtype)))
    assert ours.dtype is xa.float64
    np.testing.assert_allclose(ours.numpy(), scipy.special.zeta(s.astype(float), q.astype(float)), rtol=1e-13)


def test_polygamma_and_digamma_at_poles_and_infinities_are_scipys(backend):
    """(-1)**(n+1) inf at x = 0, -1, -2... and -inf, (-1)**(n+1) 0 at +inf; digamma -inf at +0, +inf at -0 (jax: NaN
    for even n); PyTorch's digamma agrees at zero."""
    n = np.arange(5)[:, None]
    ours = xa.special.polygamma(xa.asarray(n), xa.asarray(_EDGES)).numpy()
    want = scipy.special.polygamma(n, _EDGES)
    np.testing.assert_allclose(ours, want, rtol=1e-13)
    assert (np.signbit(ours) == np.signbit(want)).all()
    ints = np.array([-20, -3, 0, 2])
    np.testing.assert_allclose(xa.special.polygamma(xa.asarray([[2], [3]]), xa.asarray(ints)).numpy(),
                               scipy.special.polygamma(np.array([[2], [3]]), ints))
    zeros = [0.0, -0.0]
    assert xt.digamma(xt.tensor(zeros)).tolist() == torch.digamma(torch.tensor(zeros)).tolist() == [-np.inf, np.inf]
