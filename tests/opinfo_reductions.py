"""OpInfo records for the ops in ``xtensor/ops/reductions.py`` (see ``opinfo.py``).

Functions with several results get one record per result (``sort`` -> values, ``sort_indices``).
Index results are checked on samples without ties (floats), or with ``stable=True``, where PyTorch's
choice among tied elements is defined.
"""
import numpy as np

import xtensor as xt

from opinfo import (DT, FLOATS, NUMERIC, SampleInput, _api_reduce, _np_dtype, _reduce_ref, _rng, add, make,
                    reduction_samples, rule_bool, rule_first, rule_float, rule_int64, rule_promote, rule_sum)


def _int_dims(info, dtype):
    """``reduction_samples`` with a single (int) dim, as PyTorch's prod/median/... take."""
    return [s for s in reduction_samples(empty=False)(info, dtype) if len(s.args) == 1 or isinstance(s.args[1], int)]


def _dim_only(info, dtype):
    return [s for s in _int_dims(info, dtype) if len(s.args) > 1 or "dim" in s.kwargs]


def _with_zeros(rng, dtype):
    x = make(rng, (3, 4), dtype)
    x[1, 2] = 0
    y = make(rng, (3, 4), dtype)
    y[0, 1] = y[2, 3] = 0
    return [SampleInput((x,), desc="zero"), SampleInput((x, 1), desc="zero,dim"), SampleInput((y, 0), desc="zeros")]


# ------------------------------------------------------------------ prod, nansum, nanmean
add(name="prod", ref=_reduce_ref(lambda m, x, axis, keepdims, dtype=None: m.prod(
    x, axis=axis, keepdims=keepdims, dtype=_np_dtype(m, dtype))),
    sample_inputs=lambda info, dtype: _int_dims(info, dtype) + _with_zeros(_rng("prod", dtype), dtype) + [
        SampleInput((make(_rng("prod", dtype), (3, 4), dtype), 1), {"dtype": DT("float64")}, desc="dtype64")],
    out_dtype=rule_sum, supports_out=True, method="prod", api=_api_reduce("prod"), table_name="prod")


def _with_nans(rng, dtype):
    if np.dtype(dtype).kind != "f":
        return []
    x = make(rng, (3, 4), dtype)
    x[0, 1] = x[2, 0] = x[2, 3] = np.nan
    return [SampleInput((x,), desc="nan"), SampleInput((x, 1), desc="nan,dim")]


add(name="nansum", ref=_reduce_ref(lambda m, x, axis, keepdims, dtype=None: m.nansum(
    x, axis=axis, keepdims=keepdims, dtype=_np_dtype(m, dtype))),
    sample_inputs=reduction_samples(extra=_with_nans), out_dtype=rule_sum, supports_out=True, method="nansum",
    table_name="nansum")
add(name="nanmean", ref=_reduce_ref(lambda m, x, axis, keepdims, dtype=None: m.nanmean(
    x, axis=axis, keepdims=keepdims)),
    sample_inputs=reduction_samples(empty=False, extra=_with_nans), dtypes=FLOATS, out_dtype=rule_first,
    supports_out=True, method="nanmean", table_name="nanmean")


# ------------------------------------------------------------------ var, std
def _var_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)),), desc="2d"), SampleInput((m((3, 4)), 0), desc="dim0"),
            SampleInput((m((3, 4)), -1), {"keepdim": True}, desc="dim-1,keep"),
            SampleInput((m((2, 3, 4)), (0, 2)), {"correction": 0}, desc="dims(0,2),c0"),
            SampleInput((m((3, 4)), 1, False), desc="unbiased=False"),
            SampleInput((m((5,)),), {"correction": 2}, desc="c2"),
            SampleInput((m((3, 4)), 1), desc="T", noncontig=(0,))]


def _var_ref(f):
    def ref(m, x, dim=None, unbiased=None, keepdim=False, correction=None):
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        return getattr(m, f)(x, axis=dim, ddof=ddof, keepdims=keepdim)
    return ref


def _api_var(name):
    def call(xa, x, dim=None, unbiased=None, keepdim=False, correction=None):
        c = correction if correction is not None else (0 if unbiased is False else 1)
        return getattr(xa, name)(x, axis=dim, correction=c, keepdims=keepdim)
    return call


