"""Arrow IPC streams, files and the Tensor message, checked against pyarrow
in both directions, and the errors hostile bytes get."""

import gc
import io
import os
import random

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv

CODECS = [None, "lz4", "zstd"]


def sample_table(rows=6):
    images = np.arange(rows * 2 * 3, dtype=np.float32).reshape(rows, 2, 3)
    fixed = qv.FixedShapeTensorArray.from_numpy(images.transpose(0, 2, 1), dim_names=["W", "H"])
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.full((2, i + 1), i, np.int16) if i % 4 != 3 else None for i in range(rows)],
        dim_names=["C", "L"],
        uniform_shape=[2, None],
    )
    cells = pa.array(fixed)
    mask = pa.array([i % 5 == 2 for i in range(rows)])
    cells_with_nulls = pa.ExtensionArray.from_storage(
        cells.type, pa.FixedSizeListArray.from_arrays(cells.storage.flatten(), 6, mask=mask)
    )
    return pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "score": pa.array([i / 3 if i % 2 else None for i in range(rows)], pa.float32()),
            "flag": pa.array([i % 3 == 0 for i in range(rows)]),
            "label": pa.array([f"row {i}" if i % 4 else None for i in range(rows)]),
            "big_label": pa.array([f"L{i}" * i for i in range(rows)], pa.large_string()),
            "blob": pa.array([bytes([i]) * i for i in range(rows)], pa.binary()),
            "tags": pa.array(
                [[i, i + 1] if i % 3 else [] for i in range(rows)], pa.list_(pa.int32())
            ),
            "point": pa.array([{"x": i, "y": float(i)} for i in range(rows)]),
            "image": cells_with_nulls,
            "ragged": pa.array(ragged),
        },
        metadata={"dataset": "quiver sample", "version": "1"},
    )


def field_with_metadata(table):
    fields = [f.with_metadata({"unit": "px"}) if f.name == "id" else f for f in table.schema]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def pa_bytes(table, writer, codec):
    sink = pa.BufferOutputStream()
    options = pai.IpcWriteOptions(compression=codec)
    with writer(sink, table.schema, options=options) as w:
        for batch in table.to_batches(max_chunksize=4):
            w.write_batch(batch)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("sliced", [False, True])
def test_quiver_writes_pyarrow_reads(codec, sliced):
    table = field_with_metadata(sample_table(9))
    if sliced:
        table = table.slice(3, 5)
    for new, open_ in [
        (qv.ipc.new_file, lambda b: pai.open_file(b).read_all()),
        (qv.ipc.new_stream, lambda b: pai.open_stream(b).read_all()),
    ]:
        buf = io.BytesIO()
        with new(buf, table.schema, compression=codec) as writer:
            writer.write(table)
        back = open_(pa.py_buffer(buf.getvalue()))
        assert back.equals(table, check_metadata=True)
        assert back.schema.field("id").metadata == {b"unit": b"px"}
        assert back.schema.field("image").type.extension_name == "arrow.fixed_shape_tensor"
        assert back.schema.field("ragged").type.extension_name == "arrow.variable_shape_tensor"


@pytest.mark.parametrize("codec", CODECS)
def test_pyarrow_writes_quiver_reads(codec):
    table = field_with_metadata(sample_table(9))
    reader = qv.ipc.open_file(pa_bytes(table, pai.new_file, codec))
    assert reader.num_record_batches == 3 == len(reader)
    assert [b.num_rows for b in reader] == [4, 4, 1]  # iteration reads the batches in order
    assert reader[-1].num_rows == 1
    with pytest.raises(IndexError):
        reader[3]
    assert pa.table(reader).equals(table, check_metadata=True)
    assert reader.schema.metadata == {b"dataset": b"quiver sample", b"version": b"1"}
    batch = reader.get_batch(1)
    assert isinstance(batch.column("image"), qv.FixedShapeTensorArray)
    assert isinstance(batch.column("ragged"), qv.VariableShapeTensorArray)
    assert isinstance(batch.column("label"), qv.Array)
    np.testing.assert_array_equal(batch.column("ragged")[0], np.full((2, 5), 4, np.int16))
    stream = qv.ipc.open_stream(pa_bytes(table, pai.new_stream, codec))
    assert sum(b.num_rows for b in stream) == 9


