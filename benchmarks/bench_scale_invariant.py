"""Scale-invariant online learners (Kotłowski 2017) against learners that need scaling.

Usage::

    python benchmarks/bench_scale_invariant.py            # full sizes, a few minutes on 2 cores
    python benchmarks/bench_scale_invariant.py --smoke    # tiny sizes, a few seconds (CI)
    python benchmarks/bench_scale_invariant.py --out DIR  # where the .md and .csv go

Everything runs in one process on the same data. Protocol: a fixed permutation,
70 % of the rows streamed once in that order (progressive validation: each
row, or mini-batch of 10 rows for the scikit-learn peers, is predicted before
it is learned), then the accuracy of the final model on the other 30 %. Each
data set is also streamed with its columns multiplied by ``10^U(−k, k)``
(one fixed draw per ``k``) to show which learners care about feature scales.

1. Classification (breast_cancer, wine, digits, and a synthetic stream:
   ``x ~ N(0, Toeplitz(0.5))``, 20 features, logistic labels):
   ``ScaleInvariantClassifier`` (coordinate, coordinate with ``center=True``,
   full) against ``SGDClassifier(loss="log_loss")`` raw, behind an online
   ``StandardScaler`` (``partial_fit`` on the rows seen before each
   prediction) and behind an oracle scaler (fitted on the whole training
   split), a diagonal AdaGrad (logistic, learning rate tuned by progressive
   error at ``k = 0`` and then kept, as a user would), and Vowpal Wabbit's
   default normalized adaptive update when ``vowpalwabbit`` is installed.
2. Regression (diabetes): ``ScaleInvariantRegressor`` against ``SGDRegressor``
   (raw, online scaler, oracle scaler).
3. Throughput at d = 100 dense and on a sparse text-like stream.

Nothing is asserted: the targets are printed next to the measured values.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from _common import (
    Timing,
    best_time,
    environment,
    load_average,
    log,
    markdown_table,
    parse_args,
    source_digests,
    timing_line,
    write_results,
)
from scipy.linalg import toeplitz
from scipy.special import expit
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.preprocessing import StandardScaler

from skonline.linear_model import ScaleInvariantClassifier, ScaleInvariantRegressor

try:
    import vowpalwabbit
except ImportError:  # optional peer
    vowpalwabbit = None

#: Target (printed, not asserted): coordinate-variant rows/s at least this fraction of
#: SGDClassifier.partial_fit rows/s at d = 100 dense.
TARGET_SGD_FRACTION = 0.5
ADAGRAD_GRID = (0.01, 0.1, 1.0, 10.0)
SGD_BATCH = 10
MEASURED_MODULES = (
    "skonline.linear_model._scale_invariant",
    "skonline.linear_model._scale_invariant_kernels",
    "skonline.linear_model._losses",
    "skonline.utils._rank_one",
)


@dataclass
class Config:
    name: str
    real_ks: tuple
    synthetic_ks: tuple
    synthetic_rows: int
    throughput_rows: int
    throughput_single_rows: int
    full_rows: int
    sparse_shape: tuple
    repeats: int
    min_seconds: float


FULL = Config("full", (0, 3, 6), tuple(range(7)), 5000, 20000, 2000, 5000, (20000, 100_000), 3, 0.5)
SMOKE = Config("smoke", (0, 6), (0, 6), 600, 2000, 200, 500, (2000, 10_000), 1, 0.0)


# -------------------------------------------------------------------- data
def split(X, y, seed):
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    n_train = int(0.7 * X.shape[0])
    return X[perm[:n_train]], y[perm[:n_train]], X[perm[n_train:]], y[perm[n_train:]]


def column_scales(d, k, seed):
    return 10.0 ** np.random.default_rng(1000 + seed).uniform(-k, k, d) if k else np.ones(d)


def synthetic(n, seed, d=20):
    rng = np.random.default_rng(seed)
    L = np.linalg.cholesky(toeplitz(0.5 ** np.arange(d)))
    X = rng.standard_normal((n, d)) @ L.T
    w = rng.standard_normal(d)
    y = (rng.random(n) < expit(X @ w + 0.5)).astype(int)
    return X, y


# ----------------------------------------------------------------- learners
def binary_log_loss(scores, y01):
    s = np.where(y01 == 1, 1.0, -1.0)
    return float(np.mean(np.logaddexp(0.0, -s * scores)))


def run_si(params, Xtr, ytr, Xte, yte, classes, timing):
    def run():
        return ScaleInvariantClassifier(**params).partial_fit(Xtr, ytr, classes=classes)

    seconds, est = best_time(run, timing)
    binary = len(classes) == 2
    return {
        "online_error": est.online_error_rate_,
        "online_loss": est.cumulative_loss_ / len(ytr) if binary else np.nan,
        "test_accuracy": est.score(Xte, yte),
        "rows_per_s": len(ytr) / seconds,
    }


def run_sgd(scaler, Xtr, ytr, Xte, yte, classes):
    """Test-then-train over mini-batches; scaler in {None, "online", "oracle"}."""
    start = time.perf_counter()
    sgd = SGDClassifier(loss="log_loss", random_state=0)
    sc = StandardScaler()
    if scaler == "oracle":
        sc.fit(Xtr)
    mistakes, loss, fitted = 0, 0.0, False
    binary = len(classes) == 2
    for lo in range(0, len(ytr), SGD_BATCH):
        xb, yb = Xtr[lo : lo + SGD_BATCH], ytr[lo : lo + SGD_BATCH]
        xs = xb if scaler is None or (scaler == "online" and not fitted) else sc.transform(xb)
        if fitted:
            scores = sgd.decision_function(xs)
            pred = sgd.predict(xs)
        else:  # the zero model: score 0, first class
            scores = np.zeros(len(yb))
            pred = np.full(len(yb), classes[0])
        mistakes += int(np.sum(pred != yb))
        if binary:
            loss += binary_log_loss(scores, yb) * len(yb)
        if scaler == "online":
            sc.partial_fit(xb)
            xs = sc.transform(xb)
        sgd.partial_fit(xs, yb, classes=classes)
        fitted = True
    seconds = time.perf_counter() - start
    Xt = Xte if scaler is None else sc.transform(Xte)
    return {
        "online_error": mistakes / len(ytr),
        "online_loss": loss / len(ytr) if binary else np.nan,
        "test_accuracy": sgd.score(Xt, yte),
        "rows_per_s": len(ytr) / seconds,
    }


class DiagonalAdaGrad:
    """Diagonal AdaGrad (Duchi et al. 2011) on the logistic loss, one-vs-rest, with intercept.

    ``w ← w − η g x / (δ + sqrt(Σ g² x²))``: the step per weight is unitless,
    while a weight should have the units of ``1/x``; not scale invariant.
    """

    def __init__(self, eta, classes, d, delta=1e-8):
        self.eta, self.classes, self.delta = eta, np.asarray(classes), delta
        K = 1 if len(classes) == 2 else len(classes)
        self.W = np.zeros((K, d + 1))
        self.G = np.zeros((K, d + 1))

    def targets(self, y):
        idx = np.searchsorted(self.classes, y)
        if self.W.shape[0] == 1:
            return np.where(idx == 1, 1.0, -1.0)[:, None]
        T = -np.ones((len(y), self.W.shape[0]))
        T[np.arange(len(y)), idx] = 1.0
        return T

    def label(self, scores):
        if scores.shape[-1] == 1:
            return self.classes[(scores[..., 0] > 0).astype(int)]
        return self.classes[np.argmax(scores, axis=-1)]

    def stream(self, X, y):
        T = self.targets(y)
        Xa = np.hstack([X, np.ones((X.shape[0], 1))])
        scores = np.empty_like(T)
        for i in range(Xa.shape[0]):
            x = Xa[i]
            p = self.W @ x
            scores[i] = p
            g = -T[i] * expit(-T[i] * p)
            gx = np.outer(g, x)
            self.G += gx * gx
            self.W -= self.eta * gx / (self.delta + np.sqrt(self.G))
        return scores

    def decision(self, X):
        return X @ self.W[:, :-1].T + self.W[:, -1]


def run_adagrad(eta, Xtr, ytr, Xte, yte, classes):
    start = time.perf_counter()
    model = DiagonalAdaGrad(eta, classes, Xtr.shape[1])
    scores = model.stream(Xtr, ytr)
    seconds = time.perf_counter() - start
    binary = len(classes) == 2
    with np.errstate(over="ignore", invalid="ignore"):
        test_pred = model.label(model.decision(Xte))
    return {
        "online_error": float(np.mean(model.label(scores) != ytr)),
        "online_loss": binary_log_loss(scores[:, 0], ytr) if binary else np.nan,
        "test_accuracy": float(np.mean(test_pred == yte)),
        "rows_per_s": len(ytr) / seconds,
    }


def vw_lines(X, labels):
    out = []
    for label, row in zip(labels, X, strict=True):
        nz = np.flatnonzero(row)
        out.append(f"{label} | " + " ".join(f"f{j}:{row[j]:.17g}" for j in nz))
    return out


def run_vw(Xtr, ytr, Xte, yte, classes):
    """VW's default update (adaptive, normalized, invariant), logistic loss, one pass."""
    binary = len(classes) == 2
    idx_tr, idx_te = np.searchsorted(classes, ytr), np.searchsorted(classes, yte)
    lab_tr = np.where(idx_tr == 1, 1, -1) if binary else idx_tr + 1
    lab_te = np.where(idx_te == 1, 1, -1) if binary else idx_te + 1
    train, test = vw_lines(Xtr, lab_tr), vw_lines(Xte, lab_te)
    args = "--loss_function logistic --quiet"
    if not binary:
        args = f"--oaa {len(classes)} " + args
    start = time.perf_counter()
    ws = vowpalwabbit.Workspace(args)
    mistakes, loss = 0, 0.0
    for label, line in zip(lab_tr, train, strict=True):
        ex = ws.parse(line)
        ws.learn(ex)
        if binary:
            p = ex.get_simplelabel_prediction()
            mistakes += (1 if p > 0 else -1) != label
            loss += float(np.logaddexp(0.0, -label * p))
        else:
            mistakes += ex.get_multiclass_prediction() != label
        ws.finish_example(ex)
    seconds = time.perf_counter() - start
    if binary:
        pred = np.array([1 if ws.predict(line) > 0 else -1 for line in test])
    else:
        pred = np.array([ws.predict(line) for line in test])
    ws.finish()
    return {
        "online_error": mistakes / len(ytr),
        "online_loss": loss / len(ytr) if binary else np.nan,
        "test_accuracy": float(np.mean(pred == lab_te)),
        "rows_per_s": len(ytr) / seconds,
    }


