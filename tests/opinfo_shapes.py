"""OpInfo records for the ops in ``xtensor/ops/shapes.py`` (see ``opinfo.py``).

Ops that return several tensors (``split``, ``chunk``, ``unbind``, ``broadcast_tensors``) are tested
through one tensor joining all their pieces (``_joined``), so every piece's values and gradients are
checked. References are written with the array module ``m`` only (numpy or jax.numpy).
"""
import numpy as np

from opinfo import SampleInput, _rng, _shape_samples, add, make, rule_first, rule_listed

import xtensor as xt


def _joined(ns, pieces):
    """The pieces of a multi-output op, flattened and joined: one tensor to compare."""
    pieces = list(pieces)
    cat = getattr(ns, "cat", None) or ns.concat
    return cat([p.reshape(-1) for p in pieces]) if pieces else ns.zeros(0)


def _ref_joined(m, pieces):
    return m.concatenate([m.reshape(p, (-1,)) for p in pieces])


def _slices(x, dim, sizes):
    """The consecutive pieces of ``x`` of ``sizes`` along ``dim``."""
    out, start = [], 0
    for n in sizes:
        out.append(x[(slice(None),) * (dim % x.ndim) + (slice(start, start + n),)])
        start += n
    return out


# ------------------------------------------------------------------ views
def _diagonal_ref(m, x, offset=0, dim1=0, dim2=1):
    return m.diagonal(x, offset, dim1, dim2)


add(name="diagonal", ref=_diagonal_ref, sample_inputs=_shape_samples(
    (((3, 4),), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 0, 1, 2), ((2, 3, 4), 1, -1, 0), ((3, 4), 5)),
    transposed=(((4, 3),), ((4, 3), 1))),
    out_dtype=rule_first, method="diagonal", table_name="diagonal")


def _unfold_ref(m, x, dim, size, step):
    dim %= x.ndim
    windows = (x.shape[dim] - size) // step + 1
    index = np.arange(windows)[:, None] * step + np.arange(size)
    return m.moveaxis(m.take(x, index.reshape(-1), axis=dim).reshape(
        x.shape[:dim] + (windows, size) + x.shape[dim + 1:]), dim + 1, -1)


add(name="unfold", fn=lambda ns: lambda x, *a: x.unfold(*a), ref=_unfold_ref, sample_inputs=_shape_samples(
    (((8,), 0, 3, 2), ((2, 5), 1, 3, 1), ((2, 5), 1, 2, 3), ((4, 3), 0, 4, 1), ((4, 3), -1, 1, 1)),
    transposed=(((2, 5), 1, 3, 1),)),
    out_dtype=rule_first, method=lambda x, *a: x.unfold(*a))


def _as_strided_ref(m, x, size, stride, offset=0):
    positions = offset + sum(np.arange(n).reshape((-1,) + (1,) * (len(size) - i - 1)) * st
                             for i, (n, st) in enumerate(zip(size, stride)))
    return m.reshape(x, (-1,))[np.broadcast_to(positions, size)]


add(name="as_strided", ref=_as_strided_ref, sample_inputs=_shape_samples(
    (((3, 4), (2, 2), (1, 2)), ((3, 4), (3, 3), (4, 1), 1), ((3, 4), (2, 3), (0, 1)), ((5,), (3, 2), (1, 1)),
     ((2, 3), (), (), 4))),
    out_dtype=rule_first, method="as_strided", table_name="as_strided")

_MOVES = (((2, 3, 4), 0, 2), ((2, 3, 4), (0, 1), (2, 0)), ((2, 3, 4), -1, 0), ((3, 4), 1, 0))
add(name="movedim", ref=lambda m, x, s, d: m.moveaxis(x, s, d), sample_inputs=_shape_samples(
    _MOVES, transposed=(((4, 3), 0, 1),)), out_dtype=rule_first, method="movedim", table_name="movedim")
add(name="moveaxis", ref=lambda m, x, s, d: m.moveaxis(x, s, d), sample_inputs=_shape_samples(_MOVES),
    out_dtype=rule_first, method="moveaxis", table_name="moveaxis", api="moveaxis")
for _name in ("swapaxes", "swapdims"):
    add(name=_name, ref=lambda m, x, a, b: m.swapaxes(x, a, b), sample_inputs=_shape_samples(
        (((2, 3, 4), 0, 2), ((3, 4), -1, 0), ((5,), 0, 0)), transposed=(((4, 3), 0, 1),)),
        out_dtype=rule_first, method=_name, table_name=_name)


