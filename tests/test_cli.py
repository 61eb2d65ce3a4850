"""``python -m skonline``: its flags, and the tour it runs without them."""

import subprocess
import sys

import pytest

import skonline


def _run(*args, code=None):
    command = (
        [sys.executable, "-m", "skonline", *args] if code is None else [sys.executable, "-c", code]
    )
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_help_exits_at_once_without_loading_scikit_learn():
    # the flags are read before anything heavy is imported: --help costs the
    # interpreter's start-up, not scikit-learn's (about a second)
    code = (
        "import runpy, sys\n"
        "sys.argv = ['skonline', '--help']\n"
        "try:\n"
        "    runpy.run_module('skonline', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    assert exit.code in (0, None), exit.code\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy')], 'loaded'\n"
        "print('ok')\n"
    )
    result = _run(code=code)
    assert result.returncode == 0, result.stderr
    assert "usage: python -m skonline" in result.stdout and "--quick" in result.stdout
    assert result.stdout.rstrip().endswith("ok")


def test_version_flag():
    result = _run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"skonline {skonline.__version__}"


def test_unknown_flag_is_an_error_not_a_tour():
    result = _run("--bogus")
    assert result.returncode == 2
    assert "unrecognized arguments: --bogus" in result.stderr
    assert "tour" not in result.stdout


def test_quick_tour_prints_every_family():
    result = _run("--quick")
    assert result.returncode == 0, result.stderr
    for family in (
        "RobustFrequentDirections",
        "RFDSONClassifier",
        "ScaleInvariantClassifier",
        "AdaptiveOnlinePCA",
        "SequentialPrincipalCurve",
    ):
        assert family in result.stdout
    assert "200 noisy points" in result.stdout


@pytest.mark.parametrize("name", ["RFDSONClassifier", "evaluation", "linear_model"])
def test_lazy_attributes_resolve(name):
    assert getattr(skonline, name) is not None
    assert name in dir(skonline)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        skonline.Nope  # noqa: B018


def test_all_lists_every_lazy_estimator():
    assert skonline.__all__ == [*sorted(skonline._ESTIMATORS), "__version__"]
