"""
====================================================
Sketching a Dask array on a cluster, as a script
====================================================

:func:`skonline.dask.fit_sketch` fits one sketch per row block where the block
lives and merges the sketches in a tree, moving :math:`O(md)` floats per merge
instead of the rows. This example starts a local cluster of two worker
processes, so it must run as a saved script (``python dask_fit_sketch.py``).

The ``if __name__ == "__main__":`` guard is required: the worker processes
start by importing the script, and without the guard each would start a
cluster of its own (``Nanny failed to start``). The same holds for every
program that starts a ``LocalCluster`` with processes. It needs the optional
extra ``pip install "skonline[dask]"``. The documentation shows this script
without running it.
"""

import numpy as np


def main(n_rows=100_000, n_features=200, block_rows=10_000):
    import dask.array as da
    from distributed import Client, LocalCluster

    from skonline.dask import fit_sketch
    from skonline.decomposition import RobustFrequentDirections

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        rng = da.random.default_rng(0)
        scales = 1.0 / np.arange(1, n_features + 1)  # a decaying spectrum
        X = rng.standard_normal((n_rows, n_features), chunks=(block_rows, n_features)) * scales
        rfd = fit_sketch(RobustFrequentDirections(n_components=10), X)  # fitted, in the client
    print(f"{rfd.n_samples_seen_} rows sketched into {rfd.sketch_.shape[0]} rows")
    print("explained variance ratio of the top 3 directions:", rfd.explained_variance_ratio_[:3])
    return rfd


if __name__ == "__main__":
    main()
