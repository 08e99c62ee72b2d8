"""Module backward hooks (``register_full_backward_hook``/``register_full_backward_pre_hook``), as PyTorch builds them.

A call of a hooked module passes its tensor inputs, and then its tensor outputs, through one identity node each
(``BackwardHookFunctionBackward``). The outputs' node sees the gradients of the module's outputs (the pre-hooks may
replace them); the inputs' node sees the gradients of its inputs (the hooks get both and may replace the inputs').
"""
import warnings

from ..._autograd import grad_state
from ..._tensor import Tensor
from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity on its tensors: a node to hang one module call's gradient hooks on."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """The hooks of one call of ``module``: gradients of its outputs, then of its inputs, each packed to the
    call's positions (``None`` where the position held no tensor or its tensor needs no gradient)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = 0
        self.input_index = self.output_index = None

    def setup_input_hook(self, args):
        args, self.input_index = self._through_identity(args, self._input_hook)
        self.n_inputs = len(args)
        return args

    def setup_output_hook(self, result):
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors "
                          f"but received {type(result)}")
        single = not isinstance(result, tuple)
        outputs, self.output_index = self._through_identity((result,) if single else result, self._output_hook)
        self.n_outputs = len(outputs)
        return outputs[0] if single else outputs

    @staticmethod
    def _through_identity(args, hook):
        """``args`` with their tensors passed through one hooked identity node; also the tensors' positions
        (``None``, and ``args`` unchanged, when nothing will need a gradient)."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (grad_state.enabled and any(args[i].requires_grad for i in index)):
            return args, None
        passed = BackwardHookFunction.apply(*[args[i] for i in index])
        next(t.grad_fn for t in passed if t.grad_fn is not None).register_hook(hook)
        replaced = list(args)
        for i, t in zip(index, passed):
            replaced[i] = t
        return (tuple(replaced) if type(args) is tuple else type(args)(*replaced)), index

    @staticmethod
    def _packed(index, values, size):
        packed = [None] * size
        for i, v in zip(index, values):
            packed[i] = v
        return tuple(packed)

    def _output_hook(self, grad_inputs, grad_outputs):
        grad_outputs = self.grad_outputs = _replaced_by(
            self.pre_hooks, lambda hook, grads: hook(self.module, grads),
            self._packed(self.output_index, grad_outputs, self.n_outputs), "Backward pre hook", "grad_output")
        if self.input_index is None:  # no input needs a gradient: the hooks run now, with nothing to replace
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            for hook in self.hooks:
                replaced = hook(self.module, (None,) * self.n_inputs, self.grad_outputs)
                if replaced is not None and not (isinstance(replaced, tuple) and all(g is None for g in replaced)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def _input_hook(self, grad_inputs, grad_outputs):
        if self.grad_outputs is None:  # the gradient reached the inputs without passing through the outputs
            return None
        packed = _replaced_by(self.hooks, lambda hook, grads: hook(self.module, grads, self.grad_outputs),
                              self._packed(self.input_index, grad_inputs, self.n_inputs), "Backward hook", "grad_input")
        self.grad_outputs = None
        return tuple(packed[i] for i in self.input_index)


def _replaced_by(hooks, call, grads, kind, name):
    """``grads`` after each hook in turn, ``call(hook, grads)`` returning None (keep them) or their replacement,
    which must be as long (PyTorch's error otherwise)."""
    for hook in hooks:
        replaced = call(hook, grads)
        if replaced is None:
            continue
        if len(replaced) != len(grads):
            raise RuntimeError(f"{kind} returned an invalid number of {name}, got {len(replaced)}, but expected "
                               f"{len(grads)}")
        grads = replaced
    return grads
