"""The `quiver` command line tool, run as a program on files written by
pyarrow and by quiver itself, including corrupt, truncated and missing
files and bad flags (docs/cli.md).

The executable: $QUIVER_CLI (ctest sets it to the built one), else the one
the installed package put in its scripts folder (quiver._cli finds it), else
`quiver` on PATH.
"""

import fcntl
import json
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")


def _find_cli():
    if os.environ.get("QUIVER_CLI"):
        return os.environ["QUIVER_CLI"]
    try:
        from quiver._cli import installed_executable

        installed = installed_executable()
        if installed is not None:
            return installed
    except ImportError:
        pass
    return shutil.which("quiver")


CLI = _find_cli()
if CLI is None:
    pytest.skip(
        "no quiver executable (set QUIVER_CLI, or build with CLI11)", allow_module_level=True
    )


def run(*args, cwd=None):
    return subprocess.run(
        [CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


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
    with pa.ipc.new_file(
        tmp_path / "zstd.arrow", tab.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")
    ) as w:
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
        [
            pa.array([a.ravel() for a in arrays], pa.list_(pa.from_numpy_dtype(dtype))),
            pa.array([list(a.shape) for a in arrays], pa.list_(pa.int32(), ndim)),
        ],
        names=["data", "shape"],
    )
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
    info = json.loads(
        ok(
            "inspect",
            "--json",
            files / "fixed.arrow",
            files / "fixed.arrows",
            files / "zstd.arrow",
            files / "tensor.arrow",
        )
    )
    assert info["quiver_inspect_version"] == 1
    f, s, z, t = info["files"]
    assert f["format"] == "ipc_file" and s["format"] == "ipc_stream"
    assert f["num_record_batches"] == 2 and f["num_rows"] == 4 and not f["compressed"]
    assert f["compression"] == "none" and s["compression"] == "none"
    assert z["compressed"] and z["compression"] == "zstd"
    assert "compressed (zstd)" in ok("inspect", files / "zstd.arrow")
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
    assert [(a["min"], a["max"], a["most_common"]) for a in stats] == [
        (2, 4, 2),
        (3, 5, 3),
        (3, 3, 3),
    ]
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


def ragged_column(shapes, dtype=np.uint8, nulls=None, permutation=None, seed=0):
    """A variable_shape_tensor array as pyarrow builds one (struct storage)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.integers(0, 255, s).astype(dtype) for s in shapes]
    ndim = len(shapes[0])
    storage = pa.StructArray.from_arrays(
        [
            pa.array([a.ravel() for a in arrays], pa.list_(pa.from_numpy_dtype(dtype))),
            pa.array([list(a.shape) for a in arrays], pa.list_(pa.int32(), ndim)),
        ],
        names=["data", "shape"],
        mask=None if nulls is None else pa.array(nulls),
    )
    meta = {"dim_names": ["H", "W", "C"][:ndim]}
    if permutation:
        meta["permutation"] = permutation
    return pa.ExtensionArray.from_storage(
        VariableShapeTensor(storage.type, json.dumps(meta).encode()), storage
    )


def write_ipc(path, table, compression=None, stream=False, max_chunksize=None):
    opts = pa.ipc.IpcWriteOptions(compression=compression)
    with (pa.ipc.new_stream if stream else pa.ipc.new_file)(path, table.schema, options=opts) as w:
        w.write_table(table, max_chunksize=max_chunksize)


def test_inspect_reads_no_tensor_values_of_compressed_files(tmp_path):
    # 300 random images (~1 MB of values) in a zstd file: inspect reads the
    # layout, the validity bitmap and the shape buffer, never the values, so
    # a corrupt values frame does not stop it; validate finds it.
    rng = np.random.default_rng(1)
    shapes = [(int(h), int(w), 3) for h, w in rng.integers(20, 60, (300, 2))]
    nulls = [i % 7 == 3 for i in range(300)]
    table = pa.table({"image": ragged_column(shapes, nulls=nulls)})
    write_ipc(tmp_path / "plain.arrow", table)
    write_ipc(tmp_path / "z.arrow", table, "zstd")
    data = bytearray((tmp_path / "z.arrow").read_bytes())
    values = sum(h * w * c for h, w, c in shapes)
    at = bytes(data).find(np.int64(values).tobytes() + b"\x28\xb5\x2f\xfd")
    assert at > 0  # the values buffer: its length prefix, then the frame's magic
    data[at + 8 : at + 40] = b"\xff" * 32
    (tmp_path / "bad.arrow").write_bytes(bytes(data))
    r = run("validate", tmp_path / "bad.arrow")
    assert r.returncode == 1 and "ZSTD" in r.stderr
    plain, good, bad = json.loads(
        ok(
            "inspect",
            "--json",
            tmp_path / "plain.arrow",
            tmp_path / "z.arrow",
            tmp_path / "bad.arrow",
        )
    )["files"]
    assert good["compressed"] and good["compression"] == "zstd"
    column = bad["columns"][0]
    assert "problem" not in column
    valid = [s for s, null in zip(shapes, nulls) if not null]
    assert column["null_count"] == sum(nulls)
    assert column["shape_stats"][0]["min"] == min(s[0] for s in valid)
    assert column["shape_stats"][1]["max"] == max(s[1] for s in valid)
    assert column["shape_stats"][2]["most_common_rows"] == len(valid)
    # Compressed and plain twins agree on everything but the stored bytes.
    assert column == good["columns"][0]
    for key in ["shape_stats", "null_count", "bytes", "kind", "dim_names"]:
        assert column[key] == plain["columns"][0][key], key
    assert plain["columns"][0]["stored_bytes"] == plain["columns"][0]["bytes"]
    assert column["stored_bytes"] < column["bytes"]
    assert " stored)" in ok("inspect", tmp_path / "z.arrow")


@pytest.mark.parametrize("compression", [None, "lz4", "zstd"])
@pytest.mark.parametrize("stream", [False, True])
def test_inspect_twins_agree_on_shapes_and_nulls(tmp_path, compression, stream):
    shapes = [(2, 3, 3), (4, 3, 3), (2, 5, 3), (2, 3, 3), (1, 1, 3)]
    table = pa.table(
        {
            "r": ragged_column(
                shapes, nulls=[False, True, False, False, False], permutation=[2, 0, 1]
            ),
            "i": pa.array([1, None, 3, None, 5]),
        }
    )
    write_ipc(tmp_path / "plain.arrow", table, max_chunksize=2)
    write_ipc(tmp_path / "twin.arrow", table, compression, stream, max_chunksize=2)
    plain, twin = json.loads(
        ok("inspect", "--json", tmp_path / "plain.arrow", tmp_path / "twin.arrow")
    )["files"]
    for a, b in zip(plain["columns"], twin["columns"]):
        assert a["null_count"] == b["null_count"] and a["bytes"] == b["bytes"]
        assert a.get("shape_stats") == b.get("shape_stats")
    stats = twin["columns"][0]["shape_stats"]  # logical axes: C, H, W
    assert [(a["name"], a["min"], a["max"], a["most_common"]) for a in stats] == [
        ("C", 3, 3, 3),
        ("H", 1, 2, 2),
        ("W", 1, 5, 3),
    ]
    assert twin["columns"][1]["null_count"] == 2


def nested_table():
    fixed_type = pa.fixed_shape_tensor(pa.float32(), (2, 2))
    fixed = pa.ExtensionArray.from_storage(
        fixed_type, pa.FixedSizeListArray.from_arrays(pa.array(np.arange(16, dtype=np.float32)), 4)
    )
    ragged = ragged_column(
        [(2, 3, 3), (4, 3, 3), (2, 5, 3), (2, 3, 3)], nulls=[False, True, False, False]
    )
    # Row 2 of the struct is null: its ragged slot is not counted either.
    sample = pa.StructArray.from_arrays(
        [fixed, ragged, pa.array([1, 2, 3, 4])],
        names=["image", "ragged", "k"],
        mask=pa.array([False, False, True, False]),
    )
    frames = ragged_column([(1, 2), (3, 4), (1, 5), (2, 2), (7, 1)])
    clips = pa.ListArray.from_arrays(pa.array([0, 2, 2, 5, 5], pa.int32()), frames)
    deep = pa.StructArray.from_arrays(
        [pa.StructArray.from_arrays([fixed], names=["t"])], names=["inner"]
    )
    return pa.table({"sample": sample, "clips": clips, "deep": deep, "plain": [1, 2, 3, 4]})


@pytest.mark.parametrize("writer", ["pyarrow", "quiver"])
def test_inspect_tensors_nested_in_structs_and_lists(tmp_path, writer):
    write_ipc(tmp_path / "n.arrow", nested_table())
    path = tmp_path / "n.arrow"
    if writer == "quiver":
        ok("convert", path, tmp_path / "q.arrows", "--compression", "zstd", "-q")
        path = tmp_path / "q.arrows"
    columns = json.loads(ok("inspect", "--json", path))["files"][0]["columns"]
    by_name = {c["name"]: c for c in columns}
    assert [c["name"] for c in columns] == [
        "sample",
        "sample.image",
        "sample.ragged",
        "clips",
        "clips[]",
        "deep",
        "deep.inner.t",
        "plain",
    ]
    image, ragged, frames = by_name["sample.image"], by_name["sample.ragged"], by_name["clips[]"]
    assert image["kind"] == "fixed_shape_tensor" and image["shape"] == [2, 2]
    assert image["path"] == ["sample", "image"] and not image["in_list"]
    assert by_name["deep.inner.t"]["path"] == ["deep", "inner", "t"]
    assert "path" not in by_name["sample"] and by_name["sample"]["kind"] == "array"
    # The ragged field's own null (row 1) and its struct's (row 2) hide
    # their shapes; the null count is the field's own.
    assert ragged["kind"] == "variable_shape_tensor" and ragged["null_count"] == 1
    assert [(a["min"], a["max"], a["most_common_rows"]) for a in ragged["shape_stats"]] == [
        (2, 2, 2),
        (3, 3, 2),
        (3, 3, 2),
    ]
    # Inside a list: counted per element, over the 5 frames.
    assert frames["in_list"] and frames["path"] == ["clips", "[]"]
    assert [
        (a["min"], a["max"], a["most_common"], a["most_common_rows"]) for a in frames["shape_stats"]
    ] == [(1, 7, 1, 2), (1, 5, 2, 2)]
    text = ok("inspect", path)
    assert "  sample.ragged: variable_shape_tensor\n" in text
    assert "  clips[]: variable_shape_tensor (counted per list element)\n" in text
    assert "most common 1 (2 elements)" in text


def test_inspect_hostile_shape_buffers_are_problems_not_crashes(tmp_path):
    table = pa.table({"r": ragged_column([(2, 2, 3), (1, 2, 3)], nulls=[False, True])})
    write_ipc(tmp_path / "s.arrows", table, stream=True)
    data = bytearray((tmp_path / "s.arrows").read_bytes())
    base = pa.py_buffer(bytes(data))
    batch = list(pa.ipc.MessageReader.open_stream(base))[1]
    body = batch.body.address - base.address
    meta = batch.metadata.address - base.address
    shapes = bytes(data).find(np.array([2, 2, 3, 1, 2, 3], np.int32).tobytes())
    assert shapes > body

    # Sizes no writer would store are reported as they are (validate refuses them).
    huge = bytearray(data)
    huge[shapes : shapes + 24] = np.array([2**31 - 1, 2, 3, -5, 2, 3], np.int32).tobytes()
    (tmp_path / "huge.arrows").write_bytes(bytes(huge))
    column = json.loads(ok("inspect", "--json", tmp_path / "huge.arrows"))["files"][0]["columns"][0]
    assert column["shape_stats"][0]["min"] == 2**31 - 1  # row 1 is null
    assert run("validate", tmp_path / "huge.arrows").returncode == 1

    # The metadata says the shape buffer holds 8 bytes, not the 24 two rows
    # of three sizes need: a problem for that column, not a read past it.
    spec = np.array([shapes - body, 24], np.int64).tobytes()
    at = bytes(data).find(spec, meta, body)
    assert at > 0
    short = bytearray(data)
    short[at + 8 : at + 16] = np.int64(8).tobytes()
    (tmp_path / "short.arrows").write_bytes(bytes(short))
    column = json.loads(ok("inspect", "--json", tmp_path / "short.arrows"))["files"][0]["columns"][
        0
    ]
    assert "its shape buffer holds 8 bytes; 2 rows of 3 int32 sizes need 24" in column["problem"]
    r = run("inspect", tmp_path / "short.arrows")
    assert r.returncode == 0 and "problem: its shape buffer holds 8 bytes" in r.stdout
    assert run("validate", tmp_path / "short.arrows").returncode == 1


def with_shape_size_2_24(data):
    """A stream whose schema's shape list size (3, column 'r') says 2^24."""
    meta_end = 8 + int(np.frombuffer(data[4:8], np.int32)[0])
    huge = None
    for at in range(8, meta_end - 3, 4):  # the schema's list size of 3, wherever it lies
        if np.frombuffer(data[at : at + 4], np.int32)[0] != 3:
            continue
        patched = data[:at] + np.int32(1 << 24).tobytes() + data[at + 4 :]
        try:
            schema = pa.ipc.read_schema(pa.py_buffer(patched))
        except pa.ArrowInvalid:
            continue
        if "[16777216]" in str(schema.field("r").type.storage_type):
            huge = patched
    assert huge is not None
    return huge


def test_inspect_a_huge_ndim_the_shape_buffer_cannot_back_is_a_problem(tmp_path):
    # A schema whose shape list says 2^24 dims over a body that holds two
    # rows of 3: inspect reports the short shape buffer for that column,
    # without first making 2^24 axes (a 2 KiB file took 12 GB and 35 s).
    shapes = [(2, 2, 3), (1, 2, 3)]
    storage = pa.StructArray.from_arrays(
        [
            pa.array([np.zeros(s, np.uint8).ravel() for s in shapes], pa.list_(pa.uint8())),
            pa.array([list(s) for s in shapes], pa.list_(pa.int32(), 3)),
        ],
        names=["data", "shape"],
    )
    column = pa.ExtensionArray.from_storage(VariableShapeTensor(storage.type, b"{}"), storage)
    write_ipc(tmp_path / "s.arrows", pa.table({"r": column}), stream=True)
    huge = with_shape_size_2_24((tmp_path / "s.arrows").read_bytes())
    (tmp_path / "huge.arrows").write_bytes(huge)
    r = run("inspect", "--json", tmp_path / "huge.arrows")
    assert r.returncode == 0, r.stderr
    column = json.loads(r.stdout)["files"][0]["columns"][0]
    assert column["ndim"] == 1 << 24 and column["shape_stats"] == []
    assert (
        "its shape buffer holds 24 bytes; 2 rows of 16777216 int32 sizes need 134217728"
        in column["problem"]
    )


def test_inspect_a_huge_ndim_without_rows_lists_no_axes(tmp_path):
    # The same 2^24-dim schema over a batch of no rows: nothing backs the
    # ndim, so no 2^24 "no rows" axis entries (5 GB of output before).
    storage = pa.StructArray.from_arrays(
        [pa.array([], pa.list_(pa.uint8())), pa.array([], pa.list_(pa.int32(), 3))],
        names=["data", "shape"],
    )
    column = pa.ExtensionArray.from_storage(VariableShapeTensor(storage.type, b"{}"), storage)
    write_empty_batch(tmp_path / "e.arrows", column)
    huge = with_shape_size_2_24((tmp_path / "e.arrows").read_bytes())
    (tmp_path / "empty-huge.arrows").write_bytes(huge)
    r = run("inspect", "--json", tmp_path / "empty-huge.arrows")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout) < 10_000
    entry = json.loads(r.stdout)["files"][0]["columns"][0]
    assert entry["shape_stats"] == []
    assert "ndim 16777216 and no rows: axes are listed for at most 64" in entry["problem"]
    # An honest empty column still lists its axes.
    write_empty_batch(tmp_path / "e3.arrows", column)
    stats = json.loads(run("inspect", "--json", tmp_path / "e3.arrows").stdout)
    assert len(stats["files"][0]["columns"][0]["shape_stats"]) == 3


