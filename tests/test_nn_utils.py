"""nn.utils (gradient clipping, parameters <-> vector) against PyTorch 2.13 on every backend."""
import math

import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

VALUES = [np.linspace(-2.0, 3.0, 6).reshape(2, 3), np.array([0.5, -4.0]), np.array([[1.5]])]


def _with_grads(lib):
    params = [lib.tensor(v, dtype=lib.float32, requires_grad=True) for v in VALUES]
    sum((p ** 3).sum() for p in params[:2]).backward()  # the last parameter gets no gradient
    return params


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (0.5, 1), (2.0, math.inf), (1e4, 2.0), (3.0, 3.5)])
def test_clip_grad_norm_scales_gradients_as_pytorch(backend, max_norm, norm_type):
    params, expected = _with_grads(xt), _with_grads(torch)
    total = xt.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    expected_total = torch.nn.utils.clip_grad_norm_(expected, max_norm, norm_type=norm_type)
    assert total.backend == backend and total.item() == pytest.approx(expected_total.item(), rel=1e-6)
    for p, q in zip(params[:2], expected[:2]):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
    assert params[2].grad is None


def test_clip_grad_norm_of_a_single_tensor_and_of_no_gradients():
    (p, *_), (q, *_) = _with_grads(xt), _with_grads(torch)
    assert xt.nn.utils.clip_grad_norm_(p, 1.0).item() == pytest.approx(torch.nn.utils.clip_grad_norm_(q, 1.0).item())
    np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
    assert xt.nn.utils.clip_grad_norm_([xt.zeros(2, requires_grad=True)], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        xt.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_refuses_a_non_finite_norm_when_asked():
    params = _with_grads(xt)
    params[0].grad[0, 1] = math.inf
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        xt.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clamps_every_element(backend):
    params, expected = _with_grads(xt), _with_grads(torch)
    xt.nn.utils.clip_grad_value_(params, 5)
    torch.nn.utils.clip_grad_value_(expected, 5)
    for p, q in zip(params[:2], expected[:2]):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    assert params[0].grad.abs().max().item() == 5.0


def test_parameters_to_vector_and_back(backend):
    params = [xt.tensor(v, dtype=xt.float32, requires_grad=True) for v in VALUES]
    vector = xt.nn.utils.parameters_to_vector(params)
    expected = torch.nn.utils.parameters_to_vector([torch.tensor(v, dtype=torch.float32) for v in VALUES])
    np.testing.assert_array_equal(vector.detach().numpy(), expected.numpy())
    (vector * xt.arange(9.0)).sum().backward()  # differentiable: each parameter gets its slice of the gradient
    assert params[1].grad.tolist() == [6.0, 7.0]
    xt.nn.utils.vector_to_parameters(xt.arange(9.0), params)
    assert params[0].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and params[2].tolist() == [[8.0]]
    assert params[0].requires_grad and params[0].backend == backend


def test_vector_to_parameters_wants_a_tensor():
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: builtins.list"):
        xt.nn.utils.vector_to_parameters([1.0], [xt.zeros(1)])


# ------------------------------------------------------------------ nn.utils.rnn: packed sequences
LENGTHS = [2, 4, 1, 4]  # unsorted, with a tie


def _padded(lib, batch_first=False):
    values = np.random.default_rng(0).standard_normal((4, 4, 3))  # (batch, time, features)
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    return x, (x if batch_first else x.transpose(0, 1))


def test_batch_first_pack_and_pad_round_trip_as_torch(backend):
    (x, padded), (tx, tpadded) = _padded(xt, True), _padded(torch, True)
    packed = xt.nn.utils.rnn.pack_padded_sequence(padded, LENGTHS, batch_first=True, enforce_sorted=False)
    expected = torch.nn.utils.rnn.pack_padded_sequence(tpadded, LENGTHS, batch_first=True, enforce_sorted=False)
    for got, want in zip(packed, expected):
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    out, lengths = xt.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-1.0)
    want_out, want_lengths = torch.nn.utils.rnn.pad_packed_sequence(expected, batch_first=True, padding_value=-1.0)
    np.testing.assert_array_equal(out.detach().numpy(), want_out.detach().numpy())
    assert lengths.tolist() == want_lengths.tolist() and lengths.dtype == xt.int64
    (out * out).sum().backward()
    (want_out * want_out).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_pack_sequence_and_unpack_sequence_as_torch(backend):
    values = [np.arange(n * 2, dtype=np.float32).reshape(n, 2) for n in (3, 1, 2)]
    packed = xt.nn.utils.rnn.pack_sequence([xt.tensor(v) for v in values], enforce_sorted=False)
    expected = torch.nn.utils.rnn.pack_sequence([torch.tensor(v) for v in values], enforce_sorted=False)
    np.testing.assert_array_equal(packed.data.numpy(), expected.data.numpy())
    assert packed.batch_sizes.tolist() == expected.batch_sizes.tolist()
    for got, want in zip(xt.nn.utils.rnn.unpack_sequence(packed), values):
        np.testing.assert_array_equal(got.numpy(), want)


