"""The tape: graph nodes and the backward engine.

Every differentiable op result holds a ``Node`` (named as PyTorch names it: ``AddBackward0``)
whose ``next_functions`` point at the nodes of its inputs; leaves that require grad are
reached through an ``AccumulateGrad`` node. The engine walks the graph once in topological
order, summing incoming gradients per node output. Under ``create_graph=True`` VJPs run as ordinary
xtensor ops with grad mode on -- so higher-order gradients need nothing special. Otherwise gradients
flow between nodes as raw backend arrays wherever a node can take them (``Node._raw_ns``: op nodes
whose VJPs are written against a namespace, and leaves' accumulators), and are wrapped into Tensors
only at the edge of a node that needs them (custom Functions, hooks, ops not written that way).

Memory: a node holds its inputs, never its output (the output would hold the node: a
cycle); ops whose VJP needs the output keep a detached alias of it. A leaf owns its
``AccumulateGrad``, which refers back to it weakly, so a freed graph frees everything.
"""
import traceback
import warnings
import weakref

import numpy as np

from ._backend import is_traced
from ._modes import anomaly_state, grad_state
from ._ns import raw_ns
from ._quiet import quiet, restore
from ._tensor import Tensor

__all__ = ["Node", "AccumulateGrad", "run_backward", "accumulator_of", "SCALAR_EDGE"]

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
          "have already been freed). Saved intermediate values of the graph are freed when you call "
          ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
          "graph a second time or if you need to access saved tensors after calling backward.")


