"""pytest plugin (``-p consumer_suites_plugin``): the array-API tests that SciPy, scikit-learn and array-api-extra ship
in their installed packages, run with ``xtensor.array_api`` as one more backend beside array_api_strict.

Nothing installed is edited; each suite's own backend list is extended as it is built:
- SciPy (``SCIPY_ARRAY_API=1``): the ``xp`` fixture of ``scipy/conftest.py`` gets an ``xtensor`` parameter, and
  ``xtensor.array_api`` joins its known backends, so ``skip_xp_backends(np_only=True)`` skips it as any non-NumPy one.
- scikit-learn: ``yield_namespaces`` and ``yield_namespace_device_dtype_combinations`` (read when its test modules are
  imported, so patched when this plugin loads) also yield ``xtensor.array_api``, in float64 and float32 as
  array_api_strict's two entries. Where scikit-learn names array_api_strict itself -- a literal row of a
  ``parametrize`` list (``test_nan_reductions``, ``test_supported_float_types``...) or an estimator check bound to it
  alone (``check_array_api_same_namespace``) -- xtensor gets the same row, or the same check, as a twin.
- array-api-extra: the ``library`` fixture of its ``tests/main/conftest.py`` gets a stand-in for one more member of
  its ``Backend`` enum.
Tensors live on xtensor's default backend: ``XTENSOR_BACKEND=jax`` runs the same tests on jax.

Only tests that run on both xtensor and array_api_strict are kept (the other backends are deselected), paired by the
test and its other parameters. ``XTENSOR_CONSUMERS_SHARE=N`` keeps one pair in N, chosen by a hash of the pair and
``XTENSOR_CONSUMERS_SEED`` (so a seed rotates the subset). ``XTENSOR_CONSUMERS_REPORT=path`` writes each pair's
outcomes there as JSON: ``{pair: {"xtensor": outcome, "array_api_strict": outcome}}``.
"""
import enum
import functools
import hashlib
import json
import os
import re
import sys
import types

import pytest

XTENSOR = "xtensor.array_api"
STRICT = "array_api_strict"
_SHARE = int(os.environ.get("XTENSOR_CONSUMERS_SHARE", "1"))
_SEED = os.environ.get("XTENSOR_CONSUMERS_SEED", "0")
_REPORT = os.environ.get("XTENSOR_CONSUMERS_REPORT")


class XtensorBackend:
    """What array-api-extra's tests read of a ``Backend`` member, for xtensor (its enum cannot take new members)."""

    name = "XTENSOR"
    value = modname = XTENSOR

    def like(self, *others):
        return self in others

    def __repr__(self):
        return "<Backend.XTENSOR: 'xtensor.array_api'>"

    __str__ = __repr__


XTENSOR_BACKEND = XtensorBackend()
_ParameterSet = type(pytest.param())


# ----------------------------------------------------------------------------------- adding the backend
def _patch_sklearn():
    """scikit-learn's test parametrizations, with xtensor after the backends it lists."""
    from sklearn.utils import _array_api

    namespaces, combinations = _array_api.yield_namespaces, _array_api.yield_namespace_device_dtype_combinations

    def yield_namespaces(include_numpy_namespaces=True):
        yield from namespaces(include_numpy_namespaces)
        yield XTENSOR

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        yield from (c for c in combinations(include_numpy_namespaces) if c[0] != XTENSOR)
        yield XTENSOR, None, "float64"
        yield XTENSOR, None, "float32"

    _array_api.yield_namespaces = yield_namespaces
    _array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations


def _rebound(value):
    """``(backend, the value less its backend)`` for a ``parametrize`` value: a name or module of array_api_strict or
    xtensor, or an estimator check bound to one by its ``array_namespace`` (its devices count as the backend's too);
    ``(None, value)`` for any other."""
    if isinstance(value, functools.partial):
        backend = _backend_of(value.keywords.get("array_namespace"))
        rest = {k: v for k, v in value.keywords.items() if k != "array_namespace" and "device" not in k}
        return (backend, (value.func, value.args, rest)) if backend else (None, value)
    backend = _backend_of(value)
    return (backend, None) if backend else (None, value)


def _xtensor_twin(value, name):
    """``value`` (of parameter ``name``) naming xtensor where it names array_api_strict or one of its devices."""
    if "device" in name:
        return None
    if _rebound(value)[0] != STRICT:
        return value
    if isinstance(value, functools.partial):
        return functools.partial(value, array_namespace=XTENSOR, **{k: None for k in value.keywords if "device" in k})
    import xtensor.array_api
    return XTENSOR if isinstance(value, str) else xtensor.array_api


