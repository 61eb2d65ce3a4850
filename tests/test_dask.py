"""skonline.dask on a distributed.LocalCluster with two worker processes.

The sketches of the blocks are fitted in the workers and merged in a tree; the
result must satisfy Frequent Directions' bound for the whole array, and equal
the same reduction run in this process.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from skonline import FrequentDirections, RobustFrequentDirections  # noqa: E402
from skonline.dask import fit_sketch  # noqa: E402

EPS = np.finfo(np.float64).eps


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _data(n=6000, d=40, seed=0):
    rng = np.random.default_rng(seed)
    scales = 1.0 / np.arange(1, d + 1) + 0.05
    return rng.standard_normal((n, d)) * scales @ np.linalg.qr(rng.standard_normal((d, d)))[0] + 3.0


def _tail_bound(S, m):
    s2 = np.linalg.svd(S, compute_uv=False) ** 2
    return min(s2[k:].sum() / (m - k) for k in range(m))


@pytest.mark.parametrize("cls", [FrequentDirections, RobustFrequentDirections])
def test_reduction_on_two_worker_processes_keeps_the_bound(client, cls):
    A = _data()
    X = da.from_array(A, chunks=(700, 40))  # 9 blocks: an unbalanced tree
    assert len(client.scheduler_info()["workers"]) == 2
    est = cls(sketch_size=8)
    before = pickle.dumps(est)
    sketch = fit_sketch(est, X)
    assert pickle.dumps(est) == before  # the estimator given is not fitted
    assert sketch.n_samples_seen_ == A.shape[0]
    S = A - A.mean(axis=0)
    np.testing.assert_allclose(sketch.mean_, A.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(sketch.var_, A.var(axis=0), rtol=1e-10)
    tol = A.shape[0] * EPS * np.sum(A * A)
    eig = np.linalg.eigvalsh(S.T @ S - sketch.sketch_.T @ sketch.sketch_)
    assert eig[0] >= -tol and eig[-1] <= sketch.shrinkage_ + tol
    assert sketch.shrinkage_ <= _tail_bound(S, 8) * (1 + 1e-9)
    if cls is RobustFrequentDirections:
        C = sketch.covariance_operator() @ np.eye(40)
        assert np.linalg.norm(S.T @ S - C, 2) <= sketch.shrinkage_ / 2 + tol
    # the same tree computed in this process gives the same sketch
    local = fit_sketch(est, X, compute=False).compute(scheduler="sync")
    np.testing.assert_allclose(local.sketch_, sketch.sketch_, rtol=1e-12, atol=1e-12)
    # and the merged sketch is about as accurate as one pass over all rows
    single = cls(sketch_size=8).fit(A)
    assert sketch.score(A) >= 2 * single.score(A)


def test_sparse_blocks_and_wider_merges(client):
    A = sp.random(3000, 200, density=0.02, format="csr", random_state=0)
    X = da.from_array(A, chunks=(400, 100), asarray=False)  # column chunks are joined
    sketch = fit_sketch(
        RobustFrequentDirections(sketch_size=10, sparse_solver="randomized", random_state=0),
        X,
        split_every=3,
    )
    dense = A.toarray()
    S = dense - dense.mean(axis=0)
    tol = 3000 * EPS * np.sum(dense * dense)
    eig = np.linalg.eigvalsh(S.T @ S - sketch.sketch_.T @ sketch.sketch_)
    assert eig[0] >= -tol and eig[-1] <= sketch.shrinkage_ + tol
    assert sketch.shrinkage_ <= _tail_bound(S, 10) * (1 + 1e-9)


def test_fit_sketch_refuses_what_it_cannot_merge():
    X = da.zeros((10, 3), chunks=5)
    from skonline import RFDSONClassifier

    with pytest.raises(TypeError, match="mergeable"):
        fit_sketch(RFDSONClassifier(), X)
    with pytest.raises(ValueError, match="split_every"):
        fit_sketch(FrequentDirections(), X, split_every=1)


def test_dask_ml_incremental_streams_blocks_in_order():
    """dask-ml's Incremental (shuffle_blocks=False) is partial_fit over the blocks, in order."""
    wrappers = pytest.importorskip("dask_ml.wrappers")
    from skonline import RFDSONClassifier

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5))
    y = (X @ rng.standard_normal(5) > 0).astype(int)
    inc = wrappers.Incremental(RFDSONClassifier(), shuffle_blocks=False)
    inc.fit(da.from_array(X, chunks=(60, 5)), da.from_array(y, chunks=60), classes=[0, 1])
    ref = RFDSONClassifier()
    for start in range(0, 300, 60):
        ref.partial_fit(X[start : start + 60], y[start : start + 60], classes=[0, 1])
    np.testing.assert_array_equal(inc.estimator_.coef_, ref.coef_)


