"""Covariance-approximation error of a sketch, without forming d x d when d is large."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh

__all__ = ["covariance_error", "spectral_norm_of_difference"]

#: Up to this many features the symmetric difference is formed densely and
#: ``eigvalsh`` is used; above it, Lanczos (``eigsh``) on a linear operator.
DENSE_MAX_FEATURES = 2000
#: Relative tolerance of the Lanczos path (above ``DENSE_MAX_FEATURES``):
#: ARPACK stops when the Ritz residual is below it times the Ritz value, so the
#: value is within this relative distance of an eigenvalue (Weyl); measured
#: (RFD on TF-IDF and Gaussian rows) within 2e-5 of the value at 1e-6.
LANCZOS_TOL = 1e-4


def spectral_norm_of_difference(X, B, alpha=0.0, *, x_scale=1.0, b_scale=1.0, x_mean=None):
    """``‖x_scale · X̃ᵀX̃ − b_scale · (BᵀB + αI)‖₂`` for dense or CSR ``X``.

    The spectral norm of the difference between a matrix's Gram matrix and a
    sketched estimate of it. Up to 2000 features the difference is formed and
    its eigenvalues computed exactly; above, Lanczos iterations run on a linear
    operator, so no ``d × d`` matrix is formed. ``X̃ = X − 1 x_meanᵀ`` (``X``
    without ``x_mean``); a CSR ``X`` is centred implicitly, never densified.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
        The data whose Gram matrix ``XᵀX`` is approximated.
    B : ndarray of shape (r, d)
        The sketch.
    alpha : float, default=0.0
        The ridge term of the estimate ``BᵀB + αI``.
    x_scale : float, default=1.0
        Multiplier of ``XᵀX`` (e.g. ``1 / n``).
    b_scale : float, default=1.0
        Multiplier of the estimate ``BᵀB + αI``.
    x_mean : ndarray of shape (d,), default=None
        Subtracted from every row of ``X`` (a centred sketch's ``mean_``).

    Returns
    -------
    norm : float
        The largest absolute eigenvalue of the (symmetric) difference: exact
        (``eigvalsh``) up to 2000 features, Lanczos to a relative 1e-4 above.

    See Also
    --------
    covariance_error : The same norm, relative to ``‖X‖_F²``.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import spectral_norm_of_difference
    >>> X = np.diag([2.0, 1.0])
    >>> spectral_norm_of_difference(X, X[:1])  # the sketch misses e_2 (eigenvalue 1)
    1.0
    """
    n, d = X.shape
    B = np.asarray(B, dtype=np.float64)
    if x_mean is not None and not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64) - x_mean
        x_mean = None
    if x_mean is not None:  # CSR: X̃ᵀX̃ = XᵀX − s μᵀ − μ sᵀ + n μμᵀ with s = Xᵀ1
        mu = np.asarray(x_mean, dtype=np.float64)
        col_sum = np.asarray(X.sum(axis=0)).ravel()
    if d <= DENSE_MAX_FEATURES:
        XtX = X.T @ X
        XtX = XtX.toarray() if sp.issparse(XtX) else np.asarray(XtX, dtype=np.float64)
        if x_mean is not None:
            cross = np.outer(col_sum, mu)
            XtX = XtX - cross - cross.T + n * np.outer(mu, mu)
        D = x_scale * XtX - b_scale * (B.T @ B)
        D[np.diag_indices(d)] -= b_scale * alpha
        eig = np.linalg.eigvalsh(D)
        return float(max(abs(eig[0]), abs(eig[-1])))

    def matvec(v):
        v = np.ravel(v)
        XtXv = X.T @ (X @ v)
        if x_mean is not None:
            XtXv = XtXv - col_sum * (mu @ v) - mu * (col_sum @ v) + n * mu * (mu @ v)
        return x_scale * XtXv - b_scale * (B.T @ (B @ v) + alpha * v)

    op = LinearOperator((d, d), matvec=matvec, dtype=np.float64)
    v0 = np.ones(d) / np.sqrt(d)  # deterministic start: the score is reproducible
    # Relative accuracy 1e-4: RFD's difference has a dense cluster of eigenvalues
    # next to -α (the sketch's α against the data's null and tail directions),
    # where ARPACK's residual test converges far more slowly than the value
    # (measured, RFD(n_components=10) on its own rows, products at 1e-6 / 1e-4:
    # TF-IDF 5000 x 2^15 4491 / 121, Gaussian 3000 x 2500 32367 / 1461, the
    # values 1.3e-6 and 2.0e-5 apart; 1e-8 took another ~100x).
    val = eigsh(op, k=1, which="LM", v0=v0, return_eigenvectors=False, tol=LANCZOS_TOL)
    return float(abs(val[0]))


#: ``covariance_error`` checks the centring when the data's mean carries at
#: least this share of ``‖A‖_F²`` (below it, centring changes the error little).
MEAN_SHARE = 0.01


def _sketch_of(B, alpha, mean):
    """``(B, alpha, mean)`` from a fitted sketch estimator, or as given."""
    if not hasattr(B, "sketch_"):
        return np.asarray(B, dtype=np.float64), alpha, mean
    if alpha != 0.0 or mean is not None:
        raise ValueError(
            "alpha and mean are read from the fitted estimator passed as B "
            "(alpha_, mean_); pass its sketch_ array to give them yourself."
        )
    effective = getattr(B, "_effective_sketch", None)  # CFD's compensated estimate
    if effective is not None:
        sketch, alpha = effective()
    else:
        sketch, alpha = B.sketch_, B.alpha_
    return np.asarray(sketch, dtype=np.float64), float(alpha), np.asarray(B.mean_)


def _frobenius_squared(A, mean=None):
    """``‖A − 1 meanᵀ‖_F²`` (``‖A‖_F²`` without ``mean``), CSR never densified."""
    if sp.issparse(A):
        fro2 = float(A.multiply(A).sum())
        if mean is not None:
            col_sum = np.asarray(A.sum(axis=0)).ravel()
            fro2 += -2.0 * float(col_sum @ mean) + A.shape[0] * float(mean @ mean)
        return max(fro2, 0.0)
    A = np.asarray(A, dtype=np.float64)
    return float(np.sum(np.square(A if mean is None else A - mean)))


def _check_centring(A, B, alpha, err, fro2):
    """Warn when ``B`` looks like a sketch of the centred data compared with uncentred ``A``.

    Cheap test first (``O(nnz + r d)``): the energy of the estimate along the
    data's mean direction ``u``. An estimate of ``AᵀA`` has about
    ``‖A u‖² ≥ n‖μ‖²`` there; one of the centred scatter only ``‖(A − 1μᵀ)u‖²``.
    When it misses more than half of ``n‖μ‖²`` (and the mean carries at least
    :data:`MEAN_SHARE` of ``‖A‖_F²``), the error against the centred data is
    computed, and a warning gives both numbers if the centred one is smaller.
    """
    n = A.shape[0]
    mu = np.asarray(A.mean(axis=0)).ravel()
    mean_mass = n * float(mu @ mu)
    if fro2 <= 0 or mean_mass < MEAN_SHARE * fro2:
        return
    u = mu / np.sqrt(float(mu @ mu))
    Au = np.asarray(A @ u).ravel()
    centred_along = max(float(Au @ Au) - mean_mass, 0.0)
    Bu = B @ u
    if float(Bu @ Bu) + alpha >= centred_along + mean_mass / 2:
        return
    err_centred = spectral_norm_of_difference(A, B, alpha, x_mean=mu)
    if err_centred >= err:
        return
    fro2_centred = _frobenius_squared(A, mu)
    missed = min(max(1.0 - (float(Bu @ Bu) + alpha - centred_along) / mean_mass, 0.0), 1.0)
    warnings.warn(
        "covariance_error: B looks like a sketch of the centred data (it misses "
        f"{missed:.0%} of the energy "
        "along the data's mean); against the centred data its relative error is "
        f"{err_centred / max(fro2_centred, np.finfo(float).tiny):.3g} instead of "
        f"{err / fro2:.3g} against A. Sketches centre by default (center=True): pass "
        "the fitted estimator, covariance_error(A, est), or mean=est.mean_.",
        UserWarning,
        stacklevel=3,
    )


def covariance_error(A, B, alpha=0.0, *, normalize="fro2", mean=None):
    """Relative covariance error of a sketch, the metric of FD/RFD papers.

    ``‖ÃᵀÃ − (BᵀB + αI)‖₂ / ‖Ã‖_F²`` (``normalize="fro2"``, Ghashami et al.'s
    covariance error, used throughout skonline) or ``/ ‖ÃᵀÃ‖₂``
    (``normalize="spectral"``), with ``Ã = A − 1 meanᵀ`` (``A`` itself
    without ``mean``). Ratios between methods are the same under both.

    The sketches of skonline centre by default, so their ``BᵀB + αI``
    estimates the centred scatter: pass the fitted estimator as ``B`` (its
    ``sketch_``, ``alpha_`` and ``mean_`` are used) or ``mean=est.mean_``.
    When ``B`` is an array, ``mean`` is not given and ``B`` misses most of
    the energy along the data's mean while its error against the centred data
    is smaller, a ``UserWarning`` gives both errors (the uncentred one is
    returned).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, d)
        The streamed data.
    B : ndarray of shape (r, d), or a fitted FrequentDirections / RobustFrequentDirections
        The sketch, or the estimator holding it.
    alpha : float, default=0.0
        Ridge term of the approximation (RFD's ``alpha_``); read from the
        estimator when ``B`` is one.
    normalize : {"fro2", "spectral", None}, default="fro2"
        Denominator: ``‖Ã‖_F²``, ``‖ÃᵀÃ‖₂``, or none (the absolute error).
    mean : ndarray of shape (d,), default=None
        Subtracted from every row of ``A`` (CSR ``A`` is centred implicitly);
        read from the estimator (``mean_``) when ``B`` is one.

    Returns
    -------
    error : float
        The (relative) spectral-norm error of ``BᵀB + αI`` as an estimate of
        ``ÃᵀÃ``; 0 for an exact sketch.

    See Also
    --------
    spectral_norm_of_difference : The unnormalised error.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.evaluation import covariance_error
    >>> A = np.eye(3)
    >>> covariance_error(A, A[:2])  # the sketch misses one unit direction
    0.333...
    >>> from skonline.decomposition import FrequentDirections
    >>> X = np.random.default_rng(0).standard_normal((500, 8)) + 5
    >>> fd = FrequentDirections(sketch_size=4).fit(X)  # centred by default
    >>> bool(covariance_error(X, fd) < 0.2)  # against the centred data, with fd.mean_
    True
    """
    if normalize not in ("fro2", "spectral", None):
        raise ValueError(f"normalize must be 'fro2', 'spectral' or None, got {normalize!r}")
    B, alpha, mean = _sketch_of(B, alpha, mean)
    if mean is not None:
        mean = np.asarray(mean, dtype=np.float64)
    err = spectral_norm_of_difference(A, B, alpha, x_mean=mean)
    fro2 = _frobenius_squared(A, mean)
    if mean is None:
        _check_centring(A, B, alpha, err, fro2)
    if normalize is None:
        return err
    if normalize == "fro2":
        denom = fro2
    else:
        denom = spectral_norm_of_difference(A, np.zeros((0, A.shape[1])), x_mean=mean)
    return err / denom if denom > 0 else err
