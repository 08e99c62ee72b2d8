"""The setup lines every PyTorch script runs (issue 20 item 2) — ``torch.backends.*`` flags, ``torch.cuda.*``,
``torch.accelerator``, ``torch.mps``, ``torch.amp`` autocast and GradScaler, matmul precision, threads,
``torch.compiler`` — each compared with PyTorch 2.13's CPU build, which answers as PyTorch on a machine
without a GPU; xtensor on numpy, jax on a CPU and array_api_strict is such a machine.
"""
import warnings

import numpy as np
import pytest

import xtensor

torch = pytest.importorskip("torch")



def _machine_has_cuda():
    """Whether jax (a backend these tests run) or PyTorch (their oracle) sees a GPU: the default numpy backend never
    does, so asking it alone ran these tests on GPU machines, where both answer otherwise."""
    try:
        with xtensor.use_backend("jax"):
            if xtensor.cuda.is_available():
                return True
    except ImportError:
        pass
    return torch.cuda.is_available()


no_gpu = pytest.mark.skipif(_machine_has_cuda(), reason="answers of a machine without CUDA")


def _outcome(call):
    """What a call does: ("returns", value) or ("raises", exception type, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("returns", call())
    except Exception as e:  # noqa: BLE001  (the outcome is what is compared)
        return ("raises", type(e), str(e))


# ------------------------------------------------------------------ torch.cuda without CUDA
_CUDA_CALLS = [
    ("is_available", ()), ("device_count", ()), ("manual_seed", (1,)), ("manual_seed_all", (1,)), ("seed", ()),
    ("seed_all", ()), ("initial_seed", ()), ("synchronize", ()), ("empty_cache", ()), ("is_bf16_supported", ()),
    ("is_tf32_supported", ()), ("get_device_name", ()), ("get_device_capability", ()),
    ("get_device_properties", ()), ("current_device", ()), ("memory_allocated", ()),
    ("max_memory_allocated", ()), ("memory_reserved", ()), ("max_memory_reserved", ()), ("memory_stats", ()),
    ("is_initialized", ()), ("init", ()), ("get_rng_state", ()), ("get_rng_state_all", ()),
    ("set_rng_state_all", ([],)), ("ipc_collect", ()), ("mem_get_info", ()), ("get_arch_list", ()),
]


@no_gpu
@pytest.mark.parametrize("name, args", _CUDA_CALLS, ids=[name for name, _ in _CUDA_CALLS])
def test_cuda_function_answers_as_a_cpu_only_torch(backend, name, args):
    expected = _outcome(lambda: getattr(torch.cuda, name)(*args))
    got = _outcome(lambda: getattr(xtensor.cuda, name)(*args))
    assert got == expected


@no_gpu
@pytest.mark.parametrize("name", ["set_device", "reset_peak_memory_stats"])
def test_cuda_function_needing_a_device_raises_torchs_no_cuda_error(backend, name):
    # PyTorch's CPU build fails here too, with an AttributeError from inside torch._C; xtensor names the reason
    assert _outcome(lambda: getattr(torch.cuda, name)(0))[0] == "raises"
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        getattr(xtensor.cuda, name)(0)


@pytest.mark.skipif(not xtensor.cuda.is_available(), reason="needs jax with a GPU")
def test_cuda_reports_jax_gpus():
    import jax
    gpus = jax.devices("gpu")
    assert xtensor.cuda.device_count() == len(gpus)
    assert xtensor.cuda.get_device_name(0) == gpus[0].device_kind
    assert xtensor.cuda.current_device() == 0
    x = xtensor.ones(1024, 1024, device="cuda")
    xtensor.cuda.synchronize()
    assert xtensor.cuda.memory_allocated() >= x.nbytes
    assert xtensor.cuda.max_memory_allocated() >= xtensor.cuda.memory_allocated()
    assert xtensor.backends.cuda.is_built() and xtensor.backends.cudnn.is_available()
    assert xtensor.accelerator.current_accelerator() == xtensor.device("cuda")


# ------------------------------------------------------------------ torch.backends
_DEFAULT_FLAGS = [("cudnn", "enabled"), ("cudnn", "benchmark"), ("cudnn", "deterministic"), ("cudnn", "allow_tf32"),
                  ("cudnn", "benchmark_limit"), ("cudnn", "fp32_precision"), ("mkldnn", "enabled"),
                  ("mkldnn", "deterministic"), ("opt_einsum", "enabled"), ("opt_einsum", "strategy")]


@no_gpu
@pytest.mark.parametrize("module, flag", _DEFAULT_FLAGS, ids=[f"{m}.{f}" for m, f in _DEFAULT_FLAGS])
def test_backend_flag_defaults_are_torchs(module, flag):
    assert getattr(getattr(xtensor.backends, module), flag) == getattr(getattr(torch.backends, module), flag)


_MATMUL_FLAGS = ["allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction",
                 "allow_fp16_accumulation"]


@pytest.mark.parametrize("flag", _MATMUL_FLAGS)
def test_cuda_matmul_flag_defaults_are_torchs(flag):
    assert getattr(xtensor.backends.cuda.matmul, flag) == getattr(torch.backends.cuda.matmul, flag)


@pytest.mark.parametrize("module, flag", [("cudnn", "benchmark"), ("cudnn", "deterministic"),
                                          ("cudnn", "allow_tf32"), ("mkldnn", "enabled")])
def test_backend_flag_reads_back_what_a_script_sets(module, flag):
    namespace = getattr(xtensor.backends, module)
    before = getattr(namespace, flag)
    try:
        setattr(namespace, flag, not before)
        assert getattr(namespace, flag) is (not before)
    finally:
        setattr(namespace, flag, before)


def test_cudnn_flags_block_sets_then_restores():
    with xtensor.backends.cudnn.flags(enabled=False, deterministic=True):
        assert not xtensor.backends.cudnn.enabled and xtensor.backends.cudnn.deterministic
    assert xtensor.backends.cudnn.enabled and not xtensor.backends.cudnn.deterministic


# PyTorch 2.13's answers (get_float32_matmul_precision(), matmul.allow_tf32) after one setting made in a fresh
# process (a process mixing both spellings refuses to report a precision at all)
_PRECISION_SETTINGS = [("allow_tf32", True, ("high", True)), ("allow_tf32", False, ("highest", False)),
                       ("precision", "medium", ("medium", True)), ("precision", "high", ("high", True)),
                       ("precision", "highest", ("highest", False))]


@pytest.mark.parametrize("kind, value, expected", _PRECISION_SETTINGS)
def test_allow_tf32_and_matmul_precision_move_together_as_torchs(kind, value, expected):
    try:
        if kind == "allow_tf32":
            xtensor.backends.cuda.matmul.allow_tf32 = value
        else:
            xtensor.set_float32_matmul_precision(value)
        assert (xtensor.get_float32_matmul_precision(), xtensor.backends.cuda.matmul.allow_tf32) == expected
    finally:
        xtensor.set_float32_matmul_precision("highest")


def test_jax_products_follow_the_float32_matmul_precision():
    """XLA's default float32 product on a GPU is TF32 (~3e-4 off on an H100, where PyTorch's is ~1e-6): the jax
    backend computes at PyTorch's precision, "highest" unless set otherwise."""
    jax = pytest.importorskip("jax")
    with xtensor.use_backend("jax"):
        xtensor.ones(2) @ xtensor.ones(2)
    assert jax.config.jax_default_matmul_precision == "float32"
    try:
        xtensor.set_float32_matmul_precision("high")
        assert jax.config.jax_default_matmul_precision == "tensorfloat32"
    finally:
        xtensor.set_float32_matmul_precision("highest")
    assert jax.config.jax_default_matmul_precision == "float32"


