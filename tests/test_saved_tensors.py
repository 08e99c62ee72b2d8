"""Which tensors a node keeps follows PyTorch's derivative formulas, op by op (issue 14).

For every differentiable OpInfo record (one or two float64 samples), the same program runs in xtensor and in
real PyTorch, and the two must answer alike -- succeed, or raise the same kind of error at the same step:

* the op, then an in-place write into one of its inputs (float inputs are non-leaf clones of leaves, so the
  write is legal), then backward: PyTorch raises "modified by an inplace operation" exactly when the op's
  node saved that input;
* the op, then an in-place write into one of its outputs, then backward: the same for saved outputs (and
  PyTorch's refusal to write into an output of a function that returns several views);
* backward twice without ``retain_graph``: the second raises "backward through the graph a second time"
  exactly when the node saved a tensor.

PyTorch is the oracle, run at test time: nothing here records an expected outcome by hand.
"""
import functools
import re

import numpy as np
import pytest

import xtensor as xt

from opinfo import OPS, array_leaves, realize

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch's deprecation notes (torch.qr, cholesky...)

# What the errors say, reduced to what the comparison needs (the rest of each message differs by design:
# xtensor names its own tensor types).
_KINDS = (("modified", r"modified by an inplace operation"),
          ("freed", r"backward through the graph a second time"),
          ("multi-view write", r"output of a function that returns multiple views"),
          ("view write", r"is a view and (is being|its base .* has been) modified inplace"))


def _kind(error):
    message = str(error)
    for kind, pattern in _KINDS:
        if re.search(pattern, message):
            return f"{type(error).__name__}: {kind}"
    return f"{type(error).__name__}: {message[:200]}"


def _samples(info):
    """Up to two float64 samples usable for gradients, with non-empty contiguous arrays."""
    out = []
    for idx, s in enumerate(info.samples("float64")):
        leaves = array_leaves(s.args) + array_leaves(s.kwargs)
        if s.grad and not s.noncontig and any(a.dtype.kind == "f" for a in leaves) and all(a.size for a in leaves):
            out.append(idx)
    return out[:2]


class _Lib:
    """The few spellings that differ between xtensor (on a backend) and torch."""

    def __init__(self, ns, backend=None):
        self.ns, self.backend = ns, backend

    def tensor(self, a):
        return self.ns.tensor(a) if self.backend is None else self.ns.tensor(a, backend=self.backend)

    def dtype(self, name):
        return getattr(self.ns, name)


def _program(lib, info, s):
    """The sample's inputs (float ones: clones of leaves that require grad) and the op's differentiable outputs."""
    inputs = []

    def convert(obj):
        if not isinstance(obj, np.ndarray):
            return lib.dtype(obj.name)
        t = lib.tensor(obj)
        if obj.dtype.kind == "f":
            t = t.requires_grad_(True).clone()
        inputs.append(t)
        return t

    args = realize(s.args, convert)
    kwargs = {k: realize(v, convert) for k, v in s.kwargs.items()}
    op = info.op if lib.ns is xt else info.torch_op(lib.ns)
    out = op(*args, **kwargs)
    outputs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if o.requires_grad]
    return inputs, outputs


def _write(t):
    """An in-place write that leaves the values as they were (indices stay in range)."""
    if t.dtype == (xt.bool if isinstance(t, xt.Tensor) else torch.bool):
        t.logical_and_(t)
    else:
        t.mul_(1)


def _backward(lib, outputs):
    lib.ns.autograd.backward(outputs, [lib.ns.ones_like(o) for o in outputs])


def _outcome(lib, info, s, scenario, k):
    """``None`` when the program runs through, else (the step that raised, the error's kind)."""
    try:
        inputs, outputs = _program(lib, info, s)
    except Exception as e:  # noqa: BLE001  (reported, compared with torch's answer)
        return ("op", _kind(e))
    step = "write"
    try:
        if scenario == "input":
            _write(inputs[k])
        elif scenario == "output":
            _write(outputs[k])
        step = "backward"
        _backward(lib, outputs)
        if scenario == "twice":
            step = "second backward"
            _backward(lib, outputs)
    except Exception as e:  # noqa: BLE001
        return (step, _kind(e))
    return None


@functools.lru_cache(maxsize=None)
def _torch_outcome(name, idx, scenario, k):
    info = next(i for i in OPS if i.name == name)
    return _outcome(_Lib(torch), info, info.samples("float64")[idx], scenario, k)


def _counts(info, idx):
    """How many inputs and differentiable outputs torch's program has; skips where PyTorch has no gradient for the
    sample at all (``remainder(Scalar, Tensor)``: "derivative for aten::remainder is not implemented")."""
    counts = _torch_counts(info.name, idx)
    if isinstance(counts, str):
        pytest.skip(f"PyTorch refuses this sample: {counts}")
    return counts


@functools.lru_cache(maxsize=None)
def _torch_counts(name, idx):
    info = next(i for i in OPS if i.name == name)
    lib = _Lib(torch)
    try:
        inputs, outputs = _program(lib, info, info.samples("float64")[idx])
        _backward(lib, outputs)
    except Exception as e:  # noqa: BLE001
        return _kind(e)
    return len(inputs), len(outputs)


