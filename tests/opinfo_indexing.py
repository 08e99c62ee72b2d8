"""OpInfo records for the ops in ``xtensor/ops/indexing.py`` (see ``opinfo.py``).

References address the flattened input through numpy position arrays (``np.ravel_multi_index``)
and combine values with numpy's ``ufunc.at`` or jax's ``.at[]`` -- never through xtensor.
Samples without ``accumulate``/a reduction use indices without repeats (PyTorch leaves the
winner of a repeated write unspecified); accumulating samples repeat indices on purpose.
"""
import numpy as np

from opinfo import NUMERIC, SampleInput, _rng, add, make, rule_first, rule_int64

_AT = {"set": "set", "sum": "add", "prod": "multiply", "amax": "max", "amin": "min"}
_UFUNC = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _combine_at(m, flat, pos, vals, how):
    """``flat`` with ``vals`` combined in at positions ``pos`` (numpy: ``ufunc.at`` on a copy; jax: ``.at[]``)."""
    if m is np:
        out = flat.copy()
        if how == "set":
            out[pos] = vals
        else:
            _UFUNC[how].at(out, pos, vals)
        return out
    return getattr(flat.at[pos], _AT[how])(vals)


def _positions(shape, dim, index):
    """Flat positions of ``torch.gather``'s addressing: ``index`` along ``dim``, own coordinates elsewhere."""
    index = np.asarray(index)
    if not shape:
        return index.reshape(-1)
    coords = list(np.indices(index.shape))
    coords[dim] = index
    return np.ravel_multi_index(tuple(coords), shape).reshape(-1)


def _block(src, index):
    return src[tuple(slice(0, n) for n in np.shape(index))]


def _gather_ref(m, x, dim, index):
    return m.reshape(m.reshape(x, (-1,))[_positions(x.shape, dim, index)], np.shape(index))


def _scatter_ref(how):
    def ref(m, x, dim, index, src, reduce=None):
        how_ = {"add": "sum", "multiply": "prod"}.get(reduce, how)
        vals = m.reshape(_block(src, index), (-1,)) if np.ndim(src) else m.full((np.size(index),), src, dtype=x.dtype)
        flat = _combine_at(m, m.reshape(x, (-1,)), _positions(x.shape, dim, index), vals.astype(x.dtype), how_)
        return m.reshape(flat, x.shape)
    return ref


def _scatter_reduce_ref(m, x, dim, index, src, reduce, include_self=True):
    """A dense reference: row ``p`` of a table holds every value that meets at position ``p`` (the input's
    own value when ``include_self`` or when nothing lands there), reduced along the row."""
    pos = _positions(x.shape, dim, index)
    vals = m.reshape(_block(src, index), (-1,))
    flat = m.reshape(x, (-1,))
    n = flat.shape[0]
    lands = pos[None, :] == np.arange(n)[:, None]
    own = np.eye(n, dtype=bool) & (include_self | ~lands.any(axis=1))[:, None]
    table = m.concatenate([m.broadcast_to(vals[None, :], lands.shape), m.broadcast_to(flat[None, :], (n, n))], axis=1)
    mask = np.concatenate([lands, own], axis=1)
    info = np.finfo(x.dtype) if np.dtype(x.dtype).kind == "f" else np.iinfo(x.dtype)
    fill = {"sum": 0, "mean": 0, "prod": 1, "amax": info.min, "amin": info.max}[reduce]
    picked = m.where(mask, table, m.asarray(fill, dtype=x.dtype))
    if reduce == "mean":
        return m.reshape(m.sum(picked, axis=1) / mask.sum(axis=1), x.shape)
    return m.reshape(getattr(m, {"sum": "sum", "prod": "prod", "amax": "max", "amin": "min"}[reduce])(picked, axis=1),
                     x.shape).astype(x.dtype)


def _along(index, shape, dim):
    """A 1-d index expanded as a gather index over ``shape`` with ``len(index)`` at ``dim``."""
    shape = list(shape)
    shape[dim] = len(index)
    view = [1] * len(shape)
    view[dim] = len(index)
    return np.broadcast_to(np.asarray(index).reshape(view), shape)