SI_METHODS = (
    ("SI coordinate", {"variant": "coordinate"}),
    ("SI coordinate center=True", {"variant": "coordinate", "center": True}),
    ("SI full", {"variant": "full"}),
)


def classification_runs(name, X, y, ks, seed, timing):
    """Every method at every k on one data set; returns result rows."""
    Xtr0, ytr, Xte0, yte = split(X, y, seed)
    classes = np.unique(y)
    rows = []
    eta = None
    for k in ks:
        a = column_scales(X.shape[1], k, seed)
        Xtr, Xte = Xtr0 * a, Xte0 * a
        tag = f"[{name} k={k}]"
        log(f"{tag} scale-invariant learners")
        for method, params in SI_METHODS:
            rows.append(
                {"data": name, "k": k, "method": method}
                | run_si(params, Xtr, ytr, Xte, yte, classes, timing)
            )
        log(f"{tag} SGD and AdaGrad")
        for method, scaler in (
            ("SGD raw", None),
            ("SGD + online scaler", "online"),
            ("SGD + oracle scaler", "oracle"),
        ):
            rows.append(
                {"data": name, "k": k, "method": method}
                | run_sgd(scaler, Xtr, ytr, Xte, yte, classes)
            )
        if eta is None:  # tuned once, at k = 0, by progressive error
            tuned = [run_adagrad(e, Xtr, ytr, Xte, yte, classes) for e in ADAGRAD_GRID]
            eta = ADAGRAD_GRID[int(np.argmin([r["online_error"] for r in tuned]))]
        rows.append(
            {"data": name, "k": k, "method": f"AdaGrad (eta={eta:g}, tuned at k=0)"}
            | run_adagrad(eta, Xtr, ytr, Xte, yte, classes)
        )
        if vowpalwabbit is not None:
            log(f"{tag} Vowpal Wabbit")
            rows.append(
                {"data": name, "k": k, "method": "VW normalized (default)"}
                | run_vw(Xtr, ytr, Xte, yte, classes)
            )
    return rows


