"""The Transformer family (encoder/decoder layers and stacks, ``Transformer``) with PyTorch's parameters, masks
and layouts; their ``MultiheadAttention`` is in ``activation.py``, where PyTorch keeps it. PyTorch's fused inference
fast path computes the same values; it is not reproduced."""
import copy
import math

from ... import _creation
from .. import functional as F, init
from .activation import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]


_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation):
    if not isinstance(activation, str):
        return activation
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


class _Layer(Module):
    """What encoder and decoder layers share: ``linear1 -> activation -> linear2`` with dropouts, residual blocks
    normalized after (or, ``norm_first``, before) each block."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                 bias, kw, attentions, norms):
        super().__init__()
        for name in attentions:
            setattr(self, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                                   **kw))
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        for i in range(1, norms + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for i in range(1, norms + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(activation)

    def _residuals(self, x, blocks):
        """``x`` through each block with its residual, normalized by ``norm1``, ``norm2``, ... in turn."""
        for i, block in enumerate(blocks, 1):
            norm = getattr(self, f"norm{i}")
            x = x + block(norm(x)) if self.norm_first else norm(x + block(x))
        return x

    def _attention(self, i, attention, x, memory, attn_mask, key_padding_mask, is_causal):
        x = attention(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                      is_causal=is_causal)[0]
        return getattr(self, f"dropout{i}")(x)

    def _ff_block(self, x, dropout):
        return dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_Layer):
    """Self-attention then a feed-forward block, each with a residual and LayerNorm (after, or before with
    ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                         bias, {"device": device, "dtype": dtype}, ("self_attn",), 2)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        return self._residuals(src, (
            lambda x: self._attention(1, self.self_attn, x, x, src_mask, src_key_padding_mask, is_causal),
            lambda x: self._ff_block(x, self.dropout2)))


class TransformerDecoderLayer(_Layer):
    """Self-attention over the target, attention to the encoder's ``memory``, then a feed-forward block, each with a
    residual and LayerNorm (after, or before with ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                         bias, {"device": device, "dtype": dtype}, ("self_attn", "multihead_attn"), 3)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        return self._residuals(tgt, (
            lambda x: self._attention(1, self.self_attn, x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal),
            lambda x: self._attention(2, self.multihead_attn, x, memory, memory_mask, memory_key_padding_mask,
                                      memory_is_causal),
            lambda x: self._ff_block(x, self.dropout3)))


def _clones(layer, num_layers):
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = False  # no nested tensors: the padded path always
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        # PyTorch reads is_causal=None as "is the mask causal?" (a host read) for its fused kernels; here the mask is
        # added as given, so the hint changes no value
        is_causal = bool(is_causal)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn (each attending to ``memory``), then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        tgt_is_causal = bool(tgt_is_causal)  # (as in TransformerEncoder)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder stack over ``src`` and a decoder stack over ``tgt`` attending to the encoder's output, each ending in
    a LayerNorm; matrices initialized Xavier-uniform."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*layer_args, **kw), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*layer_args, **kw), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        if src.ndim == 3 and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """-inf above the diagonal, 0 elsewhere: position i attends to positions up to i."""
        return _creation.full((sz, sz), -math.inf, dtype=dtype, device=device).triu(1)
