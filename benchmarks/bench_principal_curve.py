"""SequentialPrincipalCurve: per-row time, the compiled step, refitting a batch curve.

Usage::

    python benchmarks/bench_principal_curve.py            # full sizes, about 5 minutes on 2 cores
    python benchmarks/bench_principal_curve.py --smoke    # tiny sizes, a few seconds (CI)
    python benchmarks/bench_principal_curve.py --out DIR  # where the .md and .csv go

One process, i.i.d. streams of the noisy 2-D cubic of Guedj & Li's Table 1
(``u ~ U[0, 10]``, ``x = (u, 0.05 (u − 5)³) + N(0, 0.1² I)``, true length
17.6) and of two clustered arcs (``make_curve_stream(kind="arcs")``).

1. Per-row update time of ``partial_fit`` with the defaults (a reservoir of
   1000 rows) against the rows seen, per block of 1000 rows, median over
   ``--repeats`` fresh runs; the ratio of the last block to the first
   (target: at most 1.5).
2. The compiled step against the NumPy kernel it replaced (the reference in
   ``tests/manifold/_local_search_reference.py``), at ``max_memory=1000``:
   from the same state after ``warm`` rows, the next ``timed`` rows with one
   kernel, then with the other, interleaved over ``--repeats`` rounds; median
   per-round ratio (target: at least 3). Two settings: the defaults, and the
   setting the issue measured (the paper's objective, ``lattice_spacing=0.1``,
   a window of 1000 rows).
3. Refit-per-arrival baseline: one batch Hastie–Stuetzle fit (princurve's
   defaults, ``skonline.manifold.hastie_stuetzle_curve``) on the first
   t rows, best of ``--repeats``, against one slpc update at t.
4. Quality: mean squared distance of 5000 fresh points to the final curve,
   and its length, for the defaults, the paper's objective and the batch curve.
5. Curves in 3-D and 5-D: generated streams (``make_curve_stream`` kinds
   ``"helix"``, ``"clusters"``, ``"bend"``, 500 rows, noise 0.1) and three
   standardised columns of bundled datasets, over ``orders`` row orders and
   ``seeds`` values of ``random_state``. Prequential loss on batches of 20
   rows against the batch Hastie–Stuetzle curve refitted on the prefix at
   every batch (``_peers.PrefixCurve``; goal: mean ratio at most 1.5), the
   spread over ``random_state`` (largest max / min over the seeds, worst
   order; goal at most 1.5) and the final curve's length over the batch
   curve's on all rows (largest over orders and seeds; goal at most 1.5 on
   the bundled clouds, where no true curve is known; the generated streams
   give the length over the true curve's instead). Also the former default's
   turn price (``turn_penalty = 0.5 (d − 1)``). ``--section dims`` runs this
   section only.

Nothing is asserted.
"""

from __future__ import annotations

import pickle
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

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
from _peers import PrefixCurve
from sklearn import datasets as skdata

from skonline.datasets import make_curve_stream
from skonline.manifold import (
    SequentialPrincipalCurve,
    _principal_curve_kernels,
    hastie_stuetzle_curve,
)
from skonline.manifold._hastie_stuetzle import curve_length
from skonline.manifold._polyline import project_to_polyline

# the NumPy kernel the compiled step replaced lives with the tests, as their reference
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.manifold._local_search_reference import score_local_candidates_reference

MEASURED_MODULES = [
    "skonline.manifold._principal_curve",
    "skonline.manifold._principal_curve_kernels",
    "skonline.manifold._lattice",
    "skonline.manifold._local_search",
    "tests.manifold._local_search_reference",
    "skonline.manifold._row_memory",
    "skonline.manifold._curve_fast",
    "skonline.manifold._hastie_stuetzle",
    "skonline.manifold._polyline",
]

#: The paper's Algorithm 3 (its practical version): every extension of the defaults off.
PAPER = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)