BACKENDS = ("numpy", "jax", "array_api_strict")
# jax compiles every kernel (~2 minutes for the whole table): one op per way of keeping tensors there
JAX_OPS = {"exp", "mul", "__rtruediv__", "__rmul__", "lerp", "copysign", "erfinv", "sort", "max_dim", "cummax",
           "var_mean", "cat", "split", "kron", "svd", "linalg_eigh_vectors", "qr", "fft_fft", "fft_rfft", "fft_irfft",
           "gather", "scatter", "index_copy", "index_put", "take", "put", "take_along_dim", "masked_select",
           "getitem_advanced"}

# Where xtensor still keeps other tensors than PyTorch: (scenario, op, sample or None for all) -> why.
XFAIL = {}
# Records whose torch op is a stand-in, not PyTorch's own function: no oracle for what PyTorch saves.
NO_ORACLE = {"imag": "PyTorch refuses imag() of a real tensor (the float64 samples); the record's torch op is x * 0"}


def _cases(scenario):
    out = []
    for info in OPS:
        if not info.differentiable or info.name in NO_ORACLE:
            continue
        for n, idx in enumerate(_samples(info)):
            reason = XFAIL.get((scenario, info.name, None)) or XFAIL.get((scenario, info.name, idx))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            for backend in BACKENDS:
                # numpy: every sample; array_api_strict: the first; jax: the first, of JAX_OPS
                if backend == "numpy" or n == 0 and (backend != "jax" or info.name in JAX_OPS):
                    out.append(pytest.param(info, idx, backend, id=f"{info.name}-{idx}-{backend}", marks=marks))
    return out


def _compare(info, idx, backend, scenario, positions):
    positions = positions(_counts(info, idx))
    lib = _Lib(xt, backend)
    s = info.samples("float64")[idx]
    differ = []
    for k in positions:
        expected = _torch_outcome(info.name, idx, scenario, k)
        actual = _outcome(lib, info, s, scenario, k)
        if actual != expected:
            differ.append(f"{scenario} {k}: xtensor {actual}, torch {expected}")
    assert not differ, "\n".join(differ)


@pytest.mark.parametrize("info, idx, backend", _cases("input"))
def test_write_into_an_input_then_backward_as_torch(info, idx, backend):
    _compare(info, idx, backend, "input", lambda counts: range(counts[0]))


@pytest.mark.parametrize("info, idx, backend", _cases("output"))
def test_write_into_an_output_then_backward_as_torch(info, idx, backend):
    _compare(info, idx, backend, "output", lambda counts: range(counts[1]))


@pytest.mark.parametrize("info, idx, backend", _cases("twice"))
def test_second_backward_without_retain_graph_as_torch(info, idx, backend):
    _compare(info, idx, backend, "twice", lambda counts: (0,))


# ------------------------------------------------------------------ declared saves against the VJPs
def _reads(vjp):
    """Which argument positions (``"*"``: the variadic ones) and whether the result ``vjp`` reads, from its
    bytecode: the parameters it loads (``(ns, g, ans, *args)`` or ``(g, ans, *args)``)."""
    import dis
    code = vjp.__code__
    skip = 1 if code.co_argcount and code.co_varnames[0] == "ns" else 0
    params = code.co_varnames[skip:code.co_argcount]
    # a comprehension reads a parameter through a closure cell before Python 3.12 (PEP 709 inlines it)
    used = {ins.argval for ins in dis.get_instructions(vjp)
            if ins.opname.startswith("LOAD_FAST") or ins.opname in ("LOAD_CLOSURE", "LOAD_DEREF")}
    positions = {i - 2 for i, p in enumerate(params) if i >= 2 and p in used}
    if code.co_flags & 0x04 and code.co_varnames[code.co_argcount] in used:
        positions.add("*")
    return positions, len(params) > 1 and params[1] in used


def _declared_ops():
    from xtensor._dispatch import _per_vjp
    from xtensor._table import TABLE
    ops = {id(e.op): e.op for e in TABLE.values() if e.op is not None}
    for op in ops.values():
        fns = op.vjps + ((op.vjp_all,) if op.vjp_all else ())
        if any(fn is not None for fn in fns):
            yield op, fns, _per_vjp(op.saves, len(fns))


@pytest.mark.parametrize("op", [op for op, _, _ in _declared_ops()], ids=lambda op: op.name)
def test_saves_declare_every_input_and_result_the_vjps_read(op):
    """A VJP that reads an input (or the result) the op's ``saves=`` does not declare would read a tensor its node
    neither keeps nor version-checks: renaming a lambda parameter must not silently change what is saved."""
    _, fns, declarations = next(d for d in _declared_ops() if d[0] is op)
    tensors = len(op.vjps) if op.vjp_all is None else None
    for fn, declared in zip(fns, declarations):
        if fn is None:
            continue
        positions, reads_result = _reads(fn)
        kept = {t if isinstance(t, int) or t.endswith("*") else int(t[4:]) for t in declared
                if isinstance(t, int) or t.endswith("*") or t.startswith("meta")}
        inputs_read = {p for p in positions if p == "*" or tensors is None or p < tensors}
        assert inputs_read <= kept or {"*", "meta*"} & kept, (op.name, fn, inputs_read, declared)
        assert not reads_result or any(isinstance(t, str) and t.startswith("result") for t in declared), \
            (op.name, fn, declared)
