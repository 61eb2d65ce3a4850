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

__all__ = ["check_compressed_structure", "validate_data"]


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
