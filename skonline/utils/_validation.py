"""Input validation every estimator shares: scikit-learn's ``validate_data`` plus the
structure of compressed sparse input, checked before any compiled kernel indexes it.

scipy builds a CSR matrix from ``(data, indices, indptr)`` without checking that
the column indices lie in ``[0, n_features)`` or that ``indptr`` is monotone, and
``check_array`` accepts it; a compiled kernel that trusts such a matrix reads and
writes outside its buffers. :func:`validate_data` is the only way skonline
validates a batch, so no kernel sees a matrix that has not passed
:func:`check_compressed_structure` (one O(nnz) pass over the indices).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ._sklearn_compat import validate_data as _sklearn_validate_data
from ._validation_fast import value_range

__all__ = [
    "all_finite",
    "check_compressed_structure",
    "fast_batch",
    "fast_target",
    "finite_range",
    "validate_data",
]

#: The dtypes a batch keeps (the first call picks one, later calls follow the state).
FLOAT_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
#: Sparse containers taken as they are (scikit-learn's check returns them unchanged).
_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


def finite_range(a: np.ndarray) -> tuple[float, float, int]:
    """``(min, max, code)`` of a float32/float64 array of any shape in one pass.

    ``code`` is 0 when every entry is finite, 1 at a NaN, 2 at an infinity
    (compiled: no temporary array; beyond two dimensions a non-contiguous
    array is copied first).
    """
    block = a if a.ndim == 2 else a.reshape(1, -1, order="A")
    return value_range(block)


def all_finite(a: np.ndarray) -> bool:
    """True when every entry of a float or complex array is finite (other dtypes: True)."""
    if a.dtype in FLOAT_DTYPES:
        return finite_range(a)[2] == 0
    if a.dtype.kind in "fc":
        return bool(np.all(np.isfinite(a)))
    return True


def _accepts_csr(accept_sparse: Any) -> bool:
    if accept_sparse is True or accept_sparse == "csr":
        return True
    return isinstance(accept_sparse, (list, tuple)) and "csr" in accept_sparse


def fast_batch(estimator: Any, X: Any, *, accept_sparse: Any, max_abs: float) -> Any:
    """``X`` itself if it is a later batch that full validation would return unchanged, else None.

    The common case of a stream, checked in microseconds: a C- or
    Fortran-contiguous float64/float32 ndarray (or a CSR matrix of that
    dtype, when ``accept_sparse`` allows it) with at least one row and the
    fitted number of columns, every entry finite and at most ``max_abs`` in
    magnitude, for an estimator fitted on data without feature names; a CSR
    matrix must also pass :func:`check_compressed_structure`. It never
    raises: anything else (another container or dtype, a DataFrame, a bad
    value, a malformed matrix) gets ``None``, and the caller runs the full
    :func:`validate_data`, which raises its own errors and warnings. So an
    input is accepted here only if the full path accepts it unchanged.

    Parameters
    ----------
    estimator : estimator instance
        A fitted estimator (``n_features_in_`` set).
    X : object
        The batch.
    accept_sparse : bool, str or list of str
        As in :func:`validate_data`.
    max_abs : float
        The magnitude guard (:func:`skonline.base.check_finite_magnitude`).

    Returns
    -------
    X : ndarray, sparse matrix or None
        ``X`` unchanged, or ``None`` when the full validation must run.
    """
    fitted = estimator.__dict__
    n_features = fitted.get("n_features_in_")
    if n_features is None or "feature_names_in_" in fitted:
        return None  # a named fit warns about unnamed data: scikit-learn's rule
    kind = type(X)
    if kind is np.ndarray:
        flags = X.flags
        if not (flags.c_contiguous or flags.f_contiguous):
            return None
        data = X
    elif kind in _CSR_TYPES and _accepts_csr(accept_sparse):
        data = X.data
        if type(data) is not np.ndarray or data.ndim != 1:
            return None
    else:
        return None
    if X.ndim != 2 or X.shape[1] != n_features or X.shape[0] < 1 or X.dtype not in FLOAT_DTYPES:
        return None
    low, high, code = finite_range(data)
    if code or high > max_abs or -low > max_abs:
        return None
    if kind is not np.ndarray:
        try:
            check_compressed_structure(X)
        except ValueError:
            return None
    return X


def fast_target(y: Any, n_samples: int, *, numeric: bool) -> bool:
    """True if a target ``y`` needs nothing of scikit-learn's checks: they would return it as is.

    A 1-D ndarray with one entry per row, of a boolean, integer or
    float32/float64 dtype with every entry finite (or, unless ``numeric``,
    of a string dtype). Never raises.
    """
    if type(y) is not np.ndarray or y.ndim != 1 or y.shape[0] != n_samples:
        return False
    kind = y.dtype.kind
    if kind in "biu" or (kind in "US" and not numeric):
        return True
    return y.dtype in FLOAT_DTYPES and finite_range(y)[2] == 0


def check_compressed_structure(X: Any, name: str = "X") -> None:
    """Raise ``ValueError`` unless a CSR/CSC matrix's index arrays describe its shape.

    ``indptr`` must have one entry per row (CSR) or column (CSC) plus one,
    start at 0, never decrease and end at the number of stored entries; every
    index must lie in ``[0, n)`` for the other dimension ``n``. Unsorted and
    duplicate indices are valid (they are summed, as scipy does). Other inputs
    are left alone. O(nnz) time, no copy.

    Parameters
    ----------
    X : object
        The validated input.
    name : str, default="X"
        Name used in the error message.
    """
    if not sp.issparse(X) or X.format not in ("csr", "csc"):
        return
    n_major, n_minor = X.shape if X.format == "csr" else X.shape[::-1]
    major = "row" if X.format == "csr" else "column"
    indptr, indices = np.asarray(X.indptr), np.asarray(X.indices)
    nnz = X.data.shape[0]
    if indptr.ndim != 1 or indptr.shape[0] != n_major + 1:
        raise ValueError(
            f"{name} is a malformed {X.format.upper()} matrix: indptr has "
            f"{indptr.shape[0]} entries for {n_major} {major}s (needs {n_major + 1})."
        )
    if indices.ndim != 1 or indices.shape[0] != nnz or indptr[0] != 0 or indptr[-1] != nnz:
        raise ValueError(
            f"{name} is a malformed {X.format.upper()} matrix: indptr must start at 0 and end "
            f"at the {nnz} stored entries, and indices must have one entry per stored value."
        )
    if n_major and np.any(indptr[1:] < indptr[:-1]):
        raise ValueError(f"{name} is a malformed {X.format.upper()} matrix: indptr decreases.")
    if nnz and (int(indices.min()) < 0 or int(indices.max()) >= n_minor):
        other = "column" if X.format == "csr" else "row"
        raise ValueError(
            f"{name} is a malformed {X.format.upper()} matrix: its {other} indices must lie in "
            f"[0, {n_minor}), found {int(indices.min())} to {int(indices.max())}."
        )


def validate_data(
    estimator: Any, X: Any = "no_validation", y: Any = "no_validation", **check_params: Any
) -> Any:
    """scikit-learn's ``validate_data``, then :func:`check_compressed_structure` on ``X``.

    Parameters
    ----------
    estimator : estimator instance
        The estimator the data is validated for.
    X, y : object
        As :func:`sklearn.utils.validation.validate_data`.
    **check_params : dict
        As :func:`sklearn.utils.validation.validate_data`.

    Returns
    -------
    out : object
        What scikit-learn's ``validate_data`` returns.
    """
    out = _sklearn_validate_data(estimator, X, y, **check_params)
    check_compressed_structure(out[0] if isinstance(out, tuple) else out)
    return out
