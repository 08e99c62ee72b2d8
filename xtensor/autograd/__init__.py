"""xtensor.autograd: ``backward``, ``grad``, grad modes, ``Variable`` -- over xtensor's own tape."""
import math

import numpy as _np

from .. import _autograd as _tape
from .._dispatch import edge_of as _edge_of
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "Variable", "Function", "once_differentiable",
           "function", "functional", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def _load_extensions():
    """Load ``Function``, ``functional`` and ``gradcheck``: they build on the tape, which imports this
    package's grad modes first -- so ``xtensor/__init__`` calls this once the tape exists."""
    from . import function, functional, gradcheck as gradcheck_module, profiler
    globals().update(function=function, functional=functional, profiler=profiler, Function=function.Function,
                     once_differentiable=function.once_differentiable, gradcheck=gradcheck_module.gradcheck,
                     gradgradcheck=gradcheck_module.gradgradcheck)


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _root_grads(tensors, grad_tensors):
    grads = []
    for i, t in enumerate(tensors):
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            shape = (t._arr if t._arr is not None else t._refresh()).shape
            if shape and math.prod(shape) != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t._dtype.kind not in "fc":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{t.dtype}")
            backend, xp = t._backend, t._backend.xp
            native = backend.native[t._dtype]
            # (numpy's own ``array``: ``ones`` costs ~1 µs of dtype checks, array-api-compat's ``asarray`` ~1 µs)
            one = _np.array(1, dtype=native) if backend._array_type is _np.ndarray else xp.asarray(1, dtype=native)
            g = _tape.grad_tensor(xp.reshape(one, shape) if shape else one, backend)
        elif not hasattr(g, "_dtype"):
            g = t.new_tensor(g)
        elif g.shape != t.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                               f"has a shape of {t.shape}.")
        grads.append(g)
    return grads


def _roots(tensors):
    edges = []
    for i, t in enumerate(tensors):
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(_edge_of(t))
    return edges


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves they depend on."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(tensors)
    grads = _root_grads(tensors, grad_tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        captured = _tape.run_backward(roots, grads, retain_graph, create_graph,
                                      capture=[_edge_of(x) for x in inputs], accumulate=False)
        for x, g in zip(inputs, captured):
            if g is not None:
                _tape.accumulate_into(x, _tape.as_grad_tensor(g, x), create_graph)
        return
    _tape.run_backward(roots, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is left untouched)."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = _roots(outputs)
    grads = _root_grads(outputs, _as_tuple(grad_outputs))
    captured = _tape.run_backward(roots, grads, retain_graph, create_graph,
                                  capture=[_edge_of(x) for x in inputs], accumulate=False)
    result = []
    for i, (x, g) in enumerate(zip(inputs, captured)):
        g = _tape.as_grad_tensor(g, x)
        if g is None:
            if materialize_grads:
                from .._creation import zeros_like
                g = zeros_like(x)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        elif g.shape != x.shape:
            g = g.expand(x.shape) if g.numel() == 1 else g.reshape(x.shape)
        result.append(g)
    return tuple(result)


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper: today just the tensor (a fresh leaf when ``requires_grad``)."""
    t = data.detach() if requires_grad else data
    if requires_grad:
        t.requires_grad_(True)
    return t