for _name in ("var", "std"):
    add(name=_name, ref=_var_ref(_name), sample_inputs=_var_samples, dtypes=FLOATS, out_dtype=rule_first,
        supports_out=True, method=_name, api=_api_var(_name), table_name=_name)
    for _i, _part in enumerate(("", "_mean")):
        add(name=f"{_name}_mean{_part}", fn=(lambda n, i: lambda ns: lambda *a, **k: getattr(ns, f"{n}_mean")(
            *a, **k)[i])(_name, _i), ref=_var_ref(_name) if not _i else lambda m, x, dim=None, unbiased=None,
            keepdim=False, correction=None: m.mean(x, axis=dim, keepdims=keepdim),
            sample_inputs=_var_samples, dtypes=FLOATS, out_dtype=rule_first,
            table_name=None if _i else f"{_name}_mean")


# ------------------------------------------------------------------ logsumexp, dist
add(name="logsumexp", ref=lambda m, x, dim, keepdim=False: m.log(m.sum(m.exp(x), axis=None if x.ndim == 0 else dim,
                                                                         keepdims=keepdim)),
    sample_inputs=lambda info, dtype: [s for s in reduction_samples(empty=False)(info, dtype) if len(s.args) > 1
                                       or "dim" in s.kwargs],
    dtypes=NUMERIC, out_dtype=rule_float, supports_out=True, method="logsumexp", table_name="logsumexp")


def _dist_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 4)), m((3, 4))), desc="p2"), SampleInput((m((3, 4)), m((4,)), 1), desc="p1"),
            SampleInput((m((2, 3)), m((2, 3)), 3), desc="p3"), SampleInput((m(()), m(())), desc="0d"),
            SampleInput((m((3, 4)), m((3, 4)), float("inf")), desc="inf"),
            SampleInput((m((3, 4)), m((3, 4)), 0), desc="p0", grad=False), SampleInput((m((3, 4)), m((3, 4))), desc="T",
                                                                          noncontig=(0,))]


add(name="dist", ref=lambda m, x, y, p=2: m.linalg.norm(m.reshape(x - y, (-1,)), ord=p), sample_inputs=_dist_samples,
    dtypes=FLOATS, out_dtype=rule_promote, method="dist", table_name="dist")


# ------------------------------------------------------------------ all, any, count_nonzero
def _truth_samples(info, dtype):
    out = reduction_samples()(info, dtype)
    rng = _rng(info.name, dtype, "zeros")
    x = make(rng, (3, 4), dtype)
    x[1] = 0
    return out + [SampleInput((x,), desc="zeros"), SampleInput((x, 1), desc="zeros,dim")]


def _rule_truth(args, kwargs):
    return np.dtype("uint8") if args[0].dtype == np.uint8 else np.dtype(bool)


def _api_truth(name):
    """The standard answers in bool; PyTorch keeps uint8 (compared in PyTorch's dtype)."""
    def call(xa, x, dim=None, keepdim=False):
        r = _api_reduce(name)(xa, x, dim, keepdim)
        return xa.astype(r, xa.uint8) if x.dtype == xa.uint8 else r
    return call


for _name in ("all", "any"):
    add(name=_name, ref=_reduce_ref((lambda f: lambda m, x, axis, keepdims: getattr(m, f)(
        x, axis=axis, keepdims=keepdims))(_name)), sample_inputs=_truth_samples, dtypes=NUMERIC + ("bool", "uint8"),
        out_dtype=_rule_truth, differentiable=False, supports_out=True, method=_name, api=_api_truth(_name),
        table_name=_name)
add(name="count_nonzero", ref=lambda m, x, dim=None: m.count_nonzero(x, axis=None if x.ndim == 0 else dim),
    sample_inputs=lambda info, dtype: [SampleInput(s.args) for s in _truth_samples(info, dtype) if not s.kwargs],
    dtypes=NUMERIC + ("bool",), out_dtype=rule_int64, differentiable=False, method="count_nonzero",
    api=lambda xa, x, dim=None: xa.count_nonzero(x, axis=None if x.ndim == 0 else dim), table_name="count_nonzero")


