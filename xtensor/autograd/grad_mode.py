"""Thread-local grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each works as a context manager and as a decorator, with or without parentheses, as in PyTorch.
"""
import functools
import inspect

from .._modes import grad_state as state

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


def is_grad_enabled():
    return state.enabled


class _GradModeContext:
    """Base of the grad-mode switches: enter sets ``state.enabled``, exit restores it."""

    enabled = True

    def __new__(cls, *args, **kwargs):
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]) and not kwargs:
            return cls()(args[0])  # used as a bare decorator: @no_grad
        return super().__new__(cls)

    def __enter__(self):
        self._previous = state.enabled
        state.enabled = self.enabled

    def __exit__(self, *exc):
        state.enabled = self._previous
        return False

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator(*args, **kwargs):
                """The mode holds while the generator runs, not while its caller does (as PyTorch's)."""
                gen = fn(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as e:
                            with self.clone():
                                response = gen.throw(e)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return generator

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    enabled = False


class enable_grad(_GradModeContext):
    enabled = True


class inference_mode(_GradModeContext):
    """``no_grad`` whose results are marked as inference tensors (``is_inference()``): they can never join a
    graph later. ``inference_mode(False)`` turns grad mode on and inference mode off, as in PyTorch."""

    def __init__(self, mode=True):
        self.enabled = not mode

    def __enter__(self):
        self._previous = state.enabled, state.inference
        state.enabled, state.inference = self.enabled, not self.enabled

    def __exit__(self, *exc):
        state.enabled, state.inference = self._previous
        return False

    def clone(self):
        return type(self)(not self.enabled)


class set_grad_enabled(_GradModeContext):
    """Sets grad mode at once (as a function call) and restores it when used as a context manager."""

    def __init__(self, mode):
        self._previous = state.enabled
        self.enabled = bool(mode)
        state.enabled = self.enabled

    def __enter__(self):
        pass

    def clone(self):
        return type(self)(self.enabled)

    def __call__(self, fn):
        state.enabled = self._previous  # as a decorator it applies only inside fn
        return super().__call__(fn)

    def __repr__(self):
        return f"xtensor.autograd.grad_mode.set_grad_enabled(mode={self.enabled})"  # as PyTorch 2.13 prints it


def is_inference_mode_enabled():
    return state.inference
