"""Autocast's op policy (``xtensor.autocast`` / ``xtensor.amp.autocast``): which ops run in the lower
precision and which in float32, as PyTorch's CPU autocast lists them (``aten/src/ATen/autocast_mode.cpp``).

``_dispatch.apply`` asks ``cast_inputs`` about each op while a region is active, and so does the function the
op table generates (``_variants._make_function``), before its signature compares dtypes (``addmm`` of a
bfloat16 activation and a float32 weight); the casts are ordinary ``Tensor.to`` calls, so they join the tape
as PyTorch's ``ToCopyBackward0`` nodes do. Only ops of the op table
are seen: a composite (``mse_loss``, ``cross_entropy``...) is cast where its parts are listed (its ``nll_loss``
runs in float32, its matmuls in the lower precision), not as one op.
The state is thread-local, as PyTorch's.
"""
import threading

from . import _dtypes

__all__ = ["LOWER_PRECISION", "FLOAT32", "state", "cast_inputs"]

# PyTorch's CPU "lower_precision_fp" list, spelled as the op table names them (conv and linear reach these)
LOWER_PRECISION = frozenset({
    "mm", "bmm", "baddbmm", "addmm", "addbmm", "matmul", "mv", "tensordot", "einsum", "vecdot", "linalg_vecdot",
    "inner", "chain_matmul", "linalg_multi_dot", "multi_dot", "convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "linear", "prelu", "scaled_dot_product_attention",
    "mkldnn_rnn_layer",  # (PyTorch's CPU LSTM layer; xtensor's nn.LSTM node bears its name)
})
# PyTorch's CPU "fp32" list, likewise (``_prod``: the op table's name for prod)
FLOAT32 = frozenset({
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "_prod", "quantile", "nanquantile", "stft",
    "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse",
    "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
    "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d", "replication_pad2d",
    "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss", "margin_ranking_loss",
    "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
    "multilabel_margin_loss", "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2",
    "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn",
    "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond", "linalg_matrix_rank", "linalg_solve",
    "linalg_cholesky", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product",
    "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf", "linalg_eigh",
    "linalg_eig", "linalg_qr", "linalg_svd", "linalg_lstsq", "linalg_inv_ex", "linalg_cholesky_ex", "linalg_norm",
    "linalg_vector_norm", "linalg_matrix_norm", "linalg_pinv", "linalg_det", "linalg_slogdet", "svd", "qr",
    "triangular_solve", "eig", "lu_factor", "linalg_lu_factor", "linalg_lu", "linalg_lu_solve",
})


class _State(threading.local):
    """The autocast dtype per device type ("cpu", "cuda"); None where autocast is off. ``active`` is the
    one flag ``_dispatch.apply`` reads."""
    active = False

    def __init__(self):
        self.dtypes = {"cpu": None, "cuda": None}
        self.defaults = {}  # set_autocast_dtype's choice per device type


state = _State()
_holds = {}  # (backend name, dtype) -> whether that backend has the dtype


def _can_hold(backend, dtype):
    key = (backend.name, dtype)
    if key not in _holds:
        try:
            backend.native_dtype(dtype)
            _holds[key] = True
        except TypeError:  # array_api_strict has no bfloat16: autocast leaves its ops alone
            _holds[key] = False
    return _holds[key]


def cast_inputs(name, tensors):
    """``tensors`` as op ``name`` takes them under autocast: float32/16 inputs of a listed op cast to the
    region's dtype (lower-precision list) or to float32 (float32 list); float64 and other ops untouched."""
    to_float32 = name in FLOAT32
    if not to_float32 and name not in LOWER_PRECISION:
        return tensors
    from ._tensor import Tensor
    cast = list(tensors)
    for i, t in enumerate(cast):
        if isinstance(t, Tensor) and t._dtype.is_floating_point and t._dtype is not _dtypes.float64:
            region = state.dtypes.get(t.device.type)
            target = _dtypes.float32 if to_float32 else region
            if region is not None and t._dtype is not target and _can_hold(t._backend, target):
                cast[i] = t.to(target)
    return cast
