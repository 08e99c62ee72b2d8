"""Array-API consumers -- scikit-learn (``array_api_dispatch=True``), SciPy (``SCIPY_ARRAY_API=1``, set in
conftest.py before anything imports scipy) and array-api-extra -- fed xtensor tensors on the numpy and jax backends.

Each result is an xtensor tensor on the backend the input came in on, with the values the consumer gives for plain
NumPy arrays; gradients through the consumer match ``jax.grad`` of the same computation written in jax.numpy.
Where the consumer writes in place into an intermediate that the gradient needs, the backward raises PyTorch's
"modified by an inplace operation" error, as it does with torch tensors; where it leaves the namespace through
NumPy, the conversion raises PyTorch's "Use tensor.detach()" error instead of dropping the graph.
The README's guide lists the functions covered here (install them with ``pip install -e '.[consumers]'``).
"""
import functools
import os
import re
import zlib

import numpy as np
import pytest

import xtensor as xt
import xtensor.array_api as xa

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
sklearn = pytest.importorskip("sklearn")
scipy = pytest.importorskip("scipy")
xpx = pytest.importorskip("array_api_extra")

import jax.scipy.linalg  # noqa: E402
import jax.scipy.special  # noqa: E402
from scipy import fft as sfft, linalg as slinalg, special, stats  # noqa: E402
from scipy.cluster import vq  # noqa: E402
from scipy.signal import windows  # noqa: E402
from sklearn import config_context  # noqa: E402
from sklearn import metrics  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.metrics import pairwise  # noqa: E402
from sklearn.mixture import GaussianMixture  # noqa: E402
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, Normalizer, StandardScaler  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 4))
Y = RNG.normal(size=(5, 4))
LABELS = (X[:, 0] + 0.3 * RNG.normal(size=12) > 0).astype(np.int64)
TARGET = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * RNG.normal(size=12)
V = X[:, 0]
POSITIVE = np.abs(X) + 0.2


@pytest.fixture(params=["numpy", "jax"])
def backend(request):
    """Each backend made the default: what a consumer creates (``xp.zeros(...)``) lands on it too."""
    with xt.use_backend(request.param):
        yield request.param


def test_scipy_runs_in_array_api_mode():
    from scipy._lib._array_api import SCIPY_ARRAY_API
    assert SCIPY_ARRAY_API, "SCIPY_ARRAY_API=1 must be set before scipy is imported (tests/conftest.py)"
    assert os.environ["SCIPY_ARRAY_API"] == "1"


# ----------------------------------------------------------------------------- values
def _sklearn(fn):
    def run(*arrays):
        with config_context(array_api_dispatch=True):
            return fn(*arrays)
    return run


