"""Time and accuracy of the Frequent Directions sketches against their peers.

Usage::

    python benchmarks/bench_sketches.py            # full sizes, a few minutes
    python benchmarks/bench_sketches.py --smoke    # tiny sizes, a few seconds (CI)
    python benchmarks/bench_sketches.py --out DIR  # where the .md and .csv go

Everything runs in one process on the same data:

1. Dense ``X`` (``n x d``, decaying spectrum on a noise floor):
   FrequentDirections and RobustFrequentDirections (Gram and SVD compaction),
   scikit-learn's IncrementalPCA, an exact SVD of ``X`` (the best rank-k error,
   the floor) and one GEMM pass ``X @ R`` (the roofline: every streaming method
   must at least read ``X`` once and do some flops per entry).
2. CSR ``X`` at several densities and row counts: how the time of the sketches
   grows with ``nnz`` and with ``n · d``. The sketches densify at most
   ``2 · sketch_size`` rows at a time; nothing here densifies the whole matrix.
3. RobustFrequentDirections: ``partial_fit`` in batches against one ``fit``.

Timings are wall-clock seconds (``time.perf_counter``), best of ``--repeats``
runs after one untimed warm-up run; short operations get more runs, until
``min_timed_seconds`` have been timed. The error is the relative covariance error
``‖XᵀX − C‖₂ / ‖X‖_F²`` of each method's estimate ``C`` of the uncentred
``XᵀX``. Nothing is asserted: the targets are printed with the measured values.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
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
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from sklearn.base import clone
from sklearn.decomposition import IncrementalPCA

from skonline.decomposition import FrequentDirections, RobustFrequentDirections
from skonline.evaluation import covariance_error

# Targets stated (not asserted) in the output.
TARGET_GEMM_RATIO = 3.0  # RFD time <= 3 x one GEMM pass X @ R
TARGET_IPCA_SPEEDUP = 30.0  # RFD >= 30 x faster than IncrementalPCA, error no worse

# Relative tolerance of the Lanczos estimate of the CSR errors (d is too large
# for a dense eigendecomposition). skonline's covariance_error uses 1e-8, which
# needs tens of thousands of products for an RFD sketch of a square sparse
# matrix (76 000, 5 minutes, at 20000 x 20000 and 0.5 %), where
# XᵀX - BᵀB - αI has a dense cluster of eigenvalues near -α; 1e-6 converges in
# a few hundred and gives the same 4 digits printed.
CSR_ERROR_TOL = 1e-6
CSR_ERROR_MAXITER = 5000

# The measured modules, whose source digests go in the report header.
MEASURED_MODULES = (
    "skonline.decomposition._frequent_directions",
    "skonline.utils._sketch",
    "skonline.evaluation._sketch_metrics",
)


@dataclass
class Config:
    """Sizes of one benchmark run."""

    name: str
    n_samples: int
    n_features: int
    sketch_size: int
    ipca_batch_size: int
    gemm_columns: int
    # (n_samples, n_features, density) of each CSR case.
    csr_cases: list = field(default_factory=list)
    # The CSR case on which IncrementalPCA (dense batches) and streaming are run.
    csr_reference: tuple = ()
    stream_batch_size: int = 1000
    # Operations are repeated until at least this many seconds have been timed.
    min_timed_seconds: float = 0.5


FULL = Config(
    name="full",
    n_samples=20_000,
    n_features=1_000,
    sketch_size=20,
    ipca_batch_size=200,
    gemm_columns=40,
    csr_cases=[
        (20_000, 20_000, 0.001),
        (20_000, 20_000, 0.005),
        (20_000, 20_000, 0.02),
        (10_000, 20_000, 0.005),
    ],
    csr_reference=(20_000, 20_000, 0.005),
    stream_batch_size=1000,
)

SMOKE = Config(
    name="smoke",
    n_samples=2_000,
    n_features=100,
    sketch_size=20,
    ipca_batch_size=200,
    gemm_columns=40,
    csr_cases=[
        (2_000, 2_000, 0.001),
        (2_000, 2_000, 0.005),
        (2_000, 2_000, 0.02),
        (1_000, 2_000, 0.005),
    ],
    csr_reference=(2_000, 2_000, 0.005),
    stream_batch_size=200,
    min_timed_seconds=0.02,
)


# ------------------------------------------------------------------- data
def make_dense(n, d, seed):
    """``X = G · diag(decay) · Qᵀ``: Gaussian ``G``, random orthogonal ``Q``.

    ``decay_j = 1/j + 0.05``: a polynomially decaying signal on a flat noise
    floor, so ``X`` is (nearly) centred and its spectrum has a long tail.
    """
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, d))
    decay = 1.0 / np.arange(1, d + 1) + 0.05
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return (G * decay) @ Q.T


def make_csr(n, d, density, seed):
    """``scipy.sparse.random`` in CSR, uniform values in [0, 1) (not centred)."""
    rng = np.random.default_rng(seed)
    return sp.random(n, d, density=density, format="csr", dtype=np.float64, random_state=rng)


# ---------------------------------------------------------------- runners
def fitted(estimator, X):
    """A runner that fits a fresh clone of ``estimator`` on ``X``."""
    return lambda: clone(estimator).fit(X)


def streamed(estimator, X, batch_size):
    """A runner that streams ``X`` into a fresh clone in consecutive batches."""

    def run():
        est = clone(estimator)
        for start in range(0, X.shape[0], batch_size):
            est.partial_fit(X[start : start + batch_size])
        return est

    return run


# ----------------------------------------------------------------- errors
def ipca_factor(ipca, n):
    """Rows ``F`` with ``FᵀF = Vᵀ diag(s²) V + n μμᵀ`` for a fitted IncrementalPCA.

    IncrementalPCA centres: ``singular_values_`` and ``components_`` describe
    the centred ``(X − μ)ᵀ(X − μ)``. Adding the mean term ``n μμᵀ`` turns its
    rank-k model into an estimate of the uncentred ``XᵀX`` that the sketches
    approximate (``XᵀX = (X − μ)ᵀ(X − μ) + n μμᵀ``), at the price of one more
    row than the sketches' rank k budget.
    """
    top = ipca.singular_values_[:, None] * ipca.components_
    return np.vstack([top, np.sqrt(n) * ipca.mean_[None, :]])


def sparse_covariance_error(X, B, alpha=0.0):
    """``‖XᵀX − (BᵀB + αI)‖₂ / ‖X‖_F²`` for CSR ``X`` by Lanczos on an operator.

    Same quantity as ``skonline.evaluation.covariance_error``, with the
    tolerance ``CSR_ERROR_TOL`` (see its comment). ``nan`` if Lanczos does not
    converge within ``CSR_ERROR_MAXITER`` restarts.
    """
    d = X.shape[1]
    B = np.asarray(B, dtype=np.float64)
    XT = X.T.tocsr()

    def matvec(v):
        v = np.ravel(v)
        return XT @ (X @ v) - (B.T @ (B @ v) + alpha * v)

    op = LinearOperator((d, d), matvec=matvec, dtype=np.float64)
    v0 = np.ones(d) / np.sqrt(d)
    try:
        val = eigsh(
            op,
            k=1,
            which="LM",
            v0=v0,
            tol=CSR_ERROR_TOL,
            maxiter=CSR_ERROR_MAXITER,
            return_eigenvectors=False,
        )
    except ArpackNoConvergence:
        return float("nan")
    return float(abs(val[0])) / float(X.multiply(X).sum())


# ------------------------------------------------------------------ cases
def sketches(m):
    """The four sketch configurations, by name."""
    return {
        "FD (gram)": FrequentDirections(sketch_size=m),
        "RFD (gram)": RobustFrequentDirections(sketch_size=m),
        "FD (svd)": FrequentDirections(sketch_size=m, compaction="svd"),
        "RFD (svd)": RobustFrequentDirections(sketch_size=m, compaction="svd"),
    }


def ratio(a, b):
    return a / b if b and np.isfinite(a) and np.isfinite(b) else float("nan")


def add_rfd_over_fd(rows):
    """Fill ``rfd_over_fd`` of each RFD row with its error over the matching FD's."""
    by_method = {(r["case"], r["method"]): r for r in rows}
    for r in rows:
        if r["method"].startswith("RFD"):
            fd = by_method.get((r["case"], "FD" + r["method"][3:]))
            if fd is not None:
                r["rfd_over_fd"] = ratio(r["cov_error"], fd["cov_error"])


