"""Random sequences of view ops, in-place writes and reads, run side by side on the numpy backend, the
jax backend and (when installed) PyTorch itself: every alias must hold the same values, strides and
storage offsets everywhere, the same calls must fail with the same error type, and gradients through
the whole history (CopySlices and all) must agree.

Each machine run starts from ``x`` (a leaf that requires grad) and ``y = x * 1``; views are taken of
``y`` and of earlier views, written in place under autograd, and ``x``'s gradient of a loss over ``y``
is compared now and then.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings, strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

import xtensor as xt

pytest.importorskip("jax")

try:
    import torch
except ImportError:  # PyTorch is an optional test extra: numpy vs jax still runs
    torch = None

BACKENDS = ("numpy", "jax")


def _basic_index(data, shape):
    """A random basic index for ``shape``: ints, slices with steps and negative bounds, None, Ellipsis."""
    index = []
    for n in shape:
        kind = data.draw(st.sampled_from(["all", "int", "slice", "none"] if n else ["all", "none"]))
        if kind == "int":
            index.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = data.draw(st.one_of(st.none(), st.integers(-n, n)))
            stop = data.draw(st.one_of(st.none(), st.integers(-n, n)))
            index.append(slice(start, stop, data.draw(st.integers(1, 3))))
        elif kind == "none":
            index += [None, slice(None)]
        else:
            index.append(slice(None))
    if data.draw(st.booleans()) and index:
        index = [Ellipsis] + index[data.draw(st.integers(1, len(index))):]
    return tuple(index)


def _dim(data, ndim):
    return data.draw(st.integers(-ndim, ndim - 1))


def _view_op(data, shape):
    """``(description, f)`` with ``f(tensor)`` a view op PyTorch offers for a tensor of ``shape``."""
    ndim = len(shape)
    ops = ["index", "unsqueeze", "squeeze", "view_flat", "expand"]
    if ndim:
        ops += ["transpose", "permute", "narrow", "select", "split", "chunk", "unbind", "reshape_rows"]
    if ndim >= 2:
        ops += ["diagonal", "mT", "movedim"]
    op = data.draw(st.sampled_from(ops))
    if op == "index":
        index = _basic_index(data, shape)
        return f"[{index}]", lambda t: t[index]
    if op == "unsqueeze":
        d = data.draw(st.integers(-ndim - 1, ndim))
        return f"unsqueeze({d})", lambda t: t.unsqueeze(d)
    if op == "squeeze":
        return "squeeze()", lambda t: t.squeeze()
    if op == "view_flat":  # raises for non-viewable layouts, as PyTorch does
        return "view(-1)", lambda t: t.view(-1)
    if op == "expand":
        return "expand(2, ...)", lambda t: t.expand((2,) + tuple(shape))
    if op == "transpose":
        a, b = _dim(data, ndim), _dim(data, ndim)
        return f"transpose({a}, {b})", lambda t: t.transpose(a, b)
    if op == "permute":
        order = tuple(data.draw(st.permutations(range(ndim))))
        return f"permute{order}", lambda t: t.permute(order)
    if op == "narrow":
        d = _dim(data, ndim)
        n = shape[d]
        start = data.draw(st.integers(0, n))
        length = data.draw(st.integers(0, n - start))
        return f"narrow({d}, {start}, {length})", lambda t: t.narrow(d, start, length)
    if op == "select":
        d = _dim(data, ndim)
        if not shape[d]:
            return "squeeze()", lambda t: t.squeeze()
        i = data.draw(st.integers(-shape[d], shape[d] - 1))
        return f"select({d}, {i})", lambda t: t.select(d, i)
    if op in ("split", "chunk", "unbind"):
        d = _dim(data, ndim)
        if op == "unbind" and shape[d]:
            i = data.draw(st.integers(0, shape[d] - 1))
            return f"unbind({d})[{i}]", lambda t: t.unbind(d)[i]
        size = data.draw(st.integers(1, 3))
        pieces = -(-shape[d] // size) if op == "split" else min(size, shape[d]) if shape[d] else size
        i = data.draw(st.integers(0, max(pieces - 1, 0)))
        if op == "split":
            return f"split({size}, {d})[{i}]", lambda t: t.split(size, d)[i]
        return f"chunk({size}, {d})[{i}]", lambda t: t.chunk(size, d)[i]
    if op == "reshape_rows":
        return "reshape(shape[0], -1)", lambda t: t.reshape(shape[0], -1) if shape[0] else t.reshape(0, -1)
    if op == "diagonal":
        a, b = data.draw(st.permutations(range(ndim)))[:2]
        offset = data.draw(st.integers(-2, 2))
        return f"diagonal({offset}, {a}, {b})", lambda t: t.diagonal(offset, a, b)
    if op == "mT":
        return "mT", lambda t: t.mT
    a, b = _dim(data, ndim), _dim(data, ndim)
    return f"movedim({a}, {b})", lambda t: t.movedim(a, b)


def _write_op(data, shape):
    """``(description, f)`` with ``f(tensor, module)`` an in-place write PyTorch offers."""
    op = data.draw(st.sampled_from(["setitem", "add_", "mul_", "fill_", "zero_", "copy_", "iadd", "imul", "out"]))
    value = data.draw(st.integers(-3, 3))
    if op == "setitem":
        index = _basic_index(data, shape)
        return f"[{index}] = {value}", lambda t, m: t.__setitem__(index, float(value))
    if op == "add_":
        return f"add_({value})", lambda t, m: t.add_(value)
    if op == "mul_":
        return f"mul_({value})", lambda t, m: t.mul_(value)
    if op == "fill_":
        return f"fill_({value})", lambda t, m: t.fill_(value)
    if op == "zero_":
        return "zero_()", lambda t, m: t.zero_()
    if op == "copy_":
        return "copy_(arange)", lambda t, m: t.copy_(t.new_tensor(np.arange(float(np.prod(shape))).reshape(shape)))
    if op == "iadd":
        return f"+= {value}", lambda t, m: t.__iadd__(value)
    if op == "imul":
        return f"*= {value}", lambda t, m: t.__imul__(value)
    return f"add(out=, {value})", lambda t, m: m.add(t.detach() * 0, value, out=t)


def _host(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64)


class ViewsMachine(RuleBasedStateMachine):
    """Handles are dicts: namespace name -> the same alias in that namespace."""

    aliases = Bundle("aliases")

    def _namespaces(self):
        spaces = {b: xt for b in BACKENDS}
        if torch is not None:
            spaces["torch"] = torch
        return spaces

    def _each(self, f, *handles):
        """Run ``f(namespace, *aliases)`` everywhere: the same outcome (result or error type) everywhere."""
        results, errors = {}, {}
        for name, m in self._namespaces().items():
            args = [h[name] for h in handles]
            try:
                if name in BACKENDS:
                    with xt.use_backend(name):
                        results[name] = f(m, *args)
                else:
                    results[name] = f(m, *args)
            except (RuntimeError, IndexError, ValueError, TypeError) as e:
                errors[name] = e
        if errors:
            kinds = {name: type(e).__name__ for name, e in errors.items()}
            assert not results and len(set(kinds.values())) == 1, (kinds, {k: str(e) for k, e in errors.items()})
            return None
        return results

    @initialize(target=aliases)
    def start(self):
        handles = self._each(lambda m: (lambda x: (x, x * 1))(
            m.arange(24.0, dtype=m.float64).view(2, 3, 4).requires_grad_()))
        self.leaf = {name: x for name, (x, _) in handles.items()}
        self.root = {name: y for name, (_, y) in handles.items()}
        self.handles = [self.root]
        return self.root

    @rule(target=aliases, source=aliases, data=st.data())
    def take_view(self, source, data):
        desc, f = _view_op(data, tuple(source["numpy"].shape))
        view = self._each(lambda m, t: f(t), source)
        if view is None:
            return source
        self.handles.append(view)
        return view

    @rule(target=aliases, source=aliases, data=st.data())
    def write(self, source, data):
        desc, f = _write_op(data, tuple(source["numpy"].shape))
        self._each(lambda m, t: f(t, m), source)
        return source

    @rule(source=aliases, data=st.data())
    def write_without_autograd(self, source, data):
        desc, f = _write_op(data, tuple(source["numpy"].shape))

        def run(m, t):
            with m.no_grad():
                f(t, m)
        self._each(run, source)

    @rule()
    def gradients_agree(self):
        def grad(m, x, y):
            weights = y.new_tensor(np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4))
            (g,) = m.autograd.grad((y * y * weights).sum(), [x], retain_graph=True, allow_unused=True)
            return g
        grads = self._each(grad, self.leaf, self.root)
        if grads is not None:
            values = {name: None if g is None else _host(g) for name, g in grads.items()}
            reference = values["numpy"]
            for name, v in values.items():
                if reference is None or v is None:
                    assert v is None or not v.any(), name
                else:
                    np.testing.assert_allclose(v, reference, rtol=1e-12, atol=1e-12, err_msg=name)

    @invariant()
    def aliases_agree(self):
        for handle in getattr(self, "handles", ()):
            ref = handle["numpy"]
            expected = (_host(ref), ref.stride(), ref.storage_offset(), ref.is_contiguous())
            for name, t in handle.items():
                got = (_host(t), t.stride(), t.storage_offset(), t.is_contiguous())
                np.testing.assert_array_equal(got[0], expected[0], err_msg=name)
                assert got[1:] == expected[1:], (name, got[1:], expected[1:])


ViewsMachine.TestCase.settings = settings(max_examples=8, stateful_step_count=12, deadline=None,
                                          suppress_health_check=list(HealthCheck), derandomize=True,
                                          phases=(Phase.explicit, Phase.generate))
TestViewsMachine = ViewsMachine.TestCase
