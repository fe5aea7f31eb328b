"""Parquet page indexes: ParquetFile.offset_index and column_index on files
pyarrow writes (pages checked against the column chunk's bytes and each
page's min, max and nulls against the column's values), files quiver
writes with write_page_index=True (read by pyarrow, DuckDB and quiver),
and indexes that lie outside the file or do not decode."""

import io
import struct

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import quiver as qv  # noqa: E402
from parquet_testing_cases import varint  # noqa: E402

ROWS = 3000


def sample_table():
    rng = np.random.default_rng(7)
    ints = np.arange(ROWS, dtype=np.int64) * 3 - 1000
    valid = np.ones(ROWS, bool)
    valid[500:1400] = False  # pages of nulls only
    floats = rng.standard_normal(ROWS)
    strings = [f"k{(i * 7919) % ROWS:05d}" for i in range(ROWS)]
    lists = [list(range(i % 5)) if i % 7 else None for i in range(ROWS)]
    return pa.table(
        {
            "up": pa.array(ints, mask=~valid),
            "down": pa.array(-ints.astype(np.int32)),
            "f": pa.array(floats),
            "s": pa.array(strings),
            "l": pa.array(lists, pa.list_(pa.int16())),
        }
    )


_FORMATS = {"INT32": "<i", "INT64": "<q", "FLOAT": "<f", "DOUBLE": "<d"}


def _decode(physical_type, value):
    if physical_type in _FORMATS:
        return struct.unpack(_FORMATS[physical_type], value)[0]
    return value


def check_chunk(f, table, g, c, rows_before):
    """The offset index of column c of row group g against the chunk's bytes
    (pages back to back from its first to its end), and for flat columns the
    column index against each page's rows of `table`."""
    chunk = f.row_group(g)["columns"][c]
    assert chunk["has_offset_index"] and chunk["has_page_index"]
    pages = f.offset_index(g, c)
    assert pages is not None and len(pages) >= 2
    assert pages[0]["offset"] == chunk["data_page_offset"]
    start = chunk["dictionary_page_offset"] or chunk["data_page_offset"]
    assert (
        pages[-1]["offset"] + pages[-1]["compressed_page_size"] == start + chunk["compressed_size"]
    )
    for a, b in zip(pages, pages[1:]):
        assert a["offset"] + a["compressed_page_size"] == b["offset"]
        assert a["first_row_index"] < b["first_row_index"]
    assert pages[0]["first_row_index"] == 0
    assert pages[-1]["first_row_index"] < f.row_group(g)["num_rows"]

    index = f.column_index(g, c)
    assert chunk["has_column_index"] == (index is not None)
    if index is None:
        return None
    n = len(pages)
    assert len(index["null_pages"]) == len(index["min_values"]) == len(index["max_values"]) == n
    bounds = [p["first_row_index"] for p in pages] + [f.row_group(g)["num_rows"]]
    path = f.column_paths[c]
    if "." not in path:  # a flat column: a page's rows are its values
        column = table.column(path).slice(rows_before, f.row_group(g)["num_rows"])
        for p in range(n):
            values = column.slice(bounds[p], bounds[p + 1] - bounds[p]).to_pylist()
            present = [v for v in values if v is not None]
            assert index["null_pages"][p] == (not present)
            if index["null_counts"] is not None:
                assert index["null_counts"][p] == len(values) - len(present)
            if not present:
                assert index["min_values"][p] == index["max_values"][p] == b""
                continue
            lo = _decode(chunk["physical_type"], index["min_values"][p])
            hi = _decode(chunk["physical_type"], index["max_values"][p])
            if isinstance(lo, bytes):
                present = [v.encode() for v in present]
            assert lo == min(present) and hi == max(present), (path, p)
    return index


