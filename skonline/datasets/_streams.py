"""Generated streams for comparing online learners (no downloads).

* :func:`make_drifting_stream`: a linear concept (classification or
  regression) that changes abruptly between segments, on uncentred features
  of uneven scales — the streams where an online learner must adapt.
* :func:`rescale_columns`: the same data in other units (every column
  multiplied by its own power of ten) — the streams where scale invariance
  matters.
* :func:`make_curve_stream`: noisy points around a curve (the cubic of Guedj
  & Li's Table 1, two arcs, a helix, a sharp bend, clusters along a line) for
  principal curves.
* :func:`make_topic_documents`: TF-IDF rows of short documents drawn from
  topics over a Zipfian vocabulary — sparse, heavy-tailed CSR matrices.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = ["make_curve_stream", "make_drifting_stream", "make_topic_documents", "rescale_columns"]


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "task": [StrOptions({"classification", "regression"})],
        "n_concepts": [Interval(Integral, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_drifting_stream(
    n_samples=2000,
    n_features=10,
    *,
    task="classification",
    n_concepts=2,
    noise=0.1,
    random_state=None,
):
    """A linear concept that changes abruptly between equal segments of the stream.

    Features: ``x_j = m_j + s_j z_j`` with ``z ~ N(0, I)``, means ``m_j ~
    U[−3, 3]`` and scales ``s_j = 10^U[−1, 1]`` (uncentred, uneven units, as
    real features are). Each of the ``n_concepts`` segments has its own
    weights ``w`` (a standard normal vector, divided by the scales so every
    feature matters). Classification: ``y = 1[(x − m)ᵀw + noise·N(0, 1) > 0]``
    (balanced classes); regression: ``y = 10 + (x − m)ᵀw + noise·N(0, 1)``
    (a target far from 0).

    Parameters
    ----------
    n_samples : int, default=2000
        Rows.
    n_features : int, default=10
        Columns.
    task : {"classification", "regression"}, default="classification"
        The kind of target.
    n_concepts : int, default=2
        Segments, each with its own concept (1: no drift).
    noise : float, default=0.1
        Standard deviation of the noise added to the linear score.
    random_state : int, RandomState instance or None, default=None
        Seed.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The rows, in stream order.
    y : ndarray of shape (n_samples,)
        Labels ``0``/``1`` or real targets.
    concept : ndarray of shape (n_samples,)
        Segment index of each row.

    Examples
    --------
    >>> from skonline.datasets import make_drifting_stream
    >>> X, y, concept = make_drifting_stream(100, 3, n_concepts=2, random_state=0)
    >>> X.shape, sorted(set(concept.tolist()))
    ((100, 3), [0, 1])
    """
    rng = check_random_state(random_state)
    means = rng.uniform(-3.0, 3.0, n_features)
    scales = 10.0 ** rng.uniform(-1.0, 1.0, n_features)
    Z = rng.standard_normal((n_samples, n_features))
    X = means + Z * scales
    concept = np.minimum(np.arange(n_samples) * n_concepts // n_samples, n_concepts - 1)
    W = rng.standard_normal((n_concepts, n_features)) / scales
    score = np.einsum("ij,ij->i", X - means, W[concept]) + noise * rng.standard_normal(n_samples)
    if task == "classification":
        y = (score > 0).astype(np.int64)
    else:
        y = 10.0 + score
    return X, y, concept


@validate_params(
    {
        "X": ["array-like"],
        "log10_range": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def rescale_columns(X, *, log10_range=4.0, random_state=None):
    """The same data in other units: column ``j`` times ``10^U[−r, r]``.

    A learner that needs no scaler gives the same predictions on the
    rescaled data; one that does (SGD without a ``StandardScaler``) does
    not. The scoreboard of the user guide runs every dataset raw and
    rescaled.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data (not modified).
    log10_range : float, default=4.0
        ``r``: each scale is drawn from ``10^U[−r, r]``.
    random_state : int, RandomState instance or None, default=None
        Seed.

    Returns
    -------
    X_rescaled : ndarray of shape (n_samples, n_features)
        The rescaled copy.
    scales : ndarray of shape (n_features,)
        The scale of each column.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.datasets import rescale_columns
    >>> Xr, scales = rescale_columns(np.ones((2, 3)), random_state=0)
    >>> bool(np.allclose(Xr[0], scales))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    rng = check_random_state(random_state)
    scales = 10.0 ** rng.uniform(-log10_range, log10_range, X.shape[1])
    return X * scales, scales


