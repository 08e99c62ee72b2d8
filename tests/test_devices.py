"""Devices map to jax's: data moves between them, ops stay on one, two devices in one op is PyTorch's error.

jax reads its device count at start-up, so the 8-device observations come from ``multidevice_probe.py``
run once in a subprocess with 8 simulated CPU devices (this machine has no GPU: ``cuda`` maps to jax's
GPUs the same way, through ``adapters/jax.py``).
"""
import json
import os
import subprocess
import sys

import pytest

from xla_flags import with_devices

pytest.importorskip("jax")

import xtensor as t  # noqa: E402

HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def seen():
    env = with_devices(8)
    done = subprocess.run([sys.executable, os.path.join(HERE, "multidevice_probe.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_jax_cpu_devices_are_listed_as_cpu_and_cpu_k(seen):
    assert seen["devices"] == ["cpu"] + [f"cpu:{k}" for k in range(1, 8)]
    assert seen["cuda"] == [False, 0]


def test_to_moves_the_data_to_the_named_jax_device(seen):
    device, jax_ids, values, source_device, source_ids = seen["moved"]
    assert (device, jax_ids, values) == ("cpu:3", [3], [1.0, 2.0, 3.0])
    assert (source_device, source_ids) == ("cpu", [0])
    assert seen["moved_by_device_object"] == "cpu:6"
    assert seen["to_device_of_array_api"] == "cpu:4"


def test_to_the_device_a_tensor_is_on_returns_the_tensor(seen):
    assert seen["same_device_is_self"] is True


def test_results_stay_on_their_inputs_device_eagerly_and_under_jit(seen):
    assert seen["op_stays"] == ["cpu:3", [3]]
    assert seen["jit_keeps_device"] == ["cpu:3", [3.0, 6.0, 9.0]]


def test_gradient_of_a_move_returns_to_the_source_device(seen):
    assert seen["grad_back"] == [[2.0, 2.0, 2.0], "cpu"]


def test_cpu_brings_a_tensor_back_to_the_first_device(seen):
    assert seen["cpu_back"] == ["cpu", [0], [1.0, 2.0, 3.0]]


def test_factories_place_their_result_on_the_device_asked_for(seen):
    assert seen["factories"] == ["cpu:5"] * 8


def test_two_placed_devices_in_one_op_raise_torchs_error(seen):
    message = "Expected all tensors to be on the same device, but found at least two devices, cpu:1 and cpu:2!"
    assert seen["two_devices_add"] == ["RuntimeError", message]
    assert seen["two_devices_matmul"] == ["RuntimeError", message]


def test_a_tensor_made_without_a_device_follows_the_other_operand(seen):
    assert seen["unplaced_follows"] == "cpu:1"


def test_a_device_index_jax_lacks_is_an_error_naming_the_devices(seen):
    kind, message = seen["out_of_range"]
    assert kind == "RuntimeError" and "no device cpu:8" in message and "cpu:7" in message


def test_cpu_index_means_the_one_cpu_on_host_backends(backend):
    if backend == "jax":
        pytest.skip("jax numbers its CPU devices (the subprocess tests above)")
    torch = pytest.importorskip("torch")
    x = t.ones(2)
    assert x.to("cpu:1") is x and torch.ones(2).to("cpu:1").device.type == "cpu"
    assert str(t.zeros(2, device="cpu:1").device) == str(torch.zeros(2, device="cpu:1").device)


def test_placing_on_jaxs_only_device_compiles_no_second_program_per_kernel():
    """A tensor made with ``device=`` where jax has one device of that kind is the same argument to every cached
    program as one made without: committing it made each kernel it met compile twice (jax keys its programs on
    committed placement), as ``torch.arange(n, device=x.device)`` in a model's forward did to every op after it."""
    import jax.monitoring

    compiles = []

    def listen(name, secs, **kwargs):
        if name.endswith("jaxpr_to_mlir_module_duration"):  # each program made (cached on disk or not)
            compiles.append(name)
    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        with t.use_backend("jax"):
            t.arange(5.0, device="cpu") * t.ones(5)  # compiles what it needs
            before = len(compiles)
            t.arange(5.0) * t.ones(5)
            t.ones(5, device="cpu") * t.arange(5.0, device=t.ones(5).device)
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert len(compiles) == before


def test_a_default_device_set_after_first_use_makes_placing_commit_again():
    """``jax_default_device`` set by a script at any time is read again: with it set, a placed array is committed
    (jax's own rule for a configured default), though the adapter had already placed arrays without it."""
    import jax

    with t.use_backend("jax"):
        assert not t.ones(2, device="cpu")._value.committed
        jax.config.update("jax_default_device", jax.devices("cpu")[0])
        try:
            assert t.ones(2, device="cpu")._value.committed
        finally:
            jax.config.update("jax_default_device", None)