def _index_select_ref(m, x, dim, index):
    return m.take(x, np.asarray(index), axis=dim)


def _index_write_ref(how):
    def ref(m, x, dim, index, source, alpha=1):
        pos = _positions(x.shape, dim, _along(index, x.shape, dim))
        return m.reshape(_combine_at(m, m.reshape(x, (-1,)), pos, m.reshape(source * alpha, (-1,)), how), x.shape)
    return ref


def _index_fill_ref(m, x, dim, index, value):
    pos = _positions(x.shape, dim, _along(index, x.shape, dim))
    vals = m.broadcast_to(m.asarray(value, dtype=x.dtype), pos.shape)
    return m.reshape(_combine_at(m, m.reshape(x, (-1,)), pos, vals, "set"), x.shape)


def _masked_fill_ref(m, x, mask, value):
    return m.where(np.asarray(mask), m.asarray(value, dtype=x.dtype), x)


def _masked_scatter_ref(m, x, mask, source):
    pos = np.flatnonzero(np.broadcast_to(np.asarray(mask), x.shape))
    vals = m.reshape(source, (-1,))[:pos.size]
    return m.reshape(_combine_at(m, m.reshape(x, (-1,)), pos, vals, "set"), x.shape)


def _take_ref(m, x, index):
    return m.reshape(m.reshape(x, (-1,))[np.asarray(index) % max(x.size, 1)], np.shape(index))


def _put_ref(m, x, index, source, accumulate=False):
    pos = np.asarray(index).reshape(-1) % x.size
    flat = _combine_at(m, m.reshape(x, (-1,)), pos, m.reshape(source, (-1,)), "sum" if accumulate else "set")
    return m.reshape(flat, x.shape)


def _take_along_dim_ref(m, x, index, dim=None):
    if dim is None:
        return m.reshape(x, (-1,))[np.asarray(index).reshape(-1)]
    shape = np.broadcast_shapes(tuple(1 if k == dim else n for k, n in enumerate(x.shape)),
                                tuple(1 if k == dim else n for k, n in enumerate(np.shape(index))))
    xs, ins = list(shape), list(shape)
    xs[dim], ins[dim] = x.shape[dim], np.shape(index)[dim]
    return m.take_along_axis(m.broadcast_to(x, tuple(xs)), np.broadcast_to(np.asarray(index), tuple(ins)), axis=dim)


def _index_put_ref(m, x, indices, values, accumulate=False):
    index = tuple(np.asarray(i) for i in indices)
    pos = np.arange(x.size).reshape(x.shape)[index]
    vals = m.reshape(m.broadcast_to(values, pos.shape), (-1,))
    return m.reshape(_combine_at(m, m.reshape(x, (-1,)), pos.reshape(-1), vals, "sum" if accumulate else "set"),
                     x.shape)


# --------------------------------------------------------------------------- samples
def _perm_rows(rng, n_rows, size, k):
    """An index of ``n_rows`` rows of ``k`` distinct values in ``[0, size)`` (no repeated writes along dim 1)."""
    return np.stack([rng.permutation(size)[:k] for _ in range(n_rows)]).astype(np.int64)


def _ints(rng, shape, high):
    return rng.integers(0, high, size=shape).astype(np.int64)


def _gather_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, _ints(rng, (3, 2), 4)), desc="dim1"),
            SampleInput((m((3, 4)), 0, _ints(rng, (5, 4), 3)), desc="dim0,repeats"),
            SampleInput((m((3, 4)), -1, _ints(rng, (2, 3), 4)), desc="smaller"),
            SampleInput((m((2, 3, 4)), 2, _ints(rng, (2, 3, 6), 4)), desc="3d"),
            SampleInput((m(()), 0, np.asarray(0)), desc="0d"),
            SampleInput((m((3, 4)), 1, _ints(rng, (3, 0), 4)), desc="empty"),
            SampleInput((m((4, 3)), 0, _ints(rng, (2, 3), 4)), desc="T", noncontig=(0,))]