def _with_xtensor_rows(argnames, argvalues):
    """The rows of a ``parametrize`` mark, each that names array_api_strict followed by its twin naming xtensor (on
    its default device) unless xtensor has that row already; None when no twin was added."""
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else list(argnames)

    def values_of(row):
        return row.values if isinstance(row, _ParameterSet) else row if len(names) > 1 else (row,)

    def rebound(row):
        named = [_rebound(v) for v, name in zip(values_of(row), names) if "device" not in name]
        backends = {backend for backend, _ in named if backend}
        return (backends.pop() if len(backends) == 1 else None), _shown([rest for _, rest in named])

    have = {rest for backend, rest in map(rebound, argvalues) if backend == "xtensor"}
    rows = []
    for row in argvalues:
        rows.append(row)
        backend, rest = rebound(row)
        if backend != STRICT or rest in have:
            continue
        twin = tuple(_xtensor_twin(v, name) for v, name in zip(values_of(row), names))
        if isinstance(row, _ParameterSet):
            rows.append(pytest.param(*twin, marks=row.marks, id=None if row.id is None else f"{row.id}-xtensor"))
        else:
            rows.append(twin if len(names) > 1 else twin[0])
    return rows if len(rows) > len(argvalues) else None


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    """scikit-learn's ``parametrize`` rows that name array_api_strict get their xtensor twins, before pytest reads the
    marks (a mark with a list of ``ids`` excepted)."""
    if not getattr(metafunc.module, "__name__", "").startswith("sklearn."):
        return
    markers = metafunc.definition.own_markers
    for i, mark in enumerate(markers):
        if mark.name != "parametrize" or len(mark.args) < 2 or isinstance(mark.kwargs.get("ids"), (list, tuple)):
            continue
        argvalues = list(mark.args[1])  # a generator reads once: pytest reads this list instead
        rows = _with_xtensor_rows(mark.args[0], argvalues) or argvalues
        markers[i] = pytest.mark.parametrize(mark.args[0], rows, *mark.args[2:], **mark.kwargs).mark


if any("sklearn" in arg for arg in sys.argv):  # before sklearn's conftest and test modules import these
    _patch_sklearn()


def _with_more_params(module, name, params):
    """Replace fixture ``name`` of conftest ``module`` by the same fixture with ``params`` appended."""
    fixture = getattr(module, name)
    marker = fixture._fixture_function_marker
    setattr(module, name, pytest.fixture(fixture._get_wrapped_function(), scope=marker.scope, autouse=marker.autouse,
                                         params=[*marker.params, *params], name=marker.name))


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin, plugin_name, manager):
    """Extend a suite's backend fixture when its conftest registers, before pytest reads its fixtures."""
    path = getattr(plugin, "__file__", None) or ""
    if path.endswith(os.path.join("scipy", "conftest.py")):
        import xtensor.array_api
        plugin.xp_known_backends.add(XTENSOR)
        _with_more_params(plugin, "xp", [pytest.param(xtensor.array_api, id="xtensor",
                                                      marks=pytest.mark.array_api_backends)])
    elif path.endswith(os.path.join("array_api_extra", "tests", "main", "conftest.py")):
        _with_more_params(plugin, "library", [pytest.param(XTENSOR_BACKEND, id="xtensor")])


# ----------------------------------------------------------------------------------- pairing and selection
def _backend_of(value):
    """'xtensor', 'array_api_strict' or None for a parameter value: a module, a name, an array-api-extra Backend."""
    if value is XTENSOR_BACKEND:
        return "xtensor"
    name = value if isinstance(value, str) else value.__name__ if isinstance(value, types.ModuleType) else \
        value.value if isinstance(value, enum.Enum) else None
    return {XTENSOR: "xtensor", STRICT: STRICT}.get(name)


def _shown(value):
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def _without_backend(params):
    """``(backend, the other parameters as text)`` of ``name -> value`` pairs; devices are the backend's too.
    scikit-learn's estimator checks bind the namespace inside a ``functools.partial``: its keywords count."""
    backend, rest = None, []
    for name, value in sorted(params.items()):
        if isinstance(value, functools.partial):
            which, inner = _without_backend(value.keywords)
            backend = which or backend
            rest.append(f"{name}={value.func.__name__}({inner})")
            continue
        which = _backend_of(value)
        if which is not None:
            backend = which
        elif "device" not in name:
            rest.append(f"{name}={value if isinstance(value, str) else _shown(value)}")
    return backend, ", ".join(rest)


def pair_of(item):
    """``(backend, pair key)`` of a collected test: the key names the test (module, class, function) and its
    parameters other than the backend and device, so the xtensor and array_api_strict runs of one check share it."""
    backend, rest = _without_backend(getattr(getattr(item, "callspec", None), "params", {}))
    module = getattr(getattr(item, "module", None), "__name__", "")
    return backend, f"{module}::{item.nodeid.split('::', 1)[-1].split('[')[0]}[{rest}]"


def _kept(key):
    return _SHARE <= 1 or int(hashlib.sha1(f"{_SEED}:{key}".encode()).hexdigest(), 16) % _SHARE == 0


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        backend, key = pair_of(item)
        (kept if backend is not None and _kept(key) else dropped).append(item)
        item.stash[_PAIR] = (backend, key)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


_PAIR = pytest.StashKey()
_outcomes = {}


def pytest_runtest_logreport(report):
    """The worst phase's outcome per test: failed (or error) > xfailed/skipped > passed."""
    item_pair = _pairs_by_nodeid.get(report.nodeid)
    if item_pair is None:
        return
    backend, key = item_pair
    if report.failed:
        outcome = "failed"
    elif hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    elif report.skipped:
        outcome = "skipped"
    else:
        outcome = "passed"
    entry = _outcomes.setdefault(key, {})
    if entry.get(backend) in (None, "passed") or outcome == "failed":
        entry[backend] = outcome


_pairs_by_nodeid = {}


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    for item in session.items:
        _pairs_by_nodeid[item.nodeid] = item.stash[_PAIR]


def pytest_sessionfinish(session):
    if _REPORT:
        with open(_REPORT, "w") as f:
            json.dump(_outcomes, f, indent=0, sort_keys=True)
