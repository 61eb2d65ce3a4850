"""Per-call overhead: one row per ``partial_fit``, and ``prequential_score`` at small batches.

Usage::

    python benchmarks/bench_overhead.py            # about a minute
    python benchmarks/bench_overhead.py --smoke    # a few seconds (CI)

**One-row calls.** A true online user learns one row per call (River's
``learn_one`` habit). For every skonline estimator (defaults; the online-PCA
learners on rows of norm 1), a stream of ``d = 20`` features, after the
estimator has learned a first batch: each round times ``--calls`` calls of
``partial_fit`` on one row, and beside it

* the *kernel* alone: the estimator's pass (``_partial_fit_state``, the
  family's update with its class weights, targets and online mistakes) over
  the same rows, one row at a time, on arguments validated beforehand and
  without the commit: what the call costs beyond validation, the state
  contract and the BLAS thread pin;
* ``SGDClassifier().partial_fit`` on the same rows, one per call;
* River's ``linear_model.LogisticRegression().learn_one`` on the same rows
  as dicts (when River is installed).

Every runner starts each round from its own copy of the warmed-up learner.
The rounds are interleaved (``_rounds.py``): the reported times are medians
over the rounds and the ratios medians of the per-round ratios. The overhead
of a call is its median time minus the kernel's. Target (issue): at most
30 µs of overhead per call for every estimator, "at least 9 x less than
``SGDClassifier.partial_fit``" (277 µs a call when the issue measured it);
on a shared machine the µs follow the load, so the goal is judged on the
overhead over SGD's call in the same rounds (median of the per-round ratio,
at most 1/9).

**Prequential scoring.** ``prequential_score(est, X, y, batch_size=10)``
(accuracy) against the hand-written loop it replaces (predict a batch, count
the hits, ``partial_fit`` it), same batches, interleaved; target at most
1.2 x the loop. Nothing is asserted.
"""

from __future__ import annotations

import copy
import time

import numpy as np
from _common import (
    environment,
    load_average,
    log,
    markdown_table,
    parse_args,
    source_digests,
    write_results,
)
from _peers import river_available
from _rounds import interleaved, median_ratio
from sklearn.linear_model import SGDClassifier

import skonline
from skonline.evaluation import prequential_score

MEASURED_MODULES = [
    "skonline.base",
    "skonline.utils._validation",
    "skonline.utils._blas",
    "skonline.evaluation._prequential",
]
OVERHEAD_TARGET_US = 30.0
#: The same goal in units of ``SGDClassifier.partial_fit``'s one-row call, which the
#: issue measured at 277 µs: "at least 9 x less" (a load-robust form of 30 µs).
OVERHEAD_TARGET_X_SGD = 1 / 9
PREQUENTIAL_TARGET = 1.2

#: name -> (constructor, kind): "c" classifier, "r" regressor, "t" transformer;
#: "unit" rows of norm 1 (the online-PCA learners' guarantees need them)
ESTIMATORS = {
    "RFDSONClassifier": (lambda: skonline.RFDSONClassifier(), "c"),
    "RFDSONRegressor": (lambda: skonline.RFDSONRegressor(), "r"),
    "ScaleInvariantClassifier": (lambda: skonline.ScaleInvariantClassifier(), "c"),
    "ScaleInvariantRegressor": (lambda: skonline.ScaleInvariantRegressor(), "r"),
    # the defaults above run two learners (forgetting_factor="auto"); one learner:
    "ScaleInvariantClassifier (one learner)": (
        lambda: skonline.ScaleInvariantClassifier(forgetting_factor=1.0),
        "c",
    ),
    "ScaleInvariantRegressor (one learner)": (
        lambda: skonline.ScaleInvariantRegressor(forgetting_factor=1.0),
        "r",
    ),
    "RFDSONRegressor (one learner)": (lambda: skonline.RFDSONRegressor(forgetting_factor=1.0), "r"),
    "FrequentDirections": (lambda: skonline.FrequentDirections(), "t"),
    "RobustFrequentDirections": (lambda: skonline.RobustFrequentDirections(), "t"),
    "AdaptiveOnlinePCA": (lambda: skonline.AdaptiveOnlinePCA(n_components=2), "unit"),
    "RandomizedOnlinePCA": (lambda: skonline.RandomizedOnlinePCA(n_components=2), "unit"),
    "OnlineVarianceMinimizer": (lambda: skonline.OnlineVarianceMinimizer(), "unit"),
    "SequentialPrincipalCurve": (lambda: skonline.SequentialPrincipalCurve(), "t"),
}


def _stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    score = X @ w
    y_class = (score + 0.3 * rng.standard_normal(n) > 0).astype(np.int64)
    y_reg = score + 0.1 * rng.standard_normal(n)
    return X, y_class, y_reg


