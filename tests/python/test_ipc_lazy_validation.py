"""read_all(validate="lazy"): the batches come back after the O(1) checks
(buffer sizes) and each column is validated in full the first time its
values are used. A good file reads equal to the eager read; a bad column
raises where it is used, naming the column and the record batch, and
nothing that reads values gets past the check."""

import io
import pickle
import struct
import threading

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv
from test_ipc_all_types import COLUMNS
from test_ipc_big_endian import big_endian_file


def _ipc(batches, stream=False):
    sink = io.BytesIO()
    opener = pai.new_stream if stream else pai.new_file
    with opener(sink, batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue()


def _open(data, stream):
    return qv.ipc.open_stream(data) if stream else qv.ipc.open_file(data)


def _good_table():
    tensors = pa.FixedShapeTensorArray.from_numpy_ndarray(
        np.arange(7 * 6, dtype=np.float32).reshape(7, 2, 3)
    )
    words = pa.array(["a", "b", None, "a", "c", "b", "a"]).dictionary_encode()
    return pa.table({**COLUMNS, "tensor": tensors, "dictionary": words})


def _bad_strings():
    """utf8 whose offsets go backwards in the middle: the first and last
    offsets are sound, so only full validation finds it."""
    offsets = pa.py_buffer(struct.pack("<4i", 0, 4, 2, 6))
    return pa.Array.from_buffers(pa.utf8(), 3, [None, offsets, pa.py_buffer(b"abcdef")])


def _file_with_bad_batch(stream=False):
    """Three batches of (good int64, s utf8); batch 1's s is bad."""
    good = pa.array(["x", "yy", "zzz"])
    batches = [
        pa.record_batch([pa.array([3 * b, 3 * b + 1, 3 * b + 2]), s], ["good", "s"])
        for b, s in enumerate([good, _bad_strings(), good])
    ]
    return _ipc(batches, stream)


BAD_COLUMN = r"column 1 \(s\): record batch 1: offset 2 \(2\) < offset 1 \(4\)"


@pytest.mark.parametrize("stream", [False, True])
def test_lazy_read_equals_eager_read(stream):
    table = _good_table()
    data = _ipc(table.to_batches(max_chunksize=3), stream)
    lazy = _open(data, stream).read_all(validate="lazy")
    eager = _open(data, stream).read_all()
    assert lazy.num_rows == 7 and lazy.num_columns == table.num_columns
    assert pa.table(lazy).equals(pa.table(eager))
    assert pa.table(lazy).equals(table)
    for name in table.column_names:
        assert pa.chunked_array(lazy.column(name)).equals(table.column(name)), name


def test_lazy_read_of_a_big_endian_file_equals_its_twin():
    data = _ipc(_good_table().select(["decimal64", "map", "dense_union", "ree"]).to_batches(3))
    lazy = qv.ipc.open_file(big_endian_file(data)).read_all(validate="lazy")
    assert pa.table(lazy).equals(pa.table(qv.ipc.open_file(data).read_all()))


@pytest.mark.parametrize("stream", [False, True])
def test_eager_read_refuses_the_bad_batch(stream):
    with pytest.raises(ValueError, match="record batch 1|message"):
        _open(_file_with_bad_batch(stream), stream).read_all()


@pytest.mark.parametrize("stream", [False, True])
def test_lazy_read_answers_shape_questions_without_checking(stream):
    table = _open(_file_with_bad_batch(stream), stream).read_all(validate="lazy")
    assert table.num_rows == 9 and len(table) == 9
    assert table.num_columns == 2 and table.shape == (9, 2)
    assert table.column_names == ["good", "s"]
    assert str(table.schema.field("s").type) == "utf8"
    assert table.field("s").name == "s"
    assert table.__arrow_c_schema__() is not None


@pytest.mark.parametrize("stream", [False, True])
def test_lazy_read_gives_the_good_column_and_refuses_the_bad_one(stream):
    table = _open(_file_with_bad_batch(stream), stream).read_all(validate="lazy")
    assert table.column("good").to_pylist() == list(range(9))
    assert table["good"].to_pylist() == list(range(9))
    for _ in range(2):  # the failure is kept and raised on every use
        with pytest.raises(ValueError, match=BAD_COLUMN):
            table.column("s")
    with pytest.raises(ValueError, match=BAD_COLUMN):
        table[1]
    # The good columns make a table of their own.
    kept = qv.table({name: table[name] for name in ["good"]})
    assert kept.column("good").to_pylist() == list(range(9))


USES = {
    "columns": lambda t: t.columns,
    "to_batches": lambda t: t.to_batches(),
    "take": lambda t: t.take([0]),
    "filter": lambda t: t.filter([True] * 9),
    "slice": lambda t: t.slice(0, 1),
    "getitem slice": lambda t: t[0:1],
    "select": lambda t: t.select(["s"]),
    "drop_columns": lambda t: t.drop_columns(["good"]),
    "rename_columns": lambda t: t.rename_columns(["a", "b"]),
    "combine_chunks": lambda t: t.combine_chunks(),
    "to_pylist": lambda t: t.to_pylist(),
    "to_pydict": lambda t: t.to_pydict(),
    "repr": repr,
    "equals": lambda t: t.equals(t),
    "==": lambda t: t == t,
    "pickle": pickle.dumps,
    "c stream": lambda t: t.__arrow_c_stream__(),
    "pyarrow": pa.table,
    "to_pyarrow": lambda t: t.to_pyarrow(),
    "qv.table": qv.table,
    "concat_tables": lambda t: qv.concat_tables([t]),
    "write_file": lambda t: qv.ipc.write_file(t, io.BytesIO()),
    "validate": lambda t: t.validate(),
}


@pytest.mark.parametrize("use", sorted(USES))
def test_every_use_of_values_checks_first(use):
    table = qv.ipc.open_file(_file_with_bad_batch()).read_all(validate="lazy")
    with pytest.raises(ValueError, match=BAD_COLUMN):
        USES[use](table)


def test_every_kind_of_bad_value_is_found_on_use():
    # Each passes the O(1) checks and fails full validation.
    bad_index = pa.DictionaryArray.from_buffers(
        pa.dictionary(pa.int32(), pa.utf8()),
        2,
        [None, pa.py_buffer(struct.pack("<2i", 0, 7))],
        pa.array(["a", "b"]),
    )
    bad_utf8 = pa.Array.from_buffers(
        pa.utf8(), 2, [None, pa.py_buffer(struct.pack("<3i", 0, 1, 2)), pa.py_buffer(b"a\xff")]
    )
    bad_type_id = pa.UnionArray.from_buffers(
        pa.sparse_union([pa.field("i", pa.int32())]),
        2,
        [None, pa.py_buffer(bytes([0, 5]))],
        children=[pa.array([1, 2], pa.int32())],
    )
    cases = {
        "dictionary index 7 is outside": bad_index,
        "UTF-8": bad_utf8,
        "type id 5 names no child": bad_type_id,
    }
    for message, bad in cases.items():
        data = _ipc([pa.record_batch([pa.array([1, 2]), bad], ["good", "bad"])])
        with pytest.raises(ValueError, match=message):
            qv.ipc.open_file(data).read_all()
        table = qv.ipc.open_file(data).read_all(validate="lazy")
        assert table.column("good").to_pylist() == [1, 2]
        with pytest.raises(ValueError, match=r"column 1 \(bad\): record batch 0: .*" + message):
            table.column("bad")


def test_dictionaries_are_still_checked_when_read():
    # A dictionary's own values are checked as the reader loads it, lazy or not.
    offsets = pa.py_buffer(struct.pack("<3i", 0, 2, 1))
    bad_dictionary = pa.Array.from_buffers(pa.utf8(), 2, [None, offsets, pa.py_buffer(b"ab")])
    column = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), bad_dictionary)
    data = _ipc([pa.record_batch([column], ["d"])], stream=True)
    with pytest.raises(ValueError, match="dictionary"):
        qv.ipc.open_stream(data).read_all(validate="lazy")


