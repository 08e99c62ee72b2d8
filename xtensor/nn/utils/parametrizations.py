"""``torch.nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as parametrizations
(``nn.utils.parametrize``), with torch's parameter and buffer names (``parametrizations.weight.original0/1``;
``_u``, ``_v``); ``orthogonal`` with its three maps and the dynamic trivialization, as PyTorch's."""
import enum

from ... import (Tensor, allclose, cat, eye, finfo, geqrf, linalg, matrix_exp, no_grad, randn,
                 zeros_like)
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize
from .weight_norm import _norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    """``weight = g * v / ||v||`` from ``original0 = g`` and ``original1 = v``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (norm over every dimension but ``dim``; None: all).
    torch also remaps the hook-based ``weight_norm``'s ``name_g``/``name_v`` keys on ``load_state_dict``; xtensor's
    ``load_state_dict`` has no pre-hooks, so such a checkpoint reports them as unexpected keys."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, ``sigma`` the largest singular value estimated by power iteration on the buffers
    ``_u``, ``_v`` (``n_power_iterations`` steps per forward in training mode, none in eval mode)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim, self.eps = dim % ndim, eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._matrix(weight)
            h, w = weight_mat.shape
            self.register_buffer("_u", F.normalize(weight_mat.new_empty(h).normal_(0, 1), dim=0, eps=eps))
            self.register_buffer("_v", F.normalize(weight_mat.new_empty(w).normal_(0, 1), dim=0, eps=eps))
            self._power_method(weight_mat, 15)

    def _matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u = F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps)
                self._v = F.normalize(weight_mat.T.mv(self._u), dim=0, eps=self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        sigma = self._u.clone().dot(weight_mat.mv(self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm (power iteration; ``dim`` 1 for transposed convolutions)."""
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "ndim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    identity = eye(k, dtype=Q.dtype, device=Q.device)
    return allclose(Q.mH @ Q, identity, atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """The Q of ``A = QR`` (``A`` tall) with ``diag(R)`` real and non-negative."""
    X, tau = geqrf(A)
    Q = linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """An orthogonal (unitary) matrix, or batch of them, from an unconstrained one: ``matrix_exp`` or ``cayley``
    of the skew-symmetric part of its lower triangle, or a product of Householder reflectors; with
    ``use_trivialization`` it is multiplied by the buffer ``base``, which ``right_inverse`` sets to the assigned
    matrix (orthogonalized by QR when it is not orthogonal; completed with random columns when not square)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape, self.orthogonal_map = weight.shape, orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                identity = eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(identity - 0.5 * A, identity + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            N = randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        minus_identity = zeros_like(Q_init)
        minus_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return minus_identity


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make ``module.<name>`` (a matrix or a batch of them) orthogonal -- orthonormal columns when tall, rows when
    wide -- through ``orthogonal_map``: "matrix_exp" (the default for square or complex matrices), "cayley" or
    "householder" (the default otherwise), as PyTorch's. Its initial value is the original's, orthogonalized by
    QR when needed (with ``use_trivialization``, the default, the dynamic trivialization's ``base`` buffer holds
    it)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orth_enum,
                                                                   use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
