"""Progress of long work: a bar in a terminal or a notebook, about ten lines elsewhere.

One display serves every long call (``fit``, a multi-epoch ``fit``,
:func:`~skonline.evaluation.prequential_score`,
:func:`~skonline.dask.fit_sketch`). Where the output goes decides its form:

* **a terminal** (the stream says ``isatty()``) **or a Jupyter notebook**,
  with the optional extra ``tqdm`` installed (``pip install
  "skonline[progress]"``): one tqdm bar updated in place, with the rows
  done, the rows per second, the time elapsed and, when the number of rows
  is known, the time left (ETA). In a notebook the bar is a widget
  (``tqdm.auto``, which needs ``ipywidgets``).
* **anything else** (a file, a pipe, a captured stream, a CI log) — and a
  terminal without tqdm: plain lines, at most ten per task. When the number
  of rows is known, one line each time another tenth of it is done; when it
  is not (a generator), one line each time the row count doubles (counted
  from the first batch: nine lines and a last one for a thousand equal
  batches, about one more for each doubling of the stream) and a last line
  at the end, with the total.

Output goes to ``sys.stderr``, as tqdm's and Python's ``logging`` do, so
that what a script prints on ``sys.stdout`` stays clean.

``verbose`` keeps scikit-learn's meaning, the amount of detail: ``0`` shows
nothing; ``1`` the bar (or the lines) of the task; ``2`` adds the running
value of a loss or score after the counts (``mean_loss=0.412``) and detail
lines (one per epoch of a multi-epoch ``fit``, one per ``partial_fit``
call).

The display never changes what is computed: an estimator's pass is cut into
chunks only to report between them, and any split of the rows gives the same
state.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Iterator
from types import TracebackType
from typing import IO, Any

__all__ = ["MAX_LINES", "Progress"]

#: Lines one task writes at most to a stream that is not a terminal.
MAX_LINES = 10

#: Seconds one chunk of an estimator's pass takes, aimed at, under a bar.
_CHUNK_SECONDS = 0.1


def _bar_class(file: IO[str] | None) -> Any:
    """The tqdm class drawing a bar on ``file`` (``None``: ``sys.stderr``), or ``None``.

    ``None`` when tqdm is not installed, or when the output is neither a
    terminal nor a notebook: lines are written instead.
    """
    try:
        with warnings.catch_warnings():  # tqdm.auto warns in a notebook, by design
            warnings.simplefilter("ignore")
            from tqdm.auto import tqdm as auto_tqdm
            from tqdm.autonotebook import tqdm as chosen_tqdm
            from tqdm.std import tqdm as std_tqdm
    except ImportError:
        return None
    if file is None and chosen_tqdm is not std_tqdm:  # a notebook with ipywidgets
        return auto_tqdm
    return std_tqdm if _is_terminal(sys.stderr if file is None else file) else None


def _is_terminal(stream: Any) -> bool:
    """A terminal with a width: a pseudo-terminal of 0 columns gets lines (tqdm draws nothing)."""
    try:
        if not stream.isatty():
            return False
    except Exception:  # a closed or unusual stream
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor
        return True


def _write_line(line: str, stream: IO[str]) -> None:
    """Write a line, above any tqdm bar drawn on the same stream."""
    try:
        from tqdm.std import tqdm as std_tqdm
    except ImportError:
        stream.write(line + "\n")
        stream.flush()
    else:
        std_tqdm.write(line, file=stream)


def _clock(seconds: float) -> str:
    """``mm:ss``, or ``h:mm:ss`` from an hour on (tqdm's format)."""
    if not math.isfinite(seconds):
        return "?"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def _format_value(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class Progress:
    """The progress of one task over rows: a bar, or at most ten lines.

    Parameters
    ----------
    total : int or None
        Rows the task will process (all epochs of a multi-epoch ``fit``);
        ``None`` when not known (a generator): a row counter, no ETA.
    desc : str
        What is being done, shown first (``"RFDSONRegressor"``).
    verbose : int
        ``0``: nothing at all. ``1``: the bar or the lines. ``2``: also the
        values given to :meth:`update` (after the counts) and the lines of
        :meth:`detail`.
    summary : bool
        Write one line when the task ends and nothing before (no bar): a
        ``partial_fit`` call, one step of a loop its caller drives.
    file : file object or None
        Where to write; ``None``: ``sys.stderr`` at the time of the call.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with Progress(1000, desc="demo", verbose=1, file=out) as progress:
    ...     for _ in range(100):
    ...         progress.update(10)
    >>> len(out.getvalue().splitlines())
    10
    >>> out.getvalue().splitlines()[-1]  # doctest: +ELLIPSIS
    'demo: 100% 1,000/1,000 rows [...rows/s]'
    """

    def __init__(
        self,
        total: int | None = None,
        *,
        desc: str = "",
        verbose: int = 1,
        summary: bool = False,
        file: IO[str] | None = None,
    ) -> None:
        self.verbose = int(verbose or 0)
        self.enabled = self.verbose > 0
        self.total = int(total) if total else None
        self.desc = desc
        self.summary = summary
        self.n = 0
        self.postfix: dict[str, Any] = {}
        self._bar: Any = None
        self._stream: IO[str] = sys.stderr if file is None else file
        self._shown = -1  # rows reported by the last line written
        self._mark = 0  # tenths reported (known total) or next row count to report (unknown)
        self._closed = False
        self._start = time.perf_counter()
        if not self.enabled or summary:
            return
        bar_class = _bar_class(file)
        if bar_class is not None:
            self._bar = bar_class(
                total=self.total,
                desc=desc,
                unit="rows",
                unit_scale=True,
                file=file,
                dynamic_ncols=True,
                mininterval=0.1,
                leave=True,
            )

    # ----------------------------------------------------------------- API
    def update(self, n: int, **values: Any) -> None:
        """``n`` more rows are done; ``values`` (a running loss) shown from ``verbose=2``."""
        if not self.enabled:
            return
        self.n += int(n)
        if self.verbose >= 2 and values:
            self.postfix = {key: _format_value(value) for key, value in values.items()}
            if self._bar is not None:
                self._bar.set_postfix(self.postfix, refresh=False)
        if self._bar is not None:
            self._bar.update(int(n))
        elif not self.summary and self._due():
            self._line()

    def set_description(self, desc: str) -> None:
        """Change what is shown first (the epoch of a multi-epoch ``fit``)."""
        self.desc = desc
        if self._bar is not None:
            self._bar.set_description(desc, refresh=False)

    def detail(self, message: str) -> None:
        """A line of detail from ``verbose=2`` on (above the bar in a terminal)."""
        if self.verbose >= 2:
            _write_line(f"{self.desc}: {message}", self._stream)

    def slices(self, n: int) -> Iterator[slice]:
        """Cut a pass over ``n`` rows into chunks to report between (the rows in order).

        One chunk when nothing is shown or for a ``summary``; tenths for
        lines; under a bar, chunks that take about a tenth of a second each
        (at most a tenth of the pass), so the bar moves and the ETA settles.
        """
        if not self.enabled or self.summary or n <= 1:
            yield slice(0, n)
            return
        cap = -(-n // MAX_LINES)
        if self._bar is None:
            for start in range(0, n, cap):
                yield slice(start, min(n, start + cap))
            return
        start, size = 0, min(cap, 256)
        while start < n:
            stop = min(n, start + size)
            began = time.perf_counter()
            yield slice(start, stop)
            took = time.perf_counter() - began
            start = stop
            if took < _CHUNK_SECONDS / 2:
                size = min(cap, 2 * size)
            elif took > 2 * _CHUNK_SECONDS:
                size = max(1, size // 2)

    def close(self) -> None:
        """End the task: close the bar, or write the last line if it is not written yet."""
        if not self.enabled or self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.n != self._shown:
            self._line()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        elif self._bar is not None:  # leave the bar where the failure stopped it
            self._closed = True
            self._bar.close()
        else:  # no last line for a task that failed: its exception says enough
            self._closed = True

    # ------------------------------------------------------------- lines
    def _due(self) -> bool:
        """Whether the rows done now deserve a line (tenths, or doubling counts)."""
        if self.total is not None:
            tenths = min(MAX_LINES, self.n * MAX_LINES // self.total)
            if tenths > self._mark:
                self._mark = tenths
                return True
            return False
        if self._mark == 0:  # the first batch sets the scale: lines from twice its rows
            self._mark = 2 * self.n
            return False
        if self.n >= self._mark:
            while self._mark <= self.n:
                self._mark *= 2
            return True
        return False

    def _line(self) -> None:
        elapsed = time.perf_counter() - self._start
        rate = self.n / elapsed if elapsed > 0 else math.inf
        rate_text = f"{rate:,.0f} rows/s" if math.isfinite(rate) else "? rows/s"
        fields = [_clock(elapsed), rate_text]
        if self.total is not None:
            left = (self.total - self.n) / rate if rate > 0 else math.inf
            fields[0] = f"{_clock(elapsed)}<{_clock(max(0.0, left))}"
            counts = f"{100 * self.n / self.total:3.0f}% {self.n:,}/{self.total:,} rows"
        else:
            counts = f"{self.n:,} rows"
        fields += [f"{key}={value}" for key, value in self.postfix.items()]
        prefix = f"{self.desc}: " if self.desc else ""
        _write_line(f"{prefix}{counts} [{', '.join(fields)}]", self._stream)
        self._shown = self.n