def _unflatten_ref(m, x, dim, sizes):
    d = dim % x.ndim
    return m.reshape(x, x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


add(name="unflatten", ref=_unflatten_ref, sample_inputs=_shape_samples(
    (((2, 12), 1, (3, 4)), ((2, 12), -1, (2, -1, 3)), ((6,), 0, (2, 3)), ((4, 3), 0, (4, 1)))),
    out_dtype=rule_first, method="unflatten", table_name="unflatten")


def _split_ref(m, x, split, dim=0):
    n = x.shape[dim]
    sizes = [min(split, n - s) for s in range(0, n, split)] if isinstance(split, int) else split
    return _ref_joined(m, _slices(x, dim, sizes))


def _chunk_ref(m, x, chunks, dim=0):
    return _split_ref(m, x, -(-x.shape[dim] // chunks), dim)


def _unbind_ref(m, x, dim=0):
    return _ref_joined(m, [m.take(x, i, axis=dim) for i in range(x.shape[dim])])


def _pieces(name):
    return lambda ns: lambda *a, **k: _joined(ns, getattr(ns, name)(*a, **k))


def _piece_method(name):
    return lambda x, *a, **k: _joined(xt, getattr(x, name)(*a, **k))


add(name="split", fn=_pieces("split"), ref=_split_ref, sample_inputs=_shape_samples(
    (((5, 4), 2), ((5, 4), [1, 4]), ((3, 5), 2, 1), ((3, 5), [2, 0, 3], -1), ((4,), 4))),
    out_dtype=rule_first, method=_piece_method("split"), table_name="split")
add(name="chunk", fn=_pieces("chunk"), ref=_chunk_ref, sample_inputs=_shape_samples(
    (((5, 4), 2), ((5, 4), 3, 1), ((3, 7), 3, -1), ((2,), 3))),
    out_dtype=rule_first, method=_piece_method("chunk"), table_name="chunk")
add(name="unbind", fn=_pieces("unbind"), ref=_unbind_ref, sample_inputs=_shape_samples(
    (((3, 4),), ((3, 4), 1), ((2, 3, 4), -1)), transposed=(((4, 3), 1),)),
    out_dtype=rule_first, method=_piece_method("unbind"), table_name="unbind",
    api=lambda xa, x, dim=0: _joined(xa, xa.unstack(x, axis=dim)))

# ------------------------------------------------------------------ copies
add(name="flip", ref=lambda m, x, dims: m.flip(x, axis=tuple(dims)), sample_inputs=_shape_samples(
    (((3, 4), (0,)), ((2, 3, 4), (0, 2)), ((3, 4), (-1,)), ((), ()), ((3, 4), ())), transposed=(((4, 3), (1,)),)),
    out_dtype=rule_first, method="flip", table_name="flip", api=lambda xa, x, dims: xa.flip(x, axis=dims))
add(name="fliplr", ref=lambda m, x: m.fliplr(x), sample_inputs=_shape_samples((((3, 4),), ((2, 3, 4),))),
    out_dtype=rule_first, method="fliplr", table_name="fliplr")
add(name="flipud", ref=lambda m, x: m.flipud(x), sample_inputs=_shape_samples((((3, 4),), ((5,),))),
    out_dtype=rule_first, method="flipud", table_name="flipud")
add(name="roll", ref=lambda m, x, shifts, dims=None: m.roll(x, shifts, axis=dims), sample_inputs=_shape_samples(
    (((3, 4), 1, 0), ((3, 4), (1, -2), (0, 1)), ((3, 4), 5), ((2, 3, 4), -1, -1), ((), 2)),
    transposed=(((4, 3), 1, 1),)),
    out_dtype=rule_first, method="roll", table_name="roll",
    api=lambda xa, x, shifts, dims=None: xa.roll(x, shifts, axis=dims))
def _constant_pad_ref(m, x, pad, value=0):
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    crop = tuple(slice(max(-before, 0), n - max(-after, 0)) for (before, after), n in zip(widths, x.shape))
    return m.pad(x[crop], [(max(before, 0), max(after, 0)) for before, after in widths], constant_values=value)


add(name="constant_pad_nd", ref=_constant_pad_ref, sample_inputs=_shape_samples(
    (((3, 4), (1, 2)), ((3, 4), (1, -2, 0, 1), 1), ((2, 3, 4), (0, 0, -1, 2)), ((3,), ()), ((0, 2), (1, 1))),
    transposed=(((4, 3), (2, 0, 1, -1)),)),
    out_dtype=rule_first, table_name="constant_pad_nd")
add(name="repeat", fn=lambda ns: lambda x, *s: x.repeat(*s),
    ref=lambda m, x, *s: m.tile(x, s[0] if len(s) == 1 and not isinstance(s[0], int) else s),
    sample_inputs=_shape_samples((((2, 3), 2, 1), ((2, 3), 1, 2, 2), ((3,), (2, 2)), ((), 3), ((2, 3), 0, 1)),
                                 transposed=(((3, 2), 2, 2),)),
    out_dtype=rule_first, method=lambda x, *s: x.repeat(*s))
add(name="tile", ref=lambda m, x, reps: m.tile(x, reps), sample_inputs=_shape_samples(
    (((2, 3), (2,)), ((2, 3), (2, 1, 2)), ((3,), (2,)), ((), (2, 2)))),
    out_dtype=rule_first, method="tile", table_name="tile", api=lambda xa, x, reps: xa.tile(x, reps))


def _repeat_interleave_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (2, 3), dtype), 2), desc="flat"),
            SampleInput((make(rng, (2, 3), dtype), 2, 1), desc="dim1"),
            SampleInput((make(rng, (2, 3), dtype), np.asarray([1, 0, 2]), 1), desc="counts"),
            SampleInput((make(rng, (4,), dtype), 3, 0), desc="1d"),
            SampleInput((make(rng, (), dtype), 2), desc="0d")]


