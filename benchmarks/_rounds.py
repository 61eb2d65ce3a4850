"""Interleaved timing rounds: every method once per round, in the same order.

On a shared machine the load changes during a run; timing method A for a minute
and then method B compares two different machines. Here round ``r`` times A,
then B, then C, ..., and a method's speed relative to a reference is the
**median over the rounds of the per-round ratio**, so that a slow stretch hits
both sides of a ratio. The first round warms up (imports, BLAS threads, caches)
and is discarded.

Imported by the benchmark scripts of this folder as ``_rounds``.
"""

from __future__ import annotations

import time

import numpy as np


def interleaved(runners, rounds, *, warmup=True, log=None, clock=time.perf_counter):
    """Time each runner once per round, interleaved.

    Parameters
    ----------
    runners : dict
        ``{name: callable}``; each call runs the method once and returns its
        result (the result of the last round is kept).
    rounds : int
        Timed rounds.
    warmup : bool, default=True
        Run one untimed round first.
    log : callable, optional
        Called with a progress line after each round.
    clock : callable, default=time.perf_counter
        The clock read before and after each run: wall-clock time by
        default; ``time.process_time`` gives the CPU time of the process
        (every thread), which a loaded machine inflates far less.

    Returns
    -------
    times : dict
        ``{name: ndarray of shape (rounds,)}`` seconds of ``clock``.
    results : dict
        ``{name: result of the last run}``.
    """
    results = {}
    if warmup:
        for name, run in runners.items():
            results[name] = run()
    times = {name: np.empty(rounds) for name in runners}
    for r in range(rounds):
        for name, run in runners.items():
            start = clock()
            results[name] = run()
            times[name][r] = clock() - start
        if log is not None:
            log(f"  round {r + 1}/{rounds} done")
    return times, results


def median_ratio(times, name, reference):
    """Median over the rounds of ``time[name] / time[reference]``."""
    return float(np.median(times[name] / times[reference]))


def median_time(times, name):
    return float(np.median(times[name]))


def spread(times, name, reference):
    """``(min, max)`` over the rounds of the per-round ratio (how noisy the run was)."""
    ratios = times[name] / times[reference]
    return float(ratios.min()), float(ratios.max())
