"""Custom differentiable functions: ``xtensor.autograd.Function``, as PyTorch's.

A subclass gives static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``; ``Function.apply``
runs the forward with grad mode off and, when an input requires grad, gives the outputs one node of class
``<Name>Backward``. As in PyTorch the node *is* the ``ctx`` -- so ``z.grad_fn.saved_tensors`` and
``z.grad_fn.apply(grad)`` work. Memory: the node keeps saved inputs as given and saved outputs as
detached aliases (an output holds its node, so the node must not hold the output), and frees them after a
backward without ``retain_graph``.
"""
import functools

from .._autograd import Node, freed_error
from .._dispatch import edge_of
from .._tensor import Tensor
from . import grad_mode

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

_state = grad_mode.state


class FunctionCtx:
    """What ``forward`` may tell ``backward``: saved tensors, dirty and non-differentiable outputs."""

    __slots__ = ()  # a mixin of the node class, whose slots hold the state

    _to_save = ()
    _saved = None  # [(tensor or detached output alias, output_nr or None)]; None once freed
    _saved_versions = None
    _dirty = ()
    _non_differentiable = ()
    materialize_grads = True
    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (inputs, outputs or None) for ``backward``; they are version-checked there."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place (and returns): they take this node as history."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (their incoming gradient in ``backward`` is zeros)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """Whether ``backward`` sees zeros (True, the default) or None for outputs that got no gradient."""
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            if self._was_saved:
                raise freed_error()
            return tuple(self._to_save)  # still inside forward
        if self._saved_versions:
            from .._dispatch import _check_versions
            _check_versions(self, [t for t, nr in saved if nr is not None])
        return tuple(self._unpack(t, nr) for t, nr in saved)

    saved_variables = saved_tensors
    _was_saved = False

    def _unpack(self, t, output_nr):
        """A saved output comes back, under create_graph, as an output of this node (PyTorch's
        SavedVariable): so a backward that reads it is differentiated through it."""
        if t is None or output_nr is None or not _state.enabled:
            return t
        from .._dispatch import detached
        r = detached(t)
        r._grad_fn, r._requires_grad = self, True
        if output_nr:
            r._output_nr = output_nr
        return r


