"""Sketching a Dask array on a local cluster: 1 vs 2 worker processes, merged vs single stream.

Usage::

    python benchmarks/bench_dask.py            # 200 000 x 1 000, about 3 minutes on 2 cores
    python benchmarks/bench_dask.py --smoke    # 20 000 x 100, a few seconds (CI)
    python benchmarks/bench_dask.py --out DIR  # where the .md and .csv go

The array is generated on the workers (``X = G · diag(1/j + 0.05) · Qᵀ + 3``,
row blocks of 10 000) and persisted there, once per cluster; then
:func:`skonline.dask.fit_sketch` sketches it block by block on the workers
and merges the sketches in a binary tree. Two ``distributed.LocalCluster``
objects run side by side, with one and with two single-threaded worker
processes; their runs are interleaved over the rounds (``_rounds.py``) and the
speed-up is the median per-round ratio.

Accuracy: the merged sketch against one ``RobustFrequentDirections`` streamed
over the same blocks in this process (``partial_fit`` block by block, the
single-stream sketch), both against the exact centred scatter ``S`` (formed
on the workers): ``‖S − C‖₂ / tr S`` and the bound ``shrinkage_ ≤
min_k ‖S − S_k‖_F / (m − k)``. Requires the ``dask`` extra.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from _common import environment, load_average, log, markdown_table, parse_args, write_results
from _common import source_digests as digests
from _rounds import interleaved, median_ratio, median_time

from skonline.decomposition import RobustFrequentDirections

MEASURED_MODULES = ("skonline.dask", "skonline.decomposition._frequent_directions")


@dataclass
class Config:
    name: str
    n_samples: int
    n_features: int
    block_rows: int
    sketch_size: int
    rounds: int


FULL = Config("full", 200_000, 1_000, 10_000, 20, 3)
SMOKE = Config("smoke", 20_000, 100, 2_000, 20, 1)


def make_array(cfg, seed):
    """The dask array, generated block by block where it is computed."""
    import dask.array as da

    d = cfg.n_features
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    decay = 1.0 / np.arange(1, d + 1) + 0.05
    M = (decay[:, None] * Q.T).astype(np.float64)  # G · diag(decay) · Qᵀ = G · M
    G = da.random.default_rng(seed).standard_normal((cfg.n_samples, d), chunks=(cfg.block_rows, d))
    return G @ M + 3.0


def exact_scatter(X):
    """The centred scatter ``S = XᵀX − n μμᵀ`` (formed on the workers) and the mean."""
    import dask

    n = X.shape[0]
    gram, total = dask.compute(X.T @ X, X.sum(axis=0))
    mean = total / n
    return gram - n * np.outer(mean, mean), mean


def errors(S, est):
    C = est.covariance_operator() @ np.eye(S.shape[0])
    err = np.linalg.eigvalsh(S - C)
    return float(max(abs(err[0]), abs(err[-1])) / np.trace(S))


def main(argv=None):
    args = parse_args(__doc__.split("\n\n")[0], argv)
    cfg = SMOKE if args.smoke else FULL
    from distributed import Client, LocalCluster

    from skonline.dask import fit_sketch

    load_before = load_average()
    started = time.perf_counter()
    estimator = RobustFrequentDirections(sketch_size=cfg.sketch_size)
    clusters, clients, arrays = {}, {}, {}
    try:
        for workers in (1, 2):
            clusters[workers] = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            clients[workers] = Client(clusters[workers], set_as_default=False)
            X = make_array(cfg, args.seed)
            arrays[workers] = clients[workers].persist(X)
            log(f"[dask] {workers} worker(s): array persisted")

        def runner(workers):
            def run():
                client = clients[workers]
                return client.compute(
                    fit_sketch(estimator, arrays[workers], compute=False)
                ).result()

            return run

        runners = {f"{w} worker process(es)": runner(w) for w in (1, 2)}
        times, results = interleaved(runners, cfg.rounds, log=log)
        merged = results["2 worker process(es)"]
        with clients[2].as_current():
            S, mean = exact_scatter(arrays[2])
            single = RobustFrequentDirections(sketch_size=cfg.sketch_size)
            start = time.perf_counter()
            for block in arrays[2].to_delayed().ravel():
                single.partial_fit(block.compute())
            t_single = time.perf_counter() - start
    finally:
        for client in clients.values():
            client.close()
        for cluster in clusters.values():
            cluster.close()
    eig = np.clip(np.linalg.eigvalsh(S)[::-1], 0.0, None)
    m = cfg.sketch_size
    bound = min(eig[k:].sum() / (m - k) for k in range(m))
    n_blocks = cfg.n_samples // cfg.block_rows
    rows = []
    for name, est, seconds in (
        ("fit_sketch, 1 worker process", results["1 worker process(es)"], None),
        ("fit_sketch, 2 worker processes", merged, None),
        ("single stream (partial_fit per block, this process)", single, t_single),
    ):
        key = {"fit_sketch, 1 worker process": "1 worker process(es)"}.get(
            name, "2 worker process(es)" if "2 worker" in name else None
        )
        row = {
            "method": name,
            "seconds": seconds if key is None else median_time(times, key),
            "cov_error": errors(S, est),
            "shrinkage_over_trace": est.shrinkage_ / np.trace(S),
            "bound_over_trace": bound / np.trace(S),
            "mean_error": float(np.max(np.abs(est.mean_ - mean))),
        }
        if key is not None:
            row["speedup_vs_1"] = median_ratio(times, "1 worker process(es)", key)
        rows.append(row)
    text = "\n".join(
        [
            f"# Dask sketch benchmark ({cfg.name})",
            "",
            *environment(
                digests(MEASURED_MODULES), load_before, load_average(), read_at_start=False
            ),
            f"- {cfg.n_samples} x {cfg.n_features} float64 in {n_blocks} row blocks, "
            f"RobustFrequentDirections(sketch_size={m}); {cfg.rounds} interleaved rounds after "
            f"a warm-up; total run time {time.perf_counter() - started:.0f} s",
            "",
            markdown_table(
                rows,
                [
                    ("method", "method", ""),
                    ("seconds (median)", "seconds", ".4g"),
                    ("speed-up vs 1 worker", "speedup_vs_1", ".3g"),
                    ("‖S − C‖₂ / tr S", "cov_error", ".4g"),
                    ("shrinkage_ / tr S", "shrinkage_over_trace", ".4g"),
                    ("bound / tr S", "bound_over_trace", ".4g"),
                    ("max |mean_ − μ|", "mean_error", ".3g"),
                ],
            ),
            "",
            "Every sketch satisfies ‖S − C‖₂ ≤ shrinkage_ / 2 ≤ bound / 2 (RFD): the merged "
            "sketch keeps the single-stream guarantee.",
            "",
        ]
    )
    columns = [
        "method",
        "seconds",
        "speedup_vs_1",
        "cov_error",
        "shrinkage_over_trace",
        "bound_over_trace",
        "mean_error",
    ]
    stem = "bench_dask" if cfg is FULL else "bench_dask_smoke"
    write_results(args.out, stem, text, {"dask": rows}, ["section", *columns])


if __name__ == "__main__":
    main()