def test_write_file_one_shot_and_polars_style_producers(tmp_path):
    table = sample_table()
    path = tmp_path / "one.arrow"
    qv.ipc.write_file(table, path, compression="zstd")
    assert pai.open_file(str(path)).read_all().equals(table)
    qv.ipc.write_file(table.to_batches()[0], path)  # anything with __arrow_c_array__
    assert pai.open_file(str(path)).read_all().equals(table)
    assert qv.table(table).num_rows == table.num_rows
    assert qv.table(qv.ipc.open_file(path)).equals(qv.table(table))


def test_memory_map_is_zero_copy_and_outlives_the_reader(tmp_path):
    table = sample_table(64)
    path = tmp_path / "mapped.arrow"
    with pai.new_file(str(path), table.schema) as w:
        w.write_table(table)
    reader = qv.ipc.open_file(path)
    images = reader.get_batch(0).column("image").to_numpy(allow_nulls=True)
    address = images.__array_interface__["data"][0]
    with open("/proc/self/maps") as maps:
        ranges = [
            tuple(int(x, 16) for x in line.split()[0].split("-"))
            for line in maps
            if str(path) in line
        ]
    assert any(lo <= address < hi for lo, hi in ranges)
    del reader
    gc.collect()
    os.remove(path)  # the mapping keeps the bytes readable
    np.testing.assert_array_equal(images[1], np.arange(6, 12, dtype=np.float32).reshape(2, 3).T)
    qv_col = qv.ipc.open_file(pa_bytes(table, pai.new_file, None)).read_all().column("image")
    assert qv_col.num_chunks == 16  # one chunk per batch, nothing combined


def test_read_only_footer_on_open(tmp_path):
    table = sample_table(8)
    path = tmp_path / "lazy.arrow"
    qv.ipc.write_file(table, path)
    data = bytearray(path.read_bytes())
    # Corrupt the first batch's body: opening reads only the footer.
    reader = qv.ipc.open_file(bytes(data))
    assert reader.num_record_batches == 1


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float32", "float64"])
def test_tensor_message_both_ways(dtype):
    x = np.arange(24).astype(dtype).reshape(2, 3, 4)
    for view in (x, np.asfortranarray(x), x[:, ::2, 1:]):
        buf = io.BytesIO()
        qv.ipc.write_tensor(qv.Tensor.from_numpy(view), buf)
        np.testing.assert_array_equal(
            pai.read_tensor(pa.BufferReader(buf.getvalue())).to_numpy(), view
        )
        sink = pa.BufferOutputStream()
        pai.write_tensor(
            pa.Tensor.from_numpy(np.ascontiguousarray(view), dim_names=["a", "b", "c"]), sink
        )
        back = qv.ipc.read_tensor(sink.getvalue().to_pybytes())
        np.testing.assert_array_equal(back.to_numpy(), view)
        assert back.dim_names == ["a", "b", "c"]


def stream_bytes(codec=None):
    buf = io.BytesIO()
    with qv.ipc.new_stream(buf, sample_table().schema, compression=codec) as w:
        w.write(sample_table())
        w.write(sample_table())
    return buf.getvalue()


def file_bytes(codec=None):
    buf = io.BytesIO()
    qv.ipc.write_file(sample_table(), buf, compression=codec)
    return buf.getvalue()


def read_stream(data):
    return qv.ipc.open_stream(data).read_all()


def read_file(data):
    reader = qv.ipc.open_file(data)
    return [reader.get_batch(i) for i in range(reader.num_record_batches)]


ERRORS = (ValueError, NotImplementedError, OSError, IndexError, TypeError)