# ------------------------------------------------------------------ cumulative
def _cum_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    out = [SampleInput((m((3, 4)), 1), desc="dim1"), SampleInput((m((3, 4)), 0), desc="dim0"),
           SampleInput((m((2, 3, 4)), -2), desc="dim-2"), SampleInput((m(()), 0), desc="0d"),
           SampleInput((m((0, 3)), 0), desc="empty"), SampleInput((m((3, 4)), 1), desc="T", noncontig=(0,))]
    if info.name.startswith(("cumsum", "cumprod")):
        out.append(SampleInput((m((3, 4)), 1), {"dtype": DT("float64")}, desc="dtype64"))
    if info.name.startswith("cumprod"):
        x, y = m((3, 5)), m((2, 6))
        x[0, 2] = x[2, 0] = 0
        y[0, 1] = y[0, 4] = y[1, 5] = 0
        out += [SampleInput((x, 1), desc="zero"), SampleInput((y, 1), desc="zeros")]
    return out


def _cum_ref(f):
    def ref(m, x, dim, dtype=None):
        if x.ndim == 0:
            return x if dtype is None else x.astype(_np_dtype(m, dtype))
        return getattr(m, f)(x, axis=dim, dtype=_np_dtype(m, dtype))
    return ref


add(name="cumsum", ref=_cum_ref("cumsum"), sample_inputs=_cum_samples, out_dtype=rule_sum, supports_out=True,
    supports_inplace=True,
    method="cumsum", table_name="cumsum", api=lambda xa, x, dim, dtype=None: xa.cumulative_sum(x, axis=dim, dtype=dtype))
add(name="cumprod", ref=_cum_ref("cumprod"), sample_inputs=_cum_samples, out_dtype=rule_sum, supports_out=True,
    supports_inplace=True,
    method="cumprod", table_name="cumprod", api=lambda xa, x, dim, dtype=None: xa.cumulative_prod(x, axis=dim, dtype=dtype))