def test_unknown_matmul_precision_warns_and_changes_nothing():
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        xtensor.set_float32_matmul_precision("bad")
    assert xtensor.get_float32_matmul_precision() == "highest"


@pytest.mark.parametrize("action", ["get", "set"])
def test_unknown_cuda_matmul_attribute_is_an_attribute_error_as_torchs(action):
    for lib in (torch, xtensor):
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            if action == "get":
                lib.backends.cuda.matmul.foo
            else:
                lib.backends.cuda.matmul.foo = 1


@pytest.mark.parametrize("strategy", ["greedy", "bad"])
def test_opt_einsum_strategy_is_checked_as_torchs(strategy):
    outcomes = []
    for lib in (torch, xtensor):
        outcomes.append(_outcome(lambda: setattr(lib.backends.opt_einsum, "strategy", strategy)))
        outcomes[-1] += (lib.backends.opt_einsum.strategy,)
        lib.backends.opt_einsum.strategy = "auto"
    assert outcomes[0] == outcomes[1]


@no_gpu
@pytest.mark.parametrize("module", ["cuda", "cudnn", "mps"])
def test_backend_availability_is_torchs_on_a_machine_without_a_gpu(backend, module):
    namespace = getattr(xtensor.backends, module)
    reference = getattr(torch.backends, module)
    assert namespace.is_available() == reference.is_available() if module != "cuda" else \
        namespace.is_built() == reference.is_built()


