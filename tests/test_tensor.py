"""Tensor attributes, printing, creation functions and dtype promotion, specified against PyTorch.

Every test runs on each backend (the ``backend`` fixture makes it the default). Expected values
come from PyTorch itself (imported with importorskip where a test compares against it) or from numpy.
"""
import warnings

import numpy as np
import pytest

import xtensor as t
import xtensor.array_api

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64",
               "float16", "float32", "float64", "complex64", "complex128"]


def _dtypes_on(backend):
    """The dtypes a backend has: the array API standard (array_api_strict) has no float16."""
    return [d for d in DTYPE_NAMES if not (backend == "array_api_strict" and d == "float16")]


def _torch():
    return pytest.importorskip("torch")


def _torch_repr(tx):
    """PyTorch's repr with its module name in dtype/Size parts replaced by xtensor's."""
    return repr(tx).replace("dtype=torch.", "dtype=xtensor.").replace("torch.Size(", "xtensor.Size(")


def _dname(dtype):
    """'float32' for xtensor.float32 and torch.float32 alike."""
    return str(dtype).split(".")[-1]


def _same_as_torch(x, tx):
    assert tuple(x.shape) == tuple(tx.shape)
    assert _dname(x.dtype) == _dname(tx.dtype)
    np.testing.assert_allclose(np.asarray(x.tolist(), dtype=complex), np.asarray(tx.tolist(), dtype=complex),
                               rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------------------------------ attributes

def test_shape_is_a_size_which_is_a_tuple(backend):
    x = t.zeros(2, 3)
    assert isinstance(x.shape, t.Size)
    assert isinstance(x.shape, tuple)
    assert x.shape == (2, 3)
    assert x.shape == t.Size([2, 3])


def test_dtype_attribute_is_the_xtensor_dtype(backend):
    assert t.zeros(2).dtype == t.float32
    assert t.zeros(2, dtype=t.float64).dtype == t.float64
    assert t.zeros(2, dtype=t.long).dtype == t.int64
    assert t.float is t.float32 and t.double is t.float64 and t.long is t.int64 and t.int is t.int32


def test_dtype_repr_matches_torch(backend):
    torch = _torch()
    for name in DTYPE_NAMES:
        assert repr(getattr(t, name)) == repr(getattr(torch, name)).replace("torch.", "xtensor.")


def _skip_unless_cpu():
    if t.zeros(1).device.type != "cpu":
        pytest.skip("this check is written for CPU backends (jax here runs on an accelerator)")


def test_device_is_cpu_and_prints_like_torch(backend):
    torch = _torch()
    _skip_unless_cpu()
    x = t.zeros(2)
    assert x.device == t.device("cpu")
    assert x.device == "cpu"
    assert str(x.device) == str(torch.zeros(2).device)
    assert repr(x.device) == repr(torch.zeros(2).device)


def test_ndim_and_dim(backend):
    x = t.zeros(2, 3, 4)
    assert x.ndim == 3
    assert x.dim() == 3
    assert t.tensor(1.0).ndim == 0


def test_size_is_an_int_equal_to_the_element_count(backend):
    x = t.zeros(2, 3)
    assert x.size == 6
    assert isinstance(x.size, int)
    assert x.numel() == 6 and x.nelement() == 6


def test_size_called_returns_the_shape_as_size(backend):
    x = t.zeros(2, 3)
    assert x.size() == t.Size([2, 3])
    assert isinstance(x.size(), t.Size)
    assert x.size(1) == 3
    assert x.size(-1) == 3
    assert x.size(0) == 2


def test_size_of_dim_out_of_range_raises_index_error(backend):
    with pytest.raises(IndexError):
        t.zeros(2, 3).size(2)


def test_T_transposes_a_matrix(backend):
    torch = _torch()
    tx = torch.arange(6).view(2, 3)
    x = t.arange(6).view(2, 3)
    assert x.T.tolist() == tx.T.tolist()
    assert x.T.shape == (3, 2)


def test_mT_transposes_the_last_two_dims(backend):
    torch = _torch()
    tx = torch.arange(24).view(2, 3, 4)
    x = t.arange(24).view(2, 3, 4)
    assert x.mT.shape == tuple(tx.mT.shape)
    assert x.mT.tolist() == tx.mT.tolist()


def test_item_returns_a_python_number_of_the_right_type(backend):
    assert t.tensor([1.5]).item() == 1.5 and type(t.tensor([1.5]).item()) is float
    assert t.tensor(3).item() == 3 and type(t.tensor(3).item()) is int
    assert t.tensor(True).item() is True
    assert t.tensor([[2.0]]).item() == 2.0


def test_item_of_several_elements_raises_runtime_error(backend):
    torch = _torch()
    with pytest.raises(RuntimeError) as expected:
        torch.tensor([1.0, 2.0]).item()
    with pytest.raises(type(expected.value)):
        t.tensor([1.0, 2.0]).item()


def test_tolist_gives_nested_python_lists(backend):
    torch = _torch()
    data = [[1, 2, 3], [4, 5, 6]]
    assert t.tensor(data).tolist() == torch.tensor(data).tolist()
    fl = t.tensor([[1.5, 2.0]]).tolist()
    assert fl == [[1.5, 2.0]] and type(fl[0][0]) is float
    assert t.tensor(2.5).tolist() == 2.5


def test_numpy_returns_an_ndarray_of_the_same_dtype_and_values(backend):
    a = t.tensor([[1.0, 2.0], [3.0, 4.0]]).numpy()
    assert isinstance(a, np.ndarray)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32))
    assert t.tensor([1, 2]).numpy().dtype == np.int64


