"""Views alias their base on every backend, with PyTorch's strided metadata; advanced indexing copies.

Each test runs once per backend (the ``backend`` fixture). Expected metadata and values come from
PyTorch: the same chain of ops is applied to ``torch`` and to ``xtensor`` (``m`` is either module).
"""
import pytest

import xtensor as t


def _torch():
    return pytest.importorskip("torch")


def _torch_repr(obj):
    return repr(obj).replace("dtype=torch.", "dtype=xtensor.").replace("torch.Size(", "xtensor.Size(")


def _base(m):
    return m.arange(24.0).view(2, 3, 4)


# ------------------------------------------------------------------------------------------ basic aliasing

def test_writing_into_a_row_view_changes_the_base(backend):
    x = t.arange(15.0).view(5, 3)
    y = x[0, :]
    y += 1
    assert y.tolist() == [1.0, 2.0, 3.0]
    assert x[0, :].tolist() == [1.0, 2.0, 3.0]
    assert x[1].tolist() == [3.0, 4.0, 5.0]


def test_view_shares_memory_both_ways(backend):
    x = t.arange(15.0).view(5, 3)
    y = x.view(15)
    z = x.view(-1, 5)
    assert (x.size(), y.size(), z.size()) == (t.Size([5, 3]), t.Size([15]), t.Size([3, 5]))
    x += 1
    assert y.tolist() == [float(i) for i in range(1, 16)]
    assert z[2].tolist() == [11.0, 12.0, 13.0, 14.0, 15.0]
    y[0] = -7.0
    assert x[0, 0].item() == -7.0 and z[0, 0].item() == -7.0
    z[1, 0] = 100.0
    assert x[1, 2].item() == 100.0 and y[5].item() == 100.0


def test_clone_does_not_share_memory(backend):
    x = t.arange(6.0).view(2, 3)
    c = x.clone().view(6)
    x -= 1
    assert c.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    c[0] = 50.0
    assert x[0, 0].item() == -1.0


def test_chained_views_alias_the_same_root(backend):
    x = t.arange(24.0)
    v = x.view(6, 4)[1:].t()[::2]
    v.mul_(-1)
    torch = _torch()
    tx = torch.arange(24.0)
    tx.view(6, 4)[1:].t()[::2].mul_(-1)
    assert x.tolist() == tx.tolist()
    x[5] = 1000.0
    tx[5] = 1000.0
    assert v.tolist() == tx.view(6, 4)[1:].t()[::2].tolist()


# one entry per view op: how to take the view from the (2, 3, 4) base
VIEW_OPS = {
    "view": lambda x: x.view(6, 4),
    "view_infer": lambda x: x.view(-1, 2),
    "view_as": lambda x: x.view_as(x.new_zeros(4, 6)),
    "reshape_contiguous": lambda x: x.reshape(4, 6),
    "flatten": lambda x: x.flatten(),
    "flatten_range": lambda x: x.flatten(1),
    "transpose": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(1, 2, 0),
    "t": lambda x: x[1].t(),
    "T": lambda x: x[0].T,
    "mT": lambda x: x.mT,
    "squeeze": lambda x: x[:, :1].squeeze(),
    "squeeze_dim": lambda x: x[:1].squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "select": lambda x: x.select(1, 2),
    "int_index": lambda x: x[1],
    "slice": lambda x: x[:, 1:],
    "slice_step": lambda x: x[:, ::2, 1::2],
    "slice_step_range": lambda x: x.view(24)[1:20:3],
    "ellipsis_none": lambda x: x[..., None, 1],
    "transpose_then_slice": lambda x: x.transpose(1, 2)[1:, ::2],
    "detach": lambda x: x.detach(),
    "diagonal": lambda x: x.diagonal(0, 1, 2),
    "movedim": lambda x: x.movedim(0, 2),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "split": lambda x: x.split(2, dim=2)[1],
    "chunk": lambda x: x.chunk(3, dim=1)[2],
    "unbind": lambda x: x.unbind(1)[1],
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "as_strided": lambda x: x.as_strided((3, 3), (4, 1), 2),
    "unfold": lambda x: x.view(24).unfold(0, 3, 4),  # windows that do not overlap: writes are well defined
}

@pytest.mark.parametrize("op", list(VIEW_OPS))
def test_view_op_writes_propagate_both_ways(backend, op):
    torch = _torch()
    f = VIEW_OPS[op]
    x, tx = _base(t), _base(torch)
    v, tv = f(x), f(tx)
    assert v.tolist() == tv.tolist()
    # write through the view: the base sees it
    v += 100
    tv += 100
    assert x.tolist() == tx.tolist()
    # write into the base: the view sees it
    x.mul_(-1)
    tx.mul_(-1)
    assert v.tolist() == tv.tolist()
    # an element write through the view
    if tv.dim() > 0:
        v[0] = 7.0
        tv[0] = 7.0
        assert x.tolist() == tx.tolist()
    # a partial write into the base
    x[1, 1:] = 0.5
    tx[1, 1:] = 0.5
    assert v.tolist() == tv.tolist()


