"""PyTorch's package layout: every import path a PyTorch program uses reaches the same object in xtensor.

The walk reads the installed torch's own modules: for each file of ``torch.nn.modules`` (and the other packages
below), every name in its ``__all__`` that xtensor has at the top level must be reachable in xtensor's file of the
same name, as the same object. The names xtensor still lacks are listed on failure. The stand-ins (``nn.parallel``,
``onnx``, ``jit``, ``testing``) are checked against PyTorch's behaviour on one CPU process."""
import importlib
import warnings

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

NN_MODULE_FILES = ["module", "linear", "conv", "activation", "dropout", "sparse", "rnn", "transformer", "loss",
                   "batchnorm", "normalization", "pooling", "container", "flatten", "padding", "pixelshuffle",
                   "upsampling", "distance", "instancenorm", "fold", "channelshuffle"]
# (torch's file, xtensor's file, the xtensor namespace whose objects the file must hold)
LAYOUT = ([(f"torch.nn.modules.{f}", f"xtensor.nn.modules.{f}", "xtensor.nn") for f in NN_MODULE_FILES] + [
    ("torch.nn.utils.clip_grad", "xtensor.nn.utils.clip_grad", "xtensor.nn.utils"),
    ("torch.nn.utils.convert_parameters", "xtensor.nn.utils.convert_parameters", "xtensor.nn.utils"),
    ("torch.nn.utils.rnn", "xtensor.nn.utils.rnn", "xtensor.nn.utils.rnn"),
    ("torch.nn.parallel.data_parallel", "xtensor.nn.parallel.data_parallel", "xtensor.nn.parallel"),
    ("torch.nn.parallel.distributed", "xtensor.nn.parallel.distributed", "xtensor.nn.parallel"),
    ("torch.utils.data.dataset", "xtensor.utils.data.dataset", "xtensor.utils.data"),
    ("torch.utils.data.sampler", "xtensor.utils.data.sampler", "xtensor.utils.data"),
    ("torch.utils.data.dataloader", "xtensor.utils.data.dataloader", "xtensor.utils.data"),
    ("torch.utils.data.distributed", "xtensor.utils.data.distributed", "xtensor.utils.data"),
    ("torch.autograd.function", "xtensor.autograd.function", "xtensor.autograd"),
    ("torch.autograd.grad_mode", "xtensor.autograd.grad_mode", "xtensor.autograd"),
    ("torch.autograd.functional", "xtensor.autograd.functional", "xtensor.autograd.functional"),
    ("torch.nn.init", "xtensor.nn.init", "xtensor.nn.init"),
    ("torch.testing", "xtensor.testing", "xtensor.testing"),
    ("torch.onnx", "xtensor.onnx", "xtensor.onnx"),
    ("torch.jit", "xtensor.jit", "xtensor.jit"),
])


def _public_names(module):
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [n for n, v in vars(module).items() if not n.startswith("_") and getattr(v, "__module__", None) ==
            module.__name__]


@pytest.mark.parametrize("torch_name, xtensor_name, namespace", LAYOUT, ids=[row[0] for row in LAYOUT])
def test_each_name_of_torch_file_is_the_namespace_object(torch_name, xtensor_name, namespace):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = _public_names(importlib.import_module(torch_name))
    module, top = importlib.import_module(xtensor_name), importlib.import_module(namespace)
    wrong = [n for n in names if hasattr(top, n) and getattr(module, n, None) is not getattr(top, n)]
    missing = [n for n in names if not hasattr(top, n)]
    assert not wrong, f"{xtensor_name} lacks or differs on {wrong}; names still missing in xtensor: {missing}"


def test_every_nn_module_file_of_torch_holds_at_least_one_xtensor_class():
    empty = [f for f in NN_MODULE_FILES if not importlib.import_module(f"xtensor.nn.modules.{f}").__all__]
    assert not empty


def test_nn_functional_is_one_namespace_of_all_its_chapters():
    names = xt.nn.functional.__all__
    assert len(names) == len(set(names)) and all(callable(getattr(xt.nn.functional, n)) for n in names)
    assert xt.nn.functional.cross_entropy is importlib.import_module("xtensor.nn.functional._loss").cross_entropy


def test_parameter_wraps_an_empty_tensor_made_with_size_keyword(backend):
    weight = xt.nn.Parameter(xt.empty(size=(2, 3)))
    assert isinstance(weight, xt.nn.Parameter) and weight.requires_grad and tuple(weight.shape) == (2, 3)