def _running(kind, m, x, dim):
    """(values, indices) of cummax/cummin: a later element takes over when >= (<=) the running one."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x, np.asarray(0)
    moved = np.moveaxis(x, dim, -1)
    values, indices = moved.copy(), np.zeros(moved.shape, dtype=np.int64)
    for i in range(1, moved.shape[-1]):
        prev, cur = values[..., i - 1], moved[..., i]
        take = (cur >= prev) if kind == "max" else (cur <= prev)
        values[..., i] = np.where(take, cur, prev)
        indices[..., i] = np.where(take, i, indices[..., i - 1])
    return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)


def _running_jax(kind):
    def ref(m, x, dim):
        import jax
        if x.ndim == 0:
            return x
        return (jax.lax.cummax if kind == "max" else jax.lax.cummin)(x, axis=dim % x.ndim)
    return ref


for _kind in ("max", "min"):
    add(name=f"cum{_kind}", fn=(lambda k: lambda ns: lambda x, dim: getattr(ns, f"cum{k}")(x, dim).values)(_kind),
        ref=(lambda k: lambda m, x, dim: _running(k, m, x, dim)[0])(_kind), jax_ref=_running_jax(_kind),
        sample_inputs=lambda info, dtype: [s for s in _cum_samples(info, dtype) if s.desc != "empty"],
        out_dtype=rule_first, method=(lambda k: lambda x, dim: getattr(x, f"cum{k}")(dim)[0])(_kind),
        table_name=f"cum{_kind}")
    add(name=f"cum{_kind}_indices", fn=(lambda k: lambda ns: lambda x, dim: getattr(ns, f"cum{k}")(x, dim).indices)(
        _kind), ref=(lambda k: lambda m, x, dim: _running(k, m, x, dim)[1])(_kind), out_dtype=rule_int64,
        sample_inputs=lambda info, dtype: [s for s in _cum_samples(info, dtype) if s.desc != "empty"],
        differentiable=False)


# ------------------------------------------------------------------ diff
def _diff_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 5)),), desc="last"), SampleInput((m((3, 5)), 2, 0), desc="n2,dim0"),
            SampleInput((m((3, 5)), 1, -1, m((3, 2)), m((3, 1))), desc="pend"),
            SampleInput((m((4,)), 5), desc="n>len"), SampleInput((m((3, 5)),), desc="T", noncontig=(0,))]


add(name="diff", ref=lambda m, x, n=1, dim=-1, prepend=None, append=None: m.diff(
    x, n, axis=dim, **{k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}),
    sample_inputs=_diff_samples, dtypes=NUMERIC + ("bool",), out_dtype=rule_first, method="diff",
    api=lambda xa, x, n=1, dim=-1, prepend=None, append=None: xa.diff(x, axis=dim, n=n, prepend=prepend,
                                                                       append=append), table_name="diff")


# ------------------------------------------------------------------ sorting and selection
def _sort_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 5)),), {"stable": True}, desc="last"),
            SampleInput((m((3, 5)), 0), {"stable": True}, desc="dim0"),
            SampleInput((m((3, 5)),), {"descending": True, "stable": True}, desc="desc"),
            SampleInput((m((2, 3, 4)), 1, True), {"stable": True}, desc="dim1,desc"),
            SampleInput((m(()),), {"stable": True}, desc="0d"),
            SampleInput((m((3, 5)), 1), {"stable": True}, desc="T", noncontig=(0,))]


def _sort_ref(m, x, dim=-1, descending=False, stable=True):
    if x.ndim == 0:
        return x
    s = m.sort(x, axis=dim)
    return m.flip(s, axis=dim) if descending else s


def _argsort_ref(m, x, dim=-1, descending=False, stable=True):
    if x.ndim == 0:
        return np.asarray(0)
    # stable descending: the ascending stable order of the reversed array, reversed and mapped back
    if descending:
        n = x.shape[dim]
        return n - 1 - np.flip(np.argsort(np.flip(x, axis=dim), axis=dim, kind="stable"), axis=dim)
    return np.argsort(x, axis=dim, kind="stable")


def _api_sort(name):
    def call(xa, x, dim=-1, descending=False, stable=True):
        return getattr(xa, name)(x, axis=dim, descending=descending, stable=stable)
    return call


add(name="sort", fn=lambda ns: lambda *a, **k: ns.sort(*a, **k).values, ref=_sort_ref, sample_inputs=_sort_samples,
    out_dtype=rule_first, method=lambda x, *a, **k: x.sort(*a, **k)[0], api=_api_sort("sort"), table_name="sort")
add(name="sort_indices", fn=lambda ns: lambda *a, **k: ns.sort(*a, **k).indices, ref=_argsort_ref,
    sample_inputs=_sort_samples, out_dtype=rule_int64, differentiable=False,
    method=lambda x, *a, **k: x.sort(*a, **k)[1])
add(name="argsort", ref=_argsort_ref, sample_inputs=_sort_samples, out_dtype=rule_int64, differentiable=False,
    method="argsort", api=_api_sort("argsort"), table_name="argsort")
add(name="msort", ref=lambda m, x: m.sort(x, axis=0), sample_inputs=lambda info, dtype: [
    SampleInput((make(_rng("msort", dtype), s, dtype),), desc=d, noncontig=nc)
    for s, d, nc in (((4, 3), "2d", ()), ((5,), "1d", ()), ((3, 4), "T", (0,)))],
    out_dtype=rule_first, method="msort", table_name="msort")


def _topk_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 5)), 2), desc="k2"), SampleInput((m((3, 5)), 3, 0), desc="dim0"),
            SampleInput((m((3, 5)), 2), {"largest": False}, desc="smallest"),
            SampleInput((m((6,)), 6), desc="all"), SampleInput((m((3, 5)), 0), desc="k0"),
            SampleInput((m((3, 5)), 2), desc="T", noncontig=(0,))]


def _order_ref(m, x, dim, descending=False):
    """The stable sorting order: numpy's, or jax's (of the value without gradient) inside jax.vjp."""
    if m is np:
        return _argsort_ref(np, x, dim, descending)
    import jax
    return np.asarray(0) if x.ndim == 0 else m.argsort(jax.lax.stop_gradient(x), axis=dim, stable=True,
                                                       descending=descending)


def _topk_ref(indices):
    def ref(m, x, k, dim=-1, largest=True, sorted=True):
        order = _order_ref(m, x, dim, descending=largest)
        order = m.take(order, m.arange(k), axis=dim)
        return order if indices else m.take_along_axis(x, order, axis=dim)
    return ref


def _values_and_indices(name, ref_of, samples, **index_options):
    """Records for a function with PyTorch's ``(values, indices)`` result: one per part (``ref_of(indices)``)."""
    add(name=name, fn=lambda ns: lambda *a, **k: getattr(ns, name)(*a, **k).values, ref=ref_of(False),
        sample_inputs=samples, out_dtype=rule_first, method=lambda x, *a, **k: getattr(x, name)(*a, **k)[0],
        table_name=name)
    add(name=f"{name}_indices", fn=lambda ns: lambda *a, **k: getattr(ns, name)(*a, **k).indices, ref=ref_of(True),
        sample_inputs=samples, out_dtype=rule_int64, differentiable=False,
        method=lambda x, *a, **k: getattr(x, name)(*a, **k)[1], **index_options)


