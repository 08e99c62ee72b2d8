"""``nn.utils.weight_norm``: PyTorch's hook-based weight normalisation, ``w = g * v / ||v||``.

The module's ``weight`` parameter is replaced by ``weight_g`` (the norms, over every dimension but ``dim``) and
``weight_v`` (the direction), and a forward pre-hook recomputes ``weight`` from them before each call, so the
gradient reaches ``g`` and ``v`` through ordinary ops. ``state_dict`` keys are PyTorch's (``weight_g``,
``weight_v``); ``remove_weight_norm`` folds them back into one parameter.
"""
import warnings

from ..parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dimension but ``dim``, shaped to broadcast against ``v``; of all of ``v`` for
    ``dim`` None or -1 (PyTorch's ``norm_except_dim`` reads -1 so, not as the last dimension)."""
    if dim is None or dim == -1:
        return v.norm()
    dim = dim % v.ndim
    moved = v.movedim(dim, 0)
    shape = [1] * v.ndim
    shape[dim] = v.shape[dim]
    return moved.reshape(v.shape[dim], -1).norm(dim=1).reshape(shape)


class WeightNorm:
    """The forward pre-hook: ``name`` recomputed from ``name_g`` and ``name_v`` before each call."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (norm over all dimensions but ``dim``; ``None``: the
    whole tensor). Deprecated in PyTorch in favour of ``parametrizations.weight_norm``, with the same warning."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Fold ``name_g`` and ``name_v`` back into the parameter ``name`` and drop the hook."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
