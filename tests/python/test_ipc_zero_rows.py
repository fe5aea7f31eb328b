"""Zero-row record batches survive quiver's writers: a batch of no rows
is written like any other (as pyarrow writes it), in files and streams,
for every type family whose empty layout differs (null, unions, run-end
encoded, list and binary views, extension types, large offsets); and a
table is cut into batches as pyarrow's write_table cuts it."""

import io

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv

SIZES = [3, 0, 2]


def _families():
    """name -> a pyarrow array of 5 rows (3 + 0 + 2)."""
    out = {}
    out["null"] = pa.nulls(5)
    types = pa.array([0, 1, 0, 1, 1], pa.int8())
    out["sparse_union"] = pa.UnionArray.from_sparse(
        types, [pa.array([1, None, 3, 4, 5], pa.int64()), pa.array(["a", "b", "c", None, "e"])]
    )
    out["dense_union"] = pa.UnionArray.from_dense(
        types,
        pa.array([0, 0, 1, 1, 2], pa.int32()),
        [pa.array([1.5, None], pa.float64()), pa.array([b"x", None, b"zz"], pa.binary())],
    )
    out["run_end_encoded"] = pa.RunEndEncodedArray.from_arrays(
        pa.array([2, 3, 5], pa.int32()), pa.array([10, None, 30], pa.int64())
    )
    out["list_view"] = pa.array([[1, 2], None, [], [3], [4, None]], pa.list_view(pa.int16()))
    out["large_list_view"] = pa.array(
        [["x"], [], None, ["y", "z"], ["w"]], pa.large_list_view(pa.utf8())
    )
    out["string_view"] = pa.array(
        ["a", None, "a string longer than twelve bytes", "", "b"], pa.string_view()
    )
    out["binary_view"] = pa.array([b"", b"inline", None, b"x" * 40, b"y"], pa.binary_view())
    cells = np.arange(5 * 6, dtype=np.float32).reshape(5, 2, 3)
    out["fixed_shape_tensor"] = pa.FixedShapeTensorArray.from_numpy_ndarray(cells)
    out["variable_shape_tensor"] = pa.array(
        qv.VariableShapeTensorArray.from_numpy(
            [np.ones((1, 2)), np.zeros((2, 2)), np.ones((0, 2)), np.ones((3, 1)), np.ones((1, 1))]
        )
    )
    out["large_list_large_string"] = pa.array(
        [["a", None], [], None, ["bc", "d", "e"], ["f"]], pa.large_list(pa.large_utf8())
    )
    out["large_binary_in_struct"] = pa.array(
        [
            {"b": b"x", "l": [1]},
            None,
            {"b": None, "l": []},
            {"b": b"yz", "l": [2, 3]},
            {"b": b"", "l": None},
        ],
        pa.struct([("b", pa.large_binary()), ("l", pa.large_list(pa.int32()))]),
    )
    return out


FAMILIES = _families()


def _batches(array):
    batch = pa.record_batch({"c": array, "i": pa.array(np.arange(len(array), dtype=np.int64))})
    out, start = [], 0
    for size in SIZES:
        out.append(batch.slice(start, size))
        start += size
    return out