class Node:
    """A backward function: maps gradients of its outputs to gradients of its inputs."""

    __slots__ = ("_edges", "__dict__", "__weakref__")
    n_outputs = 1
    _raw_ns = None  # the namespace of raw arrays this node's backward takes without a graph (None: Tensors)
    _pre_hooks = None  # [(output_nr or None, hook)]: run on incoming gradients
    _hooks = None  # [hook(grad_inputs, grad_outputs)]: run after the node
    _releases = True  # whether ``release`` frees anything (the engine skips the call where not)

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        """``(node, output_nr)`` per tensor input, ``(None, 0)`` for one that needs no gradient."""
        return tuple(e for e in self._edges if e is not SCALAR_EDGE)

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def metadata(self):
        return {}

    def apply(self, *grads):
        """Run this node's backward on output gradients; returns the input gradients."""
        raise NotImplementedError(f"{self.name()} has no backward")

    __call__ = lambda self, *grads: self.apply(*grads)  # noqa: E731  (PyTorch nodes are callable)

    def _run(self, grads):
        """The engine's call (a custom Function's node checks and fits what its backward returns)."""
        return self.apply(*grads)

    def release(self):
        """Free saved tensors after a backward without ``retain_graph``."""

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if getattr(self, "_hooks", None) is None:
            self._hooks = []
        self._hooks.append(hook)
        return _RemovableHandle(self._hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node; may return new grad_outputs."""
        return self._add_pre_hook(None, lambda grads: hook(grads))

    def _add_pre_hook(self, output_nr, hook):
        if getattr(self, "_pre_hooks", None) is None:
            self._pre_hooks = []
        entry = (output_nr, hook)
        self._pre_hooks.append(entry)
        return _RemovableHandle(self._pre_hooks, entry)


class _RemovableHandle:
    __slots__ = ("_list", "_item")

    def __init__(self, lst, item):
        self._list, self._item = lst, item

    def remove(self):
        try:
            self._list.remove(self._item)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into ``leaf.grad``.

    The leaf owns its accumulator and the accumulator refers back weakly: no cycle, and a leaf
    reused in many graphs makes its accumulator once.
    """

    __slots__ = ("_variable", "_raw_ns")
    _releases = False  # (it keeps no saved tensor)

    def __init__(self, variable):
        self._variable = weakref.ref(variable)
        self._edges = ()
        self._raw_ns = raw_ns(variable._backend)

    @property
    def variable(self):
        return self._variable()

    def apply(self, grad):
        leaf = self._variable()
        if leaf is None:  # the leaf is gone: nobody can read its gradient
            return ()
        if leaf._hooks:
            for hook in list(leaf._hooks):
                r = hook(grad)
                if r is not None:
                    grad = r
        accumulate_into(leaf, grad)
        if leaf._post_accumulate_hooks:
            for hook in list(leaf._post_accumulate_hooks):
                hook(leaf)
        return ()

    def _run_raw(self, grads):
        leaf = self._variable()
        if leaf is None:
            return ()
        grad = grads[0]
        if leaf._hooks or leaf._post_accumulate_hooks:  # hooks see Tensors
            return self.apply(grad_tensor(grad, leaf._backend))
        backend = leaf._backend
        value = leaf._arr if leaf._arr is not None else leaf._refresh()
        if grad.shape != value.shape:
            xp = backend.xp
            grad = xp.broadcast_to(grad, value.shape) if grad.size == 1 else xp.reshape(grad, value.shape)
        current = leaf._grad
        if current is None:  # a private copy: ``.grad`` must never alias another gradient (immutable arrays can't)
            leaf._grad = grad_tensor(backend.contiguous_copy(grad) if backend.mutable else grad, backend)
        else:
            _add_into(current, grad)
        return ()


def _add_into(current, grad):
    """``.grad += grad`` (raw ``grad``): numpy adds into the root's own array in place (no temporary sum and copy);
    elsewhere -- immutable arrays, a ``.grad`` the user set to a view -- the sum is written as any value is."""
    target = current._arr
    if type(target) is _ndarray and type(grad) is _ndarray and current._view is None and \
            target.dtype == grad.dtype and target.flags.writeable:
        np.add(target, grad, out=target)
        current._storage.version += 1
    else:
        current._write(current._value + grad)


def grad_tensor(arr, backend):
    """A raw gradient as a history-free Tensor."""
    t = _new(Tensor)
    t._arr, t._backend, t._dtype = arr, backend, backend.dtypes[arr.dtype]
    t._requires_grad, t._grad_fn = False, None
    return t


def as_grad_tensor(g, like):
    """A gradient the engine returned (raw array, Tensor or None) as a Tensor on ``like``'s backend."""
    return g if g is None or isinstance(g, Tensor) else grad_tensor(g, like._backend)


_new = object.__new__


def accumulate_into(tensor, grad, create_graph=None):
    """PyTorch's accumulation: the first gradient is stored as a copy of its own (a private one, or under
    ``create_graph`` one that carries the gradient's graph: ``.grad`` never is another tensor), later ones are added
    in place -- or out of place when building a graph. ``create_graph``: the engine's grad mode unless given (the
    caller's own mode says nothing after a ``backward(inputs=...)``)."""
    if create_graph is None:
        create_graph = grad_state.enabled
    if grad.shape != tensor.shape:
        grad = grad.expand(tensor.shape) if grad.numel() == 1 else grad.reshape(tensor.shape)
    current = tensor._grad
    if current is None:
        tensor._grad = _private_copy(grad) if not (create_graph and grad._requires_grad) else \
            grad.new_empty(grad.shape).copy_(grad)  # (PyTorch's CopyBackwards)
    elif create_graph:
        tensor._grad = current + grad
    else:
        _add_into(current, grad._value)


def _private_copy(t):
    """A history-free copy: ``.grad`` must never alias another tensor's gradient."""
    backend = t._backend
    return grad_tensor(backend.contiguous_copy(t._value), backend)


_ndarray = np.ndarray
SCALAR_EDGE = (None, -1)  # the edge of a Python-scalar argument: not listed in next_functions


def accumulator_of(leaf):
    acc = leaf._grad_acc
    if acc is None:
        acc = leaf._grad_acc = AccumulateGrad(leaf)
    return acc


def _topological_order(roots):
    """Nodes reachable from ``roots``, each after every node that feeds it gradient."""
    order, seen = [], set()
    for root in roots:
        if root is None or root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root._edges))]
        while stack:
            node, children = stack[-1]
            for child, _ in children:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child._edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def _reaching(order, targets):
    """The nodes of ``order`` whose run passes gradient on to some target node. A target itself is among them only
    where it feeds another: its own gradient is captured before it, and it need not run (nor be freed), as in
    PyTorch."""
    reach, feeding = set(targets), set()
    for node in reversed(order):
        if any(child is not None and child in reach for child, _ in node._edges):
            reach.add(node)
            feeding.add(node)
    return feeding


def _takes_raw(node):
    """Whether ``node`` gets raw arrays when no graph is built (hooks see Tensors)."""
    return node._raw_ns is not None and not node._pre_hooks and not node._hooks