def test_expanded_view_sees_writes_to_its_base(backend):
    x = t.tensor([[1.0, 2.0, 3.0]])
    e = x.expand(2, 3)
    x[0, 1] = 20.0
    assert e.tolist() == [[1.0, 20.0, 3.0], [1.0, 20.0, 3.0]]
    assert e.stride() == (0, 1)


@pytest.mark.parametrize("write", ["add_", "iadd", "mul_", "copy_"])
def test_writing_into_an_expanded_view_raises(backend, write):
    torch = _torch()
    e = t.ones(1, 3).expand(2, 3)
    te = torch.ones(1, 3).expand(2, 3)
    ops = {
        "add_": lambda e, m: e.add_(1),
        "iadd": lambda e, m: e.__iadd__(1),
        "mul_": lambda e, m: e.mul_(2),
        "copy_": lambda e, m: e.copy_(m.zeros(2, 3)),
    }
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ops[write](te, torch)  # torch refuses it ...
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ops[write](e, t)  # ... and so does xtensor, with the same message


# An elementwise write whose input covers the written memory otherwise (found by fuzzing ``out=``): PyTorch refuses
# partial overlap, allows the same memory element for element, and lets through what it cannot tell (a strided column)
_OVERLAPS = {
    "out-transposed-input": (True, lambda x, m: m.sin(x, out=x.t())),
    "clamp-out-transposed-input": (True, lambda x, m: m.clamp(x, -1.0, 5.0, out=x.t())),
    "add_-transposed-self": (True, lambda x, m: x.add_(x.t())),
    "iadd-shifted-self": (True, lambda x, m: x.view(4)[1:].__iadd__(x.view(4)[:3])),
    "mul_-row-of-self": (True, lambda x, m: x.mul_(x[0])),
    "copy_-transposed-self": (True, lambda x, m: x.copy_(x.t())),
    "setitem-transposed-self": (True, lambda x, m: x.__setitem__(slice(None), x.t())),
    "index-setitem-of-self": (True, lambda x, m: x.__setitem__(m.tensor([1, 0]), x)),  # index_put: any overlap
    "index_put_-row-of-self": (True, lambda x, m: x.index_put_((m.tensor([1]),), x[0])),
    "setitem-self-under-a-new-dim": (False, lambda x, m: x.__setitem__(None, x)),
    "mask-setitem-one-value-of-self": (False, lambda x, m: x[:1, :1].__setitem__(m.tensor([True]), x[:1, :1])),
    "index_add_-row-of-self": (True, lambda x, m: x.index_add_(0, m.tensor([0]), x[1:])),  # scatters: any overlap
    "scatter_-self": (True, lambda x, m: x.scatter_(0, m.tensor([[1, 0], [0, 1]]), x)),
    "add_-self": (False, lambda x, m: x.add_(x)),
    "copy_-self-expanded": (False, lambda x, m: x[0].expand(3, 2).copy_(x[0].expand(3, 2))),
    "setitem-expanded-self": (False, lambda x, m: (lambda e: e.__setitem__((slice(None), slice(0, 2)), e))(
        x[0].expand(3, 2))),
    "out-same-memory": (False, lambda x, m: m.mul(x, 2, out=x)),
    "add_-other-row": (False, lambda x, m: x[0].add_(x[1])),
    "mul_-strided-column": (False, lambda x, m: x[0].mul_(x[:, 0])),
    "masked_fill_-value-of-self": (False, lambda x, m: x.masked_fill_(x > 1, x[0, 0])),
}


@pytest.mark.parametrize("case", list(_OVERLAPS))
def test_write_over_an_overlapping_input_as_torch(backend, case):
    torch = _torch()
    refused, write = _OVERLAPS[case]
    x, tx = t.arange(4.0).view(2, 2), torch.arange(4.0).view(2, 2)
    if refused:
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor") as theirs:
            write(tx, torch)
        with pytest.raises(RuntimeError) as ours:
            write(x, t)
        assert str(ours.value) == str(theirs.value)
    else:
        write(tx, torch)
        write(x, t)
        assert x.tolist() == tx.tolist()


def test_writing_a_row_of_an_expanded_view_writes_the_base_as_in_torch(backend):
    torch = _torch()

    def run(m):
        base = m.zeros(1, 3)
        e = base.expand(2, 3)
        e[0] = m.tensor([1.0, 5.0, 9.0])
        return base.tolist(), e.tolist()

    assert run(t) == run(torch)


