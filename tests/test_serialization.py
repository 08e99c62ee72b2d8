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
    if backend == "jax" and target != "cpu":  # a backend name: that backend's default device (a GPU, where jax has one)
        import jax
        device = "cpu" if jax.default_backend() == "cpu" else "cuda:0"
    assert loaded["w"].backend == backend and str(loaded["w"].device) == device
    assert isinstance(loaded["p"], xt.nn.Parameter) and loaded["p"].backend == backend


def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    xt.save({"w": xt.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises(pickle.PicklingError, match="lambda"):
        xt.save({"w": xt.ones(3), "f": lambda: 0}, path)  # a lambda cannot be pickled

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
    with pytest.raises(pickle.UnpicklingError, match="was not an allowed global by default|whose module .* is blocked"):
        xt.load(_archive(payload(marker)))
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        torch.load(_archive(payload(marker)), weights_only=True)  # PyTorch refuses the same files
    assert not marker.exists()


def test_state_may_only_be_set_on_an_ordered_dict_or_an_allowed_class():
    dict_then_build = b"\x80\x02}}(X\x01\x00\x00\x00aK\x01ub."  # {}, then BUILD {'a': 1}
    for load in (xt.load, lambda f: torch.load(f, weights_only=True)):
        with pytest.raises(pickle.UnpicklingError, match="Can only build Tensor, Parameter, OrderedDict or types "
                                                         "allowlisted via `add_safe_globals`, but got <class 'dict'>"):
            load(_archive(dict_then_build))


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


def test_an_explicit_pickle_module_is_refused_with_weights_only_and_used_without_as_by_pytorch():
    blob = _torch_bytes(torch.ones(1))
    for lib in (xt, torch):
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
            lib.load(io.BytesIO(blob), pickle_module=pickle, weights_only=True)
        assert lib.load(io.BytesIO(blob), pickle_module=pickle).tolist() == [1.0]  # weights_only defaults to False


# ------------------------------------------------------------------------- whole objects (weights_only=False)
X_BATCH = np.linspace(-1.0, 1.0, 15, dtype=np.float32).reshape(5, 3)


def _mlp(lib):
    """A small model with fixed weights (the same in both libraries) and its Adam optimizer."""
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.tensor(np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape)), dtype=lib.float32))
    return model, lib.optim.Adam(model.parameters(), lr=0.05)


def _train(lib, model, optimizer, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        (model(lib.tensor(X_BATCH)) ** 2).mean().backward()
        optimizer.step()


def _numpy_parameters(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_a_whole_model_and_optimizer_saved_mid_training_resume_identically(backend, tmp_path):
    model, optimizer = _mlp(xt)
    _train(xt, model, optimizer, 2)
    xt.save({"model": model, "optimizer": optimizer, "epoch": 2, "data": X_BATCH}, tmp_path / "whole.pt")
    _train(xt, model, optimizer, 2)
    checkpoint = xt.load(tmp_path / "whole.pt", weights_only=False)
    restored, resumed = checkpoint["model"], checkpoint["optimizer"]
    assert type(restored) is xt.nn.Sequential and type(resumed) is xt.optim.Adam
    assert resumed.param_groups[0]["params"] == list(restored.parameters())  # the same Parameter objects
    assert restored[0].weight.backend == backend and checkpoint["epoch"] == 2
    np.testing.assert_array_equal(checkpoint["data"], X_BATCH)
    _train(xt, restored, resumed, 2)
    for ours, expected in zip(_numpy_parameters(restored), _numpy_parameters(model)):
        np.testing.assert_array_equal(ours, expected)


def test_a_whole_xtensor_model_and_optimizer_load_in_torch_and_train_on(backend):
    model, optimizer = _mlp(xt)
    _train(xt, model, optimizer, 2)
    buffer = io.BytesIO()
    xt.save({"model": model, "optimizer": optimizer}, buffer)
    theirs = torch.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    assert type(theirs["model"]) is torch.nn.Sequential and type(theirs["model"][0]) is torch.nn.Linear
    assert type(theirs["optimizer"]) is torch.optim.Adam
    _train(xt, model, optimizer, 2)
    _train(torch, theirs["model"], theirs["optimizer"], 2)
    for ours, expected in zip(_numpy_parameters(model), _numpy_parameters(theirs["model"])):
        np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-6)


def test_a_whole_torch_model_and_optimizer_load_in_xtensor_and_train_on(backend):
    model, optimizer = _mlp(torch)
    _train(torch, model, optimizer, 2)
    ours = xt.load(io.BytesIO(_torch_bytes({"model": model, "optimizer": optimizer})), weights_only=False)
    assert type(ours["model"]) is xt.nn.Sequential and type(ours["model"][0]) is xt.nn.modules.linear.Linear
    assert type(ours["optimizer"]) is xt.optim.Adam and ours["model"][0].weight.backend == backend
    _train(torch, model, optimizer, 2)
    _train(xt, ours["model"], ours["optimizer"], 2)
    for mine, expected in zip(_numpy_parameters(ours["model"]), _numpy_parameters(model)):
        np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-6)


