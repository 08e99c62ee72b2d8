"""xtensor.save/load in PyTorch's file format: files move both ways with real torch (2.13) files, on every
backend; malicious, corrupted and foreign files are refused with a clear error; a failed save keeps the old file."""
import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64",
          "complex128", "uint16", "uint32", "uint64"]


def _values(dtype):
    return (np.arange(6).reshape(2, 3) % 2 == 0) if dtype == "bool" else (np.arange(6).reshape(2, 3) * 3 + 1)


TENSORS, PARAMETERS = (xt.Tensor, torch.Tensor), (xt.nn.Parameter, torch.nn.Parameter)
SPECIAL = (type(xt.float32), xt.Size, xt.device, torch.dtype, torch.Size, torch.device)


def _same(a, b):
    """Two loaded objects (each from xtensor or torch) hold the same tensors (values, dtypes, shapes,
    requires_grad, parameter or not) in the same containers."""
    if isinstance(b, TENSORS):
        assert isinstance(a, TENSORS) and str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert list(a.shape) == list(b.shape) and a.requires_grad == b.requires_grad
        assert isinstance(a, PARAMETERS) == isinstance(b, PARAMETERS)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(b, SPECIAL):
        assert str(a).replace("xtensor", "torch") == str(b).replace("xtensor", "torch")
    elif isinstance(b, dict):
        assert type(a) is type(b) and list(a) == list(b)
        for key in b:
            _same(a[key], b[key])
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b and type(a) is type(b)


def _example(lib, dtypes=DTYPES):
    """The same checkpoint-like object built with either library."""
    linear = lib.nn.Linear(3, 2)
    with lib.no_grad():
        linear.weight.copy_(lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
        linear.bias.fill_(0.125)
    return {
        "model": linear.state_dict(),
        "parameter": linear.weight,
        "tensors": [lib.tensor(_values(d), dtype=getattr(lib, d)) for d in dtypes],
        "scalar": lib.tensor(3.5, requires_grad=True),
        "empty": lib.zeros(0, 4),
        "meta": {"epoch": 7, "loss": 0.25, "name": "mlp", "flags": (True, None), "bytes": b"\x00\xff",
                 "dtype": lib.float16, "shape": lib.Size([2, 3]), "device": lib.device("cpu"), "set": {1, 2},
                 "complex": 1 + 2j, "ordered": collections.OrderedDict(b=1, a=2)},
    }


def _dtypes_of(backend):
    return [d for d in DTYPES if not (backend == "array_api_strict" and d == "float16")]  # it has no float16


def test_xtensor_files_load_in_torch_with_weights_only(backend, tmp_path):
    xt.save(_example(xt, _dtypes_of(backend)), tmp_path / "ours.pt")
    loaded = torch.load(tmp_path / "ours.pt", weights_only=True)
    _same(loaded, _example(torch, _dtypes_of(backend)))
    _same(xt.load(tmp_path / "ours.pt"), loaded)


def _torch_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def test_torch_files_load_in_xtensor(backend):
    reference = _example(torch, _dtypes_of(backend))
    loaded = xt.load(io.BytesIO(_torch_bytes(reference)))
    _same(loaded, reference)
    assert loaded["parameter"].backend == backend and loaded["model"]["bias"].backend == backend


def test_torch_views_load_with_their_offsets_strides_and_values():
    base = torch.arange(24.0).reshape(4, 6)
    views = {"transposed": base.t(), "strided": base[1:, ::2], "row": base[2], "expanded": torch.ones(3)[:1].expand(4),
             "scalar_view": base[3, 5], "base": base}
    loaded = xt.load(io.BytesIO(_torch_bytes(views)))
    for key, view in views.items():
        np.testing.assert_array_equal(loaded[key].numpy(), view.numpy())
    loaded["base"][0, 0] = 100.0  # separate tensors once loaded (documented)
    assert loaded["transposed"][0, 0].item() == 0.0


def test_a_torch_optimizer_state_loads_into_an_xtensor_optimizer_that_continues_identically():
    w0 = np.array([[0.5, -0.3], [0.8, 0.1]], dtype=np.float32)

    def loss(lib, w):
        return ((w @ lib.tensor([1.0, -2.0]) - 1.0) ** 2).sum()

    reference = torch.tensor(w0, requires_grad=True)
    t_opt = torch.optim.Adam([reference], lr=0.1)
    for _ in range(3):
        t_opt.zero_grad()
        loss(torch, reference).backward()
        t_opt.step()
    checkpoint = xt.load(io.BytesIO(_torch_bytes({"w": reference.detach(), "optimizer": t_opt.state_dict()})))
    ours = checkpoint["w"].clone().requires_grad_()
    optimizer = xt.optim.Adam([ours], lr=0.1)
    optimizer.load_state_dict(checkpoint["optimizer"])
    for opt, w, lib in ((optimizer, ours, xt), (t_opt, reference, torch)):
        opt.zero_grad()
        loss(lib, w).backward()
        opt.step()
    np.testing.assert_allclose(ours.detach().numpy(), reference.detach().numpy(), rtol=1e-6)


def test_a_model_round_trips_through_a_file(tmp_path):
    model = xt.nn.Sequential(xt.nn.Linear(4, 8), xt.nn.ReLU(), xt.nn.Linear(8, 3))
    optimizer = xt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = xt.randn(5, 4)
    model(x).sum().backward()
    optimizer.step()
    xt.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, str(tmp_path / "ckpt.pt"))
    restored = xt.nn.Sequential(xt.nn.Linear(4, 8), xt.nn.ReLU(), xt.nn.Linear(8, 3))
    checkpoint = xt.load(str(tmp_path / "ckpt.pt"))
    restored.load_state_dict(checkpoint["model"])
    np.testing.assert_array_equal(restored(x).detach().numpy(), model(x).detach().numpy())
    again = xt.optim.SGD(restored.parameters(), lr=0.1, momentum=0.9)
    again.load_state_dict(checkpoint["optimizer"])
    assert again.state_dict()["param_groups"] == optimizer.state_dict()["param_groups"]
    np.testing.assert_array_equal(again.state[restored[0].weight]["momentum_buffer"].numpy(),
                                  optimizer.state[model[0].weight]["momentum_buffer"].numpy())