def test_fill_of_an_expanded_view_works_as_in_torch(backend):
    torch = _torch()

    def run(m):
        base = m.zeros(1, 3)
        e = base.expand(2, 3)
        e.fill_(2.0)
        return base.tolist(), e.tolist()

    assert run(t) == run(torch)


# ------------------------------------------------------------------------------------------ metadata vs torch

META_CHAINS = {
    "base": lambda x: x,
    "transpose": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(1, 2, 0),
    "select": lambda x: x[1],
    "select_middle": lambda x: x[:, 1],
    "step_last": lambda x: x[..., ::2],
    "slices": lambda x: x[1:, 1:, 1:3],
    "steps": lambda x: x[:, ::2, 1::2],
    "t_of_select": lambda x: x[0].t(),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "unsqueeze_last": lambda x: x.unsqueeze(-1),
    "unsqueeze_of_transpose": lambda x: x.transpose(1, 2).unsqueeze(0),
    "unsqueeze_mid_of_transpose": lambda x: x.transpose(0, 2).unsqueeze(1),
    "squeeze_dim": lambda x: x[0:1].squeeze(0),
    "squeeze_all": lambda x: x[:, :1].squeeze(),
    "squeeze_noncontig": lambda x: x.transpose(0, 2)[:, :1].squeeze(1),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "select_method": lambda x: x.select(1, 2),
    "expand_select": lambda x: x[0].expand(5, 3, 4),
    "expand_size_one": lambda x: x[:, :1].expand(2, 3, 4),
    "expand_new_leading_ones": lambda x: x[0, 1:].expand(1, 1, 2, 4),  # (their strides: setitem's overlap check)
    "view_rows_step_t": lambda x: x.view(6, 4)[::2].t(),
    "transpose_contiguous": lambda x: x.transpose(0, 1).contiguous(),
    "view_T": lambda x: x.view(4, 6).T,
    "mT": lambda x: x.mT,
    "reshape_view": lambda x: x.reshape(6, 4),
    "reshape_copy": lambda x: x.transpose(0, 1).reshape(-1),
    "none_indexing": lambda x: x[None, :, None],
    "flatten": lambda x: x.flatten(),
    "flatten_from_1": lambda x: x.flatten(1),
    "scalar_element": lambda x: x[1, 2, 3],
    "transpose_slice": lambda x: x.transpose(1, 2)[1:, ::2],
    "permute_transpose_select": lambda x: x.permute(2, 0, 1).transpose(0, 1)[1],
    "empty_slice": lambda x: x[:, :, 0:0],
    "compatible_view_of_noncontig": lambda x: x.transpose(0, 1).view(3, 2, 2, 2),
    "contiguous_of_contiguous": lambda x: x[1].contiguous(),
    "slice_of_flat": lambda x: x.view(24)[2:],
    "step_of_flat": lambda x: x.view(24)[3:20:4],
    "diagonal": lambda x: x.diagonal(),
    "diagonal_offset_last_dims": lambda x: x.diagonal(1, 1, 2),
    "diagonal_negative_offset_swapped": lambda x: x.diagonal(-1, 2, 0),
    "diagonal_empty": lambda x: x.diagonal(5, 1, 2),
    "diagonal_of_transpose": lambda x: x.transpose(0, 2).diagonal(0, 0, 1),
    "unfold": lambda x: x.unfold(2, 2, 1),
    "unfold_of_slice": lambda x: x[:, 1:].unfold(1, 2, 2),
    "as_strided": lambda x: x.as_strided((3, 3), (4, 1), 2),
    "as_strided_of_view_keeps_offset": lambda x: x[1].as_strided((2, 2), (1, 4)),
    "movedim": lambda x: x.movedim(0, 2),
    "moveaxis_many": lambda x: x.moveaxis((0, 1), (2, 0)),
    "swapaxes": lambda x: x.swapaxes(0, 2),
    "swapdims": lambda x: x.swapdims(-1, 1),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "unflatten_of_slice": lambda x: x[:, 1:].unflatten(1, (1, 2)),
    "split_piece": lambda x: x.split(3, 2)[1],
    "split_sections_piece": lambda x: x.split([1, 2], 1)[1],
    "chunk_piece": lambda x: x.chunk(2, 1)[1],
    "unbind_piece": lambda x: x.unbind(2)[3],
    "mH": lambda x: x.mH,
    "H": lambda x: x[1].H,
    "broadcast_to": lambda x: x[:, :1].broadcast_to((5, 2, 3, 4)),
    "ravel_contiguous": lambda x: x.ravel(),
}


