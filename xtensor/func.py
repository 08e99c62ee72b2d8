"""``torch.func``: function transforms (``grad``, ``grad_and_value``, ``vjp``, ``jacrev``/``jacfwd``,
``hessian``, ``vmap``, ``functional_call``) built on xtensor's tape.

Each transform runs the function once under the tape and differentiates it with ``autograd.grad``; when an
input already carries a graph (a transform nested in another), the result keeps its graph so the outer transform
differentiates it again. ``jacfwd`` computes the same Jacobian as ``jacrev`` (xtensor has no forward mode; the
values are equal). ``vmap`` loops over the mapped dimension; ``xtensor.vmap`` is the same function.
"""
import contextlib

from . import autograd
from ._tensor import Tensor, check_dim
from ._variants import torch_functions
from .autograd import functional as _functional
from .utils._pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call"]


def _argnums_tuple(argnums, nargs, fn_name):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"{fn_name}: argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnums={argnums}, but only {nargs} positional inputs")
    return tuple(n % nargs for n in nums)


def _tracked(tree):
    """``tree`` with each Tensor leaf made a graph input: kept as is when it carries a graph already (nesting),
    else detached with ``requires_grad``."""
    leaves, spec = tree_flatten(tree)
    leaves = [x if not isinstance(x, Tensor) or x.requires_grad else x.detach().requires_grad_() for x in leaves]
    return tree_unflatten(leaves, spec), leaves


def _differentiate(outputs, inputs, cotangents, nested):
    wanted = [x for x in inputs if isinstance(x, Tensor)]
    grads = iter(autograd.grad(outputs, wanted, cotangents, create_graph=nested, allow_unused=True,
                               materialize_grads=True))
    return [next(grads) if isinstance(x, Tensor) else None for x in inputs]


def _unwrapped(tree, nested):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([x.detach() if isinstance(x, Tensor) and not nested else x for x in leaves], spec)


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a function returning one scalar Tensor (``(value, aux)`` with ``has_aux``)."""
    def wrapper(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args), "grad_and_value")
        nested = autograd.is_grad_enabled() and any(
            isinstance(x, Tensor) and x.requires_grad for n in nums for x in tree_flatten(args[n])[0])
        with autograd.enable_grad():
            args = list(args)
            flats = []
            for n in nums:
                args[n], leaves = _tracked(args[n])
                flats.append(leaves)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   f"APIs instead?")
            grads = _differentiate(output, [x for leaves in flats for x in leaves], None, nested)
        trees, start = [], 0
        for n, leaves in zip(nums, flats):
            trees.append(tree_unflatten(grads[start:start + len(leaves)], tree_flatten(args[n])[1]))
            start += len(leaves)
        gradient = trees[0] if not isinstance(argnums, tuple) else tuple(trees)
        value = output if nested else output.detach()
        return _unwrapped(gradient, nested), (value, _unwrapped(aux, nested)) if has_aux else value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function returning one scalar Tensor (``(gradient, aux)`` with ``has_aux``)."""
    with_value = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradient, value = with_value(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``vjp_fn(cotangents)`` gives the gradients for each primal (a tuple)."""
    nested = autograd.is_grad_enabled() and any(
        isinstance(x, Tensor) and x.requires_grad for x in tree_flatten(primals)[0])
    with autograd.enable_grad():
        tracked, leaves = _tracked(primals)
        output = func(*tracked)
        aux = None
        if has_aux:
            output, aux = output
    out_leaves, out_spec = tree_flatten(output)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        cot_leaves, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {cot_spec}, primal output: {out_spec}")
        with autograd.enable_grad():
            grads = _differentiate(out_leaves, leaves, cot_leaves, nested or bool(create_graph))
        return _unwrapped(tree_unflatten(grads, tree_flatten(tracked)[1]), nested)

    result = (_unwrapped(output, nested), vjp_fn)
    return (*result, _unwrapped(aux, nested)) if has_aux else result


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` w.r.t. ``args[argnums]`` (a tuple of them for tuple ``argnums``)."""
    if has_aux:
        raise NotImplementedError("xtensor.func.jacrev(has_aux=True) is not implemented")

    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args), "jacrev")

        def of_selected(*selected):
            full = list(args)
            for n, x in zip(nums, selected):
                full[n] = x
            return func(*full)
        selected = tuple(args[n] for n in nums)
        nested = autograd.is_grad_enabled() and any(isinstance(x, Tensor) and x.requires_grad for x in selected)
        return _functional.jacobian(of_selected, selected if isinstance(argnums, tuple) else selected[0],
                                    create_graph=nested)
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as ``jacrev`` computes it (xtensor has no forward mode; the values are the same)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of a scalar function w.r.t. ``args[argnums]``: ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)