def test_pad_sequence_pads_left_or_right_as_torch(backend):
    values = [np.ones((2, 2)), np.full((3, 2), 2.0)]
    for side in ("left", "right"):
        got = xt.nn.utils.rnn.pad_sequence([xt.tensor(v) for v in values], batch_first=True, padding_value=7.0,
                                           padding_side=side)
        want = torch.nn.utils.rnn.pad_sequence([torch.tensor(v) for v in values], batch_first=True,
                                               padding_value=7.0, padding_side=side)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_unsorted_lengths_with_enforce_sorted_raise_as_torch():
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        xt.nn.utils.rnn.pack_padded_sequence(xt.zeros(4, 4, 3), LENGTHS)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 4, 3), LENGTHS)


def _assert_recurrent_layer_over_a_packed_sequence_matches_torch(kind, options):
    torch.manual_seed(0)
    expected_model = getattr(torch.nn, kind)(3, 4, **options).double()
    model = getattr(xt.nn, kind)(3, 4, **options).double()
    model.load_state_dict({k: xt.tensor(v.detach().numpy()) for k, v in expected_model.state_dict().items()})
    batch_first = options.get("batch_first", False)
    outputs = []
    for lib, m in ((xt, model), (torch, expected_model)):
        x, padded = _padded(lib, batch_first)
        rnn = lib.nn.utils.rnn
        out, state = m(rnn.pack_padded_sequence(padded, LENGTHS, batch_first=batch_first, enforce_sorted=False))
        assert isinstance(out, rnn.PackedSequence)
        out = rnn.pad_packed_sequence(out, batch_first=batch_first)[0]
        state = state if isinstance(state, tuple) else (state,)
        (out.sum() + sum((h * h).sum() for h in state)).backward()
        outputs.append([out, *state, x.grad, *(p.grad for p in m.parameters())])
    for got, want in zip(*outputs):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind, options", [("LSTM", dict(num_layers=2, bidirectional=True)), ("RNN", {}),
                                           ("LSTM", dict(proj_size=2))], ids=["lstm-2layer-bi", "rnn", "proj"])
def test_recurrent_layers_over_a_packed_sequence_match_torch(kind, options):
    _assert_recurrent_layer_over_a_packed_sequence_matches_torch(kind, options)


def test_gru_over_a_packed_batch_first_sequence_matches_torch_on_every_backend(backend):
    _assert_recurrent_layer_over_a_packed_sequence_matches_torch("GRU", dict(batch_first=True))



# ------------------------------------------------------------------ weight_norm
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_matches_torch_in_keys_values_and_gradients(backend, dim):
    torch.manual_seed(0)
    expected = torch.nn.Conv1d(3, 4, 2).double()
    model = xt.nn.Conv1d(3, 4, 2).double()
    model.load_state_dict({k: xt.tensor(v.detach().numpy()) for k, v in expected.state_dict().items()})
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        xt.nn.utils.weight_norm(model, dim=dim)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(expected, dim=dim)
    assert list(model.state_dict()) == list(expected.state_dict()) == ["bias", "weight_g", "weight_v"]
    x = np.random.default_rng(0).standard_normal((2, 3, 5))
    out, want = model(xt.tensor(x)), expected(torch.tensor(x))
    (out ** 2).sum().backward()
    (want ** 2).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    for name in ("weight_g", "weight_v"):
        np.testing.assert_allclose(getattr(model, name).grad.numpy(), getattr(expected, name).grad.numpy(),
                                   rtol=1e-10, atol=1e-12)
    xt.nn.utils.remove_weight_norm(model)
    torch.nn.utils.remove_weight_norm(expected)
    assert list(model.state_dict()) == list(expected.state_dict())
    np.testing.assert_allclose(model.weight.detach().numpy(), expected.weight.detach().numpy(), rtol=1e-12)


def test_remove_weight_norm_without_one_raises_as_torch():
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        xt.nn.utils.remove_weight_norm(xt.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        torch.nn.utils.remove_weight_norm(torch.nn.Linear(2, 2))
