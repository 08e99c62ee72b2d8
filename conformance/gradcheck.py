"""Gradient cross-check: every differentiable function of ``xtensor`` and ``xtensor.array_api`` against jax.

    xtensor gradcheck --backend numpy            # every function
    xtensor gradcheck --backend jax --only sum exp array_api.sum

For each function and each sample call (``gradcheck_specs``), xtensor's VJP on the chosen backend
(its own tape: ``autograd.grad``, then ``create_graph=True`` for the second order) is compared with
the oracle: the same forward run on the jax backend and differentiated by ``jax.vjp``/``jax.grad``,
which sees only jax primitives and never xtensor's VJP rules. Complex outputs are compared through
their real and imaginary parts. Inputs are float64.

The exit status is 1 on a mismatch, an error, or a differentiable function without a sample
(listed at the end: add it to ``gradcheck_specs``), else 0.
"""
import argparse
import dataclasses
import inspect
import sys
import zlib

import numpy as np

from . import gradcheck_specs as specs

__all__ = ["Target", "targets", "check", "main", "add_arguments", "run"]

RTOL, ATOL = 1e-7, 1e-9


@dataclasses.dataclass
class Target:
    """One public function: its display name (``sum``, ``array_api.sum``, ``linalg.det``), the callable
    and its sample calls (None: no spec yet; empty: not differentiable, ``reason`` says why)."""

    name: str
    fn: object
    calls: object
    reason: str = ""