def write_empty_batch(path, column):
    """A stream of one record batch of no rows (write_table writes none)."""
    batch = pa.record_batch({"r": column})
    with pa.ipc.new_stream(str(path), batch.schema) as writer:
        writer.write_batch(batch)


def test_inspect_counts_that_headers_push_past_int64_are_errors(tmp_path):
    # Two batch headers each claiming 2^62 + 1 rows (or nulls): their sum
    # is not taken past int64 (it wrapped negative); the buffers are never
    # read, so only the headers need to lie.
    huge = struct.pack("<q", (1 << 62) + 1)
    x = pa.table({"x": pa.array([10, 20, 30, 40], pa.int64())})
    write_ipc(tmp_path / "rows.arrows", pa.concat_tables([x, x]), stream=True, max_chunksize=4)
    data = bytearray((tmp_path / "rows.arrows").read_bytes())
    patched, at = 0, 0
    while True:  # in each record batch header: its length and its column's node length
        size = struct.unpack_from("<i", data, at + 4)[0]
        if size == 0:
            break
        message = pa.ipc.read_message(pa.py_buffer(bytes(data[at:])))
        if message.type == "record batch":
            for k in range(at + 8, at + 8 + size - 7):
                if data[k : k + 8] == struct.pack("<q", 4):
                    data[k : k + 8] = huge
                    patched += 1
        at += 8 + size + (message.body.size if message.body is not None else 0)
    assert patched == 4
    (tmp_path / "rows.arrows").write_bytes(bytes(data))
    r = run("inspect", tmp_path / "rows.arrows")
    assert r.returncode == 1
    assert "the row counts of its 2 record batches add up past 2^63 - 1" in r.stderr

    storage = pa.FixedSizeListArray.from_arrays(
        pa.array(np.arange(6, dtype=np.int8)), 1, mask=pa.array([False, True] + [False] * 4)
    )
    tensors = pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(pa.int8(), [1]), storage)
    t = pa.table({"l": pa.ListArray.from_arrays(pa.array([0, 3, 6], pa.int32()), tensors)})
    write_ipc(tmp_path / "nulls.arrows", pa.concat_tables([t, t]), stream=True, max_chunksize=2)
    data = (tmp_path / "nulls.arrows").read_bytes()
    node = struct.pack("<qq", 6, 1)  # the tensors' field node, in each batch
    assert data.count(node) == 2
    (tmp_path / "nulls.arrows").write_bytes(data.replace(node, huge + huge))
    columns = json.loads(ok("inspect", "--json", tmp_path / "nulls.arrows"))["files"][0]["columns"]
    inner = {c["name"]: c for c in columns}["l[]"]
    assert inner["null_count"] == (1 << 62) + 1
    assert inner["problem"] == "its null counts add up past 2^63 - 1"


