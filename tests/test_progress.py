"""Progress of long work: a bar in a terminal, at most ten lines elsewhere, never a change."""

import io
import os
import pickle
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from skonline import RFDSONRegressor, ScaleInvariantRegressor
from skonline.evaluation import prequential_score
from skonline.utils._progress import MAX_LINES, Progress

from .test_state_contract import _verbose_data, _verbose_estimators

ETA = re.compile(r"\[\d\d:\d\d<\d\d:\d\d, ")  # elapsed<left, as tqdm and the lines write it


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


@pytest.fixture
def no_tqdm(monkeypatch):
    """Make ``import tqdm`` fail, as without the optional extra."""
    for name in ("tqdm", "tqdm.auto", "tqdm.autonotebook", "tqdm.std"):
        monkeypatch.setitem(sys.modules, name, None)


def _stream(n_batches, rows=100, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n_batches):
        X = rng.standard_normal((rows, 4))
        yield X, (X[:, 0] > 0).astype(int)


def _regression(n, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X @ rng.standard_normal(d)


# ----------------------------------------------------------- the line log
@pytest.mark.parametrize("tqdm_installed", [True, False])
def test_a_long_fit_into_a_file_writes_at_most_ten_lines(capsys, request, tqdm_installed):
    if not tqdm_installed:
        request.getfixturevalue("no_tqdm")
    X, y = _regression(100_000)
    ScaleInvariantRegressor(verbose=1).fit(X, y)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and "\r" not in captured.err
    assert len(lines) == MAX_LINES
    assert [line.split("%")[0].split()[-1] for line in lines] == [
        str(10 * k) for k in range(1, 11)
    ]  # evenly spaced in rows
    assert lines[-1].startswith("ScaleInvariantRegressor: 100% 100,000/100,000 rows [")
    assert ETA.search(lines[0]) and "rows/s" in lines[-1]


@pytest.mark.parametrize("n_batches, n_lines", [(10, 4), (1000, 10)])
@pytest.mark.parametrize("tqdm_installed", [True, False])
def test_a_generator_gets_a_row_counter_at_doubling_counts(
    capsys, request, n_batches, n_lines, tqdm_installed
):
    # rows unknown: a line at 200, 400, 800, ... rows (twice the first batch,
    # then doubling) and a last one with the total; about ten for 1000 batches
    if not tqdm_installed:
        request.getfixturevalue("no_tqdm")
    from sklearn.linear_model import SGDClassifier

    prequential_score(SGDClassifier(random_state=0), _stream(n_batches), classes=[0, 1], verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == n_lines <= MAX_LINES
    counts = [int(re.search(r": ([\d,]+) rows \[", line)[1].replace(",", "")) for line in lines]
    assert counts[:-1] == [200 * 2**k for k in range(n_lines - 1)]
    assert counts[-1] == 100 * n_batches
    assert all("%" not in line and "<" not in line for line in lines)  # no total, no ETA


def test_prequential_score_over_an_array_reports_tenths_and_the_score_at_verbose_2(capsys):
    from sklearn.linear_model import SGDClassifier

    X = np.concatenate([b[0] for b in _stream(200)])
    y = np.concatenate([b[1] for b in _stream(200)])
    res = prequential_score(SGDClassifier(random_state=0), X, y, verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10 and "accuracy" not in lines[-1]
    assert lines[-1].startswith("prequential SGDClassifier: 100% 20,000/20,000 rows [")
    res = prequential_score(SGDClassifier(random_state=0), X, y, verbose=2)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10
    assert lines[-1].endswith(f", accuracy={res.cumulative_accuracy[-1]:.4g}]")


def test_the_unknown_total_log_counts_lines_exactly():
    for n_updates, n_lines in [(1, 1), (2, 1), (3, 2), (4, 2), (1000, 10), (1025, 11)]:
        out = io.StringIO()
        with Progress(None, desc="s", file=out) as progress:
            for _ in range(n_updates):
                progress.update(100)
        lines = out.getvalue().splitlines()
        assert len(lines) == n_lines, n_updates
        assert lines[-1].startswith(f"s: {100 * n_updates:,} rows [")


def test_a_known_total_writes_one_line_per_tenth_crossed():
    out = io.StringIO()
    with Progress(1000, desc="s", file=out) as progress:
        progress.update(350)  # crosses three tenths: one line
        progress.update(650)
    assert [line.split(" rows")[0] for line in out.getvalue().splitlines()] == [
        "s:  35% 350/1,000",
        "s: 100% 1,000/1,000",
    ]


# ---------------------------------------------------------------- the bar
def _fit_in_a_terminal(monkeypatch, n, max_iter, verbose):
    """What ``RFDSONRegressor(max_iter, verbose).fit`` on ``n`` rows shows a terminal."""
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    X, y = _regression(n)
    RFDSONRegressor(max_iter=max_iter, verbose=verbose).fit(X, y)
    return terminal.getvalue()


def test_a_terminal_gets_one_bar_updated_in_place(monkeypatch):
    text = _fit_in_a_terminal(monkeypatch, 20_000, max_iter=3, verbose=1)
    assert text.count("\n") == 1 and text.endswith("\n")  # one bar, closed once
    frames = [frame for frame in text.rstrip("\n").split("\r") if frame]
    assert len(frames) >= 2
    assert frames[0].startswith("RFDSONRegressor:   0%|")
    assert frames[-1].startswith("RFDSONRegressor epoch 3/3: 100%|")
    assert "60.0k/60.0k" in frames[-1] and ETA.search(frames[-1]) and "rows/s" in frames[-1]


def test_a_terminal_without_tqdm_gets_the_lines(monkeypatch, no_tqdm):
    text = _fit_in_a_terminal(monkeypatch, 20_000, max_iter=3, verbose=1)
    lines = text.splitlines()
    assert "\r" not in text and len(lines) == MAX_LINES
    assert lines[-1].startswith("RFDSONRegressor epoch 3/3: 100% 60,000/60,000 rows [")


def test_a_failing_prequential_run_closes_its_bar(monkeypatch):
    # the bar was left open when a batch failed (closed by garbage collection)
    from skonline.evaluation import prequential_score

    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    X, y = _regression(2000)
    X[1500] = np.nan
    with pytest.raises(ValueError, match="batch 15 of the stream"):
        prequential_score(RFDSONRegressor(), X, y, batch_size=100, verbose=1)
    text = terminal.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")  # closed once, where it stopped
    assert "75%" in text.rstrip("\n").split("\r")[-1]  # the 15 batches before the failure


def test_verbose_2_in_a_terminal_writes_epoch_lines_above_the_bar(monkeypatch):
    text = _fit_in_a_terminal(monkeypatch, 5000, max_iter=2, verbose=2)
    epochs = re.findall(r"RFDSONRegressor epoch (\d)/2: 5,000 rows, mean_loss=", text)
    assert epochs == ["1", "2"]
    assert "mean_loss=" in text.split("\r")[-1]  # the bar's last frame shows the loss


def _fit_in_a_pseudo_terminal(columns):
    """stderr of a verbose fit run in a pseudo-terminal ``columns`` wide."""
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios

    script = textwrap.dedent(
        """
        import numpy as np
        from skonline import RFDSONRegressor
        rng = np.random.default_rng(0)
        X = rng.standard_normal((100_000, 20))
        RFDSONRegressor(verbose=1).fit(X, X @ rng.standard_normal(20))
        print("done")
        """
    )
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    out, _ = proc.communicate(timeout=120)
    os.close(leader)
    assert proc.returncode == 0 and out.decode().strip() == "done"
    return b"".join(chunks).decode()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_fit_in_a_pseudo_terminal_shows_one_bar_with_an_eta():
    text = _fit_in_a_pseudo_terminal(100)
    assert text.count("\n") == 1 and text.endswith("\r\n")  # the terminal adds \r to \n
    frames = [frame for frame in text.rstrip("\r\n").split("\r") if frame.strip()]
    assert len(frames) >= 2 and frames[0].startswith("RFDSONRegressor:   0%|")
    assert frames[-1].startswith("RFDSONRegressor: 100%|")
    assert "100k/100k" in frames[-1] and ETA.search(frames[-1])


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_pseudo_terminal_without_a_width_gets_the_lines():
    # a new pseudo-terminal reports 0 columns (some CI runners): tqdm drew an
    # empty bar there, and the fit showed nothing at all
    text = _fit_in_a_pseudo_terminal(0)
    lines = text.splitlines()
    assert 1 <= len(lines) <= 10 and "100,000/100,000 rows" in lines[-1]


# ----------------------------------------------------------- verbose levels
def test_verbose_0_prints_nothing_anywhere(capsys, monkeypatch):
    from sklearn.linear_model import SGDClassifier

    X, y = _regression(3000)
    RFDSONRegressor(max_iter=2).fit(X, y).partial_fit(X, y)
    prequential_score(SGDClassifier(random_state=0), _stream(20), classes=[0, 1])
    assert capsys.readouterr() == ("", "")
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    RFDSONRegressor(max_iter=2).fit(X, y)
    assert terminal.getvalue() == ""


def test_partial_fit_writes_one_summary_line_per_call_from_verbose_2(capsys, monkeypatch):
    X, y = _regression(3000)
    est = RFDSONRegressor(verbose=1)
    for rows in np.array_split(np.arange(3000), 3):
        est.partial_fit(X[rows], y[rows])
    assert capsys.readouterr() == ("", "")  # one step of the caller's loop: silent
    est.set_params(verbose=2)
    for rows in np.array_split(np.arange(3000), 3):
        est.partial_fit(X[rows], y[rows])
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert all(
        line.startswith("RFDSONRegressor.partial_fit: 100% 1,000/1,000 rows [") for line in lines
    )
    assert all("mean_loss=" in line for line in lines)
    terminal = FakeTerminal()  # in a terminal too: one line, no bar
    monkeypatch.setattr(sys, "stderr", terminal)
    est.partial_fit(X[:10], y[:10])
    assert terminal.getvalue().count("\n") == 1 and "\r" not in terminal.getvalue()


def test_a_failing_fit_writes_no_last_line(capsys):
    X, y = _regression(1000)
    X[700, 0] = np.nan
    with pytest.raises(ValueError):
        RFDSONRegressor(verbose=1).fit(X, y)
    assert capsys.readouterr().err == ""  # validation comes first: nothing was reported
    with pytest.raises(ValueError, match="batch 7"):
        prequential_score(RFDSONRegressor(), X, y, verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 7 and lines[-1].startswith("prequential RFDSONRegressor:  70% 700/1,000")


# ---------------------------------------------------- results do not change
@pytest.mark.parametrize("cls", _verbose_estimators(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("where", ["file", "terminal"])
def test_verbose_does_not_change_the_learned_state(monkeypatch, cls, where):
    n = 300 if cls.__name__ == "SequentialPrincipalCurve" else 1200  # its pass is slow
    X, y = _verbose_data(cls, n)
    params = {"random_state": 0} if "random_state" in cls().get_params() else {}
    if "max_iter" in cls().get_params():
        params["max_iter"] = 2
    out = FakeTerminal() if where == "terminal" else io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    if where == "terminal":  # every chunk "too slow": chunks halve down to single rows
        monkeypatch.setattr("skonline.utils._progress._CHUNK_SECONDS", 0.0)
    quiet = cls(**params).fit(X, y)
    assert out.getvalue() == ""
    for verbose in (1, 2):
        loud = cls(verbose=verbose, **params).fit(X, y)
        assert pickle.dumps(loud._state) == pickle.dumps(quiet._state)
        quiet_stream, loud_stream = cls(**params), cls(verbose=verbose, **params)
        for rows in np.array_split(np.arange(n), 4):
            batch = (X[rows],) if y is None else (X[rows], y[rows])
            quiet_stream.partial_fit(*batch, **_first_call(quiet_stream, y))
            loud_stream.partial_fit(*batch, **_first_call(loud_stream, y))
        assert pickle.dumps(loud_stream._state) == pickle.dumps(quiet_stream._state)
    assert out.getvalue() != ""


def _first_call(est, y):
    from sklearn.base import is_classifier

    return {"classes": np.unique(y)} if is_classifier(est) else {}


# ------------------------------------------------------------------ fit_sketch
def test_fit_sketch_on_a_local_scheduler_reports_its_blocks(capsys):
    da = pytest.importorskip("dask.array")
    from skonline.dask import fit_sketch
    from skonline.decomposition import FrequentDirections

    A, _ = _regression(8000, d=6)
    X = da.from_array(A, chunks=(500, 6))  # 16 blocks
    quiet = fit_sketch(FrequentDirections(sketch_size=4), X, verbose=0)
    assert capsys.readouterr() == ("", "")
    loud = fit_sketch(FrequentDirections(sketch_size=4), X, verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10 and lines[-1].startswith("fit_sketch: 100% 8,000/8,000 rows [")
    assert pickle.dumps(loud._state) == pickle.dumps(quiet._state)


def test_a_notebook_gets_tqdms_widget(monkeypatch):
    # tqdm.autonotebook picks the notebook class under a Jupyter kernel with
    # ipywidgets; the display then uses tqdm.auto's bar whatever sys.stderr is
    tqdm_autonotebook = pytest.importorskip("tqdm.autonotebook")
    from tqdm.auto import tqdm as auto_tqdm

    from skonline.utils._progress import _bar_class

    assert _bar_class(None) is None  # the captured stderr of a test is no terminal
    monkeypatch.setattr(tqdm_autonotebook, "tqdm", object)  # as in a notebook
    assert _bar_class(None) is auto_tqdm
    assert _bar_class(io.StringIO()) is None  # an explicit file is written to as it is