_values_and_indices("topk", _topk_ref, _topk_samples, dtypes=FLOATS)


def _kth_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput((m((3, 5)), 2), desc="k2"), SampleInput((m((3, 5)), 3, 0), desc="dim0"),
            SampleInput((m((3, 5)), 1, -1, True), desc="keep"), SampleInput((m(()), 1), desc="0d"),
            SampleInput((m((3, 5)), 5), desc="T", noncontig=(0,))]


def _kth_ref(indices):
    def ref(m, x, k, dim=-1, keepdim=False):
        if x.ndim == 0:
            return np.asarray(0) if indices else x
        order = m.take(_order_ref(m, x, dim), m.asarray([k - 1]), axis=dim)
        r = order if indices else m.take_along_axis(x, order, axis=dim)
        return r if keepdim else r.squeeze(dim)
    return ref


_values_and_indices("kthvalue", _kth_ref, _kth_samples, dtypes=FLOATS)


def _median_samples(info, dtype):
    out = [s for s in _int_dims(info, dtype)]
    rng = _rng(info.name, dtype, "even")
    out.append(SampleInput((make(rng, (2, 4), dtype), 1), desc="even"))
    if np.dtype(dtype).kind == "f":
        x = make(rng, (3, 4), dtype)
        x[0, 1] = x[2, 0] = x[2, 3] = np.nan
        out += [SampleInput((x,), desc="nan", grad=False), SampleInput((x, 1), desc="nan,dim", grad=False)]
    return out