def run_dense(cfg, timing, seed, log):
    n, d, m = cfg.n_samples, cfg.n_features, cfg.sketch_size
    case = f"dense {n}x{d}"
    log(f"[dense] generating X {n} x {d} ...")
    X = make_dense(n, d, seed)
    R = np.random.default_rng(seed + 1).standard_normal((d, cfg.gemm_columns))
    rows = []

    def record(method, seconds, cov_error, rank, note=""):
        rows.append(
            {
                "case": case,
                "method": method,
                "n_samples": n,
                "n_features": d,
                "nnz": n * d,
                "seconds": seconds,
                "rows_per_s": n / seconds,
                "cov_error": cov_error,
                "rank": rank,
                "note": note,
            }
        )
        log(f"[dense] {method:<28s} {seconds:9.4f} s   error {cov_error:.4g}")

    t_gemm, _ = best_time(lambda: X @ R, timing)
    record(f"GEMM pass X @ R (d x {cfg.gemm_columns})", t_gemm, float("nan"), "", "roofline")
    with one_blas_thread() as limited:
        if limited:  # the sketches' own small BLAS calls may run on one thread
            t_one, _ = best_time(lambda: X @ R, timing)
            record("GEMM pass X @ R, 1 BLAS thread", t_one, float("nan"), "", "context")

    for method, est in sketches(m).items():
        seconds, fit = best_time(fitted(est, X), timing)
        B = fit.sketch_
        record(method, seconds, covariance_error(X, B, fit.alpha_), B.shape[0])

    ipca = IncrementalPCA(n_components=m, batch_size=cfg.ipca_batch_size)
    seconds, fit = best_time(fitted(ipca, X), timing)
    F = ipca_factor(fit, n)
    record(
        f"IncrementalPCA (batch {cfg.ipca_batch_size})",
        seconds,
        covariance_error(X, F),
        F.shape[0],
        "rank-k centred model + n·μμᵀ",
    )

    seconds, (_, s, Vt) = best_time(lambda: np.linalg.svd(X, full_matrices=False), timing)
    for k in (m - 1, m):
        # ‖XᵀX − X_kᵀX_k‖₂ = σ_{k+1}²: the best any rank-k estimate can do.
        record(
            f"exact SVD, best rank {k}",
            seconds,
            covariance_error(X, s[:k, None] * Vt[:k]),
            k,
            "numpy.linalg.svd, floor",
        )

    ipca_row = next(r for r in rows if r["method"].startswith("IncrementalPCA"))
    for r in rows:
        r["vs_gemm"] = r["seconds"] / t_gemm
        r["speedup_vs_ipca"] = ipca_row["seconds"] / r["seconds"]
        r["error_vs_ipca"] = ratio(r["cov_error"], ipca_row["cov_error"])
    add_rfd_over_fd(rows)
    return rows