def test_truncated_streams_and_files_are_errors():
    data = stream_bytes()
    for cut in range(0, len(data) - 8, 7):  # every 7th byte, message boundaries included
        try:
            read_stream(data[:cut])
        except ERRORS:
            pass
    with pytest.raises(ValueError, match="no schema message"):
        read_stream(b"")
    with pytest.raises(ValueError, match="bytes of metadata, 192 are left"):
        read_stream(data[:200])
    schema_end = int.from_bytes(data[4:8], "little") + 8
    batch_meta = int.from_bytes(data[schema_end + 4 : schema_end + 8], "little")
    with pytest.raises(ValueError, match=f"message at byte {schema_end} claims a body of"):
        read_stream(data[: schema_end + 8 + batch_meta + 16])
    fdata = file_bytes()
    for cut in range(0, len(fdata), 9):
        with pytest.raises(ERRORS):
            read_file(fdata[:cut])
    with pytest.raises(ValueError, match="bad magic at byte 0"):
        read_file(b"NOTARROW" + fdata[8:])
    with pytest.raises(ValueError, match="truncated"):
        read_file(fdata[:-1])


@pytest.mark.parametrize("make", [stream_bytes, file_bytes])
@pytest.mark.parametrize("codec", CODECS)
def test_mutated_bytes_never_crash(make, codec):
    data = make(codec)
    reader = read_stream if make is stream_bytes else read_file
    rng = random.Random(1234)
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        try:
            reader(bytes(mutated))
        except ERRORS:
            pass


def test_oversized_decompression_claim_is_refused():
    data = bytearray(stream_bytes("zstd"))
    # The first compressed buffer of the first batch starts with its
    # uncompressed length: claim 2^60 bytes.
    schema_len = int.from_bytes(data[4:8], "little") + 8
    batch_meta = int.from_bytes(data[schema_len + 4 : schema_len + 8], "little")
    body = schema_len + 8 + batch_meta
    first = next(
        i
        for i in range(body, len(data) - 8, 8)
        if int.from_bytes(data[i : i + 8], "little", signed=True) > 0
    )
    data[first : first + 8] = (1 << 60).to_bytes(8, "little")
    with pytest.raises(ValueError, match="decompressed bytes; the limit is"):
        read_stream(bytes(data))


def test_max_decompressed_buffer_can_be_lowered(tmp_path):
    # A small compressed stream may claim a large buffer: a reader of
    # untrusted data lowers the limit below the 16 GiB default.
    table = pa.table({"zeros": np.zeros(1 << 20, np.int64)})  # 8 MiB, compresses to little
    sink = pa.BufferOutputStream()
    with pai.new_stream(
        sink, table.schema, options=pai.IpcWriteOptions(compression="zstd")
    ) as writer:
        writer.write_table(table)
    data = sink.getvalue().to_pybytes()
    assert len(data) < 64 << 10
    assert qv.ipc.open_stream(data, max_decompressed_buffer=8 << 20).read_all().num_rows == 1 << 20
    with pytest.raises(ValueError, match="claims 8388608 decompressed bytes; the limit is 1048576"):
        qv.ipc.open_stream(data, max_decompressed_buffer=1 << 20).read_all()
    path = tmp_path / "zeros.arrow"
    with pai.new_file(
        str(path), table.schema, options=pai.IpcWriteOptions(compression="zstd")
    ) as writer:
        writer.write_table(table)
    reader = qv.ipc.open_file(str(path), max_decompressed_buffer=1000)
    with pytest.raises(ValueError, match="the limit is 1000"):
        reader.get_batch(0)
    with pytest.raises(TypeError, match="max_decompressed_buffer must be an int .bytes., got str"):
        qv.ipc.open_stream(data, max_decompressed_buffer="1 MiB")
    with pytest.raises(TypeError, match="got bool"):
        qv.ipc.open_file(str(path), max_decompressed_buffer=True)
    with pytest.raises(ValueError, match=r"must be in \[0, 2\^63 - 1\] bytes, got -1"):
        qv.ipc.open_file(str(path), max_decompressed_buffer=-1)
    with pytest.raises(ValueError, match="got 1267650600228229401496703205376"):
        qv.ipc.open_stream(data, max_decompressed_buffer=2**100)
    assert qv.ipc.open_stream(data, max_decompressed_buffer=np.int64(8 << 20)).read_all().num_rows