def check_file(source, table):
    f = qv.parquet.ParquetFile(source)
    orders = {}
    rows_before = 0
    for g in range(f.num_row_groups):
        for c in range(len(f.column_paths)):
            index = check_chunk(f, table, g, c, rows_before)
            if index is not None:
                orders.setdefault(f.column_paths[c], set()).add(index["boundary_order"])
        rows_before += f.row_group(g)["num_rows"]
    return f, orders


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_pyarrow_page_indexes(tmp_path, version, dictionary):
    table = sample_table()
    path = tmp_path / "p.parquet"
    pq.write_table(
        table,
        path,
        write_page_index=True,
        data_page_size=512,
        write_batch_size=64,
        row_group_size=2000,
        data_page_version=version,
        use_dictionary=dictionary,
    )
    f, orders = check_file(str(path), table)
    assert orders["up"] == {"ascending"}
    assert orders["down"] == {"descending"}
    assert orders["f"] == {"unordered"}
    # By path and by negative index, the same as by index.
    assert f.offset_index(0, "l.list.element") == f.offset_index(0, 4)
    assert f.column_index(-1, -1) == f.column_index(1, 4)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_quiver_page_indexes_read_by_pyarrow(tmp_path, version, dictionary):
    table = sample_table()
    path = tmp_path / "q.parquet"
    qv.parquet.write_table(
        table,
        path,
        write_page_index=True,
        data_page_size=512,
        row_group_size=2000,
        data_page_version=version,
        use_dictionary=dictionary,
    )
    assert pq.read_table(path).equals(table)
    meta = pq.ParquetFile(path).metadata
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            column = meta.row_group(g).column(c)
            assert column.has_offset_index and column.has_column_index
    f, orders = check_file(str(path), table)
    assert orders["up"] == {"ascending"}
    assert orders["down"] == {"descending"}
    assert orders["f"] == {"unordered"}
    assert orders["s"] == {"unordered"}
    assert pa.table(f.read()).equals(table)


def test_page_indexes_agree_with_chunk_statistics_and_pyarrow():
    """The pages' min and max over the chunk are the chunk's statistics, and
    both writers order the same columns' pages the same way."""
    table = sample_table().select(["up", "down", "f", "s"])
    ours, theirs = io.BytesIO(), io.BytesIO()
    qv.parquet.write_table(table, ours, write_page_index=True, data_page_size=1024)
    pq.write_table(table, theirs, write_page_index=True, data_page_size=1024)
    a = qv.parquet.ParquetFile(ours.getvalue())
    b = qv.parquet.ParquetFile(theirs.getvalue())
    for c in range(4):
        ia, ib = a.column_index(0, c), b.column_index(0, c)
        assert ia["boundary_order"] == ib["boundary_order"]
        assert sum(ia["null_counts"]) == sum(ib["null_counts"])
        physical = a.row_group(0)["columns"][c]["physical_type"]
        stats = a.row_group(0)["columns"][c]["statistics"]
        for index in (ia, ib):
            mins = [
                _decode(physical, v)
                for v, n in zip(index["min_values"], index["null_pages"])
                if not n
            ]
            maxes = [
                _decode(physical, v)
                for v, n in zip(index["max_values"], index["null_pages"])
                if not n
            ]
            assert min(mins) == _decode(physical, stats["min"])
            assert max(maxes) == _decode(physical, stats["max"])


def test_page_index_default_off_and_statistics_off():
    table = sample_table()
    out = io.BytesIO()
    qv.parquet.write_table(table, out)
    f = qv.parquet.ParquetFile(out.getvalue())
    chunk = f.row_group(0)["columns"][0]
    assert not chunk["has_offset_index"] and not chunk["has_column_index"]
    assert f.offset_index(0, 0) is None and f.column_index(0, "up") is None
    meta = pq.ParquetFile(io.BytesIO(out.getvalue())).metadata.row_group(0).column(0)
    assert not meta.has_offset_index and not meta.has_column_index

    # Without chunk statistics the page index is still written.
    out = io.BytesIO()
    qv.parquet.write_table(
        table, out, write_page_index=True, write_statistics=False, data_page_size=512
    )
    f = qv.parquet.ParquetFile(out.getvalue())
    assert f.row_group(0)["columns"][0]["statistics"] is None
    check_chunk(f, table, 0, 0, 0)
    assert pq.read_table(io.BytesIO(out.getvalue())).equals(table)


def test_duckdb_and_polars_read_quiver_page_indexes(tmp_path):
    table = sample_table().select(["up", "down", "f", "s"])
    path = tmp_path / "q.parquet"
    qv.parquet.write_table(table, path, write_page_index=True, data_page_size=512)
    duckdb = pytest.importorskip("duckdb")
    got = duckdb.sql(f"SELECT * FROM '{path}' WHERE down < -5000 ORDER BY up").arrow()
    got = got.read_all() if hasattr(got, "read_all") else got
    expected = table.filter(pa.compute.less(table["down"], -5000))
    assert got.to_pylist() == expected.to_pylist()
    pl = pytest.importorskip("polars")
    assert pl.read_parquet(path).to_arrow().to_pylist() == table.to_pylist()


