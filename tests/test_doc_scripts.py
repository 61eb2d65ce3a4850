"""Examples that start a Dask cluster run as saved scripts, as a user runs them.

A ``LocalCluster`` with worker processes imports the main script in every
worker; code that starts a cluster outside an ``if __name__ == "__main__":``
guard fails there (``Nanny failed to start``), which a doctest or an inline
snippet never shows. So every such example lives in a file under ``examples/``
that the documentation includes, and this module runs each file in a fresh
interpreter.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = re.compile(r"\bLocalCluster\(")
SCRIPTS = sorted(p for p in (ROOT / "examples").rglob("*.py") if CLUSTER.search(p.read_text()))


def test_no_inline_cluster_in_the_docs():
    # every code that starts a cluster is a saved script (literalinclude), not a snippet
    built = ("_build", "auto_examples", "generated")  # the docs build's output
    pages = [p for p in (ROOT / "doc").rglob("*.rst") if not set(built) & set(p.parts)]
    inline = [
        str(page.relative_to(ROOT))
        for page in [*pages, ROOT / "README.md"]
        if CLUSTER.search(page.read_text())
    ]
    assert not inline, f"start clusters inline: {inline}"
    assert SCRIPTS, "no example starts a cluster: this test would check nothing"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_cluster_example_runs_as_a_script(script, tmp_path):
    pytest.importorskip("distributed")
    source = script.read_text()
    assert 'if __name__ == "__main__":' in source
    result = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nanny failed" not in result.stderr
