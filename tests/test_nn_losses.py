"""Losses (modules and functional) against PyTorch on each backend: values and input gradients for every
reduction, class-index and probability targets, weights, ignore_index, label smoothing, extreme logits, and
PyTorch's errors for bad shapes, out-of-range classes and unknown reductions."""
import re

import numpy as np
import pytest

import xtensor as xt
from xtensor import nn

torch = pytest.importorskip("torch")

R = np.random.default_rng(1)


def x(*shape):
    return R.standard_normal(shape)


def probs(*shape):
    p = R.random(shape) + 0.05
    return p / p.sum(1, keepdims=True)


def unit(*shape):
    return R.uniform(0.05, 0.95, shape)


def classes(high, *shape):
    return R.integers(0, high, shape)


WEIGHT = np.array([0.5, 1.5, 1.0, 2.0])


def _tensor(ns, array):
    """``array`` as a tensor of the library ``ns`` belongs to (xtensor.nn or torch.nn)."""
    return xt.tensor(array) if ns is nn else torch.tensor(array)


# (id, loss over a namespace, inputs: the differentiable ones first, then targets)
CASES = [
    ("MSELoss", lambda ns, r: ns.MSELoss(reduction=r), (x(3, 4), x(3, 4))),
    ("L1Loss", lambda ns, r: ns.L1Loss(reduction=r), (x(3, 4), x(3, 4))),
    ("SmoothL1Loss", lambda ns, r: ns.SmoothL1Loss(reduction=r, beta=0.5), (x(3, 4), x(3, 4))),
    ("HuberLoss", lambda ns, r: ns.HuberLoss(reduction=r, delta=0.7), (x(3, 4), x(3, 4))),
    ("CrossEntropyLoss", lambda ns, r: ns.CrossEntropyLoss(reduction=r), (x(5, 4), classes(4, 5))),
    ("CrossEntropyLoss-weighted", lambda ns, r: ns.CrossEntropyLoss(weight=_tensor(ns, WEIGHT), reduction=r),
     (x(5, 4), classes(4, 5))),
    ("CrossEntropyLoss-weighted-smooth-ignore", lambda ns, r: ns.CrossEntropyLoss(
        weight=_tensor(ns, WEIGHT), ignore_index=1, label_smoothing=0.3, reduction=r), (x(6, 4), classes(4, 6))),
    ("CrossEntropyLoss-probabilities-weighted", lambda ns, r: ns.CrossEntropyLoss(weight=_tensor(ns, WEIGHT),
                                                                                   reduction=r),
     (x(5, 4), probs(5, 4))),
    ("NLLLoss-weighted-spatial", lambda ns, r: ns.NLLLoss(weight=_tensor(ns, WEIGHT), reduction=r),
     (x(2, 4, 3), classes(4, 2, 3))),
    ("BCELoss-weighted", lambda ns, r: ns.BCELoss(weight=_tensor(ns, WEIGHT), reduction=r), (unit(3, 4), unit(3, 4))),
    ("CrossEntropyLoss-ignore-smooth", lambda ns, r: ns.CrossEntropyLoss(ignore_index=2, label_smoothing=0.2,
                                                                          reduction=r), (x(6, 3), classes(3, 6))),
    ("CrossEntropyLoss-spatial", lambda ns, r: ns.CrossEntropyLoss(reduction=r), (x(2, 3, 4, 2), classes(3, 2, 4, 2))),
    ("CrossEntropyLoss-unbatched", lambda ns, r: ns.CrossEntropyLoss(reduction=r), (x(4), np.array(2))),
    ("CrossEntropyLoss-probabilities", lambda ns, r: ns.CrossEntropyLoss(label_smoothing=0.1, reduction=r),
     (x(5, 4), probs(5, 4))),
    ("NLLLoss", lambda ns, r: ns.NLLLoss(reduction=r, ignore_index=0), (x(5, 4), classes(4, 5))),
    ("BCELoss", lambda ns, r: ns.BCELoss(reduction=r), (unit(3, 4), unit(3, 4))),
    ("BCEWithLogitsLoss", lambda ns, r: ns.BCEWithLogitsLoss(reduction=r), (x(3, 4) * 3, unit(3, 4))),
    ("KLDivLoss", lambda ns, r: ns.KLDivLoss(reduction=r), (np.log(probs(3, 4)), probs(3, 4))),
    ("KLDivLoss-log-target", lambda ns, r: ns.KLDivLoss(reduction=r, log_target=True),
     (np.log(probs(3, 4)), np.log(probs(3, 4)))),
    ("CosineEmbeddingLoss", lambda ns, r: ns.CosineEmbeddingLoss(margin=0.2, reduction=r),
     (x(4, 3), x(4, 3), np.array([1, -1, 1, -1]))),
    ("MarginRankingLoss", lambda ns, r: ns.MarginRankingLoss(0.3, reduction=r), (x(5), x(5), np.sign(x(5)))),
    ("HingeEmbeddingLoss", lambda ns, r: ns.HingeEmbeddingLoss(0.5, reduction=r), (x(3, 4), np.sign(x(3, 4)))),
    ("SoftMarginLoss", lambda ns, r: ns.SoftMarginLoss(reduction=r), (x(3, 4), np.sign(x(3, 4)))),
    ("MultiLabelSoftMarginLoss", lambda ns, r: ns.MultiLabelSoftMarginLoss(_tensor(ns, WEIGHT), reduction=r),
     (x(3, 4), (x(3, 4) > 0) * 1.0)),
    ("MultiLabelMarginLoss", lambda ns, r: ns.MultiLabelMarginLoss(reduction=r),
     (x(3, 4), np.array([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]]))),
    ("MultiMarginLoss", lambda ns, r: ns.MultiMarginLoss(2, 0.7, _tensor(ns, WEIGHT), reduction=r),
     (x(5, 4), classes(4, 5))),
    ("PoissonNLLLoss-full", lambda ns, r: ns.PoissonNLLLoss(full=True, reduction=r), (x(3, 4), unit(3, 4) * 4)),
    ("GaussianNLLLoss", lambda ns, r: ns.GaussianNLLLoss(full=True, reduction=r), (x(3, 4), x(3, 4), unit(3, 1))),
    ("TripletMarginLoss", lambda ns, r: ns.TripletMarginLoss(0.5, p=3.0, swap=True, reduction=r),
     (x(4, 3), x(4, 3), x(4, 3))),
]


