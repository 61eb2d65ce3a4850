"""Drifting streams for the online-PCA experiments (generated, no downloads).

* :func:`make_switching_subspaces`: the switching-subspace stream of Warmuth &
  Kuzmin (2008, §9.1, Figs. 3-5) and Yuan & Lamperski (2019, §6.1, Fig. 1):
  segments of i.i.d. zero-mean Gaussian rows with a random low-rank covariance,
  a new covariance per segment, rows of norm above 1 rescaled to norm 1.
* :func:`make_digits_stream`: scikit-learn's bundled digits grouped by class,
  the offline stand-in for the papers' face streams (Yale-B cannot be shipped).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = ["clip_row_norms", "make_digits_stream", "make_switching_subspaces"]


def clip_row_norms(X, max_norm=1.0):
    """Rescale the rows of ``X`` whose Euclidean norm exceeds ``max_norm`` to ``max_norm``.

    The data preparation of both online-PCA papers (rows with ``‖x‖ > 1`` are
    rescaled to unit norm, the others are left alone). Returns a new array.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows (not modified).
    max_norm : float, default=1.0
        The largest row norm kept.

    Returns
    -------
    X_clipped : ndarray of shape (n_samples, n_features)
        A float64 copy of ``X`` whose rows have norm at most ``max_norm``.

    Examples
    --------
    >>> from skonline.datasets import clip_row_norms
    >>> clip_row_norms([[3.0, 4.0], [0.3, 0.4]]).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    X = np.array(X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1)
    big = norms > max_norm
    X[big] *= (max_norm / norms[big])[:, None]
    return X


def _random_low_rank_covariance(n_features, rank, rng):
    """The papers' recipe: ``Q diag(e) Qᵀ`` with ``rank`` eigenvalues ``U[0.5, 1)``.

    ``Q`` is the Q-factor of a QR of an ``n x n`` standard normal matrix; the
    non-zero eigenvalues sit on ``rank`` random coordinates.
    """
    Q, _ = np.linalg.qr(rng.standard_normal((n_features, n_features)))
    e = (rng.random(n_features) + 1.0) / 2.0
    keep = rng.permutation(n_features)[:rank]
    lam = np.zeros(n_features)
    lam[keep] = e[keep]
    cov = (Q * lam) @ Q.T
    return (cov + cov.T) / 2.0, Q[:, keep]


