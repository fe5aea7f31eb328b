"""qv.parquet.write_table: files that pyarrow, DuckDB and Polars read back
equal (types restored from ARROW:schema), every codec, v1 and v2 data
pages, dictionary on, off and its fallback, BYTE_STREAM_SPLIT, statistics
equal to pyarrow's, nested types with nulls at every level, atomic writes
and the errors."""

import datetime
import decimal
import io
import os

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import quiver as qv  # noqa: E402


def _codecs():
    """The codecs this build writes (zstd and lz4 need their libraries)."""
    out = []
    for codec in ["none", "snappy", "zstd", "lz4"]:
        try:
            qv.parquet.write_table(pa.table({"a": [1]}), io.BytesIO(), compression=codec)
        except NotImplementedError:
            continue
        out.append(codec)
    return out


def flat_table(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    valid = rng.random(n) > 0.2
    ints = rng.integers(-1000, 1000, n)
    floats = rng.standard_normal(n)
    strings = [f"s{v % 37}" if ok else None for v, ok in zip(ints, valid)]
    day = 86_400_000
    return pa.table(
        {
            "bool": pa.array(rng.random(n) > 0.5, mask=~valid),
            "i8": pa.array(ints.astype(np.int8), mask=~valid),
            "i16": pa.array(ints.astype(np.int16)),
            "i32": pa.array(ints.astype(np.int32), mask=~valid),
            "i64": pa.array(ints.astype(np.int64)),
            "u8": pa.array((ints % 256).astype(np.uint8)),
            "u16": pa.array((ints % 60000).astype(np.uint16), mask=~valid),
            "u32": pa.array(ints.astype(np.uint32)),
            "u64": pa.array(ints.astype(np.uint64), mask=~valid),
            "f16": pa.array(floats.astype(np.float16)),
            "f32": pa.array(floats.astype(np.float32), mask=~valid),
            "f64": pa.array(floats),
            "str": pa.array(strings, pa.string()),
            "large_str": pa.array(strings, pa.large_string()),
            "bin": pa.array([s.encode() if s else None for s in strings], pa.binary()),
            "large_bin": pa.array([s.encode() if s else None for s in strings], pa.large_binary()),
            "fsb": pa.array([bytes([i % 256] * 3) for i in range(n)], pa.binary(3)),
            "date32": pa.array(ints.astype(np.int32), pa.date32()),
            "date64": pa.array(ints.astype(np.int64) * day, pa.date64()),
            "time32ms": pa.array(np.abs(ints).astype(np.int32), pa.time32("ms")),
            "time64us": pa.array(np.abs(ints).astype(np.int64), pa.time64("us")),
            "time64ns": pa.array(np.abs(ints).astype(np.int64), pa.time64("ns")),
            "ts_ms": pa.array(ints, pa.timestamp("ms")),
            "ts_us_utc": pa.array(ints, pa.timestamp("us", "UTC"), mask=~valid),
            "ts_ns_tz": pa.array(ints, pa.timestamp("ns", "Europe/Paris")),
            "duration": pa.array(ints, pa.duration("ms")),
            "dec9": pa.array([decimal.Decimal(int(v)) / 100 for v in ints], pa.decimal128(9, 2)),
            "dec18": pa.array(
                [decimal.Decimal(int(v)) * 10**8 for v in ints], pa.decimal128(18, 0)
            ),
            "dec38": pa.array(
                [decimal.Decimal(int(v)) * 10**20 if ok else None for v, ok in zip(ints, valid)],
                pa.decimal128(38, 3),
            ),
            "dec76": pa.array(
                [decimal.Decimal(int(v)) * 10**50 for v in ints], pa.decimal256(60, 2)
            ),
            "dict": pa.array(strings).dictionary_encode(),
        }
    )


def nested_table():
    return pa.table(
        {
            "list": pa.array([[1, None, 3], None, [], [4]], pa.list_(pa.int32())),
            "list_strict": pa.array(
                [[1], [], [2, 3], [4]], pa.list_(pa.field("item", pa.int64(), nullable=False))
            ),
            "large_list": pa.array([["a"], None, ["b", None], []], pa.large_list(pa.string())),
            "fsl": pa.array([[1.0, 2.0], None, [None, 4.0], [5.0, 6.0]], pa.list_(pa.float64(), 2)),
            "list_list": pa.array(
                [[[1], None, []], None, [[2, None]], []], pa.list_(pa.list_(pa.int16()))
            ),
            "struct": pa.array(
                [{"x": 1, "y": "a"}, None, {"x": None, "y": None}, {"x": 4, "y": "d"}],
                pa.struct([("x", pa.int32()), ("y", pa.string())]),
            ),
            "list_struct": pa.array(
                [[{"a": 1, "b": [1, 2]}, None], None, [], [{"a": None, "b": None}]],
                pa.list_(pa.struct([("a", pa.int8()), ("b", pa.list_(pa.int32()))])),
            ),
            "map": pa.array(
                [[("k", 1), ("l", None)], None, [], [("m", 3)]], pa.map_(pa.string(), pa.int32())
            ),
            "struct_list": pa.array(
                [{"v": [1.5]}, {"v": None}, None, {"v": []}],
                pa.struct([("v", pa.list_(pa.float32()))]),
            ),
        }
    )


def tensor_table(rows=16):
    tensor_type = pa.fixed_shape_tensor(pa.float32(), [2, 3])
    storage = pa.array(
        np.arange(rows * 6, dtype=np.float32).reshape(rows, 6).tolist(), pa.list_(pa.float32(), 6)
    )
    return pa.table({"tensor": pa.ExtensionArray.from_storage(tensor_type, storage)})


def pyarrow_round_trip(table):
    """What pyarrow reads back from its own file of `table` (it restores
    every type but date64, which comes back as date32)."""
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return pq.read_table(io.BytesIO(sink.getvalue()))


def assert_reads_back(table, path, **kwargs):
    qv.parquet.write_table(table, path, **kwargs)
    got = pq.read_table(path)
    expected = pyarrow_round_trip(table)
    assert got.schema.equals(expected.schema), (got.schema, expected.schema)
    assert decoded(got).equals(decoded(expected))
    return got


def decoded(table):
    """`table` with dictionary columns as their values (the dictionaries
    pyarrow reads depend on how the file's pages were encoded)."""
    columns = []
    for column in table.columns:
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns.append(column)
    return pa.table(columns, names=table.column_names)


@pytest.mark.parametrize("compression", _codecs())
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("use_dictionary", [True, False])
def test_flat_types_read_back_by_pyarrow(tmp_path, compression, version, use_dictionary):
    table = flat_table()
    assert_reads_back(
        table,
        tmp_path / "flat.parquet",
        compression=compression,
        data_page_version=version,
        use_dictionary=use_dictionary,
    )


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_nested_types_with_nulls_at_every_level(tmp_path, version):
    assert_reads_back(nested_table(), tmp_path / "nested.parquet", data_page_version=version)


def test_schema_equals_pyarrows(tmp_path):
    for table in (flat_table(50), nested_table()):
        qv.parquet.write_table(table, tmp_path / "q.parquet")
        pq.write_table(table, tmp_path / "p.parquet", store_decimal_as_integer=True)
        ours = str(pq.ParquetFile(tmp_path / "q.parquet").schema).splitlines()[1:]
        theirs = str(pq.ParquetFile(tmp_path / "p.parquet").schema).splitlines()[1:]
        assert ours == theirs
        ours = pq.ParquetFile(tmp_path / "q.parquet").metadata.schema
        theirs = pq.ParquetFile(tmp_path / "p.parquet").metadata.schema
        for i in range(len(ours)):
            assert ours.column(i).converted_type == theirs.column(i).converted_type, i


def test_fixed_shape_tensor_restored(tmp_path):
    table = tensor_table()
    got = assert_reads_back(table, tmp_path / "t.parquet")
    assert isinstance(got.column(0).type, pa.FixedShapeTensorType)
    assert got.column(0).type.shape == [2, 3]


def test_small_pages_and_row_groups(tmp_path):
    table = pa.concat_tables([nested_table()] * 50 + [])
    flat = flat_table(5000)
    for version in ["1.0", "2.0"]:
        assert_reads_back(
            table,
            tmp_path / "n.parquet",
            data_page_size=64,
            row_group_size=7,
            data_page_version=version,
        )
        assert_reads_back(
            flat,
            tmp_path / "f.parquet",
            data_page_size=256,
            row_group_size=1000,
            data_page_version=version,
        )
        md = pq.ParquetFile(tmp_path / "f.parquet").metadata
        assert md.num_row_groups == 5
    tensors = tensor_table(100)
    assert_reads_back(tensors, tmp_path / "t.parquet", data_page_size=100, row_group_size=33)


def test_chunked_and_sliced_columns(tmp_path):
    table = pa.concat_tables([flat_table(100, seed=1), flat_table(77, seed=2)]).slice(13, 150)
    assert_reads_back(table, tmp_path / "c.parquet", row_group_size=40)
    nested = pa.concat_tables([nested_table()] * 3).slice(1, 9)
    assert_reads_back(nested, tmp_path / "n.parquet", row_group_size=4)


def _encodings(path, column):
    return pq.ParquetFile(path).metadata.row_group(0).column(column).encodings


def test_dictionary_on_off_and_fallback(tmp_path):
    n = 20_000
    table = pa.table(
        {
            "few": pa.array([f"v{i % 10}" for i in range(n)]),
            "many": pa.array([f"value-{i}" for i in range(n)]),
        }
    )
    path = tmp_path / "d.parquet"
    assert_reads_back(table, path)
    assert "RLE_DICTIONARY" in _encodings(path, 0)
    assert "RLE_DICTIONARY" in _encodings(path, 1)
    assert_reads_back(table, path, dictionary_pagesize_limit=1000)
    assert "RLE_DICTIONARY" in _encodings(path, 0)
    assert "RLE_DICTIONARY" not in _encodings(path, 1)  # fell back to PLAIN
    assert_reads_back(table, path, use_dictionary=False)
    assert "RLE_DICTIONARY" not in _encodings(path, 0)


def test_byte_stream_split(tmp_path):
    table = flat_table(500)
    path = tmp_path / "b.parquet"
    assert_reads_back(table, path, use_byte_stream_split=True)
    names = table.column_names
    assert "BYTE_STREAM_SPLIT" in _encodings(path, names.index("f32"))
    assert "BYTE_STREAM_SPLIT" in _encodings(path, names.index("f64"))


def _stats(path):
    md = pq.ParquetFile(path).metadata
    out = []
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            s = md.row_group(g).column(c).statistics
            if s is None:
                out.append(None)
                continue
            out.append((s.has_min_max and (s.min, s.max), s.null_count))
    return out


@pytest.mark.parametrize("table_maker", [flat_table, nested_table])
def test_statistics_equal_pyarrows(tmp_path, table_maker):
    table = table_maker()
    qv.parquet.write_table(table, tmp_path / "q.parquet", row_group_size=300)
    pq.write_table(table, tmp_path / "p.parquet", row_group_size=300, store_decimal_as_integer=True)
    ours, theirs = _stats(tmp_path / "q.parquet"), _stats(tmp_path / "p.parquet")
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, (k, a, b)


def test_no_statistics(tmp_path):
    path = tmp_path / "s.parquet"
    qv.parquet.write_table(flat_table(10), path, write_statistics=False)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).statistics is None


