"""``nn.utils.rnn``: variable-length sequences for the recurrent layers, as PyTorch's ``torch.nn.utils.rnn``.

A ``PackedSequence`` holds the time steps of a batch of sequences sorted by decreasing length, each step only for
the sequences still running (``batch_sizes[t]`` of them), so ``RNN``/``LSTM``/``GRU`` update only those rows and
each sequence's final state is its own last step. Packing and unpacking are gathers and concatenations of
xtensor ops, so gradients flow through them on every backend.
"""
from collections import namedtuple

from ..._tensor import Tensor
from ... import _creation, _dtypes
from ...ops._composite import _fn

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]



class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """The packed steps (``data``: (sum of lengths, *)), how many sequences each step has (``batch_sizes``, int64),
    and the permutation that sorted the batch by length (``sorted_indices``; ``unsorted_indices`` undoes it)."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequence with ``data`` moved/cast as ``Tensor.to`` does (the indices follow a move only)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, *(None if i is None else i.to(data.device)
                                                     for i in (self.sorted_indices, self.unsorted_indices)))

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=_dtypes.float64)

    def float(self):
        return self.to(dtype=_dtypes.float32)

    def half(self):
        return self.to(dtype=_dtypes.float16)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    return permutation.argsort()


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D "
                               f"{lengths.device} {lengths.dtype} tensor")
        return [int(n) for n in lengths.tolist()]
    return [int(n) for n in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``input`` (T, B, *) (or (B, T, *) with ``batch_first``) of sequences of ``lengths``."""
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        lengths = [lengths[i] for i in order]
        sorted_indices = _creation.tensor(order, dtype=_dtypes.int64).to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    batch = input.shape[1]
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch})")
    if lengths and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if lengths and lengths[0] > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to {lengths[0]}, but got "
                           f"{input.shape[0]}")
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0] if lengths else 0)]
    data = _fn("cat")([input[t, :size] for t, size in enumerate(batch_sizes)])
    return PackedSequence(data, _creation.tensor(batch_sizes, dtype=_dtypes.int64), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch of a ``PackedSequence`` (in the original order) and each sequence's length (int64)."""
    batch_sizes = [int(n) for n in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = batch_sizes[0]
    data = sequence.data
    rows, start = [], 0
    for size in batch_sizes:
        step = data[start:start + size]
        if size < batch:
            step = _fn("cat")([step, step.new_full((batch - size, *data.shape[1:]), padding_value)])
        rows.append(step)
        start += size
    rows += [data.new_full((batch, *data.shape[1:]), padding_value)] * (steps - len(batch_sizes))
    padded = _fn("stack")(rows)
    lengths = [sum(1 for size in batch_sizes if size > b) for b in range(batch)]
    lengths = _creation.tensor(lengths, dtype=_dtypes.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.to(lengths.device)]
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), padded with ``padding_value``."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        fill = s.new_full((longest - s.shape[0], *s.shape[1:]), padding_value)
        padded.append(_fn("cat")([s, fill] if padding_side == "right" else [fill, s]))
    return _fn("stack")(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of ``lengths`` that ``pad_sequence`` padded."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors of shape (L_i, *): ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a ``PackedSequence`` holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
