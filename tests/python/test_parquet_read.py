"""quiver.parquet.read_table against pyarrow's reading of the same files:
every type pyarrow writes, under every codec, page version, dictionary
setting and value encoding it offers, nested lists, structs, maps and nulls
at every level, tensor columns with their extension types, files DuckDB
and Polars wrote, column projection and row-group selection, and the
errors of pages whose bytes lie."""

import io

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def flat_table(n=300):
    rng = np.random.default_rng(7)
    nulls = rng.random(n) < 0.2
    ints = rng.integers(-1000, 1000, n)
    return pa.table(
        {
            "b": pa.array(rng.random(n) < 0.5, mask=nulls),
            "i8": pa.array(ints % 100, pa.int8(), mask=nulls),
            "u8": pa.array(np.abs(ints) % 256, pa.uint8()),
            "i16": pa.array(ints, pa.int16(), mask=nulls),
            "u16": pa.array(np.abs(ints), pa.uint16()),
            "i32": pa.array(ints, pa.int32(), mask=nulls),
            "u32": pa.array(np.abs(ints) * 100000, pa.uint32()),
            "i64": pa.array(ints * 10**12, pa.int64(), mask=nulls),
            "u64": pa.array(np.abs(ints).astype(np.uint64) * 2**50, pa.uint64()),
            "f32": pa.array(rng.random(n).astype(np.float32), mask=nulls),
            "f64": pa.array(rng.random(n)),
            "s": pa.array([None if m else f"v{v % 17}" for v, m in zip(ints, nulls)]),
            "bin": pa.array([bytes([v % 256]) * (v % 5) for v in np.abs(ints)], pa.binary()),
            "fsb": pa.array([bytes([v % 256]) * 3 for v in np.abs(ints)], pa.binary(3)),
            "date": pa.array(np.abs(ints).astype(np.int32), pa.date32()),
            "ts_ms": pa.array(ints * 1000, pa.timestamp("ms")),
            "ts_us": pa.array(ints * 10**6, pa.timestamp("us", "UTC"), mask=nulls),
            "ts_ns": pa.array(ints * 10**9, pa.timestamp("ns")),
            "t32": pa.array(np.abs(ints).astype(np.int32), pa.time32("ms")),
            "t64": pa.array(np.abs(ints) * 1000, pa.time64("us")),
            "dec": pa.array(
                [None if m else int(v) for v, m in zip(ints, nulls)], pa.decimal128(12, 2)
            ),
            "dec_big": pa.array([int(v) for v in ints], pa.decimal128(30, 0)),
            "f16": pa.array(rng.random(n).astype(np.float16)),
            "dur": pa.array(ints, pa.duration("us")),
        }
    )


def nested_table():
    images = qv.FixedShapeTensorArray.from_numpy(np.arange(60, dtype=np.float32).reshape(5, 3, 4))
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.full((i + 1, 2), i, np.int16) for i in range(5)]
    )
    return pa.table(
        {
            "l": [[1, 2], [], None, [None, 4], [5]],
            "ll": [[[1], [2, 3]], [[]], None, [None, [4]], [[5, 6, 7]]],
            "ls": [["a", None], None, [], ["bc"], ["d", "e", "f"]],
            "fsl": pa.array(
                [[1.0, 2.0], None, [3.0, None], [5.0, 6.0], [7.0, 8.0]], pa.list_(pa.float64(), 2)
            ),
            "big": pa.array([[1], [2, 3], None, [], [4]], pa.large_list(pa.int64())),
            "st": [
                {"x": 1, "y": "a"},
                None,
                {"x": None, "y": "b"},
                {"x": 4, "y": None},
                {"x": 5, "y": "e"},
            ],
            "sl": [{"v": [1, 2]}, {"v": None}, None, {"v": []}, {"v": [3]}],
            "ls2": [[{"a": 1}], [{"a": None}, None], None, [], [{"a": 5}]],
            "m": pa.array(
                [[("k", 1)], [], None, [("a", None), ("b", 2)], [("z", 9)]],
                pa.map_(pa.string(), pa.int64()),
            ),
            "images": pa.array(images),
            "ragged": pa.array(ragged),
            "large_s": pa.array(["x", None, "yy", "", "zzz"], pa.large_string()),
            "dict": pa.array(["a", "b", "a", None, "c"]).dictionary_encode(),
        }
    )