def _scatter_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, _perm_rows(rng, 3, 4, 2), m((3, 2))), desc="src"),
            SampleInput((m((3, 4)), 1, _perm_rows(rng, 2, 4, 3), m((3, 4))), desc="larger-src", grad=False),
            SampleInput((m((3, 4)), 0, _perm_rows(rng, 4, 3, 3).T.copy(), m((3, 4))), desc="dim0"),
            SampleInput((m((3, 4)), 1, _perm_rows(rng, 3, 4, 2), 2), desc="value"),
            SampleInput((m((3, 4)), 1, _ints(rng, (3, 3), 4), m((3, 3))), {"reduce": "add"}, desc="reduce-add",
                        grad=False),
            SampleInput((m((3, 4)), 1, _ints(rng, (3, 3), 4), m((3, 3))), {"reduce": "multiply"},
                        desc="reduce-mul", grad=False),
            SampleInput((m((4, 3)), 0, _perm_rows(rng, 3, 4, 2).T.copy(), m((2, 3))), desc="T", noncontig=(0,))]


def _scatter_add_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, _ints(rng, (3, 5), 4), m((3, 5))), desc="repeats"),
            SampleInput((m((3, 4)), 0, _ints(rng, (2, 4), 3), m((3, 4))), desc="larger-src", grad=False),
            SampleInput((m((2, 3, 4)), -1, _ints(rng, (2, 3, 6), 4), m((2, 3, 6))), desc="3d"),
            SampleInput((m((4, 3)), 0, _ints(rng, (5, 3), 4), m((5, 3))), desc="T", noncontig=(0,))]


def _scatter_reduce_samples(info, dtype):
    rng = _rng(info.name, dtype)
    kind = np.dtype(dtype).kind
    out = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        if reduce == "mean" and kind != "f":
            continue
        for include_self in (True, False):
            lo, hi = (0.5, 2.0) if reduce == "prod" else (-3.0, 3.0)
            x, src = make(rng, (3, 4), dtype, lo, hi), make(rng, (3, 5), dtype, lo, hi)
            index = _ints(rng, (3, 5), 4)
            out.append(SampleInput((x, 1, index, src, reduce), {"include_self": include_self},
                                   desc=f"{reduce},{'self' if include_self else 'noself'}"))
    if kind == "f":  # products through zeros: PyTorch's exact rule (one zero, two zeros)
        x = np.asarray([[1.5, 0.0, 2.0], [0.0, 0.0, 1.0]], dtype=dtype)
        src = np.asarray([[0.0, 2.0, 3.0], [1.5, 0.5, 2.0]], dtype=dtype)
        out.append(SampleInput((x, 1, np.asarray([[0, 0, 2], [1, 1, 0]]), src, "prod"), desc="prod-zeros"))
    return out


def _index_select_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, np.asarray([3, 0, 0, 2])), desc="repeats"),
            SampleInput((m((3, 4)), 0, np.asarray([2])), desc="dim0"),
            SampleInput((m((2, 3, 4)), -2, np.asarray([1, 2])), desc="3d"),
            SampleInput((m((3, 4)), 1, np.zeros(0, np.int64)), desc="empty"),
            SampleInput((m((4, 3)), 1, np.asarray([1, 0])), desc="T", noncontig=(0,))]


def _index_add_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, np.asarray([3, 0, 3]), m((3, 3))), desc="repeats"),
            SampleInput((m((3, 4)), 0, np.asarray([2, 0]), m((2, 4))), {"alpha": 2}, desc="alpha"),
            SampleInput((m((2, 3, 4)), -1, np.asarray([1]), m((2, 3, 1))), desc="3d"),
            SampleInput((m((4, 3)), 0, np.asarray([1, 1]), m((2, 3))), desc="T", noncontig=(0,))]