add(name="repeat_interleave", ref=lambda m, x, r, dim=None: m.repeat(x, r, axis=dim),
    sample_inputs=_repeat_interleave_samples, out_dtype=rule_first, method="repeat_interleave",
    table_name="repeat_interleave", api=lambda xa, x, r, dim=None: xa.repeat(x, r, axis=dim))
add(name="broadcast_to", ref=lambda m, x, shape: m.broadcast_to(x, shape), sample_inputs=_shape_samples(
    (((3, 1), (2, 3, 4)), ((), (2,)), ((4,), (3, 4)))), out_dtype=rule_first, method="broadcast_to",
    table_name="broadcast_to", api=lambda xa, x, shape: xa.broadcast_to(x, shape))


def _broadcast_samples(info, dtype):
    rng = _rng(info.name, dtype)
    return [SampleInput((make(rng, (3, 1), dtype), make(rng, (4,), dtype)), desc="both"),
            SampleInput((make(rng, (), dtype), make(rng, (2, 3), dtype), make(rng, (3,), dtype)), desc="three")]


add(name="broadcast_tensors", fn=_pieces("broadcast_tensors"),
    ref=lambda m, *xs: _ref_joined(m, m.broadcast_arrays(*xs)), sample_inputs=_broadcast_samples,
    out_dtype=rule_first, table_name="broadcast_tensors",
    api=lambda xa, *xs: _joined(xa, xa.broadcast_arrays(*xs)))
add(name="ravel", ref=lambda m, x: m.ravel(x), sample_inputs=_shape_samples(
    (((3, 4),), ((),), ((2, 3, 4),)), transposed=(((4, 3),),)),
    out_dtype=rule_first, method="ravel", table_name="ravel")


def _stack_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput(([m((3,)), m((3,))],), desc="1d"), SampleInput(([m((2, 3)), m((2, 3))],), desc="2d"),
            SampleInput(([m(()), m(())],), desc="0d"), SampleInput(([m((2, 3, 4)), m((2, 3, 4))],), desc="3d")]


def _column_stack_samples(info, dtype):
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    return [SampleInput(([m((3,)), m((3, 2))],), desc="1d,2d"), SampleInput(([m(()), m(())],), desc="0d"),
            SampleInput(([m((2, 3)), m((2, 1))],), desc="2d")]


for _name, _samples in (("hstack", _stack_samples), ("vstack", _stack_samples), ("row_stack", _stack_samples),
                        ("dstack", _stack_samples), ("column_stack", _column_stack_samples)):
    add(name=_name, ref=(lambda n: lambda m, ts: getattr(m, "vstack" if n == "row_stack" else n)(ts))(_name),
        sample_inputs=_samples,
        out_dtype=rule_listed, supports_out=True, table_name=_name)
for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    add(name=_name, ref=(lambda n: lambda m, x: getattr(m, n)(x))(_name), sample_inputs=_shape_samples(
        (((),), ((3,),), ((2, 3),), ((2, 3, 4),))), out_dtype=rule_first, table_name=_name)
