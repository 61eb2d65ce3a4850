"""Scaffolding shared by the benchmark scripts of this folder.

The scripts are run by path (``python benchmarks/bench_X.py``), which puts
this folder first on ``sys.path``, so they import this module as ``_common``.
Importing it makes ``skonline`` importable from a source checkout that is not
installed, so import it before ``skonline``.

Timing (``Timing``, ``best_time``, ``one_blas_thread``), the markdown and CSV
output (``fmt``, ``markdown_table``, ``write_csv``, ``write_results``), the
report header (``environment``, ``source_digests``, ``load_average``,
``timing_line``) and the command line (``parse_args``, ``log``).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib
import os
import platform
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

try:
    import skonline
except ImportError:  # a source checkout that is not installed: use the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import skonline

import numpy as np
import scipy
import sklearn

# Short operations are repeated beyond --repeats, at most this many times.
MAX_RUNS = 100


# ----------------------------------------------------------------- timing
@dataclass
class Timing:
    """At least ``repeats`` timed runs, more until ``min_seconds`` have been timed."""

    repeats: int
    min_seconds: float = 0.0


def best_time(run, timing, warmup=True):
    """Best wall-clock time of ``run()`` over the runs ``timing`` asks for, after a warm-up.

    Runs shorter than ``timing.min_seconds`` in total are repeated until they
    fill it (at most ``MAX_RUNS`` runs), so that a sub-0.1 s operation such as
    the GEMM pass is not at the mercy of one scheduler hiccup.

    Returns ``(seconds, result of the last run)``.
    """
    if warmup:
        run()
    result = None
    best, total, runs = np.inf, 0.0, 0
    while runs < timing.repeats or (total < timing.min_seconds and runs < MAX_RUNS):
        start = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - start
        best, total, runs = min(best, elapsed), total + elapsed, runs + 1
    return best, result


@contextmanager
def one_blas_thread():
    """Limit BLAS to one thread if threadpoolctl is installed; yields whether it is."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield False
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield True


# ----------------------------------------------------------------- output
def fmt(value, spec=".4g"):
    if value is None or value == "":
        return ""
    if isinstance(value, float):
        return "" if np.isnan(value) else format(value, spec)
    return str(value)


def markdown_table(rows, columns):
    """``columns``: list of (header, key, format spec)."""
    lines = [
        "| " + " | ".join(h for h, _, _ in columns) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|",
    ]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(k), s) for _, k, s in columns) + " |")
    return "\n".join(lines)


def write_csv(path, sections, columns):
    """One CSV of ``sections`` (``{section name: rows}``) with the ``columns`` given."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for section, rows in sections.items():
            for r in rows:
                writer.writerow({k: fmt(v, ".6g") for k, v in {"section": section, **r}.items()})


def write_results(out, stem, text, sections, columns):
    """Write ``out/stem.md`` (``text``) and ``out/stem.csv``, print ``text``, log the names."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text(text, encoding="utf-8")
    write_csv(out / f"{stem}.csv", sections, columns)
    print(text)
    log(f"written: {out / stem}.md and .csv")


# ----------------------------------------------------------------- header
def environment(digests, load_before, load_after, *, read_at_start=False, extra_versions=()):
    """Versions, sources, machine, BLAS and load, as markdown bullet lines (no file paths).

    ``digests``: what ``source_digests`` returned; ``read_at_start`` says in the
    header that it was computed before the run. ``extra_versions``: ``(name,
    version)`` pairs appended to the versions line.
    """
    extra = "".join(f", {name} {version}" for name, version in extra_versions)
    when = ", read at start" if read_at_start else ""
    lines = [
        f"- date (UTC): {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M')}",
        f"- python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, "
        f"skonline {skonline.__version__}{extra}",
        f"- skonline sources (sha256, first 12{when}): " + digests,
        f"- machine: {platform.system()} {platform.machine()}, {os.cpu_count()} logical CPUs",
    ]
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        lines.append("- BLAS: unknown (threadpoolctl not installed)")
    else:
        for lib in threadpool_info():
            version = f" {lib['version']}" if lib.get("version") else ""
            arch = f", architecture {lib['architecture']}" if lib.get("architecture") else ""
            lines.append(
                f"- {lib.get('user_api')}: {lib.get('internal_api')}{version} "
                f"({Path(lib.get('filepath', '')).name}){arch}, {lib.get('num_threads')} threads"
            )
    names = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    blas_env = [f"{k}={os.environ[k]}" for k in names if k in os.environ]
    lines.append("- BLAS environment: " + (", ".join(blas_env) if blas_env else "none set"))
    lines.append(f"- load average (1, 5, 15 min) before: {load_before}, after: {load_after}")
    return lines


def source_digests(modules):
    """Short digests of the source files of ``modules`` (dotted names), in that order.

    They tell which code a result belongs to: ``"_son.py 0574736c0a28, ..."``.
    """
    out = []
    for name in modules:
        module = importlib.import_module(name)
        digest = hashlib.sha256(Path(module.__file__).read_bytes()).hexdigest()[:12]
        out.append(f"{module.__name__.rsplit('.', 1)[-1]}.py {digest}")
    return ", ".join(out)


def load_average():
    try:
        return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except (AttributeError, OSError):
        return "n/a"


def timing_line(timing, elapsed, note=""):
    """The header line on how times were taken; ``note`` goes before the total run time."""
    return (
        f"- timing: time.perf_counter, best of {timing.repeats} runs after one warm-up run "
        f"(runs shorter than {timing.min_seconds:g} s in total are repeated until they fill "
        f"{timing.min_seconds:g} s); {note + '; ' if note else ''}total run time {elapsed:.0f} s"
    )


# ----------------------------------------------------------- command line
def log(message):
    """A progress line, on stderr."""
    print(message, file=sys.stderr, flush=True)


def parse_args(description, argv=None, add_arguments=None):
    """The options every benchmark takes; ``add_arguments(parser)`` adds a script's own.

    ``--smoke``, ``--out``, ``--repeats``, then the script's own, then ``--seed``.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (CI), same code path")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "results",
        help="directory for the markdown and CSV results (default: benchmarks/results/)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per method (best kept)")
    if add_arguments is not None:
        add_arguments(parser)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def linear_stream(n, d, sparse, seed):
    """Labels of a noisy linear rule on standard normal rows, dense or CSR (5 % non-zeros)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    if sparse:
        X = sp.random(n, d, density=0.05, format="csr", random_state=seed, dtype=np.float64)
        X.data = rng.standard_normal(X.nnz)
    else:
        X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    score = np.asarray(X @ w).ravel() + 0.3 * rng.standard_normal(n)
    return X, (score > 0).astype(int)