def test_numpy_of_tensor_requiring_grad_raises(backend):
    torch = _torch()
    with pytest.raises(RuntimeError) as expected:
        torch.ones(2, requires_grad=True).numpy()
    with pytest.raises(RuntimeError, match="detach"):
        t.ones(2, requires_grad=True).numpy()
    assert "detach" in str(expected.value)


def test_numpy_shares_memory_on_the_numpy_backend(backend):
    if backend != "numpy":
        pytest.skip("numpy() shares memory only with host (numpy) tensors, as torch's only on CPU")
    x = t.ones(5)
    a = x.numpy()
    x += 1
    np.testing.assert_array_equal(a, np.full(5, 2.0, dtype=np.float32))
    a += 1
    assert x.tolist() == [3.0] * 5


def test_array_protocol_converts_with_np_asarray(backend):
    x = t.tensor([[1, 2], [3, 4]], dtype=t.int32)
    a = np.asarray(x)
    assert a.dtype == np.int32
    np.testing.assert_array_equal(a, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(x, dtype=np.float64), [[1.0, 2.0], [3.0, 4.0]])


def test_dlpack_converts_with_np_from_dlpack(backend):
    x = t.tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(x)
    np.testing.assert_array_equal(a, np.array([1.0, 2.0, 3.0], dtype=np.float32))


def test_dlpack_shares_memory_on_the_numpy_backend(backend):
    if backend != "numpy":
        pytest.skip("zero-copy DLPack export is a host-backend property")
    x = t.tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(x)
    x[0] = 99.0
    assert a[0] == 99.0


def test_dlpack_device_is_cpu(backend):
    torch = _torch()
    _skip_unless_cpu()
    assert tuple(t.zeros(2).__dlpack_device__()) == tuple(torch.zeros(2).__dlpack_device__())


def test_array_namespace_is_xtensor_array_api(backend):
    x = t.zeros(2)
    assert x.__array_namespace__() is xtensor.array_api
    assert t.array_api is xtensor.array_api


def test_type_returns_legacy_tensor_type_name(backend):
    torch = _torch()
    for name in ["float32", "float64", "int64", "int32", "bool", "uint8", "int8", "int16", "float16"]:
        if name not in _dtypes_on(backend):
            continue
        expected = torch.zeros(1, dtype=getattr(torch, name)).type().replace("torch.", "xtensor.")
        assert t.zeros(1, dtype=getattr(t, name)).type() == expected


def test_type_with_a_legacy_tensor_type_converts(backend):
    x = t.tensor([1.5, 2.5], dtype=t.float64)
    y = x.type(t.FloatTensor)
    assert y.dtype == t.float32 and y.tolist() == [1.5, 2.5]


def test_type_with_a_dtype_converts(backend):
    x = t.tensor([1.5, 2.5], dtype=t.float64)
    y = x.type(t.float32)
    assert y.dtype == t.float32 and y.tolist() == [1.5, 2.5]


def test_dtype_shortcut_conversions(backend):
    torch = _torch()
    for conv in ("float", "double", "long", "int", "bool", "half", "short", "byte", "char"):
        if conv == "half" and backend == "array_api_strict":
            continue
        x = getattr(t.tensor([0.0, 1.5, -2.5]), conv)()
        tx = getattr(torch.tensor([0.0, 1.5, -2.5]), conv)()
        if conv == "byte":  # negative floats to uint8 are undefined in C; compare the defined part
            x, tx = x[:2], tx[:2]
        _same_as_torch(x, tx)


# ------------------------------------------------------------------------------------------ repr

REPR_CASES = {
    "matrix_float": lambda m: m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    "fractions": lambda m: m.tensor([5.5, 3.0]),
    "ints": lambda m: m.tensor([[1, 2], [3, 4]]),
    "float64": lambda m: m.ones(2, 3, dtype=m.float64),
    "int32": lambda m: m.tensor([1, 2, 3], dtype=m.int32),
    "bool": lambda m: m.tensor([[True, False], [False, True]]),
    "scalar": lambda m: m.tensor(6.0),
    "scalar_int": lambda m: m.tensor(7),
    "empty": lambda m: m.tensor([]),
    "empty_2d": lambda m: m.zeros(0, 3),
    "negative": lambda m: m.tensor([-1.5, 0.25, 3.0]),
    "scientific": lambda m: m.tensor([[6666.0, 100.0, -100.0], [3.0, 4.0, 5.0]]),
    "tiny": lambda m: m.tensor([1e-10, 1.0]),
    "large_summarized": lambda m: m.arange(2000.0),
    "large_2d_summarized": lambda m: m.arange(3000).view(30, 100),
    "3d": lambda m: m.arange(24).view(2, 3, 4),
    "linspace": lambda m: m.linspace(-10, 10, 4),
    "complex": lambda m: m.tensor([1 + 2j, -0.5j]),
    "uint8": lambda m: m.tensor([1, 200], dtype=m.uint8),
    "inf_nan": lambda m: m.tensor([float("inf"), float("nan"), 1.0]),
    "requires_grad": lambda m: m.ones(2, 2, requires_grad=True),
    "grad_fn": lambda m: m.ones(2, 2, requires_grad=True) + 2,
    "grad_fn_scalar": lambda m: (m.ones(2, 2, requires_grad=True) * 3).mean(),
}


@pytest.mark.parametrize("case", list(REPR_CASES))
def test_repr_matches_torch(backend, case):
    torch = _torch()
    make = REPR_CASES[case]
    assert repr(make(t)) == _torch_repr(make(torch))


def test_str_equals_repr(backend):
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert str(x) == repr(x)


def test_size_repr_matches_torch(backend):
    torch = _torch()
    for shape in ([2, 3], [], [5], [1, 2, 3]):
        assert repr(t.Size(shape)) == repr(torch.Size(shape)).replace("torch.", "xtensor.")
        assert str(t.Size(shape)) == str(torch.Size(shape)).replace("torch.", "xtensor.")
    assert repr(t.zeros(5, 3).shape) == "xtensor.Size([5, 3])"


