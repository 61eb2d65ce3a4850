"""Qualitative claims of Luo et al. (2019), §6.2 (Figs. 3–5), on bundled and synthetic data.

The LIBSVM sets cannot be downloaded here; ``benchmarks/bench_son.py`` runs the
full comparison (and :func:`skonline.datasets.load_libsvm_split` reads the
real files where a user has them). Run by hand: ``pytest -m slow -s``.
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits

from ._son_paper_settings import RFDSONClassifier

pytestmark = pytest.mark.slow

GRID = [10.0**k for k in range(-3, 7)]  # the paper's alpha0 grid


def _digits():
    X, y = load_digits(return_X_y=True)
    return X, (y >= 5).astype(int)


def _low_rank_binary():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((3000, 5))
    X = Z @ rng.standard_normal((5, 50)) + 0.3 * rng.standard_normal((3000, 50))
    return X, (Z @ rng.standard_normal(5) > 0).astype(int)


DATA = {
    "digits": _digits,
    "breast_cancer": lambda: load_breast_cancer(return_X_y=True),
    "low_rank": _low_rank_binary,
}


@pytest.mark.parametrize("name", list(DATA))
def test_rfd_son_is_less_sensitive_to_alpha0_than_fd_son(name):
    X, y = DATA[name]()
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    n = int(0.7 * len(y))
    kw = {"sketch_size": 10, "fit_intercept": False}

    def test_error(**params):
        clf = RFDSONClassifier(**kw, **params).fit(X[:n], y[:n])
        return 1 - clf.score(X[n:], y[n:])

    fd = np.array([test_error(sketch="fd", alpha0=a) for a in GRID])
    rfd = np.array([test_error(sketch="rfd", alpha0=a) for a in GRID])
    full = min(test_error(sketch="full", alpha0=a) for a in GRID)
    rfd0 = test_error(sketch="rfd", alpha0=0.0)
    print(
        f"\n{name}: FD-SON std {fd.std():.3f} (min {fd.min():.3f}), RFD-SON std "
        f"{rfd.std():.3f} (min {rfd.min():.3f}), best FULL-ON {full:.3f}, RFD0 {rfd0:.3f}"
    )
    assert rfd.std() < fd.std()  # Figs. 3-4: FD-SON is "very sensitive" to alpha0
    assert rfd.max() < fd.max()