def test_map_and_union_columns_beside_others_are_read():
    # Once refused whole (issue 26); tests/python/test_ipc_all_types.py
    # covers every type.
    table = pa.table({"ok": [1], "m": pa.array([[("a", 1)]], pa.map_(pa.string(), pa.int32()))})
    got = qv.ipc.open_stream(pa_bytes(table, pai.new_stream, None)).read_all()
    assert pa.table(got).equals(table)
    assert got.column("m").to_pylist() == [[("a", 1)]]
    u = pa.table({"u": pa.UnionArray.from_sparse(pa.array([0], pa.int8()), [pa.array([1])])})
    assert pa.table(qv.ipc.open_file(pa_bytes(u, pai.new_file, None)).read_all()).equals(u)


def real_world_table():
    import decimal

    return pa.table(
        {
            "ts": pa.array([1, None, 3], pa.timestamp("us", "Europe/Paris")),
            "day": pa.array([1, 2, None], pa.date32()),
            "ms": pa.array([1, None, 86400000], pa.date64()),
            "clock": pa.array([1, 2, 3], pa.time32("ms")),
            "nanos": pa.array([1, None, 3], pa.time64("ns")),
            "wait": pa.array([5, None, 7], pa.duration("s")),
            "price": pa.array(
                [decimal.Decimal("1.23"), None, decimal.Decimal("-4.56")], pa.decimal128(10, 2)
            ),
            "wide": pa.array(
                [decimal.Decimal("1.5"), None, decimal.Decimal("2")], pa.decimal256(40, 1)
            ),
            "nothing": pa.nulls(3),
            "caption": pa.array(
                ["a", None, "a caption longer than twelve bytes"], pa.string_view()
            ),
            "raw": pa.array([b"x" * 20, b"y", None], pa.binary_view()),
            "category": pa.array(["cat", "dog", None]).dictionary_encode(),
            "small": pa.DictionaryArray.from_arrays(
                pa.array([1, 0, None], pa.int8()), pa.array(["x", "y"])
            ),
        },
        metadata={"source": "camera"},
    )


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("fmt", ["file", "stream"])
def test_real_world_types_both_ways(codec, fmt):
    table = real_world_table()
    expected = pa.concat_tables([table, table])
    buf = io.BytesIO()
    new = qv.ipc.new_file if fmt == "file" else qv.ipc.new_stream
    with new(buf, table.schema, compression=codec) as writer:
        writer.write(table)
        writer.write(table)
    open_ = pai.open_file if fmt == "file" else pai.open_stream
    assert open_(pa.py_buffer(buf.getvalue())).read_all().equals(expected)
    writer = pai.new_file if fmt == "file" else pai.new_stream
    theirs = pa_bytes(expected, writer, codec)
    reader = (qv.ipc.open_file if fmt == "file" else qv.ipc.open_stream)(theirs)
    assert pa.table(reader).equals(expected)


def test_dictionary_deltas_and_replacements():
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])

    def batch(indices, values):
        return pa.record_batch(
            [pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(values))],
            schema=schema,
        )

    sink = pa.BufferOutputStream()
    with pai.new_stream(
        sink, schema, options=pai.IpcWriteOptions(emit_dictionary_deltas=True)
    ) as w:
        w.write_batch(batch([0, 1], ["a", "b"]))
        w.write_batch(batch([2, 0], ["a", "b", "c"]))  # a delta: "c" appended
    assert pa.table(qv.ipc.open_stream(sink.getvalue().to_pybytes())).column("d").to_pylist() == [
        "a",
        "b",
        "c",
        "a",
    ]
    # quiver writes a replacement into a stream when the dictionary changes...
    buf = io.BytesIO()
    with qv.ipc.new_stream(buf, schema) as w:
        w.write(batch([0, 1], ["a", "b"]))
        w.write(batch([0, 1], ["z", "y"]))
    assert pai.open_stream(buf.getvalue()).read_all().column("d").to_pylist() == [
        "a",
        "b",
        "z",
        "y",
    ]
    # ...and refuses one in a file, which holds one dictionary per field.
    with pytest.raises(ValueError, match="the IPC file format holds one dictionary per field"):
        with qv.ipc.new_file(io.BytesIO(), schema) as w:
            w.write(batch([0, 1], ["a", "b"]))
            w.write(batch([0, 1], ["z", "y"]))