def _index_copy_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, np.asarray([3, 0]), m((3, 2))), desc="dim1"),
            SampleInput((m((3, 4)), 0, np.asarray([2, 0, 1]), m((3, 4))), desc="all"),
            SampleInput((m((4, 3)), 0, np.asarray([1]), m((1, 3))), desc="T", noncontig=(0,))]


def _index_fill_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), 1, np.asarray([3, 0]), 2), desc="scalar"),
            SampleInput((m((3, 4)), 0, np.asarray([2]), m(())), desc="0d-value"),
            SampleInput((m((4, 3)), 1, np.asarray([0, 2]), m(())), desc="T", noncontig=(0,))]


def _masked_fill_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    b = lambda s: make(rng, s, "bool")  # noqa: E731
    return [SampleInput((m((3, 4)), b((3, 4)), 2), desc="scalar"),
            SampleInput((m((3, 4)), b((4,)), m(())), desc="0d-value,broadcast-mask"),
            SampleInput((m(()), b(()), 1), desc="0d"),
            SampleInput((m((4, 3)), b((4, 3)), m(())), desc="T", noncontig=(0,))]


def _masked_scatter_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    b = lambda s: make(rng, s, "bool")  # noqa: E731
    return [SampleInput((m((3, 4)), b((3, 4)), m((3, 4))), desc="same"),
            SampleInput((m((3, 4)), b((4,)), m((20,))), desc="broadcast-mask,larger-source"),
            SampleInput((m((4, 3)), b((4, 3)), m((2, 6))), desc="T", noncontig=(0,))]


def _take_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), np.asarray([[0, 11], [5, 5]])), desc="2d-index,repeats"),
            SampleInput((m((3, 4)), np.asarray([-1, -12, 3])), desc="negative"),
            SampleInput((m(()), np.asarray(0)), desc="0d"),
            SampleInput((m((4, 3)), np.asarray([1, 7])), desc="T", noncontig=(0,))]


def _put_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), np.asarray([[0, 11], [5, -2]]), m((2, 2))), desc="set"),
            SampleInput((m((3, 4)), np.asarray([1, 1, 4]), m((3,)), True), desc="accumulate,repeats"),
            SampleInput((m((4, 3)), np.asarray([2, 7]), m((2,))), desc="T", noncontig=(0,))]


def _take_along_dim_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), _ints(rng, (3, 2), 4), 1), desc="dim1"),
            SampleInput((m((3, 4)), _ints(rng, (5,), 12)), desc="flat"),
            SampleInput((m((3, 1)), _ints(rng, (1, 4), 3), 0), desc="broadcast"),
            SampleInput((m((4, 3)), _ints(rng, (2, 3), 4), 0), desc="T", noncontig=(0,))]


def _index_put_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), (np.asarray([2, 0]),), m((2, 4))), desc="rows"),
            SampleInput((m((3, 4)), (np.asarray([0, 2]), np.asarray([1, 3])), m(())), desc="points,0d-value"),
            SampleInput((m((3, 4)), (np.asarray([1, 1, 0]), np.asarray([2, 2, 2])), m((3,)), True),
                        desc="accumulate,repeats"),
            SampleInput((m((3, 4)), (make(rng, (3, 4), "bool"),), m(())), desc="mask"),
            SampleInput((m((4, 3)), (np.asarray([1]),), m((3,))), desc="T", noncontig=(0,))]


def _nonzero_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (3, 4), dtype, -1, 1),), desc="2d"),
            SampleInput((make(rng, (5,), dtype, -1, 1),), desc="1d"),
            SampleInput((make(rng, (), dtype, 1, 1),), desc="0d"),
            SampleInput((np.zeros((2, 0), dtype),), desc="empty")]


def _masked_select_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (3, 4), dtype), make(rng, (3, 4), "bool")), desc="same"),
            SampleInput((make(rng, (3, 4), dtype), make(rng, (4,), "bool")), desc="broadcast-mask"),
            SampleInput((make(rng, (4,), dtype), make(rng, (3, 4), "bool")), desc="broadcast-input"),
            SampleInput((make(rng, (4, 3), dtype), make(rng, (4, 3), "bool")), desc="T", noncontig=(0,))]


