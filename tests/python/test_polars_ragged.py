"""Ragged (arrow.variable_shape_tensor) columns through Polars and back.

Polars keeps the extension type but exports every list as a large_list, and
a Polars-built column may have int64 shapes (an Array(Int64)); quiver reads
these tolerated storage forms on import and in IPC files and writes the
canonical one (docs/variable_shape_tensor.md, "Polars")."""

import ctypes

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
from conftest import CapsuleProducer, capsule_pointer

pl = pytest.importorskip("polars")

ROWS = [
    np.arange(6, dtype=np.float32).reshape(2, 3),
    None,
    np.zeros((0, 4), np.float32),
    np.full((1, 1), 7, np.float32),
    np.arange(12, dtype=np.float32).reshape(3, 4),
]


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


GET_SCHEMA = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema)
)
RELEASE_SCHEMA = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrowArrayStream._fields_ = [
    ("get_schema", GET_SCHEMA),
    ("get_next", ctypes.c_void_p),
    ("get_last_error", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


def storage_formats(series):
    """The C Data format strings of a Polars column's data and shape children:
    what Polars really exports, read from its stream's schema."""
    capsule = series.to_frame().__arrow_c_stream__()
    stream = ArrowArrayStream.from_address(capsule_pointer(capsule, b"arrow_array_stream"))
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    column = schema.children[0].contents
    formats = [column.children[i].contents.format.decode() for i in range(2)]
    RELEASE_SCHEMA(schema.release)(ctypes.byref(schema))
    return formats


def ragged_column():
    return qv.VariableShapeTensorArray.from_numpy(ROWS, dim_names=["H", "W"])


def quiver_table():
    col = ragged_column()
    return qv.table(pa.table({"x": pa.array(col), "i": pa.array(range(len(ROWS)))}))


def assert_rows(column, expected=ROWS):
    if isinstance(column, qv.ChunkedArray):
        chunks = column.chunks
        column = chunks[0] if len(chunks) == 1 else qv.concat(chunks)
    assert isinstance(column, qv.VariableShapeTensorArray)
    assert column.type.dim_names == ["H", "W"]
    rows = column.to_numpy()
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected):
        if want is None:
            assert got is None
        else:
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)


def assert_canonical(schema, value_type=pa.float32(), ndim=2):
    """The column's storage is the canonical one (pyarrow refuses Polars')."""
    storage = pa.schema(schema).field("x").type.storage_type
    assert storage == pa.struct(
        [("data", pa.list_(value_type)), ("shape", pa.list_(pa.int32(), ndim))]
    )


def frame():
    df = pl.DataFrame(quiver_table())
    # What this test is about: Polars exports large_list data.
    assert storage_formats(df["x"]) == ["+L", "+w:2"]
    return df


def test_polars_export_comes_back_through_table():
    df = frame()
    back = qv.table(df)
    assert back.num_rows == len(ROWS)
    assert back.schema.names == ["x", "i"]
    assert_rows(back.column("x"))
    assert_canonical(back.schema)
    assert_canonical(pa.table(back).schema)
    assert pa.table(back).column("i").to_pylist() == list(range(len(ROWS)))
    batch = qv.record_batch(df)  # one record batch from Polars' stream
    assert_rows(batch.column("x"))
    assert_canonical(batch.schema)


def test_polars_slices_and_chunked_arrays():
    df = frame()
    assert_rows(qv.table(df.slice(1, 3)).column("x"), ROWS[1:4])
    assert_rows(qv.chunked_array(df["x"]))
    two_chunks = pl.concat([df, df.slice(2, 3)], rechunk=False)
    assert_rows(qv.table(two_chunks).column("x"), ROWS + ROWS[2:5])


def test_polars_ipc_files_and_streams(tmp_path):
    df = frame()
    for compression in ["uncompressed", "zstd", "lz4"]:
        path = tmp_path / f"polars_{compression}.arrow"
        df.write_ipc(path, compression=compression)
        reader = qv.ipc.open_file(path)
        assert_canonical(reader.schema)
        table = reader.read_all()
        assert_canonical(table.schema)
        assert_rows(table.column("x"))
    path = tmp_path / "polars.arrows"
    df.write_ipc_stream(path)
    assert_rows(qv.ipc.open_stream(path).read_all().column("x"))


