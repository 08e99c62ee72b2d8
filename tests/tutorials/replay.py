"""Replays a seed tutorial's code cells as a notebook would, with real PyTorch or with xtensor.

A replay runs every cell of one seed in order in one namespace (as the notebook did), with
``import torch`` bound to the library under test (for xtensor: ``import xtensor as torch``), and records
per cell an *outcome*: what it printed, the repr of its last expression (what the notebook displays),
the exception it raised (type and message), the arguments of the plots it drew, and a snapshot of every
tensor / array variable (shape, dtype, requires_grad, grad_fn name, is_leaf, names, values, grad).
Comparing the outcome of each cell under PyTorch and under xtensor is the tutorial test.

Random numbers: a notebook's random draws cannot match between two libraries with two generators, so
the PyTorch replay draws its random *values* from xtensor's seeded host generator (``torch_random_bridge``)
while PyTorch itself still decides their shape, dtype, names and flags; every later value is computed by
PyTorch. The distribution of xtensor's draws is tested separately (tests/test_creation.py).
"""
import ast
import builtins
import contextlib
import io
import math
import re
import sys
import types
import warnings

import numpy as np

SEED = 0  # both replays start from manual_seed(SEED) and np.random.seed(SEED)


# --------------------------------------------------------------------------- outcome of one cell
class Outcome:
    """What one cell did: ``stdout``, ``display`` (repr of the last expression), ``error``, ``plots``,
    ``state`` (name -> snapshot of each tensor/array variable the cell's code mentions)."""

    __slots__ = ("stdout", "display", "error", "plots", "state")

    def __init__(self, stdout="", display=None, error=None, plots=(), state=None):
        self.stdout, self.display, self.error = stdout, display, error
        self.plots, self.state = list(plots), dict(state or {})

    def as_json(self):
        """JSON-able, object addresses dropped (they differ from run to run)."""
        def text(t):
            return None if t is None else _ADDRESS.sub("", t)
        return {"stdout": text(self.stdout), "display": text(self.display),
                "error": self.error and [self.error[0], text(self.error[1])], "plots": self.plots,
                "state": self.state}

    @classmethod
    def from_json(cls, d):
        return cls(d["stdout"], d["display"], d["error"] and tuple(d["error"]), d["plots"], d["state"])


# --------------------------------------------------------------------------- notebook stand-ins
class _PlotRecorder(types.ModuleType):
    """``matplotlib.pyplot`` / ``IPython.display`` stand-in: records the arrays each plot call got."""

    def __init__(self, name, calls):
        super().__init__(name)
        self._calls = calls

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)

        def record(*args, **kwargs):
            if attr in ("plot", "scatter"):
                self._calls.append([attr] + [np.asarray(a, dtype=np.float64).round(4).tolist() for a in args])
        return record


def _import_hook(lib_name, plots):
    """``__import__`` that binds ``torch`` (and ``torch.x``) to ``lib_name`` and stubs plotting."""
    real_import = builtins.__import__
    stubs = {"matplotlib": _PlotRecorder("matplotlib", plots), "IPython": _PlotRecorder("IPython", plots)}
    stubs["matplotlib"].pyplot = _PlotRecorder("matplotlib.pyplot", plots)
    stubs["IPython"].display = _PlotRecorder("IPython.display", plots)

    def hooked(name, globals=None, locals=None, fromlist=(), level=0):
        root = name.split(".")[0]
        if root in stubs:
            return stubs[root]
        if root == "torch" and level == 0:
            return real_import(lib_name + name[len("torch"):], globals, locals, fromlist, level)
        return real_import(name, globals, locals, fromlist, level)
    return hooked


def _strip_magics(code):
    """IPython line magics (``%matplotlib inline``) do nothing outside a notebook."""
    return "\n".join("" if line.lstrip().startswith("%") else line for line in code.split("\n"))


