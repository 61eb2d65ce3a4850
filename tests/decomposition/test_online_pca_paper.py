"""The online-PCA papers' experiments, reproduced on generated and bundled data.

Yuan & Lamperski (2019), §6.1 Fig. 1 (switching subspaces, n = 20, k = 2,
3 x 200 rows) and §6.2 (faces; grouped digits stand in for Yale-B); Warmuth &
Kuzmin (2008), §9.1 Figs. 3-5 (3 x 500 rows) and §8 Fig. 6 (long-term memory,
pattern A B A C B A). The acceptance ranges are the calibrated ones of the
implementation specs (several seeds of the papers' recipe); losses are the
exact expected losses unless stated otherwise.
"""

import numpy as np
import pytest

from skonline import AdaptiveOnlinePCA, RandomizedOnlinePCA
from skonline.datasets import make_digits_stream, make_switching_subspaces
from skonline.evaluation import (
    best_fixed_projection_losses,
    best_partition_losses,
    follow_the_leader_losses,
    subspace_overlap,
    top_subspace,
)

#: The authors' static baseline floors the (lifted) eigenvalues at 1e-10, i.e.
#: W's eigenvalues at 1e-10 / (n - k) (Yuan & Lamperski's published code).
AUTHORS_FLOOR = 1e-10 / 18


def _losses(est, X):
    return est.set_params(keep_history=True).fit(X).loss_history_


def _segment_sums(losses, segments):
    return np.array([losses[segments == s].sum() for s in np.unique(segments)])


# ----------------------------------------------------------- Yuan & Lamperski §6.1
@pytest.mark.parametrize("seed", range(5))
def test_yuan_lamperski_fig1_switching_subspaces(seed):
    X, seg, _ = make_switching_subspaces(3, 200, 20, 2, random_state=seed)
    adaptive = _losses(
        AdaptiveOnlinePCA(
            n_components=2,
            learning_rate=1.0,
            fixed_share=1e-5,
            eigenvalue_floor=0.0,
            center=False,
            row_norm="none",
        ),
        X,
    )
    floored = _losses(
        AdaptiveOnlinePCA(
            n_components=2,
            learning_rate=1.0,
            fixed_share=0.0,
            eigenvalue_floor=AUTHORS_FLOOR,
            center=False,
            row_norm="none",
        ),
        X,
    )
    exact = _losses(
        AdaptiveOnlinePCA(
            n_components=2,
            learning_rate=1.0,
            fixed_share=0.0,
            eigenvalue_floor=0.0,
            center=False,
            row_norm="none",
        ),
        X,
    )
    ftl = follow_the_leader_losses(X, 2, skip_first=True)  # the published notebook's FTL
    best = best_fixed_projection_losses(X, 2)
    total = {
        "adaptive": adaptive.sum(),
        "floored": floored.sum(),
        "exact": exact.sum(),
        "ftl": ftl.sum(),
        "best": best.sum(),
    }
    # (a) the calibrated range of the adaptive total (paper's figure: about 26)
    assert 20 <= total["adaptive"] <= 35, total
    # (b) about half the authors' floored static baseline, far below the exact one
    assert total["adaptive"] < 0.6 * total["floored"], total
    assert total["adaptive"] < 0.35 * total["exact"], total
    # (c) far below the best fixed projection and Follow the Leader
    assert total["adaptive"] < 0.25 * min(total["best"], total["ftl"]), total
    # (d) each segment's loss is concentrated right after the switch
    for losses in (adaptive, floored):
        for s in range(3):
            seg_losses = losses[seg == s]
            assert seg_losses[:100].sum() >= 0.95 * seg_losses.sum()
    # (e) the best fixed projection is (near) the worst; FTL ends within 5 % of it
    assert total["best"] >= 0.95 * max(total.values())
    assert abs(total["ftl"] - total["best"]) <= 0.05 * total["best"]


def test_yuan_lamperski_orientation_trap():
    """The kept subspace is the bottom of W: the top of W loses almost all the energy."""
    X, _, _ = make_switching_subspaces(3, 200, 20, 2, random_state=0)
    est = AdaptiveOnlinePCA(
        n_components=2, learning_rate=1.0, fixed_share=1e-5, center=False, row_norm="none"
    ).partial_fit(X[:1])
    right = wrong = 0.0
    for x in X[1:]:
        kept = est.components_.T
        top_of_w = est.density_eigenvectors_[:, np.argsort(est.density_eigenvalues_)[-2:]]
        right += x @ x - np.sum((kept.T @ x) ** 2)
        wrong += x @ x - np.sum((top_of_w.T @ x) ** 2)
        est.partial_fit(x[None])
    assert right < 0.15 * wrong, (right, wrong)