def _compare(make, inputs, reduction, backend):
    ours, theirs = make(nn, reduction), make(torch.nn, reduction)
    assert repr(ours) == repr(theirs)
    grads = [a.dtype.kind == "f" and i < 2 and (i == 0 or len(inputs) == 3) for i, a in enumerate(inputs)]
    args = [xt.tensor(a, requires_grad=g) for a, g in zip(inputs, grads)]
    t_args = [torch.tensor(a, requires_grad=g) for a, g in zip(inputs, grads)]
    out, t_out = ours(*args), theirs(*t_args)
    assert out.backend == backend and out.grad_fn.name() == t_out.grad_fn.name()  # PyTorch's node names
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    cotangent = R.standard_normal(tuple(t_out.shape))
    (out * xt.tensor(cotangent)).sum().backward()
    (t_out * torch.tensor(cotangent)).sum().backward()
    for a, t in zip(args, t_args):
        if t.requires_grad:
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name, make, inputs", CASES, ids=[c[0] for c in CASES])
def test_loss_matches_torch(backend, name, make, inputs, reduction):
    _compare(make, inputs, reduction, backend)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss", "huber_loss"])
def test_elementwise_weight_matches_torch(fn, reduction):
    """mse and l1 divide a weighted mean by the weights' sum, huber by the element count (PyTorch's rules)."""
    data, target, weight = x(3, 4), x(3, 4), unit(3, 4)
    ours = xt.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    out = getattr(nn.functional, fn)(ours, xt.tensor(target), reduction=reduction, weight=xt.tensor(weight))
    t_out = getattr(torch.nn.functional, fn)(theirs, torch.tensor(target), reduction=reduction,
                                             weight=torch.tensor(weight))
    assert out.grad_fn.name() == t_out.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_kl_div_batchmean_matches_torch(backend):
    _compare(lambda ns, r: ns.KLDivLoss(reduction=r), (np.log(probs(3, 4)), probs(3, 4)), "batchmean", backend)