def _lower_median(ignore_nan, indices=False):
    def ref(m, x, dim=None, keepdim=False):
        flat = dim is None or x.ndim == 0
        a = m.reshape(x, (-1,)) if flat else m.moveaxis(x, dim, -1)
        host = np.asarray(a) if m is np else None
        order = np.argsort(host if host is not None else np.zeros(a.shape), axis=-1, kind="stable") \
            if host is not None else None
        n = a.shape[-1]
        if host is None:  # jax (gradients): samples without NaN, so the sorted element at (n - 1) // 2
            r = m.sort(a, axis=-1)[..., (n - 1) // 2]
        else:
            nans = np.isnan(host).sum(-1) if host.dtype.kind == "f" else np.zeros(host.shape[:-1], int)
            pos = np.maximum((n - nans - 1) // 2, 0) if ignore_nan else np.where(nans > 0, n - nans, (n - 1) // 2)
            idx = np.take_along_axis(order, pos[..., None], axis=-1)[..., 0]
            r = idx if indices else np.take_along_axis(host, idx[..., None], axis=-1)[..., 0]
        if flat or not keepdim:
            return r
        return m.expand_dims(r, dim)
    return ref


for _name, _ignore in (("median", False), ("nanmedian", True)):
    add(name=_name, ref=_lower_median(_ignore), sample_inputs=lambda info, dtype: [
        s for s in _median_samples(info, dtype) if len(s.args) == 1 and not s.kwargs], out_dtype=rule_first,
        method=_name,
        table_name=_name)
    add(name=f"{_name}_dim", fn=(lambda n: lambda ns: lambda *a, **k: getattr(ns, n)(*a, **k).values)(_name),
        ref=_lower_median(_ignore), sample_inputs=lambda info, dtype: [
            s for s in _median_samples(info, dtype) if len(s.args) > 1 or s.kwargs], out_dtype=rule_first,
        method=(lambda n: lambda x, *a, **k: getattr(x, n)(*a, **k)[0])(_name))
    add(name=f"{_name}_dim_indices", fn=(lambda n: lambda ns: lambda *a, **k: getattr(ns, n)(*a, **k).indices)(_name),
        ref=_lower_median(_ignore, indices=True), dtypes=FLOATS, sample_inputs=lambda info, dtype: [
            s for s in _median_samples(info, dtype) if len(s.args) > 1 or s.kwargs], out_dtype=rule_int64,
        differentiable=False)


def _mode_samples(info, dtype):
    rng = _rng(info.name, dtype)
    out = [SampleInput((make(rng, (3, 6), dtype),), desc="last"), SampleInput((make(rng, (4, 3), dtype), 0), desc="dim0"),
           SampleInput((make(rng, (3, 6), dtype), 1, True), desc="keep")]
    if np.dtype(dtype).kind in "iu":
        out.append(SampleInput((make(rng, (2, 9), dtype, -1, 1), -1), desc="repeats"))
    return out


def _mode_ref(indices):
    """The most frequent value (the smallest of equally frequent ones) and the last index it is at."""
    def ref(m, x, dim=-1, keepdim=False):
        if m is not np:  # jax, gradients: samples of distinct floats, whose mode is their minimum
            return m.min(x, axis=dim, keepdims=keepdim)
        moved = np.moveaxis(x, dim, -1)
        vals = np.empty(moved.shape[:-1], x.dtype)
        idx = np.empty(moved.shape[:-1], np.int64)
        for pos in np.ndindex(moved.shape[:-1]):
            row = moved[pos]
            uniq, counts = np.unique(row, return_counts=True)
            vals[pos] = uniq[np.argmax(counts)]
            idx[pos] = np.flatnonzero(row == vals[pos])[-1]
        r = idx if indices else vals
        return np.expand_dims(r, dim) if keepdim else r
    return ref


_values_and_indices("mode", _mode_ref, _mode_samples)


# ------------------------------------------------------------------ searching
def _searchsorted_samples(info, dtype):
    rng = _rng(info.name, dtype)
    seq = np.sort(make(rng, (6,), dtype))
    rows = np.sort(make(rng, (2, 5), dtype), axis=-1)
    return [SampleInput((seq, make(rng, (4,), dtype)), desc="1d"),
            SampleInput((seq, make(rng, (2, 3), dtype)), {"right": True}, desc="right"),
            SampleInput((seq, seq.copy()), {"side": "right"}, desc="ties"),
            SampleInput((rows, make(rng, (2, 3), dtype)), desc="batched"),
            SampleInput((rows, rows.copy()), {"right": True}, desc="batched,ties")]


def _searchsorted_ref(m, seq, values, right=False, side=None):
    side = side or ("right" if right else "left")
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side)
    return np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, values)])


def _api_searchsorted(xa, seq, values, right=False, side=None):
    """The standard's searchsorted takes a 1-d sequence: batched samples go row by row."""
    side = side or ("right" if right else "left")
    if seq.ndim == 1:
        return xa.searchsorted(seq, values, side=side)
    return xa.stack([xa.searchsorted(seq[i], values[i], side=side) for i in range(seq.shape[0])])


add(name="searchsorted", ref=_searchsorted_ref, sample_inputs=_searchsorted_samples, out_dtype=rule_int64,
    differentiable=False, api=_api_searchsorted, table_name="searchsorted")


def _bincount_samples(info, dtype):
    rng = _rng(info.name, dtype)
    x = np.asarray(rng.integers(0, 6, size=10))
    return [SampleInput((x,), desc="counts"), SampleInput((x,), {"minlength": 9}, desc="minlength"),
            SampleInput((x, make(rng, (10,), "float64")), desc="weights"),
            SampleInput((x,), {"weights": make(rng, (10,), "float32")}, desc="weights32"),
            SampleInput((np.zeros(0, dtype=np.int64),), desc="empty")]


def _rule_bincount(args, kwargs):
    weights = args[1] if len(args) > 1 else kwargs.get("weights")
    return np.dtype("int64") if weights is None else weights.dtype


add(name="bincount", ref=lambda m, x, weights=None, minlength=0: np.bincount(x, weights, minlength),
    sample_inputs=_bincount_samples, dtypes=("int64",), out_dtype=_rule_bincount, differentiable=False,
    method="bincount", table_name="bincount")