def run_csr(cfg, timing, seed, log):
    rows = []
    m = cfg.sketch_size
    for i, (n, d, density) in enumerate(cfg.csr_cases):
        case = f"csr {n}x{d} density {density:g}"
        log(f"[csr] generating X {n} x {d}, density {density:g} ...")
        X = make_csr(n, d, density, seed + 10 + i)
        R = np.random.default_rng(seed + 1).standard_normal((d, cfg.gemm_columns))

        def record(method, seconds, cov_error, rank, note="", case=case, X=X, density=density):
            rows.append(
                {
                    "case": case,
                    "method": method,
                    "n_samples": X.shape[0],
                    "n_features": X.shape[1],
                    "density": density,
                    "nnz": X.nnz,
                    "seconds": seconds,
                    "rows_per_s": X.shape[0] / seconds,
                    "us_per_row": 1e6 * seconds / X.shape[0],
                    "ns_per_nnz": 1e9 * seconds / X.nnz,
                    "cov_error": cov_error,
                    "rank": rank,
                    "note": note,
                }
            )
            log(f"[csr]   {method:<28s} {seconds:9.4f} s   error {cov_error:.4g}")

        t_gemm, _ = best_time(lambda X=X, R=R: X @ R, timing)
        record(f"sparse X @ R (d x {cfg.gemm_columns})", t_gemm, float("nan"), "", "roofline")
        for method, est in sketches(m).items():
            if method.endswith("(svd)"):
                continue  # the Gram/SVD comparison is the dense case's
            seconds, fit = best_time(fitted(est, X), timing)
            B = fit.sketch_
            record(method, seconds, sparse_covariance_error(X, B, fit.alpha_), B.shape[0])
        if (n, d, density) == tuple(cfg.csr_reference):
            # IncrementalPCA.partial_fit rejects sparse input; its fit densifies
            # one batch of batch_size rows at a time (memory batch_size x d).
            ipca = IncrementalPCA(n_components=m, batch_size=cfg.ipca_batch_size)
            seconds, fit = best_time(fitted(ipca, X), Timing(1), warmup=False)
            F = ipca_factor(fit, n)
            record(
                f"IncrementalPCA (batch {cfg.ipca_batch_size})",
                seconds,
                sparse_covariance_error(X, F),
                F.shape[0],
                "fit densifies each batch; one run, no warm-up",
            )
        for r in rows:
            if r["case"] == case:
                r["vs_gemm"] = r["seconds"] / t_gemm
    add_rfd_over_fd(rows)
    return rows


