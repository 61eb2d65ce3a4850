"""PrequentialDisplay: a metric over the stream, for one or several estimators."""

from __future__ import annotations

import numpy as np

from ._prequential import _scorer_names, prequential_score

__all__ = ["PrequentialDisplay"]


def _check_matplotlib(caller):
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - matplotlib is an optional extra
        raise ImportError(
            f"{caller} needs matplotlib: pip install 'skonline[plot]' (or matplotlib)."
        ) from err
    return plt


def _as_named(results):
    """``{name: results}`` from one result, a list of results or a dict of them."""
    if isinstance(results, dict) and "n_samples_seen" in results:
        est = results.get("estimator")
        return {type(est).__name__ if est is not None else "estimator": results}
    if isinstance(results, dict):
        return dict(results)
    named = {}
    for res in results:
        base = type(res.get("estimator")).__name__
        name, k = base, 2
        while name in named:
            name, k = f"{base} ({k})", k + 1
        named[name] = res
    return named


class PrequentialDisplay:
    """A prequential metric plotted against the rows seen, one line per estimator.

    Create it with :meth:`from_estimator` (runs :func:`prequential_score`
    once: several estimators are evaluated in one pass over the stream) or
    :meth:`from_results` (from results already computed); several
    estimators share one axes, with a legend, and their prefix baselines are
    drawn dashed when present (once, in grey, when every result has the same
    baseline: the same stream). Drift shows as a rise of the batch curve;
    regret as the gap between two cumulative curves. Needs matplotlib (the
    ``plot`` extra).

    Read more in the :ref:`User Guide <prequential>`.

    Parameters
    ----------
    results : dict
        ``{name: result}`` of :func:`prequential_score` results.
    metric : str
        The scorer name to plot (a key ``batch_<metric>`` of the results).
    kind : {"cumulative", "batch"}, default="cumulative"
        Plot the cumulative prequential value or the value of each batch.

    Attributes
    ----------
    lines_ : dict of str to matplotlib Line2D
        The line of each estimator; ``"<name> baseline"`` for their
        baselines, or ``"baseline"`` for the one baseline they share.
    ax_ : matplotlib Axes
        The axes.
    figure_ : matplotlib Figure
        The figure.

    See Also
    --------
    prequential_score : The evaluation it plots.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import Perceptron, SGDClassifier
    >>> from skonline.evaluation import PrequentialDisplay
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> disp = PrequentialDisplay.from_estimator(
    ...     [SGDClassifier(random_state=0), Perceptron(random_state=0)], X, y, batch_size=50
    ... )
    >>> sorted(disp.lines_)
    ['Perceptron', 'SGDClassifier']
    """

    def __init__(self, results, metric, kind="cumulative"):
        self.results = results
        self.metric = metric
        self.kind = kind

    def plot(self, ax=None, *, kind=None, line_kw=None):
        """Draw the lines.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when ``None``.
        kind : {"cumulative", "batch"}, default=None
            Overrides the display's ``kind``.
        line_kw : dict, default=None
            Keyword arguments of ``ax.plot``.

        Returns
        -------
        display : PrequentialDisplay
            The display, with ``lines_``, ``ax_`` and ``figure_`` set.
        """
        plt = _check_matplotlib("PrequentialDisplay.plot")
        kind = self.kind if kind is None else kind
        if kind not in ("cumulative", "batch"):
            raise ValueError(f"kind must be 'cumulative' or 'batch'; got {kind!r}.")
        if ax is None:
            _, ax = plt.subplots()
        line_kw = {} if line_kw is None else dict(line_kw)
        self.lines_ = {}
        key = f"{kind}_{self.metric}"
        base = f"baseline_{key}"
        for name, res in self.results.items():
            if key not in res:
                raise ValueError(
                    f"the results of {name!r} have no {key!r}; metrics: {_scorer_names(res)}."
                )
        # one baseline when every result carries the same one (the same stream)
        baselines = [
            (np.asarray(res["n_samples_seen"]), np.asarray(res[base]))
            for res in self.results.values()
            if base in res
        ]
        shared = len(baselines) == len(self.results) > 1 and all(
            np.array_equal(bx, baselines[0][0])
            and np.array_equal(by, baselines[0][1], equal_nan=True)
            for bx, by in baselines[1:]
        )
        for name, res in self.results.items():
            x = np.asarray(res["n_samples_seen"])
            (line,) = ax.plot(x, res[key], label=name, **line_kw)
            self.lines_[name] = line
            if base in res and not shared:
                (bline,) = ax.plot(
                    x,
                    res[base],
                    linestyle="--",
                    color=line.get_color(),
                    label=f"{name} baseline",
                )
                self.lines_[f"{name} baseline"] = bline
        if shared:
            (bline,) = ax.plot(
                *baselines[0], linestyle="--", color="0.5", label="baseline (prefix)"
            )
            self.lines_["baseline"] = bline
        ax.set_xlabel("rows seen")
        ax.set_ylabel(f"{self.metric} ({kind})")
        ax.legend(loc="best")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_results(cls, results, *, metric=None, kind="cumulative", ax=None, line_kw=None):
        """Plot results of :func:`prequential_score`.

        Parameters
        ----------
        results : dict, list or dict of dicts
            One result, a list of results (named by their estimator's class)
            or ``{name: result}``.
        metric : str, default=None
            The scorer name to plot; ``None``: the first one of the results.
        kind : {"cumulative", "batch"}, default="cumulative"
            Cumulative prequential value or value of each batch.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        line_kw : dict, default=None
            Keyword arguments of ``ax.plot``.

        Returns
        -------
        display : PrequentialDisplay
            The plotted display.
        """
        named = _as_named(results)
        if not named:
            raise ValueError("no results to plot.")
        if metric is None:
            metric = _scorer_names(next(iter(named.values())))[0]
        return cls(named, metric, kind).plot(ax=ax, line_kw=line_kw)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y=None,
        *,
        scoring=None,
        batch_size=100,
        classes=None,
        target=None,
        baseline=False,
        kind="cumulative",
        ax=None,
        line_kw=None,
        error_score="raise",
        verbose=0,
    ):
        """Run :func:`prequential_score` for one or several estimators and plot.

        Several estimators are evaluated in one pass over the stream: each
        batch is scored by every estimator before any of them learns it, so
        a generator or a CSV reader is read once. Each line is what a run of
        its estimator alone gives.

        Parameters
        ----------
        estimator : estimator, list of estimators or dict of name to estimator
            Estimators with ``partial_fit``, all run on the same stream; a
            list is named by the estimators' classes (``"SGDClassifier"``,
            ``"SGDClassifier (2)"`` …).
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features) or iterable
            The stream, as in :func:`prequential_score`: an array, or an
            iterable (a generator, a ``pd.read_csv(path, chunksize=...)``
            reader) read once for all the estimators.
        y : array-like of shape (n_samples,), default=None
            Targets, with an array ``X``.
        scoring : str or callable, default=None
            One scorer (see :func:`prequential_score`).
        batch_size : int, default=100
            Rows per batch.
        classes : array-like, default=None
            Every class of the stream (classifiers); required with an
            iterable ``X``.
        target : str, default=None
            The column of the DataFrames of ``X`` that holds the targets
            (see :func:`prequential_score`).
        baseline : bool, default=False
            Also draw the prefix baseline of each estimator, dashed.
        kind : {"cumulative", "batch"}, default="cumulative"
            Cumulative prequential value or value of each batch.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        line_kw : dict, default=None
            Keyword arguments of ``ax.plot``.
        error_score : "raise" or float, default="raise"
            What a failing batch gives (see :func:`prequential_score`).
        verbose : int, default=0
            Passed to :func:`prequential_score`.

        Returns
        -------
        display : PrequentialDisplay
            The plotted display.
        """
        if isinstance(scoring, (list, tuple, dict)):
            raise ValueError("from_estimator plots one metric: pass one scorer.")
        several = isinstance(estimator, (dict, list, tuple))
        if isinstance(estimator, dict):
            named = dict(estimator)
        elif isinstance(estimator, (list, tuple)):
            named = {}
            for est in estimator:
                base = type(est).__name__
                name, k = base, 2
                while name in named:
                    name, k = f"{base} ({k})", k + 1
                named[name] = est
        else:
            named = estimator  # one estimator: its messages as in a run of it alone
        results = prequential_score(
            named,
            X,
            y,
            scoring=scoring,
            batch_size=batch_size,
            classes=classes,
            target=target,
            baseline=baseline,
            error_score=error_score,
            verbose=verbose,
        )
        if not several:
            results = {type(estimator).__name__: results}
        return cls.from_results(results, kind=kind, ax=ax, line_kw=line_kw)