# ------------------------------------------------------------------ nn.parallel on one process
@pytest.mark.parametrize("wrapper", ["DataParallel", "DistributedDataParallel"])
def test_parallel_wrapper_prefixes_state_dict_and_calls_the_module(backend, wrapper):
    torch.manual_seed(0)
    expected = getattr(torch.nn.parallel, wrapper)(torch.nn.Linear(3, 2)) if wrapper == "DataParallel" else None
    model = xt.nn.Linear(3, 2)
    wrapped = getattr(xt.nn.parallel, wrapper)(model)
    assert wrapped.module is model
    assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]
    if expected is not None:  # torch's DDP needs a process group; its DataParallel runs here
        assert list(wrapped.state_dict()) == list(expected.state_dict()) and wrapped.device_ids == expected.device_ids
    x = xt.randn(4, 3)
    np.testing.assert_array_equal(wrapped(x).detach().numpy(), model(x).detach().numpy())


def test_ddp_no_sync_turns_gradient_sync_off_for_its_block():
    ddp = xt.nn.parallel.DistributedDataParallel(xt.nn.Linear(2, 2))
    with ddp.no_sync():
        assert ddp.require_backward_grad_sync is False
    assert ddp.require_backward_grad_sync is True


# ------------------------------------------------------------------ onnx, jit
def test_onnx_export_refuses_naming_torch_export():
    with pytest.raises(NotImplementedError, match="torch.onnx.export"):
        xt.onnx.export(xt.nn.Linear(2, 2), (xt.randn(1, 2),), "model.onnx")
    assert xt.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False


def test_jit_script_and_trace_return_their_argument_warning_once(monkeypatch):
    monkeypatch.setattr(xt.jit, "_warned", set())
    model = xt.nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="no TorchScript"):
        assert xt.jit.script(model) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xt.jit.script(model) is model  # once per process
    with pytest.warns(UserWarning, match="trace"):
        assert xt.jit.trace(model, xt.randn(1, 2)) is model


def test_jit_decorators_are_identity_with_or_without_arguments():
    def f(x):
        return x + 1
    assert xt.jit.ignore(f) is f and xt.jit.unused(f) is f and xt.jit.export(f) is f
    assert xt.jit.ignore(drop=True)(f) is f
    assert xt.jit.is_scripting() is torch.jit.is_scripting() is False


# ------------------------------------------------------------------ testing.assert_close
def _message(assert_close, *args, **kwargs):
    with pytest.raises(Exception) as info:
        assert_close(*args, **kwargs)
    return info.type, str(info.value).replace("torch.", "xtensor.")


@pytest.mark.parametrize("actual, expected, kwargs", [
    ([1.0, 2.0, 3.0], [1.0, 2.1, 3.0], {}),
    ([1.0, 2.0], [1.0, 2.0 + 1e-5], {}),  # within float32's atol + rtol: passes in both
    ([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.5]], {}),
    ([1, 2], [1, 3], {}),
    ([True], [False], {}),
    ([float("nan")], [float("nan")], {}),
    ([float("nan")], [float("nan")], {"equal_nan": True}),
    ([1.0], [1.5], {"rtol": 0.0, "atol": 0.6}),
    ([1.0], [1.0], {"rtol": 0.0}),
    (1.0, 2.0, {}),
], ids=["close", "within", "2d", "int", "bool", "nan", "equal-nan", "given-tol", "one-tol", "0-d"])
def test_assert_close_passes_and_fails_as_torch(backend, actual, expected, kwargs):
    def run(lib):
        try:
            lib.testing.assert_close(lib.tensor(actual), lib.tensor(expected), **kwargs)
        except Exception as e:  # noqa: BLE001 -- the outcome itself is compared
            return type(e), str(e).replace("torch.", "xtensor.")
    assert run(xt) == run(torch)


