"""``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook`` against PyTorch: what the hooks see,
in which order, what their replacements change, and the errors."""
import warnings

import numpy as np
import pytest

import xtensor

torch = pytest.importorskip("torch")


def _seen(grads):
    return [None if g is None else np.asarray(g.detach().numpy()).round(5).tolist() for g in grads]


class _Scaled:
    """A module whose forward takes a tensor and a Python number and returns two tensors."""

    @staticmethod
    def build(lib):
        class Scaled(lib.nn.Module):
            def forward(self, x, scale):
                return x * scale, (x * x).sum(1)
        return Scaled()


def _model(lib):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)))
        model[0].bias.fill_(0.1)
        model[2].weight.copy_(lib.tensor(np.linspace(0.5, -0.5, 8, dtype=np.float32).reshape(2, 4)))
        model[2].bias.fill_(0.0)
    return model


def _nested_run(lib):
    log, model = [], _model(lib)
    model[0].register_full_backward_hook(lambda m, gi, go: log.append(("first", _seen(gi), _seen(go))))
    model[2].register_full_backward_pre_hook(lambda m, go: log.append(("pre last", _seen(go))))
    model[2].register_full_backward_hook(lambda m, gi, go: log.append(("last", _seen(gi), _seen(go))))
    model.register_full_backward_hook(lambda m, gi, go: log.append(("whole", _seen(gi), _seen(go))))
    x = lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 5, requires_grad=True)
    (model(x) ** 2).sum().backward()
    return log, _seen([x.grad])


def test_hooks_see_the_gradients_of_each_module_in_backward_order(backend):
    assert _nested_run(xtensor) == _nested_run(torch)


def _replacing_run(lib):
    model = _model(lib)
    model[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    model[0].register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,))
    x = lib.tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    model(x).sum().backward()
    return _seen([x.grad, model[0].weight.grad, model[2].weight.grad])


def test_returned_gradients_replace_what_flows_on(backend):
    assert _replacing_run(xtensor) == _replacing_run(torch)


def _packed_run(lib):
    log, module = [], _Scaled.build(lib)
    module.register_full_backward_pre_hook(lambda m, go: log.append(("pre", _seen(go))))
    module.register_full_backward_hook(lambda m, gi, go: log.append(("post", _seen(gi), _seen(go))))
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    scaled, _ = module(x, 0.5)
    scaled.sum().backward()
    return log, _seen([x.grad])


def test_non_tensor_arguments_and_unused_outputs_are_packed_in_place(backend):
    assert _packed_run(xtensor) == _packed_run(torch)


def _frozen_input_run(lib):
    log, model = [], _model(lib)
    model[0].register_full_backward_hook(lambda m, gi, go: log.append((_seen(gi), _seen(go))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model(lib.ones(1, 3)).sum().backward()
    return log, [str(w.message).split(".")[0] for w in caught]


def test_a_module_whose_inputs_need_no_gradient_fires_with_none_and_warns(backend):
    assert _frozen_input_run(xtensor) == _frozen_input_run(torch)


@pytest.mark.parametrize("lib", [xtensor, torch], ids=["xtensor", "torch"])
def test_a_frozen_input_hook_returning_gradients_is_refused(lib):
    model = _model(lib)
    model[0].register_full_backward_hook(lambda m, gi, go: (lib.ones(1, 3),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="no input requires gradient should always return None"):
            model(lib.ones(1, 3)).sum().backward()


@pytest.mark.parametrize("lib", [xtensor, torch], ids=["xtensor", "torch"])
@pytest.mark.parametrize("kind", ["hook", "pre_hook"])
def test_a_hook_returning_the_wrong_number_of_gradients_is_refused(lib, kind):
    model = _model(lib)
    if kind == "hook":
        model[0].register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        message = "Backward hook returned an invalid number of grad_input, got 2, but expected 1"
    else:
        model[0].register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
        message = "Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"
    with pytest.raises(RuntimeError, match=message):
        model(lib.ones(1, 3, requires_grad=True)).sum().backward()


def test_a_removed_hook_no_longer_runs():
    calls, model = [], _model(xtensor)
    handle = model.register_full_backward_hook(lambda m, gi, go: calls.append(1))
    model(xtensor.ones(1, 3, requires_grad=True)).sum().backward()
    handle.remove()
    model(xtensor.ones(1, 3, requires_grad=True)).sum().backward()
    assert calls == [1]


def test_output_node_is_named_as_pytorchs():
    model = _model(xtensor)
    model.register_full_backward_hook(lambda m, gi, go: None)
    assert model(xtensor.ones(1, 3, requires_grad=True)).grad_fn.name() == "BackwardHookFunctionBackward"