# --------------------------------------------------------------------------- running
def run_cells(cells, lib, snapshot):
    """Run ``cells`` [(key, code)] in order in one namespace with ``torch`` = module ``lib``, reseeding
    ``lib`` before each cell.

    ``snapshot(value)`` turns a namespace value into a JSON-able record, or None to leave it out.
    Returns {key: Outcome}.
    """
    plots = []
    namespace = {"__name__": "__main__",
                 "__builtins__": {**vars(builtins), "__import__": _import_hook(lib.__name__, plots)}}
    outcomes = {}
    for ordinal, (key, code) in enumerate(cells):
        lib.manual_seed(SEED + ordinal)  # each cell's draws depend on the cell only, not on what ran before
        plots.clear()
        stdout = io.StringIO()
        display = error = None
        tree = ast.parse(_strip_magics(code))
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        try:
            with contextlib.redirect_stdout(stdout), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(tree, f"<{key}>", "exec"), namespace)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), f"<{key}>", "eval"), namespace)
                    display = None if value is None else repr(value)
        except Exception as e:  # the cell's own error is part of its outcome
            error = (type(e).__name__, str(e))
        state = {}
        mentioned = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        if last is not None:
            mentioned.update(node.id for node in ast.walk(last) if isinstance(node, ast.Name))
        for name, value in list(namespace.items()):
            if name in mentioned:
                snap = snapshot(value)
                if snap is not None:
                    state[name] = snap
        outcomes[key] = Outcome(stdout.getvalue(), display, error, [list(p) for p in plots], state)
    return outcomes


def _values(arr, limit=64):
    """The values as a list, or for big arrays a summary (sum, |sum|, min, max, first values)."""
    arr = np.asarray(arr)
    if arr.dtype.kind == "c":
        arr = np.stack([arr.real, arr.imag], axis=-1)
    arr = arr.astype(np.float64)
    if arr.size <= limit:
        return arr.tolist()
    flat = arr.reshape(-1)
    return {"sum": float(flat.sum()), "abs_sum": float(np.abs(flat).sum()), "min": float(flat.min()),
            "max": float(flat.max()), "head": flat[:16].tolist()}


def snapshot_with(tensor_type, to_numpy):
    """A ``snapshot`` for ``run_cells``: tensors of ``tensor_type`` (numpy via ``to_numpy``) and ndarrays."""
    def snapshot(value):
        if isinstance(value, np.ndarray):
            return {"kind": "ndarray", "shape": list(value.shape), "dtype": str(value.dtype),
                    "values": _values(value)}
        if not isinstance(value, tensor_type):
            return None
        names = getattr(value, "names", None)
        record = {"kind": "tensor", "shape": list(value.shape), "dtype": str(value.dtype).split(".")[-1],
                  "requires_grad": bool(value.requires_grad), "is_leaf": bool(value.is_leaf),
                  "grad_fn": None if value.grad_fn is None else type(value.grad_fn).__name__,
                  "names": None if names is None or all(n is None for n in names) else list(names),
                  "values": _values(to_numpy(value)), "grad": None}
        if value.is_leaf and value.grad is not None:
            record["grad"] = _values(to_numpy(value.grad))
        return record
    return snapshot


@contextlib.contextmanager
def seeded(lib):
    """Seed ``lib`` and numpy's global generator; restore numpy's state and global defaults after."""
    np_state = np.random.get_state()
    np.random.seed(SEED)
    lib.manual_seed(SEED)
    try:
        yield
    finally:
        np.random.set_state(np_state)
        lib.set_default_dtype(lib.float32)
        lib.set_grad_enabled(True)


# --------------------------------------------------------------------------- PyTorch with xtensor's draws
_RANDOM_FUNCTIONS = ("rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like",
                     "bernoulli", "multinomial")
_RANDOM_METHODS = ("uniform_", "normal_", "random_", "bernoulli_", "exponential_")


