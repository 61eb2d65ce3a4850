"""SequentialPrincipalCurve (slpc) against refitting a batch principal curve on every arrival.

Usage::

    python benchmarks/bench_principal_curve.py            # full sizes, about 10 minutes on 2 cores
    python benchmarks/bench_principal_curve.py --smoke    # tiny sizes, a few seconds (CI)
    python benchmarks/bench_principal_curve.py --out DIR  # where the .md and .csv go

One process, one i.i.d. stream of the noisy 2-D cubic of Guedj & Li's Table 1
(``u ~ U[0, 10]``, ``x = (u, 0.05 (u − 5)³) + N(0, 0.1² I)``), lattice
spacing 0.1, defaults otherwise.

1. Per-row update time of ``partial_fit`` against the number of rows seen,
   for the faithful estimator (every past row is stored and scores the
   candidates; its cost grows with the rows near the curve, so it is run to
   ``faithful_rows`` only) and with ``max_memory`` (a sliding window; flat
   in t). The time of a checkpoint is the mean per row since the previous
   checkpoint ("interval") and over the last block of rows before it
   ("block").
2. Refit-per-arrival baseline: one batch Hastie–Stuetzle fit (princurve's
   defaults: smoothing spline df 5, stretch 2, thresh 1e-3, maxit 10; the
   private ``skonline.manifold._hastie_stuetzle``) on the first t rows, best of
   ``--repeats``: what a batch user pays per arrival at t. ``pcurvepy2`` and
   ``prinpy`` are timed the same way when they are importable (they are not
   installed by this script).
3. Quality: mean squared distance of 5000 fresh points of the same curve to
   each final curve, and the noise floor (distance to the true curve).

Targets (issue): with ``max_memory`` per-row time flat in t; slpc at least
100× faster per arrival than refitting at 2000 rows. Nothing is asserted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from _common import (
    Timing,
    best_time,
    environment,
    load_average,
    log,
    markdown_table,
    one_blas_thread,
    parse_args,
    source_digests,
    timing_line,
    write_results,
)

from skonline.manifold import SequentialPrincipalCurve
from skonline.manifold._hastie_stuetzle import hastie_stuetzle_curve
from skonline.utils._polyline import project_to_polyline

MEASURED_MODULES = [
    "skonline.manifold._principal_curve",
    "skonline.manifold._lattice",
    "skonline.manifold._local_search",
    "skonline.manifold._row_memory",
    "skonline.manifold._hastie_stuetzle",
    "skonline.utils._polyline",
]


@dataclass(frozen=True)
class Config:
    rows: int
    faithful_rows: int
    block: int
    checkpoints: tuple
    refit_sizes: tuple
    max_memory: int
    min_timed_seconds: float


FULL = Config(
    rows=20000,
    faithful_rows=20000,
    block=250,
    checkpoints=(500, 1000, 2000, 5000, 10000, 20000),
    refit_sizes=(500, 1000, 2000),
    max_memory=1000,
    min_timed_seconds=1.0,
)
SMOKE = Config(
    rows=600,
    faithful_rows=400,
    block=100,
    checkpoints=(200, 400, 600),
    refit_sizes=(200,),
    max_memory=200,
    min_timed_seconds=0.0,
)


def cubic_stream(n, seed):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.0, 10.0, n)
    return np.c_[u, 0.05 * (u - 5.0) ** 3] + 0.1 * rng.standard_normal((n, 2))


def true_curve():
    g = np.linspace(0.0, 10.0, 20001)
    return np.c_[g, 0.05 * (g - 5.0) ** 3]


def stream_times(X, cfg, max_memory, seed):
    """Stream ``X`` in blocks; per-row time of the block ending at each checkpoint."""
    est = SequentialPrincipalCurve(lattice_spacing=0.1, max_memory=max_memory, random_state=seed)
    rows, elapsed, last_t, last_block = [], 0.0, 0, 0.0
    for start in range(0, X.shape[0], cfg.block):
        stop = min(start + cfg.block, X.shape[0])
        tic = time.perf_counter()
        est.partial_fit(X[start:stop])
        last_block = time.perf_counter() - tic
        elapsed += last_block
        if stop in cfg.checkpoints:
            rows.append(
                {
                    "t": stop,
                    "per_row_ms": 1e3 * elapsed / (stop - last_t),
                    "block_ms": 1e3 * last_block / (stop - start),
                    "segments": est.n_segments_,
                }
            )
            log(f"  max_memory={max_memory}: t={stop} {rows[-1]['per_row_ms']:.2f} ms/row")
            elapsed, last_t = 0.0, stop
    return est, rows


def peer_fitters():
    """Batch principal curves of PyPI peers, when importable: name -> (version, fit(X))."""
    out = {}
    try:
        import pcurvepy2

        def fit_pcurvepy2(X):
            pc = pcurvepy2.PrincipalCurve(k=5)
            pc.fit(X)
            return pc

        out["pcurvepy2"] = (getattr(pcurvepy2, "__version__", "?"), fit_pcurvepy2)
    except Exception:  # not installed, or a broken install
        pass
    try:
        import prinpy.glob

        def fit_prinpy(X):
            cl = prinpy.glob.CLPCG()
            cl.fit(X[:, 0], X[:, 1])
            return cl

        out["prinpy"] = ("?", fit_prinpy)
    except Exception:
        pass
    return out


def main(argv=None):
    args = parse_args(__doc__.split("\n\n")[0], argv)
    cfg = SMOKE if args.smoke else FULL
    repeats = 1 if args.smoke else args.repeats
    digests = source_digests(MEASURED_MODULES)
    load_before = load_average()
    start = time.perf_counter()
    timing = Timing(repeats, cfg.min_timed_seconds)
    X = cubic_stream(cfg.rows, args.seed)
    X_test = cubic_stream(5000, args.seed + 1)
    truth_msd = float(project_to_polyline(X_test, true_curve())[0].mean())

    with one_blas_thread():
        log("slpc, faithful (all past rows)")
        faithful, faithful_rows = stream_times(X[: cfg.faithful_rows], cfg, None, args.seed)
        log(f"slpc, max_memory={cfg.max_memory}")
        windowed, windowed_rows = stream_times(X, cfg, cfg.max_memory, args.seed)
        refit_rows = []
        peers = peer_fitters()
        for t in cfg.refit_sizes:
            seconds, curve = best_time(lambda t=t: hastie_stuetzle_curve(X[:t]), timing)
            row = {"t": t, "method": "Hastie-Stuetzle refit", "refit_ms": 1e3 * seconds}
            row["msd"] = float(project_to_polyline(X_test, curve)[0].mean())
            refit_rows.append(row)
            log(f"  HS refit t={t}: {seconds:.3f} s")
            for name, (_, fit) in peers.items():
                seconds, _ = best_time(lambda t=t, fit=fit: fit(X[:t]), timing)
                refit_rows.append({"t": t, "method": f"{name} refit", "refit_ms": 1e3 * seconds})

    def per_row_at(rows, t, key="per_row_ms"):
        return next((r[key] for r in rows if r["t"] == t), np.nan)

    for r in refit_rows:
        r["slpc_ms"] = per_row_at(faithful_rows, r["t"])
        r["slpc_window_ms"] = per_row_at(windowed_rows, r["t"])
        r["speedup"] = r["refit_ms"] / r["slpc_ms"]
        r["speedup_window"] = r["refit_ms"] / r["slpc_window_ms"]
    time_rows = []
    for t in cfg.checkpoints:
        time_rows.append(
            {
                "t": t,
                "faithful_ms": per_row_at(faithful_rows, t),
                "window_ms": per_row_at(windowed_rows, t),
                "faithful_block_ms": per_row_at(faithful_rows, t, "block_ms"),
                "window_block_ms": per_row_at(windowed_rows, t, "block_ms"),
                "faithful_k": next((r["segments"] for r in faithful_rows if r["t"] == t), None),
                "window_k": next((r["segments"] for r in windowed_rows if r["t"] == t), None),
            }
        )
    quality = [
        {"method": "true curve (noise floor)", "rows": "", "msd": truth_msd},
        {
            "method": "slpc faithful",
            "rows": cfg.faithful_rows,
            "msd": -faithful.score(X_test),
            "k": faithful.n_segments_,
        },
        {
            "method": f"slpc max_memory={cfg.max_memory}",
            "rows": cfg.rows,
            "msd": -windowed.score(X_test),
            "k": windowed.n_segments_,
        },
    ] + [
        {"method": "Hastie-Stuetzle batch", "rows": r["t"], "msd": r["msd"]}
        for r in refit_rows
        if "msd" in r
    ]
    elapsed = time.perf_counter() - start
    env = environment(
        digests,
        load_before,
        load_average(),
        read_at_start=True,
        extra_versions=[(n, v) for n, (v, _) in peer_fitters().items()],
    )
    peers_line = ", ".join(peers) if peers else "pcurvepy2 and prinpy are not installed: skipped"
    text = "\n".join(
        [
            "# SequentialPrincipalCurve: per-row update time and refit-per-arrival",
            "",
            *env,
            timing_line(timing, elapsed, "slpc blocks timed once"),
            f"- data: noisy 2-D cubic (Table 1 of Guedj & Li), i.i.d. order, seed {args.seed}; "
            f"lattice_spacing 0.1, defaults otherwise; peers: {peers_line}",
            "",
            "## Per-row update time against rows seen (ms)",
            "",
            markdown_table(
                time_rows,
                [
                    ("rows seen t", "t", "d"),
                    ("faithful, interval", "faithful_ms", ".2f"),
                    ("faithful, block", "faithful_block_ms", ".2f"),
                    (f"max_memory={cfg.max_memory}, interval", "window_ms", ".2f"),
                    (f"max_memory={cfg.max_memory}, block", "window_block_ms", ".2f"),
                    ("k faithful", "faithful_k", "d"),
                    ("k window", "window_k", "d"),
                ],
            ),
            "",
            "## Refitting a batch curve on every arrival against one slpc update",
            "",
            markdown_table(
                refit_rows,
                [
                    ("t", "t", "d"),
                    ("method", "method", ""),
                    ("refit (ms)", "refit_ms", ".1f"),
                    ("slpc (ms/row)", "slpc_ms", ".2f"),
                    ("speed-up", "speedup", ".0f"),
                    ("slpc window (ms/row)", "slpc_window_ms", ".2f"),
                    ("speed-up window", "speedup_window", ".0f"),
                ],
            ),
            "",
            "## Mean squared distance of 5000 fresh points to the final curve",
            "",
            markdown_table(
                quality,
                [
                    ("curve", "method", ""),
                    ("rows", "rows", ""),
                    ("MSD", "msd", ".4f"),
                    ("k", "k", ""),
                ],
            ),
            "",
        ]
    )
    stem = "bench_principal_curve" if cfg is FULL else "bench_principal_curve_smoke"
    sections = {"times": time_rows, "refit": refit_rows, "quality": quality}
    columns = [
        "section",
        "t",
        "faithful_ms",
        "window_ms",
        "method",
        "refit_ms",
        "slpc_ms",
        "speedup",
        "slpc_window_ms",
        "speedup_window",
        "rows",
        "msd",
        "k",
    ]
    write_results(args.out, stem, text, sections, columns)


if __name__ == "__main__":
    main()
