"""The stored rows of a sequential principal curve and their Voronoi caches.

Algorithm 3 of Guedj & Li ranks candidate curves by their loss on the past
rows and builds its local grid from the rows in the Voronoi cells around the
newest one (Section 4, "Partition" and "Neighbourhood"). :class:`RowMemory`
holds those rows together with, for each row, its squared distance and
projection parameter to every segment of the current curve, its nearest
segment and that distance. A change of the curve recomputes only the columns
of the changed segments (:meth:`RowMemory.replace_segments`).

Without ``max_rows`` every row is kept (the paper's whole past). With
``max_rows`` the memory is bounded, with one of two policies:

* ``"reservoir"``: a uniform sample of every row offered so far (Vitter's
  Algorithm R): the ``t``-th row replaces a uniformly drawn stored row with
  probability ``max_rows / t``. A row that is not kept still takes part in
  its own step, from a scratch slot (:meth:`RowMemory.settle` drops it).
* ``"window"``: the most recent ``max_rows`` rows (a new row overwrites the
  oldest one).

The methods that change a :class:`RowMemory` write into it in place; the pass
of the estimator calls them on its own copy of the state only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base import copy_arrays
from ..utils._validation_fast import first_nonfinite
from ._curve_fast import segments_sqdist

__all__ = ["VERTEX_TOL", "RowMemory", "neighbourhood_mask", "projection_segment"]

#: Projection parameters within this of 0 or 1 put a row in a vertex's Voronoi cell.
VERTEX_TOL = 1e-9
#: Rows allocated at least when the memory grows without bound.
_MIN_CAPACITY = 16


def neighbourhood_mask(amin: np.ndarray, tau: np.ndarray, a: int) -> np.ndarray:
    """Rows in the Voronoi neighbourhood ``S_{a-1} ∪ V_a ∪ S_a ∪ V_{a+1} ∪ S_{a+1}``.

    The neighbourhood ``N(x)`` of Section 4 for a row ``x`` that projects on
    segment ``a``: the cells whose closure holds one of the segment's vertices.

    Parameters
    ----------
    amin : ndarray of int, shape (n,)
        Nearest segment of each row (the lowest index among equal distances).
    tau : ndarray of shape (n,)
        Parameter of each row's projection on its nearest segment: the row is
        in the segment cell ``S_j`` when ``0 < tau < 1``, in the vertex cell
        ``V_j`` when ``tau = 0`` and in ``V_{j+1}`` when ``tau = 1``, up to
        ``VERTEX_TOL`` (a row at a vertex, such as an initial row at an end of
        the first segment, must not be classified by the rounding of ``tau``).
    a : int
        The segment.

    Returns
    -------
    mask : ndarray of bool, shape (n,)
    """
    interior = (tau > VERTEX_TOL) & (tau < 1.0 - VERTEX_TOL)
    vertex = np.where(tau >= 1.0 - VERTEX_TOL, amin + 1, amin)
    return np.where(interior, np.abs(amin - a) <= 1, (vertex == a) | (vertex == a + 1))


def _check_finite(*arrays: np.ndarray) -> None:
    """Raise ``FloatingPointError`` unless every number of ``arrays`` is finite."""
    if first_nonfinite(list(arrays)) >= 0:
        raise FloatingPointError("a non-finite distance or row reached the row memory")


def projection_segment(amin: int, tau: float) -> int:
    """The segment a row projects on, for its neighbourhood (Section 4).

    Its nearest segment when the projection is inside it; when the projection
    is a vertex ``v_j`` (``tau`` within ``VERTEX_TOL`` of 0 or 1), the lowest
    segment holding it, ``max(j − 1, 0)``, whichever of the two segments that
    share the vertex came out nearer in floating point.

    Parameters
    ----------
    amin : int
        The row's nearest segment.
    tau : float
        Its projection parameter on that segment.

    Returns
    -------
    segment : int
    """
    if tau >= 1.0 - VERTEX_TOL:
        return int(amin)
    if tau <= VERTEX_TOL:
        return max(int(amin) - 1, 0)
    return int(amin)


@dataclass(kw_only=True, eq=False)
class RowMemory:
    """The stored rows and their distances to the segments of the current curve.

    Rows ``[0, n_rows)`` of every array are in use. Columns ``[0, k)`` of
    ``sqdist`` and ``tau`` belong to the ``k`` segments of the current curve.

    Attributes
    ----------
    rows : ndarray of shape (capacity, n_features)
        The stored rows.
    sqdist : ndarray of shape (capacity, max_segments)
        Squared distance of each row to each segment.
    tau : ndarray of shape (capacity, max_segments)
        Parameter of each row's projection on each segment, in ``[0, 1]``.
    nearest : ndarray of int64, shape (capacity,)
        Nearest segment of each row (the lowest index among equal distances).
    nearest_sqdist : ndarray of shape (capacity,)
        Squared distance of each row to the curve.
    explored : ndarray of bool, shape (capacity,)
        Rows of exploration rounds (the bandit estimator scores only these).
    n_rows : int
        Rows in use.
    next_slot : int
        Slot the next row overwrites once a sliding window is full.
    max_rows : int or None
        Rows kept; ``None`` keeps every row.
    policy : {"reservoir", "window"}
        Which rows a bounded memory keeps.
    n_offered : int
        Rows ever stored (the ``t`` of the reservoir's ``max_rows / t``).
    transient : bool
        The last row stored sits in the scratch slot and leaves at
        :meth:`settle` (reservoir only).
    finite_writes : bool
        Every array of the memory was finite when it was made (``empty``:
        zeros) and every number written into it since was checked finite at
        its write (``store``, ``replace_segments``): the memory is finite by
        construction, and the commit's finite walk of the state passes over it
        instead of reading its arrays again (a bounded memory's arrays are the
        bulk of the state). ``copy`` keeps it; a memory built otherwise has it
        False and is read in full.
    """

    rows: np.ndarray
    sqdist: np.ndarray
    tau: np.ndarray
    nearest: np.ndarray
    nearest_sqdist: np.ndarray
    explored: np.ndarray
    n_rows: int = 0
    next_slot: int = 0
    max_rows: int | None = None
    policy: str = "reservoir"
    n_offered: int = 0
    transient: bool = False
    finite_writes: bool = False

    def copy(self) -> RowMemory:
        """A copy with its own arrays (the other fields are immutable values, shared)."""
        return copy_arrays(self)

    @classmethod
    def empty(
        cls,
        n_features: int,
        max_segments: int,
        *,
        max_rows: int | None = None,
        policy: str = "reservoir",
        expected_rows: int = 0,
    ) -> RowMemory:
        """An empty memory for curves of at most ``max_segments`` segments.

        Parameters
        ----------
        n_features : int
            Width of the rows.
        max_segments : int
            Largest number of segments of a curve (columns of the caches).
        max_rows : int or None, default=None
            Rows kept (``None``: every row).
        policy : {"reservoir", "window"}, default="reservoir"
            Which rows a bounded memory keeps.
        expected_rows : int, default=0
            Rows about to be stored (sizes the first allocation).

        Returns
        -------
        memory : RowMemory
        """
        if max_rows is not None:
            capacity = int(max_rows) + (policy == "reservoir")  # + the scratch slot
        else:
            capacity = _MIN_CAPACITY
            while capacity < expected_rows:
                capacity *= 2
        return cls(
            rows=np.zeros((capacity, n_features)),
            sqdist=np.zeros((capacity, max_segments)),
            tau=np.zeros((capacity, max_segments)),
            nearest=np.zeros(capacity, dtype=np.int64),
            nearest_sqdist=np.zeros(capacity),
            explored=np.zeros(capacity, dtype=bool),
            max_rows=max_rows,
            policy=policy,
            finite_writes=True,
        )

    _ARRAYS = ("rows", "sqdist", "tau", "nearest", "nearest_sqdist", "explored")

    def _grow(self) -> None:
        """Double the capacity (the memory without a window)."""
        capacity = self.rows.shape[0]
        for name in self._ARRAYS:
            old = getattr(self, name)
            new = np.zeros((2 * capacity, *old.shape[1:]), dtype=old.dtype)
            new[:capacity] = old
            setattr(self, name, new)

    def store(
        self,
        x: np.ndarray,
        dist: np.ndarray,
        tau: np.ndarray,
        explored: bool,
        rng: np.random.Generator | None = None,
    ) -> int:
        """Store a row with its distances to the ``k`` segments (in place).

        Parameters
        ----------
        x : ndarray of shape (n_features,)
            The row.
        dist, tau : ndarray of shape (k,)
            Its squared distance and projection parameter to each segment.
        explored : bool
            Whether the row is an exploration row.
        rng : numpy.random.Generator or None, default=None
            Draws the reservoir's slot (one integer once the reservoir is full).

        Returns
        -------
        slot : int
            Index of the row in the memory.

        Raises
        ------
        FloatingPointError
            When ``x``, ``dist`` or ``tau`` holds a non-finite number (nothing
            is written).
        """
        _check_finite(x, dist, tau)
        self.n_offered += 1
        capacity = self.rows.shape[0]
        if self.max_rows is None:
            if self.n_rows == capacity:
                self._grow()
            slot = self.n_rows
            self.n_rows += 1
        elif self.n_rows < self.max_rows:
            slot = self.n_rows
            self.n_rows += 1
        elif self.policy == "window":
            slot = self.next_slot
            self.next_slot = (self.next_slot + 1) % self.max_rows
        else:  # Algorithm R: kept with probability max_rows / n_offered
            if rng is None:
                raise ValueError("a full reservoir draws its slot: pass rng")
            slot = int(rng.integers(self.n_offered))
            if slot >= self.max_rows:
                slot = self.max_rows
                self.n_rows = self.max_rows + 1
                self.transient = True
        k = dist.shape[0]
        self.rows[slot] = x
        self.sqdist[slot, :k] = dist
        self.tau[slot, :k] = tau
        j = int(np.argmin(dist))
        self.nearest[slot] = j
        self.nearest_sqdist[slot] = dist[j]
        self.explored[slot] = explored
        return slot

    def settle(self) -> None:
        """Drop a row of the scratch slot after its step (in place)."""
        if self.transient and self.max_rows is not None:
            self.n_rows = self.max_rows
            self.transient = False

    def replace_segments(self, V_new: np.ndarray, k: int, lo: int, hi: int, m: int) -> None:
        """Update the caches after segments ``lo..hi-1`` became ``m`` new ones (in place).

        Only the columns of the new segments are computed; the nearest
        segment is recomputed for the rows that projected on a removed
        segment or that a new segment comes at least as close to.

        Parameters
        ----------
        V_new : ndarray of shape (k_new + 1, n_features)
            Vertices of the new curve.
        k : int
            Segments of the previous curve.
        lo, hi : int
            The replaced segments of the previous curve.
        m : int
            Number of new segments, ``lo .. lo + m - 1`` of ``V_new``.
        """
        n = self.n_rows
        kn = V_new.shape[0] - 1
        X = self.rows[:n]
        new_d = np.empty((n, m))
        new_t = np.empty((n, m))
        segments_sqdist(X, np.ascontiguousarray(V_new), lo, m, new_d, new_t)
        _check_finite(new_d, new_t)  # the only new numbers: the rest moves or is copied
        D = self.sqdist[:n]
        T = self.tau[:n]
        D[:, :kn] = np.concatenate([D[:, :lo], new_d, D[:, hi:k]], axis=1)
        T[:, :kn] = np.concatenate([T[:, :lo], new_t, T[:, hi:k]], axis=1)
        amin = self.nearest[:n]
        dcur = self.nearest_sqdist[:n]
        touched = (amin >= lo) & (amin < hi)
        if m:
            touched |= np.any(new_d <= dcur[:, None], axis=1)
        amin[~touched & (amin >= hi)] += kn - k
        idx = np.flatnonzero(touched)
        if idx.size:
            j = np.argmin(D[idx, :kn], axis=1)
            amin[idx] = j
            dcur[idx] = D[idx, j]

    def nearest_tau(self) -> np.ndarray:
        """Projection parameter of each stored row on its nearest segment.

        Returns
        -------
        tau : ndarray of shape (n_rows,)
        """
        n = self.n_rows
        return self.tau[np.arange(n), self.nearest[:n]]
