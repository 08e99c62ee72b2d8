"""Observations of xtensor on 8 simulated jax CPU devices, printed as JSON.

jax fixes its device count when it starts, and the pytest process has started it with one device, so
``tests/test_devices.py`` runs this file in a subprocess with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` and asserts on what it prints.
"""
import json
import sys

import jax
import numpy as np

import xtensor as t


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is observed
        return [type(e).__name__, str(e)]
    return None


def _jax_device_ids(x):
    return sorted(d.id for d in x._value.devices())


def observe():
    seen = {}
    with t.use_backend("jax"):
        seen["devices"] = [str(d) for d in t.array_api.__array_namespace_info__().devices()]
        seen["cuda"] = [t.cuda.is_available(), t.cuda.device_count()]

        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.to("cpu:3")
        seen["moved"] = [str(y.device), _jax_device_ids(y), y.tolist(), str(x.device), _jax_device_ids(x)]
        seen["moved_by_device_object"] = str(x.to(t.device("cpu", 6)).device)
        seen["same_device_is_self"] = y.to("cpu:3") is y
        z = y * 2 + 1
        seen["op_stays"] = [str(z.device), _jax_device_ids(z)]
        z.sum().backward()
        seen["grad_back"] = [x.grad.tolist(), str(x.grad.device)]
        seen["cpu_back"] = [str(y.cpu().device), _jax_device_ids(y.cpu()), y.cpu().tolist()]

        seen["factories"] = [str(f.device) for f in (
            t.zeros(2, device="cpu:5"), t.ones(2, 2, device=t.device("cpu:5")), t.arange(3, device="cpu:5"),
            t.randn(2, device="cpu:5"), t.full((2,), 7.0, device="cpu:5"), t.eye(2, device="cpu:5"),
            t.tensor([1, 2], device="cpu:5"), t.array_api.asarray([1.0], device=t.device("cpu", 5)))]

        a, b = t.ones(2, device="cpu:1"), t.ones(2, device="cpu:2")
        seen["two_devices_add"] = _error(lambda: a + b)
        seen["two_devices_matmul"] = _error(lambda: t.ones(2, 2, device="cpu:1") @ t.ones(2, 2, device="cpu:2"))
        seen["unplaced_follows"] = str((t.ones(2) + a).device)
        seen["out_of_range"] = _error(lambda: t.ones(2, device="cpu:8"))
        seen["to_device_of_array_api"] = str(t.ones(2).to_device(t.device("cpu", 4)).device)

        @jax.jit
        def scaled(v):
            return v * 3

        seen["jit_keeps_device"] = [str(scaled(y).device), scaled(y).tolist()]
        seen["numpy_values"] = np.allclose(np.asarray(y.detach().to("cpu:7")), [1.0, 2.0, 3.0])
    return seen


if __name__ == "__main__":
    json.dump(observe(), sys.stdout)
