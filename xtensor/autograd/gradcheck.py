"""``gradcheck``/``gradgradcheck``: xtensor's gradients against central finite differences, for users.

As PyTorch's: every input that requires grad is perturbed element by element by ``eps`` (in its
own dtype, so use float64), the numerical Jacobian is compared with the one backward passes give
(``|analytical - numerical| <= atol + rtol * |numerical|``), and a mismatch raises a
``GradcheckError`` naming the output and input -- or returns False with ``raise_exception=False``.
"""
import warnings

import numpy as np

from . import grad_mode

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient that does not match its finite-difference estimate."""


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs):
    from .._tensor import Tensor
    return tuple(o for o in _tuple(outputs) if isinstance(o, Tensor) and o.dtype.kind in "fc")


def _values(t):
    return np.asarray(t._backend.to_numpy(t.detach()._value), dtype=np.float64)


def _numerical_jacobians(func, inputs, wrt, outputs, eps):
    """``[output][input]`` Jacobians (numel_out x numel_in numpy arrays) by central differences."""
    jac = [[np.zeros((o.numel(), inputs[j].numel())) for j in wrt] for o in outputs]
    for col, j in enumerate(wrt):
        x = inputs[j]
        base = x.detach().clone()
        for k in range(x.numel()):
            values = []
            for step in (eps, -eps):
                perturbed = base.clone()
                flat = perturbed.view(-1)
                flat[k] = flat[k] + step
                args = list(inputs)
                args[j] = perturbed.requires_grad_(True)  # func may differentiate inside (gradgradcheck)
                with grad_mode.enable_grad():
                    values.append([_values(o) for o in _differentiable_outputs(func(*args))])
            for i, (plus, minus) in enumerate(zip(*values)):
                jac[i][col][:, k] = ((plus - minus) / (2 * eps)).reshape(-1)
    return jac


def _analytical_jacobians(outputs, inputs, wrt):
    """``[output][input]`` Jacobians, row by row through ``autograd.grad``."""
    from . import grad as autograd_grad
    from .._creation import eye
    jac = [[np.zeros((o.numel(), inputs[j].numel())) for j in wrt] for o in outputs]
    targets = [inputs[j] for j in wrt]
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        basis = eye(out.numel(), dtype=out.dtype, backend=out._backend)
        for row in range(out.numel()):
            grads = autograd_grad(out, targets, basis[row].reshape(out.shape), retain_graph=True, allow_unused=True)
            for col, g in enumerate(grads):
                if g is not None:
                    jac[i][col][row, :] = _values(g).reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """True when the gradients of ``func`` at ``inputs`` match finite differences (PyTorch's arguments; the
    batched, forward-AD and fast modes are not run)."""
    from .._tensor import Tensor
    inputs = _tuple(inputs)
    wrt = [j for j, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for j in wrt:
        if inputs[j].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{j} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=2)
    with grad_mode.enable_grad():
        outputs = _differentiable_outputs(func(*inputs))
    if not outputs:
        raise ValueError("gradcheck expects at least one output of the function to be a floating point or "
                         "complex Tensor.")
    numerical = _numerical_jacobians(func, inputs, wrt, outputs, eps)
    analytical = _analytical_jacobians(outputs, inputs, wrt)
    for i in range(len(outputs)):
        for col, j in enumerate(wrt):
            a, n = analytical[i][col], numerical[i][col]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                message = (f"Jacobian mismatch for output {i} with respect to input {j},\n"
                           f"numerical:{_format(n)}\nanalytical:{_format(a)}\n")
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def _format(a):
    return np.array2string(a, precision=4, separator=", ")


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """``gradcheck`` of the gradient of ``func``: checks second derivatives. ``grad_outputs`` default to
    seeded random tensors that themselves require grad, as in PyTorch."""
    from . import grad as autograd_grad
    from .._creation import tensor
    from .._tensor import Tensor
    inputs = _tuple(inputs)
    with grad_mode.enable_grad():
        outputs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype, backend=o._backend,
                                    requires_grad=True) for o in outputs)
    grad_outputs = _tuple(grad_outputs)
    n_inputs = len(inputs)
    wrt = [j for j, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivatives(*args):
        xs, gs = args[:n_inputs], args[n_inputs:]
        outs = _differentiable_outputs(func(*xs))
        pairs = [(o, g) for o, g in zip(outs, gs) if o.requires_grad]
        grads = autograd_grad([o for o, _ in pairs], [xs[j] for j in wrt], [g for _, g in pairs],
                              create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