@validate_params(
    {
        "n_segments": [Interval(Integral, 1, None, closed="left")],
        "segment_length": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 2, None, closed="left")],
        "rank": [Interval(Integral, 1, None, closed="left")],
        "pattern": [str, list, tuple, None],
        "max_norm": [Interval(Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_switching_subspaces(
    n_segments=3,
    segment_length=200,
    n_features=20,
    rank=2,
    *,
    pattern=None,
    max_norm=1.0,
    random_state=None,
):
    """Generate rows from a Gaussian whose low-rank covariance switches between segments.

    Recipe of Yuan & Lamperski (2019, §6.1; their notebook) and Warmuth & Kuzmin
    (2008, §9.1): for each distinct segment a covariance ``Q diag(e) Qᵀ`` with
    ``Q`` a random orthogonal matrix and ``rank`` eigenvalues drawn from
    ``U[0.5, 1)`` on random coordinates (the others 0); ``segment_length``
    i.i.d. zero-mean Gaussian rows per segment; rows with norm above
    ``max_norm`` rescaled to ``max_norm``.

    Parameters
    ----------
    n_segments : int, default=3
        Number of segments (ignored when ``pattern`` is given).
    segment_length : int, default=200
        Rows per segment (200 in Yuan & Lamperski, 500 in Warmuth & Kuzmin).
    n_features : int, default=20
        Dimension of the rows.
    rank : int, default=2
        Rank of every covariance.
    pattern : str or sequence, default=None
        Which covariance each segment uses, e.g. ``"ABACBA"``: equal symbols
        share a covariance (the long-term-memory stream of Warmuth & Kuzmin §8).
        ``None`` gives ``n_segments`` distinct covariances.
    max_norm : float or None, default=1.0
        Rows with a larger norm are rescaled to it; ``None`` keeps them.
    random_state : int, RandomState instance or None, default=None
        Seed of the covariances and of the rows; pass an int for reproducible
        output.

    Returns
    -------
    X : ndarray of shape (n_segments * segment_length, n_features)
        The rows, segment after segment.
    segments : ndarray of shape (n_samples,)
        Segment index (0, 1, ...) of each row.
    bases : ndarray of shape (n_distinct, n_features, rank)
        Orthonormal basis of the support of each distinct covariance, in the
        order of first appearance in ``pattern``.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.datasets import make_switching_subspaces
    >>> X, segments, bases = make_switching_subspaces(random_state=0)
    >>> X.shape, bases.shape
    ((600, 20), (3, 20, 2))
    >>> bool((np.linalg.norm(X, axis=1) <= 1 + 1e-12).all())
    True
    """
    if rank >= n_features:
        raise ValueError(f"rank={rank} must be smaller than n_features={n_features}.")
    rng = check_random_state(random_state)
    symbols = list(pattern) if pattern is not None else list(range(n_segments))
    if not symbols:
        raise ValueError("pattern must contain at least one segment.")
    order = list(dict.fromkeys(symbols))
    covs, bases = [], []
    for _ in order:
        cov, basis = _random_low_rank_covariance(n_features, rank, rng)
        covs.append(cov)
        bases.append(basis)
    # rng.multivariate_normal's SVD route as in the papers' notebook, one draw per segment
    rows = [
        rng.multivariate_normal(np.zeros(n_features), covs[order.index(s)], size=segment_length)
        for s in symbols
    ]
    X = np.vstack(rows)
    if max_norm is not None:
        X = clip_row_norms(X, max_norm)
    segments = np.repeat(np.arange(len(symbols)), segment_length)
    return X, segments, np.stack(bases)


@validate_params(
    {
        "classes": ["array-like", None],
        "scaling": [StrOptions({"global", "unit"})],
    },
    prefer_skip_nested_validation=True,
)
def make_digits_stream(classes=None, *, scaling="global"):
    """Load scikit-learn's bundled digits as a stream grouped by class.

    The offline stand-in for the face streams of both papers (Yale-B, persons in
    turn): every image of ``classes[0]``, then every image of ``classes[1]``, …
    in the bundled order. A class may appear more than once (e.g.
    ``[0, 1, 0, 2, 1, 0]`` for the long-term-memory stream of Warmuth & Kuzmin
    §8); each appearance repeats all its images.

    Parameters
    ----------
    classes : sequence of int, default=None
        Order of the classes; ``None`` means ``0, 1, …, 9``.
    scaling : {"global", "unit"}, default="global"
        ``"global"`` divides every row by the largest row norm of the selection
        (relative weights kept, ``‖x‖ ≤ 1``); ``"unit"`` gives every row norm 1.

    Returns
    -------
    X : ndarray of shape (n_samples, 64)
        The images as rows, class after class.
    segments : ndarray of shape (n_samples,)
        Index of the segment (position in ``classes``) of each row.

    Examples
    --------
    >>> from skonline.datasets import make_digits_stream
    >>> X, segments = make_digits_stream([3, 5])
    >>> X.shape, int(segments.max())
    ((365, 64), 1)
    """
    from sklearn.datasets import load_digits

    digits = load_digits()
    order = list(range(10)) if classes is None else [int(c) for c in classes]
    unknown = sorted(set(order) - set(range(10)))
    if unknown:
        raise ValueError(f"classes {unknown} are not digits 0-9.")
    if not order:
        raise ValueError("classes must contain at least one digit.")
    parts = [digits.data[digits.target == c] for c in order]
    X = np.vstack(parts).astype(np.float64)
    segments = np.concatenate([np.full(len(p), i) for i, p in enumerate(parts)])
    norms = np.linalg.norm(X, axis=1)
    if scaling == "unit":
        X /= np.where(norms > 0, norms, 1.0)[:, None]
    else:
        X /= norms.max()
    return X, segments
