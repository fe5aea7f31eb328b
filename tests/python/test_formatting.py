"""The Python is formatted and linted as the C++ is (make format-check):
ruff with the project's configuration (pyproject.toml, 100 columns)
refuses a line past 100 columns, and the tree passes both checks."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PATHS = ["python", "tests", "bench", "examples", "fuzz"]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ruff") is None, reason="ruff is not installed (scripts/setup --test)"
)


def ruff(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True
    )


def test_a_line_past_100_columns_is_refused(tmp_path):
    source = tmp_path / "wide.py"
    source.write_text("x = " + repr("a" * 124) + "\n")  # 130 columns
    done = ruff("check", "--config", str(ROOT / "pyproject.toml"), str(source))
    assert done.returncode != 0
    assert "E501" in done.stdout


def test_the_tree_is_formatted_and_lints_clean():
    formatted = ruff("format", "--check", *PATHS)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    linted = ruff("check", *PATHS)
    assert linted.returncode == 0, linted.stdout + linted.stderr