@pytest.mark.parametrize("chain", list(META_CHAINS))
def test_strided_metadata_matches_torch(backend, chain):
    torch = _torch()
    f = META_CHAINS[chain]
    x, tx = _base(t), _base(torch)
    v, tv = f(x), f(tx)
    assert v.shape == tuple(tv.shape)
    assert v.stride() == tv.stride()
    assert v.storage_offset() == tv.storage_offset()
    assert v.is_contiguous() == tv.is_contiguous()
    assert v.tolist() == tv.tolist()
    # shares memory exactly when torch's does, at the same byte offset (torch's data_ptr of an
    # empty tensor is 0, so empty results are left out of the offset comparison)
    shares = tv.untyped_storage().data_ptr() == tx.untyped_storage().data_ptr()
    assert (v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()) == shares
    if shares and tv.numel():
        assert v.data_ptr() - x.data_ptr() == tv.data_ptr() - tx.data_ptr()


def test_stride_of_a_dim(backend):
    x = t.zeros(2, 3, 4)
    assert x.stride(0) == 12 and x.stride(-1) == 1
    assert x.transpose(0, 2).stride(0) == 1


def test_contiguous_returns_self_when_already_contiguous(backend):
    x = t.zeros(2, 3)
    assert x.contiguous() is x
    y = x.t()
    c = y.contiguous()
    assert c is not y and c.is_contiguous() and c.tolist() == y.tolist()


# ------------------------------------------------------------------------------------------ view errors, reshape copies

def test_view_of_non_contiguous_raises(backend):
    torch = _torch()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.arange(6).view(2, 3).t().view(6)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.arange(6).view(2, 3).t().view(6)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.arange(24).view(2, 3, 4).permute(1, 2, 0).view(-1)


def test_view_with_wrong_element_count_raises(backend):
    with pytest.raises(RuntimeError, match="invalid for input of size"):
        t.arange(6).view(4)


def test_flatten_of_an_empty_tensor_merges_the_dims(backend):
    """(found by fuzzing: flatten asked reshape for -1, which a size-0 tensor cannot infer)"""
    x = t.zeros(0, 2, 1, 2)
    assert x.flatten(2, 3).shape == (0, 2, 2)
    assert x.flatten(1).shape == (0, 4)


def test_reshape_of_non_contiguous_copies(backend):
    x = t.arange(1, 13).view(2, 6)
    b = x.t()
    r = b.reshape(-1, 4)
    assert r.tolist() == [[1, 7, 2, 8], [3, 9, 4, 10], [5, 11, 6, 12]]
    assert r.is_contiguous()
    assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    r[0, 0] = 100
    assert x[0, 0].item() == 1


def test_reshape_copy_of_an_expanded_view_is_contiguous(backend):
    """(found by fuzzing: numpy kept the expanded view's layout in the copy, so views of it had other strides)"""
    x = t.arange(24.0).view(2, 3, 4).unsqueeze(2).unsqueeze(0).select(-3, 0).expand(2, 1, 2, 1, 4)
    r = x.unsqueeze(1).mT.flatten(3, 4)  # (2, 1, 1, 8, 1) from dims of strides 12 and 1: a copy
    assert r._base is None and r.is_contiguous() and (r.stride(0), r.stride(3)) == (8, 1)


def test_reshape_of_contiguous_shares_memory(backend):
    a = t.arange(1, 13)
    c = a.reshape(2, 6)
    c[0, 0] = -1
    assert a[0].item() == -1
    assert c.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()


# ------------------------------------------------------------------------------------------ advanced indexing copies

ADVANCED_INDEXES = {
    "int_list": lambda m, x: x[[0, 1]],
    "index_tensor": lambda m, x: x[m.tensor([1, 0])],
    "mask": lambda m, x: x[x > 10],
    "two_lists": lambda m, x: x[[0, 1], [2, 0]],
    "list_and_slice": lambda m, x: x[:, [0, 2]],
    "bool_list": lambda m, x: x[[True, False]],
}


@pytest.mark.parametrize("case", list(ADVANCED_INDEXES))
def test_advanced_indexing_copies(backend, case):
    torch = _torch()
    f = ADVANCED_INDEXES[case]
    x, tx = _base(t), _base(torch)
    r, tr = f(t, x), f(torch, tx)
    assert r.shape == tuple(tr.shape) and r.tolist() == tr.tolist()
    r += 1000
    assert x.tolist() == _base(torch).tolist()
    x.zero_()
    assert r.tolist() == (tr + 1000).tolist()


def test_advanced_index_with_several_lists_picks_elements(backend):
    # seed 004 cells 51-53
    x = t.arange(0, 16).view(2, 2, 4)
    assert repr(x[[1, 0], [1, 1], [2, 0]]) == "tensor([14,  4])"
    assert repr(x[[1, 0], [0], [1]]) == "tensor([9, 1])"


# ------------------------------------------------------------------------------------------ setitem

