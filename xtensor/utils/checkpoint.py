"""``torch.utils.checkpoint``: activation checkpointing, as a memory optimisation xtensor does not need to perform.

PyTorch's checkpoint drops a segment's activations in the forward pass and recomputes them in the backward pass;
the values and gradients are exactly those of calling the function directly. xtensor's tape keeps the
activations, so ``checkpoint(fn, *args)`` calls ``fn(*args)`` under the tape: the same outputs and gradients as
torch (not the memory saving). What torch's two variants differ in is kept: the reentrant variant
(``use_reentrant=True``) takes no keyword arguments for ``fn`` and, when no input tensor requires grad, warns and
returns an output that does not require grad (parameters inside ``fn`` get no gradient), as torch's does.
Leaving ``use_reentrant`` unspecified warns as torch 2.13 does and picks the reentrant variant.
"""
import warnings

from .. import autograd

__all__ = ["checkpoint", "checkpoint_sequential"]

_UNSPECIFIED = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
                "is recommended, but if you need to preserve the current default behavior, you can pass "
                "use_reentrant=True. Refer to docs for more details on the differences between the two variants.")
_UNSPECIFIED_SEQUENTIAL = ("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
                           "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
                           "passed. use_reentrant=False is recommended, but if you need to preserve the current "
                           "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
                           "the differences between the two variants.")


def _reentrant(use_reentrant, message):
    if use_reentrant is None:
        warnings.warn(message, stacklevel=3)
        return True
    return bool(use_reentrant)


def _unexpected(kwargs):
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` with torch's checkpoint semantics (values and gradients as a direct call;
    see the module docstring for what the reentrant variant changes)."""
    kwargs.pop("preserve_rng_state", None)  # nothing is recomputed, so there is no RNG state to replay
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if not _reentrant(use_reentrant, _UNSPECIFIED):
        if context_fn is not None:
            forward_context, _ = context_fn()
            with forward_context:
                return function(*args, **kwargs)
        return function(*args, **kwargs)
    if context_fn is not None or debug:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    _unexpected(kwargs)
    if autograd.is_grad_enabled() and not any(getattr(a, "requires_grad", False) for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        with autograd.no_grad():
            return function(*args)
    return function(*args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list or ``nn.Sequential``) in order on ``input``, checkpointing ``segments`` chunks as
    torch does (the last chunk is run directly)."""
    use_reentrant = _reentrant(use_reentrant, _UNSPECIFIED_SEQUENTIAL)
    preserve = kwargs.pop("preserve_rng_state", True)
    _unexpected(kwargs)
    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
