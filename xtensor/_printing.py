"""PyTorch's tensor ``repr``, ported to NumPy arrays (from ``torch/_tensor_str.py``).

Users compare printed tensors with PyTorch's character for character, so this
follows PyTorch's rules exactly: one shared width per tensor, fixed or
scientific notation chosen from the nonzero finite magnitudes, integral floats
printed as ``1.``, summaries with ``...`` above ``threshold`` elements,
wrapping at ``linewidth`` and the placement of trailing ``key=value`` suffixes.
"""
import dataclasses
import math

import numpy as np

__all__ = ["PrintOptions", "set_printoptions", "get_printoptions", "format_tensor", "dtype_shown"]


@dataclasses.dataclass
class PrintOptions:
    """The options ``set_printoptions`` changes; PyTorch's defaults."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set printing options as ``torch.set_printoptions`` does.

    As in PyTorch, ``sci_mode`` is always assigned, so any call that omits it
    returns to automatic notation; an unknown ``profile`` is ignored.
    """
    if profile in _PROFILES:
        for key, value in _PROFILES[profile].items():
            setattr(_OPTS, key, value)
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(_OPTS, key, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options, as keyword arguments ``set_printoptions`` accepts."""
    return dataclasses.asdict(_OPTS)


def dtype_shown(dtype_name, default_float, is_empty=False):
    """Whether PyTorch's repr prints ``dtype=`` for a tensor of this dtype.

    Dtypes a literal would infer anyway are hidden: the default float, its
    complex partner, int64 and bool. An empty tensor has no literal to infer
    from, so then only the default float is hidden.
    """
    if is_empty:
        return dtype_name != default_float
    default_complex = "complex128" if default_float == "float64" else "complex64"
    return dtype_name not in (default_float, default_complex, "int64", "bool")


class _Formatter:
    """Formats every element of one (real) array to a common width."""

    def __init__(self, values):
        self.floating_dtype = np.issubdtype(values.dtype, np.floating)
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating_dtype:
            if flat.size:
                # The longest decimal is that of the smallest or the largest value.
                self.max_width = max(1, len(str(flat.min())), len(str(flat.max())))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        finite_abs = np.abs(finite)
        finite_min, finite_max = float(finite_abs.min()), float(finite_abs.max())
        self.int_mode = not np.any(finite != np.ceil(finite))
        if _OPTS.sci_mode is None:
            self.sci_mode = bool(finite_max / finite_min > 1000.0 or finite_max > 1.0e8
                                 or finite_min < 1.0e-4)
        else:
            self.sci_mode = _OPTS.sci_mode
        if self.sci_mode:
            spec, extra = f".{_OPTS.precision}e", 0
        elif self.int_mode:
            spec, extra = ".0f", 1  # room for the '.' that marks a float
        else:
            spec, extra = f".{_OPTS.precision}f", 0
        # Per sign, the width of these formats grows with the magnitude (and, for
        # exponents, with its distance from 1), so each sign's extremes bound it.
        for part in (finite[finite > 0], finite[finite < 0]):
            if part.size:
                for value in (part.min(), part.max()):
                    self.max_width = max(self.max_width, len(format(float(value), spec)) + extra)

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _element_str(value, formatter1, formatter2):
    """One element; complex values join their real and imaginary parts."""
    if formatter2 is None:
        return formatter1.format(value)
    real_str = formatter1.format(value.real)
    imag_str = (formatter2.format(value.imag) + "j").lstrip()
    # Handles negative numbers, +0.0 and -0.0.
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector_str(values, indent, summarize, formatter1, formatter2):
    element_length = formatter1.width() + 2  # with the ", " separator
    if formatter2 is not None:
        element_length += formatter2.width() + 1  # the imaginary part and its 'j'
    elements_per_line = max(1, math.floor((_OPTS.linewidth - indent) / element_length))
    edge = _OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = ([_element_str(v, formatter1, formatter2) for v in values[:edge].tolist()] + [" ..."]
                + [_element_str(v, formatter1, formatter2) for v in values[-edge:].tolist()])
    else:
        data = [_element_str(v, formatter1, formatter2) for v in values.tolist()]
    lines = [", ".join(data[i:i + elements_per_line]) for i in range(0, len(data), elements_per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(values, indent, summarize, formatter1, formatter2=None):
    """The nested bracketed body; ``formatter2`` formats imaginary parts."""
    if values.ndim == 0:
        return _element_str(values.item(), formatter1, formatter2)
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, formatter1, formatter2)
    edge = _OPTS.edgeitems
    if summarize and values.shape[0] > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(len(values) - edge, len(values)))
    else:
        rows = range(values.shape[0])
    slices = ["..." if i is None else
              _tensor_str_with_formatter(values[i], indent + 1, summarize, formatter1, formatter2)
              for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(values):
    """The elements a summary shows, so that only they set the width."""
    edge = _OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate((values[:edge], values[-edge:]))
        return values
    if not edge:
        return np.empty((0,) * values.ndim, values.dtype)
    if values.shape[0] > 2 * edge:
        rows = list(range(edge)) + list(range(len(values) - edge, len(values)))
    else:
        rows = range(values.shape[0])
    return np.stack([_summarized_data(values[i]) for i in rows])


def _tensor_str(values, indent):
    summarize = values.size > _OPTS.threshold
    shown = _summarized_data(values) if summarize else values
    if np.iscomplexobj(values):
        return _tensor_str_with_formatter(values, indent, summarize,
                                          _Formatter(shown.real), _Formatter(shown.imag))
    return _tensor_str_with_formatter(values, indent, summarize, _Formatter(shown))


def _add_suffixes(tensor_str, suffixes, indent):
    """Append ``, key=value`` items, starting a new line when one would pass linewidth.

    ``suffixes`` holds (text, length) pairs: the length a suffix is laid out as.
    """
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix, suffix_len in suffixes:
        if last_line_len + suffix_len + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            parts.append(", " + suffix)
            last_line_len += suffix_len + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(values, *, dtype_suffix=None, suffixes=(), prefix="tensor("):
    """The repr PyTorch gives a dense tensor holding ``values`` (a NumPy array).

    ``dtype_suffix`` (e.g. ``"xtensor.float64"``) is printed as ``dtype=...``
    when given (see ``dtype_shown``); ``suffixes`` such as
    ``"requires_grad=True"`` follow it in order. ``size=`` is added where
    PyTorch adds it: for empty tensors that are not 1-D, and when
    ``edgeitems`` is 0.
    """
    values = np.asarray(values)
    if values.dtype.name == "bfloat16":  # ml_dtypes' bfloat16 is no np.floating; float32 holds its values exactly
        values = values.astype(np.float32)
    indent = len(prefix)
    head = []
    if values.size == 0:
        if values.ndim != 1:
            head.append(f"size={tuple(values.shape)}")
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            head.append(f"size={tuple(values.shape)}")
        body = _tensor_str(values, indent)
    items = [(s, len(s)) for s in head]
    if dtype_suffix is not None:
        text = f"dtype={dtype_suffix}"
        # Break lines where PyTorch does: its dtype reads "torch.", 2 characters
        # shorter than "xtensor.", so measure it that way.
        items.append((text, len(text.replace("xtensor.", "torch.", 1))))
    items += [(s, len(s)) for s in suffixes]
    return _add_suffixes(prefix + body, items, indent)