# name -> (consumer function of arrays, its numpy inputs)
VALUES = {
    "sklearn LinearDiscriminantAnalysis.transform": (
        _sklearn(lambda x, y: LinearDiscriminantAnalysis().fit(x, y).transform(x)), (X, LABELS)),
    "sklearn LinearDiscriminantAnalysis.predict_proba": (
        _sklearn(lambda x, y: LinearDiscriminantAnalysis().fit(x, y).predict_proba(x)), (X, LABELS)),
    "sklearn PCA(svd_solver='full')": (_sklearn(lambda x: PCA(2, svd_solver="full").fit_transform(x)), (X,)),
    "sklearn PCA(svd_solver='covariance_eigh')": (
        _sklearn(lambda x: PCA(2, svd_solver="covariance_eigh").fit_transform(x)), (X,)),
    "sklearn Ridge.predict": (_sklearn(lambda x, y: Ridge(alpha=0.5).fit(x, y).predict(x)), (X, TARGET)),
    "sklearn StandardScaler": (_sklearn(lambda x: StandardScaler().fit_transform(x)), (X,)),
    "sklearn MinMaxScaler": (_sklearn(lambda x: MinMaxScaler().fit_transform(x)), (X,)),
    "sklearn MaxAbsScaler": (_sklearn(lambda x: MaxAbsScaler().fit_transform(x)), (X,)),
    "sklearn Normalizer": (_sklearn(lambda x: Normalizer().fit_transform(x)), (X,)),
    "sklearn GaussianMixture.predict_proba": (_sklearn(lambda x: GaussianMixture(
        2, init_params="random_from_data", random_state=0).fit(x).predict_proba(x)), (X,)),
    "sklearn confusion_matrix": (_sklearn(lambda a, b: metrics.confusion_matrix(a, b)), (LABELS, LABELS[::-1])),
    **{f"sklearn {name}": (_sklearn(lambda x, y, f=getattr(pairwise, name): f(x, y)), (X, Y)) for name in (
        "rbf_kernel", "linear_kernel", "polynomial_kernel", "sigmoid_kernel", "laplacian_kernel",
        "euclidean_distances", "cosine_similarity")},
    "sklearn chi2_kernel": (_sklearn(lambda x, y: pairwise.chi2_kernel(x, y)), (POSITIVE, np.abs(Y))),
    "sklearn pairwise_distances(metric='manhattan')": (
        _sklearn(lambda x, y: pairwise.pairwise_distances(x, y, metric="manhattan")), (X, Y)),
    **{f"scipy.special.{name}": (getattr(special, name), (V,)) for name in (
        "logsumexp", "softmax", "log_softmax", "ndtr", "log_ndtr", "expit", "erf", "erfc", "erfcx", "i0", "i0e",
        "i1", "i1e", "sinc")},
    **{f"scipy.special.{name}": (getattr(special, name), (POSITIVE[:, 0],)) for name in (
        "gammaln", "digamma", "entr")},
    "scipy.special.ndtri": (special.ndtri, (np.linspace(0.05, 0.95, 7),)),
    "scipy.special.xlogy": (special.xlogy, (V, POSITIVE[:, 1])),
    "scipy.special.xlog1py": (special.xlog1py, (V, POSITIVE[:, 1])),
    "scipy.special.rel_entr": (special.rel_entr, (POSITIVE[:, 0], POSITIVE[:, 1])),
    "scipy.special.gammainc": (special.gammainc, (POSITIVE[:, 0] + 1, POSITIVE[:, 1])),
    "scipy.special.chdtr": (special.chdtr, (np.full(12, 3.0), POSITIVE[:, 1])),
    "scipy.special.polygamma": (lambda x: special.polygamma(2, x), (POSITIVE[:, 0],)),
    **{f"scipy.stats.{name}": (getattr(stats, name), (X,)) for name in (
        "zscore", "skew", "kurtosis", "sem", "tmean", "tvar")},
    "scipy.stats.moment": (lambda x: stats.moment(x, order=3), (X,)),
    "scipy.stats.trim_mean": (lambda x: stats.trim_mean(x, 0.1), (X,)),
    **{f"scipy.stats.{name}": (getattr(stats, name), (POSITIVE,)) for name in (
        "variation", "gmean", "hmean", "gstd")},
    "scipy.stats.pmean": (lambda x: stats.pmean(x, 2.0), (POSITIVE,)),
    "scipy.stats.entropy": (stats.entropy, (POSITIVE[:, 0],)),
    **{f"scipy.fft.{name}": (getattr(sfft, name), (V,)) for name in ("fft", "rfft", "irfft", "fftshift", "dct")},
    "scipy.cluster.vq.whiten": (vq.whiten, (X,)),
    "scipy.cluster.vq.vq": (lambda x, y: vq.vq(x, y)[1], (X, Y)),
    "scipy.linalg.block_diag": (lambda a, b: slinalg.block_diag(a, b), (X[:2, :2], Y[:3, :3])),
    "array_api_extra.at.set": (lambda x: xpx.at(x, slice(0, 3)).set(5.0, copy=True), (V,)),
    "array_api_extra.at.add": (lambda x: xpx.at(x, slice(0, 3)).add(x[3:6], copy=True), (V,)),
    "array_api_extra.at.multiply": (lambda x: xpx.at(x, 2).multiply(3.0, copy=True), (V,)),
    "array_api_extra.cov": (xpx.cov, (X.T,)),
    "array_api_extra.pad": (lambda x: xpx.pad(x, 2), (X,)),
    "array_api_extra.nunique": (xpx.nunique, (LABELS,)),
    "array_api_extra.one_hot": (lambda y: xpx.one_hot(y, 2), (LABELS,)),
    "array_api_extra.kron": (xpx.kron, (X[:2, :2], Y[:2, :3])),
    "array_api_extra.sinc": (xpx.sinc, (V,)),
    "array_api_extra.create_diagonal": (xpx.create_diagonal, (V,)),
    "array_api_extra.expand_dims": (lambda x: xpx.expand_dims(x, axis=(0, 2)), (V,)),
    "array_api_extra.atleast_nd": (lambda x: xpx.atleast_nd(x, ndim=3), (V,)),
    "array_api_extra.apply_where": (lambda x: xpx.apply_where(x > 0, x, lambda v: v ** 0.5, fill_value=0.0), (V,)),
    "array_api_extra.nan_to_num": (xpx.nan_to_num, (np.array([np.nan, np.inf, -1.0]),)),
    "array_api_extra.partition": (lambda x: xpx.partition(x, 3)[3], (V,)),
    "array_api_extra.isin": (xpx.isin, (LABELS, np.array([1]))),
    "array_api_extra.setdiff1d": (xpx.setdiff1d, (np.arange(6), LABELS)),
    "array_api_extra.union1d": (xpx.union1d, (LABELS, np.array([1, 5]))),
    "array_api_extra.isclose": (xpx.isclose, (V, V + 1e-12)),
}
WINDOWS = {"hann": (8,), "hamming": (8,), "blackman": (8,), "kaiser": (8, 3.0), "gaussian": (8, 2.0),
           "tukey": (8,), "bartlett": (8,), "cosine": (8,)}