def run_streaming(cfg, timing, seed, log):
    """RFD: one ``fit`` against ``partial_fit`` in batches, dense and CSR."""
    m, b = cfg.sketch_size, cfg.stream_batch_size
    n, d, density = cfg.csr_reference
    datasets = {
        f"dense {cfg.n_samples}x{cfg.n_features}": make_dense(cfg.n_samples, cfg.n_features, seed),
        f"csr {n}x{d} density {density:g}": make_csr(
            n, d, density, seed + 10 + cfg.csr_cases.index(tuple(cfg.csr_reference))
        ),
    }
    rows = []
    est = RobustFrequentDirections(sketch_size=m)
    for case, X in datasets.items():
        t_fit, one = best_time(fitted(est, X), timing)
        t_stream, many = best_time(streamed(est, X, b), timing)
        diff = float(np.max(np.abs(one.sketch_ - many.sketch_)))
        dalpha = abs(one.alpha_ - many.alpha_)
        runs = (("RFD fit (one call)", t_fit), (f"RFD partial_fit x {b}", t_stream))
        for method, seconds in runs:
            rows.append(
                {
                    "case": case,
                    "method": method,
                    "n_samples": X.shape[0],
                    "n_features": X.shape[1],
                    "seconds": seconds,
                    "rows_per_s": X.shape[0] / seconds,
                    "vs_fit": seconds / t_fit,
                    "max_abs_sketch_diff": diff,
                    "alpha_diff": dalpha,
                }
            )
        log(f"[stream] {case}: fit {t_fit:.4f} s, partial_fit {t_stream:.4f} s")
    return rows


# ----------------------------------------------------------------- output
DENSE_COLUMNS = [
    ("method", "method", ""),
    ("seconds", "seconds", ".4g"),
    ("rows/s", "rows_per_s", ".3g"),
    ("cov. error", "cov_error", ".4g"),
    ("rank", "rank", ""),
    ("x GEMM", "vs_gemm", ".3g"),
    ("speed-up vs IPCA", "speedup_vs_ipca", ".3g"),
    ("error / IPCA", "error_vs_ipca", ".3g"),
    ("RFD / FD error", "rfd_over_fd", ".3g"),
]

CSR_COLUMNS = [
    ("case", "case", ""),
    ("method", "method", ""),
    ("nnz", "nnz", ""),
    ("seconds", "seconds", ".4g"),
    ("µs / row", "us_per_row", ".3g"),
    ("ns / nnz", "ns_per_nnz", ".3g"),
    ("cov. error", "cov_error", ".4g"),
    ("rank", "rank", ""),
    ("x X @ R", "vs_gemm", ".3g"),
    ("RFD / FD error", "rfd_over_fd", ".3g"),
]

STREAM_COLUMNS = [
    ("case", "case", ""),
    ("method", "method", ""),
    ("seconds", "seconds", ".4g"),
    ("rows/s", "rows_per_s", ".3g"),
    ("/ fit", "vs_fit", ".3g"),
    ("max abs sketch diff", "max_abs_sketch_diff", ".3g"),
    ("alpha diff", "alpha_diff", ".3g"),
]

CSV_COLUMNS = [
    "section",
    "case",
    "method",
    "n_samples",
    "n_features",
    "density",
    "nnz",
    "seconds",
    "rows_per_s",
    "us_per_row",
    "ns_per_nnz",
    "cov_error",
    "rank",
    "vs_gemm",
    "speedup_vs_ipca",
    "error_vs_ipca",
    "rfd_over_fd",
    "vs_fit",
    "max_abs_sketch_diff",
    "alpha_diff",
    "note",
]