def test_column_argument_errors():
    out = io.BytesIO()
    qv.parquet.write_table(sample_table(), out, write_page_index=True)
    f = qv.parquet.ParquetFile(out.getvalue())
    with pytest.raises(IndexError, match="row group 1 of a file with 1 row groups"):
        f.offset_index(1, 0)
    with pytest.raises(IndexError, match="column 5 of a file with 5 leaf columns"):
        f.column_index(0, 5)
    with pytest.raises(ValueError, match="no leaf column 'l'"):
        f.column_index(0, "l")
    with pytest.raises(TypeError, match="column must be an int or a leaf column's path"):
        f.offset_index(0, 1.5)
    with pytest.raises(TypeError, match="row_group must be an int"):
        f.offset_index("0", 0)
    with pytest.raises(TypeError, match="write_page_index must be a bool"):
        qv.parquet.write_table(sample_table(), io.BytesIO(), write_page_index=1)


def _one_chunk_file():
    """A file of one column chunk with its page index, the offset of its
    column index (right after the chunk), and the footer's start."""
    table = pa.table({"x": pa.array(np.arange(500, dtype=np.int32))})
    out = io.BytesIO()
    qv.parquet.write_table(table, out, write_page_index=True, data_page_size=256)
    data = bytearray(out.getvalue())
    chunk = qv.parquet.ParquetFile(bytes(data)).row_group(0)["columns"][0]
    start = chunk["dictionary_page_offset"] or chunk["data_page_offset"]
    footer_start = len(data) - 8 - struct.unpack("<I", data[-8:-4])[0]
    return data, start + chunk["compressed_size"], footer_start


def test_index_offset_past_the_end_is_refused():
    data, column_index_at, footer_start = _one_chunk_file()
    # ColumnChunk field 6 (column_index_offset, i64) follows field 5: header
    # byte 0x16, then the zigzag varint. Same-length varint, far past the end.
    old = b"\x16" + varint(column_index_at * 2)
    assert data.count(old, footer_start) == 1
    far = (1 << (7 * (len(old) - 1))) - 2  # the largest even value that fits
    assert far // 2 > len(data)
    at = data.index(old, footer_start)
    data[at : at + len(old)] = b"\x16" + varint(far)
    f = qv.parquet.ParquetFile(bytes(data))
    assert f.row_group(0)["columns"][0]["has_column_index"]
    assert f.offset_index(0, 0) is not None  # the other index is untouched
    with pytest.raises(ValueError, match=r"column x of row group 0: its column index's \d+ bytes"):
        f.column_index(0, "x")
    with pytest.raises(ValueError, match="outside the file's data"):
        f.column_index(0, 0)


def test_corrupt_index_bytes_are_refused():
    data, column_index_at, _ = _one_chunk_file()
    data[column_index_at : column_index_at + 4] = b"\xff\xff\xff\xff"
    f = qv.parquet.ParquetFile(bytes(data))
    with pytest.raises(ValueError, match=r"column x of row group 0: the column index: .* at byte"):
        f.column_index(0, 0)
    assert len(f.offset_index(0, 0)) > 2
    # The data pages themselves still read.
    assert f.read().num_rows == 500


def _row_range_table():
    rng = np.random.default_rng(3)
    n = 5000
    ints = rng.integers(-100, 100, n)
    return pa.table(
        {
            "i": pa.array(ints, mask=ints % 7 == 0),
            "s": pa.array([f"v{v}" if v % 5 else None for v in ints]),
            # A struct of two flat leaves whose pages end at different rows.
            "st": pa.StructArray.from_arrays(
                [pa.array(ints.astype(np.int8)), pa.array([f"long value {v}" for v in ints])],
                names=["x", "y"],
            ),
            "l": pa.array([list(range(v % 4)) for v in ints], pa.list_(pa.int32())),
        }
    )


@pytest.mark.parametrize("writer", ["pyarrow", "quiver"])
def test_read_row_range(writer):
    table = _row_range_table()
    out = io.BytesIO()
    # PLAIN values, so that the struct's two leaves cut pages at different rows.
    options = dict(
        write_page_index=True, data_page_size=512, row_group_size=3000, use_dictionary=False
    )
    if writer == "pyarrow":
        pq.write_table(table, out, write_batch_size=32, **options)
    else:
        qv.parquet.write_table(table, out, **options)
    f = qv.parquet.ParquetFile(out.getvalue())
    assert len(f.offset_index(0, "st.y")) != len(f.offset_index(0, "st.x"))
    starts = [0, 3000]
    for g, first, count in [(0, 0, 3000), (0, 1, 1), (0, 1234, 567), (1, 1999, 1), (-1, 0, 0)]:
        got = f.read_row_range(g, first, count)
        assert got.num_rows == count
        expected = table.slice(starts[g] + first, count)
        assert pa.Table.from_batches([pa.record_batch(got)]).equals(expected)
    part = f.read_row_range(0, 100, 50, columns=["st"])
    assert (
        pa.record_batch(part).column(0).equals(table.column("st").slice(100, 50).combine_chunks())
    )
    with pytest.raises(IndexError, match="rows 2990 to 2990 \\+ 11 of row group 0"):
        f.read_row_range(0, 2990, 11)
    with pytest.raises(IndexError, match="row group 2 of a file with 2 row groups"):
        f.read_row_range(2, 0, 1)
    with pytest.raises(TypeError, match="first must be an int"):
        f.read_row_range(0, 1.0, 1)


