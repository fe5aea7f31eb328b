"""Record batch layouts from Python: where a batch's body keeps what, read
from its header alone, and single body buffers as stored (docs/ipc.md,
"Layouts"). Non-native data kept with swap_endian=False is tested in
test_ipc_big_endian.py."""

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv


def test_layouts_of_native_files():
    table = pa.table(
        {
            "s": pa.array(["ab", None, "cde"]),
            "l": pa.array([[1, 2], [], None], pa.list_(pa.int32())),
        }
    )
    sink = pa.BufferOutputStream()
    with pai.new_file(sink, table.schema) as w:
        w.write_table(table)
    data = sink.getvalue().to_pybytes()
    reader = qv.ipc.open_file(data)
    layout = reader.record_batch_layout(-1)
    assert layout["compression"] is None and layout["num_rows"] == 3
    s, lst = layout["columns"]
    assert str(s["type"]) == "utf8" and len(s["buffers"]) == 3
    assert lst["children"][0]["length"] == 2 and str(lst["children"][0]["type"]) == "int32"
    offsets = np.asarray(reader.read_body_buffer(0, s["buffers"][1])).view("<i4")
    np.testing.assert_array_equal(offsets[:4], [0, 2, 2, 5])
    with pytest.raises(IndexError, match="batches"):
        reader.record_batch_layout(1)
    with pytest.raises(IndexError):
        reader.read_body_buffer(0, len(layout["buffers"]))
    compressed = pa.BufferOutputStream()
    with pai.new_file(
        compressed, table.schema, options=pai.IpcWriteOptions(compression="zstd")
    ) as w:
        w.write_table(table)
    zr = qv.ipc.open_file(compressed.getvalue().to_pybytes())
    assert zr.record_batch_layout(0)["compression"] == "zstd"
    np.testing.assert_array_equal(
        np.asarray(
            zr.read_body_buffer(0, zr.record_batch_layout(0)["columns"][0]["buffers"][1])
        ).view("<i4")[:4],
        [0, 2, 2, 5],
    )


def test_a_stream_layout_reads_only_its_own_buffers():
    table = pa.table({"x": pa.array(np.arange(5, dtype=np.int64))})
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, table.schema) as w:
        w.write_table(table)
        w.write_table(table)
    stream = qv.ipc.open_stream(sink.getvalue().to_pybytes())
    with pytest.raises(ValueError, match="there is none"):
        stream.read_body_buffer(0)
    layout = stream.read_next_layout()
    np.testing.assert_array_equal(
        np.asarray(stream.read_body_buffer(layout["columns"][0]["buffers"][1])).view("<i8"),
        np.arange(5),
    )
    # Layouts and batches mix: the second batch decodes as usual.
    assert pa.record_batch(next(stream)).column(0).to_pylist() == list(range(5))
    with pytest.raises(ValueError, match="there is none"):
        stream.read_body_buffer(0)
    assert stream.read_next_layout() is None
