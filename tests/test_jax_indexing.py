"""On jax, an eager read ``x[index]`` with a host index (ints, slices, index arrays, masks) runs as one cached
``jax.jit`` program per index structure (``ops/indexing.py``: ``_read``), the index's values its arguments: the values
are ``jax.numpy``'s, one program serves every value of an index of one structure, a traced program keeps jnp's own
primitives, and errors stay PyTorch's (checked on the host before the program runs)."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import xtensor as t  # noqa: E402
from xtensor._index import normalize_index  # noqa: E402
from xtensor.ops.indexing import _structure, getitem_copy  # noqa: E402

torch = pytest.importorskip("torch")

_VALUES = np.arange(5 * 4 * 3, dtype=np.float32).reshape(5, 4, 3)

INDEXES = {
    "int": (2,),
    "negative-int": (-1,),
    "step-slice": (slice(1, 5, 2),),
    "empty-slice": (slice(3, 1),),
    "int-slice-none": (1, slice(1, 3), None),
    "negative-array": (np.array([-1, 0, -5]),),
    "repeated-array": (np.array([3, 3, 0, 3]),),
    "empty-array": (np.array([], dtype=np.int64),),
    "array-slice": (np.array([4, 0]), slice(1, 3)),
    "slice-array-int": (slice(1, 4), np.array([[0, 3], [2, 2]]), -2),
    "split-arrays": (np.array([0, 4]), slice(None), np.array([2, 1])),  # the indexed dims go first
    "ellipsis-array": (Ellipsis, np.array([2, 0])),
    "mask": (_VALUES[:, :, 0] % 3 == 0,),
    "row-mask-slice": (np.array([True, False, True, True, False]), slice(2, None)),
}


@pytest.fixture
def on_jax():
    with t.use_backend("jax"):
        yield


@pytest.mark.parametrize("case", list(INDEXES))
def test_host_index_read_is_jax_numpys(on_jax, case):
    index = INDEXES[case]
    got = t.tensor(_VALUES)[index]
    expected = np.asarray(jnp.asarray(_VALUES)[index])
    assert tuple(got.shape) == expected.shape and got.dtype == t.float32
    np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(expected, _VALUES[index])  # (jnp's values are NumPy's)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_index_tensor_dtypes_read_as_torch(on_jax, dtype):
    """int64 and int32 index tensors address rows (repeated and negative ones too); uint8 is PyTorch's deprecated
    mask, with its warning."""
    rows = [1, 0, 1, 1, 0] if dtype == "uint8" else [-1, 2, 2, 0]
    index = t.tensor(rows, dtype=getattr(t, dtype))
    if dtype == "uint8":
        with pytest.warns(UserWarning, match="uint8 is now deprecated"):
            got = t.tensor(_VALUES)[index]
        with pytest.warns(UserWarning, match="uint8 is now deprecated"):
            expected = torch.tensor(_VALUES)[torch.tensor(rows, dtype=torch.uint8)]
    else:
        got = t.tensor(_VALUES)[index]
        expected = torch.tensor(_VALUES)[torch.tensor(rows, dtype=getattr(torch, dtype))]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_bytes_index_is_a_mask_on_every_backend(backend):
    x = t.tensor(_VALUES, backend=backend)
    with pytest.warns(UserWarning, match="please use a dtype torch.bool"):
        got = x[np.array([0, 1, 1, 0, 0], dtype=np.uint8)]
    np.testing.assert_array_equal(np.asarray(got), _VALUES[[1, 2]])


def _kernel(x, index):
    """The cached program that reads ``x[index]`` (found by its key: the dtype and the index's structure)."""
    x[index]
    host_index, _ = normalize_index(index, tuple(x.shape), x._backend)
    structure, _ = _structure(host_index, tuple(x.shape), type(x._value))
    return getitem_copy._kernels[(x._value.dtype, structure)][0]


@pytest.mark.parametrize("spell", [lambda i: (i,), lambda i: (slice(i, i + 2),), lambda i: (np.array([i, 4 - i]),)],
                         ids=["int", "slice", "array"])
def test_one_program_serves_every_value_of_an_index(on_jax, spell):
    x = t.tensor(_VALUES)
    programs = _kernel(x, spell(0))._cache_size()
    for i in range(1, 4):
        np.testing.assert_array_equal(x[spell(i)].numpy(), _VALUES[spell(i)])
    assert _kernel(x, spell(0))._cache_size() == programs


def test_traced_read_keeps_jax_numpys_primitives(on_jax):
    index = np.array([4, 0, 4])
    program = jax.make_jaxpr(lambda a: t.tensor(a)[index]._value)(jnp.asarray(_VALUES))
    names = {eqn.primitive.name for eqn in program.jaxpr.eqns}
    assert "gather" in names and not names & {"pjit", "jit"}


def test_out_of_range_errors_stay_torchs(on_jax):
    x = t.tensor(_VALUES)
    for index in [np.array([0, 5]), np.array([-6]), 5, (0, 4)]:
        with pytest.raises(IndexError) as ours:
            x[index]
        with pytest.raises(IndexError) as theirs:
            torch.tensor(_VALUES)[torch.tensor(index) if isinstance(index, np.ndarray) else index]
        assert str(ours.value) == str(theirs.value)


def test_read_gradient_adds_over_repeats_as_jax_grad(on_jax):
    index = (np.array([3, -2, 3]), slice(1, 3))
    x = t.tensor(_VALUES, requires_grad=True)
    (x[index] * x[index]).sum().backward()
    expected = jax.grad(lambda a: (a[index] * a[index]).sum())(jnp.asarray(_VALUES))
    np.testing.assert_array_equal(x.grad.numpy(), np.asarray(expected))


def test_writes_at_host_indices_are_jax_numpys(on_jax):
    rows, values = np.array([4, -5, 2]), np.full((3, 4, 3), 7.0, np.float32)
    x = t.tensor(_VALUES)
    x[rows] = t.tensor(values)
    np.testing.assert_array_equal(x.numpy(), np.asarray(jnp.asarray(_VALUES).at[rows].set(values)))
    y = t.tensor(_VALUES).index_put_((t.tensor([1, 1, 3]),), t.tensor(values), accumulate=True)
    np.testing.assert_array_equal(y.numpy(), np.asarray(jnp.asarray(_VALUES).at[np.array([1, 1, 3])].add(values)))


def test_bench_jax_indexing_times_both_sides_of_every_case():
    from benchmarks import bench_jax_indexing

    results = bench_jax_indexing.measure(rounds=1, clock=bench_jax_indexing.CLOCKS["wall"])
    assert set(results) == {"gather 32 rows", "x[3]", "x[2:5]", "bool mask", "write 32 rows", "x[2:5] = box",
                            "DataLoader epoch"}
    assert all(ours > 0 and theirs > 0 and ratio > 0 for ours, theirs, ratio in results.values())
