"""``xtensor gradcheck``: the user-facing VJP cross-check against jax (conformance/gradcheck.py).

CI runs a subset of functions (one per argument kind) on numpy to stay fast; the full run is the
same code over every target. Completeness is checked from the target list alone (no gradients)."""
import pytest

import xtensor as xt
from conformance import gradcheck, gradcheck_specs as specs
from xtensor import cli

pytest.importorskip("jax")

SUBSET = ["exp", "add", "sum", "array_api.sum", "cat", "gather", "linalg.det", "cholesky", "fft.rfft",
          "array_api.meshgrid", "nn.functional.cross_entropy"]


def test_subset_matches_jax_on_numpy(capsys):
    assert cli.main(["gradcheck", "--backend", "numpy", "--only", *SUBSET]) == 0
    out = capsys.readouterr().out
    assert "VJPs vs jax.vjp" in out
    assert "sample calls match jax on backend numpy (11 functions)" in out


def test_every_differentiable_function_has_a_gradcheck_spec():
    missing = [t.name for t in gradcheck.targets() if t.calls is None]
    assert not missing, f"add samples for these to conformance/gradcheck_specs.py: {missing}"


def test_every_not_differentiable_entry_names_its_reason():
    assert all(reason.strip() for reason in specs.NOT_DIFFERENTIABLE.values())


def test_function_without_spec_fails_the_run(monkeypatch, capsys):
    monkeypatch.delitem(specs.SPECS, "trace")
    assert gradcheck.main(["--only", "trace"]) == 1
    assert "1 differentiable functions have no check" in capsys.readouterr().out


def test_unknown_function_name_is_a_usage_error(capsys):
    assert gradcheck.main(["--only", "no_such_function"]) == 2
    assert "no differentiable function called no_such_function" in capsys.readouterr().err


def _wrong_vjp_square(x):
    """x * x whose backward forgets the factor 2: the check must catch it."""
    class Square(xt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a
    return Square.apply(x)


def test_wrong_vjp_is_reported_as_a_mismatch():
    target = gradcheck.Target("wrong_square", _wrong_vjp_square, [specs.call(specs.x(3))])
    outcome = gradcheck.check(target, target.calls[0], "numpy")
    assert outcome.status == "mismatch"
    assert outcome.detail.startswith("first-order VJP #0")


def test_crashing_function_is_reported_as_an_error():
    def broken(x):
        raise RuntimeError("boom")
    target = gradcheck.Target("broken", broken, [specs.call(specs.x(3))])
    outcome = gradcheck.check(target, target.calls[0], "numpy")
    assert (outcome.status, outcome.detail) == ("error", "xtensor: RuntimeError: boom")


def test_list_shows_targets_without_running_checks(capsys):
    assert gradcheck.main(["--list", "--only", "exp", "argsort"]) == 0
    out = capsys.readouterr().out
    assert "exp" in out and "1 sample(s)" in out
    assert "argsort" in out and "not differentiable" in out
