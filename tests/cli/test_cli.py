"""The `quiver` command line tool, run as a program on files written by
pyarrow and by quiver itself, including corrupt, truncated and missing
files and bad flags (docs/cli.md).

The executable: $QUIVER_CLI (ctest sets it to the built one), else the one
the installed package carries (quiver/bin/quiver), else `quiver` on PATH.
"""
import json
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")


def _find_cli():
    if os.environ.get("QUIVER_CLI"):
        return os.environ["QUIVER_CLI"]
    try:
        import quiver
        bundled = pathlib.Path(quiver.__file__).parent / "bin" / "quiver"
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    return shutil.which("quiver")


CLI = _find_cli()
if CLI is None:
    pytest.skip("no quiver executable (set QUIVER_CLI, or build with CLI11)", allow_module_level=True)


def run(*args, cwd=None):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def ok(*args, cwd=None):
    r = run(*args, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def fixed_table():
    t = pa.fixed_shape_tensor(pa.float32(), (2, 3), dim_names=["H", "W"])
    storage = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(24, dtype=np.float32)), 6)
    arr = pa.ExtensionArray.from_storage(t, storage)
    return pa.table({"name": ["a", "b", "c", "d"], "x": arr, "i": [1, 2, None, 4]})


@pytest.fixture
def files(tmp_path):
    tab = fixed_table()
    with pa.ipc.new_file(tmp_path / "fixed.arrow", tab.schema) as w:
        w.write_table(tab, max_chunksize=2)
    with pa.ipc.new_stream(tmp_path / "fixed.arrows", tab.schema) as w:
        w.write_table(tab)
    with pa.ipc.new_file(tmp_path / "zstd.arrow", tab.schema,
                         options=pa.ipc.IpcWriteOptions(compression="zstd")) as w:
        w.write_table(tab)
    with pa.OSFile(str(tmp_path / "tensor.arrow"), "wb") as f:
        pa.ipc.write_tensor(pa.Tensor.from_numpy(np.arange(12, dtype=np.int16).reshape(3, 4)), f)
    (tmp_path / "text.arrow").write_bytes(b"hello, not arrow at all\n")
    (tmp_path / "empty.arrow").write_bytes(b"")
    whole = (tmp_path / "fixed.arrow").read_bytes()
    (tmp_path / "truncated.arrow").write_bytes(whole[: len(whole) // 2])
    stream = (tmp_path / "fixed.arrows").read_bytes()
    (tmp_path / "truncated.arrows").write_bytes(stream[:-100])
    return tmp_path


class VariableShapeTensor(pa.ExtensionType):
    """arrow.variable_shape_tensor as pyarrow writes any extension type
    (this pyarrow has no class of its own for it)."""

    def __init__(self, storage_type, metadata):
        self._metadata = metadata
        super().__init__(storage_type, "arrow.variable_shape_tensor")

    def __arrow_ext_serialize__(self):
        return self._metadata

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls(storage_type, serialized)


def ragged_file(path, shapes, dtype=np.uint8):
    """A variable_shape_tensor column written by pyarrow (struct storage)."""
    arrays = [np.full(s, i, dtype=dtype) for i, s in enumerate(shapes)]
    ndim = len(shapes[0])
    storage = pa.StructArray.from_arrays(
        [pa.array([a.ravel() for a in arrays], pa.list_(pa.from_numpy_dtype(dtype))),
         pa.array([list(a.shape) for a in arrays], pa.list_(pa.int32(), ndim))],
        names=["data", "shape"])
    names = json.dumps({"dim_names": ["H", "W", "C"][:ndim]}).encode()
    col = pa.ExtensionArray.from_storage(VariableShapeTensor(storage.type, names), storage)
    tab = pa.table({"image": col})
    with pa.ipc.new_file(path, tab.schema) as w:
        w.write_table(tab)
    return arrays


# --- inspect ----------------------------------------------------------------

def test_inspect_text_names_format_schema_and_columns(files):
    out = ok("inspect", files / "fixed.arrow")
    assert "Arrow IPC file" in out and "2 record batches, 4 rows, uncompressed" in out
    assert "x: fixed_shape_tensor<float32>[2, 3] dim_names=[H, W]" in out
    assert "value type float32, ndim 2, dim_names [H, W], permutation none" in out
    assert "nulls 1" in out  # column i


def test_inspect_json_schema(files):
    info = json.loads(ok("inspect", "--json", files / "fixed.arrow", files / "fixed.arrows",
                         files / "zstd.arrow", files / "tensor.arrow"))
    assert info["quiver_inspect_version"] == 1
    f, s, z, t = info["files"]
    assert f["format"] == "ipc_file" and s["format"] == "ipc_stream"
    assert f["num_record_batches"] == 2 and f["num_rows"] == 4 and not f["compressed"]
    assert z["compressed"]
    x = f["columns"][1]
    assert x["kind"] == "fixed_shape_tensor" and x["value_type"] == "float32"
    assert x["shape"] == [2, 3] and x["dim_names"] == ["H", "W"] and x["permutation"] is None
    assert x["bytes"] == 4 * 6 * 4 and x["null_count"] == 0
    assert f["columns"][2]["null_count"] == 1 and f["columns"][2]["kind"] == "array"
    assert [fl["name"] for fl in f["schema"]["fields"]] == ["name", "x", "i"]
    assert t["format"] == "tensor"
    assert t["tensor"]["shape"] == [3, 4] and t["tensor"]["value_type"] == "int16"
    assert t["tensor"]["layout"] == "row-major" and t["tensor"]["bytes"] == 24


def test_inspect_ragged_shape_stats(tmp_path):
    ragged_file(tmp_path / "r.arrow", [(2, 3, 3), (4, 3, 3), (2, 5, 3), (2, 3, 3)])
    col = json.loads(ok("inspect", "--json", tmp_path / "r.arrow"))["files"][0]["columns"][0]
    assert col["kind"] == "variable_shape_tensor" and col["ndim"] == 3
    assert col["dim_names"] == ["H", "W", "C"]
    stats = col["shape_stats"]
    assert [(a["min"], a["max"], a["most_common"]) for a in stats] == [(2, 4, 2), (3, 5, 3), (3, 3, 3)]
    assert stats[0]["name"] == "H" and stats[0]["most_common_rows"] == 3
    text = ok("inspect", tmp_path / "r.arrow")
    assert "axis 0 (H): min 2, max 4, most common 2 (3 rows)" in text


def test_inspect_errors(files):
    r = run("inspect", files / "text.arrow")
    assert r.returncode == 1 and "is a text file" in r.stderr and "Traceback" not in r.stderr
    r = run("inspect", files / "truncated.arrow")
    assert r.returncode == 1 and "truncated" in r.stderr
    r = run("inspect", files / "empty.arrow")
    assert r.returncode == 1 and "empty" in r.stderr
    # One bad file among good ones: the good ones are still reported.
    r = run("inspect", files / "fixed.arrow", files / "text.arrow")
    assert r.returncode == 1 and "fixed.arrow: Arrow IPC file" in r.stdout


# --- validate ---------------------------------------------------------------

def test_validate_sound_files(files):
    out = ok("validate", files / "fixed.arrow", files / "fixed.arrows", files / "zstd.arrow",
             files / "tensor.arrow")
    assert out.count(": OK") == 4
    assert ok("validate", "-q", files / "fixed.arrow") == ""


def test_validate_reports_problems_with_location(files, tmp_path):
    for name in ["truncated.arrow", "truncated.arrows", "text.arrow", "empty.arrow"]:
        r = run("validate", files / name)
        assert r.returncode == 1, name
        assert "quiver: " in r.stderr and "problem" in r.stdout
    r = run("validate", files / "truncated.arrows")
    assert "batch 0" in r.stderr
    # A corrupt row: a ragged tensor whose shape claims more than its data.
    ragged_file(tmp_path / "r.arrow", [(2, 2, 3), (1, 2, 3)])
    data = bytearray((tmp_path / "r.arrow").read_bytes())
    # The shape buffer holds int32 [2, 2, 3, 1, 2, 3]: make row 1's first axis 7.
    needle = np.array([2, 2, 3, 1, 2, 3], np.int32).tobytes()
    at = bytes(data).find(needle)
    assert at > 0
    data[at + 12:at + 16] = np.int32(7).tobytes()
    (tmp_path / "bad.arrow").write_bytes(bytes(data))
    r = run("validate", tmp_path / "bad.arrow")
    assert r.returncode == 1
    assert "batch 0, column 'image'" in r.stderr and "row 1" in r.stderr


# --- head -------------------------------------------------------------------

def test_head_prints_rows_numpy_style(files):
    out = ok("head", files / "fixed.arrow", "-n", "3")
    assert out.count("row ") == 3  # across the two batches
    assert "[[0., 1., 2.],\n     [3., 4., 5.]]" in out
    assert 'name: "c"' in out and "i: null" in out
    out = ok("head", files / "fixed.arrows", "-n", "1", "--column", "i")
    assert out == "row 0:\n  i: 1\n"
    out = ok("head", files / "tensor.arrow")
    assert out.startswith("int16[3, 4]\n[[0, 1, 2, 3],")


def test_head_cuts_long_axes(tmp_path):
    ragged_file(tmp_path / "r.arrow", [(1, 2000)], dtype=np.int32)
    out = ok("head", tmp_path / "r.arrow")
    assert "[[0, 0, 0, ..., 0, 0, 0]]" in out


def test_head_errors(files):
    r = run("head", files / "fixed.arrow", "--column", "nope")
    assert r.returncode == 1 and "no column named 'nope' (columns: name, x, i)" in r.stderr
    r = run("head", files / "fixed.arrow", "-n", "-1")
    assert r.returncode == 2
    r = run("head", files / "truncated.arrows")
    assert r.returncode == 1 and "batch 0" in r.stderr


# --- usage ------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    [], ["frobnicate"], ["inspect"], ["inspect", "--bogus", "x"], ["inspect", "/no/such/file"],
    ["validate", "/no/such/file"], ["head", "/no/such/file"], ["head"],
])
def test_usage_errors_exit_2(args):
    r = run(*args)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert r.stderr.startswith("quiver: ") and "--help" in r.stderr
    assert "Traceback" not in r.stderr and "terminate" not in r.stderr


def test_help_everywhere_with_examples():
    out = ok("--help")
    assert "Examples:" in out
    for command in ["inspect", "validate", "head"]:
        out = ok(command, "--help")
        assert "Examples:" in out and f"quiver {command}" in out and "--quiet" in out
