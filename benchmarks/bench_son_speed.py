"""RFD-SON ``partial_fit`` time against ``SGDClassifier.partial_fit`` on the same batches.

Usage::

    python benchmarks/bench_son_speed.py            # full grid, a few seconds
    python benchmarks/bench_son_speed.py --smoke    # a few seconds (CI)

For every ``d`` in {100, 1000}, sketch size ``m`` in {5, 10, 20} and input in
{dense, CSR (5 % non-zeros)}: a binary stream cut into 1000-row batches; both
learners are first warmed up on one batch (so the first call's set-up is not
timed), then each round times, interleaved and in rotating order,
``RFDSONClassifier(sketch_size=m).partial_fit`` (defaults otherwise) and
``SGDClassifier().partial_fit`` over the same batches, each on a fresh copy of
its warmed-up learner. The reported number is the **median over the rounds of
the per-round ratio** (SON time / SGD time): robust to the load of a shared
machine, unlike totals or best-of times. The compiled SON pass runs its small
BLAS calls on one thread, as every skonline sketch does.

Target (issue): at most 8 × SGD's time at ``d = 100``, ``m = 10``, dense.
Nothing is asserted.
"""

from __future__ import annotations

import copy
import time

import numpy as np
import scipy.sparse as sp
from _common import (
    environment,
    load_average,
    log,
    markdown_table,
    parse_args,
    source_digests,
    write_results,
)
from _rounds import interleaved, median_ratio
from sklearn.linear_model import SGDClassifier

from skonline.linear_model import RFDSONClassifier

MEASURED_MODULES = ["skonline.linear_model._son", "skonline.linear_model._son_kernels"]
TARGET = 8.0


def _stream(n, d, sparse, seed):
    rng = np.random.default_rng(seed)
    if sparse:
        X = sp.random(n, d, density=0.05, format="csr", random_state=seed, dtype=np.float64)
        X.data = rng.standard_normal(X.nnz)
    else:
        X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    score = np.asarray(X @ w).ravel() + 0.3 * rng.standard_normal(n)
    return X, (score > 0).astype(int)


def run_case(d, m, sparse, batches, rounds, seed):
    X, y = _stream((batches + 1) * 1000, d, sparse, seed)
    classes = np.array([0, 1])
    son = RFDSONClassifier(sketch_size=m).partial_fit(X[:1000], y[:1000], classes=classes)
    sgd = SGDClassifier(random_state=0).partial_fit(X[:1000], y[:1000], classes=classes)
    parts = [slice(1000 * (b + 1), 1000 * (b + 2)) for b in range(batches)]

    def stream_into(warm):
        def run():
            est = copies[warm].pop()
            for sl in parts:
                est.partial_fit(X[sl], y[sl])

        return run

    copies = {"son": [copy.deepcopy(son) for _ in range(rounds + 1)]}
    copies["sgd"] = [copy.deepcopy(sgd) for _ in range(rounds + 1)]  # + the warm-up round
    times, _ = interleaved({"son": stream_into("son"), "sgd": stream_into("sgd")}, rounds)
    rows = batches * 1000
    return {
        "d": d,
        "m": m,
        "input": "CSR 5 %" if sparse else "dense",
        "sgd_us_per_row": 1e6 * float(np.median(times["sgd"])) / rows,
        "son_us_per_row": 1e6 * float(np.median(times["son"])) / rows,
        "ratio": median_ratio(times, "son", "sgd"),
    }


COLUMNS = [
    ("d", "d", ""),
    ("m", "m", ""),
    ("input", "input", ""),
    ("SGD µs/row", "sgd_us_per_row", ".3g"),
    ("RFD-SON µs/row", "son_us_per_row", ".3g"),
    ("median ratio SON/SGD", "ratio", ".3g"),
]


def main(argv=None):
    def extra(parser):
        parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per case")

    args = parse_args(__doc__.splitlines()[0], argv, extra)
    started = time.perf_counter()
    load_before = load_average()
    digests = source_digests(MEASURED_MODULES)
    grid = (
        [(100, 10, False)]
        if args.smoke
        else [(d, m, sparse) for d in (100, 1000) for m in (5, 10, 20) for sparse in (False, True)]
    )
    batches, rounds = (1, 2) if args.smoke else (5, args.rounds)
    rows = []
    for d, m, sparse in grid:
        row = run_case(d, m, sparse, batches, rounds, args.seed)
        rows.append(row)
        log(f"d={d} m={m} {row['input']}: median ratio {row['ratio']:.3g}")
    target = next(r for r in rows if (r["d"], r["m"], r["input"]) == (100, 10, "dense"))
    met = "met" if target["ratio"] <= TARGET else "not met"
    text = "\n".join(
        [
            "# RFD-SON partial_fit against SGDClassifier.partial_fit",
            "",
            *environment(digests, load_before, load_average(), read_at_start=True),
            f"- {rounds} interleaved rounds of {batches} batches of 1000 rows per case; "
            f"total run time {time.perf_counter() - started:.0f} s",
            "",
            markdown_table(rows, COLUMNS),
            "",
            f"Target: at most {TARGET:g} x SGD's time at d = 100, m = 10, dense: "
            f"{target['ratio']:.3g} x, **{met}**.",
        ]
    )
    stem = "bench_son_speed_smoke" if args.smoke else "bench_son_speed"
    write_results(args.out, stem, text, {"speed": rows}, ["section", *(k for _, k, _ in COLUMNS)])


if __name__ == "__main__":
    main()
