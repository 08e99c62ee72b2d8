"""Tensors made by ``xtensor.array_api`` follow its rules in their operators and indexing; PyTorch-style tensors keep
PyTorch's (``xtensor/array_api/_array.py``).

Oracles: NumPy for the array API's dtypes and values (its defaults are the namespace's: float64, integer arrays
meeting float32 ones give float64, Python scalars are weak), PyTorch 2.13 for the PyTorch-style tensors.
"""
import copy
import pickle
import threading

import numpy as np
import pytest
import torch

import xtensor as xt
import xtensor.array_api as xa
from xtensor.array_api._array import ArrayAPITensor

INTS = [1, 2, 3]

# (name, the operation over two operands) -- every operand an integer array unless the case says otherwise
_OPERATIONS = {
    "ints / ints": lambda m, a, b: a / b,
    "ints * 0.5": lambda m, a, b: a * 0.5,
    "0.5 * ints": lambda m, a, b: 0.5 * a,
    "ints ** 0.5": lambda m, a, b: a ** 0.5,
    "ints / 2": lambda m, a, b: a / 2,
    "2 / ints": lambda m, a, b: 2 / a,
    "ints + float32": lambda m, a, b: a + m.asarray([0.5, 1.5, 2.5], dtype=m.float32),
    "float32 * ints": lambda m, a, b: m.asarray([0.5, 1.5, 2.5], dtype=m.float32) * a,
    "float32 * 2": lambda m, a, b: m.asarray([0.5, 1.5, 2.5], dtype=m.float32) * 2,
    "ints @ float32": lambda m, a, b: a @ m.asarray([0.5, 1.5, 2.5], dtype=m.float32),
    "float64 @ ints": lambda m, a, b: m.asarray([0.5, 1.5, 2.5], dtype=m.float64) @ b,
    "ints // ints": lambda m, a, b: a // b,
    "ints < 1.5": lambda m, a, b: a < 1.5,
    "-ints": lambda m, a, b: -a,
}


@pytest.mark.parametrize("operation", list(_OPERATIONS))
def test_operators_of_array_api_tensors_follow_the_namespace_as_numpy(backend, operation):
    compute = _OPERATIONS[operation]
    ours = compute(xa, xa.asarray(INTS), xa.asarray([3, 1, 2]))
    expected = compute(np, np.asarray(INTS), np.asarray([3, 1, 2]))
    assert type(ours) is ArrayAPITensor
    assert ours.dtype.name == expected.dtype.name
    np.testing.assert_allclose(ours.numpy(), expected)


@pytest.mark.parametrize("operation", ["ints / ints", "ints * 0.5", "ints ** 0.5", "ints + float32", "float32 * ints",
                                       "ints @ float32"])
def test_operators_of_pytorch_style_tensors_keep_pytorchs_rules(backend, operation):
    compute = _OPERATIONS[operation]
    xa.sin(xa.asarray(INTS))  # the namespace used before leaves nothing behind
    assert _outcome(lambda: compute(_PytorchStyle(xt), xt.tensor(INTS), xt.tensor([3, 1, 2]))) == \
        _outcome(lambda: compute(_PytorchStyle(torch), torch.tensor(INTS), torch.tensor([3, 1, 2])))


def _outcome(call):
    """("returns", dtype name) of a plain tensor, or ("raises", exception type)."""
    try:
        r = call()
    except Exception as e:  # noqa: BLE001  (the outcome is what is compared)
        return ("raises", type(e))
    assert type(r) in (xt.Tensor, torch.Tensor)
    return ("returns", str(r.dtype).split(".")[-1])


class _PytorchStyle:
    """``asarray``/``float32`` spelled by a PyTorch-style module (``tensor``)."""

    def __init__(self, module):
        self.asarray, self.float32 = module.tensor, module.float32


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int32", "int64"), ("int64", "float32")])
def test_matmul_promotes_as_the_standard_asks(backend, dtypes):
    x1, x2 = (xa.ones((2, 2), dtype=getattr(xa, d)) for d in dtypes)
    expected = np.result_type(*dtypes).name
    assert xa.matmul(x1, x2).dtype.name == (x1 @ x2).dtype.name == xa.linalg.matmul(x1, x2).dtype.name == expected