def _warm(kind, make, X, y_class, y_reg, warm_rows):
    """The estimator after a first batch, and ``(X, y)`` of the rows it learns per call."""
    est = make()
    if kind == "unit":
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
    y = {"c": y_class, "r": y_reg}.get(kind)
    head = slice(0, warm_rows)
    if kind == "c":
        est.partial_fit(X[head], y[head], classes=np.array([0, 1]))
    elif y is not None:
        est.partial_fit(X[head], y[head])
    else:
        est.partial_fit(X[head])
    return est, X[warm_rows:], None if y is None else y[warm_rows:]


def _calls(copies, X, y, calls):
    """A runner: one-row ``partial_fit`` calls on a fresh copy of the warmed-up learner."""
    rows = [X[i : i + 1] for i in range(calls)]
    targets = [None if y is None else y[i : i + 1] for i in range(calls)]

    def run():
        est = copies.pop()
        if y is None:
            for row in rows:
                est.partial_fit(row)
        else:
            for row, target in zip(rows, targets, strict=True):
                est.partial_fit(row, target)

    return run


def _kernel(est, X, y, calls):
    """A runner: the estimator's pass alone, row by row, on pre-validated arguments."""
    prepared = []
    for i in range(calls):
        target = None if y is None else y[i : i + 1]
        prepared.append(est._validate_batch(X[i : i + 1], target, False))
    start = est._state

    def run():
        state = start
        for Xi, yi, kwargs in prepared:
            state = est._partial_fit_state(state, Xi, yi, **kwargs)
        return state

    return run


def _river(X, y, calls):
    from river import linear_model

    rows = [dict(enumerate(X[i].tolist())) for i in range(calls)]
    labels = [bool(v) for v in y[:calls]]
    warm = linear_model.LogisticRegression()
    for i in range(calls):  # learned once, as the others' first batch
        warm.learn_one(rows[i], labels[i])
    copies = [copy.deepcopy(warm) for _ in range(64)]

    def run():
        model = copies.pop() if copies else copy.deepcopy(warm)
        for row, label in zip(rows, labels, strict=True):
            model.learn_one(row, label)

    return run


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def one_row_calls(d, calls, rounds, seed, names, clock):
    warm_rows = 50
    X, y_class, y_reg = _stream(warm_rows + calls, d, seed)
    runners = {}
    sgd = SGDClassifier(random_state=0).partial_fit(
        X[:warm_rows], y_class[:warm_rows], classes=np.array([0, 1])
    )
    runners["SGDClassifier"] = _calls(
        [copy.deepcopy(sgd) for _ in range(rounds + 1)], X[warm_rows:], y_class[warm_rows:], calls
    )
    if river_available():
        runners["river"] = _river(X[warm_rows:], y_class[warm_rows:], calls)
    for name in names:
        make, kind = ESTIMATORS[name]
        est, Xs, ys = _warm(kind, make, X, y_class, y_reg, warm_rows)
        runners[name] = _calls([copy.deepcopy(est) for _ in range(rounds + 1)], Xs, ys, calls)
        runners[f"{name} kernel"] = _kernel(est, Xs, ys, calls)
    times, _ = interleaved(runners, rounds, clock=clock)
    per_call = {key: 1e6 * np.asarray(t) / calls for key, t in times.items()}
    rows = []
    for name in ["SGDClassifier", *(["river"] if "river" in times else []), *names]:
        row = {"estimator": name, "us_per_call": float(np.median(per_call[name]))}
        if f"{name} kernel" in per_call:
            overhead = per_call[name] - per_call[f"{name} kernel"]
            row["kernel_us"] = float(np.median(per_call[f"{name} kernel"]))
            row["overhead_us"] = float(np.median(overhead))
            # the goal in units of SGD's call, measured in the same rounds: robust to load
            row["overhead_x_sgd"] = float(np.median(overhead / per_call["SGDClassifier"]))
            met = row["overhead_x_sgd"] <= OVERHEAD_TARGET_X_SGD
            row["goal"] = "met" if met else "not met"
        row["x_sgd"] = median_ratio(times, name, "SGDClassifier")
        if "river" in times:
            row["x_river"] = median_ratio(times, name, "river")
        rows.append(row)
    return rows