# --- validate ---------------------------------------------------------------


def test_validate_sound_files(files):
    out = ok(
        "validate",
        files / "fixed.arrow",
        files / "fixed.arrows",
        files / "zstd.arrow",
        files / "tensor.arrow",
    )
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
    data[at + 12 : at + 16] = np.int32(7).tobytes()
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


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["inspect"],
        ["inspect", "--bogus", "x"],
        ["inspect", "/no/such/file"],
        ["validate", "/no/such/file"],
        ["head", "/no/such/file"],
        ["head"],
    ],
)
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


# --- pack / unpack ----------------------------------------------------------

ROUND_TRIP_ARRAYS = {
    "c_float32": np.arange(12, dtype=np.float32).reshape(3, 4),
    "fortran": np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4)),
    "big_endian": np.arange(6, dtype=">i8").reshape(2, 3),
    "big_float": np.linspace(0, 1, 5).astype(">f8"),
    "scalar": np.array(7.5),
    "empty": np.zeros((0, 3), np.uint16),
    "flags": np.array([[True, False], [False, True]]),
    "half": np.arange(4, dtype=np.float16),
    "bytes": np.arange(256, dtype=np.uint8).reshape(16, 16),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP_ARRAYS))
def test_pack_unpack_round_trip(tmp_path, name):
    src = ROUND_TRIP_ARRAYS[name]
    (tmp_path / "in").mkdir()
    np.save(tmp_path / "in" / f"{name}.npy", src)
    ok("pack", tmp_path / "in", "-o", tmp_path / "p.arrow", "-q")
    assert ok("validate", "-q", tmp_path / "p.arrow") == ""
    ok("unpack", tmp_path / "p.arrow", "-o", tmp_path / "out", "-q")
    back = np.load(tmp_path / "out" / f"{name}.npy")
    assert back.shape == src.shape and back.dtype == src.dtype.newbyteorder("=")
    assert np.array_equal(back, src)
    # Byte-identical to what np.save writes for the array in native C order.
    np.save(tmp_path / "expected.npy", src.astype(src.dtype.newbyteorder("="), order="C"))
    assert (tmp_path / "out" / f"{name}.npy").read_bytes() == (
        tmp_path / "expected.npy"
    ).read_bytes()


def test_pack_fixed_when_shapes_agree_variable_otherwise(tmp_path):
    d = tmp_path / "imgs"
    (d / "sub").mkdir(parents=True)
    for i in range(3):
        np.save(d / f"img{i}.npy", np.full((2, 3, 3), i, np.uint8))
    out = ok("pack", d, "-o", tmp_path / "fixed.arrow", "--dim-names", "H,W,C")
    assert "3 arrays as fixed_shape_tensor<uint8>[2, 3, 3] dim_names=[H, W, C]" in out
    np.save(d / "sub" / "big.npy", np.full((4, 3, 3), 9, np.uint8))
    ok("pack", d, "-o", tmp_path / "ragged.arrows", "--dim-names", "H,W,C", "--compression", "zstd")
    info = json.loads(ok("inspect", "--json", tmp_path / "fixed.arrow", tmp_path / "ragged.arrows"))
    fixed, ragged = info["files"]
    assert fixed["columns"][1]["kind"] == "fixed_shape_tensor"
    assert fixed["columns"][1]["shape"] == [2, 3, 3]
    assert ragged["format"] == "ipc_stream" and ragged["compressed"]
    col = ragged["columns"][1]
    assert col["kind"] == "variable_shape_tensor" and col["uniform_shape"] == [None, 3, 3]
    table = pa.ipc.open_stream(tmp_path / "ragged.arrows").read_all()
    assert table.column("name").to_pylist() == ["img0", "img1", "img2", "sub/big"]
    ok("unpack", tmp_path / "ragged.arrows", "-o", tmp_path / "out", "-q")
    assert (tmp_path / "out" / "sub" / "big.npy").read_bytes() == (
        d / "sub" / "big.npy"
    ).read_bytes()
    # Fixed-shape batches, read by pyarrow.
    t = pa.ipc.open_file(tmp_path / "fixed.arrow").read_all()
    assert t.schema.field("tensor").type.extension_name == "arrow.fixed_shape_tensor"
    r = run("pack", d, "-o", tmp_path / "x.arrow", "--tensor", "fixed")
    assert r.returncode == 1 and "shapes differ" in r.stderr


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_pack_npz(tmp_path, save):
    save(tmp_path / "a.npz", first=np.arange(6.0).reshape(2, 3), second=np.ones((2, 3)))
    ok("pack", tmp_path / "a.npz", "-o", tmp_path / "p.arrow", "-q")
    t = pa.ipc.open_file(tmp_path / "p.arrow").read_all()
    assert t.column("name").to_pylist() == ["first", "second"]
    ok("unpack", tmp_path / "p.arrow", "-o", tmp_path / "out", "-q")
    assert np.array_equal(np.load(tmp_path / "out" / "first.npy"), np.arange(6.0).reshape(2, 3))