def test_float_statistics_edge_cases(tmp_path):
    table = pa.table(
        {
            "zeros": pa.array([0.0, -0.0, 1.0], pa.float64()),
            "nan": pa.array([float("nan"), 2.0, -1.0], pa.float32()),
            "all_nan": pa.array([float("nan")] * 3, pa.float64()),
            "all_null": pa.array([None] * 3, pa.int32()),
        }
    )
    qv.parquet.write_table(table, tmp_path / "q.parquet")
    pq.write_table(table, tmp_path / "p.parquet")
    ours, theirs = _stats(tmp_path / "q.parquet"), _stats(tmp_path / "p.parquet")
    assert ours[:2] == theirs[:2]
    assert ours[2][0] is False  # no min and max from NaN alone
    assert ours[3] == theirs[3]


def test_file_objects_and_quiver_tables(tmp_path):
    table = flat_table(100)
    sink = io.BytesIO()
    qv.parquet.write_table(table, sink)
    expected = decoded(pyarrow_round_trip(table))
    assert decoded(pq.read_table(io.BytesIO(sink.getvalue()))).equals(expected)
    qt = qv.table(table)
    qv.parquet.write_table(qt, str(tmp_path / "q.parquet"))
    assert decoded(pq.read_table(tmp_path / "q.parquet")).equals(expected)
    batch = table.to_batches()[0]
    qv.parquet.write_table(batch, tmp_path / "b.parquet")
    assert decoded(pq.read_table(tmp_path / "b.parquet")).equals(expected)


