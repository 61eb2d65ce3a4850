"""SequentialPrincipalCurve with its defaults draws a principal curve (issue 14).

* On the noisy 2-D cubic of Guedj & Li (true length 17.6), shuffled: the final
  curve is within 1.5x of the true length, close to the true curve (no fold),
  and its prequential loss is no worse than that of a batch Hastie–Stuetzle
  curve refitted on the prefix (both scored on batches of 20 rows).
* On 2-D clouds of scikit-learn's bundled datasets and on two clustered arcs:
  the curve is at most twice as long as the batch Hastie–Stuetzle curve, and
  no vertex is more than 10 % of the bounding box's diagonal outside the data
  (its convex hull).
* ``GridSearchCV`` over the complexity parameters, scored by ``score`` on
  held-out folds, picks a curve within 1.5x of the true length; the mean
  squared distance alone picks a folded one (negative control).
* Negative controls: the paper's objective (every extension off) folds.
* In 3-D and 5-D (issue 23): the turn price is the stored loss per direction
  across the curve, so on a noisy helix every ``random_state`` draws a curve
  of about the true length (the whole loss as the price stalled some at a
  quarter to a half of it).
"""

import itertools

import numpy as np
import pytest
from sklearn import datasets
from sklearn.model_selection import GridSearchCV, KFold

from skonline import SequentialPrincipalCurve
from skonline.datasets import make_curve_stream
from skonline.evaluation import prequential_score
from skonline.manifold import hastie_stuetzle_curve
from skonline.manifold._hastie_stuetzle import curve_length
from skonline.manifold._polyline import distance_outside_hull, project_to_polyline

TRUE_LENGTH = 17.6  # the cubic (u, 0.05 (u - 5)^3), u in [0, 10]
PAPER = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)


def prefix_hs_loss(X, batch_size=20):
    """Mean squared distance of each batch to the batch curve of the rows before it."""
    total, rows = 0.0, 0
    for start in range(batch_size, X.shape[0], batch_size):
        V = hastie_stuetzle_curve(X[:start])
        batch = X[start : start + batch_size]
        total += float(project_to_polyline(batch, V)[0].sum())
        rows += batch.shape[0]
    return total / rows


def prequential_loss(est, X, batch_size=20):
    res = prequential_score(est, X, scoring="neg_reconstruction_error", batch_size=batch_size)
    return -float(res["cumulative_neg_reconstruction_error"][-1]), res["estimator"]


def outside_fraction(V, X):
    """Largest distance of a vertex to the convex hull of ``X``, over the box's diagonal."""
    gap = distance_outside_hull(V, X)
    return float(gap.max() / np.linalg.norm(X.max(axis=0) - X.min(axis=0)))


def test_distance_outside_hull():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0], [1.0, 1.0]])
    P = np.array([[1.0, 1.0], [3.0, 1.0], [-1.0, -1.0], [2.0, 0.5]])
    np.testing.assert_allclose(distance_outside_hull(P, X), [0.0, 1.0, np.sqrt(2.0), 0.0])


def max_excursion(V, truth):
    """Largest distance from a point of the polyline ``V`` to the true curve."""
    t = np.linspace(0.0, 1.0, 40)[:, None]
    pts = np.vstack([a + t * (b - a) for a, b in itertools.pairwise(V)])
    return float(np.sqrt(project_to_polyline(pts, truth)[0].max()))


def cubic_truth():
    u = np.linspace(0.0, 10.0, 4001)
    return np.c_[u, 0.05 * (u - 5.0) ** 3]


def clouds():
    out = {}
    for name, loader, cols in (
        ("iris", datasets.load_iris, (2, 3)),
        ("wine", datasets.load_wine, (0, 9)),
        ("breast_cancer", datasets.load_breast_cancer, (0, 1)),
        ("diabetes", datasets.load_diabetes, (2, 8)),
    ):
        out[name] = np.asarray(loader(return_X_y=True)[0][:, cols], dtype=np.float64)
    out["arcs"] = make_curve_stream(1000, kind="arcs", noise=0.3, random_state=0)[0]
    return out


def _cubic(seed):
    """(prequential loss of the defaults, of the refitted batch curve, the estimator)."""
    X, _ = make_curve_stream(500, kind="cubic", noise=0.1, random_state=seed)
    loss, est = prequential_loss(SequentialPrincipalCurve(random_state=seed), X)
    assert TRUE_LENGTH / 1.5 <= est.length_ <= 1.5 * TRUE_LENGTH
    assert max_excursion(est.vertices_, cubic_truth()) < 0.6, "a fold"
    return loss, prefix_hs_loss(X), est