def test_dictionary_ids_that_do_not_exist():
    table = pa.table({"d": pa.array(["a", "b"]).dictionary_encode()})
    data = pa_bytes(table, pai.new_stream, None)
    # Drop the dictionary batch (the second message): the batch then uses an
    # id no dictionary batch defined.
    schema_end = int.from_bytes(data[4:8], "little") + 8
    dict_meta = int.from_bytes(data[schema_end + 4 : schema_end + 8], "little")
    dictionary = pai.read_message(pa.py_buffer(data[schema_end:]))
    dict_end = schema_end + 8 + dict_meta + dictionary.body.size
    stripped = data[:schema_end] + data[dict_end:]
    with pytest.raises(
        ValueError, match="uses dictionary id 0, which no dictionary batch before it defined"
    ):
        qv.ipc.open_stream(stripped).read_all()


def test_record_batch_table_chunked_array_schema():
    table = sample_table(6)
    t = qv.table(table)
    assert t.num_rows == 6 and t.num_columns == table.num_columns
    assert t.schema.names == table.schema.names
    assert t.schema.field("id").name == "id" and t.schema.field("flag").nullable is not None
    assert t.schema.field(0) == t.schema.field("id")
    batch = qv.record_batch(table.to_batches()[0])
    assert isinstance(batch.column("image"), qv.FixedShapeTensorArray)
    assert pa.record_batch(batch).equals(table.to_batches()[0])
    two = qv.table(pa.concat_tables([table, table]))
    images = two.column("image")
    assert images.num_chunks == 2  # streams come in as they are, nothing combined
    stacked = images.to_numpy(allow_nulls=True)
    assert stacked.shape == (12, 3, 2)
    one = qv.table(table).column("image").to_numpy(allow_nulls=True)
    assert not one.flags.owndata  # one chunk: a view
    with pytest.raises(TypeError, match=r"to_numpy\(\) needs a tensor column, got int64"):
        two.column("id").to_numpy()
    chunked = qv.chunked_array(pa.chunked_array([pa.array([1, 2]), pa.array([3])]))
    assert chunked.num_chunks == 2 and len(chunked) == 3
    assert pa.chunked_array(chunked).to_pylist() == [1, 2, 3]
    with pytest.raises(KeyError, match="no column named 'nope'"):
        t.column("nope")


