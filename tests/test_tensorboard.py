"""xtensor.utils.tensorboard.SummaryWriter against PyTorch 2.13's: the same calls with xtensor tensors write the
event records PyTorch's writer writes with torch tensors (read back with TensorBoard's own reader)."""
import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboardX")
pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from torch.utils.tensorboard import SummaryWriter as TorchSummaryWriter  # noqa: E402

from xtensor.utils.tensorboard import SummaryWriter  # noqa: E402

WEIGHTS = np.linspace(-2.0, 3.0, 40).astype(np.float32)
IMAGE = np.linspace(0.0, 1.0, 3 * 4 * 5).reshape(3, 4, 5).astype(np.float32)


def _log(writer, lib):
    """A training script's logging: scalars per step, a weight histogram, an image, a text note."""
    for step in range(3):
        writer.add_scalar("loss", lib.tensor(1.0 / (step + 1)), step)
        writer.add_scalars("lr", {"encoder": 0.1 * step, "decoder": lib.tensor(0.2 * step)}, step)
    writer.add_histogram("weights", lib.tensor(WEIGHTS), 2)
    writer.add_image("sample", lib.tensor(IMAGE), 2)
    writer.add_text("note", "epoch done", 2)
    writer.close()


def _read(folder):
    accumulator = EventAccumulator(str(folder), size_guidance={"histograms": 0, "images": 0, "scalars": 0})
    accumulator.Reload()
    return accumulator


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    ours, theirs = tmp_path_factory.mktemp("xtensor"), tmp_path_factory.mktemp("torch")
    _log(SummaryWriter(str(ours)), xt)
    _log(TorchSummaryWriter(str(theirs)), torch)
    return _read(ours), _read(theirs)


def test_scalars_are_pytorchs(written):
    ours, theirs = written
    assert ours.Tags()["scalars"] == theirs.Tags()["scalars"] == ["loss"]
    for tag in ours.Tags()["scalars"]:
        assert [(e.step, e.value) for e in ours.Scalars(tag)] == [(e.step, e.value) for e in theirs.Scalars(tag)]


def test_add_scalars_writes_one_run_per_key_as_pytorch(tmp_path):
    """PyTorch's add_scalars writes each key to its own sub-folder ``<main_tag>_<key>``."""
    for lib, writer in ((xt, SummaryWriter(str(tmp_path / "ours"))), (torch, TorchSummaryWriter(str(tmp_path / "t")))):
        writer.add_scalars("lr", {"encoder": lib.tensor(0.5)}, 1)
        writer.close()
    ours, theirs = _read(tmp_path / "ours" / "lr_encoder"), _read(tmp_path / "t" / "lr_encoder")
    assert [(e.step, e.value) for e in ours.Scalars("lr")] == [(e.step, e.value) for e in theirs.Scalars("lr")]


def test_histogram_is_pytorchs(written):
    (ours,), (theirs,) = written[0].Histograms("weights"), written[1].Histograms("weights")
    assert ours.step == theirs.step
    for field in ("min", "max", "num", "sum", "sum_squares", "bucket_limit", "bucket"):
        np.testing.assert_allclose(getattr(ours.histogram_value, field), getattr(theirs.histogram_value, field),
                                   rtol=1e-6)


def test_image_is_pytorchs(written):
    (ours,), (theirs,) = written[0].Images("sample"), written[1].Images("sample")
    assert (ours.width, ours.height, ours.encoded_image_string) == \
        (theirs.width, theirs.height, theirs.encoded_image_string)


def test_text_and_graph(written, tmp_path):
    assert "note/text_summary" in written[0].Tags()["tensors"]
    with pytest.raises(NotImplementedError, match="add_graph traces the model with TorchScript"):
        SummaryWriter(str(tmp_path)).add_graph(xt.nn.Linear(2, 2), xt.ones(1, 2))
