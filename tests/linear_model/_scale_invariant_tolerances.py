"""Tolerances of the scale-invariant tests, derived from the float64 arithmetic.

The BLAS kernel a CPU picks changes the last bits of every product, so a
tolerance must follow from the arithmetic, not from one machine's rounding.
A pass over ``n`` rows of ``d`` coordinates and its transcription (or the
same pass on transformed rows) differ by at most about ``n · d · eps``
relative: each prediction is a sum of ``d`` terms a few roundings apart, and
the iterates carry the differences of every earlier row. The exponential
potential multiplies a relative difference of its exponent's inputs by the
exponent ``E``, and a pseudo-inverse multiplies the rounding of each update
by the condition number ``κ`` of ``S`` on its range. Measured differences sit
3 to 9 orders of magnitude below these bounds on the SkylakeX, Haswell and
Sandybridge kernels of OpenBLAS; an error of the algorithm (a wrong
recurrence, a lost invariance) moves the results by far more.
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


def stream_rtol(n, d, condition=1.0, exponent=0.0):
    """``n · d · κ · (1 + E) · eps``: two float64 evaluations of a pass (module docstring)."""
    return n * d * condition * (1.0 + exponent) * EPS


def sum_rounding(*terms):
    """Rounding bound of a float64 sum: ``len · eps · Σ|term|`` over all the terms."""
    flat = np.concatenate([np.ravel(np.asarray(t, dtype=float)) for t in terms])
    return flat.size * EPS * float(np.abs(flat).sum())


def coordinate_exponent(state, potential_width):
    """Largest exponent ``h²/(2α s²)`` of a coordinate state (0 for unseen coordinates)."""
    seen = state.s2 > 0
    if not seen.any():
        return 0.0
    return float((state.H[:, seen] ** 2 / (2 * potential_width * state.s2[seen])).max())
