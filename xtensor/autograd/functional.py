"""``xtensor.autograd.functional``: vjp, jvp, jacobian, hessian, vhp, hvp -- PyTorch's signatures.

Each differentiates a function of tensors with reverse mode on xtensor's tape (forward products by
the double-vjp trick, as PyTorch's functional API does). Inputs are taken as fresh leaves, so the
caller's tensors and their ``.grad`` are untouched; results carry no graph unless ``create_graph``.
``vectorize`` and ``strategy`` are accepted for compatibility; the rows of a Jacobian are computed
one backward pass each.
"""
from . import grad_mode
from .. import _creation
from .._registry import FUNCTIONS

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x, arg_name, fn_name):
    """``(tuple of tensors, whether it was given as a tuple)``; anything but tensors is a TypeError."""
    from .._tensor import Tensor
    is_tuple = isinstance(x, (tuple, list))
    items = tuple(x) if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors"
            raise TypeError(f"{where} but the value at index {i} has type {type(el).__name__}." if is_tuple
                            else f"{where} but the given {arg_name} has type {type(el).__name__}.")
    return items, is_tuple


def _as_given(items, is_tuple):
    return items if is_tuple else items[0]


def _prepare_inputs(inputs, create_graph):
    """Fresh leaves to differentiate at; under create_graph an input that requires grad keeps its history
    (through an alias), so the result can be differentiated with respect to the caller's tensor."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(True)
                 for x in inputs)


def _finish(tensors, create_graph):
    """Results without graph unless ``create_graph``."""
    return tuple(t if t is None or create_graph else t.detach() for t in tensors)


def _check_outputs(outputs, fn_name):
    for i, out in enumerate(outputs):
        if not out.requires_grad and out.dtype.kind not in "fc":
            raise RuntimeError(f"The output of the user-provided function given to {fn_name} at index {i} is not "
                               "a floating point Tensor, so it cannot be differentiated.")


def _grads(outputs, inputs, grad_outputs, create_graph, strict, fn_name, retain_graph=None):
    """``autograd.grad`` where outputs that do not depend on the inputs give zeros (or, when ``strict``, an
    error naming the input), as PyTorch's functional API does."""
    from . import grad as autograd_grad
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        result = autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                               create_graph=create_graph,
                               retain_graph=create_graph if retain_graph is None else retain_graph)
    else:
        result = (None,) * len(inputs)
    grads = []
    for i, (g, x) in enumerate(zip(result, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                                   "is not allowed in strict mode.")
            g = _creation.zeros_like(x)
        grads.append(g)
    return tuple(grads)


def _vector(v, like, name, fn_name):
    """The user's ``v`` checked against ``like`` (shapes), or ones where ``like`` is one element."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {name} of the user-provided function is a "
                               "single Tensor with a single element.")
        return (_creation.ones_like(like[0]),)
    vs, _ = _as_tuple(v, "v", fn_name)
    if len(vs) != len(like):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(vs)}.")
    for i, (a, b) in enumerate(zip(vs, like)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Entry {i} in v has invalid size: should be {list(b.shape)} but got "
                               f"{list(a.shape)}.")
    return vs


def _call(func, inputs, fn_name):
    with grad_mode.enable_grad():
        outputs = func(*inputs)
    items, is_tuple = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    return items, is_tuple


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    xs, inputs_tuple = _as_tuple(inputs, "inputs", "vjp")
    xs = _prepare_inputs(xs, create_graph)
    outs, outputs_tuple = _call(func, xs, "vjp")
    _check_outputs(outs, "vjp")
    vs = _vector(v, outs, "output", "vjp")
    grads = _grads(outs, xs, vs, create_graph, strict, "vjp")
    return _as_given(_finish(outs, create_graph), outputs_tuple), _as_given(_finish(grads, create_graph),
                                                                               inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product, by differentiating a vjp in its cotangent."""
    xs, inputs_tuple = _as_tuple(inputs, "inputs", "jvp")
    xs = _prepare_inputs(xs, create_graph)
    vs = _vector(v, xs, "input", "jvp")
    outs, outputs_tuple = _call(func, xs, "jvp")
    _check_outputs(outs, "jvp")
    with grad_mode.enable_grad():
        cotangents = tuple(_creation.zeros_like(o).requires_grad_(True) for o in outs)
        grads = _grads(outs, xs, cotangents, True, strict, "jvp")
        jv = _grads(grads, cotangents, vs, create_graph, strict, "jvp", retain_graph=True)
    return _as_given(_finish(outs, create_graph), outputs_tuple), _as_given(_finish(jv, create_graph),
                                                                               outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: entry ``[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``
    (nesting dropped where ``func`` takes or returns a single Tensor, as in PyTorch)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    xs, inputs_tuple = _as_tuple(inputs, "inputs", "jacobian")
    xs = _prepare_inputs(xs, create_graph)
    outs, outputs_tuple = _call(func, xs, "jacobian")
    _check_outputs(outs, "jacobian")
    rows = []
    for i, out in enumerate(outs):
        per_input = [[] for _ in xs]
        n = out.numel()
        basis = _creation.eye(n, dtype=out.dtype, backend=out._backend)
        for k in range(n):
            grads = _grads((out,), xs, (basis[k].reshape(out.shape),), create_graph, strict, "jacobian",
                           retain_graph=True)
            for j, g in enumerate(grads):
                per_input[j].append(g)
        rows.append(tuple(_stacked(col, out, x, create_graph) for col, x in zip(per_input, xs)))
    if outputs_tuple:
        return tuple(_as_given(r, inputs_tuple) for r in rows)
    return _as_given(rows[0], inputs_tuple)


def _stacked(grads, out, x, create_graph):
    shape = tuple(out.shape) + tuple(x.shape)
    if not grads:
        return _creation.zeros(shape, dtype=x.dtype, backend=x._backend)
    j = FUNCTIONS["stack"](grads).reshape(shape)
    return j if create_graph else j.detach()


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs`` (blocks ``[i][j]`` for several inputs)."""
    xs, inputs_tuple = _as_tuple(inputs, "inputs", "hessian")

    def scalar_func(*args):
        out = func(*args)
        outs, is_tuple = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_tuple or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single "
                               "element.")
        return outs[0].reshape(())

    def gradient(*args):
        return jacobian(scalar_func, _as_given(args, inputs_tuple), create_graph=True, strict=strict)

    return jacobian(gradient, _as_given(xs, inputs_tuple), create_graph=create_graph, strict=strict,
                    strategy=outer_jacobian_strategy)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar ``func``."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar ``func`` (H is symmetric for smooth functions, so this is vhp)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph, strict, fn_name):
    xs, inputs_tuple = _as_tuple(inputs, "inputs", fn_name)
    xs = _prepare_inputs(xs, create_graph)
    vs = _vector(v, xs, "input", fn_name)
    outs, outputs_tuple = _call(func, xs, fn_name)
    if outputs_tuple or outs[0].numel() != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor with a single element.")
    with grad_mode.enable_grad():
        grads = _grads(outs, xs, (_creation.ones_like(outs[0]),), True, strict, fn_name)
        product = _grads(grads, xs, vs, create_graph, strict, fn_name, retain_graph=create_graph)
    return _finish(outs, create_graph)[0], _as_given(_finish(product, create_graph), inputs_tuple)