def _host(result):
    return np.asarray(result.detach().cpu().tolist() if isinstance(result, xt.Tensor) else result)


def _assert_like_numpy(result, expected, backend):
    items = result if isinstance(result, tuple) else (result,)
    expected_items = expected if isinstance(expected, tuple) else (expected,)
    for r, e in zip(items, expected_items):
        assert isinstance(r, xt.Tensor), f"got {type(r).__name__}, not an xtensor tensor"
        assert r.backend == backend, f"the result came back on {r.backend}"
        np.testing.assert_allclose(_host(r), np.asarray(e), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_consumer_result_matches_numpy_and_stays_on_the_backend(backend, name):
    fn, arrays = VALUES[name]
    _assert_like_numpy(fn(*(xt.tensor(a) for a in arrays)), fn(*arrays), backend)


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_signal_window_is_made_on_the_default_backend(backend, name):
    args = WINDOWS[name]
    _assert_like_numpy(getattr(windows, name)(*args, xp=xa), getattr(windows, name)(*args), backend)


@pytest.mark.parametrize("name", ["accuracy_score", "r2_score", "mean_squared_error", "mean_absolute_error",
                                  "zero_one_loss", "f1_score"])
def test_sklearn_metric_matches_numpy(backend, name):
    """Metrics return Python floats, as scikit-learn's do for every namespace."""
    a, b = (LABELS, LABELS[::-1]) if name in ("accuracy_score", "zero_one_loss", "f1_score") else (TARGET, TARGET[::-1])
    f = getattr(metrics, name)
    with config_context(array_api_dispatch=True):
        assert f(xt.tensor(a), xt.tensor(b)) == pytest.approx(f(a, b), rel=1e-12)


# ----------------------------------------------------------------------------- gradients
def _sqdist(x, y):
    return ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)


def _ridge_predict(x, y, alpha=0.5):
    xm, ym = x.mean(0), y.mean()
    xc = x - xm
    coef = jnp.linalg.solve(xc.T @ xc + alpha * jnp.eye(x.shape[1]), xc.T @ (y - ym))
    return x @ coef + (ym - xm @ coef)


def _moment(x, order):
    return ((x - x.mean(0)) ** order).mean(0)


def _jax_tmean(x):
    return x.mean()