def prequential_vs_loop(n, batch_size, rounds, seed, clock):
    X, y, _ = _stream(n, 20, seed)
    classes = np.array([0, 1])
    rows = []
    for name, make in (
        ("RFDSONClassifier", skonline.RFDSONClassifier),
        ("SGDClassifier", lambda: SGDClassifier(random_state=0)),
    ):

        def loop(make=make):
            est, hits = make(), 0
            est.partial_fit(X[:batch_size], y[:batch_size], classes=classes)
            for start in range(batch_size, n, batch_size):
                Xb, yb = X[start : start + batch_size], y[start : start + batch_size]
                hits += int(np.count_nonzero(est.predict(Xb) == yb))
                est.partial_fit(Xb, yb)
            return hits / (n - batch_size)

        def scored(make=make):
            res = prequential_score(make(), X, y, batch_size=batch_size, classes=classes)
            return float(res.cumulative_accuracy[-1])

        runners = {"loop": loop, "prequential_score": scored}
        times, results = interleaved(runners, rounds, clock=clock)
        if results["loop"] != results["prequential_score"]:
            raise AssertionError(f"{name}: the loop and prequential_score disagree")
        ratio = median_ratio(times, "prequential_score", "loop")
        rows.append(
            {
                "estimator": name,
                "rows": n,
                "batch_size": batch_size,
                "loop_ms": 1e3 * float(np.median(times["loop"])),
                "prequential_ms": 1e3 * float(np.median(times["prequential_score"])),
                "ratio": ratio,
                "goal": "met" if ratio <= PREQUENTIAL_TARGET else "not met",
            }
        )
    return rows


CALL_COLUMNS = [
    ("estimator", "estimator", ""),
    ("µs per one-row call", "us_per_call", ".3g"),
    ("kernel µs", "kernel_us", ".3g"),
    ("overhead µs", "overhead_us", ".3g"),
    ("overhead / SGD call", "overhead_x_sgd", ".3g"),
    ("≤ 1/9 SGD call", "goal", ""),
    ("x SGDClassifier", "x_sgd", ".3g"),
    ("x River learn_one", "x_river", ".3g"),
]
PREQUENTIAL_COLUMNS = [
    ("estimator", "estimator", ""),
    ("rows", "rows", ""),
    ("batch", "batch_size", ""),
    ("hand loop ms", "loop_ms", ".4g"),
    ("prequential_score ms", "prequential_ms", ".4g"),
    ("median ratio", "ratio", ".3g"),
    (f"≤ {PREQUENTIAL_TARGET:g} x", "goal", ""),
]


def main(argv=None):
    def extra(parser):
        parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds")
        parser.add_argument("--calls", type=int, default=200, help="one-row calls per round")
        parser.add_argument("--n-features", type=int, default=20)
        parser.add_argument(
            "--clock",
            choices=["wall", "cpu"],
            default="wall",
            help="wall-clock time, or the process's CPU time (less inflated by load)",
        )
        parser.add_argument(
            "--estimators", nargs="*", default=None, help="names (default: every estimator)"
        )

    args = parse_args(__doc__.splitlines()[0], argv, extra)
    started = time.perf_counter()
    load_before = load_average()
    digests = source_digests(MEASURED_MODULES)
    if args.smoke:
        names = ["RFDSONClassifier", "FrequentDirections"]
        calls, rounds, n_prequential = 20, 2, 200
    else:
        names, calls, rounds, n_prequential = list(ESTIMATORS), args.calls, args.rounds, 2000
        names = args.estimators or names
    clock = CLOCKS[args.clock]
    call_rows = one_row_calls(args.n_features, calls, rounds, args.seed, names, clock)
    for row in call_rows:
        log(f"{row['estimator']}: {row['us_per_call']:.3g} µs a call")
    preq_rows = prequential_vs_loop(n_prequential, 10, rounds, args.seed, clock)
    for row in preq_rows:
        log(f"prequential_score {row['estimator']}: {row['ratio']:.3g} x the loop")
    text = "\n".join(
        [
            "# Per-call overhead: one-row partial_fit, prequential_score at 10-row batches",
            "",
            *environment(digests, load_before, load_average(), read_at_start=True),
            f"- {rounds} interleaved rounds (after a discarded warm-up round); "
            f"{calls} one-row calls per round, d = {args.n_features}; clock: "
            + ("wall-clock time" if args.clock == "wall" else "CPU time of the process")
            + "; total run time "
            f"{time.perf_counter() - started:.0f} s",
            "",
            "## One row per partial_fit",
            "",
            markdown_table(call_rows, CALL_COLUMNS),
            "",
            "## prequential_score against a hand-written loop",
            "",
            markdown_table(preq_rows, PREQUENTIAL_COLUMNS),
        ]
    )
    stem = "bench_overhead_smoke" if args.smoke else f"bench_overhead_{args.clock}"
    columns = sorted({k for _, k, _ in CALL_COLUMNS + PREQUENTIAL_COLUMNS})
    write_results(
        args.out,
        stem,
        text,
        {"one_row_calls": call_rows, "prequential": preq_rows},
        ["section", *columns],
    )


if __name__ == "__main__":
    main()