# ------------------------------------------------------------------ comparisons of whole tensors
def _close_samples(info, dtype):
    rng = _rng(info.name, dtype)
    x = make(rng, (3, 4), dtype)
    near = x + (np.where(rng.random((3, 4)) < 0.5, 1e-9, 1e-3) if np.dtype(dtype).kind == "f" else 0)
    other = x.copy()
    other.flat[3] += 1
    out = [SampleInput((x, near.astype(dtype)), desc="near"), SampleInput((x, other), desc="one-off"),
           SampleInput((x, x.copy()), desc="equal")]
    if np.dtype(dtype).kind == "f":
        special = np.array([np.nan, np.inf, -np.inf, 1.0], dtype)
        out += [SampleInput((special, special.copy()), desc="special"),
                SampleInput((special, special.copy()), {"equal_nan": True}, desc="equal_nan"),
                SampleInput((x, near.astype(dtype)), {"rtol": 0, "atol": 1e-6}, desc="atol")]
    return out


add(name="isclose", ref=lambda m, x, y, rtol=1e-05, atol=1e-08, equal_nan=False: np.isclose(x, y, rtol, atol, equal_nan),
    sample_inputs=_close_samples, out_dtype=rule_bool, differentiable=False, method="isclose", table_name="isclose")
add(name="allclose", fn=lambda ns: lambda x, *a, **k: x.new_tensor(ns.allclose(x, *a, **k), dtype=ns.bool),
    ref=lambda m, x, y, rtol=1e-05, atol=1e-08, equal_nan=False: np.allclose(x, y, rtol, atol, equal_nan),
    sample_inputs=_close_samples, out_dtype=rule_bool, differentiable=False, table_name="allclose",
    method=lambda x, *a, **k: x.new_tensor(x.allclose(*a, **k), dtype=xt.bool))
add(name="equal", fn=lambda ns: lambda x, y: x.new_tensor(ns.equal(x, y), dtype=ns.bool),
    ref=lambda m, x, y: np.array_equal(x, y), sample_inputs=lambda info, dtype: [
        SampleInput(s.args, desc=s.desc) for s in _close_samples(info, dtype) if not s.kwargs],
    out_dtype=rule_bool, differentiable=False, table_name="equal",
    method=lambda x, y: x.new_tensor(x.equal(y), dtype=xt.bool))


# ------------------------------------------------------------------ unique
def _unique_samples(info, dtype):
    rng = _rng(info.name, dtype)
    x = make(rng, (3, 4), dtype, -2, 2)
    if np.dtype(dtype).kind == "f":
        x = np.round(x)  # repeats
    return [SampleInput((x,), desc="2d"), SampleInput((x.reshape(-1),), {"sorted": True}, desc="1d"),
            SampleInput((make(rng, (0,), dtype),), desc="empty")]


for _i, _part in enumerate(("", "_inverse", "_counts")):
    add(name=f"unique{_part}", fn=(lambda i: lambda ns: lambda x, **k: ns.unique(
        x, return_inverse=True, return_counts=True, **k)[i])(_i),
        ref=(lambda i: lambda m, x, **k: (lambda r: (r[0], r[1].reshape(x.shape), r[2])[i])(
            np.unique(x, return_inverse=True, return_counts=True)))(_i),
        sample_inputs=_unique_samples, out_dtype=rule_first if not _i else rule_int64, differentiable=False,
        table_name="unique" if not _i else None,
        method=(lambda i: lambda x, **k: x.unique(return_inverse=True, return_counts=True, **k)[i])(_i))


def _isin_samples(info, dtype):
    rng = _rng(info.name, dtype)
    x = make(rng, (3, 4), dtype)
    test = np.concatenate([x.reshape(-1)[:5], make(rng, (3,), dtype)])
    return [SampleInput((x, test), desc="2d"), SampleInput((x, test), {"invert": True}, desc="invert"),
            SampleInput((x[0, 0], test), desc="0d"), SampleInput((x, x[:0, 0]), desc="empty-test"),
            SampleInput((x, test.reshape(2, 4)), desc="2d-test")]


add(name="isin", ref=lambda m, x, t, invert=False: np.isin(x, t, invert=invert), sample_inputs=_isin_samples,
    out_dtype=rule_bool, differentiable=False, api=lambda xa, x, t, invert=False: xa.isin(x, t, invert=invert),
    table_name="isin")
