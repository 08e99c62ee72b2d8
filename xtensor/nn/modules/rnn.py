"""``RNN``, ``LSTM``, ``GRU``: PyTorch's parameters (names, order, init) and equations, unrolled in Python; and
their one-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``, which run the same cell equations. The layers take a
padded batch or a ``nn.utils.rnn.PackedSequence`` (variable lengths), as PyTorch's.

Each layer and direction runs its cell over the time steps with xtensor ops, so gradients (through time, to
any order) and every backend come for free. The input projection of all time steps is one matmul per layer
and direction, cut into steps by one ``unbind`` (``split`` when packed); per step the recurrent part is one
``addmm`` onto the step's projection (the weight transposed and copied once per sequence), its gates one
``chunk`` -- an LSTM's gates and cell update are one fused node instead (``_LSTM_CELL``). That is the path of a
packed sequence. Over a padded batch each layer and direction is one node (``_LSTM_LAYER``, PyTorch's CPU LSTM node;
``_GRU_LAYER``, ``_RNN_LAYERS``, xtensor's own), whose forward and backpropagation through time loop on backend arrays,
with no Tensor or node per step; on numpy the LSTM's runs its own kernels (``_lstm_numpy_fwd``, ``_lstm_numpy_vjp``: a
few ufunc calls per step into memory allocated once per sequence).
"""
import functools
import math

import numpy as np

from ... import _creation
from ..._autocast import LOWER_PRECISION, state as _autocast_state
from ..._backend import is_traced
from ..._dispatch import Op, _unify, apply
from ..._ns import raw_ns
from .. import functional as F, init
from ..functional._linear import addmm
from ..utils.rnn import PackedSequence
from ...ops._composite import _fn
from .linear import empty_parameter
from .module import Module

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]