SETITEMS = {
    "mask_scalar": lambda m, x: x.__setitem__(x > 10, 0.0),
    "mask_tensor_values": lambda m, x: x.__setitem__(x > 20, m.tensor([-1.0, -2.0, -3.0])),
    "int_list": lambda m, x: x.__setitem__([0, 1], 5.0),
    "index_tensor_broadcast": lambda m, x: x.__setitem__(m.tensor([1]), m.tensor([1.0, 2.0, 3.0, 4.0])),
    "two_index_tensors": lambda m, x: x.__setitem__((m.tensor([0, 1]), m.tensor([2, 0])), m.tensor([[-1.0], [-2.0]])),
    "three_index_tensors": lambda m, x: x.__setitem__((m.tensor([0, 1]), m.tensor([2, 0]), m.tensor([3, 1])),
                                                      m.tensor([-1.0, -2.0])),
    "slice_broadcast_row": lambda m, x: x.__setitem__((slice(None), slice(1, 3)), m.tensor([7.0, 8.0, 9.0, 10.0])),
    "column_of_values": lambda m, x: x.__setitem__((0, slice(None), 1), m.tensor([0.5, 1.5, 2.5])),
    "ellipsis": lambda m, x: x.__setitem__((Ellipsis, 0), 1.0),
    "negative_index": lambda m, x: x.__setitem__(-1, 3.0),
    "step_slice": lambda m, x: x.__setitem__((slice(None), slice(None, None, 2)), -4.0),
    "zero_dim_tensor_value": lambda m, x: x.__setitem__((0, 0, 0), m.tensor(42.0)),
    "int_value_into_float": lambda m, x: x.__setitem__((1, 2), 9),
    "whole": lambda m, x: x.__setitem__(slice(None), m.tensor(2.0)),
    "bool_list": lambda m, x: x.__setitem__([False, True], -1.0),
    "list_and_slice": lambda m, x: x.__setitem__((slice(None), [0, 2]), 11.0),
    "mask_2d_on_last_dims": lambda m, x: x.__setitem__((slice(None), m.tensor([[True, False, False, True]] * 3)), 0.0),
    "none_index": lambda m, x: x.__setitem__((None, 0), m.zeros(3, 4)),
}


@pytest.mark.parametrize("case", list(SETITEMS))
def test_setitem_matches_torch(backend, case):
    torch = _torch()
    f = SETITEMS[case]
    x, tx = _base(t), _base(torch)
    f(t, x)
    f(torch, tx)
    assert x.dtype == t.float32
    assert x.tolist() == tx.tolist()


@pytest.mark.parametrize("case", list(SETITEMS))
def test_setitem_on_a_strided_view_writes_through_to_the_base(backend, case):
    torch = _torch()
    f = SETITEMS[case]

    def run(m):
        root = _base(m).unsqueeze(-1).expand(2, 3, 4, 2).contiguous()  # each value twice, side by side
        view = root[..., 1]  # non-contiguous view with the same values as _base
        f(m, view)
        return root.tolist()

    assert run(t) == run(torch)


def test_setitem_keeps_the_tensor_identity(backend):
    # seed 000 cell 63
    x = t.tensor([1, 2])
    y = t.tensor([3, 4])
    before_id = id(y)
    y[:] = x + y
    assert id(y) == before_id
    assert y.tolist() == [4, 6]


def test_setitem_bumps_views_taken_before(backend):
    x = t.zeros(3, 4)
    row = x[1]
    col = x[:, 2]
    x[1, 2] = 5.0
    assert row.tolist() == [0.0, 0.0, 5.0, 0.0]
    assert col.tolist() == [0.0, 5.0, 0.0]


# ----------------------------------------------------------------------- seed 004 storage cells 80-88

def test_seed004_storage_is_shared_by_views(backend):
    a = t.arange(0, 6).float()
    b = a.view(2, 3)
    assert b.storage().data_ptr() == a.storage().data_ptr()
    a[1] = 100
    assert repr(b) == "tensor([[  0., 100.,   2.],\n        [  3.,   4.,   5.]])"


def test_seed004_slice_shares_storage_with_an_offset(backend):
    a = t.arange(0, 6).float()
    a[1] = 100
    c = a[2:]
    assert c.storage().data_ptr() == a.storage().data_ptr()
    assert c.data_ptr() - a.data_ptr() == 8  # two float32 elements
    c[0] = -100
    assert repr(a) == "tensor([   0.,  100., -100.,    3.,    4.,    5.])"


def test_seed004_tensor_from_storage_shares_memory(backend):
    a = t.arange(0, 6).float()
    b = a.view(2, 3)
    a[1] = 100
    c = a[2:]
    c[0] = -100
    d = t.Tensor(c.storage())
    d[0] = 6666
    assert repr(b) == ("tensor([[ 6.6660e+03,  1.0000e+02, -1.0000e+02],\n"
                       "        [ 3.0000e+00,  4.0000e+00,  5.0000e+00]])")
    ptrs = {x.storage().data_ptr() for x in (a, b, c, d)}
    assert len(ptrs) == 1
    assert (a.storage_offset(), c.storage_offset(), d.storage_offset()) == (0, 2, 0)