def test_size_slicing_gives_a_size_and_numel_multiplies(backend):
    s = t.zeros(2, 3, 4).shape
    assert isinstance(s[1:], t.Size) and s[1:] == (3, 4)
    assert s[0] == 2 and isinstance(s[0], int)
    assert s.numel() == 24
    assert t.Size([2, 3]) == (2, 3)


# ------------------------------------------------------------------------------------------ creation

TENSOR_DATA = {
    "ints": [1, 2, 3],
    "floats": [1.0, 2.5],
    "bools": [True, False],
    "mixed_int_float": [1, 2.5],
    "mixed_bool_int": [True, 2],
    "nested": [[1, 2], [3, 4]],
    "python_int_scalar": 3,
    "python_float_scalar": 3.5,
    "python_bool_scalar": True,
    "complex": [1 + 2j, 3.0],
    "empty": [],
    "numpy_float64": np.ones((2, 3), dtype=np.float64),
    "numpy_float32": np.ones(3, dtype=np.float32),
    "numpy_int32": np.arange(3, dtype=np.int32),
    "numpy_int64": np.arange(3, dtype=np.int64),
    "numpy_bool": np.array([True, False]),
    "numpy_uint8": np.arange(3, dtype=np.uint8),
    "numpy_scalar_float64": np.float64(2.0),
}


@pytest.mark.parametrize("case", list(TENSOR_DATA))
def test_tensor_infers_dtype_like_torch(backend, case):
    torch = _torch()
    data = TENSOR_DATA[case]
    x = t.tensor(data)
    tx = torch.tensor(data)
    _same_as_torch(x, tx)


def test_tensor_with_explicit_dtype(backend):
    x = t.tensor([1, 2], dtype=t.float64)
    assert x.dtype == t.float64 and x.tolist() == [1.0, 2.0]


def test_tensor_copies_its_numpy_input(backend):
    a = np.ones(3)
    x = t.tensor(a)
    a[0] = 5
    assert x.tolist() == [1.0, 1.0, 1.0]


FACTORIES = {
    "zeros": lambda m: m.zeros(2, 3),
    "zeros_tuple": lambda m: m.zeros((2, 3)),
    "zeros_long": lambda m: m.zeros(5, 3, dtype=m.long),
    "ones": lambda m: m.ones(2, 3),
    "ones_int32": lambda m: m.ones(4, dtype=m.int32),
    "ones_bool": lambda m: m.ones(2, dtype=m.bool),
    "zeros_0d": lambda m: m.zeros(()),
    "full_float": lambda m: m.full((2, 2), 3.5),
    "full_int": lambda m: m.full((2,), 7),
    "full_bool": lambda m: m.full((2,), True),
    "full_dtype": lambda m: m.full((2, 3), 1, dtype=m.float64),
    "zeros_like": lambda m: m.zeros_like(m.ones(2, 3, dtype=m.int32)),
    "ones_like": lambda m: m.ones_like(m.tensor([[1, 2, 3], [4, 5, 6]])),
    "ones_like_dtype": lambda m: m.ones_like(m.tensor([1, 2]), dtype=m.float64),
    "full_like": lambda m: m.full_like(m.zeros(2, dtype=m.float64), 9),
    "new_zeros": lambda m: m.zeros(2, dtype=m.int32).new_zeros(3, 2),
    "new_ones": lambda m: m.tensor((), dtype=m.int32).new_ones((2, 3)),
    "new_ones_dtype": lambda m: m.zeros(2).new_ones(5, 3, dtype=m.float64),
    "new_full": lambda m: m.zeros(2, dtype=m.float64).new_full((2, 2), 4),
    "new_tensor": lambda m: m.zeros(2, dtype=m.float64).new_tensor([1, 2]),
    "arange_end": lambda m: m.arange(5),
    "arange_start_end_step": lambda m: m.arange(1, 6, 2),
    "arange_float": lambda m: m.arange(1.0, 11.0),
    "arange_float_step": lambda m: m.arange(0, 1, 0.25),
    "arange_negative_step": lambda m: m.arange(1, 0, -0.1),
    "arange_dtype": lambda m: m.arange(4, dtype=m.float64),
    "linspace": lambda m: m.linspace(-10, 10, 5),
    "linspace_one": lambda m: m.linspace(-10, 10, 1),
    "linspace_thirds": lambda m: m.linspace(-10, 10, 4),
    "linspace_dtype": lambda m: m.linspace(0, 1, 3, dtype=m.float64),
    "eye": lambda m: m.eye(3),
    "eye_rect": lambda m: m.eye(2, 3, dtype=m.int),
    "eye_3x4": lambda m: m.eye(3, 4),
}


@pytest.mark.parametrize("case", list(FACTORIES))
def test_factory_matches_torch(backend, case):
    torch = _torch()
    make = FACTORIES[case]
    _same_as_torch(make(t), make(torch))


SHAPE_ONLY_FACTORIES = {
    "empty": lambda m: m.empty(5, 3),
    "empty_dtype": lambda m: m.empty(2, dtype=m.int64),
    "empty_like": lambda m: m.empty_like(m.zeros(2, 3, dtype=m.float64)),
    "new_empty": lambda m: m.zeros(1, dtype=m.int16).new_empty(4, 2),
    "rand": lambda m: m.rand(5, 3),
    "rand_like": lambda m: m.rand_like(m.ones(5, 3, dtype=m.float64), dtype=m.float),
    "randn": lambda m: m.randn(2, 3),
    "randn_tuple": lambda m: m.randn((2, 3)),
    "randn_dtype": lambda m: m.randn(4, dtype=m.float64),
    "randn_like": lambda m: m.randn_like(m.zeros(3, dtype=m.float64)),
    "randint": lambda m: m.randint(0, 10, (3, 4)),
    "randperm": lambda m: m.randperm(10),
    "legacy_Tensor_sizes": lambda m: m.Tensor(2, 3),
}