# ---------------------------------------------------------- Warmuth & Kuzmin §9.1
def _transition_time(est, X, start, basis, k=2, threshold=0.9):
    """Rows after ``start`` until the kept subspace overlaps the new one by > threshold."""
    for j, x in enumerate(X[start:], start=1):
        est.partial_fit(x[None])
        if subspace_overlap(est.components_.T, basis) > threshold:
            return j
    return np.inf


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_warmuth_kuzmin_figs_3_to_5(seed):
    X, seg, _ = make_switching_subspaces(3, 500, 20, 2, random_state=seed)
    alg5 = RandomizedOnlinePCA(
        n_components=2, learning_rate=1.0, eigenvalue_floor=1e-16, center=False, row_norm="none"
    )
    loss5 = _losses(alg5, X)
    loss6 = _losses(
        RandomizedOnlinePCA(
            n_components=2,
            learning_rate=1.0,
            update="cumulative",
            eigenvalue_floor=1e-16,
            center=False,
            row_norm="none",
        ),
        X,
    )
    fl = follow_the_leader_losses(X, 2)
    batch = best_fixed_projection_losses(X, 2)
    # C5 for Alg. 5 (negative regret against the batch subspace), C4
    assert loss5.sum() < 0.5 * batch.sum()
    assert loss5.sum() < loss6.sum()
    # C2: FL learns segment 1 best of all, then does not recover
    seg1 = {name: v[seg == 0].sum() for name, v in [("fl", fl), ("a5", loss5), ("a6", loss6)]}
    assert seg1["fl"] <= min(seg1.values())
    later = seg > 0
    assert fl[later].sum() >= 4 * loss5[later].sum()
    assert fl[later].sum() >= 0.4 * np.sum(X[later] ** 2)
    # C6: after the first shift the kept subspace reaches the new one in about 60 rows
    est = RandomizedOnlinePCA(
        n_components=2, learning_rate=1.0, eigenvalue_floor=1e-16, center=False, row_norm="none"
    )
    est.partial_fit(X[:500])
    new_basis = top_subspace(X[500:1000].T @ X[500:1000], 2)
    assert 20 <= _transition_time(est, X[:1000], 500, new_basis) <= 200
    # Fig. 4 plots realized losses averaged over 50 runs: their mean is the expected loss
    realized = [
        RandomizedOnlinePCA(
            n_components=2,
            learning_rate=1.0,
            eigenvalue_floor=1e-16,
            record_realized_loss=True,
            random_state=r,
            center=False,
            row_norm="none",
        )
        .fit(X)
        .cumulative_realized_loss_
        for r in range(50)
    ]
    stderr = np.std(realized, ddof=1) / np.sqrt(len(realized))
    assert abs(np.mean(realized) - loss5.sum()) <= 3 * stderr + 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_warmuth_kuzmin_long_term_memory(seed):
    """§8, Fig. 6 offline: pattern A B A C B A, revisits cost less than first visits."""
    X, seg, _ = make_switching_subspaces(
        segment_length=200, n_features=20, pattern="ABACBA", random_state=seed
    )
    comparator = best_partition_losses(X, 2, seg)
    regret = {}
    bumps = {}
    for mixing, alpha in [(None, 0.0), ("uniform", 1e-3), ("past", 1e-3)]:
        est = RandomizedOnlinePCA(
            n_components=2,
            learning_rate=1.0,
            mixing=mixing,
            mixing_rate=alpha,
            eigenvalue_floor=1e-16,
            center=False,
            row_norm="none",
        )
        per_row = _losses(est, X) - comparator
        regret[mixing] = per_row.sum()
        bumps[mixing] = _segment_sums(per_row, seg)
    assert regret["uniform"] < regret[None] and regret["past"] < regret[None]
    past = bumps["past"]
    assert past[[2, 4, 5]].mean() < past[1], past


# ------------------------------------------------ Yuan & Lamperski §6.2 (digits)
@pytest.mark.slow
def test_yuan_lamperski_faces_on_grouped_digits():
    X, _ = make_digits_stream(scaling="global")
    adaptive = _losses(
        AdaptiveOnlinePCA(
            n_components=2, learning_rate=5.0, fixed_share=1e-4, center=False, row_norm="none"
        ),
        X,
    )
    static = _losses(
        AdaptiveOnlinePCA(
            n_components=2,
            learning_rate=5.0,
            fixed_share=0.0,
            eigenvalue_floor=0.0,
            center=False,
            row_norm="none",
        ),
        X,
    )
    best = best_fixed_projection_losses(X, 2).sum()
    ftl = follow_the_leader_losses(X, 2).sum()
    assert adaptive.sum() < 0.6 * min(best, ftl)
    assert adaptive.sum() < 0.8 * static.sum()