@pytest.mark.parametrize("target, backend, device", [("jax", "jax", "cpu"), ("array_api_strict", "array_api_strict", "cpu"),
                                                     ("cpu", "numpy", "cpu"), ({"cpu": "jax"}, "jax", "cpu")])
def test_map_location_picks_the_backend_or_device(target, backend, device):
    pytest.importorskip(backend)
    loaded = xt.load(io.BytesIO(_torch_bytes({"w": torch.ones(2), "p": torch.nn.Parameter(torch.zeros(1))})),
                     map_location=target)
    assert loaded["w"].backend == backend and str(loaded["w"].device) == device
    assert isinstance(loaded["p"], xt.nn.Parameter) and loaded["p"].backend == backend


def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    xt.save({"w": xt.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises(pickle.PicklingError, match="save its state_dict"):
        xt.save(xt.nn.Linear(2, 2), path)  # a whole module could not be loaded back with weights_only

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        xt.save({"w": xt.zeros(3)}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ckpt.pt"]
    monkeypatch.undo()
    xt.save({"w": xt.zeros(3)}, path)
    assert xt.load(path)["w"].tolist() == [0.0, 0.0, 0.0] and os.listdir(tmp_path) == ["ckpt.pt"]


def _archive(payload):
    """A PyTorch-style zip whose data.pkl is ``payload``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", payload)
        archive.writestr("archive/byteorder", "little")
        archive.writestr("archive/version", "3\n")
    out.seek(0)
    return out


class _RunsCode:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


@pytest.mark.parametrize("payload", [
    lambda path: pickle.dumps(_RunsCode(path), protocol=2),
    lambda path: b"cbuiltins\neval\n(V__import__('os').system('touch " + str(path).encode() + b"')\ntR.",
    lambda path: b"c__builtin__\ngetattr\n(cos\nsystem\nVx\ntR.",
    lambda path: b"ctorch._utils\n_rebuild_tensor_v2\n(cposix\nsystem\n)tR.",
])
def test_a_file_that_asks_to_run_code_is_refused(tmp_path, payload):
    marker = tmp_path / "pwned"
    with pytest.raises(pickle.UnpicklingError, match="is not an allowed global"):
        xt.load(_archive(payload(marker)))
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        torch.load(_archive(payload(marker)), weights_only=True)  # PyTorch refuses the same files
    assert not marker.exists()


def test_state_may_only_be_set_on_an_ordered_dict():
    set_then_build = b"\x80\x02cbuiltins\nset\n)R}(X\x01\x00\x00\x00aK\x01ub."  # set(), then BUILD {'a': 1}
    with pytest.raises(pickle.UnpicklingError, match="only OrderedDict state"):
        xt.load(_archive(set_then_build))


def test_a_tensor_reaching_past_its_storage_is_refused():
    buffer = io.BytesIO(_torch_bytes(torch.arange(4.0)))
    with zipfile.ZipFile(buffer) as archive:
        records = {name: archive.read(name) for name in archive.namelist()}
    name = [n for n in records if n.endswith("data.pkl")][0]
    records[name] = records[name].replace(b"K\x04\x85", b"K\x09\x85", 1)  # size (4,) -> (9,)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for key, data in records.items():
            archive.writestr(key, data)
    out.seek(0)
    with pytest.raises(RuntimeError, match="reaches past its storage of 4 elements"):
        xt.load(out)


@pytest.mark.parametrize("damage, message", [
    (lambda blob: blob[: len(blob) // 2], "truncated"),
    (lambda blob: b"", "is empty"),
    (lambda blob: b"just some text, not a checkpoint", "not a PyTorch checkpoint"),
    (lambda blob: blob.replace(b"\x00\x00\x80?" * 2, b"\x00\x00\x80@" * 2, 1), "corrupted"),  # CRC no longer matches
])
def test_truncated_corrupted_and_foreign_files_raise_a_clear_error(damage, message):
    blob = _torch_bytes({"w": torch.ones(8)})
    with pytest.raises(RuntimeError, match=message):
        xt.load(io.BytesIO(damage(blob)))


def test_zip_archives_that_are_not_checkpoints_and_legacy_files_are_refused():
    with pytest.raises(RuntimeError, match="no <folder>/data.pkl"):
        xt.load(io.BytesIO(_zip_without_pickle()))
    legacy = io.BytesIO()
    torch.save({"w": torch.ones(2)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="not a PyTorch checkpoint"):
        xt.load(io.BytesIO(legacy.getvalue()))


def _zip_without_pickle():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("folder/readme.txt", "hello")
    return out.getvalue()


def test_a_bfloat16_file_on_a_backend_without_bfloat16_names_the_dtype():
    pytest.importorskip("array_api_strict")
    with pytest.raises(RuntimeError, match="cannot place a xtensor.bfloat16 tensor .* on backend 'array_api_strict'"):
        xt.load(io.BytesIO(_torch_bytes(torch.ones(2, dtype=torch.bfloat16))), map_location="array_api_strict")


def test_a_dtype_the_backend_lacks_is_named_in_the_error():
    pytest.importorskip("array_api_strict")
    with pytest.raises(RuntimeError, match="cannot place a xtensor.float16 tensor .* on backend 'array_api_strict'"):
        xt.load(io.BytesIO(_torch_bytes(torch.ones(2, dtype=torch.float16))), map_location="array_api_strict")


def test_an_explicit_pickle_module_is_refused_as_by_pytorch():
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        xt.load(io.BytesIO(_torch_bytes(torch.ones(1))), pickle_module=pickle)
