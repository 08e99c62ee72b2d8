"""``torch.nn.utils.parametrize``: a module tensor computed from an ``original`` through modules.

``register_parametrization(module, "weight", P)`` moves ``weight`` to
``module.parametrizations.weight.original`` (or ``original0, original1, ...`` when ``P.right_inverse`` returns
a tuple), and makes ``module.weight`` a property that evaluates ``P(original)`` on each read, so gradients reach
``original`` through ordinary ops; assigning ``module.weight = x`` stores ``right_inverse(x)``. The module's class
becomes ``Parametrized<Class>`` and ``state_dict`` keys are torch's. ``cached()`` evaluates each parametrization once
inside its block.
"""
import contextlib

from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once and reused (as torch's)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _check_unchanged(original, value):
    """A safe parametrization keeps the tensor's dtype and shape (torch's errors otherwise)."""
    for what in ("dtype", "shape"):
        if getattr(value, what) != getattr(original, what):
            raise ValueError(f"Registering a parametrization may not change the {what} of the tensor, unless "
                             f"`unsafe` flag is enabled.\nunparametrized {what}: {getattr(original, what)}\n"
                             f"parametrized {what}: {getattr(value, what)}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the ``original`` tensor(s) they read."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        new = original.detach()
        for module in reversed(list(self)):
            if hasattr(module, "right_inverse"):
                try:
                    new = module.right_inverse(new)
                except NotImplementedError:  # as PyTorch's: a right_inverse that cannot invert is the identity
                    pass
        self.is_tensor = not isinstance(new, (tuple, list))
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self.register_parameter("original", Parameter(new.detach(), requires_grad=original.requires_grad))
        else:
            for i, value in enumerate(new):
                self.register_parameter(f"original{i}", Parameter(value.detach(),
                                                                  requires_grad=original.requires_grad))
        if not unsafe:
            _check_unchanged(original, self())

    def originals(self):
        return [self.original] if self.is_tensor else [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value):
        """Store ``value`` as the tensor: ``original`` becomes the right inverse of the parametrizations at it."""
        from ... import no_grad
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            for original, new in zip(self.originals(), [value] if self.is_tensor else value):
                original.copy_(new)

    def forward(self):
        first, *rest = list(self)
        x = first(*self.originals()) if not self.is_tensor else first(self.original)
        for module in rest:
            x = module(x)
        return x


def _evaluate(module, name):
    parametrization = module.parametrizations[name]
    if not _cache_enabled:
        return parametrization()
    key = (id(module), name)
    if key not in _cache:
        _cache[key] = parametrization()
    return _cache[key]


def _parametrized_class(module):
    cls = type(module)
    return type(f"Parametrized{cls.__name__}", (cls,), {"__module__": cls.__module__, "_original_class": cls})


def _add_property(module, name):
    setattr(type(module), name, property(lambda self: _evaluate(self, name),
                                         lambda self, value: self.parametrizations[name].right_inverse(value)))


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` (its tensor ``tensor_name``, if given) has a parametrization."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module):
    return type(module)._original_class if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` by the module ``parametrization`` (appended after any earlier ones)."""
    if is_parametrized(module, tensor_name):
        chain = module.parametrizations[tensor_name]
        if not unsafe:
            value = getattr(module, tensor_name)
            _check_unchanged(value, parametrization(value))
        chain.append(parametrization)
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' parametrization does not have a parameter, a buffer, or a parametrized "
                         f"element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    chain = ParametrizationList([parametrization], original, unsafe=unsafe)
    (module._parameters if tensor_name in module._parameters else module._buffers).pop(tensor_name)
    if not is_parametrized(module):
        module.__class__ = _parametrized_class(module)
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = chain
    _add_property(module, tensor_name)
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo ``register_parametrization``: ``tensor_name`` becomes a plain parameter again holding the parametrized
    value (or ``original``, for ``leave_parametrized=False``)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if leave_parametrized:
        value = getattr(module, tensor_name)
        original = chain.originals()[0]
        new = Parameter(value.detach(), requires_grad=original.requires_grad)
    else:
        if not chain.is_tensor:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        new = chain.original
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    module.register_parameter(tensor_name, new)
    if not is_parametrized(module):
        del module._modules["parametrizations"]
        module.__class__ = type(module)._original_class
    return module