def test_mkldnn_is_unavailable_as_xtensor_calls_no_onednn():
    assert xtensor.backends.mkldnn.is_available() is False


def test_cpu_capability_is_torchs():
    assert xtensor.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()


# ------------------------------------------------------------------ torch.accelerator, torch.mps, torch.cpu
_ACCELERATOR_CALLS = ["is_available", "current_accelerator", "device_count", "current_device_index", "synchronize",
                      "empty_cache", "memory_allocated", "max_memory_allocated", "reset_peak_memory_stats",
                      "memory_stats", "get_memory_info"]


@no_gpu
@pytest.mark.parametrize("name", _ACCELERATOR_CALLS)
def test_accelerator_answers_as_torch_without_one(backend, name):
    assert _outcome(getattr(xtensor.accelerator, name)) == _outcome(getattr(torch.accelerator, name))


_MPS_CALLS = [("is_available", ()), ("device_count", ()), ("manual_seed", (1,)), ("seed", ()), ("synchronize", ()),
              ("empty_cache", ()), ("current_allocated_memory", ()), ("driver_allocated_memory", ()),
              ("recommended_max_memory", ()), ("get_rng_state", ())]


@pytest.mark.parametrize("name, args", _MPS_CALLS, ids=[name for name, _ in _MPS_CALLS])
def test_mps_answers_as_torch_without_metal(name, args):
    assert _outcome(lambda: getattr(xtensor.mps, name)(*args)) == _outcome(lambda: getattr(torch.mps, name)(*args))


@pytest.mark.parametrize("name", ["is_available", "device_count", "current_device", "synchronize", "is_initialized"])
def test_cpu_namespace_answers_as_torchs(name):
    assert _outcome(getattr(xtensor.cpu, name)) == _outcome(getattr(torch.cpu, name))


# ------------------------------------------------------------------ autocast
_rng = np.random.default_rng(0)
_A = _rng.standard_normal((3, 4)).astype(np.float32)
_B = _rng.standard_normal((4, 3)).astype(np.float32)
_AUTOCAST_CALLS = [
    ("mm", lambda m, a, b: a @ b), ("matmul-batched", lambda m, a, b: m.matmul(a[None], b[None])),
    ("linear", lambda m, a, b: m.nn.functional.linear(a, b.T)), ("addmm", lambda m, a, b: m.addmm(a @ b, a, b)),
    ("einsum", lambda m, a, b: m.einsum("ij,jk->ik", a, b)), ("tensordot", lambda m, a, b: m.tensordot(a, b, 1)),
    ("conv2d", lambda m, a, b: m.nn.functional.conv2d(a.reshape(1, 1, 3, 4), b.reshape(1, 1, 2, 6)[..., :3])),
    ("mlp", lambda m, a, b: m.nn.functional.linear(m.nn.functional.linear(a, b.T, b[0]).relu(), b, b[:, 0])),
    ("dot-kept", lambda m, a, b: m.dot(a[0], b[:, 0])), ("outer-kept", lambda m, a, b: m.outer(a[0], b[0])),
    ("add-kept", lambda m, a, b: a + 1), ("exp-kept", lambda m, a, b: a.exp()),
    ("float64-kept", lambda m, a, b: a.double() @ b.double()),
    ("prod-float32", lambda m, a, b: (a @ b).prod()), ("trace-float32", lambda m, a, b: m.trace(a @ b)),
    ("nll_loss-float32", lambda m, a, b: m.nn.functional.nll_loss((a @ b).log_softmax(1), m.tensor([0, 1, 2], device=a.device))),
]