def test_bce_with_logits_pos_weight_and_weight_match_torch(backend):
    logits, target, weight, pos = x(3, 4), unit(3, 4), unit(4), unit(4) * 3
    out = nn.functional.binary_cross_entropy_with_logits(xt.tensor(logits, requires_grad=True), xt.tensor(target),
                                                         xt.tensor(weight), pos_weight=xt.tensor(pos))
    t_out = torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor(logits), torch.tensor(target),
                                                                 torch.tensor(weight), pos_weight=torch.tensor(pos))
    np.testing.assert_allclose(out.detach().numpy(), t_out.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_losses_stay_finite_at_extreme_logits(backend, dtype):
    logits = np.array([[1e4, -1e4, 0.0], [-3e38 if dtype == "float32" else -1e300, 50.0, 1e3]], dtype=dtype)
    for loss, t_loss, target in [
        (nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(), np.array([1, 0])),
        (nn.BCEWithLogitsLoss(), torch.nn.BCEWithLogitsLoss(), np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], dtype)),
    ]:
        ours = xt.tensor(logits, requires_grad=True)
        theirs = torch.tensor(logits, requires_grad=True)
        value, t_value = loss(ours, xt.tensor(target)), t_loss(theirs, torch.tensor(target))
        value.backward()
        t_value.backward()
        assert np.isfinite(value.item()) and np.isfinite(ours.grad.numpy()).all()
        np.testing.assert_allclose(value.item(), t_value.item(), rtol=1e-6)
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_bce_with_logits_gradient_at_zero_logit_is_sigmoid_minus_target():
    logits = xt.zeros(3, requires_grad=True)
    nn.functional.binary_cross_entropy_with_logits(logits, xt.tensor([0.0, 1.0, 0.5]), reduction="sum").backward()
    np.testing.assert_allclose(logits.grad.numpy(), [0.5, -0.5, 0.0])


def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


BAD = [
    ("cross_entropy-class-out-of-range", "cross_entropy", (x(3, 5), np.array([1, 2, 5])), {}),
    ("cross_entropy-negative-class", "cross_entropy", (x(3, 5), np.array([1, -2, 3])), {}),
    ("cross_entropy-batch", "cross_entropy", (x(3, 5), np.array([1, 2, 3, 4])), {}),
    ("cross_entropy-probability-shape", "cross_entropy", (x(3, 5), x(3, 4)), {}),
    ("cross_entropy-0d-logits-0d-class", "cross_entropy", (np.float32(1.0), np.array(0)), {}),
    ("cross_entropy-0d-logits-classes", "cross_entropy", (np.float32(1.0), np.array([1, 0])), {}),
    ("cross_entropy-0d-logits-0d-probability", "cross_entropy", (np.float32(1.0), np.float32(0.5)), {}),
    ("nll_loss-float-target", "nll_loss", (x(3, 5), np.array([1.0, 2.0, 3.0])), {}),
    ("nll_loss-spatial-target", "nll_loss", (x(3, 5, 2), np.array([[1], [2], [3]])), {}),
    ("nll_loss-1d", "nll_loss", (x(5), np.array([1, 2])), {}),
    ("nll_loss-weight", "nll_loss", (x(3, 5), np.array([1, 2, 3]), x(4)), {}),
    ("mse_loss-reduction", "mse_loss", (x(3), x(3)), {"reduction": "foo"}),
    ("bce-shape", "binary_cross_entropy", (unit(3), unit(4)), {}),
    ("bce-range", "binary_cross_entropy", (unit(3) + 1, unit(3)), {}),
    ("bce_with_logits-shape", "binary_cross_entropy_with_logits", (x(3), unit(4)), {}),
    ("mse_loss-broadcast", "mse_loss", (x(3), x(4)), {}),
]


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("name, fn, inputs, kwargs", BAD, ids=[c[0] for c in BAD])
def test_bad_loss_input_errors_match_torch(name, fn, inputs, kwargs):
    ours = _error(getattr(nn.functional, fn), *map(xt.tensor, inputs), **kwargs)
    theirs = _error(getattr(torch.nn.functional, fn), *map(torch.tensor, inputs), **kwargs)
    assert issubclass(ours[0], theirs[0])
    # xtensor names the op of a broadcast failure (``sub(): The size of tensor a ...``)
    assert re.sub(r"^\w+\(\): ", "", ours[1]).replace("xtensor.Size", "torch.Size") == theirs[1]


