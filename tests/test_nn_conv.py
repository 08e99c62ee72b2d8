"""conv1d/conv2d/conv_transpose through an adapter's native kernel (jax: ``lax.conv_general_dilated``, the op-table entry
``convolution``) against the generic path (windows + einsum) on the same jax tensors and against PyTorch: values
and the gradients of input, weight and bias over stride, padding (ints, 'same', 'valid'), dilation and groups;
second-order gradients (the gradients are native convolutions too) against jax.grad."""
import numpy as np
import pytest

import xtensor as xt
from xtensor.nn import functional as F

torch = pytest.importorskip("torch")
pytest.importorskip("jax")

# (conv, input shape, weight shape, options): every option of both kinds of padding, strides, dilation and groups
GRID = [
    ("conv1d", (2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 2, "dilation": 2, "groups": 2}),
    ("conv1d", (1, 4, 8), (4, 4, 2), {"padding": "same", "dilation": 3}),
    ("conv2d", (2, 4, 7, 6), (6, 2, 3, 2), {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2}),
    ("conv2d", (1, 3, 6, 5), (3, 1, 2, 3), {"padding": "same", "groups": 3}),
    ("conv2d", (2, 2, 8, 7), (4, 2, 3, 3), {"stride": 3, "padding": (0, 2)}),
    ("conv2d", (2, 2, 5, 5), (4, 2, 3, 3), {"padding": "valid", "dilation": 2}),
    # transposed: the input spread apart (lax's lhs_dilation), negative padding, output_padding
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("conv_transpose2d", (1, 4, 4, 3), (4, 3, 3, 2), {"stride": (2, 3), "padding": (3, 0), "dilation": (1, 2)}),
]
IDS = [f"{conv}-{'-'.join(f'{k}{v}' for k, v in options.items()) or 'plain'}" for conv, _, _, options in GRID]


def _inputs(conv, in_shape, w_shape, options):
    """Input, weight and a bias of the output's channel count (a transposed weight is (in, out / groups, ...))."""
    rng = np.random.default_rng(sum(in_shape + w_shape))
    out_channels = w_shape[1] * options.get("groups", 1) if "transpose" in conv else w_shape[0]
    return [rng.standard_normal(in_shape), rng.standard_normal(w_shape), rng.standard_normal(out_channels)]


def _ours(conv, data, options, cotangent):
    """Output and the gradients of input, weight and bias."""
    args = [xt.tensor(a, requires_grad=True) for a in data]
    out = getattr(F, conv)(*args, **options)
    (out * xt.tensor(cotangent)).sum().backward()
    return out, [a.grad.numpy() for a in args]


@pytest.fixture
def generic_jax(monkeypatch):
    """The jax backend with its native convolution switched off: conv runs the generic windows + einsum path."""
    backend = xt.get_backend("jax")
    monkeypatch.setattr(type(backend), "native_conv", None)
    with xt.use_backend("jax"):
        yield


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")  # PyTorch's, on its copy
@pytest.mark.parametrize("conv, in_shape, w_shape, options", GRID, ids=IDS)
def test_native_conv_matches_the_generic_path_and_torch(request, conv, in_shape, w_shape, options):
    data = _inputs(conv, in_shape, w_shape, options)
    t_args = [torch.tensor(a, requires_grad=True) for a in data]
    t_out = getattr(torch.nn.functional, conv)(*t_args, **options)
    cotangent = np.random.default_rng(0).standard_normal(tuple(t_out.shape))
    t_grads = torch.autograd.grad((t_out * torch.tensor(cotangent)).sum(), t_args)
    with xt.use_backend("jax"):
        native, native_grads = _ours(conv, data, options, cotangent)
    assert native.backend == "jax" and native.grad_fn.name() == "ConvolutionBackward0" == t_out.grad_fn.name()
    # the native node reads the input itself, as PyTorch's; the generic one is the last of a composite
    assert native.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    request.getfixturevalue("generic_jax")
    generic, generic_grads = _ours(conv, data, options, cotangent)
    assert generic.backend == "jax" and generic.grad_fn.name() == "ConvolutionBackward0"
    assert generic.grad_fn.next_functions[0][0].name() != "AccumulateGrad"
    np.testing.assert_allclose(native.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(native.detach().numpy(), generic.detach().numpy(), rtol=1e-10, atol=1e-12)
    for ours, plain, theirs in zip(native_grads, generic_grads, t_grads):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours, plain, rtol=1e-10, atol=1e-12)


def test_native_conv_without_bias_and_unbatched_matches_torch():
    data = _inputs("conv2d", (3, 6, 6), (2, 3, 3, 3), {})[:2]
    with xt.use_backend("jax"):
        args = [xt.tensor(a, requires_grad=True) for a in data]
        out = F.conv2d(*args, stride=2, padding=1)
        out.sum().backward()
    t_args = [torch.tensor(a, requires_grad=True) for a in data]
    t_out = torch.nn.functional.conv2d(*t_args, stride=2, padding=1)
    t_out.sum().backward()
    assert out.grad_fn.name() == "SqueezeBackward1" == t_out.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, t in zip(args, t_args):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_native_conv_second_order_gradient_matches_jax():
    import jax
    data = _inputs("conv1d", (1, 2, 5), (3, 2, 2), {})[:2]

    def loss(x, w):
        out = jax.lax.conv_general_dilated(x, w, (2,), [(1, 1)], rhs_dilation=(2,),
                                           dimension_numbers=("NCH", "OIH", "NCH"))
        return (jax.numpy.tanh(out) ** 2).sum()
    expected = jax.grad(lambda x, w: (jax.grad(loss, argnums=1)(x, w) ** 2).sum())(*data)
    with xt.use_backend("jax"):
        x, w = (xt.tensor(a, requires_grad=True) for a in data)
        (gw,) = xt.autograd.grad((F.conv1d(x, w, stride=2, padding=1, dilation=2).tanh() ** 2).sum(), (w,),
                                 create_graph=True)
        (gw * gw).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(expected), rtol=1e-10, atol=1e-12)