@pytest.mark.parametrize("name, call", _AUTOCAST_CALLS, ids=[name for name, _ in _AUTOCAST_CALLS])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cpu_autocast_casts_the_ops_torch_casts(backend, name, call, dtype):
    results = []
    for lib in (torch, xtensor):
        # on the CPU device: jax's default device is a GPU where there is one, and CPU autocast leaves those alone
        a, b = lib.tensor(_A, requires_grad=True, device="cpu"), lib.tensor(_B, device="cpu")
        with lib.autocast("cpu", dtype=getattr(lib, dtype)):
            out = call(lib, a, b)
        out.float().sum().backward()
        results.append((out, a.grad))
    (expected, expected_grad), (got, got_grad) = results
    if backend == "array_api_strict":  # it has neither float16 nor bfloat16: autocast leaves it alone
        assert got.dtype == xtensor.float64 if "float64" in name else got.dtype == xtensor.float32
        return
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got_grad.dtype == xtensor.float32
    tolerance = dict(rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(got.float().detach().numpy(), expected.float().detach().numpy(), **tolerance)
    np.testing.assert_allclose(got_grad.numpy(), expected_grad.numpy(), **tolerance)


def test_autocast_cast_is_a_tocopy_node_as_torchs():
    a = xtensor.ones(2, 2, requires_grad=True)
    with xtensor.autocast("cpu"):
        out = a @ a
    assert [type(node).__name__ for node, _ in out.grad_fn.next_functions] == ["ToCopyBackward0"] * 2


def test_autocast_state_as_torch_reports_it():
    for lib in (torch, xtensor):
        assert (lib.is_autocast_enabled("cpu"), str(lib.get_autocast_dtype("cpu")).split(".")[-1],
                str(lib.get_autocast_dtype("cuda")).split(".")[-1]) == (False, "bfloat16", "float16")
        with lib.autocast("cpu"):
            assert lib.is_autocast_enabled("cpu")
            with lib.autocast("cpu", enabled=False):
                assert not lib.is_autocast_enabled("cpu")
                assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32
            assert lib.is_autocast_enabled("cpu")
        assert not lib.is_autocast_enabled("cpu")


def test_autocast_decorates_a_function():
    @xtensor.autocast("cpu")
    def product(a):
        return a @ a
    assert product(xtensor.ones(2, 2)).dtype == xtensor.bfloat16
    assert not xtensor.is_autocast_enabled("cpu")


@no_gpu
@pytest.mark.parametrize("make", [lambda m: m.autocast("cuda"), lambda m: m.amp.autocast("cuda"),
                                  lambda m: m.cuda.amp.autocast(), lambda m: m.autocast("cpu", dtype=m.float64)],
                         ids=["autocast-cuda", "amp-autocast-cuda", "cuda-amp-autocast", "cpu-float64"])
def test_autocast_that_cannot_apply_warns_and_stays_off_as_torchs(make):
    messages = []
    for lib in (torch, xtensor):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with make(lib):
                assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32
        messages.append(sorted(str(w.message) for w in caught))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("device_type", ["xyz", 42])
def test_autocast_refuses_unknown_device_types_as_torch(device_type):
    expected, got = (_outcome(lambda: lib.autocast(device_type)) for lib in (torch, xtensor))
    assert got[:2] == expected[:2]


# ------------------------------------------------------------------ GradScaler
def _train(lib, scaler, grads_to_poison=(), steps=5):
    """A few SGD steps under ``scaler``; at the steps in ``grads_to_poison`` a gradient becomes inf."""
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5]))
    optimizer = lib.optim.SGD([p], lr=0.1)
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = (p * p * lib.tensor([1.0, 2.0, 3.0])).sum()
        scaler.scale(loss).backward()
        if step in grads_to_poison:
            p.grad[0] = float("inf")
        scaler.step(optimizer)
        scaler.update()
        history.append((p.detach().numpy().copy(), scaler.get_scale(), scaler.state_dict()))
    return history