#: Dimension of each kind of curve: when ``n_features`` is not given, the least, the most.
_CURVE_DIMENSIONS = {
    "cubic": (2, 2, 2),
    "arcs": (2, 2, 2),
    "helix": (3, 3, None),
    "bend": (3, 2, None),
    "clusters": (3, 2, None),
}


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "kind": [StrOptions(set(_CURVE_DIMENSIONS))],
        "noise": [Interval(Real, 0, None, closed="left")],
        "n_features": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_curve_stream(
    n_samples=500, *, kind="cubic", noise=0.1, n_features=None, random_state=None
):
    """Noisy points around a curve, in random order.

    In the plane: ``"cubic"``, Guedj & Li's Table 1 curve
    ``(u, 0.05 (u − 5)³)``, ``u ~ U[0, 10]`` (length 17.6); ``"arcs"``, two
    clusters of points on two half circles of radius 5 facing each other
    (centres ``(0, 0)`` and ``(5, 2.5)``), each covering a third of its arc — a
    clustered cloud with gaps, where a curve must not jump across empty space.

    In ``n_features`` dimensions (3 by default): ``"helix"``, two turns of
    ``(cos t, sin t, 0.25 t)``, ``t ~ U[0, 4π]`` (length 12.95 in 3-D), with
    ``0.5 cos(t/2 + (j − 3) π/4)`` as coordinate ``j ≥ 3``; ``"bend"``, two
    straight arms of length 3 meeting at a sharp bend (the curve turns by
    127°), turned by a random rotation of ``R^d``; ``"clusters"``, five
    Gaussian clusters (standard deviation 0.15 of the way between two of
    them) along the polygonal line through five centres drawn by a random walk
    of ``1.5 N(0, I)`` steps.

    Parameters
    ----------
    n_samples : int, default=500
        Points.
    kind : {"cubic", "arcs", "helix", "bend", "clusters"}, default="cubic"
        The curve.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to each coordinate.
    n_features : int, default=None
        Dimension of the points: 2 for ``"cubic"`` and ``"arcs"`` (the only
        one), 3 for the others by default (``"helix"`` needs at least 3).
    random_state : int, RandomState instance or None, default=None
        Seed.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The noisy points.
    truth : ndarray of shape (n_samples, n_features)
        The points of the curve they were drawn around.

    Examples
    --------
    >>> from skonline.datasets import make_curve_stream
    >>> X, truth = make_curve_stream(100, random_state=0)
    >>> X.shape
    (100, 2)
    >>> make_curve_stream(100, kind="helix", n_features=5, random_state=0)[0].shape
    (100, 5)
    """
    d, least, most = _CURVE_DIMENSIONS[kind]
    if n_features is not None:
        d = int(n_features)
        if d < least or (most is not None and d > most):
            raise ValueError(
                f"kind={kind!r} takes n_features from {least} to {most or 'any'}; got {d}."
            )
    rng = check_random_state(random_state)
    if kind == "cubic":
        u = rng.uniform(0.0, 10.0, n_samples)
        truth = np.column_stack([u, 0.05 * (u - 5.0) ** 3])
    elif kind == "arcs":
        first = rng.random(n_samples) < 0.5
        t = np.where(
            first,
            rng.uniform(np.pi / 6, np.pi / 2, n_samples),
            rng.uniform(np.pi + np.pi / 6, np.pi + np.pi / 2, n_samples),
        )
        centre = np.where(first[:, None], [0.0, 0.0], [5.0, 2.5])
        truth = centre + 5.0 * np.column_stack([np.cos(t), np.sin(t)])
    elif kind == "helix":
        t = rng.uniform(0.0, 4.0 * np.pi, n_samples)
        extra = [0.5 * np.cos(t / 2.0 + j * np.pi / 4.0) for j in range(d - 3)]
        truth = np.column_stack([np.cos(t), np.sin(t), 0.25 * t, *extra])
    elif kind == "bend":
        rotation, _ = np.linalg.qr(rng.standard_normal((d, d)))
        u = rng.uniform(-3.0, 3.0, n_samples)
        arm = np.where(u[:, None] < 0.0, [-1.0, 0.0], [-0.6, 0.8])
        truth = (np.abs(u)[:, None] * arm) @ rotation[:2]
    else:  # clusters
        centres = np.cumsum(1.5 * rng.standard_normal((5, d)), axis=0)
        s = np.clip(rng.randint(0, 5, n_samples) + 0.15 * rng.standard_normal(n_samples), 0, 4)
        i = np.minimum(s.astype(np.intp), 3)
        f = (s - i)[:, None]
        truth = (1.0 - f) * centres[i] + f * centres[i + 1]
    return truth + noise * rng.standard_normal((n_samples, d)), truth


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 2, None, closed="left")],
        "n_topics": [Interval(Integral, 1, None, closed="left")],
        "doc_length": [Interval(Real, 0, None, closed="left")],
        "zipf_exponent": [Interval(Real, 0, None, closed="left")],
        "tfidf": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_topic_documents(
    n_samples=2000,
    n_features=1000,
    *,
    n_topics=20,
    doc_length=12.0,
    zipf_exponent=1.1,
    tfidf=True,
    random_state=None,
):
    """Short documents drawn from topics over a Zipfian vocabulary, as a CSR matrix.

    The sparse, heavy-tailed matrices of text: word ``j`` has base frequency
    ``∝ 1 / (j + 1)^zipf_exponent``; each topic multiplies the frequencies of
    its own ``n_features // 20`` words by factors ``U[0, 20)``. Each document
    picks a topic uniformly and ``1 + Poisson(doc_length)`` words from it
    (with repetition). The counts are TF-IDF weighted and each row scaled to
    unit norm (scikit-learn's ``TfidfTransformer`` defaults) with ``tfidf``.

    Parameters
    ----------
    n_samples : int, default=2000
        Documents (rows).
    n_features : int, default=1000
        Vocabulary size (columns), at least 2.
    n_topics : int, default=20
        Topics.
    doc_length : float, default=12.0
        Mean number of words per document, minus one.
    zipf_exponent : float, default=1.1
        Exponent of the base word frequencies.
    tfidf : bool, default=True
        TF-IDF weighted, unit-norm rows; ``False``: raw counts.
    random_state : int, RandomState instance or None, default=None
        Seed.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The documents, in stream order.
    topic : ndarray of shape (n_samples,)
        Topic of each document.

    Examples
    --------
    >>> from skonline.datasets import make_topic_documents
    >>> X, topic = make_topic_documents(100, 50, n_topics=3, random_state=0)
    >>> X.shape, X.format, sorted(set(topic.tolist()))
    ((100, 50), 'csr', [0, 1, 2])
    """
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import TfidfTransformer

    rng = check_random_state(random_state)
    base = 1.0 / np.arange(1, n_features + 1, dtype=np.float64) ** zipf_exponent
    cdfs = np.empty((n_topics, n_features))
    for t in range(n_topics):
        weights = base.copy()
        hot = rng.choice(n_features, size=max(n_features // 20, 1), replace=False)
        weights[hot] *= 20.0 * rng.random_sample(hot.size)
        cdfs[t] = np.cumsum(weights) / weights.sum()
    topic = rng.randint(n_topics, size=n_samples)
    lengths = rng.poisson(doc_length, n_samples) + 1
    rows = np.repeat(np.arange(n_samples), lengths)
    u = rng.random_sample(rows.size)
    cols = np.empty(rows.size, dtype=np.int64)
    word_topic = topic[rows]
    for t in range(n_topics):
        mine = word_topic == t
        cols[mine] = np.searchsorted(cdfs[t], u[mine], side="right")
    np.minimum(cols, n_features - 1, out=cols)  # rounding of the last cumulative sum
    X = sp.csr_matrix(
        (np.ones(rows.size), (rows, cols)), shape=(n_samples, n_features), dtype=np.float64
    )
    X.sum_duplicates()
    if tfidf:
        X = TfidfTransformer().fit_transform(X).tocsr()
    return X, topic