LAYERS = [
    pytest.param(lambda lib: lib.nn.Conv2d(2, 3, 3, padding=1), (1, 2, 5, 5), id="Conv2d"),
    pytest.param(lambda lib: lib.nn.LayerNorm(6), (2, 6), id="LayerNorm"),
    pytest.param(lambda lib: lib.nn.GELU(), (2, 6), id="GELU"),
    pytest.param(lambda lib: lib.nn.Dropout(0.3).eval(), (2, 6), id="Dropout"),
    pytest.param(lambda lib: lib.nn.BatchNorm1d(6).eval(), (2, 6), id="BatchNorm1d"),
    pytest.param(lambda lib: lib.nn.Flatten(), (2, 3, 2), id="Flatten"),
    pytest.param(lambda lib: lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True), (5, 2, 3), id="LSTM"),
    pytest.param(lambda lib: lib.nn.GRU(3, 4, batch_first=True), (2, 5, 3), id="GRU"),
    pytest.param(lambda lib: lib.nn.RNN(3, 4, nonlinearity="relu"), (5, 2, 3), id="RNN"),
    pytest.param(lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).eval(), (3, 2, 8),
                 id="TransformerEncoderLayer"),
]


def _output(result):
    """A layer's output tensor (an RNN returns the output and its final states)."""
    return (result[0] if isinstance(result, tuple) else result).detach().numpy()


@pytest.mark.parametrize("make, shape", LAYERS)
def test_whole_layers_cross_between_torch_and_xtensor_in_both_directions(make, shape):
    x = np.cos(np.arange(np.prod(shape))).reshape(shape).astype(np.float32)
    theirs = make(torch)
    ours = xt.load(io.BytesIO(_torch_bytes(theirs)), weights_only=False)
    buffer = io.BytesIO()
    xt.save(ours, buffer)
    back = torch.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    assert type(ours).__name__ == type(theirs).__name__ and type(back) is type(theirs)
    expected = _output(theirs(torch.tensor(x)))
    np.testing.assert_allclose(_output(ours(xt.tensor(x))), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(_output(back(torch.tensor(x))), expected)


def test_numpy_arrays_cross_both_ways_with_weights_only_false():
    array = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(xt.load(io.BytesIO(_torch_bytes(array)), weights_only=False), array)
    buffer = io.BytesIO()
    xt.save({"array": array}, buffer)
    np.testing.assert_array_equal(torch.load(io.BytesIO(buffer.getvalue()), weights_only=False)["array"], array)


# ------------------------------------------------------------------------------ weights_only and safe globals
def _refusal(load, blob):
    with pytest.raises(pickle.UnpicklingError) as info:
        load(io.BytesIO(blob))
    return str(info.value)


def test_weights_only_refuses_a_whole_module_naming_the_global_and_both_ways_to_allow_it():
    blob = _torch_bytes(torch.nn.Linear(2, 2))
    ours, theirs = _refusal(xt.load, blob), _refusal(lambda f: torch.load(f, weights_only=True), blob)
    for message, lib in ((ours, "xtensor"), (theirs, "torch")):
        assert "GLOBAL torch.nn.modules.linear.Linear was not an allowed global by default" in message
        assert f"`{lib}.serialization.add_safe_globals([{lib}.nn.modules.linear.Linear])`" in message
        assert f"`{lib}.serialization.safe_globals([{lib}.nn.modules.linear.Linear])` context manager" in message
        assert "`weights_only` set to `False`" in message


def test_safe_globals_admit_a_module_for_the_block_only_as_in_torch():
    blob = _torch_bytes(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()))
    weight = torch.load(io.BytesIO(blob), weights_only=False)[0].weight.detach().numpy()
    for lib in (xt, torch):
        before = lib.serialization.get_safe_globals()  # torch registers some of its own
        with lib.serialization.safe_globals([lib.nn.Sequential, lib.nn.Linear, lib.nn.ReLU]):
            loaded = lib.load(io.BytesIO(blob), weights_only=True)
        assert type(loaded) is lib.nn.Sequential and type(loaded[0]) is lib.nn.Linear
        np.testing.assert_array_equal(loaded[0].weight.detach().numpy(), weight)
        assert set(lib.serialization.get_safe_globals()) == set(before)
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container.Sequential"):
            lib.load(io.BytesIO(blob), weights_only=True)


