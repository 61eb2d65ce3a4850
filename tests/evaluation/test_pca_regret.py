import numpy as np
import pytest

from skonline.evaluation import (
    best_fixed_projection_losses,
    best_partition_losses,
    compression_losses,
    follow_the_leader_losses,
    subspace_overlap,
    top_subspace,
)


@pytest.fixture
def X(decaying_spectrum):
    return decaying_spectrum(60, 6, scales=[3, 2, 1, 0.5, 0.2, 0.1])


def test_best_fixed_total_is_the_tail_eigenvalue_sum(X):
    for k in (1, 2, 5):
        lam = np.linalg.eigvalsh(X.T @ X)
        assert np.isclose(best_fixed_projection_losses(X, k).sum(), lam[: 6 - k].sum())


def test_best_partition_never_worse_than_fixed(X):
    seg = np.repeat([0, 1, 0], 20)  # the revisit is its own segment
    part = best_partition_losses(X, 2, seg)
    assert part.sum() <= best_fixed_projection_losses(X, 2).sum() + 1e-12
    np.testing.assert_allclose(part[40:], best_fixed_projection_losses(X[40:], 2))


def test_follow_the_leader_definition(X):
    k = 2
    losses = follow_the_leader_losses(X, k)
    # row 1 is projected on span(e_1, e_2)
    assert np.isclose(losses[0], X[0] @ X[0] - X[0, :2] @ X[0, :2])
    # a later row: top-k of the past scatter, recomputed independently with eigh
    t = 30
    _, U = np.linalg.eigh(X[:t].T @ X[:t])
    P = U[:, -k:]
    assert np.isclose(losses[t], compression_losses(X[t : t + 1], P)[0])
    quirk = follow_the_leader_losses(X, k, skip_first=True)
    assert np.all(quirk[:k] == 0) and np.array_equal(quirk[k:], losses[k:])


def test_follow_the_leader_learns_a_repeated_direction():
    X = np.tile([0.0, 0.0, 1.0], (5, 1))
    losses = follow_the_leader_losses(X, 1)
    assert losses[0] == 1.0 and np.all(losses[1:] == 0)


def test_top_subspace_completes_rank_deficient_scatter():
    C = np.zeros((4, 4))
    C[2, 2] = 1.0
    B = top_subspace(C, 3)
    np.testing.assert_allclose(B.T @ B, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(np.abs(B[:, 0]), [0, 0, 1, 0])
    np.testing.assert_allclose(np.abs(B[:, 1:]), [[1, 0], [0, 1], [0, 0], [0, 0]], atol=1e-12)


def test_subspace_overlap_and_validation(X):
    E = np.eye(6)
    assert np.isclose(subspace_overlap(E[:, :2], E[:, :2]), 1.0)
    assert subspace_overlap(E[:, :2], E[:, 2:4]) == 0.0
    assert np.isclose(subspace_overlap(E[:, :2], E[:, 1:3]), 0.5)
    with pytest.raises(ValueError, match="6 feature"):
        best_fixed_projection_losses(X, 6)
