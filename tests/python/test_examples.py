"""examples/demo.py (what `make demo` runs) finishes on a full install and
on the minimal one (`pip install ".[arrow]"`, perhaps without codecs)."""

import os
import pathlib
import subprocess
import sys

import pytest

from minimal_install import MINIMAL_INSTALL

DEMO = pathlib.Path(__file__).resolve().parents[2] / "examples" / "demo.py"


@pytest.mark.parametrize("install", ["as installed", "minimal"])
def test_the_demo_runs(tmp_path, install):
    prelude = MINIMAL_INSTALL if install == "minimal" else ""
    code = prelude + f"\nimport runpy\nrunpy.run_path({str(DEMO)!r}, run_name='__main__')\n"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert "demo finished" in run.stdout
    if install == "minimal":
        assert "compression: none (this build has no ZSTD codec" in run.stdout
        assert "SciPy step skipped" in run.stdout