@dataclass(frozen=True)
class Config:
    rows: int
    block: int
    warm: int
    timed: int
    refit_sizes: tuple
    quality_rows: int
    min_timed_seconds: float


FULL = Config(
    rows=6000,
    block=1000,
    warm=2000,
    timed=300,
    refit_sizes=(500, 1000, 2000),
    quality_rows=2000,
    min_timed_seconds=1.0,
)
SMOKE = Config(
    rows=300,
    block=100,
    warm=150,
    timed=30,
    refit_sizes=(100,),
    quality_rows=150,
    min_timed_seconds=0.0,
)

#: Goals of section 5: ratio to the refitted batch curve, spread over random_state, length ratio.
DIM_GOALS = {"ratio": 1.5, "spread": 1.5, "length": 1.5}
#: Three columns of bundled datasets (standardised): clouds with no true curve.
BUNDLED_CLOUDS = (
    ("iris (sepal length, petal length, petal width)", skdata.load_iris, (0, 2, 3)),
    ("wine (alcohol, color intensity, proline)", skdata.load_wine, (0, 9, 12)),
    ("diabetes (bmi, s5, bp)", skdata.load_diabetes, (2, 8, 3)),
    ("breast_cancer (radius, texture, smoothness)", skdata.load_breast_cancer, (0, 1, 4)),
)
#: Row orders and random_state values of section 5.
DIM_RUNS = {"full": (4, 4), "smoke": (1, 2)}


def dims_streams(smoke):
    """``(name, X, true length or None)`` of section 5."""
    out = []
    for name, loader, cols in BUNDLED_CLOUDS:
        X = np.asarray(loader(return_X_y=True)[0][:, cols], dtype=np.float64)
        out.append((name, (X - X.mean(axis=0)) / X.std(axis=0), None))
    if smoke:
        return [(out[0][0], out[0][1][:60], None)]
    for d in (3, 5):
        for kind in ("helix", "clusters", "bend"):
            X, _ = make_curve_stream(500, kind=kind, noise=0.1, n_features=d, random_state=0)
            out.append((f"{kind}, {d}-D", X, true_curve_length(kind, d)))
    return out


def true_curve_length(kind, d):
    """Length of the curve a generated stream is drawn around (``None``: not a single arc)."""
    if kind == "bend":
        return 6.0
    if kind == "helix":
        t = np.linspace(0.0, 4.0 * np.pi, 20001)
        extra = [0.5 * np.cos(t / 2.0 + j * np.pi / 4.0) for j in range(d - 3)]
        return curve_length(np.column_stack([np.cos(t), np.sin(t), 0.25 * t, *extra]))
    return None


def prequential(est, X, batch=20):
    """Mean squared distance of each batch to the curve learned before it (first batch unscored)."""
    total, rows = 0.0, 0
    for start in range(0, X.shape[0], batch):
        B = X[start : start + batch]
        if start:
            total += float(project_to_polyline(B, est.vertices_)[0].sum())
            rows += B.shape[0]
        est.partial_fit(B)
    return total / rows


