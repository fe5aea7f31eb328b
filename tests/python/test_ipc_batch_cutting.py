"""Writers cut batches by max_batch_rows / max_batch_bytes: what is read
back (by quiver and by pyarrow) equals what was written, batches have the
rows and body sizes the limits allow, a file's footer lists the rows of
its batches, and bad limits are refused naming the argument."""

import io

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv

CODECS = [None, "lz4", "zstd"]


def ragged_table(rows=60):
    """A variable-shape tensor column whose rows differ a lot in size (every
    ninth row is large), and an int64 id column."""
    tensors = [np.full((3, 400 if i % 9 == 4 else (i % 5) + 1), i, np.float32) for i in range(rows)]
    ragged = qv.VariableShapeTensorArray.from_numpy(tensors)
    return pa.table({"t": pa.array(ragged), "id": pa.array(range(rows), pa.int64())})


def file_bytes(table, **options):
    sink = io.BytesIO()
    qv.ipc.write_file(table, sink, **options)
    return sink.getvalue()


def stream_bytes(table, **options):
    sink = io.BytesIO()
    qv.ipc.write_stream(table, sink, **options)
    return sink.getvalue()


def quiver_rows(data):
    with qv.ipc.open_file(data) as reader:
        return [reader.record_batch_layout(i)["num_rows"] for i in range(len(reader))]


@pytest.mark.parametrize("codec", CODECS)
def test_rows_cut_files_and_streams_and_read_back_equal(codec):
    if codec and codec not in qv.ipc.codecs():
        pytest.skip(f"this build has no {codec}")
    table = ragged_table(25)
    data = file_bytes(table, compression=codec, max_batch_rows=10)
    assert quiver_rows(data) == [10, 10, 5]
    with qv.ipc.open_file(data) as reader:
        assert reader.footer_record_batch_rows == [10, 10, 5]
        assert pa.table(reader.read_all()).equals(table)
    # pyarrow ignores the footer's metadata and reads the same batches.
    arrow = pai.open_file(data)
    assert [arrow.get_batch(i).num_rows for i in range(arrow.num_record_batches)] == [10, 10, 5]
    assert arrow.read_all().equals(table)
    stream = stream_bytes(table, compression=codec, max_batch_rows=10)
    assert [b.num_rows for b in pai.open_stream(stream)] == [10, 10, 5]
    assert pa.table(qv.ipc.open_stream(stream).read_all()).equals(table)


@pytest.mark.parametrize("codec", CODECS)
def test_bytes_cut_ragged_rows_each_body_within_the_limit(codec):
    if codec and codec not in qv.ipc.codecs():
        pytest.skip(f"this build has no {codec}")
    table = ragged_table()
    limit = 6000  # one large row (4800 bytes of values) with a few small ones
    data = file_bytes(table, compression=codec, max_batch_bytes=limit)
    plain = file_bytes(table, max_batch_bytes=limit)
    # Cuts are made on the uncompressed body: the same under any codec.
    assert quiver_rows(data) == quiver_rows(plain)
    with qv.ipc.open_file(plain) as reader:
        layouts = [reader.record_batch_layout(i) for i in range(len(reader))]
    assert len(layouts) > 7
    assert all(layout["body_length"] <= limit for layout in layouts)
    with qv.ipc.open_file(data) as reader:
        assert reader.footer_record_batch_rows == quiver_rows(data)
        assert pa.table(reader.read_all()).equals(table)
    arrow = pai.open_file(data)
    assert [arrow.get_batch(i).num_rows for i in range(arrow.num_record_batches)] == quiver_rows(
        data
    )
    assert arrow.read_all().equals(table)


def test_an_oversized_row_is_written_alone():
    table = ragged_table(30)
    # Below every large row's size: each large row alone, over the limit.
    data = file_bytes(table, max_batch_bytes=1024)
    with qv.ipc.open_file(data) as reader:
        layouts = [reader.record_batch_layout(i) for i in range(len(reader))]
        assert pa.table(reader.read_all()).equals(table)
    over = [layout for layout in layouts if layout["body_length"] > 1024]
    assert len(over) == 3  # rows 4, 13 and 22
    assert all(layout["num_rows"] == 1 for layout in over)


def test_new_file_and_new_stream_cut_every_write():
    first = pa.table({"x": pa.array(range(7), pa.int32())})
    second = pa.table({"x": pa.array(range(7, 10), pa.int32())})
    sink = io.BytesIO()
    with qv.ipc.new_file(sink, first.schema, max_batch_rows=3) as writer:
        writer.write(first)
        writer.write(second)
    assert quiver_rows(sink.getvalue()) == [3, 3, 1, 3]
    assert pai.open_file(sink.getvalue()).read_all().equals(pa.concat_tables([first, second]))
    stream = io.BytesIO()
    with qv.ipc.new_stream(stream, first.schema, max_batch_rows=np.int64(2)) as writer:
        writer.write(first)
    assert [b.num_rows for b in pai.open_stream(stream.getvalue())] == [2, 2, 2, 1]


def test_a_zero_row_batch_stays_one_batch():
    empty = qv.record_batch({"x": np.zeros(0, np.int32)})
    data = file_bytes(empty, max_batch_rows=1, max_batch_bytes=1)
    assert quiver_rows(data) == [0]
    with qv.ipc.open_file(data) as reader:
        assert reader.footer_record_batch_rows == [0]


def test_files_of_other_writers_list_no_footer_rows():
    table = pa.table({"x": [1, 2, 3]})
    sink = pa.BufferOutputStream()
    with pai.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    with qv.ipc.open_file(sink.getvalue().to_pybytes()) as reader:
        assert reader.footer_record_batch_rows is None
        assert len(reader) == 1
    # quiver lists them with no limits too.
    with qv.ipc.open_file(file_bytes(table)) as reader:
        assert reader.footer_record_batch_rows == [3]


@pytest.mark.parametrize("name", ["max_batch_rows", "max_batch_bytes"])
@pytest.mark.parametrize(
    "value, error",
    [
        (-1, ValueError),
        (0, ValueError),
        (2**63, ValueError),
        (True, TypeError),
        (1.5, TypeError),
        ("3", TypeError),
    ],
)
def test_bad_limits_are_refused_naming_the_argument(name, value, error):
    table = pa.table({"x": [1, 2, 3]})
    with pytest.raises(error, match=name):
        qv.ipc.write_file(table, io.BytesIO(), **{name: value})
    with pytest.raises(error, match=name):
        qv.ipc.write_stream(table, io.BytesIO(), **{name: value})
    with pytest.raises(error, match=name):
        qv.ipc.new_file(io.BytesIO(), table.schema, **{name: value})
    with pytest.raises(error, match=name):
        qv.ipc.new_stream(io.BytesIO(), table.schema, **{name: value})