@contextlib.contextmanager
def torch_random_bridge(torch, xtensor):
    """Within: PyTorch's random functions return what PyTorch would (shape, dtype, names, flags) holding
    the values xtensor's generator draws for the same call; ``torch.manual_seed`` seeds both."""
    def to_x(obj):
        if isinstance(obj, torch.Tensor):
            return xtensor.from_numpy(obj.detach().numpy().copy())
        if isinstance(obj, torch.dtype):
            return getattr(xtensor, str(obj).split(".")[-1])
        if isinstance(obj, torch.device):
            return str(obj)
        if isinstance(obj, (list, tuple)):
            return type(obj)(to_x(o) for o in obj)
        return obj

    def fill(ref, drawn):
        with torch.no_grad():
            ref.copy_(torch.from_numpy(np.array(drawn.detach().numpy())))
        return ref

    def function(name, real):
        def bridged(*args, **kwargs):
            ref = real(*args, **kwargs)
            kw = {k: to_x(v) for k, v in kwargs.items() if k not in ("requires_grad", "generator", "out")}
            return fill(ref, getattr(xtensor, name)(*to_x(args), **kw))
        return bridged

    def method(name, real):
        def bridged(self, *args, **kwargs):
            drawn = getattr(to_x(self), name)(*to_x(args), **{k: to_x(v) for k, v in kwargs.items()
                                                              if k != "generator"})
            real(self, *args, **kwargs)
            return fill(self, drawn)
        return bridged

    def zeroed(real, sizes_only):
        """Uninitialized memory (``empty``, ``Tensor(2, 3)``) is unspecified; xtensor gives zeros.
        ``sizes_only``: a legacy constructor, uninitialized only when given sizes (not data)."""
        def bridged(*args, **kwargs):
            out = real(*args, **kwargs)
            sizes = args[1:] if sizes_only else args  # after self (methods) or cls (__new__)
            if not sizes_only or all(isinstance(a, int) for a in sizes) or (
                    len(sizes) == 1 and isinstance(sizes[0], torch.Size)):
                with torch.no_grad():
                    out.zero_()
            return out
        return bridged

    patches = [(torch, "manual_seed", lambda real: lambda seed: (xtensor.manual_seed(seed), real(seed))[1])]
    patches += [(torch, n, lambda real, n=n: function(n, real)) for n in _RANDOM_FUNCTIONS]
    patches += [(torch.Tensor, n, lambda real, n=n: method(n, real)) for n in _RANDOM_METHODS]
    patches += [(torch, n, lambda real: zeroed(real, False)) for n in ("empty", "empty_like")]
    patches += [(torch.Tensor, "new_empty", lambda real: zeroed(real, False))]
    patches += [(torch.Tensor, "new", lambda real: zeroed(real, True))]
    patches += [(torch.Tensor, "__new__", lambda real: staticmethod(zeroed(real, True)))]
    saved = [(owner, name, owner.__dict__.get(name), getattr(owner, name)) for owner, name, _ in patches]
    try:
        for (owner, name, make), (_, _, _, real) in zip(patches, saved):
            setattr(owner, name, make(real))
        yield
    finally:
        for owner, name, own, _ in saved:
            if own is None:
                delattr(owner, name)
            else:
                setattr(owner, name, own)


def torch_outcomes(torch, xtensor, cells):
    """The outcomes of ``cells`` under real PyTorch (random values from xtensor's generator)."""
    snapshot = snapshot_with(torch.Tensor, lambda t: t.detach().resolve_conj().numpy())
    with torch_random_bridge(torch, xtensor), seeded(torch), seeded(xtensor):
        torch.set_printoptions(profile="default")
        return run_cells(cells, torch, snapshot)


def xtensor_outcomes(xtensor, cells):
    snapshot = snapshot_with(xtensor.Tensor, lambda t: np.asarray(t.detach()))
    with seeded(xtensor):
        return run_cells(cells, xtensor, snapshot)


