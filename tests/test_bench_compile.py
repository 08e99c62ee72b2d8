"""benchmarks/bench_compile.py times one training step six ways; this checks they are the same step (a few
seconds: two small compilations), so the benchmark cannot drift into comparing different work. No timing."""
import pathlib
import sys

import pytest

pytest.importorskip("jax")

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # plain `pytest` puts tests/, not the repo root, on sys.path
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_compile as bench  # noqa: E402


def test_every_column_takes_the_same_adam_step_from_the_same_weights():
    fns, first = bench._columns(8)
    assert set(fns) >= {"xtensor.compile", "jax.jit", "xtensor[numpy]"}
    second = {column: fn().item() for column, fn in fns.items()}  # the loss after one Adam update
    assert set(first) == set(second) == set(fns)
    for column in fns:
        assert first[column] == pytest.approx(first["jax.jit"], rel=1e-5), column
        assert second[column] == pytest.approx(second["jax.jit"], rel=1e-4), column
    assert second["jax.jit"] < first["jax.jit"]


def test_the_gpt_loop_is_the_same_model_in_xtensor_and_torch():
    """The GPT columns' model, written once as PyTorch code, gives PyTorch's loss from the same weights (numpy
    backend: the compiled and eager jax columns are the same module, checked equal by ``gpt_rows`` before timing)."""
    torch = pytest.importorskip("torch")
    import numpy as np

    import xtensor

    size = {k: v for k, v in bench.GPT_SIZE.items() if k != "batch"}
    tokens = np.random.default_rng(0).integers(0, size["vocab"], (2, size["block"]))
    with xtensor.use_backend("numpy"):
        xtensor.manual_seed(0)
        model = bench._gpt_class(xtensor)(**size)
        _, loss = model(xtensor.tensor(tokens), xtensor.tensor(tokens))
    ref = bench._gpt_class(torch)(**size)
    ref.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()})
    _, ref_loss = ref(torch.from_numpy(tokens), torch.from_numpy(tokens))
    assert loss.item() == pytest.approx(ref_loss.item(), rel=1e-5)
