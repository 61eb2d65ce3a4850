"""Row access shared by the kernels: dense blocks of a batch, canonical CSR rows."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import gen_batches

__all__ = ["canonical_csr", "dense_row_blocks"]

#: Rows are densified in blocks of this many rows (CSR input).
BLOCK_ROWS = 256


def dense_row_blocks(X, block_rows=BLOCK_ROWS):
    """Yield ``(start, block)``: C-contiguous float64 blocks of the rows of ``X``.

    CSR input is densified one block at a time, so memory stays
    ``O(block_rows · n_features)``.
    """
    for sl in gen_batches(X.shape[0], block_rows):
        block = X[sl]
        block = block.toarray() if sp.issparse(block) else block
        yield sl.start, np.ascontiguousarray(block, dtype=np.float64)


def canonical_csr(X):
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