class _RNNBase(Module):
    gates = 1  # gate blocks stacked in each weight: RNN 1, GRU 3 (r, z, n), LSTM 4 (i, f, g, o)
    states = 1  # hidden states per layer: 1 (h), LSTM 2 (h, c)
    name = "RNN"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and self.name != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        self._flat_weights_names, self._all_weights = [], []  # torch's names (its pickles need both)
        directions = 2 if bidirectional else 1
        output_size = proj_size or hidden_size  # an LSTM's h is projected to proj_size by weight_hr
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else output_size * directions
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (self.gates * hidden_size, layer_input)),
                          ("weight_hh", (self.gates * hidden_size, output_size))]
                if bias:
                    shapes += [("bias_ih", (self.gates * hidden_size,)), ("bias_hh", (self.gates * hidden_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for kind, shape in shapes:
                    setattr(self, kind + suffix, empty_parameter(*shape, device=device, dtype=dtype))
                self._all_weights.append([kind + suffix for kind, _ in shapes])
                self._flat_weights_names.extend(self._all_weights[-1])
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def __getstate__(self):
        """torch's pickled RNNs carry ``_flat_weights`` (the parameters in ``_flat_weights_names`` order) and ``mode``,
        which torch reads back; xtensor reads the parameters by name, so they exist only in the pickle."""
        state = super().__getstate__()
        state["_flat_weights"] = [getattr(self, name) for name in self._flat_weights_names]
        state["mode"] = f"RNN_{self.nonlinearity.upper()}" if self.name == "RNN" else self.name  # torch's kernel name
        return state

    def __setstate__(self, state):
        state = dict(state)
        state.pop("_flat_weights", None)
        state.pop("_flat_weight_refs", None)
        state.pop("mode", None)
        super().__setstate__(state)

    def flatten_parameters(self):
        """PyTorch packs the weights into one cuDNN buffer here; xtensor has no such buffer, so nothing to do."""

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ checks
    def _prepare(self, input, hx):
        """``input`` as (time, batch, features) and ``hx`` as a tuple of (layers*directions, batch, hidden)
        states (zeros when not given), with PyTorch's checks; also whether the input was unbatched."""
        if input.ndim not in (2, 3):
            raise ValueError(f"{self.name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        unbatched = input.ndim == 2
        weight = self.weight_ih_l0
        if input.dtype is not weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        if unbatched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if not input.shape[0]:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        states = self.states
        layers = self.num_layers * (2 if self.bidirectional else 1)
        sizes = (self.proj_size or self.hidden_size, self.hidden_size)[:states]  # h, and an LSTM's c
        if hx is None:
            return input, _zero_states(input, layers, input.shape[1], sizes), unbatched
        hx = hx if states > 1 else (hx,)
        if len(hx) != states:
            raise RuntimeError(f"{self.name}: expected hx to be a tuple of {states} tensors, got {len(hx)}")
        want = 2 if unbatched else 3
        if any(h.ndim != want for h in hx):
            kind = "unbatched 2-D" if unbatched else "batched 3-D"
            got = f"{hx[0].ndim}-D tensor" if states == 1 else f"({hx[0].ndim}-D, {hx[1].ndim}-D) tensors"
            raise RuntimeError(f"For {kind} input, {'hx' if states == 1 else 'hx and cx'} should also be {want}-D "
                               f"but got {got}")
        if unbatched:
            hx = tuple(h.unsqueeze(1) for h in hx)
        for i, (h, size) in enumerate(zip(hx, sizes)):
            expected = (layers, input.shape[1], size)
            if tuple(h.shape) != expected:
                label = "hidden size" if states == 1 else f"hidden[{i}] size"
                raise RuntimeError(f"Expected {label} {expected}, got {list(h.shape)}")
            if h.dtype is not input.dtype:  # (PyTorch's message from its recurrent product)
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {h.dtype.scalar_name} and "
                                   f"{input.dtype.scalar_name}")
        return input, hx, unbatched

    # ------------------------------------------------------------------ forward
    def forward(self, input, hx=None):
        """Over a padded ``input`` or a ``PackedSequence`` (then the output is one too, each sequence's final
        state is the one at its own last step, and ``hx`` is in the batch's original order, as PyTorch's)."""
        packed = isinstance(input, PackedSequence)
        if packed:
            batch_sizes = [int(n) for n in input.batch_sizes.tolist()]
            seq, hx = self._prepare_packed(input, hx, batch_sizes[0])
            unbatched = False
        else:
            seq, hx, unbatched = self._prepare(input, hx)
            batch_sizes = [seq.shape[1]] * seq.shape[0]
        directions = 2 if self.bidirectional else 1
        finals = [[] for _ in range(self.states)]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                weights = tuple(getattr(self, name + suffix, None) for name in (
                    "weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))
                out, state = self._layer(seq, weights, tuple(h[index] for h in hx), batch_sizes, packed, direction)
                outputs.append(out)
                for final, s in zip(finals, state):
                    final.append(s)
            seq = outputs[0] if directions == 1 else _fn("cat")(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                seq = F.dropout(seq, self.dropout)
        final = tuple(_fn("stack")(f, 0) for f in finals)
        if packed:
            final = tuple(_permuted(f, input.unsorted_indices) for f in final)
            output = PackedSequence(seq, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
        else:
            final = tuple(f.squeeze(1) for f in final) if unbatched else final
            output = seq.squeeze(1) if unbatched else seq.transpose(0, 1) if self.batch_first else seq
        return output, (final if self.states > 1 else final[0])

    def _layer(self, seq, weights, state, batch_sizes, packed, reverse):
        """One layer and direction over ``seq`` (time, batch, features; a packed sequence's data when ``packed``)
        from ``state``: its output sequence and final state. One node (``_layer_op``) over a padded batch; step by
        step over a packed sequence (its batch shrinks over time) and in an autocast region (whose casts the
        step-by-step path's products take) but for the LSTM's node, which PyTorch's CPU autocast runs in lower
        precision (``_autocast.LOWER_PRECISION``: outputs and states in bfloat16, as PyTorch's)."""
        if packed or _autocast_state.active and self._layer_op.name not in LOWER_PRECISION:
            return self._steps(seq, weights, state, batch_sizes, packed, reverse)
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        tensors = (seq, w_ih, w_hh, b_ih, b_hh, *state)
        params = (reverse, _unify(tensors))
        if self.name == "LSTM":  # its projection: one more input where there is one, else its forward's None
            tensors, params = (tensors + (w_hr,), params) if w_hr is not None else (tensors, (None,) + params)
        out, *final = apply(self._layer_op, tensors, params)
        return out, tuple(final[:self.states])

    def _steps(self, seq, weights, state, batch_sizes, packed, reverse):
        """``_layer`` step by step: a node per operation of each step."""
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        # every time step's input projection at once, cut into steps by one node
        projected = F.linear(seq, w_ih, self._input_bias(b_ih, b_hh))
        steps = projected.split(batch_sizes) if packed else projected.unbind(0)
        # the recurrent weight transposed into its own memory once per sequence: OpenBLAS's small products
        # with a transposed right operand take 2.5x as long (16x64 @ 64x256: 14 against 5.6 µs)
        w_hh_t = w_hh.t().contiguous()
        out, state = self._run(steps, state, w_hh_t, self._hidden_bias(b_hh), None if w_hr is None else w_hr.t(),
                               batch_sizes, reverse)
        return (_fn("cat")(out, 0) if packed else _fn("stack")(out, 0)), state

    def _run(self, steps, state, w_hh_t, b_hh, w_hr_t, batch_sizes, reverse):
        """One layer and direction over the time ``steps`` (each step's input projection); at step ``t`` only the
        first ``batch_sizes[t]`` rows (the sequences still running, longest first) update, the others keep their
        state."""
        full = batch_sizes[0] if batch_sizes else 0
        out = [None] * len(batch_sizes)
        for t in _time(len(batch_sizes), reverse):
            size = batch_sizes[t]
            running = state if size == full else tuple(h[:size] for h in state)
            new = self._cell(steps[t], running, w_hh_t, b_hh)
            if w_hr_t is not None:  # proj_size: h = W_hr h
                new = (new[0].matmul(w_hr_t),) + new[1:]
            out[t] = new[0]
            state = new if size == full else tuple(_fn("cat")([n, h[size:]]) for n, h in zip(new, state))
        return out, state

    # The cell's biases: RNN and LSTM only add ``b_hh`` to the input projection, so it joins ``b_ih`` there once
    # (one bias added per sequence, not per step); GRU's multiplies its hidden part by ``r``, so it stays per step.
    def _input_bias(self, b_ih, b_hh):
        return b_ih if b_ih is None else b_ih + b_hh

    def _hidden_bias(self, b_hh):
        return None

    def _prepare_packed(self, input, hx, batch):
        """A ``PackedSequence``'s data and ``hx`` (given in the original batch order) in its sorted order."""
        data = input.data
        weight = self.weight_ih_l0
        if data.dtype is not weight.dtype:
            raise ValueError(f"RNN input dtype ({data.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({data.dtype})")
        if data.ndim != 2 or data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{data.shape[-1]}")
        layers = self.num_layers * (2 if self.bidirectional else 1)
        sizes = (self.proj_size or self.hidden_size, self.hidden_size)[:self.states]
        if hx is None:
            return data, _zero_states(data, layers, batch, sizes)
        hx = hx if self.states > 1 else (hx,)
        for i, (h, size) in enumerate(zip(hx, sizes)):
            if tuple(h.shape) != (layers, batch, size):
                label = "hidden size" if self.states == 1 else f"hidden[{i}] size"
                raise RuntimeError(f"Expected {label} {(layers, batch, size)}, got {list(h.shape)}")
        return data, tuple(_permuted(h, input.sorted_indices) for h in hx)


def _zero_states(like, layers, batch, sizes):
    """Zero initial states of each size in ``sizes`` (``hx``'s layout, indexed by layer and direction): one zeros
    (batch, size) tensor of ``like``'s dtype and backend, shared by every layer, rather than a (layers, batch, size)
    tensor indexed per layer."""
    zeros = {size: like.new_zeros((batch, size)) for size in set(sizes)}
    return tuple([zeros[size]] * layers for size in sizes)


def _time(steps, reverse):
    """The time steps in the order a direction runs them."""
    return range(steps - 1, -1, -1) if reverse else range(steps)


def _permuted(state, indices):
    """A (layers, batch, hidden) state with its batch rows taken in ``indices`` order (as it is for None)."""
    return state if indices is None else state.index_select(1, indices)


class RNN(_RNNBase):
    """Elman RNN: ``h' = act(W_ih x + b_ih + W_hh h + b_hh)`` with ``nonlinearity`` tanh or relu."""

    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if len(args) > 3:  # PyTorch's positional form RNN(input_size, hidden_size, num_layers, nonlinearity, ...)
            nonlinearity, args = args[3], args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity

    @property
    def _layer_op(self):
        return _RNN_LAYERS[self.nonlinearity]

    def _cell(self, projected, state, w_hh_t, b_hh):
        pre = addmm(projected, state[0], w_hh_t)
        return (pre.tanh() if self.nonlinearity == "tanh" else pre.relu(),)


# ------------------------------------------------------------------ the LSTM cell, one node
# PyTorch's CPU LSTM records its cell as ten ops (chunk, three sigmoids, two tanh, three products and a sum); here
# they are one op, as PyTorch's fused cell (``_thnn_fused_lstm_cell``, its node ThnnFusedLstmCellBackward0): from the
# gates' pre-activations (batch, 4 * hidden) and the cell state ``c`` it returns ``h'``, ``c'`` and the activated
# gates ``i, f, g, o`` stacked (4, batch, hidden), its workspace, which the backward reads (each gate contiguous:
# numpy's arithmetic on the column blocks of a (batch, 4 * hidden) array takes twice as long). The forward and the
# backward are the ten ops' own formulas in their order (the sigmoid's ``1 / (1 + exp(-x))`` and ``g * y * (1 - y)``,
# tanh's ``g * (1 - y * y)``, the products' conjugated operands), so values and gradients are the ten ops' to the bit.
def _lstm_cell_fwd(xp, gates, c):
    n = c.shape[1]
    sigmoids = 1 / (1 + xp.exp(-gates))  # (also over the g block: one call for the three sigmoid gates)
    blocks = [sigmoids[:, :n], sigmoids[:, n:2 * n], xp.tanh(gates[:, 2 * n:3 * n]), sigmoids[:, 3 * n:]]
    act = xp.reshape(xp.concat(blocks, axis=0), (4,) + c.shape)  # (numpy's ``stack`` is 3 us of Python more)
    i, f, g, o = act[0, ...], act[1, ...], act[2, ...], act[3, ...]
    c = f * c + i * g
    return o * xp.tanh(c), c, act


def _lstm_cell_vjp(ns, grads, ans, gates, c):
    """The gradients of the gates' pre-activations and of ``c``, from those of ``h'``, ``c'`` and (under
    ``create_graph``, where a gradient's formula read it) of the workspace."""
    gh, gc, gact = grads
    _, c_new, act = ans
    i, f, g, o = (ns.select(act, 0, k) for k in range(4))
    tc = ns.tanh(c_new)
    go = None if gh is None else gh * ns.conj(tc)
    if gh is not None:
        through_h = gh * ns.conj(o) * (1 - tc * tc)
        gc = through_h if gc is None else gc + through_h
    gi, gf, gg, g_c = (None,) * 4 if gc is None else (gc * ns.conj(g), gc * ns.conj(c), gc * ns.conj(i),
                                                      gc * ns.conj(f))
    if gact is not None:
        gi, gf, gg, go = (a if b is None else b if a is None else a + b
                          for a, b in zip((gi, gf, gg, go), (ns.select(gact, 0, k) for k in range(4))))
    parts = [None if gi is None else gi * i * (1 - i), None if gf is None else gf * f * (1 - f),
             None if gg is None else gg * (1 - g * g), None if go is None else go * o * (1 - o)]
    return ns.apply("cat", [ns.zeros(c.shape, c) if p is None else p for p in parts], (1,)), g_c


_LSTM_CELL = Op("lstm_cell", _lstm_cell_fwd, vjp_all=_lstm_cell_vjp, nout=3, saves=(1, "result1", "result2"),
                node="ThnnFusedLstmCellBackward0")


# ------------------------------------------------------------------ a whole layer, one node
# A layer and direction over a padded batch is one node: its forward loops over time on backend arrays -- the input
# projection one product, then per step the recurrent product and the cell's formulas -- with no Tensor or node per
# step, the step-by-step path's operations in its order, so values are that path's to the bit (eagerly; see
# ``_tiered`` for jax). Its workspace (outputs after the final states) is what the backward reads besides the output.
# The VJP is backpropagation through time written against ``ns``, as every VJP (raw arrays when no graph is built;
# xtensor ops under ``create_graph``, differentiable again, the saved outputs then being outputs of this node, whose
# gradients it takes in): the cell's formulas with what does not depend on the incoming gradient computed once for all
# steps, so a step back is a few array calls; gradients agree with the step-by-step path's to rounding, not to the
# bit. Each weight's gradient is one product over all the steps (``_layer_grads``). Both loops are ``_scan``s of a step
# function. The cells: LSTM (``_LSTM_LAYER``), GRU (``_GRU_LAYER``), RNN (``_RNN_LAYERS``).
def _projection(xp, x, w_ih, bias):
    """Every step's input projection (time, batch, gates * hidden) in one product, as the step-by-step path's
    ``F.linear`` (``addmm``: the bias added to the product)."""
    steps, batch = x.shape[0], x.shape[1]
    projected = xp.matmul(xp.reshape(x, (steps * batch, x.shape[2])), xp.permute_dims(w_ih, (1, 0)))
    if bias is not None:
        projected = bias + projected
    return xp.reshape(projected, (steps, batch, projected.shape[1]))


def _recurrent_weight(xp, w_hh, backend):
    """``w_hh`` transposed into its own memory, as the step-by-step path's (see ``_RNNBase._steps``)."""
    return backend.contiguous_copy(xp.permute_dims(w_hh, (1, 0)))


def _scan(ns, step, carry, xs, reverse):
    """``step(carry, xs_t) -> (carry, ys_t)`` over the time steps of ``xs`` (a tuple of (time, ...) arrays, None where
    absent) in a direction's order: the final carry and each part of ``ys_t`` stacked over time. A Python loop, or the
    backend's compiled loop (jax's ``lax.scan``) inside a program being traced (``_tiered``, ``xtensor.compile``)."""
    scan = getattr(ns.backend, "scan", None) if ns.raw else None
    if scan is not None and any(is_traced(x) for x in xs if x is not None):
        return scan(step, carry, xs, reverse)
    steps = next(x for x in xs if x is not None).shape[0]
    inputs = list(zip(*[[None] * steps if x is None else [x[t, ...] for t in range(steps)] for x in xs]))
    ys = [None] * steps
    for t in _time(steps, reverse):
        carry, ys[t] = step(carry, inputs[t])
    return carry, tuple(None if y[0] is None else ns.apply("stack", y, (0,)) for y in zip(*ys))


def _in_time_order(ns, first, sequence, reverse):
    """The state each step of a direction started from, in time order: ``first`` for its first step, the ``sequence``
    of states it produced (time, batch, size) for the others."""
    steps = sequence.shape[0]
    parts = [ns.narrow(sequence, 0, 1, steps - 1), ns.unsqueeze(first, 0)] if reverse else \
        [ns.unsqueeze(first, 0), ns.narrow(sequence, 0, 0, steps - 1)]
    return ns.apply("cat", parts, (0,))


def _layer_grads(ns, x, w_ih, bias, g_in, g_rec, before):
    """The gradients of the input, ``weight_ih``, ``weight_hh``, ``bias_ih`` and ``bias_hh`` (None without ``bias``)
    from those of every step's input projection ``g_in`` and recurrent product ``g_rec`` (time, batch, gates * hidden;
    one array where they are the same) and the states the steps started from, ``before``: one product each."""
    steps, batch, width = g_in.shape
    flat_in = ns.reshape(g_in, (steps * batch, width))
    flat_rec = flat_in if g_rec is g_in else ns.reshape(g_rec, (steps * batch, width))
    inputs = ns.reshape(x, (steps * batch, x.shape[2]))
    g_w_hh = ns.matmul(ns.mT(flat_rec), ns.reshape(before, (steps * batch, -1)))
    g_b_ih = g_b_hh = None
    if bias is not None:
        g_b_ih = ns.sum(flat_in, (0,))
        g_b_hh = g_b_ih if flat_rec is flat_in else ns.sum(flat_rec, (0,))
    return ns.reshape(ns.matmul(flat_in, w_ih), x.shape), ns.matmul(ns.mT(flat_in), inputs), g_w_hh, g_b_ih, g_b_hh


def _leaves(value):
    """The arrays (and Nones) of nested tuples and lists of them, in order."""
    return [leaf for v in value for leaf in _leaves(v)] if type(value) in (tuple, list) else [value]


def _tiered(fn):
    """``fn(namespace, *arrays, reverse, backend)`` (the layer's forward or VJP) as the op runs it: on a backend that
    compiles (jax), from the second call with the same shapes on, one cached program -- its time loop one
    ``lax.scan`` (``_scan``), so it is traced once whatever the length: ~1 s to compile, then 0.4 ms against 25 ms
    for jax's dispatch of every array call of 20 steps (16 x 64, forward); a one-off call is not worth compiling.
    As it is elsewhere, on Tensors (under ``create_graph``) and inside a program being traced."""
    programs, seen = {}, set()

    def run(namespace, *args):
        *arrays, reverse, backend = args
        jit = getattr(backend, "jit", None)
        if jit is None or not getattr(namespace, "raw", True):
            return fn(namespace, *args)
        leaves = _leaves(tuple(arrays))
        if any(is_traced(leaf) for leaf in leaves):
            return fn(namespace, *args)
        key = (reverse, tuple(None if leaf is None else (leaf.shape, str(leaf.dtype)) for leaf in leaves))
        if key not in seen:
            seen.add(key)
            return fn(namespace, *args)
        program = programs.get((backend, reverse))
        if program is None:
            program = programs[backend, reverse] = jit(lambda *arrays: fn(namespace, *arrays, reverse, backend))
        return program(*arrays)
    return run


# The LSTM: PyTorch's CPU LSTM records one node per layer and direction, MkldnnRnnLayerBackward0 over (input,
# weight_ih, weight_hh, bias_ih, bias_hh, hx, cx) (for float32 without projection; it records the step-by-step ops
# otherwise); here too, for every dtype, with a projection as one more input (``weight_hr``). Its workspace: each
# step's activated gates (time, 4, batch, hidden) and cell state (time, batch, hidden). Its VJP is
# ``_lstm_cell_vjp``'s formulas with their products regrouped.
def _lstm_layer_fwd(xp, x, w_ih, w_hh, b_ih, b_hh, h, c, w_hr, reverse, backend):
    if w_hr is None and _numpy_kernel(x):
        return _lstm_numpy_fwd(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse)
    projected = _projection(xp, x, w_ih, None if b_ih is None else b_ih + b_hh)
    w_hh_t = _recurrent_weight(xp, w_hh, backend)
    w_hr_t = None if w_hr is None else xp.permute_dims(w_hr, (1, 0))

    def step(state, inputs):
        (h, c), (projected,) = state, inputs
        h, c, gates = _lstm_cell_fwd(xp, projected + xp.matmul(h, w_hh_t), c)
        if w_hr_t is not None:
            h = xp.matmul(h, w_hr_t)
        return (h, c), (h, c, gates)
    (h, c), (out, cells, gates) = _scan(raw_ns(backend), step, (h, c), (projected,), reverse)
    return out, h, c, gates, cells


def _lstm_layer_vjp(ns, grads, ans, x, w_ih, w_hh, b_ih, b_hh, h0, c0, w_hr, reverse, backend):
    """Backpropagation through time: ``_lstm_cell_vjp``'s formulas with what does not depend on the incoming
    gradient computed once for all steps (each pre-activation's gradient is ``g_c`` or ``g_h`` times a factor of the
    forward's values), so that a step is the few array calls that carry the gradient back (~7 instead of ~25)."""
    g_out, g_h, g_c, g_gates, g_cells = grads
    if ns.raw and w_hr is None and g_gates is None and g_cells is None and _numpy_kernel(x):
        return _lstm_numpy_vjp(ns, g_out, g_h, g_c, ans, x, w_ih, w_hh, b_ih, h0, c0, reverse)
    out, _, _, gates, cells = ans
    steps, batch, hidden = cells.shape
    i, f, g, o = (ns.select(gates, 1, k) for k in range(4))
    tanh_c = ns.tanh(cells)
    through_h = o * (1 - tanh_c * tanh_c)  # the gradient of ``c`` per unit of ``h``'s
    # the pre-activations' gradients per unit of c's (i, f, g) and h's (o): each gate's partner in the cell update times
    # its activation's slope (sigmoid: y (1 - y); tanh: 1 - y^2), laid out as a step's pre-activations (time, batch, 4H)
    sigmoid_slopes = gates * (1 - gates)
    slopes = [ns.select(sigmoid_slopes, 1, 0), ns.select(sigmoid_slopes, 1, 1), 1 - g * g,
              ns.select(sigmoid_slopes, 1, 3)]
    partners = [g, _in_time_order(ns, c0, cells, reverse), i, tanh_c]
    factors = ns.reshape(ns.apply("stack", [a * b for a, b in zip(partners, slopes)], (2,)), (steps, batch, 4 * hidden))
    if g_gates is not None:  # (under create_graph: the workspace's own gradient, through the slopes alone)
        g_gates = ns.reshape(ns.apply("stack", [ns.select(g_gates, 1, k) * s for k, s in enumerate(slopes)], (2,)),
                             (steps, batch, 4 * hidden))
    g_h = ns.zeros(h0.shape, h0) if g_h is None else g_h
    g_c = ns.zeros(c0.shape, c0) if g_c is None else g_c

    def step(carry, grads):
        """One step back: the gradients of the state before it, those of its gates' pre-activations and output."""
        (g_h, g_c), (g_out, g_cells, g_gates, through_h, factors, f) = carry, grads
        g_h = g_hidden = g_h if g_out is None else g_out + g_h
        if w_hr is not None:
            g_h = ns.matmul(g_h, w_hr)
        if g_cells is not None:
            g_c = g_c + g_cells
        g_c = g_c + g_h * through_h
        g_pre = ns.apply("cat", [g_c, g_c, g_c, g_h], (1,)) * factors
        if g_gates is not None:
            g_pre = g_pre + g_gates
        return (ns.matmul(g_pre, w_hh), g_c * f), (g_pre, None if w_hr is None else g_hidden)
    (g_h, g_c), (g_pre, g_hidden) = _scan(ns, step, (g_h, g_c), (g_out, g_cells, g_gates, through_h, factors, f),
                                          not reverse)
    g_w_hr = None
    if w_hr is not None:  # each step's ``o tanh(c)`` was projected
        g_w_hr = ns.matmul(ns.mT(ns.reshape(g_hidden, (steps * batch, -1))),
                           ns.reshape(o * tanh_c, (steps * batch, hidden)))
    return _layer_grads(ns, x, w_ih, b_ih, g_pre, g_pre, _in_time_order(ns, h0, out, reverse)) + (g_h, g_c, g_w_hr)


# The LSTM layer on numpy (float arrays, no projection): the same formulas as a few ufunc calls per step, each writing
# into memory allocated once per sequence (``out=``), as numpy's ~0.5-1 µs per call (on 1-4K elements) is most of a
# step's time. Forward values are the generic forward's to the bit: sigmoid(a) = 1 / (1 + exp(-a)) takes ``-a`` from
# the i, f, o columns of the recurrent weight and of the input projection's weight and bias negated once per sequence
# (negation is exact, so ``(-p) + h (-W)`` is ``-(p + h W)`` to the bit), so each step is its product and sum, one
# ``exp`` over all four gates, ``1 + e``, ``1 / .``, the g gate's ``tanh`` over its unnegated columns, and the cell
# update's five calls. The VJP's factors (``_lstm_layer_vjp``'s) are laid out as the workspace (time, gate, batch,
# hidden), so a step back computes its pre-activations' gradients gate by gate in one reused buffer (two calls) and
# copies them into the recurrent product's rows (one), besides its product and four calls for the states' gradients.
# The loops call the ufuncs as locals with ``out`` positional and take each gate as ``act[k]`` (unpacking an array
# iterates it, ~0.7 µs a step): ~0.1 µs a call, ~8% of the forward.
_NUMPY_FLOATS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _numpy_kernel(x):
    """Whether a layer over ``x`` runs the numpy kernels (a float numpy array)."""
    return type(x) is np.ndarray and x.dtype in _NUMPY_FLOATS


def _product(dtype):
    """The recurrent product's function: ``np.dot`` where BLAS computes it (float32, float64), the same ``gemm`` call
    as ``np.matmul``'s with ~0.7 µs less of dispatch per step; ``np.matmul`` elsewhere (numpy's own float16 loops
    differ between the two)."""
    return np.dot if dtype in _BLAS_FLOATS else np.matmul


_BLAS_FLOATS = frozenset(np.dtype(t) for t in (np.float32, np.float64))


def _lstm_numpy_fwd(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse):
    steps, batch, hidden = x.shape[0], x.shape[1], c.shape[1]
    dtype = x.dtype
    signs = np.repeat(np.array([-1, -1, 1, -1], dtype), hidden)  # the sigmoid gates' columns negated
    w_ih = w_ih * signs[:, None]
    projected = _projection(np, x, w_ih, None if b_ih is None else (b_ih + b_hh) * signs)
    w_hh_t = np.empty((w_hh.shape[1], 4 * hidden), dtype)  # transposed into its own memory (``_recurrent_weight``)
    np.multiply(w_hh.T, signs, out=w_hh_t)
    gates = np.empty((steps, 4, batch, hidden), dtype)
    out, cells = np.empty((steps, batch, hidden), dtype), np.empty((steps, batch, hidden), dtype)
    pre = np.empty((batch, 4 * hidden), dtype)
    pre_by_gate = pre.reshape(batch, 4, hidden).transpose(1, 0, 2)
    pre_g, scratch = pre_by_gate[2], np.empty((batch, hidden), dtype)
    one = np.ones((), dtype)  # (a Python 1 costs each call ~0.4 µs of conversion: same value, same bits)
    matmul, add, multiply, divide, exp, tanh = _product(dtype), np.add, np.multiply, np.divide, np.exp, np.tanh
    for t in _time(steps, reverse):
        act = gates[t]
        matmul(h, w_hh_t, pre)
        add(projected[t], pre, pre)
        exp(pre_by_gate, act)
        add(act, one, act)
        divide(one, act, act)
        g = act[2]
        tanh(pre_g, g)
        h, c_before, c = out[t], c, cells[t]
        multiply(act[1], c_before, c)
        multiply(act[0], g, scratch)
        add(c, scratch, c)
        tanh(c, scratch)
        multiply(act[3], scratch, h)
    return out, h.copy(), c.copy(), gates, cells


def _lstm_numpy_vjp(ns, g_out, g_h, g_c, ans, x, w_ih, w_hh, b_ih, h0, c0, reverse):
    out, _, _, gates, cells = ans
    steps, batch, hidden = cells.shape
    dtype = cells.dtype
    tanh_c = np.tanh(cells)
    through_h = np.multiply(tanh_c, tanh_c)
    np.subtract(1, through_h, out=through_h)
    np.multiply(gates[:, 3], through_h, out=through_h)
    factors = np.subtract(1, gates)
    np.multiply(gates, factors, out=factors)  # the sigmoids' slopes (and the g gate's, next)
    slope_g = factors[:, 2]
    np.multiply(gates[:, 2], gates[:, 2], out=slope_g)
    np.subtract(1, slope_g, out=slope_g)
    for k, partner in enumerate((gates[:, 2], _in_time_order(ns, c0, cells, reverse), gates[:, 0], tanh_c)):
        np.multiply(partner, factors[:, k], out=factors[:, k])
    f = gates[:, 1]
    g_h = np.zeros((batch, hidden), dtype) if g_h is None else np.array(g_h, dtype, order="C")
    g_c = np.zeros((batch, hidden), dtype) if g_c is None else np.array(g_c, dtype, order="C")
    scratch, step_g_pre = np.empty((batch, hidden), dtype), np.empty((4, batch, hidden), dtype)
    g_pre = np.empty((steps, batch, 4 * hidden), dtype)
    g_pre_by_gate = g_pre.reshape(steps, batch, 4, hidden).transpose(0, 2, 1, 3)
    step_c, step_h, factors_c, factors_h = step_g_pre[:3], step_g_pre[3], factors[:, :3], factors[:, 3]
    matmul, add, multiply, copyto = _product(dtype), np.add, np.multiply, np.copyto
    for t in _time(steps, not reverse):
        if g_out is not None:
            add(g_h, g_out[t], g_h)
        multiply(g_h, through_h[t], scratch)
        add(g_c, scratch, g_c)
        multiply(g_c, factors_c[t], step_c)
        multiply(g_h, factors_h[t], step_h)
        copyto(g_pre_by_gate[t], step_g_pre)
        matmul(g_pre[t], w_hh, g_h)
        multiply(g_c, f[t], g_c)
    return _layer_grads(ns, x, w_ih, b_ih, g_pre, g_pre, _in_time_order(ns, h0, out, reverse)) + (g_h, g_c, None)


_LSTM_LAYER = Op("mkldnn_rnn_layer", _tiered(_lstm_layer_fwd), vjp_all=_tiered(_lstm_layer_vjp), nout=5,
                 saves=(0, 1, 2, 5, 6, 7, "result0", "result3", "result4"))


# The GRU (PyTorch records its step-by-step ops on CPU, and its fused GRU cell only on CUDA: no PyTorch node is a whole
# GRU layer, so this one is xtensor's own, GruLayerBackward, over (input, weight_ih, weight_hh, bias_ih, bias_hh,
# hx)). Its workspace: each step's r, z, n and hidden product's n block ``W_hn h + b_hn`` (time, 4, batch, hidden).
def _gru_layer_fwd(xp, x, w_ih, w_hh, b_ih, b_hh, h, reverse, backend):
    ns = raw_ns(backend)
    projected = _projection(xp, x, w_ih, b_ih)
    w_hh_t = _recurrent_weight(xp, w_hh, backend)
    size = h.shape[-1]
    r_, z_, n_ = slice(0, size), slice(size, 2 * size), slice(2 * size, 3 * size)

    def step(h, inputs):
        (projected,) = inputs
        hidden = xp.matmul(h, w_hh_t) if b_hh is None else b_hh + xp.matmul(h, w_hh_t)
        r = ns.sigmoid(projected[:, r_] + hidden[:, r_])
        z = ns.sigmoid(projected[:, z_] + hidden[:, z_])
        hn = hidden[:, n_]
        n = ns.tanh(projected[:, n_] + r * hn)
        h = (h - n) * z + n
        return h, (h, r, z, n, hn)
    h, (out, *workspace) = _scan(ns, step, h, (projected,), reverse)
    return out, h, xp.stack(workspace, axis=1)


def _gru_layer_vjp(ns, grads, ans, x, w_ih, w_hh, b_ih, b_hh, h0, reverse, backend):
    """Backpropagation through time: per unit of a step's ``g_h`` (the gradient of its ``h'``), the gradients of its
    pre-activations are factors of the forward's values computed once for all steps, so a step back is ~6 array calls.
    The n block of the input projection's gradient is the recurrent product's without the factor ``r``."""
    g_out, g_h, g_work = grads
    out, _, work = ans
    r, z, n, hn = (ns.select(work, 1, k) for k in range(4))
    before = _in_time_order(ns, h0, out, reverse)
    r_slope, z_slope, n_slope = r * (1 - r), z * (1 - z), 1 - n * n
    d_n = (1 - z) * n_slope  # h' = (h - n) z + n, n = tanh(a_n), a_n = x_n + r hn, r = sigmoid(a_r), z = sigmoid(a_z)
    d_r = d_n * hn * r_slope
    factors = ns.apply("cat", [d_r, (before - n) * z_slope, d_n * r], (2,))
    extra = extra_n = None
    if g_work is not None:  # (under create_graph: the workspace's own gradients, through the cell's formulas)
        w_r, w_z, w_n, w_hn = (ns.select(g_work, 1, k) for k in range(4))
        extra_n = w_n * n_slope
        extra = ns.apply("cat", [(extra_n * hn + w_r) * r_slope, w_z * z_slope, extra_n * r + w_hn], (2,))
    g_h = ns.zeros(h0.shape, h0) if g_h is None else g_h

    def step(g_h, grads):
        """One step back: the gradient of the state before it, those of its recurrent product and its ``h'``."""
        g_out, factors, extra, z = grads
        g = g_h if g_out is None else g_out + g_h
        g_rec = ns.apply("cat", [g, g, g], (1,)) * factors
        if extra is not None:
            g_rec = g_rec + extra
        return ns.matmul(g_rec, w_hh) + g * z, (g_rec, g)
    g_h, (g_rec, g_new) = _scan(ns, step, g_h, (g_out, factors, extra, z), not reverse)
    size = h0.shape[-1]
    g_n = g_new * d_n if extra_n is None else g_new * d_n + extra_n
    g_in = ns.apply("cat", [ns.narrow(g_rec, 2, 0, 2 * size), g_n], (2,))
    return _layer_grads(ns, x, w_ih, b_ih, g_in, g_rec, before) + (g_h,)


_GRU_LAYER = Op("gru_layer", _tiered(_gru_layer_fwd), vjp_all=_tiered(_gru_layer_vjp), nout=3,
                saves=(0, 1, 2, 5, "result0", "result2"), node="GruLayerBackward")


# The Elman RNN (PyTorch records its step-by-step ops on CPU: RnnTanhLayerBackward, RnnReluLayerBackward are
# xtensor's own names). No workspace: the activation's slope is read from the output.
def _rnn_layer_fwd(nonlinearity, xp, x, w_ih, w_hh, b_ih, b_hh, h, reverse, backend):
    ns = raw_ns(backend)
    projected = _projection(xp, x, w_ih, None if b_ih is None else b_ih + b_hh)
    w_hh_t = _recurrent_weight(xp, w_hh, backend)
    activation = getattr(ns, nonlinearity)

    def step(h, inputs):
        h = activation(inputs[0] + xp.matmul(h, w_hh_t))
        return h, (h,)
    h, (out,) = _scan(ns, step, h, (projected,), reverse)
    return out, h


def _rnn_layer_vjp(nonlinearity, ns, grads, ans, x, w_ih, w_hh, b_ih, b_hh, h0, reverse, backend):
    """Backpropagation through time, a step back ~3 array calls: the gradient through the activation (tanh: times
    ``1 - h'^2``; relu: where ``h' > 0``, NaN kept, as ``relu``'s VJP), then through the recurrent product."""
    g_out, g_h = grads
    out, _ = ans
    slopes = 1 - out * out if nonlinearity == "tanh" else ~(out <= 0)
    through = (lambda g, slope: g * slope) if nonlinearity == "tanh" else (lambda g, mask: ns.where_zero(mask, g))
    g_h = ns.zeros(h0.shape, h0) if g_h is None else g_h

    def step(g_h, grads):
        g_out, slope = grads
        g_pre = through(g_h if g_out is None else g_out + g_h, slope)
        return ns.matmul(g_pre, w_hh), (g_pre,)
    g_h, (g_pre,) = _scan(ns, step, g_h, (g_out, slopes), not reverse)
    return _layer_grads(ns, x, w_ih, b_ih, g_pre, g_pre, _in_time_order(ns, h0, out, reverse)) + (g_h,)


_RNN_LAYERS = {nonlinearity: Op(f"rnn_{nonlinearity}_layer", _tiered(functools.partial(_rnn_layer_fwd, nonlinearity)),
                                vjp_all=_tiered(functools.partial(_rnn_layer_vjp, nonlinearity)), nout=2,
                                saves=(0, 1, 2, 5, "result0"), node=f"Rnn{nonlinearity.capitalize()}LayerBackward")
               for nonlinearity in ("tanh", "relu")}


class LSTM(_RNNBase):
    """Gates ``i, f, g, o`` (PyTorch's order): ``c' = f c + i g``, ``h' = o tanh(c')``, with ``proj_size``
    projected: ``h' = W_hr (o tanh(c'))``."""

    gates, states, name, _layer_op = 4, 2, "LSTM", _LSTM_LAYER

    def _cell(self, projected, state, w_hh_t, b_hh):
        h, c = state
        h, c, _ = apply(_LSTM_CELL, (addmm(projected, h, w_hh_t), c))
        return h, c


class GRU(_RNNBase):
    """Gates ``r, z, n`` (PyTorch's order): ``n = tanh(W_in x + b_in + r (W_hn h + b_hn))``,
    ``h' = (1 - z) n + z h``, computed as PyTorch's ``(h - n) z + n`` (its ops, its rounding)."""

    gates, name, _layer_op = 3, "GRU", _GRU_LAYER

    def _cell(self, projected, state, w_hh_t, b_hh):
        (h,) = state
        xr, xz, xn = projected.chunk(3, 1)
        hidden = h.matmul(w_hh_t) if b_hh is None else addmm(b_hh, h, w_hh_t)
        hr, hz, hn = hidden.chunk(3, 1)
        r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return ((h - n) * z + n,)

    def _input_bias(self, b_ih, b_hh):
        return b_ih

    def _hidden_bias(self, b_hh):
        return b_hh


class _CellBase(Module):
    """One time step: ``weight_ih``, ``weight_hh`` (and biases) as a one-layer RNN's, the step of ``layer``."""

    layer = None

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = self.layer.gates * hidden_size
        shapes = [("weight_ih", (gates, input_size)), ("weight_hh", (gates, hidden_size)), ("bias_ih", (gates,)),
                  ("bias_hh", (gates,))]
        for name, shape in shapes:
            self.register_parameter(name, empty_parameter(*shape, device=device, dtype=dtype)
                                    if bias or name.startswith("weight") else None)
        _RNNBase.reset_parameters(self)

    def forward(self, input, hx=None):
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        states = self.layer.states
        hx = None if hx is None else hx if states > 1 else (hx,)
        if hx is not None and any(h.ndim not in (1, 2) for h in hx):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx[0].ndim}D instead")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        if hx is None:
            hx = (_creation.zeros(x.shape[0], self.hidden_size, dtype=x.dtype).to(x.backend),) * states
        elif unbatched:
            hx = tuple(h.unsqueeze(0) for h in hx)
        layer = self.layer
        projected = F.linear(x, self.weight_ih, layer._input_bias(self, self.bias_ih, self.bias_hh))
        state = layer._cell(self, projected, hx, self.weight_hh.t(), layer._hidden_bias(self, self.bias_hh))
        state = tuple(h.squeeze(0) for h in state) if unbatched else state
        return state if states > 1 else state[0]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(_CellBase):
    layer = RNN

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)


class LSTMCell(_CellBase):
    layer = LSTM


class GRUCell(_CellBase):
    layer = GRU
