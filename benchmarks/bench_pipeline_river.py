"""An online pipeline against River's ``StandardScaler() | LogisticRegression()``.

Usage::

    python benchmarks/bench_pipeline_river.py            # a minute or so
    python benchmarks/bench_pipeline_river.py --smoke    # a few seconds (CI)

The same stream for every learner: scikit-learn's bundled breast-cancer and
wine data in five random row orders, scored row by row by
:func:`skonline.evaluation.prequential_score` (``batch_size=1``: each row is
scored by the model learned on the rows before it, then learned, as River's
``progressive_val_score`` does). The learners, all with their defaults:

* River: ``preprocessing.StandardScaler() | linear_model.LogisticRegression()``
  (one-vs-rest for wine), fed row by row through a thin scikit-learn wrapper
  (``_peers.RiverClassifier``);
* ``make_online_pipeline(StandardScaler(), SGDClassifier(loss="log_loss"))``:
  the same model written with scikit-learn's pieces;
* ``make_online_pipeline(StandardScaler(), RFDSONClassifier(loss="log_loss"))``
  and ``make_online_pipeline(StandardScaler(), ScaleInvariantClassifier())``.

Reported: the prequential accuracy and log loss (mean and spread over the
orders) and the rows per second of the whole evaluation. River is an optional
extra (``pip install river``); without it its rows are left out. Nothing is
asserted.
"""

from __future__ import annotations

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
from _peers import RiverClassifier, river_available
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import StandardScaler

from skonline.evaluation import prequential_score
from skonline.linear_model import RFDSONClassifier, ScaleInvariantClassifier
from skonline.pipeline import make_online_pipeline

DATASETS = {"breast_cancer": load_breast_cancer, "wine": load_wine}


def learners():
    out = {
        "SGD log-loss (online pipeline)": make_online_pipeline(
            StandardScaler(), SGDClassifier(loss="log_loss", random_state=0)
        ),
        "RFD-SON log-loss (online pipeline)": make_online_pipeline(
            StandardScaler(), RFDSONClassifier(loss="log_loss")
        ),
        "scale-invariant (online pipeline)": make_online_pipeline(
            StandardScaler(), ScaleInvariantClassifier()
        ),
    }
    if river_available():
        out = {"River StandardScaler + LogisticRegression": RiverClassifier(), **out}
    return out


def run(name, load, orders, seed):
    X, y = load(return_X_y=True)
    rows = []
    rng = np.random.default_rng(seed)
    perms = [rng.permutation(len(X)) for _ in range(orders)]
    for label, learner in learners().items():
        acc, loss, rate = [], [], []
        for perm in perms:
            start = time.perf_counter()
            res = prequential_score(
                learner, X[perm], y[perm], scoring=["accuracy", "neg_log_loss"], batch_size=1
            )
            rate.append(len(X) / (time.perf_counter() - start))
            acc.append(res.cumulative_accuracy[-1])
            loss.append(-res.cumulative_neg_log_loss[-1])
        rows.append(
            {
                "dataset": name,
                "learner": label,
                "accuracy": float(np.mean(acc)),
                "accuracy_spread": float(np.ptp(acc)),
                "log_loss": float(np.mean(loss)),
                "log_loss_spread": float(np.ptp(loss)),
                "rows_per_s": float(np.median(rate)),
            }
        )
        log(f"{name}: {label} done")
    return rows


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv)
    orders = 1 if args.smoke else 5
    digests = source_digests(["skonline.pipeline"])
    load_before = load_average()
    sections = {}
    for name, load in DATASETS.items():
        sections[name] = run(name, load, orders, args.seed)
    columns = [
        ("dataset", "dataset", ""),
        ("learner", "learner", ""),
        ("accuracy", "accuracy", ".3f"),
        ("± (range)", "accuracy_spread", ".3f"),
        ("log loss", "log_loss", ".3f"),
        ("± (range)", "log_loss_spread", ".3f"),
        ("rows/s", "rows_per_s", ".0f"),
    ]
    rows = [r for section in sections.values() for r in section]
    extra = ()
    if river_available():
        import river

        extra = (("river", river.__version__),)
    header = "\n".join(environment(digests, load_before, load_average(), extra_versions=extra))
    text = (
        f"# Online pipeline against River, prequential, row by row, {orders} row orders\n\n"
        f"{header}\n\n{markdown_table(rows, columns)}\n"
    )
    write_results(
        args.out,
        "pipeline_river",
        text,
        sections,
        ["section", *[key for _, key, _ in columns]],
    )


if __name__ == "__main__":
    main()