def test_polars_and_duckdb_take_readers_without_copies(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    table = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"]})
    path = tmp_path / "people.arrow"
    qv.ipc.write_file(table, path)
    frame = pl.DataFrame(qv.ipc.open_file(path))
    assert frame["id"].to_list() == [1, 2, 3]
    assert qv.table(frame).num_rows == 3  # polars exports string views; quiver reads them
    reader = qv.ipc.open_file(path)  # noqa: F841 (duckdb finds it by name)
    result = duckdb.sql("SELECT sum(id) AS s FROM reader").fetchall()
    assert result == [(6,)]
    back = qv.table(duckdb.sql("SELECT id * 2 AS twice FROM reader").arrow())
    assert pa.table(back).column("twice").to_pylist() == [2, 4, 6]
    series = qv.chunked_array(pl.Series("x", [1.5, None]))
    assert pa.chunked_array(series).to_pylist() == [1.5, None]


def test_large_zstd_buffers_split_over_threads_read_everywhere(tmp_path):
    # A 24 MiB column: quiver compresses buffers of 2 MiB and more with
    # every thread inside ZSTD; the file must read back equal in quiver and
    # in pyarrow, and be smaller than the raw bytes.
    values = np.arange(3 << 20, dtype=np.int64) % 1000
    table = pa.table({"v": values, "w": values[::-1].copy()})
    path = str(tmp_path / "big.arrow")
    qv.ipc.write_file(table, path, compression="zstd")
    assert os.path.getsize(path) < values.nbytes
    assert pai.open_file(path).read_all().equals(table)
    back = qv.ipc.open_file(path).read_all()
    assert pa.table(back).equals(table)


# --- argument order and reader lifetimes ----------------------------------------


@pytest.mark.parametrize(
    "write, read",
    [(qv.ipc.write_file, qv.ipc.open_file), (qv.ipc.write_stream, qv.ipc.open_stream)],
)
def test_writers_take_the_data_first(tmp_path, write, read):
    table = sample_table()
    write(table, tmp_path / "x")  # a path (PathLike)
    assert pa.table(read(str(tmp_path / "x"))).equals(table)
    buf = io.BytesIO()
    write(qv.table(table), buf)  # a file object
    assert pa.table(read(buf.getvalue())).equals(table)


@pytest.mark.parametrize("write", [qv.ipc.write_file, qv.ipc.write_stream])
@pytest.mark.parametrize("sink", ["x.arrow", "path", "bytesio"])
def test_the_old_sink_first_order_says_to_swap(tmp_path, write, sink):
    sink = {
        "x.arrow": str(tmp_path / "x.arrow"),
        "path": tmp_path / "x.arrow",
        "bytesio": io.BytesIO(),
    }[sink]
    with pytest.raises(
        TypeError,
        match=rf"{write.__name__}\(data, sink\) takes the data first.*"
        r"swap the arguments",
    ):
        write(sink, sample_table())
    assert not (tmp_path / "x.arrow").exists()


@pytest.mark.parametrize("open_reader", ["file", "stream"])
def test_readers_close_and_are_context_managers(tmp_path, open_reader):
    path = tmp_path / "x.arrow"
    table = sample_table()
    if open_reader == "file":
        qv.ipc.write_file(table, path)
        reader, name = qv.ipc.open_file(path), "RecordBatchFileReader"
        uses = [
            lambda r: r.schema,
            lambda r: r.endianness,
            lambda r: r.num_record_batches,
            lambda r: len(r),
            lambda r: r[0],
            lambda r: r.get_batch(0),
            lambda r: r.record_batch_layout(0),
            lambda r: r.read_body_buffer(0, 0),
            lambda r: r.read_all(),
            lambda r: list(r),
            lambda r: pa.table(r),
            lambda r: r.__arrow_c_device_stream__(),
        ]
    else:
        qv.ipc.write_stream(table, path)
        reader, name = qv.ipc.open_stream(path), "RecordBatchStreamReader"
        uses = [
            lambda r: r.schema,
            lambda r: r.endianness,
            lambda r: r.read_next_batch(),
            lambda r: next(r),
            lambda r: r.read_next_layout(),
            lambda r: r.read_body_buffer(0),
            lambda r: r.read_all(),
            lambda r: list(r),
            lambda r: pa.table(r),
            lambda r: r.__arrow_c_device_stream__(),
        ]
    assert not reader.closed
    with reader as entered:
        assert entered is reader
        batch = next(iter(reader))
    assert reader.closed
    for use in uses:
        with pytest.raises(ValueError, match=f"the {name} is closed"):
            use(reader)
    reader.close()  # idempotent
    reader.close()
    assert pa.record_batch(batch).equals(table.to_batches()[0])  # what was read stays valid
    gc.collect()
    assert pa.record_batch(batch).equals(table.to_batches()[0])


def test_a_reader_closed_while_a_stream_it_exported_is_read(tmp_path):
    path = tmp_path / "x.arrow"
    qv.ipc.write_file(qv.concat_tables([qv.table(sample_table())] * 3), path)
    reader = qv.ipc.open_file(path)
    exported = pa.RecordBatchReader.from_stream(reader)
    reader.close()
    assert exported.read_all().num_rows == 18  # the export holds the file itself
    with pytest.raises(ValueError, match="closed"):
        reader.read_all()


def test_a_with_block_closes_on_an_exception(tmp_path):
    qv.ipc.write_file(sample_table(), tmp_path / "x.arrow")
    with pytest.raises(KeyError):
        with qv.ipc.open_file(tmp_path / "x.arrow") as reader:
            raise KeyError("boom")
    assert reader.closed
