"""make_curve_stream: the curves in 3-D and above, and the plane's streams unchanged."""

import numpy as np
import pytest

from skonline.datasets import make_curve_stream


@pytest.mark.parametrize("d", [3, 5])
def test_helix_points_lie_on_the_helix(d):
    X, truth = make_curve_stream(200, kind="helix", noise=0.1, n_features=d, random_state=0)
    assert X.shape == truth.shape == (200, d)
    np.testing.assert_allclose(truth[:, 0] ** 2 + truth[:, 1] ** 2, 1.0)
    t = np.arctan2(truth[:, 1], truth[:, 0]) % (2 * np.pi)
    # the third coordinate is 0.25 t up to whole turns
    turns = (truth[:, 2] / 0.25 - t) / (2 * np.pi)
    np.testing.assert_allclose(turns, np.round(turns), atol=1e-9)
    assert 0.0 <= truth[:, 2].min() and truth[:, 2].max() <= np.pi
    noise = X - truth
    assert 0.08 < noise.std() < 0.12


@pytest.mark.parametrize("d", [2, 3, 5])
def test_bend_is_two_arms_of_length_3_turning_by_127_degrees(d):
    _, truth = make_curve_stream(400, kind="bend", noise=0.0, n_features=d, random_state=0)
    r = np.linalg.norm(truth, axis=1)
    assert r.max() <= 3.0 + 1e-12
    far = truth[r > 1.0] / r[r > 1.0, None]
    # two unit directions 53° apart (cos 0.6): the curve turns by 127°
    cos = far @ far.T
    assert np.all((np.abs(cos - 1.0) < 1e-9) | (np.abs(cos - 0.6) < 1e-9))
    assert np.linalg.matrix_rank(truth, tol=1e-9) == 2


def test_clusters_lie_on_a_polygonal_line_of_five_centres():
    X, truth = make_curve_stream(500, kind="clusters", noise=0.0, n_features=4, random_state=0)
    assert X.shape == (500, 4)
    np.testing.assert_array_equal(X, truth)
    # most points are near one of five centres
    rounded = np.unique(np.round(truth, 0), axis=0)
    assert rounded.shape[0] < 100


def test_plane_streams_and_errors():
    X, _ = make_curve_stream(50, kind="cubic", random_state=0)
    np.testing.assert_array_equal(X, make_curve_stream(50, n_features=2, random_state=0)[0])
    assert make_curve_stream(10, kind="bend", random_state=0)[0].shape == (10, 3)
    with pytest.raises(ValueError, match="from 2 to 2"):
        make_curve_stream(10, kind="arcs", n_features=3)
    with pytest.raises(ValueError, match="from 3 to any"):
        make_curve_stream(10, kind="helix", n_features=2)
