"""Readers never see a half-rolled-back estimator (defect 7 of the reliability review).

A call runs on a shadow copy of the estimator and is published in one step, so a
``predict`` in another thread during a running ``fit`` or a failing
``partial_fit`` sees the old model or the new one, never an emptied estimator.
Before, ``fit`` reset the estimator for its whole duration and a rejected
``partial_fit`` cleared it while rolling back.
"""

import threading
import time

import numpy as np
import pytest

from skonline import FrequentDirections, RFDSONClassifier, ScaleInvariantRegressor


def _data(n=200, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, (X @ rng.standard_normal(d) > 0).astype(int)


@pytest.mark.parametrize(
    "make, read",
    [
        (lambda: RFDSONClassifier(alpha0=1.0), "predict"),
        (ScaleInvariantRegressor, "predict"),
        (lambda: FrequentDirections(sketch_size=4), "transform"),
    ],
    ids=["RFDSONClassifier", "ScaleInvariantRegressor", "FrequentDirections"],
)
def test_a_reader_during_fit_sees_the_previous_model(make, read, monkeypatch):
    """Deterministic: read the estimator from inside its own running ``fit``."""
    X, y = _data()
    est = make()
    target = None if read == "transform" else y
    est.fit(X, target)
    expected = getattr(est, read)(X[:5])
    seen = []
    cls = type(est)
    original = cls._partial_fit_state

    def pass_that_reads(self, state, *args, **kwargs):
        seen.append(getattr(est, read)(X[:5]))  # the published estimator, mid-fit
        return original(self, state, *args, **kwargs)

    monkeypatch.setattr(cls, "_partial_fit_state", pass_that_reads)
    est.fit(X[::-1], None if target is None else target[::-1])
    assert seen, "the pass was not run"
    for value in seen:
        np.testing.assert_array_equal(value, expected)


def test_predict_never_fails_while_partial_fit_is_rejected_in_another_thread():
    X, y = _data()
    clf = RFDSONClassifier(alpha0=1.0).partial_fit(X, y, classes=[0, 1])
    X_bad = X[:20].copy()
    X_bad[3, 2] = np.nan
    errors, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            try:
                clf.predict(X[:5])
            except Exception as exc:  # any failure of a read is the defect
                errors.append(repr(exc))

    thread = threading.Thread(target=reader)
    thread.start()
    deadline = time.monotonic() + 20  # 300 rounds take about a second; slow machines stop early
    try:
        for _ in range(300):
            if time.monotonic() > deadline:
                break
            with pytest.raises(ValueError):
                clf.partial_fit(X_bad, y[:20])
            clf.fit(X, y)
    finally:
        stop.set()
        thread.join()
    assert not errors, errors[:3]