def targets(dense_rows):
    """Lines stating the two targets next to the measured values."""
    by = {r["method"]: r for r in dense_rows}
    rfd = by["RFD (gram)"]
    ipca = next(r for r in dense_rows if r["method"].startswith("IncrementalPCA"))
    gemm_ok = rfd["vs_gemm"] <= TARGET_GEMM_RATIO
    fast_ok = rfd["speedup_vs_ipca"] >= TARGET_IPCA_SPEEDUP
    err_ok = rfd["cov_error"] <= ipca["cov_error"]
    return [
        f"- RFD time <= {TARGET_GEMM_RATIO:g} x the GEMM pass: measured "
        f"{rfd['vs_gemm']:.3g} x ({rfd['seconds']:.4g} s vs {by_gemm(dense_rows):.4g} s): "
        + ("**met**" if gemm_ok else "**not met**"),
        f"- RFD >= {TARGET_IPCA_SPEEDUP:g} x faster than IncrementalPCA at a covariance error "
        f"no worse: measured {rfd['speedup_vs_ipca']:.3g} x faster "
        f"({'met' if fast_ok else 'not met'}), error {rfd['cov_error']:.4g} vs "
        f"{ipca['cov_error']:.4g} = {rfd['error_vs_ipca']:.3g} x "
        f"({'no worse' if err_ok else 'worse'}): "
        + ("**met**" if fast_ok and err_ok else "**not met**"),
    ]


def by_gemm(dense_rows):
    return next(r["seconds"] for r in dense_rows if r["method"].startswith("GEMM"))


def report(cfg, timing, dense, csr, stream, load_before, load_after, elapsed):
    n, d, m = cfg.n_samples, cfg.n_features, cfg.sketch_size
    parts = [
        f"# Matrix sketch benchmark ({cfg.name})",
        "",
        *environment(source_digests(MEASURED_MODULES), load_before, load_after),
        timing_line(timing, elapsed),
        "- cov. error: ‖XᵀX − C‖₂ / ‖X‖_F² of each estimate C of the uncentred XᵀX; "
        "C = BᵀB (FD), BᵀB + αI (RFD), Vᵀdiag(s²)V + n·μμᵀ (IncrementalPCA), "
        "X_kᵀX_k (exact SVD); rank = rows of B (or of the factor)",
        "",
        f"## Dense X, {n} x {d}, sketch_size = {m}",
        "",
        "X = G · diag(1/j + 0.05) · Qᵀ (Gaussian G, random orthogonal Q).",
        "",
        markdown_table(dense, DENSE_COLUMNS),
        "",
        "Targets (stated, not asserted):",
        "",
        *targets(dense),
        "",
        f"## CSR X, sketch_size = {m}",
        "",
        "scipy.sparse.random, uniform values in [0, 1). The sketches densify at most "
        f"2 · sketch_size = {2 * m} rows at a time. IncrementalPCA runs on one case only: "
        "partial_fit rejects sparse input and fit densifies each batch "
        f"({cfg.ipca_batch_size} x d); it is timed once, without warm-up. "
        f"Errors by Lanczos (relative tolerance {CSR_ERROR_TOL:g}).",
        "",
        markdown_table(csr, CSR_COLUMNS),
        "",
        f"## Streaming: RFD partial_fit in batches of {cfg.stream_batch_size} rows vs one fit",
        "",
        markdown_table(stream, STREAM_COLUMNS),
        "",
    ]
    return "\n".join(parts)


def main(argv=None):
    args = parse_args(__doc__.split("\n\n")[0], argv)
    cfg = SMOKE if args.smoke else FULL

    load_before = load_average()
    start = time.perf_counter()
    timing = Timing(args.repeats, cfg.min_timed_seconds)
    dense = run_dense(cfg, timing, args.seed, log)
    csr = run_csr(cfg, timing, args.seed, log)
    stream = run_streaming(cfg, timing, args.seed, log)
    elapsed = time.perf_counter() - start
    text = report(cfg, timing, dense, csr, stream, load_before, load_average(), elapsed)

    stem = "bench_sketches" if cfg is FULL else "bench_sketches_smoke"
    sections = {"dense": dense, "csr": csr, "streaming": stream}
    write_results(args.out, stem, text, sections, CSV_COLUMNS)


if __name__ == "__main__":
    main()
