"""Indexing (basic views, advanced-index copies, index_put) and conversions between dtypes and backends."""
import numpy as np

from .._table import defop
from .._index import basic_meta, gather_positions, positions_of


# ------------------------------------------------------------------ indexing
def _getitem_fwd(xp, x, index, backend):
    if backend.native_indexing:
        return x[index]
    return gather_positions(xp, x, positions_of(tuple(x.shape))[index])


def _getitem_vjp(g, ans, x, index, backend):
    positions = positions_of(tuple(x.shape))[index].reshape(-1)
    order = np.argsort(positions, kind="stable")
    ranked = positions[order]
    if ranked.size < 2 or (ranked[1:] != ranked[:-1]).all():
        return g.new_zeros(x.shape).index_put_host(index, g)
    # an advanced index that repeats elements: their gradients add up. Scatter in rounds, each round one
    # occurrence of every repeated element (a scatter keeps only one value per position).
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    rank = np.empty_like(positions)
    rank[order] = np.arange(ranked.size) - np.repeat(starts, np.diff(np.r_[starts, ranked.size]))
    flat = g.reshape(-1)
    total = None
    for r in range(int(rank.max()) + 1):
        picked = np.flatnonzero(rank == r)
        part = g.new_zeros((x.numel(),)).index_put_host((positions[picked],), flat.getitem_host((picked,)))
        total = part if total is None else total + part
    return total.reshape(x.shape)


def _getitem_meta(shape, stride, offset, index, backend):
    return basic_meta(shape, stride, offset, index)


getitem_view = defop("getitem_view", lambda xp, x, index, backend: x[index], (_getitem_vjp,), view=_getitem_meta, saves=(),
                     function=False, method=False, node="SliceBackward0")
getitem_copy = defop("getitem_copy", _getitem_fwd, (_getitem_vjp,), saves=(), function=False, method=False,
                     node="IndexBackward0")


def _index_put_fwd(xp, x, v, index, backend):
    positions = positions_of(tuple(x.shape))[index]
    flat = xp.reshape(x, (-1,))
    values = xp.reshape(xp.broadcast_to(xp.astype(v, x.dtype), positions.shape), (-1,))
    return xp.reshape(backend.scatter_flat(flat, positions.reshape(-1), values), x.shape)


index_put = defop(
    "index_put", _index_put_fwd,
    (lambda g, ans, x, v, index, backend: g.index_put_host(index, g.new_zeros(())),
     lambda g, ans, x, v, index, backend: g.getitem_host(index)),
    saves=(), function=False, method=False, node="IndexPutBackward0")


# ------------------------------------------------------------------ conversion
defop("to_dtype", lambda xp, x, dtype: xp.astype(x, getattr(xp, dtype.name)),
      (lambda g, ans, x, dtype: g.to(x.dtype),), node="ToCopyBackward0", saves=(), function=False,
      method=False)
defop("_to_backend", None, (lambda g, ans, x, adapter: g.to(x.backend),), node="ToCopyBackward0", saves=(),
      function=False, method=False)