def _pyarrow_bytes(batches, stream):
    sink = io.BytesIO()
    new = pai.new_stream if stream else pai.new_file
    with new(sink, batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue()


def _pyarrow_batches(data, stream):
    if stream:
        return list(pai.open_stream(data))
    reader = pai.open_file(data)
    return [reader.get_batch(i) for i in range(reader.num_record_batches)]


def _quiver_batches(data, stream):
    if stream:
        return list(qv.ipc.open_stream(data))
    reader = qv.ipc.open_file(data)
    return [reader.get_batch(i) for i in range(reader.num_record_batches)]


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("stream", [False, True])
def test_empty_batches_are_written_back(name, stream):
    given = _batches(FAMILIES[name])
    read = _quiver_batches(_pyarrow_bytes(given, stream), stream)
    assert [b.num_rows for b in read] == SIZES
    sink = io.BytesIO()
    new = qv.ipc.new_stream if stream else qv.ipc.new_file
    with new(sink, read[0].schema) as writer:
        for batch in read:
            writer.write(batch)
    back = _pyarrow_batches(sink.getvalue(), stream)
    assert [b.num_rows for b in back] == SIZES
    for want, got in zip(given, back):
        assert got.equals(want), name


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("method", ["write", "write_batch", "write_table"])
def test_a_zero_row_batch_is_one_batch(stream, method):
    batch = qv.record_batch({"x": np.zeros(0, dtype=np.int32)})
    sink = io.BytesIO()
    new = qv.ipc.new_stream if stream else qv.ipc.new_file
    with new(sink, batch.schema) as writer:
        getattr(writer, method)(batch)
    back = _pyarrow_batches(sink.getvalue(), stream)
    assert [b.num_rows for b in back] == [0]
    assert back[0].schema.equals(pa.schema([("x", pa.int32())]))


def _pyarrow_table_batches(table, stream):
    sink = io.BytesIO()
    new = pai.new_stream if stream else pai.new_file
    with new(sink, table.schema) as writer:
        writer.write_table(table)
    return [b.num_rows for b in _pyarrow_batches(sink.getvalue(), stream)]


def _quiver_table_batches(table, stream, how):
    sink = io.BytesIO()
    if how == "write_file":
        assert not stream
        qv.ipc.write_file(table, sink)
    else:
        new = qv.ipc.new_stream if stream else qv.ipc.new_file
        with new(sink, table.schema) as writer:
            getattr(writer, how)(table)
    return [b.num_rows for b in _pyarrow_batches(sink.getvalue(), stream)]


TABLE_CHUNKS = [
    [[[1, 2, 3], [], [4, 5]]],
    [[[], [1, 2, 3], []]],
    [[[], [], [1, 2, 3], [], [], [4]]],
    [[[1, 2, 3], [], [4, 5]], [[1], [2, 3, 4, 5]]],
    [[[1, 2, 3], [], [4, 5]], [[1], [], [2, 3, 4, 5]]],
    [[[], []]],
    [[[]]],
    [[]],
]


@pytest.mark.parametrize("chunks", TABLE_CHUNKS, ids=str)
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("how", ["write", "write_table", "write_file"])
def test_tables_are_cut_as_pyarrow_cuts_them(chunks, stream, how):
    if how == "write_file" and stream:
        pytest.skip("write_file writes files")
    table = pa.table({f"c{i}": pa.chunked_array(c, pa.int64()) for i, c in enumerate(chunks)})
    want = _pyarrow_table_batches(table, stream)
    assert _quiver_table_batches(qv.table(table), stream, how) == want
    assert [b.num_rows for b in qv.table(table).to_batches()] == [
        b.num_rows for b in table.to_batches()
    ]


def test_zero_row_table_gives_pyarrows_file():
    table = pa.table({"x": pa.array([], pa.float32())})
    sink = io.BytesIO()
    qv.ipc.write_file(qv.table(table), sink)
    reader = pai.open_file(sink.getvalue())
    assert reader.num_record_batches == _pyarrow_table_batches(table, False).__len__() == 0
    assert reader.read_all().equals(table)


def test_batch_from_a_table_with_empty_chunks():
    table = pa.table({"x": pa.chunked_array([[], [1, 2], []], pa.int64())})
    assert qv.record_batch(table).num_rows == 2


def test_batch_from_a_stream_of_zero_row_batches():
    schema = pa.schema([("x", pa.int64())])
    empty = pa.record_batch([pa.array([], pa.int64())], schema=schema)
    reader = pa.RecordBatchReader.from_batches(schema, [empty, empty])
    batch = qv.record_batch(reader)
    assert batch.num_rows == 0 and pa.record_batch(batch).schema.equals(schema)
    with pytest.raises(ValueError, match="expected one record batch, the stream holds 0"):
        qv.record_batch(pa.RecordBatchReader.from_batches(schema, []))