def test_empty_table(tmp_path):
    table = flat_table(0)
    got = assert_reads_back(table, tmp_path / "e.parquet")
    assert got.num_rows == 0


def test_duckdb_reads_them(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    table = pa.table(
        {
            "i": pa.array([1, None, 3], pa.int64()),
            "s": pa.array(["a", None, "c"]),
            "l": pa.array([[1, None], None, []], pa.list_(pa.int32())),
            "st": pa.array([{"x": 1.5}, None, {"x": None}]),
            "d": pa.array(
                [decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(10, 2)
            ),
            "ts": pa.array([1, 2, None], pa.timestamp("us")),
            "date": pa.array([datetime.date(2020, 1, 1), None, datetime.date(1969, 12, 31)]),
        }
    )
    for version in ["1.0", "2.0"]:
        for compression in _codecs():
            path = tmp_path / f"duck-{version}-{compression}.parquet"
            qv.parquet.write_table(table, path, compression=compression, data_page_version=version)
            got = duckdb.sql(f"select * from '{path}'").arrow()
            if hasattr(got, "read_all"):
                got = got.read_all()
            assert got.to_pylist() == table.to_pylist()


def test_polars_reads_them(tmp_path):
    pl = pytest.importorskip("polars")
    table = pa.table(
        {
            "i": pa.array([1, None, 3], pa.int32()),
            "s": pa.array(["a", None, "c"], pa.large_string()),
            "l": pa.array([[1, None], None, []], pa.large_list(pa.int64())),
            "f": pa.array([1.0, 2.0, None], pa.float64()),
            "b": pa.array([True, None, False]),
        }
    )
    for version in ["1.0", "2.0"]:
        path = tmp_path / f"polars-{version}.parquet"
        qv.parquet.write_table(
            table,
            path,
            data_page_version=version,
            compression="zstd" if "zstd" in _codecs() else "snappy",
        )
        got = pl.read_parquet(path)
        assert got.to_arrow().to_pylist() == table.to_pylist()


def test_failed_write_leaves_no_file(tmp_path):
    union = pa.UnionArray.from_sparse(
        pa.array([0, 1], pa.int8()), [pa.array([1, 2]), pa.array(["a", "b"])]
    )
    bad = pa.table({"ok": [1, 2], "u": union})
    path = tmp_path / "out.parquet"
    with pytest.raises(TypeError, match="'u'"):
        qv.parquet.write_table(bad, path)
    assert os.listdir(tmp_path) == []
    # A file already there stays whole.
    qv.parquet.write_table(flat_table(10), path)
    before = path.read_bytes()
    with pytest.raises(TypeError):
        qv.parquet.write_table(bad, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["out.parquet"]


def test_errors(tmp_path):
    table = flat_table(3)
    with pytest.raises(ValueError, match="brotli"):
        qv.parquet.write_table(table, tmp_path / "x.parquet", compression="brotli")
    with pytest.raises(ValueError, match="data_page_version"):
        qv.parquet.write_table(table, tmp_path / "x.parquet", data_page_version="3.0")
    with pytest.raises(ValueError, match="row_group_rows"):
        qv.parquet.write_table(table, tmp_path / "x.parquet", row_group_size=0)
    with pytest.raises(TypeError, match="bools"):
        qv.parquet.write_table(table, tmp_path / "x.parquet", write_statistics=["i32"])
    with pytest.raises(TypeError, match="writable"):
        qv.parquet.write_table(table, 42)
    interval = pa.table(
        {"iv": pa.array([pa.MonthDayNano([1, 2, 3])], pa.month_day_nano_interval())}
    )
    with pytest.raises(TypeError, match="'iv'"):
        qv.parquet.write_table(interval, tmp_path / "x.parquet")
    assert os.listdir(tmp_path) == []


def test_views_nulls_and_second_units(tmp_path):
    table = pa.table(
        {
            "sv": pa.array(["a", None, "a string longer than twelve"], pa.string_view()),
            "bv": pa.array([b"a", None, b"bytes longer than twelve"], pa.binary_view()),
            "null": pa.array([None, None, None], pa.null()),
            "ts_s": pa.array([1, 2, None], pa.timestamp("s")),
            "time32_s": pa.array([1, None, 3], pa.time32("s")),
            "duration_s": pa.array([1, 2, 3], pa.duration("s")),
        }
    )
    assert_reads_back(table, tmp_path / "v.parquet")


def test_variable_shape_tensor_restored(tmp_path):
    rows = [np.arange(6, dtype=np.float32).reshape(2, 3), None, np.zeros((0, 4), np.float32)]
    rows = [r for r in rows if r is not None]
    column = pa.array(qv.VariableShapeTensorArray.from_numpy(rows))
    got = assert_reads_back(pa.table({"ragged": column}), tmp_path / "r.parquet")
    assert got.column(0).type == column.type


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("maker", [flat_table, nested_table, tensor_table])
def test_duckdb_and_polars_read_them_as_pyarrows(tmp_path, version, maker):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    table = maker()
    if maker is flat_table:
        table = table.drop_columns(["dec76"])  # Polars: decimals of precision <= 38 only
    ours, theirs = tmp_path / "q.parquet", tmp_path / "p.parquet"
    qv.parquet.write_table(table, ours, data_page_version=version, row_group_size=100)
    pq.write_table(table, theirs, data_page_version=version, row_group_size=100)
    query = "select * from '{}'"
    assert duckdb.sql(query.format(ours)).fetchall() == duckdb.sql(query.format(theirs)).fetchall()
    assert pl.read_parquet(ours).equals(pl.read_parquet(theirs))


def test_required_fields_and_metadata(tmp_path):
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("tags", pa.list_(pa.field("t", pa.string(), nullable=False)), nullable=False),
        ],
        metadata={"origin": "test"},
    )
    table = pa.table({"id": [1, 2], "tags": [["a"], []]}, schema=schema)
    got = assert_reads_back(table, tmp_path / "r.parquet")
    assert got.schema.metadata[b"origin"] == b"test"
    assert not got.schema.field("id").nullable
    parquet_schema = pq.ParquetFile(tmp_path / "r.parquet").schema
    assert parquet_schema.column(0).max_definition_level == 0


def test_random_floats_fall_back_and_long_strings_drop_statistics(tmp_path):
    rng = np.random.default_rng(5)
    table = pa.table(
        {
            "tensor": pa.FixedSizeListArray.from_arrays(
                pa.array(rng.standard_normal(300_000).astype(np.float32)), 30
            ),
            "long": pa.array(["x" * 5000, "y"]).take([0, 1] * 5000),
        }
    )
    path = tmp_path / "f.parquet"
    assert_reads_back(table, path, data_page_size=10_000)
    assert "RLE_DICTIONARY" not in _encodings(path, 0)
    ours = _stats(path)
    pq.write_table(table, tmp_path / "p.parquet")
    assert ours == _stats(tmp_path / "p.parquet")


@pytest.mark.parametrize("size", [1, 3, 8, 12])
@pytest.mark.parametrize("page", [50, 1000, 1 << 20])
def test_fixed_size_lists_without_nulls(tmp_path, size, page):
    rows = 101
    values = pa.array(np.arange(rows * size, dtype=np.float64))
    table = pa.table({"fsl": pa.FixedSizeListArray.from_arrays(values, size)}).slice(3, 90)
    for version in ["1.0", "2.0"]:
        assert_reads_back(
            table,
            tmp_path / "f.parquet",
            data_page_size=page,
            data_page_version=version,
            use_dictionary=False,
        )


def test_file_objects_get_the_pages_as_they_are_made(tmp_path):
    class Counting(io.BytesIO):
        writes = 0

        def write(self, data):
            Counting.writes += 1
            return super().write(data)

    table = flat_table(2000)
    sink = Counting()
    qv.parquet.write_table(table, sink, row_group_size=500)
    assert Counting.writes > 10
    assert decoded(pq.read_table(io.BytesIO(sink.getvalue()))).equals(
        decoded(pyarrow_round_trip(table))
    )
    with open(tmp_path / "raw.parquet", "wb", buffering=0) as raw:
        qv.parquet.write_table(table, raw)
    assert pq.read_table(tmp_path / "raw.parquet").num_rows == 2000


def test_compression_levels(tmp_path):
    if "zstd" not in _codecs():
        pytest.skip("this build lacks zstd")
    table = flat_table(5000)
    fast, small = tmp_path / "fast.parquet", tmp_path / "small.parquet"
    qv.parquet.write_table(table, fast, compression="zstd", compression_level=1)
    assert_reads_back(table, small, compression="ZSTD", compression_level=19)
    assert os.path.getsize(small) <= os.path.getsize(fast)
    assert pq.ParquetFile(small).metadata.row_group(0).column(0).compression == "ZSTD"


def test_decimals_of_every_width(tmp_path):
    values = [decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")]
    table = pa.table(
        {
            "d32": pa.array(values, pa.decimal32(5, 2)),
            "d64": pa.array(values, pa.decimal64(15, 2)),
            "d128_int64": pa.array(values, pa.decimal128(12, 2)),
            "d256_int32": pa.array(values, pa.decimal256(7, 2)),
            "d256_flba": pa.array(values, pa.decimal256(40, 2)),
        }
    )
    assert_reads_back(table, tmp_path / "d.parquet")
    qv.parquet.write_table(table, tmp_path / "q.parquet")
    pq.write_table(table, tmp_path / "p.parquet", store_decimal_as_integer=True)
    assert _stats(tmp_path / "q.parquet") == _stats(tmp_path / "p.parquet")


def random_type(rng, depth, in_struct=False):
    """A random type of up to `depth` nested levels. No fixed-size list
    below a struct: pyarrow cannot read those back from its own files when
    the struct is null ("Expected all lists to be of size=...")."""
    leaves = [pa.int32(), pa.float64(), pa.string(), pa.bool_(), pa.int8(), pa.binary(2)]
    if depth == 0 or rng.random() < 0.3:
        return leaves[rng.integers(len(leaves))]
    kind = rng.integers(5)
    if kind == 2 and in_struct:
        kind = 0
    child = random_type(rng, depth - 1, in_struct or kind == 3)
    nullable = bool(rng.random() < 0.7)
    if kind == 0:
        return pa.list_(pa.field("item", child, nullable=nullable))
    if kind == 1:
        return pa.large_list(pa.field("item", child, nullable=nullable))
    if kind == 2:
        return pa.list_(pa.field("item", child, nullable=nullable), int(rng.integers(1, 4)))
    if kind == 3:
        other = random_type(rng, depth - 1, True)
        return pa.struct([pa.field("a", child, nullable=nullable), pa.field("b", other)])
    return pa.map_(pa.string(), child)


def random_value(rng, type_, null_rate):
    if rng.random() < null_rate:
        return None
    if pa.types.is_map(type_):
        return [
            (f"k{i}", random_value(rng, type_.item_type, null_rate))
            for i in range(rng.integers(0, 3))
        ]
    if pa.types.is_fixed_size_list(type_):
        field = type_.value_field
        return [
            random_value(rng, field.type, null_rate if field.nullable else 0)
            for _ in range(type_.list_size)
        ]
    if pa.types.is_list(type_) or pa.types.is_large_list(type_):
        field = type_.value_field
        return [
            random_value(rng, field.type, null_rate if field.nullable else 0)
            for _ in range(rng.integers(0, 4))
        ]
    if pa.types.is_struct(type_):
        return {f.name: random_value(rng, f.type, null_rate if f.nullable else 0) for f in type_}
    if pa.types.is_int32(type_):
        return int(rng.integers(-100, 100))
    if pa.types.is_int8(type_):
        return int(rng.integers(-100, 100))
    if pa.types.is_floating(type_):
        return float(rng.standard_normal())
    if pa.types.is_string(type_):
        return "s" * int(rng.integers(0, 5))
    if pa.types.is_boolean(type_):
        return bool(rng.random() < 0.5)
    return bytes(rng.integers(0, 256, 2).astype(np.uint8))


@pytest.mark.parametrize("seed", range(30))
def test_random_nested_columns(tmp_path, seed):
    rng = np.random.default_rng(seed)
    columns = {}
    for c in range(3):
        type_ = random_type(rng, 3)
        null_rate = [0.0, 0.1, 0.5][c]
        columns[f"c{c}"] = pa.array(
            [random_value(rng, type_, null_rate) for _ in range(200)], type_
        )
    table = pa.table(columns)
    table = pa.concat_tables([table.slice(0, 70), table.slice(70)]).slice(5, 180)
    for version in ["1.0", "2.0"]:
        assert_reads_back(
            table,
            tmp_path / "r.parquet",
            data_page_version=version,
            data_page_size=int(rng.integers(16, 4096)),
            row_group_size=int(rng.integers(20, 200)),
            use_dictionary=bool(rng.random() < 0.5),
        )


@pytest.mark.parametrize("use_dictionary", [True, False])
def test_long_lists_levels_in_batches(tmp_path, use_dictionary):
    # More than 4Mi levels in one column chunk: its levels are made in
    # batches of rows (and dictionary indices continue across them).
    rng = np.random.default_rng(3)
    rows = 8000
    lengths = rng.integers(0, 1500, rows)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = pa.array(
        (np.arange(offsets[-1]) % 50).astype(np.int16), mask=rng.random(offsets[-1]) < 0.01
    )
    lists = pa.ListArray.from_arrays(pa.array(offsets), values, mask=pa.array(lengths % 97 == 0))
    table = pa.table(
        {"l": lists, "s": pa.array([{"x": lists[i].as_py()} for i in range(20)] * 400)}
    )
    assert offsets[-1] > 5 << 20
    for version in ["1.0", "2.0"]:
        assert_reads_back(
            table, tmp_path / "l.parquet", use_dictionary=use_dictionary, data_page_version=version
        )


def test_bfloat16_tensors(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = (np.arange(24, dtype=np.float32) / 2).astype(ml_dtypes.bfloat16).reshape(2, 2, 6)
    table = pa.table({"bf": pa.array(qv.FixedShapeTensorArray.from_numpy(x))})
    # pyarrow sees the bfloat16 values as their uint16 storage, from either file.
    assert_reads_back(table, tmp_path / "bf.parquet")


def _quiver_reads_back(table, path, **kwargs):
    """quiver's own reader gives what pyarrow reads from quiver's file,
    except that quiver restores date64 from ARROW:schema where pyarrow
    reads date32: those columns are compared as dates."""
    qv.parquet.write_table(table, path, **kwargs)
    got = pa.table(qv.parquet.read_table(path))
    expected = decoded(pq.read_table(path))
    got = decoded(got)
    assert got.column_names == expected.column_names
    for name in expected.column_names:
        a, b = got.column(name), expected.column(name)
        if pa.types.is_date64(a.type) and pa.types.is_date32(b.type):
            b = b.cast(a.type)
        assert a.type == b.type, (name, a.type, b.type)
        assert a.equals(b), name


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("use_dictionary", [True, False])
@pytest.mark.parametrize("maker", [flat_table, nested_table, tensor_table])
def test_quiver_reads_them_back(tmp_path, version, use_dictionary, maker):
    _quiver_reads_back(
        maker(),
        tmp_path / "q.parquet",
        data_page_version=version,
        use_dictionary=use_dictionary,
        row_group_size=200,
        compression=_codecs()[-1],
    )


@pytest.mark.parametrize("seed", range(10))
def test_quiver_reads_random_nested_columns(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    columns = {}
    for c in range(3):
        type_ = random_type(rng, 3)
        columns[f"c{c}"] = pa.array(
            [random_value(rng, type_, [0.0, 0.1, 0.5][c]) for _ in range(150)], type_
        )
    _quiver_reads_back(
        pa.table(columns),
        tmp_path / "r.parquet",
        data_page_size=int(rng.integers(16, 4096)),
        row_group_size=int(rng.integers(20, 200)),
        data_page_version=["1.0", "2.0"][seed % 2],
    )


def test_quiver_reads_encodings_and_long_lists(tmp_path):
    path = tmp_path / "q.parquet"
    _quiver_reads_back(flat_table(300), path, use_byte_stream_split=True)
    _quiver_reads_back(flat_table(3000), path, data_page_size=100, row_group_size=1000)
    values = pa.array(np.arange(6_000_000) % 100, pa.int16())
    offsets = pa.array(np.arange(0, 6_000_001, 1000, dtype=np.int32))
    lists = pa.ListArray.from_arrays(offsets, values, mask=pa.array(np.arange(6000) % 13 == 0))
    _quiver_reads_back(pa.table({"l": lists}), path)  # levels in batches


def test_a_flat_nullable_column_past_four_million_rows_in_one_row_group(tmp_path):
    # Longer than the writer's batch of levels (2^22): every value where it was.
    n = (1 << 22) + 100_000
    rng = np.random.default_rng(0)
    table = pa.table(
        {
            "i8": pa.array(
                rng.integers(-128, 127, n).astype(np.int8), mask=np.arange(n) % 1000 == 0
            ),
            "i64": pa.array(np.arange(n, dtype=np.int64), mask=np.arange(n) < n // 2),
        }
    )
    path = tmp_path / "big.parquet"
    qv.parquet.write_table(table, path, row_group_size=n, compression="none")
    assert pq.read_table(path).equals(table)


def test_seconds_that_overflow_milliseconds_are_refused(tmp_path):
    table = pa.table({"t": pa.array([10**17, 1], pa.timestamp("s"))})
    with pytest.raises(ValueError, match="overflows the milliseconds"):
        qv.parquet.write_table(table, tmp_path / "t.parquet")
    assert not (tmp_path / "t.parquet").exists()
    # A null slot holding such a value is fine.
    nulls = pa.table({"t": pa.array([10**17, 1], pa.timestamp("s"), mask=np.array([True, False]))})
    qv.parquet.write_table(nulls, tmp_path / "n.parquet")
    assert pq.read_table(tmp_path / "n.parquet").column("t").to_pylist()[0] is None


def test_fixed_size_lists_of_size_zero_read_back(tmp_path):
    table = pa.table({"f": pa.array([[], None, []], pa.list_(pa.int64(), 0))})
    path = tmp_path / "z.parquet"
    qv.parquet.write_table(table, path)
    assert pa.table(qv.parquet.read_table(path)).equals(table)


def test_nesting_past_the_readers_limit_is_refused_before_writing(tmp_path):
    def nested(depth):
        t = pa.int32()
        for _ in range(depth):
            t = pa.list_(t)
        value = 7
        for _ in range(depth):
            value = [value]
        return pa.table({"deep": pa.array([value, None], t)})

    # 31 lists: 63 schema elements under the root, read back by both.
    ok = nested(31)
    qv.parquet.write_table(ok, tmp_path / "ok.parquet")
    assert pa.table(qv.parquet.read_table(tmp_path / "ok.parquet")).equals(ok)
    assert pq.read_table(tmp_path / "ok.parquet").equals(ok)
    # 32 lists: 65 elements deep, which quiver's reader would refuse.
    path = tmp_path / "deep.parquet"
    with pytest.raises(ValueError, match="column 'deep': its Parquet schema would nest 65"):
        qv.parquet.write_table(nested(32), path)
    assert not path.exists()