def test_seed004_strided_slice_shares_storage_and_is_not_contiguous(backend):
    a = t.arange(0, 6).float()
    b = a.view(2, 3)
    e = b[::2, ::2]
    assert e.storage().data_ptr() == a.storage().data_ptr()
    assert e.is_contiguous() is False


def test_seed004_transposed_view_is_not_contiguous_until_contiguous(backend):
    # seed 004 cells 66-67
    a = t.linspace(0, 15, 6).view(2, 3)
    b = a.t()
    assert b.is_contiguous() is False
    b = b.contiguous()
    assert b.is_contiguous() is True


# ------------------------------------------------------------------------------------------ in-place view ops

INPLACE_VIEWS = {
    "t_": lambda x: x[0].t_(),
    "transpose_": lambda x: x.transpose_(0, 2),
    "swapaxes_": lambda x: x.swapaxes_(1, 2),
    "swapdims_": lambda x: x.swapdims_(0, 1),
    "squeeze_": lambda x: x[:, :1].squeeze_(),
    "squeeze_dim_": lambda x: x[:1].squeeze_(0),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "unsqueeze_of_slice_": lambda x: x[:, 1].unsqueeze_(-1),
    "as_strided_": lambda x: x.as_strided_((2, 5), (3, 2), 1),
    "transpose_then_t_": lambda x: x[1].transpose_(0, 1).t_(),
}


@pytest.mark.parametrize("op", list(INPLACE_VIEWS))
def test_inplace_view_op_changes_metadata_and_keeps_identity(backend, op):
    torch = _torch()
    x, tx = _base(t), _base(torch)
    target = INPLACE_VIEWS[op]
    v, tv = target(x), target(tx)
    assert (v.shape, v.stride(), v.storage_offset(), v.is_contiguous()) == \
        (tuple(tv.shape), tv.stride(), tv.storage_offset(), tv.is_contiguous())
    assert v.tolist() == tv.tolist()
    v.mul_(-1)  # still an alias of the base, with the new layout
    tv.mul_(-1)
    assert x.tolist() == tx.tolist()


def test_inplace_view_op_returns_the_tensor_itself(backend):
    x = t.zeros(2, 3)
    assert x.t_() is x and x.shape == (3, 2) and x.stride() == (1, 3)
    assert x._base is None  # a root stays a root, as in PyTorch


def test_inplace_view_op_on_a_leaf_that_requires_grad_raises(backend):
    x = t.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.t_()


def test_inplace_view_op_on_a_non_leaf_is_differentiated(backend):
    torch = _torch()

    def run(m):
        x = m.arange(6.0).view(2, 3).requires_grad_()
        y = x * 1
        y.t_()
        y.unsqueeze_(0)
        (y * m.arange(6.0).view(1, 3, 2)).sum().backward()
        return type(y.grad_fn).__name__, x.grad.tolist()

    assert run(t) == run(torch)


# ------------------------------------------------------------------------------------------ autograd through views

# the views taken of a non-leaf (2, 3, 4) tensor, then written in place: PyTorch's CopySlices
GRAD_VIEWS = {
    "diagonal": lambda y: y.diagonal(0, 1, 2),
    "diagonal_offset": lambda y: y.diagonal(1, 2, 1),
    "unfold": lambda y: y.unfold(2, 2, 2),
    "as_strided": lambda y: y.as_strided((3, 3), (4, 1), 2),
    "movedim": lambda y: y.movedim(0, 2),
    "swapaxes": lambda y: y.swapaxes(0, 1),
    "unflatten": lambda y: y.unflatten(2, (2, 2)),
    "split": lambda y: y.split(3, 2)[1],
    "chunk": lambda y: y.chunk(3, 1)[2],
    "unbind": lambda y: y.unbind(1)[1],
    "mT": lambda y: y.mT,
    "view_of_view": lambda y: y.transpose(0, 1)[1:].diagonal(0, 0, 2),
}


@pytest.mark.parametrize("op", list(GRAD_VIEWS))
def test_gradient_through_a_view_read(backend, op):
    torch = _torch()

    def run(m):
        x = (m.arange(24.0).view(2, 3, 4) / 10).requires_grad_()
        v = GRAD_VIEWS[op](x * 1)
        (v * v * m.arange(float(v.numel())).view(v.shape)).sum().backward()
        return x.grad.tolist()

    _close_lists(run(t), run(torch))


MULTI_OUTPUT_VIEWS = ("split", "chunk", "unbind")