# name -> (consumer function of tensors, the same computation in jax.numpy, numpy inputs)
GRADIENTS = {
    "sklearn rbf_kernel": (_sklearn(lambda x, y: pairwise.rbf_kernel(x, y, gamma=0.3)),
                           lambda x, y: jnp.exp(-0.3 * _sqdist(x, y)), (X, Y)),
    "sklearn euclidean_distances": (_sklearn(pairwise.euclidean_distances),
                                    lambda x, y: jnp.sqrt(_sqdist(x, y)), (X, Y)),
    "sklearn linear_kernel": (_sklearn(pairwise.linear_kernel), lambda x, y: x @ y.T, (X, Y)),
    "sklearn polynomial_kernel": (_sklearn(pairwise.polynomial_kernel),
                                  lambda x, y: (x @ y.T / 4 + 1) ** 3, (X, Y)),
    "sklearn sigmoid_kernel": (_sklearn(pairwise.sigmoid_kernel), lambda x, y: jnp.tanh(x @ y.T / 4 + 1), (X, Y)),
    "sklearn laplacian_kernel": (_sklearn(pairwise.laplacian_kernel),
                                 lambda x, y: jnp.exp(-jnp.abs(x[:, None] - y[None]).sum(-1) / 4), (X, Y)),
    "sklearn Ridge.predict": (_sklearn(lambda x, y: Ridge(alpha=0.5).fit(x, y).predict(x)), _ridge_predict,
                              (X, TARGET)),
    "sklearn MinMaxScaler": (_sklearn(lambda x: MinMaxScaler().fit_transform(x)),
                             lambda x: (x - x.min(0)) / (x.max(0) - x.min(0)), (X,)),
    "sklearn chi2_kernel": (_sklearn(pairwise.chi2_kernel),
                            lambda x, y: jnp.exp(-((x[:, None] - y[None]) ** 2 / (x[:, None] + y[None])).sum(-1)),
                            (POSITIVE, np.abs(Y))),
    "sklearn pairwise_distances(metric='manhattan')": (
        _sklearn(lambda x, y: pairwise.pairwise_distances(x, y, metric="manhattan")),
        lambda x, y: jnp.abs(x[:, None] - y[None]).sum(-1), (X, Y)),
    "sklearn MaxAbsScaler": (_sklearn(lambda x: MaxAbsScaler().fit_transform(x)),
                             lambda x: x / jnp.abs(x).max(0), (X,)),
    **{f"scipy.special.{name}": (getattr(special, name), getattr(jax.scipy.special, name), (V,)) for name in (
        "logsumexp", "softmax", "ndtr", "log_ndtr", "expit", "erf", "erfc", "erfcx", "i0", "i0e", "i1", "i1e")},
    "scipy.special.sinc": (special.sinc, jnp.sinc, (V,)),
    "scipy.special.ndtri": (special.ndtri, jax.scipy.special.ndtri, (np.linspace(0.05, 0.95, 7),)),
    # w.r.t. x only: PyTorch has no gradient w.r.t. the shape parameter either
    "scipy.special.gammainc": (lambda x: special.gammainc(xt.full_like(x, 2.0), x),
                               lambda x: jax.scipy.special.gammainc(2.0, x), (POSITIVE[:, 1],)),
    **{f"scipy.special.{name}": (getattr(special, name), getattr(jax.scipy.special, name), (POSITIVE[:, 0],))
       for name in ("gammaln", "digamma", "entr")},
    "scipy.special.xlogy": (special.xlogy, jax.scipy.special.xlogy, (V, POSITIVE[:, 1])),
    "scipy.special.xlog1py": (special.xlog1py, jax.scipy.special.xlog1py, (V, POSITIVE[:, 1])),
    "scipy.special.rel_entr": (special.rel_entr, jax.scipy.special.rel_entr, (POSITIVE[:, 0], POSITIVE[:, 1])),
    "scipy.special.polygamma": (lambda x: special.polygamma(2, x), lambda x: jax.scipy.special.polygamma(2, x),
                                (POSITIVE[:, 0],)),
    "scipy.stats.moment": (lambda x: stats.moment(x, order=3), lambda x: _moment(x, 3), (X,)),
    "scipy.stats.skew": (stats.skew, lambda x: _moment(x, 3) / _moment(x, 2) ** 1.5, (X,)),
    "scipy.stats.kurtosis": (stats.kurtosis, lambda x: _moment(x, 4) / _moment(x, 2) ** 2 - 3, (X,)),
    "scipy.stats.sem": (stats.sem, lambda x: x.std(0, ddof=1) / jnp.sqrt(x.shape[0]), (X,)),
    "scipy.stats.zscore": (stats.zscore, lambda x: (x - x.mean(0)) / x.std(0), (X,)),
    "scipy.stats.tvar": (stats.tvar, lambda x: x.var(0, ddof=1), (X,)),
    "scipy.stats.trim_mean": (lambda x: stats.trim_mean(x, 0.1), lambda x: jnp.sort(x, 0)[1:-1].mean(0), (X,)),
    "scipy.stats.pmean": (lambda x: stats.pmean(x, 2.0), lambda x: jnp.sqrt((x ** 2).mean(0)), (POSITIVE,)),
    "scipy.stats.tmean": (stats.tmean, _jax_tmean, (X,)),
    "scipy.stats.variation": (stats.variation, lambda x: x.std(0) / x.mean(0), (POSITIVE,)),
    "scipy.stats.gmean": (stats.gmean, lambda x: jnp.exp(jnp.log(x).mean(0)), (POSITIVE,)),
    "scipy.stats.hmean": (stats.hmean, lambda x: x.shape[0] / (1 / x).sum(0), (POSITIVE,)),
    "scipy.stats.gstd": (stats.gstd, lambda x: jnp.exp(jnp.log(x).std(0, ddof=1)), (POSITIVE,)),
    "scipy.stats.entropy": (stats.entropy, lambda p: jax.scipy.special.entr(p / p.sum()).sum(), (POSITIVE[:, 0],)),
    "scipy.fft.rfft": (lambda x: xa.abs(sfft.rfft(x)), lambda x: jnp.abs(jnp.fft.rfft(x)), (V,)),
    "scipy.fft.irfft": (sfft.irfft, jnp.fft.irfft, (V,)),
    "scipy.fft.fft": (lambda x: xa.abs(sfft.fft(x)), lambda x: jnp.abs(jnp.fft.fft(x)), (V,)),
    "scipy.fft.fftshift": (sfft.fftshift, jnp.fft.fftshift, (V,)),
    "scipy.linalg.block_diag": (slinalg.block_diag, jax.scipy.linalg.block_diag, (X[:2, :2], Y[:3, :3])),
    "array_api_extra.at.multiply": (lambda x: xpx.at(x, 2).multiply(3.0, copy=True), lambda x: x.at[2].multiply(3.0),
                                    (V,)),
    "array_api_extra.expand_dims": (lambda x: xpx.expand_dims(x, axis=(0, 2)), lambda x: jnp.expand_dims(x, (0, 2)),
                                    (V,)),
    "array_api_extra.atleast_nd": (lambda x: xpx.atleast_nd(x, ndim=3), lambda x: x[None, None], (V,)),
    "array_api_extra.nan_to_num": (xpx.nan_to_num, jnp.nan_to_num, (V,)),
    "array_api_extra.at.add": (lambda x: xpx.at(x, slice(0, 3)).add(x[3:6], copy=True),
                               lambda x: x.at[0:3].add(x[3:6]), (V,)),
    "array_api_extra.at.set": (lambda x: xpx.at(x, slice(0, 3)).set(x[3:6] * 2, copy=True),
                               lambda x: x.at[0:3].set(x[3:6] * 2), (V,)),
    "array_api_extra.cov": (xpx.cov, jnp.cov, (X.T,)),
    "array_api_extra.pad": (lambda x: xpx.pad(x, 2), lambda x: jnp.pad(x, 2), (X,)),
    "array_api_extra.kron": (xpx.kron, jnp.kron, (X[:2, :2], Y[:2, :3])),
    "array_api_extra.sinc": (xpx.sinc, jnp.sinc, (V,)),
    "array_api_extra.create_diagonal": (xpx.create_diagonal, jnp.diag, (V,)),
    "array_api_extra.apply_where": (
        lambda x: xpx.apply_where(x > 0, x, lambda v: v ** 0.5, fill_value=0.0),
        lambda x: jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0), (V,)),
}


