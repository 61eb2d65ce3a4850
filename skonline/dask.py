"""Sketch a Dask array on a cluster: one sketch per block on the workers, merged in a tree.

Frequent Directions sketches are mergeable summaries (Ghashami, Liberty,
Phillips & Woodruff 2016): the sketches of disjoint parts of a matrix merge
into a sketch of the whole with the same guarantee as one pass over it. So a
matrix too large for one machine is sketched where its blocks live: each
worker fits a sketch of its row blocks, and the sketches are merged pairwise
(a tree of depth ``log₂(n_blocks)``), moving ``O(sketch_size · n_features)``
numbers per merge instead of the data.

Requires the optional extra ``dask`` (``pip install "skonline[dask]"``). With
a ``distributed.Client`` active, the work runs on its cluster; otherwise on
Dask's default scheduler.

For the online learners (RFD-SON, scale-invariant learners), which are not
mergeable, dask-ml's ``Incremental`` wrapper streams the blocks of a Dask
array through ``partial_fit`` in order (user guide, :ref:`sketching`).
"""

from __future__ import annotations

import functools
from numbers import Integral

import numpy as np
from sklearn.base import clone

from .utils._progress import Progress

__all__ = ["fit_sketch"]


def _fit_block(estimator, block):
    """A fresh sketch of one block, or ``None`` for a block without rows (runs on a worker)."""
    if block.shape[0] == 0:
        return None
    return estimator.fit(block)


def _merge_group(*sketches):
    """Merge a group of sketches, left to right, skipping empty blocks (runs on a worker)."""
    merged = None
    for other in sketches:
        if other is not None:
            merged = other if merged is None else merged.merge(other)
    return merged


def _check_not_empty(sketch):
    """The sketch of the whole array; an array whose every block is empty has none."""
    if sketch is None:
        raise ValueError(_EMPTY)
    return sketch


_EMPTY = "X has no rows (every block is empty): there is nothing to sketch."


