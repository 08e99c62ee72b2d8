"""Random PyTorch programs of views, in-place writes and a backward pass, for differential testing.

A program is a tuple of steps ``(kind, source)``: ``("stmt", "a0 = base[0]")`` is one line of Python run
with ``torch`` bound to a namespace (``torch`` itself, or ``xtensor`` under ``use_backend``), and
``("read", "a0")`` records what a PyTorch user can see of that expression (values, shape, dtype,
``requires_grad``, ``grad_fn`` name, ``is_leaf``). The same tuple prints as plain PyTorch code
(``program_source``) and replays anywhere (``run``), so a failure is reported as code one can paste into
a PyTorch session. ``programs()`` is the hypothesis strategy; ``first_difference`` compares two runs.

This module is a helper of ``tests/test_views_fuzz.py`` and ``tests/test_views_inplace_autograd.py``.
"""
import math
import re
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

ERROR_TYPES = (IndexError, ValueError, TypeError, RuntimeError)  # the types compared; subclasses map to them
BASE_SHAPES = [(2, 3, 4), (3, 4), (2, 3), (4,), (2, 1, 3), (1, 4), (2, 2, 2), (6,)]
READ_HELPER = ("def read(t):  # what the differential run compares\n"
               "    print(t, t.shape, t.dtype, t.requires_grad, t.grad_fn, t.is_leaf)")


# ---------------------------------------------------------------------------------------------- running

@lru_cache(maxsize=4096)
def _compiled(source, mode):
    return compile(source, "<program>", mode)


def _classify(error):
    for kind in ERROR_TYPES:
        if isinstance(error, kind):
            return kind.__name__
    return type(error).__name__  # any other type is a difference by itself


def _observe(t):
    """What a user sees of ``t``: None, or a dict of values (float64 numpy) and autograd metadata."""
    if t is None:
        return None
    values = np.array(t.detach().numpy(), dtype=np.float64)  # a copy: later writes must not change it
    return {"values": values, "shape": tuple(t.shape),
            "dtype": str(t.dtype).rsplit(".", 1)[-1], "requires_grad": bool(t.requires_grad),
            "grad_fn": None if t.grad_fn is None else type(t.grad_fn).__name__, "is_leaf": bool(t.is_leaf)}


def run(ns, program):
    """Run ``program`` with ``torch`` bound to ``ns``: a record per read, and the first error (then stop)."""
    env = {"torch": ns}
    records = []
    for index, (kind, source) in enumerate(program):
        try:
            if kind == "read":
                records.append({"step": index, "kind": "read", "source": source,
                                "seen": _observe(eval(_compiled(source, "eval"), env))})
            else:
                exec(_compiled(source, "exec"), env)
        except Exception as e:  # noqa: BLE001 -- every error is an outcome to compare
            records.append({"step": index, "kind": "error", "source": source, "error": _classify(e),
                            "message": f"{type(e).__name__}: {e}"[:300]})
            break
    return records


def _tolerance(dtype):
    return 1e-5 if dtype == "float32" else 1e-10


def _seen_difference(expected, actual):
    if (expected is None) != (actual is None):
        return f"expected {'None' if expected is None else 'a tensor'}, got {'None' if actual is None else 'a tensor'}"
    if expected is None:
        return None
    for key in ("shape", "dtype", "requires_grad", "grad_fn", "is_leaf"):
        if expected[key] != actual[key]:
            return f"{key}: expected {expected[key]!r}, got {actual[key]!r}"
    want, got = expected["values"], actual["values"]
    tol = _tolerance(expected["dtype"])
    scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    if not np.allclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True):
        return f"values: expected\n{want}\ngot\n{got}"
    return None


def first_difference(expected, actual):
    """The first difference between two runs' records (expected: PyTorch's), as text; None if they agree."""
    for want, got in zip(expected, actual):
        where = f"step {want['step']} `{want['source']}`"
        if (want["kind"], want["step"]) != (got["kind"], got["step"]):
            return (f"{where}: expected {_outcome(want)}; got at step {got['step']} `{got['source']}` "
                    f"{_outcome(got)}")
        if want["kind"] == "error":
            if want["error"] != got["error"]:
                return f"{where}: expected {want['message']}; got {got['message']}"
            continue
        difference = _seen_difference(want["seen"], got["seen"])
        if difference:
            return f"{where}: {difference}"
    if len(expected) != len(actual):
        longer, who = (expected, "expected") if len(expected) > len(actual) else (actual, "got")
        extra = longer[min(len(expected), len(actual))]
        return f"{who} one more outcome, at step {extra['step']} `{extra['source']}`: {_outcome(extra)}"
    return None