@pytest.mark.parametrize("op", [op for op in GRAD_VIEWS if op not in MULTI_OUTPUT_VIEWS])
def test_in_place_op_on_a_view_rewrites_the_base_history(backend, op):
    torch = _torch()

    def run(m):
        x = (m.arange(24.0).view(2, 3, 4) / 10).requires_grad_()
        y = x * 1
        v = GRAD_VIEWS[op](y)
        v.mul_(v + 1)
        (y * y).sum().backward()
        return type(y.grad_fn).__name__, y.tolist(), x.grad.tolist()

    (node, y, g), (tnode, ty, tg) = run(t), run(torch)
    assert node == tnode == "CopySlices"
    _close_lists(y, ty)
    _close_lists(g, tg)


SEVERAL_VIEWS = {
    "split": lambda y: y.split(3, 2),
    "split_sections": lambda y: y.split([1, 2], 1),
    "chunk": lambda y: y.chunk(3, 1),
    "unbind": lambda y: y.unbind(1),
}


@pytest.mark.parametrize("op", list(SEVERAL_VIEWS))
def test_the_views_one_call_returns_share_one_node_whose_gradient_joins_theirs_as_torch(backend, op):
    torch = _torch()

    def run(m):
        x = (m.arange(24.0).view(2, 3, 4) / 10).requires_grad_()
        views = SEVERAL_VIEWS[op](x * 1)
        node = views[0].grad_fn
        ((views[-1] * 2).sum() + (views[0] * views[0]).sum()).backward()  # the views between get no gradient
        return (type(node).__name__, [v.grad_fn is node for v in views], [v.output_nr for v in views],
                len(node.next_functions), x.grad.tolist())

    ours, theirs = run(t), run(torch)
    assert ours[:4] == theirs[:4]
    assert all(ours[1])
    _close_lists(ours[4], theirs[4])


@pytest.mark.parametrize("op", list(SEVERAL_VIEWS))
def test_the_views_of_a_leaf_that_is_itself_a_view_require_grad_as_torch(backend, op):
    torch = _torch()

    def run(m):
        x = m.arange(24.0).view(2, 3, 4).requires_grad_()  # a view made a leaf: its base does not require grad
        views = SEVERAL_VIEWS[op](x)
        with m.no_grad():
            views[0].add_(0.5)
        return [v.requires_grad for v in views]

    assert run(t) == run(torch) == [True] * len(run(torch))


@pytest.mark.parametrize("op", MULTI_OUTPUT_VIEWS)
def test_in_place_op_on_one_of_several_views_raises_under_autograd_as_torch(backend, op):
    torch = _torch()

    def message(m):
        y = m.zeros(2, 3, 4, requires_grad=True) * 1
        with pytest.raises(RuntimeError) as e:
            GRAD_VIEWS[op](y).mul_(2)
        return str(e.value)

    assert message(t) == message(torch)


@pytest.mark.parametrize("op", MULTI_OUTPUT_VIEWS)
def test_in_place_op_on_one_of_several_views_of_a_leaf_raises_the_multiple_views_error(backend, op):
    torch = _torch()

    def message(m):
        with pytest.raises(RuntimeError) as e:
            GRAD_VIEWS[op](m.zeros(2, 3, 4, requires_grad=True)).add_(1)
        return str(e.value)

    assert "returns multiple views" in message(t)
    assert message(t) == message(torch)


@pytest.mark.parametrize("op", MULTI_OUTPUT_VIEWS)
def test_in_place_op_on_one_of_several_views_writes_without_autograd(backend, op):
    torch = _torch()

    def run(m):
        x = _base(m)
        GRAD_VIEWS[op](x).mul_(-1)
        with m.no_grad():
            y = _base(m).requires_grad_() * 1
            GRAD_VIEWS[op](y).mul_(-1)
        return x.tolist(), y.tolist()

    assert run(t) == run(torch)