def _module_functions(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return {n: getattr(module, n) for n in names
            if inspect.isfunction(getattr(module, n, None))
            or type(getattr(module, n, None)).__name__ in ("function", "cython_function_or_method")}  # compiled core


def targets():
    """Every differentiable function of the two namespaces (and their linalg/fft/special, and nn.functional), with
    its spec."""
    import xtensor
    import xtensor.array_api as xa
    from xtensor._methods import FUNCTIONS
    from xtensor._table import TABLE
    from xtensor._variants import api_functions, torch_functions

    found = {}

    def add(name, fn, entry_kinds=(), table_name=None):
        key = name.split(".", 1)[1] if name.startswith("array_api.") else name
        spec_table = specs.API_SPECS if name.startswith("array_api.") else specs.SPECS
        for candidate in (key, table_name):
            if candidate in specs.NOT_DIFFERENTIABLE:
                found[name] = Target(name, fn, [], "not differentiable: " + specs.NOT_DIFFERENTIABLE[candidate])
                return
            if candidate in specs.NO_ORACLE:
                found[name] = Target(name, fn, [], "checked elsewhere: " + specs.NO_ORACLE[candidate])
                return
        calls = spec_table.get(key)
        if calls is None and name.startswith("array_api.") and entry_kinds:
            calls = specs.SPECS.get(table_name) if "elementwise" in entry_kinds else None
        if calls is None and "unary" in entry_kinds:
            calls = [specs.call(specs.Arr((3, 4), specs.DOMAINS.get(table_name, specs.DOMAINS.get(key, "real"))))]
        if calls is None and "binary" in entry_kinds:
            domain = specs.DOMAINS.get(table_name, specs.DOMAINS.get(key, "real"))
            calls = [specs.call(specs.Arr((3, 4), domain), specs.Arr((4,), domain))]
        found[name] = Target(name, fn, calls)

    for name, entry in TABLE.items():
        differentiable = entry.kind == "composite" or entry.op.differentiable
        kinds = (entry.kind, "elementwise") if entry.kind in ("unary", "binary", "where") else (entry.kind,)
        if entry.function and name in torch_functions and not name.startswith("_"):
            if differentiable:
                add(name, torch_functions[name], kinds, name)
        if entry.api and differentiable:
            add("array_api." + entry.api, api_functions[entry.api], kinds, name)
    for name, fn in FUNCTIONS.items():
        add(name, fn)
    add("array_api.meshgrid", xa.meshgrid)
    for prefix, module in (("linalg.", xtensor.linalg), ("fft.", xtensor.fft), ("special.", xtensor.special),
                           ("nn.functional.", xtensor.nn.functional),
                           ("array_api.linalg.", xa.linalg), ("array_api.fft.", xa.fft),
                           ("array_api.special.", xa.special)):
        for n, fn in _module_functions(module).items():
            add(prefix + n, fn)
    return sorted(found.values(), key=lambda t: t.name)


# ----------------------------------------------------------------------------- samples
def _sample(arg, rng):
    """A numpy value for one spec argument (float64 arrays are the differentiable ones)."""
    if isinstance(arg, specs.Arr):
        shape, domain = arg.shape, arg.domain
        if domain in ("spd", "wellcond"):
            n = shape[-1]
            a = rng.uniform(-1, 1, shape)
            return a @ np.swapaxes(a, -1, -2) + n * np.eye(n) if domain == "spd" else a + 2 * n * np.eye(n)
        low, high = {"real": (-2, 2), "pos": (0.5, 2), "unit": (-0.9, 0.9), "above1": (1.2, 3),
                     "prob": (0.1, 0.9)}[domain]
        return rng.uniform(low, high, shape)
    if isinstance(arg, specs.Ints):
        if arg.distinct:
            return rng.permutation(arg.high)[:int(np.prod(arg.shape))].reshape(arg.shape).astype(np.int64)
        return rng.integers(0, arg.high, arg.shape).astype(np.int64)
    if isinstance(arg, specs.Mask):
        return rng.random(arg.shape) < 0.5
    if isinstance(arg, (list, tuple)):
        return type(arg)(_sample(a, rng) for a in arg)
    return arg


def _float_leaves(obj):
    if isinstance(obj, np.ndarray) and obj.dtype == np.float64:
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [a for o in obj for a in _float_leaves(o)]
    return []


def _substitute(obj, make, leaves):
    """``obj`` with float64 arrays replaced, in order, by the next of ``leaves`` and other arrays by ``make``."""
    if isinstance(obj, np.ndarray):
        return next(leaves) if obj.dtype == np.float64 else make(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_substitute(o, make, leaves) for o in obj)
    return obj


def _leaf_domains(spec_args):
    """The domain of each float leaf, in the order ``_float_leaves`` walks the sampled arguments."""
    if isinstance(spec_args, specs.Arr):
        return [spec_args.domain]
    if isinstance(spec_args, (list, tuple)):
        return [d for a in spec_args for d in _leaf_domains(a)]
    return []


def _as_inputs(tensors, domains):
    """Leaves as the function sees them: a symmetric-positive-definite one through ``(a + a.mT) / 2``, so
    that only the symmetric part of the gradient counts (the convention-free part for cholesky/eigh)."""
    return iter([(t + t.mT) / 2 if d == "spd" else t for t, d in zip(tensors, domains)])


def _outputs(result):
    """The floating outputs of a result (tensor, tuple, named tuple), complex ones split into real/imag."""
    from xtensor import Tensor
    from xtensor.ops.linalg import imag, real
    items = result if isinstance(result, (tuple, list)) else (result,)
    outs = []
    for r in items:
        if isinstance(r, Tensor) and r.dtype.kind == "f":
            outs.append(r)
        elif isinstance(r, Tensor) and r.dtype.kind == "c":
            outs += [real(r), imag(r)]
    return outs


# ----------------------------------------------------------------------------- the check
@dataclasses.dataclass
class Outcome:
    name: str
    sample: str
    status: str  # "ok", "mismatch", "error"
    detail: str = ""


def _oracle(fn, args, kwargs, leaves, domains, cts, vs):
    """Outputs, first-order VJPs and second-order gradients from jax differentiating the jax-backend forward."""
    import jax
    import jax.numpy as jnp
    import xtensor
    from xtensor._dispatch import wrap

    backend = xtensor.get_backend("jax")

    def forward(*arrays):
        tensors = _as_inputs([wrap(a, backend) for a in arrays], domains)
        with xtensor.use_backend("jax"):
            call_args = _substitute(args, lambda a: xtensor.tensor(a, backend="jax"), tensors)
            result = fn(*call_args, **kwargs)
        return tuple(o._value for o in _outputs(result))

    primals = [jnp.asarray(a) for a in leaves]
    outs, vjp = jax.vjp(forward, *primals)
    grads = vjp(tuple(jnp.asarray(c) for c in cts))

    def scalarized(*xs_and_cts):
        xs, c = xs_and_cts[:len(leaves)], xs_and_cts[len(leaves):]
        g = jax.vjp(forward, *xs)[1](tuple(c))
        return sum(jnp.sum(gi * v) for gi, v in zip(g, vs))

    grads2 = jax.grad(scalarized, argnums=tuple(range(len(leaves) + len(cts))))(
        *primals, *(jnp.asarray(c) for c in cts))
    return [np.asarray(o) for o in outs], [np.asarray(g) for g in grads], [np.asarray(g) for g in grads2]


def _ours(fn, args, kwargs, leaves, domains, cts, vs, backend):
    import xtensor

    with xtensor.use_backend(backend):
        tensors = [xtensor.tensor(a, dtype=xtensor.float64, requires_grad=True) for a in leaves]
        call_args = _substitute(args, lambda a: xtensor.tensor(a), _as_inputs(tensors, domains))
        outs = _outputs(fn(*call_args, **kwargs))
        ct_tensors = [xtensor.tensor(c, dtype=xtensor.float64, requires_grad=True) for c in cts]
        grads = xtensor.autograd.grad(outs, tensors, grad_outputs=ct_tensors, create_graph=True, allow_unused=True)
        grads = [g if g is not None else xtensor.zeros_like(t) for g, t in zip(grads, tensors)]
        total = sum((g * xtensor.tensor(v)).sum() for g, v in zip(grads, vs))
        grads2 = xtensor.autograd.grad(total, tensors + ct_tensors, allow_unused=True) if total.requires_grad \
            else [None] * (len(tensors) + len(ct_tensors))
        grads2 = [np.zeros(np.shape(a)) if g is None else g.detach().numpy() for g, a in zip(grads2, leaves + cts)]
        return [o.detach().numpy() for o in outs], [g.detach().numpy() for g in grads], grads2


def _output_shapes(fn, args, kwargs, domains, backend):
    import xtensor

    with xtensor.use_backend(backend):
        leaves = _as_inputs([xtensor.tensor(a) for a in _float_leaves(args)], domains)
        return [tuple(o.shape) for o in _outputs(fn(*_substitute(args, xtensor.tensor, leaves), **kwargs))]


def _describe(args, kwargs):
    def show(a):
        if isinstance(a, np.ndarray):
            return f"{a.dtype.name}{list(a.shape)}"
        if isinstance(a, (list, tuple)) and any(isinstance(b, np.ndarray) for b in a):
            return "[" + ", ".join(show(b) for b in a) + "]"
        return repr(a)
    return ", ".join([show(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])


def check(target, call, backend):
    """One sample call of one function: value, first- and second-order gradients vs jax."""
    rng = np.random.default_rng(zlib.crc32(f"{target.name}/{call!r}".encode()))
    spec_args, kwargs, *pick = call
    fn = target.fn if not pick else lambda *a, **k: target.fn(*a, **k)[pick[0]]
    args = _sample(spec_args, rng)
    sample = _describe(args, kwargs)
    leaves, domains = _float_leaves(args), _leaf_domains(spec_args)
    stage = "xtensor"
    try:
        cts = [rng.standard_normal(shape) for shape in _output_shapes(fn, args, kwargs, domains, backend)]
        vs = [rng.standard_normal(np.shape(a)) for a in leaves]
        outs, grads, grads2 = _ours(fn, args, kwargs, leaves, domains, cts, vs, backend)
        stage = "the jax oracle"
        expected_outs, expected, expected2 = _oracle(fn, args, kwargs, leaves, domains, cts, vs)
    except Exception as e:  # a crash is a finding too: report it, keep checking the others
        return Outcome(target.name, sample, "error", f"{stage}: {type(e).__name__}: {e}".splitlines()[0][:300])
    for what, ours, theirs in (("value", outs, expected_outs), ("first-order VJP", grads, expected),
                               ("second order", grads2, expected2)):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if np.shape(a) != np.shape(b) or not np.allclose(a, b, rtol=RTOL, atol=ATOL):
                err = np.max(np.abs(np.asarray(a) - np.asarray(b))) if np.shape(a) == np.shape(b) else "shape"
                return Outcome(target.name, sample, "mismatch", f"{what} #{i}: max abs error {err}")
    return Outcome(target.name, sample, "ok")


# ----------------------------------------------------------------------------- command
def add_arguments(parser):
    parser.add_argument("--backend", default="numpy", help="the backend whose VJPs are checked (default numpy)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="check just these functions (sum, array_api.sum, linalg.det...)")
    parser.add_argument("--list", action="store_true", help="list the functions and whether each has samples")


def run(args):
    all_targets = targets()
    chosen = [t for t in all_targets if not args.only or t.name in args.only]
    unknown = sorted(set(args.only or ()) - {t.name for t in all_targets})
    if unknown:
        print(f"error: no differentiable function called {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.list:
        for t in chosen:
            status = "no check" if t.calls is None else t.reason if not t.calls else f"{len(t.calls)} sample(s)"
            print(f"{t.name:32s} {status}")
        return 0
    outcomes = [check(t, c, args.backend) for t in chosen if t.calls for c in t.calls]
    missing = [t.name for t in chosen if t.calls is None]
    elsewhere = [t for t in chosen if t.reason.startswith("checked elsewhere")]
    _print_table(outcomes, args.backend)
    bad = [o for o in outcomes if o.status != "ok"]
    print(f"\n{len(outcomes) - len(bad)} of {len(outcomes)} sample calls match jax on backend {args.backend} "
          f"({len({o.name for o in outcomes})} functions)")
    for t in elsewhere:
        print(f"{t.name}: {t.reason}")
    if missing:
        print(f"{len(missing)} differentiable functions have no check (add them to conformance/gradcheck_specs.py):"
              f"\n  " + " ".join(missing))
    return 1 if bad or missing else 0


def _print_table(outcomes, backend):
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        for o in outcomes:
            print(f"{o.status:9s} {o.name}({o.sample}) {o.detail}")
        return
    table = Table(title=f"VJPs vs jax.vjp, first and second order, backend {backend}")
    for column in ("function", "sample", "result", "detail"):
        table.add_column(column, overflow="fold")
    style = {"ok": "green", "mismatch": "red", "error": "red"}
    for o in outcomes:
        table.add_row(o.name, o.sample, f"[{style[o.status]}]{o.status}[/]", o.detail)
    Console(width=160).print(table)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="xtensor gradcheck", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