def dims_rows(smoke, seed):
    """Section 5: one row per stream and setting."""
    n_orders, n_seeds = DIM_RUNS["smoke" if smoke else "full"]
    rows = []
    for name, X, true_length in dims_streams(smoke):
        d = X.shape[1]
        settings = (
            ("defaults", {}),
            ("former turn price", {"turn_penalty": 0.5 * (d - 1)}),
        )
        rng = np.random.default_rng(seed)
        orders = [rng.permutation(X.shape[0]) for _ in range(n_orders)]
        hs_loss, hs_length = [], []
        for order in orders:
            hs_loss.append(prequential(PrefixCurve(), X[order]))
            hs_length.append(curve_length(hastie_stuetzle_curve(X[order])))
        for label, params in settings:
            log(f"3-D and 5-D curves: {name}, {label}")
            loss = np.empty((n_orders, n_seeds))
            length = np.empty((n_orders, n_seeds))
            for o, order in enumerate(orders):
                for r in range(n_seeds):
                    est = SequentialPrincipalCurve(random_state=r, **params)
                    loss[o, r] = prequential(est, X[order])
                    length[o, r] = est.length_ / (true_length or hs_length[o])
            ratio = float(loss.mean() / np.mean(hs_loss))
            spread = float(np.max(loss.max(axis=1) / loss.min(axis=1)))
            length_ratio = float(length.max())
            met = ratio <= DIM_GOALS["ratio"] and spread <= DIM_GOALS["spread"]
            if true_length is None:
                met = met and length_ratio <= DIM_GOALS["length"]
            rows.append(
                {
                    "stream": name,
                    "d": d,
                    "setting": label,
                    "loss": float(loss.mean()),
                    "hs_loss": float(np.mean(hs_loss)),
                    "ratio": ratio,
                    "rs_spread": spread,
                    "length_min": float(length.min()),
                    "length_max": length_ratio,
                    "length_of": "true curve" if true_length else "batch curve",
                    "goals": "met" if met else "missed",
                }
            )
    return rows


def dims_table(rows, smoke):
    n_orders, n_seeds = DIM_RUNS["smoke" if smoke else "full"]
    return "\n".join(
        [
            f"## Curves in 3-D and 5-D ({n_orders} row orders x {n_seeds} random_state values)",
            "",
            "Prequential mean squared distance on batches of 20 rows; the batch curve is "
            "refitted on the prefix at every batch. Goals: loss / batch curve's <= "
            f"{DIM_GOALS['ratio']}, spread over random_state (max / min, worst order) <= "
            f"{DIM_GOALS['spread']}, final length / the batch curve's <= {DIM_GOALS['length']} "
            "(bundled clouds; the generated streams: length over the true curve's, reported).",
            "",
            markdown_table(
                rows,
                [
                    ("stream", "stream", ""),
                    ("setting", "setting", ""),
                    ("slpc loss", "loss", ".4f"),
                    ("batch curve loss", "hs_loss", ".4f"),
                    ("ratio", "ratio", ".2f"),
                    ("random_state spread", "rs_spread", ".2f"),
                    ("length min", "length_min", ".2f"),
                    ("length max", "length_max", ".2f"),
                    ("length over", "length_of", ""),
                    ("goals", "goals", ""),
                ],
            ),
            "",
        ]
    )


def stream(kind, n, seed):
    return make_curve_stream(
        n, kind=kind, noise=0.1 if kind == "cubic" else 0.3, random_state=seed
    )[0]