@pytest.mark.parametrize("seed", [0, 1])
def test_cubic_defaults_length_and_loss(seed):
    loss, hs, est = _cubic(seed)
    assert loss <= hs
    # negative control: the paper's objective on the same stream folds
    X, _ = make_curve_stream(500, kind="cubic", noise=0.1, random_state=seed)
    paper = SequentialPrincipalCurve(random_state=seed, **PAPER).fit(X)
    assert paper.length_ > 2.0 * est.length_


@pytest.mark.slow
def test_cubic_defaults_length_and_loss_ten_seeds():
    """Measured: 0.036 against 0.049 per row on average, lower on 9 of the 10 seeds.

    On the tenth (seed 5: 0.054 against 0.045) the batch of rows 20–39 decides:
    scored with the curve of 20 rows, whose ends stop at the extreme rows seen,
    while princurve stretches the batch curve's ends to the cubic's steep ends.
    """
    losses, peers = np.array([_cubic(seed)[:2] for seed in range(10)]).T
    assert losses.mean() <= peers.mean()
    assert np.sum(losses <= peers) >= 9
    assert np.all(losses <= 1.25 * peers)


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "diabetes", "arcs"])
def test_clouds_length_and_no_vertex_outside(name):
    X = clouds()[name]
    hs_length = curve_length(hastie_stuetzle_curve(X))
    rng = np.random.default_rng(0)
    for order in range(3):
        Xo = X[rng.permutation(X.shape[0])]
        est = SequentialPrincipalCurve(random_state=order).fit(Xo)
        assert est.length_ <= 2.0 * hs_length, f"order {order}"
        assert outside_fraction(est.vertices_, X) <= 0.10, f"order {order}"
    # negative control: the paper's objective fills the cloud and leaves it
    paper = SequentialPrincipalCurve(random_state=0, **PAPER).fit(Xo)
    assert paper.length_ > 2.0 * hs_length


@pytest.mark.parametrize("seed", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_grid_search_selects_a_curve_of_the_true_length(seed):
    X, _ = make_curve_stream(400, kind="cubic", noise=0.1, random_state=seed)
    # the complexity parameters, and the paper's objective as one more setting
    grid = [
        {"length_penalty": [0.03, 0.1, 0.3, 1.0], "max_segments": [10, 20, 40]},
        {key: [value] for key, value in PAPER.items()},
    ]
    cv = KFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(SequentialPrincipalCurve(random_state=0), grid, cv=cv).fit(X)
    assert TRUE_LENGTH / 1.5 <= search.best_estimator_.length_ <= 1.5 * TRUE_LENGTH
    # negative control: held-out mean squared distance alone picks a folded curve
    msd = GridSearchCV(
        SequentialPrincipalCurve(random_state=0),
        grid,
        cv=cv,
        scoring=lambda est, X, y=None: float(np.mean(est.score_samples(X))),
    ).fit(X)
    assert msd.best_estimator_.length_ > 1.5 * TRUE_LENGTH


def test_turn_price_is_the_loss_per_direction_across_the_curve():
    """``S(f̂) / (d − 1)``: the whole loss in the plane (the 2-D defaults unchanged)."""
    from skonline.manifold._principal_curve_kernels import _turn_price_unit

    w = np.array([1.0, 1.0, 0.0, 2.0])
    dcur = np.array([0.5, 0.25, 9.0, 0.125])  # S = 1.0 (the third row has no weight)
    for d, expected in ((1, 1.0), (2, 1.0), (3, 0.5), (5, 0.25)):
        X = np.random.default_rng(d).standard_normal((4, d))
        est = SequentialPrincipalCurve(random_state=0).fit(X)
        assert _turn_price_unit(est._state, w, dcur) == expected


@pytest.mark.slow
@pytest.mark.parametrize("d", [3, 5])
def test_helix_defaults_follow_the_curve_for_every_random_state(d):
    """Two turns of a noisy helix (400 rows): every seed draws 2/3–1.5x the true length.

    The former turn price (the whole loss, ``turn_penalty=0.5 (d − 1)`` now)
    stalled on this stream: lengths 0.48x (3-D) and 0.23x (5-D).
    """
    X, truth = make_curve_stream(400, kind="helix", noise=0.1, n_features=d, random_state=4)
    # the third coordinate (0.25 t) orders the points along the helix
    true_length = curve_length(truth[np.argsort(truth[:, 2])])
    msd = []
    for seed in range(4):
        est = SequentialPrincipalCurve(random_state=seed).fit(X)
        assert true_length / 1.5 <= est.length_ <= 1.5 * true_length, (seed, est.length_)
        msd.append(-float(np.mean(est.score_samples(X))))
    assert max(msd) <= 1.5 * min(msd)
    # negative control: the former price stalls on some seed
    former = [
        SequentialPrincipalCurve(random_state=seed, turn_penalty=0.5 * (d - 1)).fit(X).length_
        for seed in range(4)
    ]
    assert min(former) < true_length / 1.5