def test_add_get_and_clear_safe_globals_as_in_torch():
    blob = _torch_bytes(torch.nn.ReLU())
    for lib in (xt, torch):
        before = lib.serialization.get_safe_globals()  # torch registers some of its own
        lib.serialization.clear_safe_globals()
        try:
            lib.serialization.add_safe_globals([(lib.nn.ReLU, "torch.nn.modules.activation.ReLU")])
            assert lib.serialization.get_safe_globals() == [(lib.nn.ReLU, "torch.nn.modules.activation.ReLU")]
            assert type(lib.load(io.BytesIO(blob))) is lib.nn.ReLU
            lib.serialization.add_safe_globals([(lib.nn.ReLU,)])
            with pytest.raises(ValueError, match="Expected tuple of length 2"):
                lib.load(io.BytesIO(blob))
        finally:
            lib.serialization.clear_safe_globals()
            assert lib.serialization.get_safe_globals() == []
            lib.serialization.add_safe_globals(before)


class _CallsIt:
    """Pickles as a call of ``function`` (an object the file builds) on ``1``."""

    def __init__(self, function):
        self.function = function

    def __reduce__(self):
        return self.function, (1,)


def test_an_allowed_class_is_built_but_its_instances_are_not_called():
    """PyTorch's rule: REDUCE may call only an allow-listed global, never an object the file built."""
    calls_a_module = pickle.dumps(_CallsIt(torch.nn.ReLU()), protocol=2)
    for lib in (xt, torch):
        with lib.serialization.safe_globals([lib.nn.ReLU]):
            with pytest.raises(pickle.UnpicklingError, match="Trying to call reduce for unrecognized function ReLU"):
                lib.load(_archive(calls_a_module), weights_only=True)


# ------------------------------------------------------------------------------------------------ plain pickle
def test_tensors_parameters_and_modules_pickle_with_the_standard_pickle(backend):
    t = xt.tensor([[1.5, -2.0]], dtype=xt.float64, requires_grad=True)
    p = xt.nn.Parameter(xt.ones(2))
    model, _ = _mlp(xt)
    loaded_t, loaded_p, loaded_model = pickle.loads(pickle.dumps((t, p, model)))
    assert loaded_t.dtype == xt.float64 and loaded_t.requires_grad and loaded_t.backend == backend
    assert loaded_t.tolist() == [[1.5, -2.0]] and type(loaded_p) is xt.nn.Parameter
    x = xt.tensor(X_BATCH)
    np.testing.assert_array_equal(loaded_model(x).detach().numpy(), model(x).detach().numpy())


def test_a_whole_lstm_loads_back_and_takes_flatten_parameters_as_scripts_call_it(tmp_path):
    lstm = xt.nn.LSTM(3, 4, num_layers=2)
    xt.save(lstm, tmp_path / "lstm.pt")
    loaded = xt.load(tmp_path / "lstm.pt", weights_only=False)
    assert loaded.flatten_parameters() is None  # PyTorch packs cuDNN weights here; nothing to do in xtensor
    x = xt.tensor(X_BATCH).reshape(5, 1, 3)
    np.testing.assert_array_equal(loaded(x)[0].detach().numpy(), lstm(x)[0].detach().numpy())