@pytest.mark.parametrize("case", list(SHAPE_ONLY_FACTORIES))
def test_uninitialized_and_random_factories_match_torch_shape_and_dtype(backend, case):
    torch = _torch()
    make = SHAPE_ONLY_FACTORIES[case]
    x, tx = make(t), make(torch)
    assert tuple(x.shape) == tuple(tx.shape)
    assert _dname(x.dtype) == _dname(tx.dtype)


def test_rand_is_in_unit_interval_and_randn_is_roughly_standard(backend):
    t.manual_seed(0)
    u = np.asarray(t.rand(10000))
    assert u.min() >= 0.0 and u.max() < 1.0
    n = np.asarray(t.randn(10000))
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1.0) < 0.05


def test_randint_is_in_range_and_randperm_is_a_permutation(backend):
    t.manual_seed(1)
    r = np.asarray(t.randint(3, 7, (1000,)))
    assert r.min() >= 3 and r.max() < 7
    assert sorted(t.randperm(10).tolist()) == list(range(10))


def test_manual_seed_makes_draws_reproducible(backend):
    t.manual_seed(1000)
    a = t.randn(3, 4).tolist(), t.rand(5).tolist(), t.randint(0, 100, (6,)).tolist(), t.randperm(8).tolist()
    t.manual_seed(1000)
    b = t.randn(3, 4).tolist(), t.rand(5).tolist(), t.randint(0, 100, (6,)).tolist(), t.randperm(8).tolist()
    assert a == b
    c = t.randn(3, 4).tolist()
    assert c != a[0]  # the generator moved on


def test_manual_seed_gives_identical_values_on_every_backend(backend):
    def draw():
        t.manual_seed(42)
        return t.randn(3, 4).tolist(), t.rand(5).tolist(), t.randint(0, 100, (6,)).tolist(), t.randperm(8).tolist()

    with t.use_backend("numpy"):
        reference = draw()
    assert draw() == reference


def test_legacy_Tensor_constructor_forms(backend):
    torch = _torch()
    assert repr(t.Tensor([[1, 2, 3], [4, 5, 6]])) == _torch_repr(torch.Tensor([[1, 2, 3], [4, 5, 6]]))
    assert repr(t.Tensor((2, 3))) == _torch_repr(torch.Tensor((2, 3)))
    assert repr(t.Tensor()) == _torch_repr(torch.Tensor())
    assert t.Tensor(t.Size([2, 3])).shape == (2, 3)
    assert t.Tensor(2, 3).dtype == t.float32


def test_from_numpy_keeps_dtype(backend):
    torch = _torch()
    for a in (np.ones(5, dtype=int), np.ones((2, 3), dtype=np.float32), np.ones(2, dtype=np.float64)):
        assert _dname(t.from_numpy(a).dtype) == _dname(torch.from_numpy(a).dtype)