# --------------------------------------------------------------------------- comparing
def rewritten(outcome, pattern, replacement):
    """``outcome`` with ``pattern`` replaced in its printed and displayed text (a documented deviation)."""
    def sub(text):
        return None if text is None else re.sub(pattern, replacement, text, flags=re.S)
    return Outcome(sub(outcome.stdout), sub(outcome.display), outcome.error, outcome.plots, outcome.state)


_ADDRESS = re.compile(r" (object )?at 0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"(-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)")


def normalize_torch_text(text):
    """PyTorch's text as xtensor spells it: ``torch.`` -> ``xtensor.``, object addresses dropped."""
    if text is None:
        return None
    return _ADDRESS.sub("", text.replace("torch.", "xtensor."))


def texts_match(expected, actual, rel=1e-4, abs_=1.5e-4):
    """Equal text, except that floating-point numbers may differ by float32 rounding (a last digit)."""
    if expected is None or actual is None:
        return expected == actual
    actual = _ADDRESS.sub("", actual)
    e_parts, a_parts = _NUMBER.split(expected), _NUMBER.split(actual)
    if len(e_parts) != len(a_parts):
        return False
    for i, (e, a) in enumerate(zip(e_parts, a_parts)):
        if e == a:
            continue
        if i % 2 == 0 or not any(c in e + a for c in ".e") or \
                not math.isclose(float(e), float(a), rel_tol=rel, abs_tol=abs_):
            return False  # text, and integers, must match exactly
    return True


def values_match(expected, actual):
    if isinstance(expected, dict) or isinstance(actual, dict):
        if not (isinstance(expected, dict) and isinstance(actual, dict)):
            return False
        scale = max(expected["abs_sum"], 1.0)
        return (math.isclose(expected["sum"], actual["sum"], rel_tol=0, abs_tol=1e-4 * scale)
                and all(values_match(expected[k], actual[k]) for k in ("abs_sum", "min", "max", "head")))
    e, a = np.asarray(expected, dtype=np.float64), np.asarray(actual, dtype=np.float64)
    return e.shape == a.shape and np.allclose(a, e, rtol=1e-4, atol=1e-5, equal_nan=True)


def differences(expected, actual):
    """The ways xtensor's outcome of a cell differs from PyTorch's (empty when they agree)."""
    problems = []
    e_error = expected.error and (expected.error[0], normalize_torch_text(expected.error[1]))
    if e_error != actual.error:
        problems.append(f"error: expected {e_error}, got {actual.error}")
    if not texts_match(normalize_torch_text(expected.stdout), actual.stdout):
        problems.append(f"printed:\n--- torch\n{normalize_torch_text(expected.stdout)}\n--- xtensor\n{actual.stdout}")
    if not texts_match(normalize_torch_text(expected.display), actual.display):
        problems.append(f"displayed:\n--- torch\n{normalize_torch_text(expected.display)}\n--- xtensor\n"
                        f"{actual.display}")
    if len(expected.plots) != len(actual.plots) or not all(
            p[0] == q[0] and all(values_match(x, y) for x, y in zip(p[1:], q[1:]))
            for p, q in zip(expected.plots, actual.plots)):
        problems.append("plots differ")
    for name, e in expected.state.items():
        a = actual.state.get(name)
        if a is None:
            problems.append(f"{name}: missing (torch has a {e['kind']})")
            continue
        for field in ("kind", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "names"):
            if e.get(field) != a.get(field):
                problems.append(f"{name}.{field}: expected {e.get(field)!r}, got {a.get(field)!r}")
        if e["shape"] == a["shape"] and not values_match(e["values"], a["values"]):
            problems.append(f"{name}: values differ")
        if (e.get("grad") is None) != (a.get("grad") is None) or \
                (e.get("grad") is not None and not values_match(e["grad"], a["grad"])):
            problems.append(f"{name}.grad: expected {e.get('grad')}, got {a.get('grad')}")
    return problems