def _state(history):
    return [(params.tolist(), scale, {k: int(v) if k == "_growth_tracker" else v for k, v in state.items()})
            for params, scale, state in history]


@pytest.mark.parametrize("poisoned", [(), (1, 2)], ids=["clean", "inf-steps"])
def test_enabled_grad_scaler_steps_skips_and_rescales_as_torchs(backend, poisoned):
    histories = [_state(_train(lib, lib.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2), poisoned))
                 for lib in (torch, xtensor)]
    for (p_expected, *rest_expected), (p_got, *rest_got) in zip(*histories):
        np.testing.assert_allclose(p_got, p_expected, rtol=1e-6)
        assert rest_got == rest_expected


def test_disabled_grad_scaler_is_the_identity(backend):
    scaler = xtensor.amp.GradScaler("cpu", enabled=False)
    loss = xtensor.ones(())
    assert scaler.scale(loss) is loss
    for (p_got, *rest_got), (p_expected, *rest_expected) in zip(
            _state(_train(xtensor, scaler)), _state(_train(torch, torch.amp.GradScaler("cpu", enabled=False)))):
        np.testing.assert_allclose(p_got, p_expected, rtol=1e-6)
        assert rest_got == rest_expected
    assert (scaler.state_dict(), scaler.get_scale(), scaler.is_enabled()) == ({}, 1.0, False)


@no_gpu
def test_cuda_grad_scaler_without_cuda_warns_and_disables_as_torchs():
    for lib in (torch, xtensor):
        with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
            assert not lib.cuda.amp.GradScaler().is_enabled()


@pytest.mark.parametrize("misuse", ["unscale-twice", "step-twice", "load-empty", "closure"])
def test_grad_scaler_misuse_raises_torchs_error(misuse):
    outcomes = []
    for lib in (torch, xtensor):
        p = lib.nn.Parameter(lib.ones(2))
        optimizer = lib.optim.SGD([p], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(p.sum()).backward()

        def misuse_it():
            if misuse == "unscale-twice":
                scaler.unscale_(optimizer)
                scaler.unscale_(optimizer)
            elif misuse == "step-twice":
                scaler.step(optimizer)
                scaler.step(optimizer)
            elif misuse == "load-empty":
                scaler.load_state_dict({})
            else:
                scaler.step(optimizer, closure=lambda: None)
        outcomes.append(_outcome(misuse_it))
    assert outcomes[0] == outcomes[1]


def test_grad_scaler_state_round_trips_as_torchs():
    source = _train(xtensor, xtensor.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2), steps=3)[-1][2]
    scaler = xtensor.amp.GradScaler("cpu")
    scaler.load_state_dict(source)
    assert scaler.state_dict() == source


# ------------------------------------------------------------------ threads, determinism, compiler
def test_num_threads_read_back_what_is_set():
    before = xtensor.get_num_threads()
    try:
        xtensor.set_num_threads(1)
        assert xtensor.get_num_threads() == 1
    finally:
        xtensor.set_num_threads(before)
    assert xtensor.get_num_threads() == before


@pytest.mark.parametrize("name", ["set_num_threads", "set_num_interop_threads"])
@pytest.mark.parametrize("value", [0, "a"])
def test_thread_counts_are_checked_as_torchs(name, value):
    expected, got = (_outcome(lambda: getattr(lib, name)(value)) for lib in (torch, xtensor))
    assert got[:2] == expected[:2]


def test_deterministic_algorithms_setting_reads_back_as_torchs():
    for lib in (torch, xtensor):
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert (lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled(),
                lib.get_deterministic_debug_mode()) == (True, True, 1)
        lib.use_deterministic_algorithms(False)


def test_compiler_switches_answer_as_torchs_outside_compilation():
    for name in ("is_compiling", "is_dynamo_compiling", "is_exporting"):
        assert getattr(xtensor.compiler, name)() is getattr(torch.compiler, name)() is False
    assert xtensor.compiler.disable(len)("abc") == 3
    xtensor.compiler.reset()


def test_compiler_is_compiling_inside_a_jax_trace():
    jax = pytest.importorskip("jax")
    seen = []
    jax.jit(lambda x: seen.append(xtensor.compiler.is_compiling()) or x)(1.0)
    assert seen == [True]