@contextlib.contextmanager
def _swapped(module, tensors, strict):
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    unknown = set(tensors) - set(named)
    if strict and (unknown or set(named) - set(tensors)):
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: unexpected key(s) "
                           f"{sorted(unknown)}, missing key(s) {sorted(set(named) - set(tensors))}.")
    if unknown:
        raise RuntimeError(f"Unexpected key(s): {', '.join(repr(k) for k in sorted(unknown))}.")
    saved = {}
    for name, value in tensors.items():
        owner_path, _, attr = name.rpartition(".")
        owner = module.get_submodule(owner_path)
        saved[name] = (owner, attr, owner._parameters.get(attr), owner._buffers.get(attr), attr in owner._parameters)
        (owner._parameters if attr in owner._parameters else owner._buffers).pop(attr, None)
        object.__setattr__(owner, attr, value)
    try:
        yield
    finally:
        for owner, attr, parameter, buffer, was_parameter in saved.values():
            object.__delattr__(owner, attr)
            if was_parameter:
                owner._parameters[attr] = parameter
            else:
                owner._buffers[attr] = buffer


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the given tensors (by name; names not
    given keep the module's own), the module left unchanged afterwards."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        tensors = dict(dicts)
    else:
        tensors = {}
        for d in dicts:
            clash = set(tensors) & set(d)
            if clash:
                raise ValueError(f"{sorted(clash)} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            tensors.update(d)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, tensors, strict):
        return module(*args, **(kwargs or {}))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dim of its arguments (``in_dims``: one for all, or one per argument, nested as the
    argument is -- tuples, lists, dicts; None: not mapped), results stacked along ``out_dims``. Runs ``func``
    once per slice (a loop, not PyTorch's batching rules): the same values and gradients, none of the speed.
    Random ops inside draw different values per slice (PyTorch's ``randomness='different'``)."""
    def mapped(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(func, in_dims={in_dims})(<inputs>): in_dims is not compatible with the structure "
                             f"of `inputs`. in_dims has structure {len(dims)} but inputs has {len(args)} elements")
        sizes = set()
        for a, d in zip(args, dims):
            _mapped_sizes(a, d, sizes)
        if len(sizes) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)}" if sizes else "vmap: at least one input must be mapped (in_dims)")
        n = sizes.pop()
        results = [func(*(_slice(a, d, i) for a, d in zip(args, dims)), **kwargs) for i in range(n)]
        return _stacked(results, out_dims)
    return mapped


def _mapped_sizes(arg, dim, sizes):
    if dim is None:
        return
    if isinstance(arg, Tensor):
        sizes.add(arg.shape[check_dim(dim, arg.ndim)])
    elif isinstance(arg, dict):
        for k, v in arg.items():
            _mapped_sizes(v, dim[k] if isinstance(dim, dict) else dim, sizes)
    elif isinstance(arg, (tuple, list)):
        for a, d in zip(arg, dim if isinstance(dim, (tuple, list)) else (dim,) * len(arg)):
            _mapped_sizes(a, d, sizes)
    else:
        raise ValueError(f"vmap: Got in_dim={dim} for an input but the input is of type {type(arg).__name__}. We "
                         f"cannot vmap over non-Tensor arguments, please use None as the respective in_dim")


def _slice(arg, dim, i):
    if dim is None:
        return arg
    if isinstance(arg, Tensor):
        return arg.select(dim, i)
    if isinstance(arg, dict):
        return {k: _slice(v, dim[k] if isinstance(dim, dict) else dim, i) for k, v in arg.items()}
    return type(arg)(_slice(a, d, i) for a, d in zip(arg, dim if isinstance(dim, (tuple, list)) else
                                                     (dim,) * len(arg)))


def _stacked(results, out_dims):
    first = results[0]
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        return type(first)(_stacked([r[k] for r in results], d) for k, d in enumerate(dims))
    if isinstance(first, dict):
        return {k: _stacked([r[k] for r in results], out_dims[k] if isinstance(out_dims, dict) else out_dims)
                for k in first}
    if not isinstance(first, Tensor):
        raise ValueError(f"vmap: `func` must only return Tensors, got type {type(first).__name__}")
    return torch_functions["stack"](results, out_dims)