@pytest.mark.parametrize("api_left", [True, False], ids=["api-left", "api-right"])
def test_mixed_operands_follow_the_array_api_on_either_side(backend, api_left):
    api, plain = xa.asarray(INTS), xt.tensor([3, 1, 2])
    result = api / plain if api_left else plain / api
    assert type(result) is ArrayAPITensor and result.dtype is xa.float64
    assert type(plain) is xt.Tensor


def test_in_place_operators_keep_the_tensor_and_its_class(backend):
    x = xa.asarray([1.0, 2.0, 3.0])
    alias = x
    x += 1
    x *= xa.asarray(2.0)
    assert x is alias and type(x) is ArrayAPITensor
    assert x.tolist() == [4.0, 6.0, 8.0]


def test_a_negative_slice_step_reverses_an_array_api_tensor_with_its_gradient(backend):
    x = xa.asarray([0.0, 1.0, 2.0, 3.0, 4.0])
    x.requires_grad_()
    y = x[::-2]
    assert type(y) is ArrayAPITensor and y.tolist() == np.arange(5.0)[::-2].tolist()
    (y * xa.asarray([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 2.0, 0.0, 1.0]
    assert type(x.grad) is xt.Tensor  # gradients are plain tensors


def test_assignment_through_a_reversed_slice_reaches_the_aliases(backend):
    want = np.arange(24.0).reshape(4, 6)
    x = xa.asarray(want.copy(), copy=True)
    alias = x[1:]
    x[:, ::-1] = xa.asarray(-want)
    want[:, ::-1] = -want
    assert x.tolist() == want.tolist() and alias.tolist() == want[1:].tolist()


def test_threads_writing_disjoint_slices_of_one_array_keep_every_write(backend):
    # scikit-learn's pairwise_distances(n_jobs=2): threads fill the column blocks of one transposed output. On an
    # immutable backend each write replaces the storage's array; two at once must not both start from the old one.
    rows = [xa.full((16,), float(i + 1), dtype=xa.float64) for i in range(8)]
    for _ in range(10):  # without the lock most rounds lose a write
        out = xa.zeros((8, 16), dtype=xa.float64).T
        start = threading.Barrier(len(rows))

        def fill(i):
            start.wait()
            out[:, i] = rows[i]

        threads = [threading.Thread(target=fill, args=(i,)) for i in range(len(rows))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert out.T.tolist() == np.repeat(np.arange(1.0, 9.0)[:, None], 16, axis=1).tolist()


@pytest.mark.parametrize("make", [
    lambda x: x[0], lambda x: x.T, lambda x: x.mT, lambda x: x.to_device(x.device), lambda x: list(x)[1],
    lambda x: xa.sum(x), lambda x: xa.astype(x, xa.float32), lambda x: xa.linalg.svdvals(x),
    lambda x: xa.reshape(x, (4,)), lambda x: xa.fft.fft(x), lambda x: xa.special.erf(x),
], ids=["getitem", "T", "mT", "to_device", "iteration", "sum", "astype", "linalg.svdvals", "reshape", "fft.fft",
        "special.erf"])
def test_namespace_functions_and_array_members_return_array_api_tensors(backend, make):
    result = make(xa.asarray([[1.0, 2.0], [3.0, 4.0]]))
    assert type(result) is ArrayAPITensor and isinstance(result, xt.Tensor)


@pytest.mark.parametrize("make", [
    lambda: xa.meshgrid(xa.asarray([1, 2]), xa.asarray([3])), lambda: xa.nonzero(xa.asarray([0, 1, 1])),
    lambda: xa.linalg.eigh(xa.asarray([[2.0, 1.0], [1.0, 2.0]])), lambda: xa.unique_all(xa.asarray([1, 1, 2])),
], ids=["meshgrid", "nonzero", "linalg.eigh", "unique_all"])
def test_every_array_of_a_tuple_or_list_result_is_marked(backend, make):
    assert all(type(r) is ArrayAPITensor for r in make())


def test_a_tensor_the_namespace_hands_back_keeps_its_class(backend):
    plain = xt.tensor(INTS)
    assert xa.asarray(plain) is plain and type(plain) is xt.Tensor
    assert plain.__array_namespace__() is xa
    assert type(xa.asarray(plain, copy=True)) is ArrayAPITensor


def test_pytorch_style_methods_and_functions_give_plain_tensors(backend):
    x = xa.asarray([1.0, 2.0])
    assert type(x.sum()) is xt.Tensor and type(xt.sin(x)) is xt.Tensor
    assert type(xt.from_dlpack(np.arange(3))) is xt.Tensor and type(xa.from_dlpack(np.arange(3))) is ArrayAPITensor


def test_an_array_api_tensor_prints_and_names_itself(backend):
    x = xa.asarray([1.5, 2.0])
    assert repr(x) == repr(xt.tensor([1.5, 2.0], dtype=xt.float64)) == "tensor([1.5000, 2.0000], dtype=xtensor.float64)"
    assert type(x).__name__ == "ArrayAPITensor"
    assert {x: 1}[x] == 1  # hashable as a Tensor (defining ``__eq__`` does not drop it)


def test_pickle_and_deepcopy_keep_the_class_while_save_loads_a_plain_tensor(backend, tmp_path):
    x = xa.asarray([[1, 2], [3, 4]])
    for copied in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert type(copied) is ArrayAPITensor and copied.tolist() == x.tolist()
    xt.save({"x": x}, tmp_path / "x.pt")
    loaded = xt.load(tmp_path / "x.pt")["x"]
    assert type(loaded) is xt.Tensor and loaded.tolist() == x.tolist() and loaded.dtype is xt.int64


def test_jax_transformations_and_compile_keep_the_class():
    jax = pytest.importorskip("jax")
    with xt.use_backend("jax"):
        ints = xa.asarray(INTS)
        halved = jax.jit(lambda x: x / 2)(ints)
        assert type(halved) is ArrayAPITensor and halved.dtype is xa.float64
        assert type(jax.jit(lambda x: x / 2)(xt.tensor(INTS))) is xt.Tensor
        compiled = xt.compile(lambda x: x / 2)
        results = [compiled(x) for x in (ints, xt.tensor(INTS), ints)]  # one program per class: they differ
        assert [(type(r), r.dtype) for r in results] == [(ArrayAPITensor, xa.float64), (xt.Tensor, xt.float32),
                                                         (ArrayAPITensor, xa.float64)]


def test_sharding_an_array_api_tensor_keeps_its_class():
    jax = pytest.importorskip("jax")
    with xt.use_backend("jax"):
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("batch",))
        sharded = jax.device_put(xa.asarray([1.0, 2.0]), jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec()))
        assert type(sharded) is ArrayAPITensor and sharded.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("call", [
    lambda: xa.linalg.vector_norm(xa.asarray(INTS)), lambda: xa.linalg.inv(xa.asarray([[1, 0], [0, 1]])),
    lambda: xa.linalg.solve(xa.asarray([[1, 0], [0, 1]]), xa.asarray([1, 2])),
], ids=["vector_norm", "inv", "solve"])
def test_linalg_of_integers_names_the_standards_rule(backend, call):
    with pytest.raises(TypeError, match=r"requires floating-point input .*got xtensor\.int64"):
        call()


@pytest.mark.parametrize("obj", [None, [1, None], "a"], ids=["None", "None in a list", "str"])
def test_asarray_of_a_non_number_names_it(backend, obj):
    with pytest.raises(TypeError, match=r"asarray\(\): Unsupported value .* of type (NoneType|str)"):
        xa.asarray(obj)
    with pytest.raises(TypeError, match="Unsupported value"):  # also with a dtype, where NumPy would make a NaN
        xa.asarray(obj, dtype=xa.float64)


def test_linspace_and_arange_take_zero_dimensional_arrays_for_their_scalars(backend):
    np.testing.assert_allclose(xa.linspace(xa.asarray(0.0), xa.asarray(1.0), 5).numpy(), np.linspace(0.0, 1.0, 5))
    np.testing.assert_array_equal(xa.arange(xa.asarray(1), xa.asarray(7), xa.asarray(2)).numpy(), np.arange(1, 7, 2))


def test_asarray_copies_a_numpy_array_with_negative_strides_and_refuses_to_share_it():
    reversed_ = np.arange(5.0)[::-1]
    np.testing.assert_array_equal(xa.asarray(reversed_).numpy(), reversed_)
    with pytest.raises(ValueError, match="negative strides"):
        xa.asarray(reversed_, copy=False)