@functools.lru_cache(maxsize=None)
def _jax_gradient_reference(name):
    """jax's value of ``name``'s reference, random weights of its shape, and the gradient of ``(value * weights).sum()``
    -- one jitted program a consumer, shared by the three backends' tests (op by op, jax compiled each primitive)."""
    _, reference, arrays = GRADIENTS[name]
    arrays = [jax.device_put(a) for a in arrays]
    weights = np.random.default_rng(zlib.crc32(name.encode())).standard_normal(jax.eval_shape(reference, *arrays).shape)

    def value_and_weighted_gradient(weights, *arrays):
        value, vjp = jax.vjp(reference, *arrays)
        return value, vjp(weights)
    value, grads = jax.jit(value_and_weighted_gradient)(weights, *arrays)
    return np.asarray(value), weights, [np.asarray(g) for g in grads]


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_through_consumer_matches_jax(backend, name):
    fn, _, arrays = GRADIENTS[name]
    inputs = [xt.tensor(a, dtype=xt.float64, requires_grad=True) for a in arrays]
    result = fn(*inputs)
    expected, weights, expected_grads = _jax_gradient_reference(name)
    _assert_like_numpy(result, expected, backend)
    (result * xt.tensor(weights)).sum().backward()
    for x, g in zip(inputs, expected_grads):
        assert x.grad is not None and x.grad.backend == backend
        np.testing.assert_allclose(_host(x.grad), g, rtol=1e-8, atol=1e-10)


