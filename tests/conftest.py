"""Shared test streams, as factory fixtures.

Each fixture returns a generator function, so that a test picks the sizes and
the seed it needs::

    def test_something(low_rank_plus_noise):
        A = low_rank_plus_noise(n=300, d=20, seed=4)

Every generator draws from its own ``numpy.random.default_rng(seed)``: the same
arguments give the same array, whatever else the test does.
"""

import numpy as np
import pytest

from skonline.datasets import make_switching_subspaces


def _low_rank_plus_noise(n=600, d=40, rank=8, noise=0.3, *, scales=(10.0, 2.0), seed=0):
    """``U diag(s) V + noise · E``: a rank-``rank`` signal plus isotropic Gaussian noise.

    ``U`` (n × rank) and ``E`` (n × d) are standard normal, ``V`` has
    orthonormal rows, and the signal's scales ``s`` run linearly from
    ``scales[0]`` down to ``scales[1]``.
    """
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((n, rank))
    V = np.linalg.qr(rng.standard_normal((d, rank)))[0].T
    return (U * np.linspace(*scales, rank)) @ V + noise * rng.standard_normal((n, d))


def _decaying_rows(rng, n, d, scales):
    return rng.standard_normal((n, d)) * np.asarray(scales, dtype=np.float64)


def _decaying_spectrum(n, d, *, scales=None, seed=0):
    """Gaussian rows with per-feature scales (a decaying spectrum): ``E diag(scales)``.

    ``scales`` defaults to ``linspace(2, 0.2, d)``.
    """
    scales = np.linspace(2.0, 0.2, d) if scales is None else scales
    return _decaying_rows(np.random.default_rng(seed), n, d, scales)


def _linear_problem(n=300, d=8, *, conditioning=2.0, noise=0.1, seed=0):
    """Rows with feature scales spanning ``10**conditioning``, and their linear scores.

    ``X = E diag(logspace(-c/2, c/2, d))`` and ``s = X w + noise · e`` with
    standard normal ``E``, ``w`` and ``e`` (no noise is drawn when
    ``noise == 0``). Returns ``(X, s)``; a test turns ``s`` into labels or
    targets.
    """
    rng = np.random.default_rng(seed)
    X = _decaying_rows(rng, n, d, np.logspace(-conditioning / 2, conditioning / 2, d))
    s = X @ rng.standard_normal(d)
    if noise:
        s = s + noise * rng.standard_normal(n)
    return X, s


def _binary_problem(n=300, d=8, *, conditioning=2.0, noise=0.1, seed=0):
    """:func:`_linear_problem` with labels ``y = [s > 0]`` in {0, 1}."""
    X, s = _linear_problem(n, d, conditioning=conditioning, noise=noise, seed=seed)
    return X, (s > 0).astype(int)


@pytest.fixture
def low_rank_plus_noise():
    """Factory of low-rank-plus-noise matrices (FD's bounds are driven by their tail)."""
    return _low_rank_plus_noise


@pytest.fixture
def decaying_spectrum():
    """Factory of Gaussian rows with decaying per-feature scales."""
    return _decaying_spectrum


@pytest.fixture
def linear_problem():
    """Factory of badly scaled rows and linear scores ``(X, s)``."""
    return _linear_problem


@pytest.fixture
def binary_problem():
    """Factory of badly scaled binary problems ``(X, y)``, labels in {0, 1}."""
    return _binary_problem


@pytest.fixture
def switching_subspaces():
    """:func:`skonline.datasets.make_switching_subspaces`, the papers' drifting stream.

    Returns ``(X, segments, bases)``; use it rather than re-deriving the recipe.
    """
    return make_switching_subspaces
