"""Row access shared by the kernels: dense blocks of a batch, canonical CSR rows, row norms."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import gen_batches

__all__ = ["canonical_csr", "check_row_norms", "dense_row_blocks", "prepare_rows"]

#: Rows are densified in blocks of this many rows (CSR input).
BLOCK_ROWS = 256


def dense_row_blocks(X: Any, block_rows: int = BLOCK_ROWS) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(start, block)``: C-contiguous float64 blocks of the rows of ``X``.

    CSR input is densified one block at a time, so memory stays
    ``O(block_rows · n_features)``.
    """
    for sl in gen_batches(X.shape[0], block_rows):
        block = X[sl]
        block = block.toarray() if sp.issparse(block) else block
        yield sl.start, np.ascontiguousarray(block, dtype=np.float64)


def canonical_csr(X: Any) -> Any:
    """float64 CSR with summed duplicates, sorted indices and no entry whose square is 0.

    Values with ``x² = 0`` in float64 (``|x| < 1.5e-162``) are treated as
    zeros: they would otherwise enter a sum of squares as nothing and divide
    by zero. Never writes into ``X``.
    """
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    X.data[X.data * X.data == 0.0] = 0.0
    X.eliminate_zeros()
    X.sort_indices()
    return X


#: ``row_norm="error"`` accepts rows up to ``1 + ROW_NORM_TOL`` (rounding of rescaled rows).
ROW_NORM_TOL = 1e-12


def prepare_rows(X: Any, row_norm: str) -> Any:
    """Rows as an online-PCA update sees them: ``"clip"`` rescales rows of norm > 1 to norm 1.

    ``"none"`` and ``"error"`` return ``X`` unchanged (``"error"`` is enforced
    at validation by :func:`check_row_norms`). ``X`` is a dense 2-D array;
    never writes into it.
    """
    if row_norm != "clip":
        return X
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    scale = np.where(norms > 1.0, 1.0 / np.where(norms > 1.0, norms, 1.0), 1.0)
    return X * scale[:, None]


def check_row_norms(X: Any, row_norm: str) -> None:
    """With ``row_norm="error"``, raise ``ValueError`` if a row of ``X`` has norm above 1.

    ``X`` is dense or sparse; other ``row_norm`` values accept every row.
    """
    if row_norm != "error":
        return
    sq = (
        np.asarray(X.multiply(X).sum(axis=1)).ravel()
        if sp.issparse(X)
        else np.einsum("ij,ij->i", X, X)
    )
    bad = np.flatnonzero(sq > (1.0 + ROW_NORM_TOL) ** 2)
    if bad.size:
        raise ValueError(
            f"row {bad[0]} of X has norm {np.sqrt(sq[bad[0]]):.6g} > 1 and row_norm='error'; "
            "the guarantees need ||x|| <= 1. Rescale the data, or use row_norm='clip' "
            "or 'none'."
        )
