"""OpInfo records of the neural-network op-table entries (``xtensor/ops/nn.py``): softmax, log_softmax."""
from opinfo import FLOATS, SampleInput, _rng, add, make, rule_first


def _softmax_samples(info, dtype):
    """Along each dim of a 2-d input, a 3-d input, a 0-d input, and logits far apart (no overflow allowed)."""
    rng = _rng(info.name, dtype)
    m = lambda s: make(rng, s, dtype)  # noqa: E731
    spread = make(rng, (2, 5), dtype) * 300
    return [SampleInput((m((3, 4)), 1), desc="dim1"), SampleInput((m((3, 4)), 0), desc="dim0"),
            SampleInput((m((2, 3, 4)), -1), desc="3d"), SampleInput((m(()), 0), desc="0d"),
            SampleInput((spread, 1), desc="extreme"), SampleInput((m((3, 4)), 1), desc="T", noncontig=(0,))]


def _log_softmax_ref(m, x, dim):
    z = x - m.max(x, axis=dim if x.ndim else None, keepdims=True)
    return z - m.log(m.sum(m.exp(z), axis=dim if x.ndim else None, keepdims=True))


add(name="softmax", ref=lambda m, x, dim: m.exp(_log_softmax_ref(m, x, dim)), sample_inputs=_softmax_samples,
    dtypes=FLOATS, out_dtype=rule_first, method="softmax", table_name="softmax")
add(name="log_softmax", ref=_log_softmax_ref, sample_inputs=_softmax_samples, dtypes=FLOATS, out_dtype=rule_first,
    method="log_softmax", table_name="log_softmax")