# --------------------------------------------------------------------------- records
add(name="gather", ref=_gather_ref, sample_inputs=_gather_samples, out_dtype=rule_first, supports_out=True,
    method="gather", table_name="gather")
add(name="scatter", ref=_scatter_ref("set"), sample_inputs=_scatter_samples, out_dtype=rule_first,
    supports_out=True, supports_inplace=True, method="scatter", table_name="scatter")
add(name="scatter_add", ref=_scatter_ref("sum"), sample_inputs=_scatter_add_samples, out_dtype=rule_first,
    supports_out=True, supports_inplace=True, method="scatter_add", table_name="scatter_add")
add(name="scatter_reduce", ref=_scatter_reduce_ref, sample_inputs=_scatter_reduce_samples, out_dtype=rule_first,
    supports_out=True, supports_inplace=True, method="scatter_reduce", table_name="scatter_reduce")
add(name="index_select", ref=_index_select_ref, sample_inputs=_index_select_samples, out_dtype=rule_first,
    supports_out=True, method="index_select", table_name="index_select")
add(name="index_add", ref=_index_write_ref("sum"), sample_inputs=_index_add_samples, out_dtype=rule_first,
    supports_out=True, supports_inplace=True, method="index_add", table_name="index_add")
add(name="index_copy", ref=_index_write_ref("set"), sample_inputs=_index_copy_samples, out_dtype=rule_first,
    supports_out=True, supports_inplace=True, method="index_copy", table_name="index_copy")
add(name="index_fill", ref=_index_fill_ref, sample_inputs=_index_fill_samples, out_dtype=rule_first,
    supports_inplace=True, method="index_fill", table_name="index_fill")
add(name="masked_fill", ref=_masked_fill_ref, sample_inputs=_masked_fill_samples, out_dtype=rule_first,
    supports_inplace=True, method="masked_fill", table_name="masked_fill")
add(name="masked_scatter", ref=_masked_scatter_ref, sample_inputs=_masked_scatter_samples, out_dtype=rule_first,
    supports_inplace=True, method="masked_scatter", table_name="masked_scatter")
add(name="take", ref=_take_ref, sample_inputs=_take_samples, out_dtype=rule_first, supports_out=True,
    method="take", table_name="take")
add(name="put", ref=_put_ref, sample_inputs=_put_samples, out_dtype=rule_first, supports_inplace=True,
    method="put", table_name="put")
add(name="take_along_dim", ref=_take_along_dim_ref, sample_inputs=_take_along_dim_samples, out_dtype=rule_first,
    supports_out=True, method="take_along_dim", table_name="take_along_dim",
    api=lambda xa, x, index, dim=None: xa.take_along_axis(x, index, axis=dim) if dim is not None else
    xa.take_along_axis(xa.reshape(x, (-1,)), xa.reshape(index, (-1,)), axis=0))
add(name="index_put", ref=_index_put_ref, sample_inputs=_index_put_samples, out_dtype=rule_first,
    method="index_put")
add(name="nonzero", ref=lambda m, x: np.argwhere(np.asarray(x)), sample_inputs=_nonzero_samples,
    dtypes=NUMERIC + ("bool",), out_dtype=rule_int64, differentiable=False, method="nonzero")
add(name="argwhere", ref=lambda m, x: np.argwhere(np.asarray(x)), sample_inputs=_nonzero_samples,
    dtypes=NUMERIC + ("bool",), out_dtype=rule_int64, differentiable=False, method="argwhere")
add(name="masked_select", ref=lambda m, x, mask: m.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(mask)))[
    np.broadcast_to(np.asarray(mask), np.broadcast_shapes(np.shape(x), np.shape(mask)))],
    sample_inputs=_masked_select_samples, out_dtype=rule_first, method="masked_select")