def _outcome(record):
    return record["message"] if record["kind"] == "error" else "a read"


def program_source(program):
    """The program as plain PyTorch code (``read`` prints what the differential run compares)."""
    lines = ["import torch", READ_HELPER, ""]
    lines += [f"read({source})" if kind == "read" else source for kind, source in program]
    return "\n".join(lines)


def program_from_source(text):
    """Parse code in ``program_source``'s form (without its header) back into a program."""
    steps = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        read = re.fullmatch(r"read\((.*)\)", line)
        steps.append(("read", read.group(1)) if read else ("stmt", line))
    return tuple(steps)


# ------------------------------------------------------------------------------------------- generation

def _numel(shape):
    return math.prod(shape)


def _shape_src(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _broadcasts_to(value_shape, shape):
    return len(value_shape) <= len(shape) and all(
        v in (1, n) for v, n in zip(reversed(value_shape), reversed(shape)))


def _slice_src(s):
    start = "" if s.start is None else str(s.start)
    stop = "" if s.stop is None else str(s.stop)
    return f"{start}:{stop}" + ("" if s.step is None else f":{s.step}")


@st.composite
def basic_index(draw, shape):
    """``(source, result shape)`` of a basic index: ints (negative too), slices with steps, None, ``...``."""
    parts, out = [], []
    for n in shape:
        if draw(st.integers(0, 5)) == 0:
            parts.append("None")
            out.append(1)
        kind = draw(st.sampled_from(["all", "int", "slice"] if n else ["all", "slice"]))
        if kind == "int":
            parts.append(str(draw(st.integers(-n, n - 1))))
        elif kind == "slice":
            s = slice(draw(st.none() | st.integers(-n - 1, n + 1)), draw(st.none() | st.integers(-n - 1, n + 1)),
                      draw(st.sampled_from([None, 1, 2, 3])))
            parts.append(_slice_src(s))
            out.append(len(range(n)[s]))
        else:
            parts.append(":")
            out.append(n)
    if draw(st.integers(0, 5)) == 0:
        parts.append("None")
        out.append(1)
    while parts and parts[-1] == ":" and draw(st.booleans()):
        parts.pop()
    if parts and parts[0] == ":" and draw(st.booleans()):
        while parts and parts[0] == ":":
            parts.pop(0)
        parts.insert(0, "...")
    return "[" + (", ".join(parts) if parts else "...") + "]", tuple(out)


def _dim(draw, ndim):
    return draw(st.integers(-ndim, ndim - 1))


def _reshape_target(draw, shape):
    ndim = len(shape)
    options = ["flat", "append1"]
    if ndim >= 2:
        options.append("merge")
    if any(n >= 2 and any(n % k == 0 for k in range(2, n)) for n in shape):
        options.append("split")
    kind = draw(st.sampled_from(options))
    if kind == "flat":
        return (_numel(shape),)
    if kind == "append1":
        return tuple(shape) + (1,)
    if kind == "merge":
        i = draw(st.integers(0, ndim - 2))
        return tuple(shape[:i]) + (shape[i] * shape[i + 1],) + tuple(shape[i + 2:])
    i = draw(st.sampled_from([i for i, n in enumerate(shape) if any(n % k == 0 for k in range(2, n))]))
    k = draw(st.sampled_from([k for k in range(2, shape[i]) if shape[i] % k == 0]))
    return tuple(shape[:i]) + (k, shape[i] // k) + tuple(shape[i + 1:])


@st.composite
def view_op(draw, shape, storage_size=0):
    """``(source suffix, result shape)``: one view op applied to a tensor of ``shape``; ``as_strided``
    only where the tensor is a whole contiguous storage of ``storage_size`` elements (xtensor's
    as_strided reads the input's own elements only, a documented limitation).

    Parameters are mostly valid; narrow's start/length and some others may be out of range, as a user
    might write, so PyTorch's errors get compared too (the result shape then no longer matters).
    """
    ndim = len(shape)
    ops = ["index", "view", "squeeze", "unsqueeze", "expand"] + ["as_strided"] * bool(storage_size)
    if ndim:
        ops += ["transpose", "permute", "narrow", "select", "unfold", "multi_output"]
    if ndim >= 2:
        ops += ["mT", "diagonal"]
    op = draw(st.sampled_from(ops))
    if op == "multi_output":  # one choice among the others: any write after them fails in PyTorch
        op = draw(st.sampled_from(["split", "chunk", "unbind"]))
    if op == "index":
        return draw(basic_index(shape))
    if op == "view":
        target = _reshape_target(draw, shape)
        shown = list(target)
        if _numel(shape) and target and draw(st.booleans()):
            shown[draw(st.integers(0, len(shown) - 1))] = -1
        return f".{draw(st.sampled_from(['view', 'reshape']))}{_shape_src(shown)}", target
    if op == "squeeze":
        if ndim and draw(st.booleans()):
            d = _dim(draw, ndim)
            return f".squeeze({d})", tuple(n for i, n in enumerate(shape) if i != d % ndim or n != 1)
        return ".squeeze()", tuple(n for n in shape if n != 1)
    if op == "unsqueeze":
        d = draw(st.integers(-ndim - 1, ndim))
        d %= ndim + 1
        return f".unsqueeze({d})", tuple(shape[:d]) + (1,) + tuple(shape[d:])
    if op == "expand":
        if 1 in shape and draw(st.booleans()):
            sizes = [3 if n == 1 and draw(st.booleans()) else -1 for n in shape]
            return f".expand{_shape_src(sizes)}", tuple(n if s == -1 else s for n, s in zip(shape, sizes))
        return f".expand{_shape_src((2,) + tuple(shape))}", (2,) + tuple(shape)
    if op == "as_strided":
        room = storage_size
        sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
        strides = [draw(st.integers(1, 2))]  # row-major with gaps: elements never overlap...
        for n in reversed(sizes[1:]):
            strides.insert(0, strides[0] * n + draw(st.integers(0, 1)))
        if draw(st.integers(0, 4)) == 0:  # ...or a broadcast dim, which PyTorch detects when written
            strides[draw(st.integers(0, len(sizes) - 1))] = 0
        order = draw(st.permutations(range(len(sizes))))
        sizes, strides = tuple(sizes[i] for i in order), tuple(strides[i] for i in order)
        span = sum((n - 1) * s for n, s in zip(sizes, strides))
        if span >= room:
            sizes, strides, span = (1,), (1,), 0
        offset = draw(st.integers(0, max(room - 1 - span, 0)))
        return f".as_strided({_shape_src(sizes)}, {_shape_src(strides)}, {offset})", sizes
    if op == "mT":
        return ".mT", tuple(shape[:-2]) + (shape[-1], shape[-2])
    if op == "transpose":
        a, b = _dim(draw, ndim), _dim(draw, ndim)
        out = list(shape)
        out[a], out[b] = out[b], out[a]
        return f".transpose({a}, {b})", tuple(out)
    if op == "permute":
        order = draw(st.permutations(range(ndim)))
        return f".permute({', '.join(map(str, order))})", tuple(shape[i] for i in order)
    if op == "diagonal":
        a, b = draw(st.permutations(range(ndim)))[:2]
        offset = draw(st.integers(-2, 2))
        n1, n2 = shape[a], shape[b]
        length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
        rest = tuple(n for i, n in enumerate(shape) if i not in (a, b))
        return f".diagonal({offset}, {a}, {b})", rest + (length,)
    d = _dim(draw, ndim)
    n = shape[d]
    before, after = tuple(shape[:d % ndim]), tuple(shape[d % ndim + 1:])
    if op == "narrow":
        start = draw(st.integers(-n, n))
        room = n - start % n if n and start < n else 0
        length = draw(st.integers(0, room) if draw(st.integers(0, 5)) else st.integers(0, n))  # may overrun
        return f".narrow({d}, {start}, {length})", before + (length,) + after
    if op == "select" and n:
        i = draw(st.integers(-n, n - 1))
        return f".select({d}, {i})", before + after
    if op == "unbind" and n:
        i = draw(st.integers(0, n - 1))
        return f".unbind({d})[{i}]", before + after
    if op == "unfold" and n:
        size = draw(st.integers(1, n))
        step = draw(st.integers(size, size + 1))  # overlapping windows: writes through them are undefined
        return f".unfold({d}, {size}, {step})", before + ((n - size) // step + 1,) + after + (size,)
    if op == "chunk" and n:
        chunks = draw(st.integers(1, 3))
        per = -(-n // chunks)
        i = draw(st.integers(0, -(-n // per) - 1))
        return f".chunk({chunks}, {d})[{i}]", before + (min(per, n - i * per),) + after
    size = draw(st.integers(1, 3))
    i = draw(st.integers(0, max(-(-n // size) - 1, 0)))
    return f".split({size}, {d})[{i}]", before + (max(0, min(size, n - i * size)),) + after


class _Builder:
    """The state of a program being drawn: names, their shapes, the dtype, what values can require grad."""

    def __init__(self, draw, dtype, shape):
        self.draw, self.dtype, self.base_shape = draw, dtype, shape
        self.shapes = {"base": shape}
        self.overlapping = set()  # aliases made by expand or a 0 stride: several elements share memory
        self.steps = []

    def stmt(self, source):
        self.steps.append(("stmt", source))

    def read_all(self):
        self.steps += [("read", name) for name in self.shapes]

    def constant(self, shape):
        """A tensor of ``shape`` with distinct nonzero values that does not require grad."""
        if not shape:
            return f"torch.tensor({self.draw(st.sampled_from([0.75, -1.5, 2.0]))}, dtype={self.dtype})"
        return f"(torch.arange({_numel(shape)}, dtype={self.dtype}).reshape{_shape_src(shape)} / 4 - 0.625)"

    def from_w(self, shape):
        """A tensor of ``shape`` computed from ``w``: it requires grad and carries the gradient to ``w``."""
        scale = self.draw(st.sampled_from([3, -2, 0.5]))
        if not shape:
            return f"(w.sum() * {scale})"
        n, available = _numel(shape), _numel(self.base_shape)
        if n > available:
            return f"(w.sum() * torch.ones({_shape_src(shape)}, dtype={self.dtype}))"
        start = self.draw(st.integers(0, available - n))
        return f"(w.flatten()[{start}:{start + n}].view{_shape_src(shape)} * {scale})"

    def value(self, shape, grad_weight, nonzero=False, tensor=False):
        """A value broadcastable to ``shape``: a Python number, a constant, a tensor from ``w`` or an alias.

        ``grad_weight`` 0 forces a value from ``w``; ``nonzero`` leaves out values that may hold zeros;
        ``tensor`` leaves out Python numbers."""
        draw = self.draw
        sources = ["number"] * (not tensor) + ["constant"] + ["from_w"] * grad_weight * (not nonzero)
        names = [name for name, s in self.shapes.items() if _broadcasts_to(s, shape)]
        if names and not nonzero:
            sources.append("alias")
        source = draw(st.sampled_from(sources)) if grad_weight else "from_w"
        if source == "number":
            return str(draw(st.sampled_from([0.5, -1.5, 2.0, 3.0])))
        if source == "alias":
            name = draw(st.sampled_from(names))
            return draw(st.sampled_from([f"({name} * 0.5)", f"({name} * {name})"]))
        value_shape = list(shape[draw(st.integers(0, len(shape))):])
        if value_shape and draw(st.booleans()):
            value_shape[draw(st.integers(0, len(value_shape) - 1))] = 1
        return self.constant(tuple(value_shape)) if source == "constant" else self.from_w(tuple(value_shape))

    def write(self, name, grad_weight, no_grad):
        """One in-place write to ``name`` (source line); ``grad_weight`` 0: of a value from ``w``."""
        draw, shape = self.draw, self.shapes[name]
        ops = ["add_", "sub_", "mul_", "iadd", "imul", "copy_", "fill_", "setitem"]
        if grad_weight:
            ops += ["div_", "zero_", "clamp_"]
        if shape and 0 not in shape and name not in self.overlapping:  # PyTorch only warns (deprecated)
            ops += ["setitem_mask", "setitem_int", "index_put_"]
        op = draw(st.sampled_from(ops))
        if op in ("add_", "sub_", "mul_", "div_"):
            line = f"{name}.{op}({self.value(shape, grad_weight, nonzero=op == 'div_')})"
        elif op in ("iadd", "imul"):
            line = f"{name} {'+' if op == 'iadd' else '*'}= {self.value(shape, grad_weight)}"
        elif op == "copy_":
            line = f"{name}.copy_({self.value(shape, grad_weight)})"
        elif op == "fill_":
            line = f"{name}.fill_({self.value((), grad_weight)})"
        elif op == "zero_":
            line = f"{name}.zero_()"
        elif op == "clamp_":
            low, high = draw(st.sampled_from([(-0.5, 1.0), (0.25, None), (None, 0.5)]))
            line = f"{name}.clamp_({low}, {high})"
        elif op == "setitem":
            index, target = draw(basic_index(shape))
            line = f"{name}{index} = {self.value(target, grad_weight)}"
        elif op == "setitem_mask":
            k = draw(st.integers(1, min(2, len(shape))))
            mask = np.array(draw(st.lists(st.booleans(), min_size=_numel(shape[:k]),
                                          max_size=_numel(shape[:k])))).reshape(shape[:k])
            target = (int(mask.sum()),) + tuple(shape[k:])
            line = f"{name}[torch.tensor({mask.tolist()})] = {self.value(target, grad_weight)}"
        else:
            dim = draw(st.integers(0, min(1, len(shape) - 1)))
            n = shape[dim]
            positions = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))
            if op == "setitem_int":  # repeated positions make PyTorch's result order-dependent: keep them distinct
                positions = list({p % n: p for p in positions}.values())
            target = tuple(shape[:dim]) + (len(positions),) + tuple(shape[dim + 1:])
            value = self.value(target, grad_weight, tensor=op == "index_put_")
            index = f"torch.tensor({positions})"
            if op == "index_put_":
                index = f"({index},)" if dim == 0 else f"(torch.arange({shape[0]}).unsqueeze(1), {index})"
                line = f"{name}.index_put_({index}, {value}, accumulate=True)"
            else:
                line = f"{name}[{':, ' * dim}{index}] = {value}"
        return f"with torch.no_grad(): {line}" if no_grad else line

    def saved_product(self, index):
        """``p{index} = ...``: a differentiable product that saves aliases for backward."""
        draw = self.draw
        name = draw(st.sampled_from(sorted(self.shapes)))
        partners = [other for other, s in self.shapes.items() if _broadcasts_to(s, self.shapes[name])]
        kind = draw(st.sampled_from(["square", "sin", "partner"]))
        if kind == "partner":
            return f"p{index} = ({name} * {draw(st.sampled_from(partners))}).sum()"
        if kind == "sin":
            return f"p{index} = {name}.sin().sum()"
        return f"p{index} = ({name} * {name}).sum()"


@st.composite
def programs(draw):
    """A program: a base (leaf ``w``, non-leaf ``w * 1`` or a plain tensor), 1-4 aliases built by chains of
    1-4 view ops, 1-4 in-place writes (some under no_grad, some with values that require grad), reads of
    every alias after every write, products saved on the way, a loss over several aliases, backward,
    ``w.grad``."""
    dtype = draw(st.sampled_from(["torch.float32", "torch.float64"]))
    shape = draw(st.sampled_from(BASE_SHAPES))
    start = draw(st.sampled_from(["leaf", "nonleaf", "plain"]))
    b = _Builder(draw, dtype, shape)
    n = _numel(shape)
    b.stmt(f"w = ((torch.arange({n}, dtype={dtype}) - {n // 2}) / 8).reshape{_shape_src(shape)}.requires_grad_()")
    b.stmt({"leaf": "base = w", "nonleaf": "base = w * 1",
            "plain": f"base = torch.arange({n}, dtype={dtype}).reshape{_shape_src(shape)} / 4"}[start])
    b.read_all()
    grad_weight = 2 if start == "plain" else 1
    needs_grad = start == "plain"  # the first write then makes the loss require grad
    leaf_grad_writes = draw(st.integers(0, 3)) == 0  # else all writes to a leaf's aliases under no_grad
    events = ["alias"] * draw(st.integers(1, 4)) + ["write"] * draw(st.integers(1, 4)) + ["save"] * draw(
        st.integers(0, 2))
    aliases = saved = 0
    for event in draw(st.permutations(events)):
        if event == "alias":
            source = draw(st.sampled_from(sorted(b.shapes)))
            line, out = source, b.shapes[source]
            for step in range(draw(st.integers(1, 4))):
                suffix, out = draw(view_op(out, n if source == "base" and step == 0 else 0))
                line += suffix
            name = f"a{aliases}"
            aliases += 1
            b.stmt(f"{name} = {line}")
            b.shapes[name] = out
            if ".expand(" in line or re.search(r"as_strided\(\([^)]*\), \([^)]*\b0\b", line) or source in b.overlapping:
                b.overlapping.add(name)
            b.steps.append(("read", name))
        elif event == "write":
            target = draw(st.sampled_from(sorted(b.shapes)))
            no_grad = not needs_grad and (draw(st.integers(0, 1)) > 0 if start == "leaf" and leaf_grad_writes else
                                          start == "leaf" or draw(st.integers(0, 4)) == 0)
            b.stmt(b.write(target, 0 if needs_grad else grad_weight, no_grad))
            needs_grad = False
            b.read_all()
        else:
            b.stmt(b.saved_product(saved))
            saved += 1
    names = sorted(b.shapes)
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    terms = [f"p{i}" for i in range(saved)]
    terms += [draw(st.sampled_from([f"{x}.sum()", f"({x} * {x}).sum()", f"({x} * 2).sum()"])) for x in chosen]
    b.stmt(f"loss = {' + '.join(terms)}")
    b.stmt("loss.backward()")
    b.steps.append(("read", "w.grad"))
    return tuple(b.steps)