def test_quiver_writes_polars_tables_in_the_canonical_form(tmp_path):
    df = frame()
    for source in (df, qv.table(df)):
        path = tmp_path / "from_polars.arrow"
        qv.ipc.write_file(source, path)
        # pyarrow refuses large_list storage for this type: it reads this file.
        table = pa.ipc.open_file(path).read_all()
        assert table.schema.field("x").type.storage_type.field(0).type == pa.list_(pa.float32())
        assert table.column("i").to_pylist() == list(range(len(ROWS)))
        assert_rows(qv.array(table.column("x").combine_chunks()))
        assert_rows(qv.ipc.open_file(path).read_all().column("x"))
    # And Polars reads quiver's file back, every row intact.
    again = pl.read_ipc(path)
    assert again["x"].to_list() == df["x"].to_list()


def test_polars_built_columns_with_int64_shapes():
    parts = pl.DataFrame(
        {"data": [[1.0, 2.0], [3.0], None, []], "shape": [[2], [1], None, [0]]},
        schema={"data": pl.List(pl.Float64), "shape": pl.Array(pl.Int64, 1)},
    )
    parts = parts.with_columns(
        pl.when(pl.col("data").is_null())
        .then(None)
        .otherwise(pl.struct("data", "shape"))
        .alias("x")
    ).select("x")
    df = parts.select(
        pl.col("x").ext.to(pl.Extension("arrow.variable_shape_tensor", parts.schema["x"], "{}"))
    )
    assert storage_formats(df["x"]) == ["+L", "+w:1"]
    table = qv.table(df)
    assert_canonical(table.schema, pa.float64(), 1)
    (col,) = table.column("x").chunks
    assert col.shapes().dtype == np.int32
    rows = col.to_numpy()
    assert [None if r is None else r.tolist() for r in rows] == [[1.0, 2.0], [3.0], None, []]


def test_polars_shapes_that_do_not_fit_int32_name_column_and_row():
    parts = pl.DataFrame(
        {"data": [[1.0], [2.0]], "shape": [[1], [1 << 40]]},
        schema={"data": pl.List(pl.Float64), "shape": pl.Array(pl.Int64, 1)},
    )
    parts = parts.select(pl.struct("data", "shape").alias("x"))
    df = parts.select(
        pl.col("x").ext.to(pl.Extension("arrow.variable_shape_tensor", parts.schema["x"], "{}"))
    )
    with pytest.raises(
        ValueError,
        match=r"field 0 \(x\): row 1: shape entry 0 \(1099511627776\) "
        r"does not fit int32",
    ):
        qv.table(df)


def test_array_takes_large_list_storage_from_any_producer():
    """qv.array of the Polars form built by pyarrow (which cannot wrap it in
    its extension type, but exports the storage under the field metadata)."""
    rows = [([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [2, 3]), (None, None), ([], [0, 4]), ([7.0], [1, 1])]
    data = pa.array([r[0] for r in rows], pa.large_list(pa.float32()))
    shape = pa.array([r[1] for r in rows], pa.list_(pa.int64(), 2))
    storage = pa.StructArray.from_arrays(
        [data, shape], names=["data", "shape"], mask=pa.array([False, True, False, False])
    )
    field = pa.field(
        "x",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.variable_shape_tensor",
            "ARROW:extension:metadata": '{"dim_names":["H","W"]}',
        },
    )
    for offset in (0, 1):
        sliced = storage.slice(offset)
        col = qv.array(CapsuleProducer(field.__arrow_c_schema__(), sliced.__arrow_c_array__()[1]))
        assert_rows(col, [ROWS[0], None, ROWS[2], ROWS[3]][offset:])
        # Zero-copy values: the column's rows view pyarrow's buffer.
        values = data.values.buffers()[1]
        row = col[3 - offset]  # [[7.0]]
        assert values.address <= row.__array_interface__["data"][0] < values.address + values.size
        assert pa.array(col).type.storage_type.field(0).type == pa.list_(pa.float32())