@pytest.mark.parametrize("op", [op for op in GRAD_VIEWS if op not in MULTI_OUTPUT_VIEWS])
def test_in_place_op_on_a_view_of_a_leaf_raises(backend, op):
    x = t.zeros(2, 3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        GRAD_VIEWS[op](x).add_(1)


def _close_lists(a, b):
    import numpy as np
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------------------------------ copies do not alias

COPIES = {
    "flip": lambda x: x.flip(0, 2),
    "fliplr": lambda x: x.fliplr(),
    "roll": lambda x: x.roll(1, 1),
    "repeat": lambda x: x.repeat(1, 2, 1),
    "tile": lambda x: x.tile((2,)),
    "repeat_interleave": lambda x: x.repeat_interleave(2, 0),
    "reshape_of_transpose": lambda x: x.transpose(1, 2).reshape(2, 12),
}


@pytest.mark.parametrize("op", list(COPIES))
def test_shape_copies_do_not_share_memory(backend, op):
    torch = _torch()
    x, tx = _base(t), _base(torch)
    c, tc = COPIES[op](x), COPIES[op](tx)
    assert (c.tolist(), c.stride(), c.storage_offset()) == (tc.tolist(), tc.stride(), tc.storage_offset())
    assert c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    c.zero_()
    assert x.tolist() == _base(torch).tolist()


# ------------------------------------------------------------------------------------------ bad input, as PyTorch

VIEW_ERRORS = {
    "diagonal_same_dims": lambda x: x.diagonal(0, 1, 1),
    "unfold_too_big": lambda x: x.unfold(1, 4, 1),
    "unfold_step_0": lambda x: x.unfold(1, 2, 0),
    "as_strided_out_of_storage": lambda x: x.as_strided((5, 5), (5, 1)),
    "split_sections_sum": lambda x: x.split([1, 1], 1),
    "split_size_0": lambda x: x.split(0, 1),
    "chunk_0": lambda x: x.chunk(0),
    "unflatten_product": lambda x: x.unflatten(2, (3, 2)),
    "movedim_lengths": lambda x: x.movedim((0, 1), (0,)),
    "movedim_repeated": lambda x: x.movedim((0, 0), (1, 2)),
    "repeat_too_few": lambda x: x.repeat(2, 2),
    "roll_misaligned": lambda x: x.roll((1, 2), (0,)),
    "fliplr_1d": lambda x: x[0, 0].fliplr(),
    "squeeze_tuple_out_of_range": lambda x: x.squeeze((0, 3)),
}


@pytest.mark.parametrize("case", list(VIEW_ERRORS))
def test_shape_op_errors_match_torch(backend, case):
    torch = _torch()
    f = VIEW_ERRORS[case]
    with pytest.raises(Exception) as theirs:
        f(_base(torch))
    with pytest.raises(type(theirs.value)) as ours:
        f(_base(t))
    assert str(ours.value) == str(theirs.value).split("\n")[0]


def test_broadcast_tensors_mismatch_raises_as_torch(backend):
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 1"):
        t.broadcast_tensors(t.zeros(2, 3), t.zeros(4))


# ------------------------------------------------------------------------------------------ jax.jit

def _view_program(x):
    """Views, in-place writes through them and a gradient: runs eagerly and under jax.jit alike."""
    y = x * 1
    d = y.diagonal(0, 1, 2)
    d.mul_(3)
    piece = y.narrow(2, 2, 2)
    piece += 1
    y[0].t()[1:].zero_()
    z = y.movedim(0, 2).unflatten(0, (3, 1))
    loss = (z * z).sum() + y.split(3, 2)[1].sum() + y.unbind(1)[2].sum()
    loss.backward()
    return y.detach(), x.grad


def test_views_and_in_place_writes_run_under_jax_jit():
    jax = pytest.importorskip("jax")
    with t.use_backend("jax"):
        eager = _view_program(t.arange(24.0).view(2, 3, 4).requires_grad_())
        compiled = jax.jit(_view_program)(t.arange(24.0).view(2, 3, 4).requires_grad_())
    torch = _torch()
    expected = _view_program(torch.arange(24.0).view(2, 3, 4).requires_grad_())
    for ours, theirs in zip(eager, expected):
        assert ours.tolist() == theirs.tolist()
    for ours, theirs in zip(compiled, expected):
        assert ours.tolist() == theirs.tolist()


def test_inplace_view_ops_and_as_strided_run_under_jax_jit():
    jax = pytest.importorskip("jax")

    def program(x):
        y = x.clone()
        y.t_()
        y.as_strided((2, 2), (1, 3), 1).fill_(-1.0)
        y.unsqueeze_(0)
        return y

    with t.use_backend("jax"):
        out = jax.jit(program)(t.arange(6.0).view(2, 3))
    torch = _torch()
    expected = program(torch.arange(6.0).view(2, 3))
    assert out.tolist() == expected.tolist()


# ------------------------------------------------------------------------------------------ cost

def test_in_place_write_through_a_view_on_numpy_does_not_copy_the_base():
    import tracemalloc

    import numpy as np
    with t.use_backend("numpy"):
        base = t.from_numpy(np.zeros((1000, 1000)))
        view = base[10:90, ::2]
        tracemalloc.start()
        try:
            view.add_(1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert base[10, 0].item() == 1.0
    assert peak < base.numel() * 8 / 4  # at most a temporary of the view's size, never the 8 MB base


def test_strides_of_a_view_of_an_empty_tensor_are_python_ints():
    """Found by the differential fuzzer (numpy's int64 leaked out of view's stride rule for empty tensors)."""
    strides = t.arange(24.0).narrow(0, 0, 0).view(0, 2, 3).stride()
    assert strides == (6, 3, 1) and all(type(s) is int for s in strides)