# -------------------------------------------------------------- regression
def run_regression(X, y, ks, seed, timing):
    Xtr0, ytr, Xte0, yte = split(X, y, seed)
    rows = []
    for k in ks:
        a = column_scales(X.shape[1], k, seed)
        Xtr, Xte = Xtr0 * a, Xte0 * a
        log(f"[diabetes k={k}]")
        for method, params in (
            ("SI coordinate", {}),
            ("SI coordinate center_target", {"center_target": True}),
            ("SI coordinate center + center_target", {"center": True, "center_target": True}),
            ("SI full", {}),
            ("SI full center_target", {"variant": "full", "center_target": True}),
        ):
            if method == "SI full":
                params = {"variant": "full"}

            def run(params=params, Xtr=Xtr):
                return ScaleInvariantRegressor(**params).partial_fit(Xtr, ytr)

            seconds, est = best_time(run, timing)
            rows.append(
                {
                    "data": "diabetes",
                    "k": k,
                    "method": method,
                    "online_mae": est.cumulative_loss_ / len(ytr),
                    "test_mae": float(np.mean(np.abs(est.predict(Xte) - yte))),
                    "test_r2": est.score(Xte, yte),
                    "rows_per_s": len(ytr) / seconds,
                }
            )
        for method, scaler in (
            ("SGDRegressor raw", None),
            ("SGDRegressor + online scaler", "online"),
            ("SGDRegressor + oracle scaler", "oracle"),
        ):
            start = time.perf_counter()
            sgd, sc, fitted, abs_err = SGDRegressor(random_state=0), StandardScaler(), False, 0.0
            if scaler == "oracle":
                sc.fit(Xtr)
            for lo in range(0, len(ytr), SGD_BATCH):
                xb, yb = Xtr[lo : lo + SGD_BATCH], ytr[lo : lo + SGD_BATCH]
                xs = (
                    xb
                    if scaler is None or (scaler == "online" and not fitted)
                    else sc.transform(xb)
                )
                pred = sgd.predict(xs) if fitted else np.zeros(len(yb))
                abs_err += float(np.sum(np.abs(np.nan_to_num(pred) - yb)))
                if scaler == "online":
                    sc.partial_fit(xb)
                    xs = sc.transform(xb)
                sgd.partial_fit(xs, yb)
                fitted = True
            seconds = time.perf_counter() - start
            Xt = Xte if scaler is None else sc.transform(Xte)
            pred = np.nan_to_num(sgd.predict(Xt), nan=0.0, posinf=1e300, neginf=-1e300)
            rows.append(
                {
                    "data": "diabetes",
                    "k": k,
                    "method": method,
                    "online_mae": abs_err / len(ytr),
                    "test_mae": float(np.mean(np.abs(pred - yte))),
                    "test_r2": 1 - np.sum((pred - yte) ** 2) / np.sum((yte - yte.mean()) ** 2),
                    "rows_per_s": len(ytr) / seconds,
                }
            )
    return rows