def test_a_lazy_table_used_from_threads_checks_once_and_agrees():
    table = qv.ipc.open_file(_file_with_bad_batch()).read_all(validate="lazy")
    results, errors = [], []

    def use():
        results.append(table.column("good").to_pylist())
        try:
            table.column("s")
        except ValueError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [list(range(9))] * 8
    assert len(errors) == 8 and len(set(errors)) == 1


def test_a_lazy_table_that_validates_is_an_ordinary_table():
    data = _ipc(_good_table().to_batches(max_chunksize=4))
    table = qv.ipc.open_file(data).read_all(validate="lazy")
    table.validate()
    assert pickle.loads(pickle.dumps(table)).equals(table)
    eager = qv.ipc.open_file(data).read_all()
    assert table.slice(2, 3).equals(eager.slice(2, 3))


def test_validate_takes_eager_or_lazy_by_keyword_only():
    data = _file_with_bad_batch()
    with pytest.raises(ValueError, match="validate must be 'eager' or 'lazy', got 'full'"):
        qv.ipc.open_file(data).read_all(validate="full")
    with pytest.raises(TypeError):
        qv.ipc.open_file(data).read_all("lazy")


def test_table_validate_checks_tables_made_elsewhere():
    table = qv.table({"a": np.arange(4), "s": pa.array(["a", None, "ccc", ""])})
    table.validate()
    table.validate(full=False)


