"""Fuzz every compiled kernel through its public estimator, in subprocesses.

``tests/_fuzz_driver.py`` holds the cases: malformed CSR (indices out of range
or negative, decreasing ``indptr``, ``indptr`` past the data), unsorted and
duplicate indices, int32/int64 ``indptr``/``indices``, empty rows, all-zero
batches, one row, one column, read-only, negatively strided, non-contiguous and
Fortran-ordered arrays, float32, huge and tiny magnitudes, sample weights in
every layout, blocks of every size around the sketch buffers' capacity,
``sketch_size`` 1, 2 and large, ``max_segments`` up to 200. A case passes when
the call succeeds with finite results or raises ``ValueError``/``TypeError``
(or the base's ``FloatingPointError`` refusal) and leaves the estimator's
pickle unchanged; valid input must be accepted.

Each estimator family runs in its own subprocess (the families run
concurrently), so a crash fails its test instead of killing pytest; when a
process dies, the case it died in is rerun alone (and, if that one survives,
the cases before it) to name the crashing one, and the rest run on. Built
with ``SKONLINE_BOUNDSCHECK=1`` (``setup.py``; CI's test run), an
out-of-bounds memoryview access becomes an ``IndexError``, which fails the case
too, even when the kernel could only print it ("Exception ignored in ...").
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import skonline

DRIVER = Path(__file__).with_name("_fuzz_driver.py")
PACKAGE_ROOT = Path(skonline.__file__).resolve().parents[1]
FAMILIES = ["fd", "pca", "ovm", "son", "si", "curve"]
TIMEOUT = 1200  # seconds for one family; the default run takes well under a minute

# max_segments >= 31: the compiled principal-curve search once wrote fixed 64-entry
# stack arrays (SIGSEGV) and refused ("block too large") what the NumPy kernel handles.
LARGE_MAX_SEGMENTS = [31, 40, 64, 65, 70, 128, 200]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH")) if p)
    # one BLAS thread per process: the families run side by side
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def _popen(family, sweep, cases=()):
    return subprocess.Popen(
        [sys.executable, str(DRIVER), family, "--sweep", sweep, *cases],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        cwd=PACKAGE_ROOT,
    )


def _parse(stdout):
    ids, results = [], {}
    for line in stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if "cases" in record:
            ids = record["cases"]
        elif "case" in record:
            results[record["case"]] = record
    return ids, results


def _death(returncode, stderr):
    if returncode < 0:
        try:
            how = signal.Signals(-returncode).name
        except ValueError:
            how = f"signal {-returncode}"
    else:
        how = f"exit code {returncode}"
    return f"the process died ({how}): {stderr.strip()[-600:]}"


class FuzzRuns:
    """The family subprocesses of one test session, started together on first use."""

    def __init__(self, wanted):
        self.wanted = wanted  # {(family, sweep)} selected in this session
        self.procs = {}
        self.results = {}

    def _start(self):
        for key in self.wanted:
            if key not in self.procs and key not in self.results:
                self.procs[key] = _popen(*key)

    def get(self, family, sweep):
        key = (family, sweep)
        if key not in self.results:
            self._start()
            proc = self.procs.pop(key, None) or _popen(family, sweep)
            self.results[key] = _collect(proc, family, sweep)
        return self.results[key]


def _communicate(proc):
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        err = f"timed out after {TIMEOUT} s; {err}"
    return out, err


def _collect(proc, family, sweep):
    """The results of a family run; where the process died, name the case.

    The case it died in is rerun alone; if it crashes alone it is the culprit,
    otherwise memory was corrupted by an earlier case of that run, and those are
    rerun one by one (the last ``MAX_RERUNS``). The cases after it run on in a
    new process.
    """
    out, err = _communicate(proc)
    ids, results = _parse(out)
    if not ids:
        return {f"{family} (case list)": {"problem": _death(proc.returncode, err)}}
    remaining = [i for i in ids if i not in results]
    deaths = 0
    while proc.returncode != 0 or remaining:
        deaths += 1
        if deaths > MAX_DEATHS:
            results[f"{family} (not run)"] = {
                "problem": f"the process died {MAX_DEATHS} times; {len(remaining)} cases not run"
            }
            break
        if not remaining:  # died after the last case (heap corruption noticed at exit)
            results[f"{family} (exit)"] = {"problem": _death(proc.returncode, err)}
            break
        died_in, before = remaining[0], [i for i in ids if i in results][-MAX_RERUNS:]
        alone = _run_alone(family, sweep, died_in)
        results[died_in] = alone
        if not alone.get("crashed"):
            culprits = [i for i in before if _run_alone(family, sweep, i).get("crashed")]
            results[f"{family} (run died in {died_in!r})"] = {
                "problem": f"{_death(proc.returncode, err)}; that case passes alone; "
                f"crashing alone among the {len(before)} cases before it: {culprits}"
            }
        remaining = remaining[1:]
        if not remaining:
            break
        proc = _popen(family, sweep, remaining)
        out, err = _communicate(proc)
        results.update(_parse(out)[1])
        remaining = [i for i in remaining if i not in results]
    return results


MAX_RERUNS = 10  # cases rerun alone before a death that its own case does not explain
MAX_DEATHS = 3  # deaths of a family's process handled before the rest is reported as not run


def _run_alone(family, sweep, case_id):
    proc = _popen(family, sweep, [case_id])
    out, err = _communicate(proc)
    result = _parse(out)[1].get(case_id)
    if proc.returncode != 0 or result is None:
        return {"problem": "alone: " + _death(proc.returncode, err), "crashed": True}
    return result


@pytest.fixture(scope="module")
def fuzz_runs(request):
    wanted = set()
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if getattr(item, "module", None) is request.module and "family" in params:
            wanted.add((params["family"], params.get("sweep", "default")))
    runs = FuzzRuns(wanted)
    yield runs
    for proc in runs.procs.values():  # started but not collected (deselected tests)
        proc.kill()
        proc.communicate()


def _problems(results, prefix=""):
    return {
        case_id: r["problem"]
        for case_id, r in results.items()
        if r.get("problem") and case_id.startswith(prefix)
    }


def _report(problems, n_cases):
    lines = [f"{len(problems)} of {n_cases} cases failed:"]
    lines += [f"  {case_id}: {problem}" for case_id, problem in list(problems.items())[:25]]
    return "\n".join(lines)


@pytest.mark.parametrize("sweep", ["default"])
@pytest.mark.parametrize("family", FAMILIES)
def test_compiled_kernels_survive_malformed_and_extreme_input(fuzz_runs, family, sweep):
    results = fuzz_runs.get(family, sweep)
    problems = _problems(results)
    assert len(results) > 10, results
    assert not problems, _report(problems, len(results))


@pytest.mark.parametrize("sweep", ["default"])
@pytest.mark.parametrize("family", ["curve_large"])
@pytest.mark.parametrize("max_segments", LARGE_MAX_SEGMENTS)
def test_principal_curve_search_at_large_max_segments(fuzz_runs, family, sweep, max_segments):
    results = fuzz_runs.get(family, sweep)
    prefix = f"SequentialPrincipalCurve(max_segments={max_segments})"
    mine = {k: v for k, v in results.items() if k.startswith(prefix) or "(whole run)" in k}
    problems = _problems(mine)
    assert mine, results
    assert not problems, _report(problems, len(mine))


@pytest.mark.slow
@pytest.mark.parametrize("sweep", ["slow"])
@pytest.mark.parametrize("family", [*FAMILIES, "curve_large"])
def test_compiled_kernels_survive_the_long_sweep(fuzz_runs, family, sweep):
    results = fuzz_runs.get(family, sweep)
    problems = _problems(results)
    assert not problems, _report(problems, len(results))


def test_the_checked_build_checks_bounds():
    """With SKONLINE_BOUNDSCHECK=1 every extension raises on an out-of-bounds index.

    A ``# cython:`` header overrides ``setup.py``'s directives unless the build
    forces them; Cython's buffer index error message is only compiled in when
    ``boundscheck`` is on, so its presence shows the build is the checked one.
    """
    if os.environ.get("SKONLINE_BOUNDSCHECK", "0") in ("", "0"):
        pytest.skip("not the bounds-checked build (SKONLINE_BOUNDSCHECK=1)")
    extensions = sorted((PACKAGE_ROOT / "skonline").rglob("*.so"))
    assert extensions
    unchecked = [
        str(p.relative_to(PACKAGE_ROOT))
        for p in extensions
        if b"Out of bounds on buffer access (axis %d)" not in p.read_bytes()
    ]
    assert not unchecked, f"built without boundscheck: {unchecked}"