# -------------------------------------------------------------- throughput
def throughput(cfg, timing, seed):
    rng = np.random.default_rng(seed)
    n, d = cfg.throughput_rows, 100
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) > 0).astype(int)
    rows = []

    def batched(make, Xs, ys, batch=1000):
        def run():
            est = make()
            for lo in range(0, len(ys), batch):
                est.partial_fit(Xs[lo : lo + batch], ys[lo : lo + batch], classes=[0, 1])
            return est

        return run

    cases = [
        ("SI coordinate", "1000-row batches", n, lambda: ScaleInvariantClassifier()),
        ("SI full", "1000-row batches", cfg.full_rows, lambda: ScaleInvariantClassifier("full")),
        ("SGDClassifier", "1000-row batches", n, lambda: SGDClassifier(random_state=0)),
    ]
    for method, feed, m, make in cases:
        log(f"[throughput] {method}")
        seconds, _ = best_time(batched(make, X[:m], y[:m]), timing)
        rows.append(
            {
                "method": method,
                "input": "dense 100",
                "feeding": feed,
                "rows": m,
                "seconds": seconds,
                "rows_per_s": m / seconds,
            }
        )
    m = cfg.throughput_single_rows
    log("[throughput] SGDClassifier one row per call")
    seconds, _ = best_time(batched(lambda: SGDClassifier(random_state=0), X[:m], y[:m], 1), timing)
    rows.append(
        {
            "method": "SGDClassifier",
            "input": "dense 100",
            "feeding": "1 row per call",
            "rows": m,
            "seconds": seconds,
            "rows_per_s": m / seconds,
        }
    )
    # sparse text-like: power-law feature frequencies, random per-feature scales
    n_s, d_s = cfg.sparse_shape
    nnz = 50
    cols = np.minimum((rng.pareto(1.0, n_s * nnz) * 10).astype(np.int64), d_s - 1)
    Xs = sp.csr_matrix(
        (
            rng.standard_normal(n_s * nnz) * 10.0 ** rng.uniform(-3, 3, d_s)[cols],
            (np.repeat(np.arange(n_s), nnz), cols),
        ),
        shape=(n_s, d_s),
    )
    Xs.sum_duplicates()
    ys = (Xs @ rng.standard_normal(d_s) > 0).astype(int)
    for method, make in (
        ("SI coordinate", lambda: ScaleInvariantClassifier()),
        ("SI coordinate per_feature", lambda: ScaleInvariantClassifier(time_counter="per_feature")),
        ("SGDClassifier", lambda: SGDClassifier(random_state=0)),
    ):
        log(f"[throughput sparse] {method}")
        seconds, _ = best_time(batched(make, Xs, ys), timing)
        rows.append(
            {
                "method": method,
                "input": f"CSR {d_s} (nnz/row {Xs.nnz / n_s:.0f})",
                "feeding": "1000-row batches",
                "rows": n_s,
                "seconds": seconds,
                "rows_per_s": n_s / seconds,
            }
        )
    return rows


