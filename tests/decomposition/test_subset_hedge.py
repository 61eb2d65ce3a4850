"""AdaptiveSubsetHedge (Yuan & Lamperski Alg. 1): textbook transcription, bounds, API."""

import pickle

import numpy as np
import pytest

from skonline.decomposition import AdaptiveSubsetHedge
from skonline.decomposition._capping_kernels import mixture_decomposition
from skonline.utils.estimator_checks import check_online_estimator


def textbook_alg1(L, k, eta, alpha):
    """Alg. 1 as printed (with errata E1, E2), float domain, Alg. 3 looped as in the paper."""
    _T, n = L.shape
    d = n - k
    w = np.full(n, 1 / n)
    losses = []
    for lt in L:
        losses.append(d * w @ lt)
        v = w * np.exp(-eta * lt)
        v /= v.sum()  # E1: the normaliser includes w
        wh = alpha / n + (1 - alpha) * v
        # Alg. 3: cap the i largest, rescale the ORIGINAL tail (E2), until max <= 1/d
        if wh.max() > 1 / d:
            order = np.argsort(-wh, kind="stable")
            for i in range(1, d):
                wt = wh.copy()
                wt[order[:i]] = 1 / d
                rest = order[i:]
                wt[rest] = (d - i) / d * wh[rest] / wh[rest].sum()
                if wt.max() <= 1 / d * (1 + 1e-12):
                    break
            wh = wt
        w = wh
    return np.array(losses), w


def loss_stream(seed, n=8, T=300):
    """Low losses except for two bad experts, which switch every 100 steps.

    The best (n-2)-subset to pay is everything but the bad pair: the k = 2
    experts to keep out (``kept_``) are the bad ones.
    """
    rng = np.random.default_rng(seed)
    L = rng.uniform(0, 0.1, size=(T, n))
    for j, bad in enumerate(([0, 1], [5, 6], [2, 7])):
        L[j * 100 : (j + 1) * 100, bad] = rng.uniform(0.5, 1.0, size=(100, 2))
    return L


@pytest.mark.parametrize("alpha", [0.0, 1e-4, 0.05])
def test_matches_textbook(alpha):
    L = loss_stream(0)
    expected, w = textbook_alg1(L, 3, 1.2, alpha)
    est = AdaptiveSubsetHedge(n_kept=3, learning_rate=1.2, fixed_share=alpha, keep_history=True)
    est.fit(L)
    np.testing.assert_allclose(est.loss_history_, expected, rtol=1e-10)
    np.testing.assert_allclose(est.weights_, w, rtol=1e-9, atol=1e-300)


def test_per_interval_inequality_and_theorem1():
    L = loss_stream(1)
    T, n = L.shape
    k = 2
    d = n - k
    prefix = np.r_[np.zeros((1, n)), np.cumsum(L, axis=0)]

    def best(r, s):  # the n-k smallest cumulative losses on [r, s]
        return np.sort(prefix[s + 1] - prefix[r])[:d].sum()

    grid = [*range(0, T, 5), T - 1]
    for eta, alpha in [(1.0, 1e-4), (0.3, 1e-2)]:
        est = AdaptiveSubsetHedge(n_kept=k, learning_rate=eta, fixed_share=alpha, keep_history=True)
        A = np.r_[0.0, np.cumsum(est.fit(L).loss_history_)]
        for r in grid:
            for s in grid:
                if s < r:
                    continue
                lhs = (1 - np.exp(-eta)) * (A[s + 1] - A[r]) - eta * best(r, s)
                rhs = d * (np.log(n / alpha) + (s - r + 1) * np.log(1 / (1 - alpha)))
                assert lhs <= rhs
    # Theorem 1 tuning: adaptive regret <= sqrt(2LD) + D
    Lb = best(0, T - 1)
    D = d * np.log(n * (1 + d * T)) + 1
    eta, alpha = np.log1p(np.sqrt(2 * D / Lb)), 1 / (T * d + 1)
    est = AdaptiveSubsetHedge(n_kept=k, learning_rate=eta, fixed_share=alpha, keep_history=True)
    A = np.r_[0.0, np.cumsum(est.fit(L).loss_history_)]
    regret = max(A[s + 1] - A[r] - best(r, s) for r in grid for s in grid if s >= r)
    assert 0 < regret <= np.sqrt(2 * Lb * D) + D


def test_adaptive_beats_static_on_switches():
    L = loss_stream(2)
    ada = AdaptiveSubsetHedge(n_kept=2, fixed_share=1e-3).fit(L)
    static = AdaptiveSubsetHedge(n_kept=2, fixed_share=0.0).fit(L)
    assert ada.cumulative_loss_ < 0.8 * static.cumulative_loss_
    assert ada.kept_.tolist() == [2, 7]  # the current high-loss pair is kept out of the sum
    assert ada.discarded_.tolist() == [0, 1, 3, 4, 5, 6]


def test_sampling_and_expected_loss():
    L = loss_stream(3)
    est = AdaptiveSubsetHedge(n_kept=3, fixed_share=1e-2).fit(L[:150])
    w = est.weights_
    assert abs(w.sum() - 1) < 1e-12 and w.max() <= (1 + 1e-12) / 5
    p, corners = mixture_decomposition(w, 5)
    l = L[150]
    assert est.expected_loss(l[None])[0] == pytest.approx(
        sum(pj * l[c].sum() for pj, c in zip(p, corners, strict=True)), rel=1e-12
    )
    rng = np.random.default_rng(0)
    for sampler in ("decomposition", "systematic"):
        est.set_params(sampler=sampler)
        draws = [est.sample_subset(rng) for _ in range(2000)]
        assert all(len(set(S.tolist())) == 5 for S in draws)
        freq = np.bincount(np.concatenate(draws), minlength=8) / 2000
        np.testing.assert_allclose(freq, 5 * w, atol=0.05)


def test_errors_and_state():
    L = np.random.default_rng(4).uniform(size=(20, 4))
    with pytest.raises(ValueError, match="n_kept"):
        AdaptiveSubsetHedge(n_kept=4).fit(L)
    with pytest.raises(ValueError, match="NaN"):
        AdaptiveSubsetHedge().fit(np.where(L > 0.5, np.nan, L))
    est = AdaptiveSubsetHedge().fit(L)
    before = pickle.dumps(est)
    with pytest.raises(ValueError):
        est.partial_fit(L[:, :3])
    assert pickle.dumps(est) == before
    assert not hasattr(est, "loss_history_")
    assert est.score(L) == pytest.approx(-est.expected_loss(L).mean())


def test_online_checks():
    check_online_estimator(AdaptiveSubsetHedge(n_kept=2))
