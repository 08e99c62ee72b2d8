"""Attention mechanisms: ``scaled_dot_product_attention``, and ``multi_head_attention_forward`` (PyTorch's functional
multi-head attention, which ``nn.MultiheadAttention`` calls) as a composite of xtensor ops (projections, scaled
scores, masks, softmax, dropout, output projection)."""
import math

from ... import _creation, _dtypes
from ..attention import cpu_kernel_enabled

from ...ops._composite import _fn
from ._dropout import dropout
from ._linear import linear
from ._padding import pad

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    if not cpu_kernel_enabled():
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    length, source = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa:
        repeat = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(repeat, -3), value.repeat_interleave(repeat, -3)
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        attn_mask = _creation.ones(length, source, dtype=_dtypes.bool).to(query.backend).tril()
    if attn_mask is not None:
        if attn_mask.dtype is _dtypes.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights.matmul(value)


def _additive_mask(mask, dtype):
    """A boolean mask (True: not allowed) as -inf/0 to add to the scores; a float mask as it is."""
    if mask is None or mask.dtype is not _dtypes.bool:
        return mask
    return mask.new_zeros(tuple(mask.shape), dtype=dtype).masked_fill(mask, -math.inf)


def _projections(query, key, value, in_proj_weight, in_proj_bias, separate_weights):
    weights = separate_weights if separate_weights is not None else in_proj_weight.chunk(3)
    biases = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
    return [linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases)]


def _heads(x, given, batch_heads, head_dim, name):
    """(S, N, E) as (N * H, S, head_dim), or the ``static_k``/``static_v`` given in that layout."""
    if given is None:
        return x.reshape(x.shape[0], batch_heads, head_dim).transpose(0, 1)
    if given.shape[0] != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {given.shape[0]}")
    if given.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {given.shape[2]}")
    return given


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """``softmax(q k^T / sqrt(head_dim) + masks) v`` over ``num_heads`` heads, projected in and out; (L, N, E) inputs
    (or unbatched (L, E)). Returns the output and, with ``need_weights``, the attention weights."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
                             "query tensor")
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    length, batch, embed = query.shape
    if embed != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed}")
    head_dim = embed // num_heads
    if head_dim * num_heads != embed:
        raise AssertionError(f"embed_dim {embed} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        separate = (q_proj_weight, k_proj_weight, v_proj_weight)
        for name, weight in zip(("q_proj_weight", "k_proj_weight", "v_proj_weight"), separate):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        separate = None
    q, k, v = _projections(query, key, value, in_proj_weight, in_proj_bias, separate)  # (L, N, E), (S, N, E) x 2
    attn_mask = _additive_mask(attn_mask, q.dtype)
    key_padding_mask = _additive_mask(key_padding_mask, q.dtype)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError(f"bias_{'k' if bias_v is None else 'v'} is set but bias_{'v' if bias_v is None else 'k'} "
                             "is None")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError(f"bias cannot be added to static {'key' if static_k is not None else 'value'}.")
        k = _fn("cat")([k, bias_k.expand(1, batch, embed)])
        v = _fn("cat")([v, bias_v.expand(1, batch, embed)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    batch_heads = batch * num_heads
    q = _heads(q, None, batch_heads, head_dim, "q")
    k = _heads(k, static_k, batch_heads, head_dim, "static_k")
    v = _heads(v, static_v, batch_heads, head_dim, "static_v")
    if add_zero_attn:
        k = _fn("cat")([k, k.new_zeros((batch_heads, 1, head_dim))], 1)
        v = _fn("cat")([v, v.new_zeros((batch_heads, 1, head_dim))], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    source = k.shape[1]
    scores = q.matmul(k.transpose(1, 2)) * (1 / math.sqrt(head_dim))  # (N*H, L, S)
    if attn_mask is not None:
        expected = (length, source) if attn_mask.ndim == 2 else (batch_heads, length, source)
        if attn_mask.ndim not in (2, 3):
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
        if tuple(attn_mask.shape) != expected:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is {attn_mask.shape}, but should be "
                               f"{expected}.")
        scores = scores + attn_mask
    if key_padding_mask is not None:
        scores = (scores.reshape(batch, num_heads, length, source) +
                  key_padding_mask.reshape(batch, 1, 1, source)).reshape(batch_heads, length, source)
    weights = scores.softmax(-1)
    if dropout_p > 0.0 and training:
        weights = dropout(weights, dropout_p)
    out = linear(weights.matmul(v).transpose(0, 1).reshape(length, batch, embed), out_proj_weight, out_proj_bias)
    if unbatched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(batch, num_heads, length, source)
    if average_attn_weights:
        weights = weights.mean(1)
    return out, (weights.squeeze(0) if unbatched else weights)