def fit_sketch(estimator, X, *, split_every=2, compute=True, verbose=0):
    """Sketch a Dask array block by block on the workers; tree-reduce with ``merge``.

    Each row block of ``X`` is sketched by a clone of ``estimator`` where it
    lives, then the sketches are merged ``split_every`` at a time until one
    remains. By the mergeability of Frequent Directions the result satisfies
    the same bound as a single pass over ``X``: for every ``k <
    sketch_size``, ``‖SᵀS − BᵀB‖₂ ≤ shrinkage_ ≤ ‖S − S_k‖_F² / (sketch_size −
    k)`` for the (centred) matrix ``S`` (half of it for
    :class:`~skonline.decomposition.RobustFrequentDirections`), and the mean
    and the per-feature variances are exact.

    Parameters
    ----------
    estimator : FrequentDirections or RobustFrequentDirections
        The sketch to fit (not modified; clones are fitted). With
        the randomized sparse solver (``sparse_solver`` ``"randomized"``, or
        ``"auto"`` on CSR blocks) and an integer ``random_state``, each block
        gets its own seed, spawned from it.
    X : dask.array.Array of shape (n_samples, n_features)
        The data, dense or with ``scipy.sparse`` CSR blocks. Column chunks are
        joined first (a sketch needs whole rows). Row blocks without rows
        (chunks of size 0, or blocks left empty by boolean indexing, whose
        sizes are unknown) are skipped.
    split_every : int, default=2
        How many sketches one merge task combines (the arity of the tree).
    compute : bool, default=True
        Return the fitted estimator; ``False`` returns a ``dask.delayed``
        object computing it.
    verbose : int, default=0
        With ``compute=True``, ``1`` shows the rows of the blocks sketched
        so far on ``sys.stderr`` as they finish: a bar with the rows per
        second and the time left in a terminal or a notebook (a row counter
        when the sizes of the blocks are unknown), at most about ten lines
        elsewhere (:ref:`progress`). The estimator's own ``verbose`` acts on
        the workers.

    Returns
    -------
    sketch : estimator or dask.delayed.Delayed
        The sketch of all rows of ``X``, fitted: an estimator of the same
        class and parameters as ``estimator``.

    Raises
    ------
    ValueError
        If ``X`` has no rows (every block is empty); with ``compute=False``,
        when the result is computed if the sizes of the blocks are unknown.

    Examples
    --------
    >>> import dask.array as da
    >>> from skonline.dask import fit_sketch
    >>> from skonline.decomposition import RobustFrequentDirections
    >>> X = da.random.default_rng(0).standard_normal((4000, 50), chunks=(500, 50))
    >>> rfd = fit_sketch(RobustFrequentDirections(n_components=5), X)
    >>> rfd.n_samples_seen_, rfd.transform(X[:3].compute()).shape
    (4000, (3, 5))
    """
    import dask
    import dask.array as da

    from .decomposition._frequent_directions import _BaseFrequentDirections

    if not isinstance(estimator, _BaseFrequentDirections):
        raise TypeError(
            "fit_sketch needs a FrequentDirections or RobustFrequentDirections estimator "
            f"(a mergeable sketch); got {type(estimator).__name__}"
        )
    if not isinstance(split_every, Integral) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}")
    arity = int(split_every)
    X = da.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    blocks = list(X.to_delayed().ravel())
    seeds = _block_seeds(estimator, len(blocks))
    # a block known to be empty is left out; one of unknown size (after boolean
    # indexing) is checked where it lives, and an empty one merges as nothing
    rows = X.chunks[0]
    kept = [i for i, size in enumerate(rows) if size != 0]  # NaN: unknown
    if not kept:
        raise ValueError(_EMPTY)
    fitted = []
    for i in kept:
        block, seed = blocks[i], seeds[i]
        sketch = clone(estimator)
        if seed is not None:
            sketch.set_params(random_state=seed)
        fitted.append(dask.delayed(_fit_block)(sketch, block))
    if not compute:
        return _tree(fitted, arity, dask.delayed(_merge_group), dask.delayed(_check_not_empty))
    sizes = [rows[i] for i in kept]
    total = int(sum(sizes)) if all(np.isfinite(sizes)) else None
    with Progress(total, desc="fit_sketch", verbose=verbose) as progress:
        client = _client() if progress.enabled else None
        if client is None:
            root = _tree(fitted, arity, dask.delayed(_merge_group), dask.delayed(_check_not_empty))
            if not progress.enabled:
                return root.compute()
            return _compute_locally(root, {block.key for block in fitted}, progress)
        return _compute_on_cluster(client, fitted, arity, progress)


def _tree(level, arity, merge, finish):
    """Merge ``level`` ``arity`` at a time until one remains; ``finish`` it."""
    while len(level) > 1:
        level = [merge(*level[i : i + arity]) for i in range(0, len(level), arity)]
    return finish(level[0])


def _rows(sketch):
    """Rows a block's sketch learned (a block without rows has none)."""
    return 0 if sketch is None else sketch.n_samples_seen_


def _client():
    """The active ``distributed.Client``, or ``None`` (Dask's local schedulers)."""
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _compute_locally(root, block_keys, progress):
    """Compute on a local scheduler, reporting each block's rows when its sketch is done."""
    from dask.callbacks import Callback

    def posttask(key, result, dsk, state, worker_id):
        if key in block_keys:
            progress.update(_rows(result))

    with Callback(posttask=posttask):
        return root.compute()


def _compute_on_cluster(client, fitted, arity, progress):
    """Compute on a cluster, reporting each block's rows as its sketch finishes.

    The sketches of the blocks become futures on the workers; the merge tree
    is built on them, so it runs as they finish, exactly as in one graph.
    """
    from distributed import as_completed

    sketches = client.compute(fitted)
    counts = client.map(_rows, sketches)
    merge = functools.partial(client.submit, _merge_group)
    root = _tree(sketches, arity, merge, functools.partial(client.submit, _check_not_empty))
    for count in as_completed(counts):
        progress.update(count.result())
    return root.result()


def _block_seeds(estimator, n_blocks):
    """Independent seeds for the blocks of a randomized sparse sketch (else ``None``)."""
    if estimator.sparse_solver == "exact" or not isinstance(estimator.random_state, Integral):
        return [None] * n_blocks
    children = np.random.SeedSequence(int(estimator.random_state)).spawn(n_blocks)
    return [int(child.generate_state(1)[0]) for child in children]