def per_row_times(X, cfg, repeats):
    """Median over fresh runs of the per-row time of each block of rows (ms)."""
    times = np.empty((repeats, X.shape[0] // cfg.block))
    for r in range(repeats):
        est = SequentialPrincipalCurve(random_state=r)
        for b in range(times.shape[1]):
            tic = time.perf_counter()
            est.partial_fit(X[b * cfg.block : (b + 1) * cfg.block])
            times[r, b] = 1e3 * (time.perf_counter() - tic) / cfg.block
    return np.median(times, axis=0)


def kernel_ratio(X, cfg, params, repeats):
    """Compiled against NumPy kernel from the same state: median per-round time ratio."""
    est = SequentialPrincipalCurve(random_state=0, **params).fit(X[: cfg.warm])
    frozen = pickle.dumps(est)
    batch = X[cfg.warm : cfg.warm + cfg.timed]
    compiled = _principal_curve_kernels.score_local_candidates
    rounds = []
    for _ in range(repeats):
        out = {}
        for kernel in (compiled, score_local_candidates_reference):  # one of each per round
            with mock.patch.object(_principal_curve_kernels, "score_local_candidates", kernel):
                trial = pickle.loads(frozen)
                tic = time.perf_counter()
                trial.partial_fit(batch)
                out[kernel is compiled] = 1e3 * (time.perf_counter() - tic) / cfg.timed
        rounds.append((out[True], out[False]))
    rounds = np.array(rounds)
    return (
        float(np.median(rounds[:, 0])),
        float(np.median(rounds[:, 1])),
        float(np.median(rounds[:, 1] / rounds[:, 0])),
    )


DIM_COLUMNS = [
    "stream",
    "d",
    "setting",
    "loss",
    "hs_loss",
    "ratio",
    "rs_spread",
    "length_min",
    "length_max",
    "length_of",
    "goals",
]


def main(argv=None):
    def extra(parser):
        parser.add_argument(
            "--section", choices=("all", "dims"), default="all", help="dims: section 5 only"
        )

    args = parse_args(__doc__.split("\n\n")[0], argv, extra)
    cfg = SMOKE if args.smoke else FULL
    repeats = 1 if args.smoke else args.repeats
    digests = source_digests(MEASURED_MODULES)
    load_before = load_average()
    start = time.perf_counter()
    timing = Timing(repeats, cfg.min_timed_seconds)
    if args.section == "dims":
        with one_blas_thread():
            rows = dims_rows(args.smoke, args.seed)
        env = environment(digests, load_before, load_average(), read_at_start=True)
        text = "\n".join(
            [
                "# SequentialPrincipalCurve in 3-D and 5-D",
                "",
                *env,
                f"- run time {time.perf_counter() - start:.0f} s",
                "",
                dims_table(rows, args.smoke),
            ]
        )
        stem = "bench_principal_curve_dims" + ("_smoke" if args.smoke else "")
        write_results(args.out, stem, text, {"dims": rows}, ["section", *DIM_COLUMNS])
        return

    with one_blas_thread():
        flat_rows = []
        for kind in ("cubic", "arcs"):
            log(f"per-row time with the defaults, {kind}")
            X = stream(kind, cfg.rows, args.seed)
            ms = per_row_times(X, cfg, repeats)
            for b, value in enumerate(ms):
                flat_rows.append(
                    {
                        "stream": kind,
                        "rows": f"{b * cfg.block}-{(b + 1) * cfg.block}",
                        "per_row_ms": value,
                        "vs_first": value / ms[0],
                    }
                )
        kernel_rows = []
        X = stream("cubic", cfg.warm + cfg.timed, args.seed)
        for label, params in (
            ("defaults (reservoir of 1000 rows)", {}),
            (
                "the issue's setting: paper objective, lattice 0.1, window of 1000",
                dict(PAPER, lattice_spacing=0.1, max_memory=1000, memory_policy="window"),
            ),
        ):
            log(f"compiled vs NumPy kernel: {label}")
            fast, slow, ratio = kernel_ratio(X, cfg, params, max(repeats, 3))
            kernel_rows.append(
                {"setting": label, "compiled_ms": fast, "numpy_ms": slow, "ratio": ratio}
            )
        refit_rows = []
        Xr = stream("cubic", max(cfg.refit_sizes) + 1, args.seed)
        est = SequentialPrincipalCurve(random_state=0)
        seen = 0
        for t in cfg.refit_sizes:
            est.partial_fit(Xr[seen : t - 50])
            tic = time.perf_counter()
            est.partial_fit(Xr[t - 50 : t])
            step_ms = 1e3 * (time.perf_counter() - tic) / 50
            seen = t
            seconds, _ = best_time(lambda t=t: hastie_stuetzle_curve(Xr[:t]), timing)
            refit_rows.append(
                {
                    "t": t,
                    "refit_ms": 1e3 * seconds,
                    "slpc_ms": step_ms,
                    "speedup": 1e3 * seconds / step_ms,
                }
            )
            log(f"  HS refit t={t}: {seconds:.3f} s, slpc {step_ms:.2f} ms/row")
        X = stream("cubic", cfg.quality_rows, args.seed)
        X_test = stream("cubic", 5000, args.seed + 1)
        u = np.linspace(0.0, 10.0, 20001)
        truth = np.c_[u, 0.05 * (u - 5.0) ** 3]
        quality = [
            {
                "curve": "true curve (noise floor)",
                "msd": float(project_to_polyline(X_test, truth)[0].mean()),
                "length": curve_length(truth),
            }
        ]
        for label, params in (("slpc defaults", {}), ("slpc, paper's objective", PAPER)):
            fitted = SequentialPrincipalCurve(random_state=0, **params).fit(X)
            quality.append(
                {
                    "curve": label,
                    "msd": -float(np.mean(fitted.score_samples(X_test))),
                    "length": fitted.length_,
                }
            )
        V = hastie_stuetzle_curve(X)
        quality.append(
            {
                "curve": "Hastie-Stuetzle batch",
                "msd": float(project_to_polyline(X_test, V)[0].mean()),
                "length": curve_length(V),
            }
        )
        dim_rows = dims_rows(args.smoke, args.seed)

    elapsed = time.perf_counter() - start
    env = environment(digests, load_before, load_average(), read_at_start=True)
    first_last = {
        kind: [r["per_row_ms"] for r in flat_rows if r["stream"] == kind]
        for kind in ("cubic", "arcs")
    }
    text = "\n".join(
        [
            "# SequentialPrincipalCurve: per-row time, compiled step, refit per arrival",
            "",
            *env,
            timing_line(timing, elapsed, "median over fresh runs / interleaved rounds"),
            f"- data: make_curve_stream cubic (noise 0.1) and arcs (noise 0.3), seed {args.seed}",
            "",
            "## Per-row update time with the defaults against rows seen (ms)",
            "",
            markdown_table(
                flat_rows,
                [
                    ("stream", "stream", ""),
                    ("rows", "rows", ""),
                    ("ms per row", "per_row_ms", ".3f"),
                    ("/ first block", "vs_first", ".2f"),
                ],
            ),
            "",
            "Last block / first block: "
            + ", ".join(f"{k} {v[-1] / v[0]:.2f}" for k, v in first_last.items()),
            "",
            f"## Compiled step against the NumPy kernel ({cfg.timed} rows after {cfg.warm})",
            "",
            markdown_table(
                kernel_rows,
                [
                    ("setting", "setting", ""),
                    ("compiled (ms/row)", "compiled_ms", ".3f"),
                    ("NumPy (ms/row)", "numpy_ms", ".3f"),
                    ("ratio", "ratio", ".2f"),
                ],
            ),
            "",
            "## Refitting a batch curve on every arrival against one slpc update",
            "",
            markdown_table(
                refit_rows,
                [
                    ("t", "t", "d"),
                    ("HS refit (ms)", "refit_ms", ".1f"),
                    ("slpc (ms/row)", "slpc_ms", ".3f"),
                    ("speed-up", "speedup", ".0f"),
                ],
            ),
            "",
            f"## Mean squared distance of 5000 fresh points ({cfg.quality_rows} training rows)",
            "",
            markdown_table(
                quality,
                [("curve", "curve", ""), ("MSD", "msd", ".4f"), ("length", "length", ".1f")],
            ),
            "",
            dims_table(dim_rows, args.smoke),
        ]
    )
    stem = "bench_principal_curve" if cfg is FULL else "bench_principal_curve_smoke"
    sections = {
        "times": flat_rows,
        "kernel": kernel_rows,
        "refit": refit_rows,
        "quality": quality,
        "dims": dim_rows,
    }
    columns = [
        "section",
        "stream",
        "rows",
        "per_row_ms",
        "vs_first",
        "setting",
        "compiled_ms",
        "numpy_ms",
        "ratio",
        "t",
        "refit_ms",
        "slpc_ms",
        "speedup",
        "curve",
        "msd",
        "length",
        *[c for c in DIM_COLUMNS if c != "stream"],
    ]
    write_results(args.out, stem, text, sections, columns)


if __name__ == "__main__":
    main()