# Consumers that write in place into an intermediate their gradient needs (sklearn's _handle_zeros_in_scale writes
# scale[scale == 0] = 1 into sqrt's output; scipy's log_softmax resets non-finite maxima): with torch tensors the
# backward raises, and with xtensor the same error.
WRITES_INTO_SAVED = {
    "sklearn StandardScaler": _sklearn(lambda x: StandardScaler().fit_transform(x)),
    "sklearn Normalizer": _sklearn(lambda x: Normalizer().fit_transform(x)),
    "sklearn cosine_similarity": _sklearn(lambda x: pairwise.cosine_similarity(x, x[:3])),
    "sklearn PCA(svd_solver='full')": _sklearn(lambda x: PCA(2, svd_solver="full").fit_transform(x)),
    "sklearn LinearDiscriminantAnalysis": _sklearn(
        lambda x: LinearDiscriminantAnalysis().fit(x, (x[:, 0] > 0) * 1).transform(x)),
    "scipy.special.log_softmax": lambda x: special.log_softmax(x[:, 0]),
    "scipy.cluster.vq.whiten": vq.whiten,
}


def _modified_saved_tensor(fn, x):
    """The saved tensor the backward of ``fn(x)`` reports as modified in place: its shape, and which output of
    which op it is."""
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        fn(x).sum().backward()
    return re.search(r"\[\S+ \[([\d, ]*)\]\], which is output (\d+) of (\w+)", str(info.value)).groups()


@pytest.mark.parametrize("name", sorted(WRITES_INTO_SAVED))
def test_backward_through_an_in_place_write_into_saved_values_raises_as_pytorch(backend, name):
    """The same consumer code on torch tensors (array-api-compat's torch namespace) fails at the same tensor."""
    torch = pytest.importorskip("torch")
    fn = WRITES_INTO_SAVED[name]
    ours = _modified_saved_tensor(fn, xt.tensor(X, dtype=xt.float64, requires_grad=True))
    assert ours == _modified_saved_tensor(fn, torch.tensor(X, requires_grad=True))


@pytest.mark.parametrize("leave", [lambda x: sfft.dct(x), lambda x: slinalg.det(x[:3, :3])],
                         ids=["scipy.fft.dct", "scipy.linalg.det"])
def test_consumer_leaving_the_namespace_through_numpy_raises_instead_of_dropping_the_graph(backend, leave):
    """scipy.fft.dct and scipy.linalg compute with NumPy for namespaces they do not know: a tensor that requires
    grad refuses the conversion (PyTorch's error); a detached one goes through."""
    x = xt.tensor(X, dtype=xt.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        leave(x)
    np.testing.assert_allclose(_host(leave(x.detach())), leave(X), rtol=1e-12)