def test_assert_close_checks_dtype_shape_and_container_items_as_torch():
    f32, f64 = dict(dtype=xt.float32), dict(dtype=xt.float64)
    assert _message(xt.testing.assert_close, xt.tensor([1.0], **f32), xt.tensor([1.0], **f64)) == \
        _message(torch.testing.assert_close, torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
    assert _message(xt.testing.assert_close, xt.ones(2), xt.ones(3)) == \
        _message(torch.testing.assert_close, torch.ones(2), torch.ones(3))
    assert _message(xt.testing.assert_close, {"a": [xt.ones(1)]}, {"a": [xt.zeros(1)]}) == \
        _message(torch.testing.assert_close, {"a": [torch.ones(1)]}, {"a": [torch.zeros(1)]})
    assert _message(xt.testing.assert_close, xt.ones(1), 1.0)[0] is TypeError
    assert _message(xt.testing.assert_close, xt.ones(1), xt.zeros(1), msg="custom") == (AssertionError, "custom")


# ------------------------------------------------------------------ what xtensor lacks: one clear error at the line
def _alias_spec(name):
    """What ``import <name>`` meets under ``install_as_torch()``: the finder's answer (asked directly, since this
    process has PyTorch itself imported)."""
    from xtensor._torch_alias import _TorchFinder
    return _TorchFinder().find_spec(name)


@pytest.mark.parametrize("name", ["torch.fx", "torch.export", "torch.package", "torch.masked", "torch.nested",
                                  "torch.ao", "torch.library", "torch.signal", "torch.autograd.forward_ad",
                                  "torch.utils.data.datapipes", "torch.distributed.rpc"])
def test_a_torch_module_xtensor_lacks_is_one_import_error_naming_it(name):
    with pytest.raises(ModuleNotFoundError, match=f"No module named '{name}'.*xtensor.*PyTorch") as info:
        _alias_spec(name)
    assert info.value.name == name


@pytest.mark.parametrize("namespace, name", [("xtensor", "view_as_real"), ("xtensor", "Storage"),
                                             ("xtensor", "channels_last"), ("xtensor.nn", "AdaptiveLogSoftmaxWithLoss"),
                                             ("xtensor.nn", "LazyLinear"), ("xtensor.Tensor", "pin_memory"),
                                             ("xtensor.linalg", "ldl_factor"), ("xtensor.distributed.nn", "RemoteModule")])
def test_a_torch_attribute_xtensor_lacks_is_an_attribute_error_naming_it(namespace, name):
    """``torch.X`` is ``xtensor.X`` under install_as_torch(): Python's own AttributeError names X."""
    owner = xt.Tensor if namespace == "xtensor.Tensor" else importlib.import_module(namespace)
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(owner, name)


@pytest.mark.parametrize("path, attribute, expected", [
    ("torch.profiler", "profile", "xtensor.profiler.profile"),
    ("torch.autograd.profiler", "record_function", "xtensor.profiler.record_function"),
    ("torch.hub", "load_state_dict_from_url", "xtensor.hub.load_state_dict_from_url"),
    ("torch.utils.model_zoo", "load_url", "xtensor.hub.load_state_dict_from_url"),
    ("torch.utils.tensorboard", "SummaryWriter", "xtensor.utils.tensorboard.SummaryWriter"),
    ("torch.distributed.nn", "all_gather", "xtensor.distributed.nn.functional.all_gather"),
    ("torch.distributed", "ReduceOp", "xtensor.distributed.distributed_c10d.ReduceOp"),
    ("torch.optim", "Adafactor", "xtensor.optim.adafactor.Adafactor"),
    ("torch.optim", "Muon", "xtensor.optim.muon.Muon"),
    ("torch.nn.utils.parametrizations", "orthogonal", "xtensor.nn.utils.parametrizations.orthogonal"),
    ("torch.nn", "DataParallel", "xtensor.nn.parallel.DataParallel"),
    ("torch.nn", "SyncBatchNorm", "xtensor.nn.modules.batchnorm.SyncBatchNorm"),
])
def test_the_torch_paths_of_issue_20s_leftovers_reach_xtensor(path, attribute, expected):
    module_name, _, name = expected.rpartition(".")
    spec = _alias_spec(path)
    assert getattr(spec.loader.target, attribute) is getattr(importlib.import_module(module_name), name)


@pytest.mark.parametrize("flags", [dict(enable_flash=False, enable_mem_efficient=False),
                                   dict(enable_flash=False, enable_math=False)])
def test_deprecated_sdp_kernel_switches_the_kernels_as_pytorch(flags):
    """PyTorch on CPU has MATH and FLASH_ATTENTION: with either left on attention runs, with neither it raises."""
    def run(lib):
        q = lib.ones(1, 1, 2, 4)
        with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
            with lib.backends.cuda.sdp_kernel(**flags):
                inside = [lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.math_sdp_enabled()]
                try:
                    lib.nn.functional.scaled_dot_product_attention(q, q, q)
                    outcome = "ran"
                except RuntimeError:
                    outcome = "RuntimeError"
        return inside, outcome, lib.backends.cuda.flash_sdp_enabled()
    assert run(xt) == run(torch)
