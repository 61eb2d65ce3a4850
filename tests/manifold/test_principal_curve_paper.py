"""Guedj & Li, Section 5: Tables 1 and 2 against a Hastie–Stuetzle baseline refitted each step.

Data of the paper's Section 5: the 2-D cubic ``y = 0.05 (x − 5)³`` with
``u ~ U[0, 10]`` and Gaussian noise ``σ = 0.1`` (T = 100; the paper does not
state the noise), and the 6-D curve
``(0.5 s cos s, 0.5 s sin s, 0.5 s, −s, sqrt(s), 2 ln(s + 1))`` at 200
equidistant ``s`` in ``[0, 2π]`` with ``σ = 0.057``. One fixed data set, ten
slpc seeds; the metric is the cumulative prequential loss. The paper does
not state the stream order, so both orders are run: along the curve
("sorted") and shuffled.

Measured (lattice_spacing = 0.1 and the paper's settings, ``PAPER`` below;
mean ± sd over 10 seeds), next to the paper's values::

    data  order     truth  HS refit  slpc (mean ± sd, median)  paper: truth princurve slpc
    2-D   sorted    1.10    7.68      7.20 ± 0.59,  7.39         0.945  25.387    9.893 (0.246)
    2-D   shuffled  1.10   23.81     47.73 ± 1.77, 47.88
    6-D   sorted    3.10   19.40     15.81 ± 14.15, 10.36        3.290  14.204    6.797 (0.409)
    6-D   shuffled  3.10   36.42     40.27 ± 2.25, 40.16

Final-curve R² (min over seeds): 0.9998, 0.9989, 0.9910, 0.9971.

Along the curve slpc beats the refitted baseline and lands inside the
acceptance band ``[0.5×, 2.5×]`` of the paper's values in 2-D and 6-D (6-D:
the median; one seed of ten gets stuck where the sorted stream turns, 56.9,
another reaches 21.4; with ``max_grid_points=400`` the 6-D sorted runs were
unstable too, 18.0 ± 9.3). Shuffled, the refitted batch curve is better on
the first rows, because princurve stretches its ends beyond the data (the
user guide: without the stretch the batch curve loses 47.3). In both orders
the paper's objective leaves folds that one local change per row cannot undo
(the sorted 2-D curve ends about 83 long against the true 17.6); the
defaults remove them (``test_principal_curve_defaults.py``).
"""

import math

import numpy as np
import pytest

from skonline import SequentialPrincipalCurve
from skonline.manifold import hastie_stuetzle_curve
from skonline.manifold._hastie_stuetzle import smoothing_spline_df
from skonline.manifold._polyline import project_to_polyline


def cubic_data(T=100, sigma=0.1, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.0, 10.0, T)
    X = np.c_[u, 0.05 * (u - 5.0) ** 3] + sigma * rng.standard_normal((T, 2))
    grid = np.linspace(0.0, 10.0, 20001)
    truth = np.c_[grid, 0.05 * (grid - 5.0) ** 3]
    return X, np.argsort(u), truth


def six_d_data(T=200, sigma=0.057, seed=0):
    def curve(s):
        return np.c_[
            0.5 * s * np.cos(s), 0.5 * s * np.sin(s), 0.5 * s, -s, np.sqrt(s), 2 * np.log(s + 1)
        ]

    rng = np.random.default_rng(seed)
    X = curve(np.linspace(0.0, 2 * np.pi, T)) + sigma * rng.standard_normal((T, 6))
    return X, np.arange(T), curve(np.linspace(0.0, 2 * np.pi, 20001))


def hs_prequential_loss(X, start=2):
    """Σ_t Δ(HS fit on x_1..x_t, x_{t+1}) from the first prediction of slpc on (D14)."""
    total = 0.0
    for t in range(start, X.shape[0]):
        V = hastie_stuetzle_curve(X[:t])
        total += float(project_to_polyline(X[t : t + 1], V)[0][0])
    return total


#: The paper's Algorithm 3 (its practical version): every extension of the defaults off.
PAPER = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)


def run_slpc(X, seeds, **params):
    fits = [
        SequentialPrincipalCurve(lattice_spacing=0.1, random_state=s, **{**PAPER, **params}).fit(X)
        for s in seeds
    ]
    losses = np.array([f.cumulative_loss_ for f in fits])
    r2 = np.array([f.r2_score(X) for f in fits])
    return losses, r2


def test_smoothing_spline_has_the_requested_degrees_of_freedom():
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 1, 60))
    y = np.sin(6 * x)[:, None] + 0.1 * rng.standard_normal((60, 1))
    # trace of the smoother = sum of the fitted values of the unit vectors
    S = np.column_stack(
        [smoothing_spline_df(x, np.eye(60)[:, [i]], df=5.0)[:, 0] for i in range(60)]
    )
    assert np.trace(S) == pytest.approx(5.0, rel=1e-3)
    fitted = smoothing_spline_df(x, y, df=5.0)
    assert np.mean((fitted[:, 0] - np.sin(6 * x)) ** 2) < 0.01


def test_hastie_stuetzle_fits_a_noisy_arc():
    rng = np.random.default_rng(1)
    s = rng.uniform(0, np.pi, 200)
    X = np.c_[np.cos(s), np.sin(s)] + 0.03 * rng.standard_normal((200, 2))
    V = hastie_stuetzle_curve(X)
    dist = project_to_polyline(X, V)[0]
    assert dist.mean() < 2 * 0.03**2 * 2


def test_slpc_beats_refitted_baseline_on_sorted_cubic_stream():
    X, order, _ = cubic_data()
    X = X[order]
    losses, r2 = run_slpc(X, range(3))
    assert losses.mean() < hs_prequential_loss(X)
    assert r2.min() > 0.98


@pytest.mark.slow
@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_table1_cubic_2d(order):
    X, idx, truth = cubic_data()
    if order == "sorted":
        X = X[idx]
    truth_loss = project_to_polyline(X, truth)[0].sum()
    assert truth_loss == pytest.approx(1.0, abs=0.3)  # the paper reports 0.945 on its own draw
    hs = hs_prequential_loss(X)
    losses, r2 = run_slpc(X, range(10))
    assert r2.min() >= 0.98
    if order == "sorted":
        assert losses.mean() < hs
        assert 0.5 * 9.893 <= losses.mean() <= 2.5 * 9.893
        assert losses.std() < 0.25 * losses.mean()
    else:
        # not reproduced: the greedy local search loses to the refitted batch curve
        assert hs < losses.mean() < 3.0 * hs
        assert losses.std() < 0.25 * losses.mean()


@pytest.mark.slow
@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_table2_curve_6d(order):
    X, _, truth = six_d_data()
    if order == "shuffled":
        X = X[np.random.default_rng(1).permutation(X.shape[0])]
    truth_loss = project_to_polyline(X, truth)[0].sum()
    assert truth_loss == pytest.approx(3.3, abs=0.5)  # paper 3.290
    hs = hs_prequential_loss(X)
    losses, r2 = run_slpc(X, range(10))
    assert r2.min() >= 0.98
    if order == "sorted":
        assert losses.mean() < hs
        assert 0.5 * 6.797 <= np.median(losses) <= 2.5 * 6.797
        # the paper's local search can get stuck where the sorted stream turns:
        # at most one seed of ten
        assert np.sum(losses > 2.5 * np.median(losses)) <= 1
    else:
        # not reproduced: about 10 % above the refitted batch curve
        assert hs < losses.mean() < 1.5 * hs
        assert losses.std() < 0.25 * losses.mean()
    assert math.isfinite(losses.max())