def run_backward(roots, grad_roots, retain_graph, create_graph, capture=None, accumulate=True):
    """Propagate ``grad_roots`` from ``roots`` (edges) through the graph.

    ``capture``: edges whose incoming gradient is returned (``autograd.grad``; raw arrays or Tensors, see
    ``as_grad_tensor``); with ``accumulate=False`` leaves' ``.grad`` is left untouched and only the part of the
    graph that reaches a captured edge runs.
    """
    order = _topological_order((roots[0][0],) if len(roots) == 1 else [node for node, _ in roots])
    anomaly = anomaly_state.enabled
    raw = not create_graph and not anomaly  # anomaly mode checks every node's Tensors
    buffers = {}
    for (node, nr), g in zip(roots, grad_roots):
        if raw and _takes_raw(node):
            g = g._value
        slot = buffers.get(node)
        if slot is None:
            slot = buffers[node] = [None] * node.n_outputs
        slot[nr] = g if slot[nr] is None else slot[nr] + g
    wanted = None
    if capture is not None:
        captured = [None] * len(capture)
        capture_at = {}
        for i, (node, nr) in enumerate(capture):
            capture_at.setdefault(node, []).append((i, nr))
        if not accumulate:
            wanted = _reaching(order, [node for node, _ in capture])
    state = grad_state
    previous, state.enabled = state.enabled, create_graph
    errors = quiet()  # numpy's floating-point warnings off while gradients are computed (_quiet.py)
    try:
        for node in order:
            grads = buffers.pop(node, None)
            if grads is None:
                continue
            if wanted is not None and node not in wanted and node not in capture_at:  # (no hooks fire, as PyTorch's)
                continue
            pre_hooks = node._pre_hooks
            if pre_hooks:
                grads = _run_pre_hooks(node, grads)
            if capture is not None:
                if node in capture_at:
                    for i, nr in capture_at[node]:
                        captured[i] = grads[nr]
                if wanted is not None and node not in wanted:  # (a captured edge's node that feeds no other)
                    continue
            hooks = node._hooks
            ns = node._raw_ns
            runs_raw = raw and ns is not None and not hooks and not pre_hooks  # _takes_raw, inlined
            if runs_raw:
                grad_inputs = node._run_raw(grads)
            else:
                grad_inputs = node._run(grads) if not anomaly else _run_anomalous(node, grads)
            if hooks:
                for hook in hooks:
                    r = hook(grad_inputs, grads)
                    if r is not None:
                        grad_inputs = r
            for (child, nr), g in zip(node._edges, grad_inputs):
                if child is None or g is None:
                    continue
                if raw:  # each child gets what it takes: raw arrays, or Tensors (_takes_raw, inlined)
                    if runs_raw:
                        if child._raw_ns is None or child._pre_hooks or child._hooks:
                            g = grad_tensor(g, ns.backend)
                    elif isinstance(g, Tensor) and child._raw_ns is not None and not child._pre_hooks and \
                            not child._hooks:
                        g = g._value
                slot = buffers.get(child)
                if slot is None:
                    buffers[child] = [g] if child.n_outputs == 1 else [g if i == nr else None
                                                                       for i in range(child.n_outputs)]
                else:
                    slot[nr] = g if slot[nr] is None else slot[nr] + g
            if not retain_graph and node._releases:
                node.release()
    finally:
        state.enabled = previous
        restore(errors)
    return captured if capture is not None else None


def _run_pre_hooks(node, grads):
    grads = list(grads)
    for output_nr, hook in list(node._pre_hooks):
        if output_nr is None:
            r = hook(tuple(grads))
            if r is not None:
                grads = list(r)
        elif grads[output_nr] is not None:
            r = hook(grads[output_nr])
            if r is not None:
                grads[output_nr] = r
    return grads


def freed_error():
    return RuntimeError(_FREED)


def _run_anomalous(node, grads):
    """The engine's call of ``node`` in anomaly mode: PyTorch's warning (node and forward stack) on any error,
    and the NaN check of its results."""
    try:
        grad_inputs = node._run(grads)
        if anomaly_state.check_nan:
            for i, g in enumerate(grad_inputs):
                if g is not None and _has_nan(g):
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception as e:
        stack = getattr(node, "_forward_stack", None)
        if stack is not None:
            trace = "".join(traceback.format_list(stack))
            message = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}"
            warnings.warn(message, stacklevel=2)
            e.add_note(message)
        raise
    return grad_inputs


def _has_nan(g):
    arr = g._value
    if is_traced(arr):  # under jax.jit there is no value to look at
        return False
    xp = g._backend.xp
    return g.dtype.kind in "fc" and bool(xp.any(xp.isnan(arr)))
