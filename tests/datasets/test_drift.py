import numpy as np
import pytest

from skonline.datasets import clip_row_norms, make_digits_stream, make_switching_subspaces


def test_switching_subspaces_recipe():
    X, seg, bases = make_switching_subspaces(3, 50, 10, 2, random_state=0)
    assert X.shape == (150, 10) and bases.shape == (3, 10, 2)
    assert np.array_equal(seg, np.repeat([0, 1, 2], 50))
    assert np.linalg.norm(X, axis=1).max() <= 1 + 1e-12
    for s in range(3):
        B = bases[s]
        np.testing.assert_allclose(B.T @ B, np.eye(2), atol=1e-12)
        rows = X[seg == s]
        # every row lies in its segment's rank-2 support, not in the others'
        np.testing.assert_allclose(
            rows - rows @ B @ B.T, 0, atol=1e-6
        )  # the sampler factors a singular covariance: ~1e-8 noise
        other = bases[(s + 1) % 3]
        assert np.linalg.norm(rows - rows @ other @ other.T) > 0.1


def test_switching_subspaces_pattern_shares_covariances():
    X, seg, bases = make_switching_subspaces(
        segment_length=40, n_features=8, pattern="ABA", max_norm=None, random_state=1
    )
    assert bases.shape == (2, 8, 2)
    A = bases[0]
    third = X[seg == 2]
    np.testing.assert_allclose(
        third - third @ A @ A.T, 0, atol=1e-6
    )  # the sampler factors a singular covariance: ~1e-8 noise
    assert np.linalg.norm(X, axis=1).max() > 1  # max_norm=None keeps the raw rows


def test_switching_subspaces_seeded_and_validated():
    a = make_switching_subspaces(random_state=3)[0]
    b = make_switching_subspaces(random_state=3)[0]
    assert np.array_equal(a, b)
    with pytest.raises(ValueError, match="rank"):
        make_switching_subspaces(n_features=3, rank=3)


def test_clip_row_norms_only_touches_long_rows():
    X = np.array([[3.0, 4.0], [0.3, 0.4]])
    out = clip_row_norms(X)
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.3, 0.4]])
    assert X[0, 0] == 3.0  # input untouched


def test_digits_stream_grouped_by_class():
    X, seg = make_digits_stream([0, 1, 0], scaling="unit")
    n0 = np.sum(seg == 0)
    assert np.array_equal(X[:n0], X[seg == 2])
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    Xg, _ = make_digits_stream(scaling="global")
    assert Xg.shape == (1797, 64)
    assert np.isclose(np.linalg.norm(Xg, axis=1).max(), 1.0)
    with pytest.raises(ValueError, match="not digits"):
        make_digits_stream([11])