def test_empty_blocks_are_skipped(client):
    # boolean indexing leaves blocks of unknown size, some of them empty; a
    # chunk of size 0 is empty and known to be: both are skipped, and the sketch
    # is that of the rows that remain
    A = _data(n=2000, d=12)
    A[:, 0] = np.arange(2000.0)
    X = da.from_array(A, chunks=(250, 6))
    kept = X[X[:, 0] >= 900]  # blocks 0-2 empty, block 3 partly kept
    assert np.isnan(kept.chunks[0]).all()
    B = A[900:]
    S = B - B.mean(axis=0)
    for cls in (FrequentDirections, RobustFrequentDirections):
        sketch = fit_sketch(cls(sketch_size=6), kept)
        assert sketch.n_samples_seen_ == B.shape[0]
        np.testing.assert_allclose(sketch.mean_, B.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(sketch.var_, B.var(axis=0), rtol=1e-10)
        tol = B.shape[0] * EPS * np.sum(B * B)
        eig = np.linalg.eigvalsh(S.T @ S - sketch.sketch_.T @ sketch.sketch_)
        assert eig[0] >= -tol and eig[-1] <= sketch.shrinkage_ + tol
    # chunks of size 0: the same tree as without them
    with_zeros = da.from_array(A, chunks=((0, 500, 0, 0, 1000, 500, 0), 12))
    without = da.from_array(A, chunks=((500, 1000, 500), 12))
    a = fit_sketch(FrequentDirections(sketch_size=6), with_zeros)
    b = fit_sketch(FrequentDirections(sketch_size=6), without)
    assert a.n_samples_seen_ == 2000
    np.testing.assert_array_equal(a.sketch_, b.sketch_)
    # nothing left: said so, not "0 samples" from a block
    with pytest.raises(ValueError, match="no rows"):
        fit_sketch(FrequentDirections(), X[X[:, 0] < 0])
    with pytest.raises(ValueError, match="no rows"):
        fit_sketch(FrequentDirections(), da.zeros((0, 3), chunks=(5, 3)))


def test_fit_sketch_reports_progress_on_the_cluster_and_learns_the_same(client, capsys):
    A = _data(n=6000, d=12)
    X = da.from_array(A, chunks=(300, 12))  # 20 blocks
    quiet = fit_sketch(RobustFrequentDirections(sketch_size=6), X)
    assert capsys.readouterr() == ("", "")
    loud = fit_sketch(RobustFrequentDirections(sketch_size=6), X, verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10 and lines[-1].startswith("fit_sketch: 100% 6,000/6,000 rows [")
    assert pickle.dumps(loud._state) == pickle.dumps(quiet._state)
    # blocks of unknown size: a row counter, ending with the rows kept
    kept = X[X[:, 0] > 3.0]
    loud = fit_sketch(RobustFrequentDirections(sketch_size=6), kept, verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert 1 <= len(lines) <= 10 and "%" not in lines[-1]
    assert lines[-1].startswith(f"fit_sketch: {loud.n_samples_seen_:,} rows [")