def test_requires_grad_keyword_of_factories(backend):
    x = t.ones(2, 2, requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad_fn is None
    assert t.zeros(3).requires_grad is False


# ----------------------------------------------------------------------------------------- promotion
# Grids of dtype pairs: each test reports every mismatching case at once. A case where torch's answer is
# a dtype xtensor does not have (complex32, torch's "chalf", from float16 with complex) is not compared.

def _pairs(backend, skip_bool_pair=False, reduced=False):
    """Every pair of the backend's dtypes; ``reduced`` keeps one or two dtypes per kind (each op on a new
    dtype pair compiles a kernel on jax, so op-based grids other than the main one use fewer pairs)."""
    names = _dtypes_on(backend)
    if reduced:
        names = [n for n in names if n in ("bool", "uint8", "int32", "int64", "float16", "float32", "float64",
                                           "complex64")]
    return [(a, b) for a in names for b in names if not (skip_bool_pair and a == b == "bool")]


def _vec(m, name):
    """A 1-d tensor of dtype ``name`` on module ``m`` (torch or xtensor)."""
    return m.ones(2, dtype=getattr(m, name))


def _zdim(m, name):
    """A 0-dim tensor of dtype ``name`` on module ``m``."""
    return m.tensor(1, dtype=getattr(m, name))


def _mismatches(compute_ours, compute_torch, cases):
    bad = []
    for case in cases:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's "ComplexHalf support is experimental"
                expected = _dname(compute_torch(*case))
        except (RuntimeError, TypeError):
            continue  # torch refuses the combination: nothing to compare
        if expected not in DTYPE_NAMES:
            continue
        try:
            got = _dname(compute_ours(*case))
        except Exception as e:  # noqa: BLE001 - report every failure at once
            got = f"{type(e).__name__}: {e}"[:100]
        if got != expected:
            bad.append((case, got, expected))
    return bad


def _xfail_if(request, condition, reason):
    if condition:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


def test_result_type_of_two_tensors_matches_torch(backend):
    torch = _torch()
    bad = _mismatches(
        lambda a, b: t.result_type(_vec(t, a), _vec(t, b)),
        lambda a, b: torch.result_type(_vec(torch, a), _vec(torch, b)),
        _pairs(backend))
    assert not bad


def test_promote_types_matches_torch(backend):
    torch = _torch()
    bad = _mismatches(lambda a, b: t.promote_types(getattr(t, a), getattr(t, b)),
                      lambda a, b: torch.promote_types(getattr(torch, a), getattr(torch, b)), _pairs(backend))
    assert not bad


def test_add_of_two_tensors_result_dtype_matches_torch(backend):
    torch = _torch()
    bad = _mismatches(lambda a, b: (_vec(t, a) + _vec(t, b)).dtype,
                      lambda a, b: (_vec(torch, a) + _vec(torch, b)).dtype,
                      _pairs(backend, skip_bool_pair=True))
    assert not bad


def test_true_division_result_dtype_matches_torch(backend):
    torch = _torch()
    bad = _mismatches(lambda a, b: (_vec(t, a) / _vec(t, b)).dtype,
                      lambda a, b: (_vec(torch, a) / _vec(torch, b)).dtype,
                      _pairs(backend))
    assert not bad


def test_add_and_mul_of_bool_tensors_stay_bool_like_torch(backend):
    torch = _torch()
    a, b = [True, True, False], [True, False, False]
    for f in (lambda x, y: x + y, lambda x, y: x * y):
        r, tr = f(t.tensor(a), t.tensor(b)), f(torch.tensor(a), torch.tensor(b))
        assert r.dtype == t.bool and r.tolist() == tr.tolist()


NUMBER_SCALARS = [2, 2.5, 1 + 2j]


def test_result_type_with_python_scalar_matches_torch(backend):
    torch = _torch()
    cases = [(d, s) for d in _dtypes_on(backend) for s in NUMBER_SCALARS + [True]]
    bad = _mismatches(lambda d, s: t.result_type(_vec(t, d), s),
                      lambda d, s: torch.result_type(_vec(torch, d), s), cases)
    assert not bad


@pytest.mark.parametrize("side", ["tensor_left", "scalar_left"])
def test_binary_op_with_python_number_scalar_result_dtype_matches_torch(backend, side):
    torch = _torch()
    cases = [(d, s) for d in _dtypes_on(backend) for s in NUMBER_SCALARS]
    if side == "scalar_left":  # fewer cases: each new dtype/scalar combination compiles a kernel on jax
        cases = [(d, s) for d, s in cases if not isinstance(s, complex)]
    if side == "tensor_left":
        ours = lambda d, s: (_vec(t, d) * s).dtype  # noqa: E731
        theirs = lambda d, s: (_vec(torch, d) * s).dtype  # noqa: E731
    else:
        ours = lambda d, s: (s + _vec(t, d)).dtype  # noqa: E731
        theirs = lambda d, s: (s + _vec(torch, d)).dtype  # noqa: E731
    assert not _mismatches(ours, theirs, cases)


def test_binary_op_with_python_bool_scalar_keeps_tensor_dtype(backend, request):
    torch = _torch()
    cases = [(d, True) for d in _dtypes_on(backend)]
    assert not _mismatches(lambda d, s: (_vec(t, d) * s).dtype,
                           lambda d, s: (_vec(torch, d) * s).dtype, cases)
    assert not _mismatches(lambda d, s: (s + _vec(t, d)).dtype,
                           lambda d, s: (s + _vec(torch, d)).dtype, cases)


def test_binary_op_with_python_scalar_keeps_values(backend):
    torch = _torch()
    for f in (lambda m: m.tensor([1, 2, 3], dtype=m.int32) * 2.5,
              lambda m: m.tensor([1, 2, 3], dtype=m.int32) + 1,
              lambda m: 10 - m.tensor([1, 2, 3], dtype=m.int16),
              lambda m: m.tensor([1.5, 2.0]) / 2,
              lambda m: 2 ** m.tensor([1.0, 3.0])):
        _same_as_torch(f(t), f(torch))


def test_out_of_range_python_int_scalar_wraps_like_torch(backend, request):
    torch = _torch()
    for f in (lambda m: m.tensor([1, 2], dtype=m.uint8) + 300, lambda m: m.tensor([1, 2], dtype=m.uint8) * -3):
        r, tr = f(t), f(torch)
        assert r.dtype == t.uint8 and r.tolist() == tr.tolist()


def test_zero_dim_tensor_participates_like_a_scalar_in_promotion(backend):
    torch = _torch()
    bad = _mismatches(
        lambda a, b: t.result_type(_vec(t, a), _zdim(t, b)),
        lambda a, b: torch.result_type(_vec(torch, a), _zdim(torch, b)),
        _pairs(backend))
    assert not bad


def test_op_with_zero_dim_tensor_result_dtype_matches_torch(backend):
    torch = _torch()
    bad = _mismatches(
        lambda a, b: (_vec(t, a) + _zdim(t, b)).dtype,
        lambda a, b: (_vec(torch, a) + _zdim(torch, b)).dtype,
        _pairs(backend, skip_bool_pair=True, reduced=True))
    assert not bad


def test_two_zero_dim_tensors_promote_as_tensors(backend):
    torch = _torch()
    bad = _mismatches(
        lambda a, b: (_zdim(t, a) + _zdim(t, b)).dtype,
        lambda a, b: (_zdim(torch, a) + _zdim(torch, b)).dtype,
        _pairs(backend, skip_bool_pair=True, reduced=True))
    assert not bad


def test_default_dtype_governs_int_times_float_scalar(backend):
    assert t.get_default_dtype() == t.float32
    t.set_default_dtype(t.float64)
    try:
        assert (t.tensor([1, 2]) * 2.5).dtype == t.float64
        assert t.tensor([1.5]).dtype == t.float64
        assert t.get_default_dtype() == t.float64
    finally:
        t.set_default_dtype(t.float32)
    assert t.tensor([1.5]).dtype == t.float32


def test_comparison_results_are_bool(backend):
    x = t.tensor([1.0, 2.0, 3.0])
    assert (x > 1).dtype == t.bool and (x > 1).tolist() == [False, True, True]
    assert (x == t.tensor([1, 5, 3])).tolist() == [True, False, True]


# =========================================================================== dtypes (seed 004, table 3-2)
def test_can_cast_matches_torch_for_every_pair(backend):
    torch = _torch()
    bad = _mismatches(lambda a, b: t.can_cast(getattr(t, a), getattr(t, b)),
                      lambda a, b: torch.can_cast(getattr(torch, a), getattr(torch, b)), _pairs(backend))
    assert not bad


@pytest.mark.parametrize("expr", [
    "T.result_type(T.tensor([1]), 1.0)", "T.result_type(T.tensor([1], dtype=T.int8), 1000)",
    "T.result_type(T.tensor(1.), T.tensor([1]))", "T.result_type(T.tensor([1], dtype=T.uint8), T.tensor(1, dtype=T.int8))",
    "T.result_type(2, 3.0)", "T.result_type(True, T.tensor([1], dtype=T.int16))",
    "T.result_type(T.tensor([1], dtype=T.int8), 2.5)", "T.result_type(T.tensor([1]), 1j)",
])
def test_result_type_with_scalars_and_zero_dim_tensors_matches_torch(backend, expr):
    torch = _torch()
    assert repr(eval(expr, {"T": t})) == repr(eval(expr, {"T": torch})).replace("torch.", "xtensor.")


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(name):
    torch = _torch()
    ours, theirs = t.finfo(getattr(t, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    torch = _torch()
    ours, theirs = t.iinfo(getattr(t, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)


def test_finfo_without_a_dtype_is_the_default_float():
    assert t.finfo().bits == 32


def test_element_size_matches_torch_for_every_dtype(backend):
    torch = _torch()
    for name in _dtypes_on(backend):
        assert t.zeros(1, dtype=getattr(t, name)).element_size() == \
            torch.zeros(1, dtype=getattr(torch, name)).element_size(), name


def test_is_floating_point_as_method_and_function(backend):
    assert t.tensor([1.]).is_floating_point() and t.is_floating_point(t.tensor([1.], dtype=t.float64))
    assert not t.tensor([1]).is_floating_point() and not t.tensor([1j]).is_floating_point()


@pytest.mark.parametrize("target", ["'torch.IntTensor'", "'torch.DoubleTensor'", "T.int64", "T.LongTensor",
                                    "T.BoolTensor", "'torch.ByteTensor'"])
def test_type_with_a_new_type_converts_like_torch(backend, target):
    torch = _torch()
    expr = f"T.tensor([1.5, -2.5, 0.]).type({target})"
    assert repr(eval(expr, {"T": t})) == _torch_repr(eval(expr, {"T": torch}))


@pytest.mark.parametrize("cast", ["float", "double", "long", "int", "bool", "short", "char", "byte"])
def test_cast_methods_match_torch(backend, cast):
    torch = _torch()
    values = [1.7, -2.2, 0.0, 3.0]
    assert repr(getattr(t.tensor(values), cast)()) == _torch_repr(getattr(torch.tensor(values), cast)())


def test_half_cast_matches_torch():
    torch = _torch()
    assert repr(t.tensor([1.5, 2.25]).half()) == _torch_repr(torch.tensor([1.5, 2.25]).half())


@pytest.mark.parametrize("args", ["T.float64", "T.int32", "dtype=T.int8", "'cpu', T.float64",
                                  "T.device('cpu'), dtype=T.int16", "T.tensor([1], dtype=T.uint8)"])
def test_to_converts_like_torch(backend, args):
    torch = _torch()
    expr = f"T.tensor([1.5, 2.5]).to({args})"
    assert repr(eval(expr, {"T": t})) == _torch_repr(eval(expr, {"T": torch}))


def test_to_the_same_dtype_returns_the_tensor_itself(backend):
    x = t.tensor([1., 2.])
    assert x.to(t.float32) is x and x.to(t.float32, copy=True) is not x


def test_set_default_tensor_type_and_dtype_govern_new_floats(backend):
    try:
        t.set_default_tensor_type("torch.DoubleTensor")
        assert t.get_default_dtype() is t.float64 and t.rand(2).dtype is t.float64 and t.tensor([1.]).dtype is t.float64
        t.set_default_tensor_type(t.FloatTensor)
        assert t.get_default_dtype() is t.float32 and t.Tensor([1]).dtype is t.float32
        t.set_default_dtype(t.float64)
        assert t.zeros(1).dtype is t.float64 and t.tensor([1]).dtype is t.int64
    finally:
        t.set_default_dtype(t.float32)


def test_set_default_dtype_refuses_integer_types():
    torch = _torch()
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)
    with pytest.raises(TypeError):
        t.set_default_dtype(t.int64)


# =========================================================================== devices
def test_device_objects_print_like_torch():
    torch = _torch()
    for spec in ("'cpu'", "'cuda'", "'cuda:0'", "'cuda', 1"):
        ours, theirs = eval(f"T.device({spec})", {"T": t}), eval(f"T.device({spec})", {"T": torch})
        assert (repr(ours), str(ours), ours.type, ours.index) == (repr(theirs), str(theirs), theirs.type, theirs.index)


def test_bad_device_string_raises_runtime_error():
    with pytest.raises(RuntimeError, match="device type"):
        t.device("gpu")


def test_cpu_and_to_cpu_keep_the_tensor_on_the_host(backend):
    x = t.tensor([1., 2.])
    assert x.cpu().device == t.device("cpu") and x.to("cpu").device.type == "cpu"
    assert t.ones(2, device="cpu").device.type == "cpu"


def _without_cuda(backend):
    if t.cuda.is_available():
        pytest.skip("this machine has a CUDA device for the default backend")


@pytest.mark.parametrize("expr", ["T.ones(2).cuda()", "T.ones(2).to('cuda')", "T.ones(2, device='cuda')",
                                  "T.ones(2).to(T.device('cuda:0'))", "T.ones(2).cuda(0)", "T.cuda.current_device()",
                                  "T.tensor([1.]).new_zeros(2, device='cuda')",
                                  "T.tensor([1.]).new_tensor([2.], device='cuda')"])
def test_cuda_without_a_gpu_raises_torchs_error(backend, expr):
    _without_cuda(backend)
    torch = _torch()
    with pytest.raises(BaseException) as expected:
        eval(expr, {"T": torch})
    with pytest.raises(BaseException) as actual:
        eval(expr, {"T": t})
    assert (actual.type, str(actual.value)) == (expected.type, str(expected.value))


def test_cuda_is_available_and_device_count_agree(backend):
    assert t.cuda.is_available() == (t.cuda.device_count() > 0)
    if backend == "numpy":
        assert not t.cuda.is_available()


# =========================================================================== NumPy interop
def test_from_numpy_shares_memory_both_ways_on_every_backend(backend):
    a = np.ones(3, dtype=np.float32)
    b = t.from_numpy(a)
    a[0] = 5
    b[1] = 7
    assert b.tolist() == [5., 7., 1.] and a.tolist() == [5., 7., 1.]


def test_from_numpy_tensor_meets_tensors_of_the_default_backend(backend):
    out = t.from_numpy(np.array([1., 2.])) + t.tensor([1., 1.], dtype=t.float64)
    assert out.tolist() == [2., 3.]


def test_numpy_shares_memory_both_ways_on_numpy():
    with t.use_backend("numpy"):
        x = t.ones(3)
        a = x.numpy()
        x += 1
        a[0] = 9
        assert a.tolist() == [9., 2., 2.] and x.tolist() == [9., 2., 2.]


def test_numpy_on_jax_is_a_read_only_snapshot():
    pytest.importorskip("jax")
    with t.use_backend("jax"):
        x = t.ones(3)
        a = x.numpy()
        x += 1
        assert a.tolist() == [1., 1., 1.] and x.tolist() == [2., 2., 2.]
        with pytest.raises(ValueError, match="read-only"):
            a += 1


def test_tensor_copies_its_input_on_every_backend(backend):
    a = np.ones(2)
    x = t.tensor(a)
    a[0] = 3
    x[1] = 4
    assert x.tolist() == [1., 4.] and a.tolist() == [3., 1.]


def test_Tensor_of_an_ndarray_converts_to_the_default_float(backend):
    a = np.array([1., 2.])
    x = t.Tensor(a)
    a[0] = 9
    assert x.dtype is t.float32 and x.tolist() == [1., 2.]


def test_as_tensor_shares_a_tensor_of_the_right_dtype_and_converts_otherwise(backend):
    x = t.tensor([1., 2.])
    assert t.as_tensor(x) is x
    assert t.as_tensor(x, dtype=t.float64).dtype is t.float64
    assert t.as_tensor([1, 2]).dtype is t.int64


def test_array_protocol_tolist_and_item(backend):
    x = t.tensor([[1, 2]])
    assert np.asarray(x).dtype == np.int64 and np.array(x, dtype=np.float64).dtype == np.float64
    assert x.tolist() == [[1, 2]] and t.tensor([[2.5]]).item() == 2.5
    assert type(t.tensor(3).item()) is int and type(t.tensor(True).item()) is bool


# =========================================================================== storage (seed 004, 3.1.3)
def test_storage_is_shared_by_views_and_lists_all_elements(backend):
    a = t.arange(0, 6).float()
    b = a.view(2, 3)
    c = a[2:]
    assert a.storage() == b.storage() == c.storage()
    assert c.storage().tolist() == [0., 1., 2., 3., 4., 5.] and len(c.storage()) == 6


def test_data_ptr_difference_is_in_bytes(backend):
    a = t.arange(0, 6).float()
    assert a[2:].data_ptr() - a.data_ptr() == 8
    d = a.double()
    assert d[2:].data_ptr() - d.data_ptr() == 16


def test_storage_offsets_as_the_seed_shows(backend):
    a = t.arange(0, 6).float()
    c = a[2:]
    d = t.Tensor(c.storage())
    assert (a.storage_offset(), c.storage_offset(), d.storage_offset()) == (0, 2, 0)


def test_Tensor_of_a_storage_shares_its_memory(backend):
    a = t.arange(0, 6).float()
    b = a.view(2, 3)
    d = t.Tensor(a[2:].storage())
    d[0] = 6666
    assert b.tolist() == [[6666., 1., 2.], [3., 4., 5.]]


def test_strided_view_shares_storage_and_is_not_contiguous(backend):
    a = t.arange(0, 6).float()
    e = a.view(2, 3)[::2, ::2]
    assert e.storage() == a.storage() and not e.is_contiguous()


# =========================================================================== named tensors (seed 004)
def test_names_on_factories(backend):
    assert t.randn(1, 2, 2, 3, names=("N", "C", "H", "W")).names == ("N", "C", "H", "W")
    assert t.zeros(2, 3, names=("A", None)).names == ("A", None)
    assert t.tensor([1, 2], names=("X",)).names == ("X",)
    assert t.ones(2).names == (None,)


def test_transpose_permute_and_t_carry_names(backend):
    imgs = t.randn(1, 2, 2, 3, names=("N", "C", "H", "W"))
    assert imgs.transpose(2, 3).names == ("N", "C", "W", "H")
    assert imgs.permute(3, 0, 2, 1).names == ("W", "N", "H", "C")
    assert t.zeros(2, 3, names=("A", "B")).t().names == ("B", "A")


def test_refine_names_names_unnamed_dims(backend):
    x = t.rand(1, 3, 2, 2).refine_names("N", None, "H", "W")
    assert x.names == ("N", None, "H", "W")


def test_refine_names_refuses_to_change_a_name(backend):
    with pytest.raises(RuntimeError, match="refine_names"):
        t.zeros(2, names=("A",)).refine_names("B")


def test_rename_maps_some_names_and_shares_memory(backend):
    imgs = t.zeros(1, 2, 2, 3, names=("N", "C", "H", "W"))
    renamed = imgs.rename(H="height", W="width")
    renamed[0, 0, 0, 0] = 5
    assert renamed.names == ("N", "C", "height", "width") and imgs[0, 0, 0, 0].item() == 5
    assert imgs.names == ("N", "C", "H", "W") and imgs.rename(None).names == (None,) * 4


def test_align_to_permutes_by_name(backend):
    x = t.arange(24.).view(1, 2, 3, 4).rename("N", "C", "height", "width")
    y = x.align_to("N", "height", "width", "C")
    assert y.names == ("N", "height", "width", "C") and y.shape == (1, 3, 4, 2)
    np.testing.assert_array_equal(np.asarray(y.rename(None)), np.asarray(x.rename(None)).transpose(0, 2, 3, 1))


def test_align_to_with_ellipsis_keeps_the_other_dims_in_order(backend):
    x = t.zeros(2, 3, 4, names=("A", "B", "C"))
    assert x.align_to("C", "...").names == ("C", "A", "B")


def test_duplicate_or_miscounted_names_raise_runtime_error(backend):
    with pytest.raises(RuntimeError, match="duplicate"):
        t.zeros(2, 2, names=("A", "A"))
    with pytest.raises(RuntimeError, match="Number of names"):
        t.zeros(2, 2, names=("A",))


def test_names_survive_copies_and_detach(backend):
    x = t.zeros(2, 3, names=("A", "B"))
    assert x.clone().names == x.detach().names == x.double().names == ("A", "B")




@pytest.mark.parametrize("expression", ["0.5 // b", "b // 0.5", "b % 0.5", "b // 2", "2.5 % b"])
def test_operators_on_bools_with_a_number_of_a_higher_kind_compute_in_the_promoted_dtype(backend, expression):
    """Found by the differential fuzzer: the fast path checked the op's refusal of bools on the tensor's own dtype
    (``"floor_divide" not implemented for 'Bool'``) where PyTorch computes in the promoted float/int dtype."""
    torch = pytest.importorskip("torch")
    ours = eval(expression, {"b": t.tensor([True, False])})
    theirs = eval(expression, {"b": torch.tensor([True, False])})
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "xtensor")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", ["sign", "square"])
def test_sign_and_square_of_bools_as_torch(backend, op):
    """Found by the differential fuzzer: sign of bools leaked numpy's ufunc error; square (PyTorch: pow(x, 2)) of
    bools is int64."""
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(t, op)(t.tensor([True, False])), getattr(torch, op)(torch.tensor([True, False]))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "xtensor")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_float_predicates_of_bools_as_torch(backend, op):
    """Found by the differential fuzzer (fmin's gradient under create_graph asks isnan of a bool operand):
    array_api_strict refused bools; a bool is never NaN nor infinite."""
    torch = pytest.importorskip("torch")
    for form in (lambda m, x: getattr(m, op)(x), lambda m, x: getattr(x, op)()):
        ours, theirs = form(t, t.tensor([True, False])), form(torch, torch.tensor([True, False]))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("expression", ["i ** -1", "i ** torch.tensor([-1, 2, -3])", "2 ** torch.tensor([-1, 2, 3])",
                                        "torch.tensor([-1, 1, 3]) ** torch.tensor([-3, -2, -1])"])
def test_integers_to_negative_integer_powers_as_torch(backend, expression):
    """Found by the differential fuzzer: a negative Python exponent is PyTorch's RuntimeError (was the backend's
    ValueError/TypeError); negative exponents in a tensor give 0 unless the base is 1 or -1 (numpy refused them)."""
    torch = pytest.importorskip("torch")

    def run(ns):
        try:
            return eval(expression, {"torch": ns, "i": ns.tensor([2, -1, 1])}).numpy()
        except RuntimeError as e:
            return str(e)
    np.testing.assert_equal(run(t), run(torch))


@pytest.mark.parametrize("expression", ["torch.add(b, b, alpha=2)", "torch.add(i, b, alpha=2)",
                                        "i.sub(b.int(), alpha=3)", "torch.add(i, 2, alpha=2)",
                                        "torch.add(b, True, alpha=2)"])
def test_alpha_scales_in_the_result_dtype_as_torch(backend, expression):
    """Found by the differential fuzzer: ``alpha * other`` was computed before promotion (int64 for bools)."""
    torch = pytest.importorskip("torch")
    ours = eval(expression, {"torch": t, "b": t.tensor([True, False]), "i": t.tensor([1, 2], dtype=t.int32)})
    theirs = eval(expression, {"torch": torch, "b": torch.tensor([True, False]),
                               "i": torch.tensor([1, 2], dtype=torch.int32)})
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "xtensor")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("expression", ["b - 1.5", "x - True", "x - b", "1.5 - b", "torch.sub(x, b, alpha=2)",
                                        "b - True", "x.clone().sub_(b)"])
def test_subtraction_with_any_bool_operand_is_refused_as_torch(backend, expression):
    """Found by the differential fuzzer: PyTorch refuses a bool operand of ``-`` even when the other is not."""
    torch = pytest.importorskip("torch")
    messages = []
    for ns in (t, torch):
        with pytest.raises(RuntimeError) as e:
            eval(expression, {"torch": ns, "b": ns.tensor([True, False]), "x": ns.ones(2)})
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_relu_keeps_nan_and_passes_its_gradient_as_torch(backend):
    """Found by the differential fuzzer: relu is clamp_min(x, 0) in PyTorch, so NaN stays NaN (was 0)."""
    x = t.tensor([float("nan"), -1.0, 2.0], requires_grad=True)
    y = x.relu()
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), [np.nan, 0.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 1.0])