# ------------------------------------------------------------------ report
def pivot(rows, value, ks, scale=100.0, spec=".2f"):
    methods = list(dict.fromkeys(r["method"] for r in rows))
    out = []
    for m in methods:
        line = {"method": m}
        for r in rows:
            if r["method"] == m:
                v = r[value]
                line[f"k{r['k']}"] = None if v is None or np.isnan(v) else v * scale
        out.append(line)
    cols = [("method", "method", "")] + [(f"k={k}", f"k{k}", spec) for k in ks]
    return markdown_table(out, cols)


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv)
    cfg = SMOKE if args.smoke else FULL
    timing = Timing(1 if args.smoke else args.repeats, cfg.min_seconds)
    digests = source_digests(MEASURED_MODULES)
    load_before = load_average()
    t0 = time.perf_counter()
    seed = args.seed
    data = [
        ("breast_cancer", *load_breast_cancer(return_X_y=True), cfg.real_ks),
        ("wine", *load_wine(return_X_y=True), cfg.real_ks),
        ("digits", *load_digits(return_X_y=True), cfg.real_ks),
        ("synthetic", *synthetic(cfg.synthetic_rows, seed), cfg.synthetic_ks),
    ]
    if args.smoke:
        data[2] = ("digits", data[2][1][:400], data[2][2][:400], cfg.real_ks)
    sections, parts = {}, []
    for name, X, y, ks in data:
        rows = classification_runs(name, X.astype(float), y, ks, seed, timing)
        sections[name] = rows
        n_train = int(0.7 * X.shape[0])
        parts += [
            f"### {name} ({X.shape[0]} x {X.shape[1]}, {len(np.unique(y))} classes, "
            f"{n_train} training rows), columns x 10^U(-k, k)",
            "",
            "Held-out accuracy %:",
            "",
            pivot(rows, "test_accuracy", ks),
            "",
            "Progressive-validation error % (predict, then learn):",
            "",
            pivot(rows, "online_error", ks),
            "",
        ]
        if len(np.unique(y)) == 2:
            parts += [
                "Progressive-validation log loss:",
                "",
                pivot(rows, "online_loss", ks, scale=1.0, spec=".4f"),
                "",
            ]
        parts += ["Training rows/s:", "", pivot(rows, "rows_per_s", ks, scale=1.0, spec=".3g"), ""]
    Xd, yd = load_diabetes(return_X_y=True)
    reg_rows = run_regression(Xd, yd, cfg.real_ks, seed, timing)
    sections["diabetes"] = reg_rows
    parts += [
        f"### diabetes (regression, {Xd.shape[0]} x {Xd.shape[1]}), columns x 10^U(-k, k)",
        "",
        "Held-out MAE:",
        "",
        pivot(reg_rows, "test_mae", cfg.real_ks, scale=1.0),
        "",
        "Progressive-validation MAE:",
        "",
        pivot(reg_rows, "online_mae", cfg.real_ks, scale=1.0),
        "",
        "Held-out R²:",
        "",
        pivot(reg_rows, "test_r2", cfg.real_ks, scale=1.0, spec=".3f"),
        "",
    ]
    tp = throughput(cfg, timing, seed)
    sections["throughput"] = tp
    coord = next(r for r in tp if r["method"] == "SI coordinate" and r["input"] == "dense 100")
    sgd_batch = next(
        r
        for r in tp
        if r["method"] == "SGDClassifier"
        and r["feeding"] == "1000-row batches"
        and r["input"] == "dense 100"
    )
    sgd_single = next(r for r in tp if r["feeding"] == "1 row per call")
    ratio_b = coord["rows_per_s"] / sgd_batch["rows_per_s"]
    ratio_s = coord["rows_per_s"] / sgd_single["rows_per_s"]
    for r in tp:
        r["us"] = 1e6 / r["rows_per_s"]
    parts += [
        "### Throughput (partial_fit only)",
        "",
        markdown_table(
            tp,
            [
                ("method", "method", ""),
                ("input", "input", ""),
                ("feeding", "feeding", ""),
                ("rows", "rows", ""),
                ("seconds", "seconds", ".4g"),
                ("rows/s", "rows_per_s", ".3g"),
                ("µs / row", "us", ".3g"),
            ],
        ),
        "",
        f"Target: SI coordinate rows/s >= {TARGET_SGD_FRACTION:g} x SGDClassifier.partial_fit "
        "at d = 100 dense:",
        "",
        f"- against SGD fed 1000-row batches: ratio {ratio_b:.3g}: "
        f"**{'met' if ratio_b >= TARGET_SGD_FRACTION else 'not met'}**;",
        f"- against SGD fed one row per call: ratio {ratio_s:.3g}: "
        f"**{'met' if ratio_s >= TARGET_SGD_FRACTION else 'not met'}**.",
        "",
    ]
    elapsed = time.perf_counter() - t0
    vw = vowpalwabbit.__version__ if vowpalwabbit is not None else "not installed"
    header = [
        f"# bench_scale_invariant ({cfg.name})",
        "",
        *environment(digests, load_before, load_average(), extra_versions=[("vowpalwabbit", vw)]),
        timing_line(timing, elapsed, "SGD, AdaGrad and VW stream loops timed once"),
        "",
    ]
    if vowpalwabbit is None:
        header += ["Vowpal Wabbit: skipped (vowpalwabbit not installed).", ""]
    text = "\n".join(header + parts)
    stem = "bench_scale_invariant" + ("_smoke" if args.smoke else "")
    columns = [
        "section",
        "data",
        "k",
        "method",
        "online_error",
        "online_loss",
        "test_accuracy",
        "online_mae",
        "test_mae",
        "test_r2",
        "input",
        "feeding",
        "rows",
        "seconds",
        "rows_per_s",
    ]
    write_results(args.out, stem, text, sections, columns)


if __name__ == "__main__":
    main()