VST_FIELD_METADATA = {
    b"ARROW:extension:name": b"arrow.variable_shape_tensor",
    b"ARROW:extension:metadata": b"{}",
}


def _vst_file(offsets, values, shapes, large=False, stream=False):
    """One batch of a 1-D variable_shape_tensor column, rows as given (the
    storage written as it is, unchecked, by pyarrow)."""
    list_type = pa.large_list(pa.float32()) if large else pa.list_(pa.float32())
    width = "<%dq" if large else "<%di"
    data = pa.Array.from_buffers(
        list_type,
        len(offsets) - 1,
        [None, pa.py_buffer(struct.pack(width % len(offsets), *offsets))],
        children=[pa.array(values, pa.float32())],
    )
    shape = pa.array([[s] for s in shapes], pa.list_(pa.int32(), 1))
    storage = pa.StructArray.from_arrays([data, shape], ["data", "shape"])
    schema = pa.schema([pa.field("t", storage.type, metadata=VST_FIELD_METADATA)])
    return _ipc([pa.record_batch([storage], schema=schema)], stream)


@pytest.mark.parametrize("large", [False, True])
def test_a_tensor_row_whose_length_is_not_its_shape_is_refused_eager_and_lazy(large):
    # Row 0 holds 2 values but claims shape [3]: its offsets are sound.
    data = _vst_file([0, 2, 4], [1, 2, 3, 4], [3, 2], large)
    message = r"row 0: data length 2 != product of shape \[3\] \(3\)"
    with pytest.raises(ValueError, match=message):
        qv.ipc.open_file(data).read_all()
    table = qv.ipc.open_file(data).read_all(validate="lazy")
    with pytest.raises(ValueError, match=message):
        table.column("t")
    with pytest.raises(ValueError, match=message):
        pa.table(table)
    good = _vst_file([0, 3, 5], [1, 2, 3, 4, 5], [3, 2], large)
    assert qv.ipc.open_file(good).read_all(validate="lazy").column("t").chunks[0][0].tolist() == [
        1,
        2,
        3,
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_no_tensor_rows_with_an_empty_offsets_buffer(stream):
    # The format lets an empty list's offsets buffer be empty; pyarrow
    # writes a 0-row large_list so. Nothing may be read from it.
    list_type = pa.large_list(pa.float32())
    data_list = pa.Array.from_buffers(
        list_type, 0, [None, pa.py_buffer(b"")], children=[pa.array([], pa.float32())]
    )
    shape = pa.array([], pa.list_(pa.int32(), 1))
    storage = pa.StructArray.from_arrays([data_list, shape], ["data", "shape"])
    schema = pa.schema([pa.field("t", storage.type, metadata=VST_FIELD_METADATA)])
    full = pa.record_batch(
        [
            pa.StructArray.from_arrays(
                [pa.array([[1.0, 2.0]], list_type), pa.array([[2]], pa.list_(pa.int32(), 1))],
                ["data", "shape"],
            )
        ],
        schema=schema,
    )
    data = _ipc([pa.record_batch([storage], schema=schema), full], stream)
    for validate in ("eager", "lazy"):
        table = _open(data, stream).read_all(validate=validate)
        assert table.num_rows == 1
        assert table.column("t").chunks[1][0].tolist() == [1.0, 2.0]


def test_a_stream_names_its_own_batch_after_batches_were_read():
    good = pa.array(["x", "yy", "zzz"])
    batches = [pa.record_batch([s], ["s"]) for s in (good, good, _bad_strings())]
    reader = qv.ipc.open_stream(_ipc(batches, stream=True))
    next(reader)
    next(reader)
    table = reader.read_all(validate="lazy")
    assert table.num_rows == 3
    with pytest.raises(ValueError, match=r"column 0 \(s\): record batch 2: offset 2"):
        table.column("s")