def test_pack_errors(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
    np.save(tmp_path / "b.npy", np.zeros(3, np.float64))
    np.save(tmp_path / "c.npy", np.zeros((3, 1), np.float32))
    np.save(tmp_path / "s.npy", np.array(["text"]))
    good = (tmp_path / "a.npy").read_bytes()
    (tmp_path / "trunc.npy").write_bytes(good[:-4])
    (tmp_path / "junk.npy").write_bytes(good[:8] + b"\xff" * 40)
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 this is not really a zip")
    cases = {
        ("b.npy",): "holds float64",
        ("c.npy",): "axes",
        ("s.npy",): "unsupported .npy dtype '<U4'",
        ("trunc.npy",): "(truncated?)",
        ("junk.npy",): ".npy",
        ("junk.npz",): "not a zip archive",
    }
    for extra, message in cases.items():
        r = run(
            "pack", tmp_path / "a.npy", *[tmp_path / e for e in extra], "-o", tmp_path / "o.arrow"
        )
        assert r.returncode == 1, (extra, r.stderr)
        assert message in r.stderr and r.stderr.startswith("quiver: pack: "), (extra, r.stderr)
        assert not (tmp_path / "o.arrow").exists()  # no partial output
    r = run("pack", tmp_path / "a.npy", "-o", tmp_path / "o.arrow", "--dim-names", "H,W")
    assert r.returncode == 1 and "--dim-names gives 2 names, the arrays have 1 axes" in r.stderr
    for bad in [
        ["pack", tmp_path / "a.npy"],
        ["pack", tmp_path / "missing.npy", "-o", "x.arrow"],
        ["pack", tmp_path / "a.npy", "-o", "x.arrow", "--tensor", "sideways"],
        ["unpack", tmp_path / "missing.arrow", "-o", tmp_path],
    ]:
        assert run(*bad).returncode == 2, bad


def test_unpack_names_are_confined_to_the_output(tmp_path):
    t = pa.table(
        {
            "name": ["../evil", "/abs", "ok", "ok", None],
            "x": pa.ExtensionArray.from_storage(
                pa.fixed_shape_tensor(pa.int8(), (1,)),
                pa.FixedSizeListArray.from_arrays(pa.array(np.arange(5, dtype=np.int8)), 1),
            ),
        }
    )
    with pa.ipc.new_file(tmp_path / "t.arrow", t.schema) as w:
        w.write_table(t)
    ok("unpack", tmp_path / "t.arrow", "-o", tmp_path / "out", "-q")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["ok.npy", "ok_3.npy", "row_0.npy", "row_1.npy", "row_4.npy"]
    assert not (tmp_path / "evil.npy").exists()
    r = run("unpack", tmp_path / "t.arrow", "-o", tmp_path / "o2", "--column", "name")
    assert r.returncode == 1 and "not a tensor column" in r.stderr


# --- convert ----------------------------------------------------------------


def test_convert_stream_file_compression_and_tensor_kinds(files, tmp_path):
    ok("convert", files / "fixed.arrow", tmp_path / "a.arrows", "--compression", "lz4", "-q")
    ok("convert", tmp_path / "a.arrows", tmp_path / "b.arrow", "--tensor", "variable", "-q")
    ok("convert", tmp_path / "b.arrow", tmp_path / "c.arrow", "--tensor", "fixed", "-q")
    info = json.loads(
        ok("inspect", "--json", tmp_path / "a.arrows", tmp_path / "b.arrow", tmp_path / "c.arrow")
    )["files"]
    # (lz4 frames of these few bytes are larger than the bytes: the writer
    # stores them uncompressed, so "compressed" stays false)
    assert info[0]["format"] == "ipc_stream" and info[0]["compression"] == "lz4"
    assert info[1]["columns"][1]["kind"] == "variable_shape_tensor"
    assert info[1]["columns"][1]["uniform_shape"] == [2, 3]
    assert info[2]["columns"][1]["kind"] == "fixed_shape_tensor"
    # pyarrow reads every output and sees the same values.
    want = pa.ipc.open_file(files / "fixed.arrow").read_all()
    assert pa.ipc.open_stream(tmp_path / "a.arrows").read_all().equals(want)
    assert pa.ipc.open_file(tmp_path / "c.arrow").read_all().equals(want)


def test_convert_ragged_to_fixed_is_refused(tmp_path):
    ragged_file(tmp_path / "r.arrow", [(2, 3, 3), (4, 3, 3)])
    r = run("convert", tmp_path / "r.arrow", tmp_path / "f.arrow", "--tensor", "fixed")
    assert r.returncode == 1 and "cannot become fixed_shape_tensor" in r.stderr
    assert not (tmp_path / "f.arrow").exists()


def test_convert_sparse_formats(files, tmp_path):
    ok("convert", files / "tensor.arrow", tmp_path / "csr.arrow", "--sparse", "csr", "-q")
    for fmt in ["coo", "csc", "csf"]:
        ok("convert", tmp_path / "csr.arrow", tmp_path / f"{fmt}.arrow", "--sparse", fmt, "-q")
        info = json.loads(ok("inspect", "--json", tmp_path / f"{fmt}.arrow"))["files"][0]
        assert info["format"] == "sparse_tensor"
        st = info["sparse_tensor"]
        assert st["format"] == fmt.upper() and st["shape"] == [3, 4] and st["nnz"] == 11
        assert abs(st["density"] - 11 / 12) < 1e-9
        ok("validate", "-q", tmp_path / f"{fmt}.arrow")
    ok("convert", tmp_path / "csf.arrow", tmp_path / "dense.arrow", "--dense", "-q")
    back = pa.ipc.read_tensor(pa.memory_map(str(tmp_path / "dense.arrow"))).to_numpy()
    assert np.array_equal(back, np.arange(12, dtype=np.int16).reshape(3, 4))
    m = pa.ipc.read_message(pa.memory_map(str(tmp_path / "csr.arrow")))
    assert m.type == "sparse tensor"


def test_convert_errors(files, tmp_path):
    r = run("convert", files / "fixed.arrow", tmp_path / "x.arrow", "--sparse", "csr")
    assert r.returncode == 1 and "--sparse and --dense apply to Tensor" in r.stderr
    r = run("convert", files / "tensor.arrow", tmp_path / "x.arrow", "--compression", "zstd")
    assert r.returncode == 1 and "apply to record batches" in r.stderr
    r = run("convert", files / "truncated.arrows", tmp_path / "x.arrow")
    assert r.returncode == 1 and "batch 0" in r.stderr and not (tmp_path / "x.arrow").exists()
    assert (
        run("convert", files / "fixed.arrow", tmp_path / "x.arrow", "--sparse", "dia").returncode
        == 2
    )
    assert run("convert", files / "fixed.arrow").returncode == 2
    assert run("convert", tmp_path / "nope.arrow", tmp_path / "x.arrow").returncode == 2
    assert (
        run(
            "convert", files / "tensor.arrow", tmp_path / "x.arrow", "--sparse", "coo", "--dense"
        ).returncode
        == 2
    )


# --- demo -------------------------------------------------------------------


def test_demo_reports_and_leaves_valid_files(tmp_path):
    out = ok("demo", "--dir", tmp_path / "d", "--rows", "16")
    assert "16 ragged images" in out and "zero-copy" in out and "enforce_shape" in out
    assert "[n, h, w, 4] is refused" in out
    for name in [
        "demo.arrow",
        "demo.arrows",
        "matrix.arrow",
        "matrix_COO.arrow",
        "matrix_CSC.arrow",
        "matrix_CSF.arrow",
    ]:
        assert ok("validate", "-q", tmp_path / "d" / name) == "", name
    t = pa.ipc.open_file(tmp_path / "d" / "demo.arrow").read_all()
    assert t.num_rows == 16 and t.schema.names == ["image", "embedding"]
    assert ok("demo", "-q", "--rows", "4") == ""


# --- docs/cli.md against --help ---------------------------------------------

COMMANDS = ["inspect", "validate", "head", "pack", "unpack", "convert", "demo"]


def doc_sections():
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    sections = {}
    for part in text.split("\n## quiver ")[1:]:
        name, _, body = part.partition("\n")
        sections[name.strip()] = body
    return sections


@pytest.mark.parametrize("command", COMMANDS)
def test_docs_list_every_option_of_help(command):
    """docs/cli.md has a section per command listing every option its
    --help lists (and no option --help lacks), with examples in --help."""
    import re

    help_text = ok(command, "--help")
    assert "Examples:" in help_text and f"quiver {command}" in help_text and "--quiet" in help_text
    section = doc_sections()[command]
    usage = section.split("```")[1]
    help_options = set(re.findall(r"(?m)^\s+((?:-\w,)?--[\w-]+)", help_text))
    help_longs = {o.split(",")[-1] for o in help_options} - {"--help"}
    doc_longs = set(re.findall(r"(--[\w-]+)", usage))
    assert help_longs == doc_longs, (command, help_longs ^ doc_longs)
    for short in re.findall(r"(?m)^\s+-(\w),--", help_text):
        if short != "h":
            assert f"-{short}," in usage, (command, short)
    positionals = re.findall(r"(?m)^  ([A-Z]+) ", help_text)
    for p in positionals:
        assert p in usage, (command, p)


def test_docs_cover_every_command():
    top = ok("--help")
    import re

    listed = re.findall(r"(?m)^  (\w+)\s{2,}", top.split("Subcommands:")[1].split("Examples:")[0])
    assert sorted(listed) == sorted(COMMANDS)
    assert sorted(doc_sections()) == sorted(COMMANDS)


def test_unpack_empty_names_and_tensor_message(files, tmp_path):
    t = pa.table(
        {
            "name": ["", ""],
            "x": pa.ExtensionArray.from_storage(
                pa.fixed_shape_tensor(pa.int8(), (1,)),
                pa.FixedSizeListArray.from_arrays(pa.array(np.arange(2, dtype=np.int8)), 1),
            ),
        }
    )
    with pa.ipc.new_stream(tmp_path / "t.arrows", t.schema) as w:
        w.write_table(t)
    ok("unpack", tmp_path / "t.arrows", "-o", tmp_path / "out", "-q")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["row_0.npy", "row_1.npy"]
    ok("unpack", files / "tensor.arrow", "-o", tmp_path / "t", "-q")
    assert np.array_equal(
        np.load(tmp_path / "t" / "tensor.npy"), np.arange(12, dtype=np.int16).reshape(3, 4)
    )


# --- the console script (python/quiver/_cli.py) -----------------------------

CLI_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "python" / "quiver" / "_cli.py"
RUN_SCRIPT = """
import importlib.util, pathlib, sys
spec = importlib.util.spec_from_file_location("quiver_cli_script", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
exe = pathlib.Path(sys.argv[2])
module.executable = lambda: exe
sys.argv = ["quiver", *sys.argv[3:]]
module.main()
"""


def test_console_script_runs_the_executable(files):
    import sys

    r = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN_SCRIPT,
            str(CLI_SCRIPT),
            CLI,
            "validate",
            str(files / "fixed.arrow"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "fixed.arrow: OK" in r.stdout, r.stderr
    r = subprocess.run(
        [sys.executable, "-c", RUN_SCRIPT, str(CLI_SCRIPT), CLI, "inspect"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2  # the tool's own exit code passes through
    r = subprocess.run(
        [sys.executable, "-c", RUN_SCRIPT, str(CLI_SCRIPT), "/no/such/quiver", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        r.returncode == 2 and "has no command-line tool" in r.stderr and "libcli11-dev" in r.stderr
    )
    assert "make wheel" in r.stderr


# --- progress bars ----------------------------------------------------------


def test_progress_only_on_a_terminal(tmp_path):
    import pty

    for i in range(3):
        np.save(tmp_path / f"a{i}.npy", np.zeros(4, np.float32))
    inputs = [tmp_path / f"a{i}.npy" for i in range(3)]
    r = run("pack", *inputs, "-o", tmp_path / "p.arrow")
    assert r.returncode == 0 and r.stderr == ""  # a pipe: no bar
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.run(
            [CLI, "pack", *map(str, inputs), "-o", str(tmp_path / "q.arrow")],
            stdout=subprocess.PIPE,
            stderr=secondary,
            timeout=60,
        )
        os.close(secondary)
        secondary = None
        drawn = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if secondary is not None:
            os.close(secondary)
        os.close(primary)
    assert proc.returncode == 0
    assert b"pack [" in drawn and b"3/3" in drawn and drawn.endswith(b"\r\x1b[K")
    quiet = run("pack", *inputs, "-o", tmp_path / "r.arrow", "-q")
    assert quiet.stdout == "" and quiet.stderr == ""


# --- hostile inputs, changing files, pipes, signals, names ---------------


def popen(*args, **kwargs):
    return subprocess.Popen(
        [CLI, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs
    )


def wait_until(predicate, timeout=60, proc=None):
    end = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"quiver ended early ({proc.returncode}): {err.decode()}")
        if time.monotonic() > end:
            pytest.fail("timed out")
        time.sleep(0.002)


def leftovers(folder):
    return sorted(p.name for p in pathlib.Path(folder).iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("change", ["other shape", "same shape, new file", "truncated"])
def test_pack_refuses_an_input_changed_between_its_passes(tmp_path, change):
    # pack reads every header first, then the elements. The output is a
    # FIFO, so the first batch (1 MiB, more than the pipe holds) blocks pack
    # until it is read: b.npy is changed while pack is stopped there, after
    # its first pass and before its second reads b.npy.
    big = np.arange(1 << 20, dtype=np.uint8).reshape(1024, 1024)
    np.save(tmp_path / "a.npy", big)
    np.save(tmp_path / "b.npy", big)
    fifo = tmp_path / "out.arrow"
    os.mkfifo(fifo)
    proc = popen(
        "pack", tmp_path / "a.npy", tmp_path / "b.npy", "-o", fifo, "--batch-bytes", "1", "-q"
    )
    fd = os.open(fifo, os.O_RDONLY)  # returns once pack opened it: its first pass is over
    try:

        def in_first_body():
            # More than the magic, schema and batch header: pack is inside
            # the 1 MiB body's write, which cannot finish until we read.
            pending = bytearray(4)
            fcntl.ioctl(fd, termios.FIONREAD, pending)
            return int.from_bytes(pending, sys.byteorder) > 16384

        wait_until(in_first_body, proc=proc)
        if change == "other shape":
            np.save(tmp_path / "new.npy", np.zeros(10, np.uint8))
            os.replace(tmp_path / "new.npy", tmp_path / "b.npy")
        elif change == "same shape, new file":
            np.save(tmp_path / "new.npy", big[::-1].copy())
            os.replace(tmp_path / "new.npy", tmp_path / "b.npy")
        else:
            os.truncate(tmp_path / "b.npy", 4000)
        while os.read(fd, 1 << 20):
            pass
    finally:
        os.close(fd)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert err.decode().startswith("quiver: pack: ") and "b.npy" in err.decode(), err
    assert "changed" in err.decode() or "shrank" in err.decode(), err


def test_pack_reads_a_regular_file_without_trusting_a_plan_that_no_longer_fits(tmp_path):
    # Without a FIFO trick: inputs that stay put still pack (the checks pass).
    for i in range(3):
        np.save(tmp_path / f"a{i}.npy", np.full((3, 2), i, np.int16))
    ok(
        "pack",
        *[tmp_path / f"a{i}.npy" for i in range(3)],
        "-o",
        tmp_path / "p.arrow",
        "-q",
        "--batch-bytes",
        "1",
    )
    t = pa.ipc.open_file(tmp_path / "p.arrow").read_all()
    assert t.num_rows == 3 and leftovers(tmp_path) == []


def one_byte_rows(path, names):
    t = pa.table(
        {
            "name": names,
            "x": pa.ExtensionArray.from_storage(
                pa.fixed_shape_tensor(pa.int8(), (1,)),
                pa.FixedSizeListArray.from_arrays(
                    pa.array(np.arange(len(names), dtype=np.int8)), 1
                ),
            ),
        }
    )
    with pa.ipc.new_file(path, t.schema) as w:
        w.write_table(t)


def unpacked(folder):
    """{relative path: the row's value} of every .npy under folder."""
    folder = pathlib.Path(folder)
    return {str(p.relative_to(folder)): int(np.load(p)[0]) for p in folder.rglob("*.npy")}


def test_unpack_keeps_every_row_when_suffixed_names_collide(tmp_path):
    one_byte_rows(tmp_path / "t.arrow", ["x", "x_2", "x", "A", "a", "x_2"])
    out = ok("unpack", tmp_path / "t.arrow", "-o", tmp_path / "out")
    files = unpacked(tmp_path / "out")
    assert sorted(files.values()) == [0, 1, 2, 3, 4, 5], files
    assert files["x.npy"] == 0 and files["x_2.npy"] == 1 and files["A.npy"] == 3
    # Names differing only in case collide too (a case-insensitive file
    # system would keep one of them).
    assert len({name.lower() for name in files}) == 6
    assert ": 6 .npy files" in out


def test_unpack_refuses_to_overwrite_without_force_and_never_follows_symlinks(tmp_path):
    one_byte_rows(tmp_path / "t.arrow", ["x", "y", "sub/z"])
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "victim.npy").write_bytes(b"precious")
    (tmp_path / "out" / "x.npy").write_bytes(b"old x")
    r = run("unpack", tmp_path / "t.arrow", "-o", tmp_path / "out")
    assert r.returncode == 1 and "x.npy" in r.stderr and "--force" in r.stderr, r.stderr
    assert (tmp_path / "out" / "x.npy").read_bytes() == b"old x"
    ok("unpack", tmp_path / "t.arrow", "-o", tmp_path / "out", "--force", "-q")
    assert unpacked(tmp_path / "out") == {"x.npy": 0, "y.npy": 1, "sub/z.npy": 2}
    # Symlinks in the output folder, to a file and to a folder.
    shutil.rmtree(tmp_path / "out")
    (tmp_path / "out").mkdir()
    os.symlink(tmp_path / "victim.npy", tmp_path / "out" / "y.npy")
    os.symlink(tmp_path / "elsewhere", tmp_path / "out" / "sub")
    for force in [[], ["--force"]]:
        r = run("unpack", tmp_path / "t.arrow", "-o", tmp_path / "out", *force)
        assert r.returncode == 1, (force, r.stderr)
        assert (tmp_path / "victim.npy").read_bytes() == b"precious"
        assert list((tmp_path / "elsewhere").iterdir()) == []
        assert leftovers(tmp_path / "out") == []
    assert "symlink" in r.stderr, r.stderr


def test_unpack_escapes_control_characters_in_names(tmp_path):
    one_byte_rows(tmp_path / "t.arrow", ["a\nb", "c\x1b[2Jd", "e\x7f", "../up", "ok/./x"])
    out = ok("unpack", tmp_path / "t.arrow", "-o", tmp_path / "out")
    files = unpacked(tmp_path / "out")
    assert files == {
        "a%0Ab.npy": 0,
        "c%1B[2Jd.npy": 1,
        "e%7F.npy": 2,
        "row_3.npy": 3,
        "row_4.npy": 4,
    }, files
    assert "\x1b" not in out


def big_ipc_file(path, mib=48):
    rows = mib * 16
    t = pa.table(
        {
            "name": [f"r{i}" for i in range(rows)],
            "x": pa.ExtensionArray.from_storage(
                pa.fixed_shape_tensor(pa.uint8(), (256, 256)),
                pa.FixedSizeListArray.from_arrays(
                    pa.array(np.zeros(rows * 65536, np.uint8)), 65536
                ),
            ),
        }
    )
    with pa.ipc.new_file(path, t.schema) as w:
        w.write_table(t, max_chunksize=64)


def test_a_file_truncated_under_the_cli_is_an_error_not_a_signal(tmp_path):
    big_ipc_file(tmp_path / "big.arrow")
    whole = (tmp_path / "big.arrow").read_bytes()
    stop = threading.Event()

    def truncate_and_restore():
        # Whole for a while (so that the tool opens a sound file), then cut
        # to a third (under whatever it is reading) and made whole again.
        cut = len(whole) // 3
        while not stop.is_set():
            with open(tmp_path / "big.arrow", "r+b") as f:
                time.sleep(0.03)
                f.truncate(cut)
                time.sleep(0.001)
                f.seek(cut)
                f.write(whole[cut:])

    thread = threading.Thread(target=truncate_and_restore)
    thread.start()
    try:
        for _ in range(10):
            for args in [
                ["validate", "-q"],
                ["head", "-n", "1000"],
                ["inspect"],
                ["convert", "-q", "--compression", "zstd"],
            ]:
                extra = [tmp_path / "copy.arrow"] if args[0] == "convert" else []
                r = run(*args, tmp_path / "big.arrow", *extra)
                assert r.returncode >= 0, (args, r.returncode, r.stderr[-500:])
    finally:
        stop.set()
        thread.join()


def test_standard_input_pipes_and_fifos_are_read_as_streams(files, tmp_path):
    for name in ["fixed.arrow", "fixed.arrows", "tensor.arrow"]:
        data = (files / name).read_bytes()
        piped = subprocess.run(
            [CLI, "inspect", "--json", "-"], input=data, capture_output=True, timeout=60
        )
        assert piped.returncode == 0, piped.stderr
        info = json.loads(piped.stdout)["files"][0]
        assert info["path"] == "-" and info["size_bytes"] == len(data)
        with open(files / name, "rb") as f:  # standard input a regular file
            redirected = subprocess.run(
                [CLI, "inspect", "--json", "-"], stdin=f, capture_output=True, timeout=60
            )
        assert json.loads(redirected.stdout) == json.loads(piped.stdout)
    data = (files / "fixed.arrow").read_bytes()
    for args in [["validate", "-"], ["head", "-n", "2", "-"]]:
        r = subprocess.run([CLI, *args], input=data, capture_output=True, timeout=60)
        assert r.returncode == 0 and b"empty" not in r.stderr, (args, r.stderr)
    r = subprocess.run([CLI, "head", "-"], input=data, capture_output=True, timeout=60)
    assert b"row 3:" in r.stdout
    r = subprocess.run(
        [CLI, "convert", "-q", "-", tmp_path / "c.arrow"],
        input=data,
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert pa.ipc.open_file(tmp_path / "c.arrow").read_all().equals(fixed_table())
    r = subprocess.run(
        [CLI, "unpack", "-q", "-", "-o", tmp_path / "u"],
        input=data,
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "u").iterdir()) == [
        "a.npy",
        "b.npy",
        "c.npy",
        "d.npy",
    ]
    np.save(tmp_path / "one.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    r = subprocess.run(
        [CLI, "pack", "-q", "-", "-o", tmp_path / "p.arrow"],
        input=(tmp_path / "one.npy").read_bytes(),
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert pa.ipc.open_file(tmp_path / "p.arrow").read_all().num_rows == 1
    # A FIFO, and a pipe named as /dev/fd/N (what bash's <(...) passes).
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = popen("inspect", "--json", fifo)
    with open(fifo, "wb") as f:
        f.write((files / "fixed.arrows").read_bytes())
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert json.loads(out)["files"][0]["num_rows"] == 4
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        [CLI, "validate", f"/dev/fd/{read_end}"],
        pass_fds=[read_end],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(read_end)
    os.write(write_end, data)
    os.close(write_end)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b": OK" in out, err
    r = subprocess.run([CLI, "inspect", "-"], input=b"", capture_output=True, timeout=60)
    assert r.returncode == 1 and b"quiver: -: " in r.stderr, r.stderr


def test_names_and_metadata_cannot_send_terminal_escapes(tmp_path):
    t = fixed_table().rename_columns(["name", "\x1b[31mred\x07", "i"])
    t = t.replace_schema_metadata({"\x1b]0;title\x07": "\x1b[2J\x9b1m\u009b2m", "ok": "fine"})
    with pa.ipc.new_file(tmp_path / "evil.arrow", t.schema) as w:
        w.write_table(t)
    for args in [["inspect"], ["head", "-n", "1"], ["head", "-c", "\x1b[31mred\x07"]]:
        r = subprocess.run([CLI, *args, tmp_path / "evil.arrow"], capture_output=True, timeout=60)
        assert r.returncode == 0, (args, r.stderr)
        for raw in [b"\x1b", b"\x07", b"\x9b", "\u009b".encode()]:
            assert raw not in r.stdout and raw not in r.stderr, (args, raw, r.stdout)
        assert b"\\x1b[31mred\\x07" in r.stdout, (args, r.stdout)
    r = subprocess.run(
        [CLI, "head", "-c", "nope\x1b", tmp_path / "evil.arrow"], capture_output=True, timeout=60
    )
    assert r.returncode == 1 and b"\x1b" not in r.stderr


def slow_stream_input(tmp_path):
    """A FIFO that gets a stream's schema and first batch, then waits."""
    big = pa.table({"x": pa.array(np.zeros(1 << 20, np.float64))})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, big.schema) as w:
        w.write_table(big)
    fifo = tmp_path / "in.arrows"
    os.mkfifo(fifo)
    return fifo, sink.getvalue().to_pybytes()[:-8]  # without the end-of-stream marker


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_convert_killed_mid_write_leaves_no_temporary_file(tmp_path, sig):
    fifo, data = slow_stream_input(tmp_path)
    (tmp_path / "out").mkdir()
    proc = popen("convert", fifo, tmp_path / "out" / "c.arrow", "-q")
    writer = open(fifo, "wb")
    try:
        writer.write(data)
        writer.flush()
        # The batch is written under a temporary name; convert then waits
        # for the next batch.
        wait_until(lambda: leftovers(tmp_path / "out"), proc=proc)
        time.sleep(0.2)
        proc.send_signal(sig)
        proc.communicate(timeout=60)
    finally:
        try:
            writer.close()
        except BrokenPipeError:
            pass
    assert proc.returncode == -sig
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_pack_killed_mid_write_leaves_no_temporary_file(tmp_path, sig):
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    for i in range(48):
        np.save(tmp_path / "in" / f"a{i:02}.npy", np.full((1024, 1024), i, np.uint8))
    proc = popen(
        "pack",
        tmp_path / "in",
        "-o",
        tmp_path / "out" / "p.arrow",
        "--batch-bytes",
        "1",
        "--compression",
        "zstd",
        "-q",
    )
    wait_until(lambda: leftovers(tmp_path / "out"), proc=proc)
    proc.send_signal(signal.SIGSTOP)  # hold it mid-write, whatever the machine's speed
    proc.send_signal(sig)
    proc.send_signal(signal.SIGCONT)
    proc.communicate(timeout=60)
    assert proc.returncode == -sig
    assert list((tmp_path / "out").iterdir()) == []


def test_negative_counts_are_usage_errors(files, tmp_path):
    for args in [
        ["head", files / "fixed.arrow", "-n", "-1"],
        ["head", files / "fixed.arrow", "--rows=-5"],
        ["pack", tmp_path, "-o", tmp_path / "p.arrow", "--batch-bytes", "-1"],
        ["pack", tmp_path, "-o", tmp_path / "p.arrow", "--batch-bytes", "0"],
    ]:
        r = run(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stdout == "" and len(r.stderr) < 400, (args, r.stderr)
        assert "-n" in r.stderr or "--rows" in r.stderr or "--batch-bytes" in r.stderr, r.stderr


def test_unknown_commands_are_named_and_version_works_anywhere(files):
    r = run("badcmd")
    assert r.returncode == 2
    assert "unknown command 'badcmd'" in r.stderr, r.stderr
    for command in ["inspect", "validate", "head", "pack", "unpack", "convert", "demo"]:
        assert command in r.stderr
    version = ok("--version")
    assert version.startswith("quiver ")
    for command in ["inspect", "head", "pack", "convert"]:
        assert ok(command, "--version") == version


@pytest.mark.parametrize(
    "name",
    [
        "out.npy",
        "out.npz",
        "out.csv",
        "out.json",
        "out.pt",
        "out.h5",
        "OUT.NPY",
    ],
)
def test_foreign_output_extensions_are_refused(files, tmp_path, name):
    np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
    for args in [
        ["convert", files / "fixed.arrow", tmp_path / name],
        ["pack", tmp_path / "a.npy", "-o", tmp_path / name],
    ]:
        r = run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert name in r.stderr and ".arrow" in r.stderr and ".feather" in r.stderr, r.stderr
        assert not (tmp_path / name).exists()


def test_pack_refuses_a_safetensors_output(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
    r = run("pack", tmp_path / "a.npy", "-o", tmp_path / "out.safetensors")
    assert r.returncode == 2 and "out.safetensors" in r.stderr, r.stderr


def write_safetensors(path, tensors, metadata):
    """A safetensors file in the reference writer's layout (widest dtype
    first, then by name; compact JSON padded with spaces to 8 bytes)."""
    codes = {"float64": "F64", "int64": "I64", "float32": "F32", "uint8": "U8", "bool": "BOOL"}
    rank = ["BOOL", "U8", "F32", "F64", "I64"]
    order = sorted(tensors, key=lambda k: (-rank.index(codes[tensors[k].dtype.name]), k))
    header, data = {"__metadata__": metadata}, b""
    for name in order:
        a = tensors[name]
        header[name] = {
            "dtype": codes[a.dtype.name],
            "shape": list(a.shape),
            "data_offsets": [len(data), len(data) + a.nbytes],
        }
        data += a.tobytes()
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def test_convert_safetensors_to_arrow_and_back(tmp_path):
    tensors = {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3),
        "scalar": np.array(7, np.int64),
        "empty": np.zeros((0, 4), np.uint8),
        "flags": np.array([True, False]),
    }
    write_safetensors(tmp_path / "m.safetensors", tensors, {"format": "pt"})
    out = ok("convert", tmp_path / "m.safetensors", tmp_path / "m.arrow")
    assert "1 row, 4 tensor columns" in out
    table = pa.ipc.open_file(tmp_path / "m.arrow").read_all()
    assert table.num_rows == 1 and table.schema.metadata == {b"format": b"pt"}
    assert table.schema.field("w").metadata == {b"safetensors.dtype": b"F32"}
    assert table.column("w").type.extension_name == "arrow.fixed_shape_tensor"
    np.testing.assert_array_equal(table.column("w").chunk(0).to_numpy_ndarray()[0], tensors["w"])
    ok("convert", tmp_path / "m.arrow", tmp_path / "back.safetensors", "-q")
    assert (tmp_path / "back.safetensors").read_bytes() == (tmp_path / "m.safetensors").read_bytes()


def test_convert_to_safetensors_needs_one_row_of_tensor_columns(files, tmp_path):
    r = run("convert", files / "fixed.arrow", tmp_path / "out.safetensors")
    assert r.returncode == 1 and "rows; a safetensors file is written from exactly one" in r.stderr
    assert not (tmp_path / "out.safetensors").exists()
    (tmp_path / "bad.safetensors").write_bytes(b"\x10" + b"\0" * 7 + b"{not json}      ")
    r = run("convert", tmp_path / "bad.safetensors", tmp_path / "out.arrow")
    assert r.returncode == 1 and "bad.safetensors" in r.stderr and "not valid JSON" in r.stderr
    assert not (tmp_path / "out.arrow").exists()


@pytest.mark.parametrize("name", ["out.feather", "out.arrows", "out.ipc", "out", "out.bin"])
def test_arrow_and_neutral_output_extensions_are_accepted(files, tmp_path, name):
    ok("convert", files / "fixed.arrow", tmp_path / name, "-q")
    assert (tmp_path / name).exists()


@pytest.mark.parametrize("out_name", ["c.arrow", "c.arrows"])
def test_convert_keeps_batch_boundaries_including_empty_batches(tmp_path, out_name):
    t = fixed_table()
    whole = t.combine_chunks().to_batches()[0]
    batches = [whole.slice(0, 3), whole.slice(3, 0), whole.slice(3, 1)]
    assert [b.num_rows for b in batches] == [3, 0, 1]
    with pa.ipc.new_file(tmp_path / "in.arrow", t.schema) as w:
        for b in batches:
            w.write_batch(b)
    out = ok("convert", tmp_path / "in.arrow", tmp_path / out_name)
    # convert reads and writes one batch at a time: it reports the 3 it read.
    assert "3 record batches, 4 rows" in out
    if out_name.endswith(".arrows"):
        got = [b.num_rows for b in pa.ipc.open_stream(tmp_path / out_name)]
    else:
        reader = pa.ipc.open_file(tmp_path / out_name)
        got = [reader.get_batch(i).num_rows for i in range(reader.num_record_batches)]
    # Depends on the IPC writers writing zero-row record batches (they do
    # now): with a writer that drops them this fails with [3, 1].
    assert got == [3, 0, 1]


# --- Parquet files ----------------------------------------------------------


@pytest.fixture
def parquet_file(tmp_path):
    # pyarrow alone: the C++ suite runs this before the Python package is
    # installed.
    pq = pytest.importorskip("pyarrow.parquet")
    values = np.arange(48, dtype=np.float32).reshape(4, 3, 4)
    table = pa.table(
        {
            "label": pa.array([7, None, 9, 10], pa.int32()),
            "name": ["a", "b", None, "d"],
            "image": pa.FixedShapeTensorArray.from_numpy_ndarray(values),
        }
    )
    path = tmp_path / "images.parquet"
    pq.write_table(table, path, row_group_size=2, compression="zstd")
    return path


def test_inspect_a_parquet_file_from_its_footer(parquet_file):
    text = ok("inspect", parquet_file)
    assert "Parquet file" in text and "2 row groups, 4 rows" in text
    assert "image: fixed_shape_tensor" in text
    assert "image.list.element: FLOAT, [ZSTD]" in text
    info = json.loads(ok("inspect", "--json", parquet_file))["files"][0]
    assert info["format"] == "parquet"
    assert info["num_row_groups"] == 2 and info["num_rows"] == 4
    label = info["columns"][0]
    assert label["path"] == "label" and label["physical_type"] == "INT32"
    assert label["null_count"] == 1 and label["codecs"] == ["ZSTD"]


def test_head_and_validate_read_parquet_row_groups(parquet_file):
    text = ok("head", "-n", "3", parquet_file)
    assert "row 2:" in text and "row 3:" not in text
    assert "label: null" in text and "[[12., 13., 14., 15.]," in text
    r = run("validate", parquet_file)
    assert r.returncode == 0, r.stderr


def test_validate_names_the_broken_row_group_of_a_parquet_file(parquet_file, tmp_path):
    import pyarrow.parquet as pq

    column = pq.ParquetFile(parquet_file).metadata.row_group(1).column(0)
    data = bytearray(parquet_file.read_bytes())
    start = column.dictionary_page_offset or column.data_page_offset
    size = column.total_compressed_size
    data[start + 2 : start + size] = bytes(size - 2)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(bytes(data))
    r = run("validate", broken)
    assert r.returncode == 1
    assert "batch 1" in r.stderr and "row group 1" in r.stderr


def test_convert_parquet_to_ipc(parquet_file, tmp_path):
    out = tmp_path / "images.arrow"
    text = ok("convert", parquet_file, out)
    assert "2 record batches, 4 rows" in text
    with pa.ipc.open_file(out) as reader:
        table = reader.read_all()
    pq = pytest.importorskip("pyarrow.parquet")
    assert table.equals(pq.read_table(parquet_file))


def test_convert_packs_npy_and_npz_inputs_into_parquet_or_ipc(tmp_path):
    # convert of a NumPy input packs it as `quiver pack` does: a row per
    # array (a .npy file is one row, an .npz archive a row per member).
    pq = pytest.importorskip("pyarrow.parquet")
    image = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    np.save(tmp_path / "image.npy", image)
    np.savez(tmp_path / "pair.npz", a=np.ones((2, 3), np.int16), b=np.zeros((2, 3), np.int16))
    ok("convert", tmp_path / "image.npy", tmp_path / "image.parquet")
    table = pq.read_table(tmp_path / "image.parquet")
    assert table.column("name").to_pylist() == ["image"]
    assert table.schema.field("tensor").type.extension_name == "arrow.fixed_shape_tensor"
    np.testing.assert_array_equal(table.column("tensor").chunk(0).to_numpy_ndarray()[0], image)
    ok("convert", tmp_path / "pair.npz", tmp_path / "pair.parquet", "--compression", "zstd")
    pair = pq.read_table(tmp_path / "pair.parquet")
    assert pair.column("name").to_pylist() == ["a", "b"]
    ok("convert", tmp_path / "pair.npz", tmp_path / "pair.arrow")
    with pa.ipc.open_file(tmp_path / "pair.arrow") as reader:
        assert reader.read_all().column("name").to_pylist() == ["a", "b"]
    r = run("convert", tmp_path / "image.npy", tmp_path / "image.safetensors")
    assert r.returncode == 1 and "is a NumPy file" in r.stderr


def test_convert_and_pack_write_parquet(files, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "fixed.parquet"
    text = ok("convert", files / "fixed.arrow", out, "--compression", "zstd")
    assert "Parquet file" in text
    with pa.ipc.open_file(files / "fixed.arrow") as reader:
        expected = reader.read_all()
    back = pq.read_table(out)
    assert back.equals(expected)
    assert pq.ParquetFile(out).metadata.row_group(0).column(0).compression == "ZSTD"
    # And back to IPC, through quiver's own reader.
    again = tmp_path / "again.arrow"
    ok("convert", out, again)
    with pa.ipc.open_file(again) as reader:
        assert reader.read_all().equals(expected)
    # .npy files packed straight into Parquet.
    arrays = [np.full((2, 3), i, np.float32) for i in range(4)]
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"a{i}.npy", a)
    packed = tmp_path / "packed.parquet"
    ok("pack", *[tmp_path / f"a{i}.npy" for i in range(4)], "-o", packed)
    column = pq.read_table(packed).column("tensor")
    assert column.type.extension_name == "arrow.fixed_shape_tensor"
    np.testing.assert_array_equal(column.combine_chunks().to_numpy_ndarray(), np.stack(arrays))


def test_convert_to_parquet_writes_row_groups_as_batches_come(tmp_path):
    # Three record batches of 40 MiB: the writer holds at most about 64 MiB
    # before it writes a row group, so the file has two (80 + 40 MiB), not
    # one gathered whole.
    pq = pytest.importorskip("pyarrow.parquet")
    rows = 40 * 1024
    schema = pa.schema([("id", pa.int64()), ("x", pa.binary(1024))])
    source = tmp_path / "big.arrow"
    with pa.ipc.new_file(source, schema) as writer:
        for part in range(3):
            ids = np.arange(part * rows, (part + 1) * rows)
            values = pa.array([b"\x07" * 1024] * rows, pa.binary(1024))
            writer.write_batch(pa.record_batch([pa.array(ids), values], schema=schema))
    out = tmp_path / "big.parquet"
    ok("convert", source, out)
    metadata = pq.ParquetFile(out).metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [
        2 * rows,
        rows,
    ]
    assert pq.read_table(out, columns=["id"]).column("id").to_pylist() == list(range(3 * rows))