def read_both(path, **kwargs):
    ours = pa.table(qv.parquet.read_table(path, **kwargs))
    theirs = pq.read_table(path, **kwargs)
    return ours, theirs


def assert_same(ours, theirs):
    assert ours.schema.names == theirs.schema.names
    for name in theirs.schema.names:
        a, b = ours.column(name), theirs.column(name)
        assert a.type == b.type, (name, a.type, b.type)
        assert a.combine_chunks().equals(b.combine_chunks()), name
    assert ours.num_rows == theirs.num_rows


@pytest.mark.parametrize("compression", ["none", "snappy", "zstd", "lz4", "gzip", "brotli"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_flat_types_read_as_pyarrow_reads_them(tmp_path, compression, version, dictionary):
    if compression in ("gzip", "brotli") and compression.upper() not in qv.parquet.codecs():
        pytest.skip(f"this build of quiver has no {compression} codec")
    path = tmp_path / "flat.parquet"
    pq.write_table(
        flat_table(),
        path,
        compression=compression,
        data_page_version=version,
        use_dictionary=dictionary,
        row_group_size=128,
        data_page_size=512,
    )
    assert_same(*read_both(path))


@pytest.mark.parametrize("compression", ["none", "snappy", "zstd"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_nested_columns_and_nulls_at_every_level(tmp_path, compression, version):
    path = tmp_path / "nested.parquet"
    pq.write_table(
        nested_table(), path, compression=compression, data_page_version=version, row_group_size=2
    )
    ours, theirs = read_both(path)
    assert_same(ours, theirs)
    assert ours.schema.field("images").type.extension_name == "arrow.fixed_shape_tensor"


@pytest.mark.parametrize(
    "column, encoding",
    [
        ("f32", "BYTE_STREAM_SPLIT"),
        ("f64", "BYTE_STREAM_SPLIT"),
        ("i32", "BYTE_STREAM_SPLIT"),
        ("i64", "BYTE_STREAM_SPLIT"),
        ("fsb", "BYTE_STREAM_SPLIT"),
        ("i32", "DELTA_BINARY_PACKED"),
        ("i64", "DELTA_BINARY_PACKED"),
        ("u64", "DELTA_BINARY_PACKED"),
        ("s", "DELTA_LENGTH_BYTE_ARRAY"),
        ("bin", "DELTA_LENGTH_BYTE_ARRAY"),
        ("s", "DELTA_BYTE_ARRAY"),
        ("fsb", "DELTA_BYTE_ARRAY"),
    ],
)
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_every_value_encoding_pyarrow_writes(tmp_path, column, encoding, version):
    path = tmp_path / "enc.parquet"
    table = flat_table().select([column])
    pq.write_table(
        table,
        path,
        use_dictionary=False,
        column_encoding={column: encoding},
        data_page_version=version,
        data_page_size=256,
    )
    assert encoding in qv.parquet.ParquetFile(path).row_group(0)["columns"][0]["encodings"]
    assert_same(*read_both(path))


def test_dictionary_fallback_mid_chunk(tmp_path):
    # A dictionary page limit this small makes pyarrow fall back to PLAIN
    # pages after the first ones of the chunk.
    path = tmp_path / "fallback.parquet"
    strings = pa.array([f"value-{i}" for i in range(5000)])
    pq.write_table(
        pa.table({"s": strings}), path, dictionary_pagesize_limit=2000, data_page_size=1000
    )
    encodings = qv.parquet.ParquetFile(path).row_group(0)["columns"][0]["encodings"]
    assert "PLAIN" in encodings and "RLE_DICTIONARY" in encodings
    assert_same(*read_both(path))


def test_tensor_columns_come_back_with_their_types_and_values(tmp_path):
    path = tmp_path / "tensors.parquet"
    values = np.random.default_rng(1).random((64, 3, 5)).astype(np.float32)
    images = qv.FixedShapeTensorArray.from_numpy(values)
    pq.write_table(pa.table({"images": pa.array(images)}), path, row_group_size=16)
    table = qv.parquet.read_table(path)
    column = table.column("images")
    assert column.type.extension_name == "arrow.fixed_shape_tensor"
    assert column.num_chunks == 4
    got = np.concatenate([chunk.to_numpy() for chunk in column.chunks])
    np.testing.assert_array_equal(got, values)


def test_projection_and_row_group_selection(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(flat_table(), path, row_group_size=100)
    f = qv.parquet.ParquetFile(path)
    t = f.read(["s", "i32"], row_groups=[2, 0])
    expected = pq.ParquetFile(path).read_row_groups([2, 0], columns=["s", "i32"])
    assert_same(pa.table(t), expected)
    batch = f.read_row_group(-1, columns=["f64"])
    assert (
        pa.record_batch(batch)
        .column(0)
        .equals(pq.ParquetFile(path).read_row_group(2, columns=["f64"]).column(0).combine_chunks())
    )
    empty = f.read(row_groups=[])
    assert empty.num_rows == 0 and empty.schema.names == f.schema.names
    with pytest.raises(ValueError, match="has no column named 'nope' \\(its columns: b, i8"):
        f.read(["nope"])
    with pytest.raises(IndexError, match="row group 3 of a file with 3 row groups"):
        f.read(row_groups=[3])
    with pytest.raises(IndexError, match="row group -4"):
        f.read_row_group(-4)
    with pytest.raises(TypeError, match="a list of column names, not str"):
        f.read("s")


def test_empty_and_zero_row_group_files(tmp_path):
    path = tmp_path / "empty.parquet"
    pq.write_table(flat_table(0), path)
    assert_same(*read_both(path))
    writer = pq.ParquetWriter(tmp_path / "none.parquet", pa.schema({"x": pa.int32()}))
    writer.close()
    table = qv.parquet.read_table(tmp_path / "none.parquet")
    assert table.num_rows == 0 and table.schema.names == ["x"]


def test_many_pages_and_long_strings(tmp_path):
    path = tmp_path / "pages.parquet"
    rng = np.random.default_rng(3)
    long = [("x" * int(k)) if k % 7 else None for k in rng.integers(0, 5000, 2000)]
    table = pa.table({"long": long, "n": np.arange(2000, dtype=np.int64)})
    pq.write_table(table, path, data_page_size=100, use_dictionary=False, compression="snappy")
    assert_same(*read_both(path))


def test_every_source_kind_reads_the_same(tmp_path):
    path = tmp_path / "s.parquet"
    pq.write_table(nested_table(), path)
    data = path.read_bytes()
    expected = pq.read_table(path)
    for source in [path, str(path), data, memoryview(data), io.BytesIO(data)]:
        assert_same(pa.table(qv.parquet.read_table(source)), expected)
    assert_same(pa.table(qv.parquet.read_table(path, memory_map=False)), expected)


def test_files_duckdb_wrote(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT i, i::DOUBLE / 3 AS d, 'row ' || i AS s, [i, i + 1] AS l, "
        "CASE WHEN i % 3 = 0 THEN NULL ELSE i END AS n, {'a': i, 'b': 's' || i} AS st "
        f"FROM range(5000) t(i)) TO '{path}' (FORMAT PARQUET)"
    )
    assert_same(*read_both(path))


@pytest.mark.parametrize("compression", ["snappy", "zstd", "lz4", "uncompressed"])
def test_files_polars_wrote(tmp_path, compression):
    pl = pytest.importorskip("polars")
    path = tmp_path / "polars.parquet"
    df = pl.DataFrame(
        {
            "i": list(range(3000)),
            "s": [f"s{i % 50}" if i % 11 else None for i in range(3000)],
            "l": [[i, i + 1] if i % 5 else None for i in range(3000)],
            "f": [i / 7 for i in range(3000)],
        }
    )
    df.write_parquet(path, compression=compression)
    ours = qv.parquet.read_table(path)
    theirs = pq.read_table(path)
    # Polars writes large strings and lists; pyarrow keeps them large.
    assert_same(pa.table(ours), theirs)


def corrupt_first_data_page(path, offset_in_page, value):
    f = qv.parquet.ParquetFile(path)
    column = f.row_group(0)["columns"][0]
    data = bytearray(path.read_bytes())
    data[column["data_page_offset"] + offset_in_page] = value
    return bytes(data)


def test_a_page_whose_bytes_lie_is_refused_with_where(tmp_path):
    path = tmp_path / "c.parquet"
    pq.write_table(
        pa.table({"x": np.arange(1000, dtype=np.int64)}),
        path,
        compression="none",
        use_dictionary=False,
    )
    # Flip bytes all over the first page: each read is an error naming the
    # column and row group, or reads values; never a crash.
    size = qv.parquet.ParquetFile(path).row_group(0)["columns"][0]["compressed_size"]
    for k in range(0, size, 7):
        data = corrupt_first_data_page(path, k, 0xFF)
        try:
            qv.parquet.read_table(data)
        except (ValueError, NotImplementedError) as error:
            assert "column x of row group 0" in str(error) or "x" in str(error)


def test_truncated_column_chunks_fail_cleanly(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(nested_table(), path, compression="zstd")
    data = path.read_bytes()
    f = qv.parquet.ParquetFile(path)
    for column in f.row_group(0)["columns"]:
        start = column["dictionary_page_offset"] or column["data_page_offset"]
        for cut in (1, column["compressed_size"] // 2, column["compressed_size"] - 1):
            mutated = bytearray(data)
            # Zero the chunk's tail: the pages' bytes no longer add up.
            end = start + column["compressed_size"]
            mutated[start + cut : end] = bytes(end - start - cut)
            try:
                qv.parquet.read_table(bytes(mutated))
            except (ValueError, NotImplementedError) as error:
                assert "row group 0" in str(error)


def test_a_dataset_of_parquet_files_takes_rows_in_any_order(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    values = np.random.default_rng(5).random((90, 2, 3)).astype(np.float32)
    for part in range(3):
        rows = slice(part * 30, (part + 1) * 30)
        images = qv.FixedShapeTensorArray.from_numpy(values[rows])
        table = pa.table({"id": np.arange(90)[rows], "image": pa.array(images)})
        pq.write_table(table, folder / f"part-{part}.parquet", row_group_size=7, compression="zstd")
    ds = qv.dataset(folder)
    assert len(ds) == 90
    order = [89, 0, 45, 45, 13, 60]
    taken = pa.table(ds.take(order))
    assert taken.column("id").to_pylist() == order
    got = qv.table(taken).column("image").to_numpy()
    np.testing.assert_array_equal(got, values[order])
    with qv.dataset(folder, columns=["id"]) as only_ids:
        assert pa.table(only_ids.take([5])).column_names == ["id"]


def test_the_loader_reads_parquet_files(tmp_path):
    import quiver.data

    values = np.random.default_rng(0).random((100, 3, 4)).astype(np.float32)
    table = pa.table(
        {"id": np.arange(100), "x": pa.array(qv.FixedShapeTensorArray.from_numpy(values))}
    )
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=16, compression="snappy")
    reader = quiver.data.BatchReader(str(tmp_path), batch_size=10, shuffle=True, seed=1)
    seen = []
    for batch in reader:
        np.testing.assert_array_equal(batch["x"], values[batch["id"]])
        seen.extend(batch["id"].tolist())
    assert sorted(seen) == list(range(100))


def test_time_zones_units_and_widths_from_the_arrow_schema(tmp_path):
    path = tmp_path / "time.parquet"
    table = pa.table(
        {
            "paris": pa.array([0, 1_700_000_000_000, None], pa.timestamp("ms", "Europe/Paris")),
            "seconds": pa.array([0, 1_700_000_000, 5], pa.timestamp("s")),
            "offset": pa.array([1, 2, 3], pa.timestamp("us", "+02:00")),
            "t_s": pa.array([1, 2, 3], pa.time32("s")),
            "d64": pa.array([0, 86_400_000, None], pa.date64()),
            "d32": pa.array([1, 2, None], pa.decimal32(7, 2)),
            "d64dec": pa.array([1, 2, None], pa.decimal64(15, 3)),
        }
    )
    pq.write_table(table, path)
    ours = pa.table(qv.parquet.read_table(path))
    assert ours.schema == table.schema
    assert ours.equals(table)
