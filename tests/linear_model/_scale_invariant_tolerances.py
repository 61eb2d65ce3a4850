"""Tolerances of the scale-invariant tests, derived from the float64 arithmetic.

The BLAS kernel a CPU picks changes the last bits of every product, so a
tolerance must follow from the arithmetic, not from one machine's rounding.
A pass over ``n`` rows of ``d`` coordinates and its transcription (or the
same pass on transformed rows) differ by at most about ``n · d · eps``
relative: each prediction is a sum of ``d`` terms a few roundings apart, and
the iterates carry the differences of every earlier row. The exponential
potential multiplies a relative difference of its exponent's inputs by the
exponent ``E``, and a pseudo-inverse multiplies the rounding of each update
by the condition number ``κ`` of ``S`` on its range, and the full variant's
triangular factor ``R`` (``S = RᵀR``) by ``κ(R) = sqrt(κ(S))``, the condition
number of the data matrix in the kernel's internal coordinates
(:func:`factor_condition`). Measured differences sit 3 to 9 orders of
magnitude below these bounds on the SkylakeX, Haswell and Sandybridge kernels
of OpenBLAS; an error of the algorithm (a wrong recurrence, a lost
invariance) moves the results by far more.
"""

import numpy as np

EPS = np.finfo(np.float64).eps


def range_condition(X, start=1):
    """Worst condition number of ``S_t = X[:t]ᵀX[:t]`` on its range, over ``t >= start``.

    In the full kernel's coordinates: each column divided by the power of two
    of its first non-zero value. Eigenvalues below ``1e-10 λ_max`` (the rank
    test's threshold) count as zero.
    """
    X = np.asarray(X, dtype=np.float64)
    scale = np.ones(X.shape[1])
    for j in range(X.shape[1]):
        nonzero = X[X[:, j] != 0, j]
        if nonzero.size:
            scale[j] = 2.0 ** (np.frexp(nonzero[0])[1] - 1)
    Z = X / scale
    worst = 1.0
    for t in range(max(start, 1), X.shape[0] + 1):
        ev = np.linalg.eigvalsh(Z[:t].T @ Z[:t])
        if ev[-1] > 0:
            ev = ev[ev > 1e-10 * ev[-1]]
            worst = max(worst, ev[-1] / ev[0])
    return worst


def internal_rows(X, fit_intercept=True):
    """The rows as the full kernel sees them: shifted to the first row (with an
    intercept, then a constant column appended) and divided, per column, by the
    first non-zero value."""
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        X = np.hstack([X - X[0], np.ones((X.shape[0], 1))])
    Z = X.copy()
    for j in range(X.shape[1]):
        nonzero = X[X[:, j] != 0, j]
        if nonzero.size:
            Z[:, j] = X[:, j] / nonzero[0]
    return Z


def factor_condition(X, fit_intercept=True, start=1):
    """Worst condition number of ``X[:t]`` on its range in the full kernel's
    internal coordinates, over ``t >= start``: ``κ(R)`` of the triangular factor.

    Singular values below ``1e-10 σ_max`` (the scale of the rank test's
    ``rank_tol = 1e-20`` on squares) count as zero.
    """
    Z = internal_rows(X, fit_intercept)
    worst = 1.0
    for t in range(max(start, 1), Z.shape[0] + 1):
        sv = np.linalg.svd(Z[:t], compute_uv=False)
        if sv[0] > 0:
            sv = sv[sv > 1e-10 * sv[0]]
            worst = max(worst, sv[0] / sv[-1])
    return worst


def stream_rtol(n, d, condition=1.0, exponent=0.0):
    """``n · d · κ · (1 + E) · eps``: two float64 evaluations of a pass (module docstring)."""
    return n * d * condition * (1.0 + exponent) * EPS


def sum_rounding(*terms):
    """Rounding bound of a float64 sum: ``len · eps · Σ|term|`` over all the terms."""
    flat = np.concatenate([np.ravel(np.asarray(t, dtype=float)) for t in terms])
    return flat.size * EPS * float(np.abs(flat).sum())


def coordinate_exponent(state, potential_width):
    """Largest magnitude of the terms of a coordinate-wise state's exponents.

    ``h²/(2α s²)`` (plus ``Γ/(2α)`` for the diagonal learner), on the
    centred statistics for a centred state; 0 for unseen coordinates.
    """
    if hasattr(state, "mean"):  # centred
        h = state.H + np.outer(state.G, state.mean)
        s2 = np.where(state.m2 > 1e-12 * state.s2, state.m2, 0.0)
    else:
        h, s2 = state.H, state.s2
    seen = s2 > 0
    if not seen.any():
        return 0.0
    terms = h[:, seen] ** 2 / s2[seen]
    if state.gamma is not None:
        terms = terms + state.gamma[:, seen]
    return float(terms.max() / (2 * potential_width))