class BackwardCFunction(Node, FunctionCtx):
    """The node of one ``Function.apply`` call; each Function subclass gets a subclass ``<Name>Backward``."""

    _forward_cls = None
    _outputs_meta = ()  # (shape, dtype, backend) per output: to materialize missing gradients
    _input_is_tensor = ()

    def __repr__(self):
        return f"<xtensor.autograd.function.{type(self).__name__} object at {id(self):#x}>"

    @property
    def n_outputs(self):
        return len(self._outputs_meta)

    def apply(self, *grad_outputs):
        """The user's ``backward`` on ``grad_outputs``, its result as returned (as ``grad_fn.apply`` in PyTorch)."""
        backward = self._forward_cls.backward
        return backward(self, *grad_outputs)

    def _run(self, grads):
        """The engine's call: materialize missing gradients, run backward, check and fit its results."""
        grads = tuple(self._materialized(grads)) if self.materialize_grads else tuple(grads)
        result = self.apply(*grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._input_is_tensor)
        if len(result) < expected or any(g is not None for g in result[expected:]):
            raise RuntimeError(f"function {type(self).__name__} returned an incorrect number of gradients "
                               f"(expected {expected}, got {len(result)})")
        out = []
        edges = iter(self._edges)
        for i, (g, is_tensor) in enumerate(zip(result, self._input_is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(f"function {type(self).__name__} returned a gradient different than None "
                                       f"at position {i + 1}, but the corresponding forward input was not a "
                                       "Variable")
                continue
            out.append(self._fitted(i, g) if next(edges)[0] is not None else None)
        return out

    def _fitted(self, i, g):
        if g is None:
            return None
        if not isinstance(g, Tensor):
            raise TypeError(f"function {type(self).__name__} returned a gradient of type {type(g).__name__} at "
                            f"position {i + 1}; expected a Tensor or None")
        shape, dtype, backend = self._inputs_meta[i]
        if tuple(g.shape) != shape:
            from .._dispatch import unbroadcast
            try:
                g = unbroadcast(g, shape)
            except (RuntimeError, ValueError):
                raise RuntimeError(f"Function {type(self).__name__} returned an invalid gradient at index {i} - "
                                   f"got {list(g.shape)} but expected shape compatible with {list(shape)}") from None
        if g._backend is not backend:
            g = g.to(backend.name)
        return g.to(dtype) if g._dtype is not dtype else g

    def _materialized(self, grads):
        from .._dispatch import wrap
        for g, (shape, dtype, backend) in zip(grads, self._outputs_meta):
            if g is None:
                g = wrap(backend.xp.zeros(shape, dtype=backend.native[dtype]), backend, dtype)
            yield g

    def release(self):
        if self._saved:
            self._saved = None
            self._saved_versions = ()


class _FunctionMeta(type):
    """Gives each Function subclass its node class ``<Name>Backward``."""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Base of custom differentiable functions: subclass with static ``forward`` and ``backward``, call ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """PyTorch 2's split style: ``forward(*args)`` without ctx, then ``setup_context`` fills the ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-"
                           "style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{cls.__name__}.apply() takes positional arguments only")
        node = cls._backward_cls.__new__(cls._backward_cls)
        tensors = [a for a in args if isinstance(a, Tensor)]
        records = _state.enabled and any(t._requires_grad for t in tensors)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad and records for a in args)
        split = cls.setup_context is not Function.setup_context
        previous, _state.enabled = _state.enabled, False
        try:
            output = cls.forward(*args) if split else cls.forward(node, *args)
        finally:
            _state.enabled = previous
        if split:
            cls.setup_context(node, args, output)
        single = not isinstance(output, tuple)
        outputs = (output,) if single else output
        if not records:
            return output
        outputs = tuple(_connect(node, args, tensors, outputs))
        return outputs[0] if single else outputs


def _connect(node, args, tensors, outputs):
    """Give the outputs ``node`` as history and fill the node's edges, metadata and saved tensors."""
    from .._dispatch import detached
    from .._inplace import check_inplace
    node._edges = tuple(edge_of(t) for t in tensors)
    node._input_is_tensor = tuple(isinstance(a, Tensor) for a in args)
    node._inputs_meta = tuple((tuple(a.shape), a._dtype, a._backend) if isinstance(a, Tensor) else None
                              for a in args)
    dirty = {id(t) for t in node._dirty}
    non_differentiable = {id(t) for t in node._non_differentiable}
    input_ids = {id(t) for t in tensors}
    meta, results, output_nr = [], [], {}
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            results.append(o)
            continue
        if id(o) in dirty:
            check_inplace_leaf(o, check_inplace)
        elif id(o) in input_ids:
            o = detached(o)  # an input returned as is: a new alias carries the output's history
        meta.append((tuple(o.shape), o._dtype, o._backend))
        if id(outputs[i]) not in non_differentiable and o._dtype.kind in "fc":
            o._grad_fn, o._requires_grad = node, True
            if len(meta) > 1:
                o._output_nr = len(meta) - 1
        elif id(outputs[i]) in non_differentiable and o._requires_grad:
            o._requires_grad = False
        output_nr[id(outputs[i])] = len(meta) - 1
        results.append(o)
    node._outputs_meta = tuple(meta)
    saved = []
    for t in node._to_save:
        if t is None:
            saved.append((None, None))
        elif id(t) in output_nr and id(t) not in input_ids | dirty:
            saved.append((detached(t), output_nr[id(t)]))  # an output: an alias, or the node would hold itself
        else:
            saved.append((t, None))
    node._to_save = ()
    if saved:
        node._saved, node._was_saved = saved, True
        node._saved_versions = [(t, t._storage.version) for t, _ in saved if t is not None]
    return results


def check_inplace_leaf(t, check_inplace):
    """A dirty input: PyTorch refuses a leaf that requires grad, as for any in-place op."""
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    check_inplace(t)


def once_differentiable(backward):
    """Marks a ``backward`` that is not itself differentiable: it runs without recording, and a gradient of
    its results (under create_graph) raises instead of being silently wrong."""

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with grad_mode.no_grad():
            result = backward(ctx, *grad_outputs)
        if not _state.enabled or not any(isinstance(g, Tensor) and g._requires_grad for g in grad_outputs):
            return result
        edges = tuple(edge_of(g) for g in grad_outputs if isinstance(g, Tensor) and g._requires_grad)
        single = not isinstance(result, tuple)
        wrapped = tuple(_delayed_error(r, edges) for r in ((result,) if single else result))
        return wrapped[0] if single else wrapped
    return wrapper


class Error(Node):
    """The history of a once-differentiable backward's result (PyTorch's ``Error`` node): backpropagating
    through it raises."""

    __slots__ = ()

    def apply(self, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def _delayed_error(r, edges):
    if not isinstance(r, Tensor) or r._dtype.kind not in "fc":
        return r
    node = Error()
    node._edges = edges
    r._grad_fn, r._requires_grad = node, True
    return r