def test_read_row_range_without_page_index():
    table = _row_range_table()
    out = io.BytesIO()
    qv.parquet.write_table(table, out, data_page_size=512)
    f = qv.parquet.ParquetFile(out.getvalue())
    assert f.offset_index(0, 0) is None
    got = pa.Table.from_batches([pa.record_batch(f.read_row_range(0, 4000, 10))])
    assert got.equals(table.slice(4000, 10))


def _offset_index_bytes(pages):
    """An OffsetIndex in the Thrift compact protocol: field 1, a list of
    PageLocation structs (offset i64, compressed_page_size i32,
    first_row_index i64)."""

    def zigzag(n):
        return varint((n << 1) ^ (n >> 63))

    out = bytearray(b"\x19")  # field 1, a list
    out += bytes([0xFC]) + varint(len(pages)) if len(pages) >= 15 else bytes([len(pages) << 4 | 12])
    for offset, size, first_row in pages:
        out += b"\x16" + zigzag(offset) + b"\x15" + zigzag(size) + b"\x16" + zigzag(first_row)
        out += b"\x00"
    return bytes(out + b"\x00")


def _with_offset_index(data, pages, changed):
    """`data` with its one offset index (`pages`) replaced by `changed`,
    which must encode to as many bytes."""
    old, new = _offset_index_bytes(pages), _offset_index_bytes(changed)
    assert data.count(old) == 1 and len(new) == len(old)
    at = data.index(old)
    return data[:at] + new + data[at + len(old) :]


def test_an_offset_index_the_pages_contradict_is_refused():
    # Pages of 34 rows; an index that moves page 2's first row by one says
    # page 1 holds 35: the page's header says 34, and the rows are not read
    # as others.
    values = np.arange(500, dtype=np.int32)
    out = io.BytesIO()
    qv.parquet.write_table(
        pa.table({"x": values}),
        out,
        write_page_index=True,
        data_page_size=128,
        use_dictionary=False,
    )
    data = out.getvalue()
    f = qv.parquet.ParquetFile(data)
    pages = [
        (p["offset"], p["compressed_page_size"], p["first_row_index"]) for p in f.offset_index(0, 0)
    ]
    shifted = list(pages)
    shifted[2] = (pages[2][0], pages[2][1], pages[2][2] + 1)
    lying = qv.parquet.ParquetFile(_with_offset_index(data, pages, shifted))
    with pytest.raises(
        ValueError,
        match=r"column x of row group 0: data page 1 holds 32 rows, the offset index says 33",
    ):
        lying.read_row_range(0, pages[1][2], 1)
    assert pa.record_batch(lying.read_row_group(0)).column(0).to_pylist() == values.tolist()
    # Two pages' places swapped: refused when the index is read.
    swapped = list(pages)
    swapped[1], swapped[2] = (
        (pages[2][0], pages[2][1], pages[1][2]),
        (pages[1][0], pages[1][1], pages[2][2]),
    )
    crossed = qv.parquet.ParquetFile(_with_offset_index(data, pages, swapped))
    with pytest.raises(
        ValueError, match="the offset index puts page 2 at offset .* inside or before page 1"
    ):
        crossed.offset_index(0, 0)
    with pytest.raises(ValueError, match="inside or before page 1"):
        crossed.read_row_range(0, 100, 10)


def test_an_empty_row_range_is_at_offset_zero():
    out = io.BytesIO()
    qv.parquet.write_table(
        pa.table({"x": np.arange(100)}), out, write_page_index=True, data_page_size=64
    )
    empty = qv.parquet.ParquetFile(out.getvalue()).read_row_range(0, 57, 0)
    column = pa.record_batch(empty).column(0)
    assert len(column) == 0 and column.offset == 0
    assert pa.concat_arrays([column, column]).to_pylist() == []