def test_class_weight_requiring_grad_is_refused_as_torch():
    """PyTorch's nll_loss kernel has no derivative for ``weight`` and refuses it at the forward."""
    inputs = (x(3, 4), np.array([0, 3, 1]), unit(4))
    ours = _error(nn.functional.cross_entropy, xt.tensor(inputs[0]), xt.tensor(inputs[1]),
                  weight=xt.tensor(inputs[2], requires_grad=True))
    theirs = _error(torch.nn.functional.cross_entropy, torch.tensor(inputs[0]), torch.tensor(inputs[1]),
                    weight=torch.tensor(inputs[2], requires_grad=True))
    assert ours == theirs


@pytest.mark.parametrize("weight", [None, np.zeros(4)])
def test_mean_over_no_counted_sample_is_nan_with_zero_gradient_as_torch(backend, weight):
    """Every target ignored, or every class weight 0: the mean is 0/0 (NaN) and the gradient 0, as PyTorch's."""
    logits, target = x(3, 4), np.array([1, 1, 1])
    results = []
    for lib in (xt, torch):
        a = lib.tensor(logits, requires_grad=True)
        loss = lib.nn.functional.nll_loss(a, lib.tensor(target), None if weight is None else lib.tensor(weight),
                                          ignore_index=1 if weight is None else -100)
        loss.backward()
        results.append((loss.detach().numpy(), a.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("kwargs", [{"weight": WEIGHT, "ignore_index": 2}, {"reduction": "none", "ignore_index": 0},
                                    {"reduction": "sum", "label_smoothing": 0.3}])
def test_cross_entropy_second_order_matches_torch(backend, kwargs):
    """A Hessian-vector product through cross_entropy (``create_graph=True``, then the grad of the gradient)."""
    logits, target, cotangent, direction = x(5, 4), np.array([0, 2, 3, 1, 2]), x(5), x(5, 4)
    results = []
    for lib in (xt, torch):
        a = lib.tensor(logits, requires_grad=True)
        options = {k: lib.tensor(v) if k == "weight" else v for k, v in kwargs.items()}
        loss = lib.nn.functional.cross_entropy(a, lib.tensor(target), **options)
        weighted = (loss * lib.tensor(cotangent)).sum() if loss.ndim else loss
        (g,) = lib.autograd.grad(weighted, a, create_graph=True)
        (h,) = lib.autograd.grad((g * lib.tensor(direction)).sum(), a)
        results.append((g.detach().numpy(), h.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_mismatched_target_size_warns_as_torch():
    with pytest.warns(UserWarning, match="Using a target size .* that is different to the input size"):
        nn.functional.mse_loss(xt.ones(3, 1), xt.ones(3))


def test_legacy_size_average_and_reduce_map_to_reduction():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert nn.L1Loss(reduce=False, size_average=True).reduction == "none"


# CTC: (T, N, C) log-probabilities, targets padded or concatenated, per-sequence lengths (the second sequence shorter;
# a repeated label needs a blank between its frames: [1, 2, 2] cannot fit in 3 frames). One shape: jax compiles once.
CTC_TARGETS = np.array([[1, 2, 2], [3, 1, 0]])
CTC = [
    ("padded", (x(6, 2, 4), CTC_TARGETS, [6, 5], [3, 2]), {}),
    ("concatenated-blank-3", (x(6, 2, 4), np.array([1, 2, 2, 0, 1]), (6, 4), (3, 2)), {"blank": 3}),
    ("impossible-zero-infinity", (x(6, 2, 4), CTC_TARGETS, [3, 6], [3, 2]), {"zero_infinity": True}),
    ("empty-target", (x(6, 2, 4), CTC_TARGETS, [5, 3], [2, 0]), {}),
    ("unbatched", (x(6, 4), np.array([2, 1, 1]), 6, 3), {}),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("inputs, kwargs", [c[1:] for c in CTC], ids=[c[0] for c in CTC])
def test_ctc_loss_matches_torch_through_log_softmax_and_on_log_probs(backend, inputs, kwargs, reduction):
    """Values, node names, and gradients both of logits (through log_softmax, how CTC is used) and of the
    log-probabilities themselves (PyTorch's backward there is exp(log_probs) - posterior)."""
    logits, targets, input_lengths, target_lengths = inputs
    as_lengths = (lambda lib, v: lib.tensor(v)) if isinstance(input_lengths, int) else (lambda lib, v: v)
    results = []
    for lib, fn in ((xt, nn.CTCLoss), (torch, torch.nn.CTCLoss)):
        leaf, raw = lib.tensor(logits, requires_grad=True), lib.tensor(logits, requires_grad=True)
        loss_fn = fn(reduction=reduction, **kwargs)
        losses = [loss_fn(lp, lib.tensor(targets), as_lengths(lib, input_lengths), as_lengths(lib, target_lengths))
                  for lp in (leaf.log_softmax(-1), raw)]
        for loss in losses:
            loss.sum().backward()
        results.append((losses[0].grad_fn.name(), losses[0].detach().numpy(), leaf.grad.numpy(), raw.grad.numpy()))
    (name, value, logits_grad, log_probs_grad), (t_name, t_value, t_logits_grad, t_log_probs_grad) = results
    assert name == t_name
    np.testing.assert_allclose(value, t_value, rtol=1e-10)
    np.testing.assert_allclose(logits_grad, t_logits_grad, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(log_probs_grad, t_log_probs_grad, rtol=1e-9, atol=1e-12)


CTC_BAD = [
    ("input-length-over-T", ([7, 5], [3, 2]), {}),
    ("lengths-per-batch", ([6], [3, 2]), {}),
    ("blank-out-of-range", ([6, 5], [3, 2]), {"blank": 4}),
    ("target-longer-than-padding", ([6, 5], [4, 2]), {}),
]


@pytest.mark.parametrize("lengths, kwargs", [c[1:] for c in CTC_BAD], ids=[c[0] for c in CTC_BAD])
def test_ctc_loss_bad_input_errors_match_torch(lengths, kwargs):
    logits = x(6, 2, 4)
    ours = _error(nn.functional.ctc_loss, xt.tensor(logits), xt.tensor(CTC_TARGETS), *lengths, **kwargs)
    theirs = _error(torch.nn.functional.ctc_loss, torch.tensor(logits), torch.tensor(CTC_TARGETS), *lengths, **kwargs)
    assert ours == theirs


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_softmax_gradients_written_in_place_are_the_generic_codes_bits(fn, dtype):
    """numpy's softmax and log_softmax VJPs run in one fresh array written in place (a language model's
    log-probabilities over a large vocabulary: no temporaries); under an arbitrary upstream gradient they give,
    bit for bit, array_api_strict's: the same expression evaluated by the standard's generic code."""
    logits, upstream = x(6, 40).astype(dtype), x(6, 40).astype(dtype)
    grads = []
    for backend in ("numpy", "array_api_strict"):
        with xt.use_backend(backend):
            t = xt.tensor(logits, requires_grad=True)
            getattr(t, fn)(1).backward(xt.tensor(upstream))
            grads.append(np.asarray(t.grad.numpy()))
    np.testing.assert_array_equal(grads[0], grads[1])
    theirs = torch.tensor(logits, requires_grad=True)
    getattr(theirs, fn)(1).backward(torch.tensor(upstream))
    np.testing.assert_allclose(grads[0], theirs.grad.numpy(), rtol=1e-5 if dtype == "float32" else 1e-12,
                               atol=1e-6 if dtype == "float32" else 1e-14)
