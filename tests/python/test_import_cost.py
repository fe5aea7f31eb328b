"""`import quiver` stays cheap: it brings no module it does not need at
import time (docs/benchmarks.md's import-time figure rests on this). Each check
runs in a fresh interpreter, from an empty folder."""

import subprocess
import sys

import pytest

# Modules that cost milliseconds and that quiver needs only on some calls:
# inspect (check_shapes, ~15 ms), importlib.abc (the pyarrow import hook
# needs no base class), NumPy (the bindings import it on first use) and
# the optional peers.
NOT_AT_IMPORT = [
    "inspect",
    "importlib.abc",
    "numpy",
    "pyarrow",
    "ray",
    "dask",
    "scipy",
    "torch",
    "datasets",
]


@pytest.mark.parametrize("module", NOT_AT_IMPORT)
def test_import_quiver_does_not_import(module, tmp_path):
    code = f"import sys, quiver; print({module!r} in sys.modules)"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False", f"import quiver imports {module}"


def test_the_lazy_imports_still_work(tmp_path):
    code = """
import sys, quiver as qv
@qv.check_shapes(x="n 2")
def f(x):
    return x
import numpy as np
f(np.zeros((3, 2)))
assert "inspect" in sys.modules
import pyarrow as pa, pickle
t = pa.array(qv.VariableShapeTensorArray.from_numpy([np.zeros((2, 3))])).type
assert pickle.loads(pickle.dumps(t)) == t   # the import hook registered pyarrow's pickling
"""
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
