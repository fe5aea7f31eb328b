"""qv.dataset over Parquet files with page indexes: a take, ds[i] or a short
slice reads the pages that hold its rows (found through the row group's
offset indexes), not the whole row group, for every column kind (fixed and
variable shape tensors, lists, strings, nullable numbers); files without
an index, and rows that need most of a row group, read the row group
whole. Rows come back equal to pyarrow's, locally and over HTTP."""

from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import quiver as qv  # noqa: E402

ROWS = 4000


def tensor_table(rows=ROWS):
    rng = np.random.default_rng(11)
    images = rng.integers(0, 255, (rows, 3, 8, 8), dtype=np.uint8)
    ragged = [rng.standard_normal((1 + i % 5, 4)).astype(np.float32) for i in range(rows)]
    ids = np.arange(rows, dtype=np.int64)
    return pa.table(
        {
            "id": pa.array(ids, mask=ids % 11 == 0),
            "image": pa.array(qv.FixedShapeTensorArray.from_numpy(images)),
            "ragged": pa.array(qv.VariableShapeTensorArray.from_numpy(ragged)),
            "tags": pa.array([[f"t{j}" for j in range(i % 4)] for i in range(rows)]),
            "name": pa.array([f"row {i}" if i % 7 else None for i in range(rows)]),
        }
    )


def write(table, path, writer, page_index=True):
    # One row group, pages of a few KiB: a row's pages are a small part of it.
    options = dict(row_group_size=ROWS, data_page_size=4096, write_page_index=page_index)
    if writer == "pyarrow":
        pq.write_table(table, path, **options)
    else:
        qv.parquet.write_table(table, path, **options)


def expected_rows(table, rows):
    return table.take(pa.array(rows, pa.int64()))


@pytest.mark.parametrize("writer", ["pyarrow", "quiver"])
def test_a_take_reads_only_the_pages_of_its_rows(tmp_path, writer):
    table = tensor_table()
    path = tmp_path / "t.parquet"
    write(table, path, writer)
    size = path.stat().st_size
    rows = [3999, 0, 1234, 1234, 17, 2500, 1]
    with qv.dataset(path, memory_map=False) as ds:
        got = pa.table(ds.take(rows))
        assert got.equals(expected_rows(table, rows))
        # Rows read through the index are not cached: nothing was decoded whole.
        assert ds.cache_stats()["bytes_cached"] == 0
    # The pages of 7 rows (and the footer and indexes), not the 4000 rows.
    # (pyarrow writes the ragged floats with a dictionary page of most of
    # their bytes, read whole: left out here, and below without it.)
    some = ["id", "image", "tags", "name"]
    with qv.dataset(path, columns=some, memory_map=False) as ds:
        assert pa.table(ds.take(rows)).equals(expected_rows(table.select(some), rows))
        stats = ds.cache_stats()
        assert 0 < stats["bytes_fetched"] < size / 6, (stats, size)


@pytest.mark.parametrize("writer", ["pyarrow", "quiver"])
def test_a_ragged_tensor_reads_the_pages_of_its_rows_in_both_leaves(tmp_path, writer):
    # A variable_shape_tensor is a struct of two leaves (the values and the
    # shapes) whose pages end at different rows: each leaf reads its own
    # pages and keeps the rows asked.
    table = tensor_table().select(["ragged"])
    path = tmp_path / "r.parquet"
    options = dict(row_group_size=ROWS, data_page_size=4096, write_page_index=True)
    options["use_dictionary"] = False
    if writer == "pyarrow":
        pq.write_table(table, path, **options)
    else:
        qv.parquet.write_table(table, path, **options)
    f = qv.parquet.ParquetFile(path)
    assert len(f.offset_index(0, 0)) > 4 * len(f.offset_index(0, 1))
    rows = [4, 3999, 2001, 4, 1000]
    with qv.dataset(path, memory_map=False) as ds:
        opened = ds.cache_stats()["bytes_fetched"]  # the footer's read
        assert pa.table(ds.take(rows)).equals(expected_rows(table, rows))
        taken = ds.cache_stats()["bytes_fetched"] - opened
        assert taken < path.stat().st_size / 5, taken
        assert pa.table(ds[1999:2003]).equals(table.slice(1999, 4))


@pytest.mark.parametrize("writer", ["pyarrow", "quiver"])
def test_single_rows_and_short_slices_read_through_the_index(tmp_path, writer):
    table = tensor_table()
    path = tmp_path / "t.parquet"
    write(table, path, writer)
    with qv.dataset(path) as ds:
        for i in (0, 1, 2047, 3999):
            assert pa.table(ds[i]).equals(table.slice(i, 1))
        assert pa.table(ds[100:140]).equals(table.slice(100, 40))
        assert pa.table(ds.__getitems__([5, 3, 5])).equals(expected_rows(table, [5, 3, 5]))
        assert ds.cache_stats()["bytes_cached"] == 0


def test_a_projection_reads_the_pages_of_its_columns(tmp_path):
    table = tensor_table()
    path = tmp_path / "t.parquet"
    write(table, path, "quiver")
    with qv.dataset(path, columns=["image", "id"], memory_map=False) as ds:
        rows = [10, 3000, 10]
        got = pa.table(ds.take(rows))
        assert got.equals(expected_rows(table.select(["image", "id"]), rows))
        assert ds.cache_stats()["bytes_fetched"] < path.stat().st_size / 6


def test_rows_that_need_most_of_the_row_group_read_it_whole(tmp_path):
    table = tensor_table()
    path = tmp_path / "t.parquet"
    write(table, path, "quiver")
    rows = list(range(0, ROWS, 3))
    with qv.dataset(path, memory_map=False) as ds:
        assert pa.table(ds.take(rows)).equals(expected_rows(table, rows))
        stats = ds.cache_stats()
        assert stats["bytes_cached"] > 0 and stats["misses"] > 0
        # The row group is cached now: a second take reads nothing.
        fetched = stats["bytes_fetched"]
        assert pa.table(ds.take([7])).equals(table.slice(7, 1))
        assert ds.cache_stats()["bytes_fetched"] == fetched


def test_a_file_without_page_indexes_reads_row_groups_whole(tmp_path):
    table = tensor_table()
    path = tmp_path / "t.parquet"
    write(table, path, "pyarrow", page_index=False)
    with qv.dataset(path, memory_map=False) as ds:
        assert pa.table(ds.take([5, 3999])).equals(expected_rows(table, [5, 3999]))
        assert ds.cache_stats()["bytes_fetched"] > path.stat().st_size / 2


def test_many_files_and_row_groups_with_indexes(tmp_path):
    table = tensor_table()
    for part in range(2):
        pq.write_table(
            table.slice(part * 2000, 2000),
            tmp_path / f"part-{part}.parquet",
            row_group_size=700,
            data_page_size=2048,
            write_page_index=True,
            compression="zstd",
        )
    rng = np.random.default_rng(2)
    rows = rng.integers(0, ROWS, 50).tolist()
    with qv.dataset(tmp_path) as ds:
        assert pa.table(ds.take(rows)).equals(expected_rows(table, rows))
        assert pa.table(ds[695:705]).equals(table.slice(695, 10))


def test_a_lying_index_on_a_list_column_is_an_error_not_other_rows(tmp_path):
    # A list column's page index moved by one row: the page the index names
    # no longer starts on a row, or holds another count of rows.
    from test_parquet_page_index import _with_offset_index

    table = pa.table({"l": pa.array([list(range(i % 3 + 1)) for i in range(600)])})
    path = tmp_path / "l.parquet"
    qv.parquet.write_table(table, path, data_page_size=256, write_page_index=True)
    data = path.read_bytes()
    f = qv.parquet.ParquetFile(data)
    pages = [
        (p["offset"], p["compressed_page_size"], p["first_row_index"]) for p in f.offset_index(0, 0)
    ]
    assert len(pages) > 4
    shifted = list(pages)
    shifted[2] = (pages[2][0], pages[2][1], pages[2][2] + 1)
    lying = tmp_path / "lying.parquet"
    lying.write_bytes(_with_offset_index(data, pages, shifted))
    f = qv.parquet.ParquetFile(lying)
    with pytest.raises(ValueError, match=r"data page 1 holds \d+ rows, the offset index says"):
        f.read_row_range(0, pages[1][2], 1)
    # A take reads the row group whole instead, which needs no index.
    with qv.dataset(lying) as ds:
        rows = [pages[1][2], 0, pages[2][2]]
        assert pa.table(ds.take(rows)).equals(expected_rows(table, rows))
    assert pa.table(qv.parquet.read_table(lying)).equals(table)


def test_list_rows_split_across_pages_come_back_whole():
    # tests/data/list_rows_split_across_pages.parquet: 400 rows of a
    # list<int64> of 3 values in v1 data pages of 100 levels each, so rows
    # cross page ends (as writers before the format required otherwise
    # wrote them), with an offset index giving each page the rows started
    # before it: page 1 says row 34, but begins with the tail of row 33.
    path = Path(__file__).parent.parent / "data" / "list_rows_split_across_pages.parquet"
    expected = pq.read_table(path)
    assert expected.column(0)[33].as_py() == [330, 331, 332]
    f = qv.parquet.ParquetFile(path)
    assert [p["first_row_index"] for p in f.offset_index(0, 0)][:3] == [0, 34, 67]
    # Read through the index, row 33 would end at page 0's end: the page
    # after the run is read too, and its first level shows the split.
    with pytest.raises(ValueError, match="data page 1 does not start on a row"):
        f.read_row_range(0, 33, 1)
    with qv.dataset(path) as ds:
        for rows in ([33], [33, 5], [34], [66, 67, 399]):
            assert pa.table(ds.take(rows)).equals(expected_rows(expected, rows)), rows
        assert pa.table(ds[33]).equals(expected.slice(33, 1))
        assert pa.table(ds[30:35]).equals(expected.slice(30, 5))


def test_rows_over_http_fetch_their_pages(tmp_path, nginx):
    table = tensor_table()
    name = "pages.parquet"
    write(table, nginx.root / name, "pyarrow")
    size = (nginx.root / name).stat().st_size
    rows = [2, 3998, 1500]
    with qv.dataset(f"{nginx.url}/{name}") as ds:
        assert pa.table(ds.take(rows)).equals(expected_rows(table, rows))
    with qv.dataset(f"{nginx.url}/{name}", columns=["image", "name"]) as ds:
        assert pa.table(ds.take(rows)).equals(expected_rows(table.select(["image", "name"]), rows))
        assert ds.cache_stats()["bytes_fetched"] < size / 6


def test_pyarrows_empty_pages_in_list_columns(tmp_path):
    # With small pages pyarrow writes a data page of no values before a list
    # column's last page; its offset index gives both the same first row.
    table = pa.table({"l": pa.array([[i, i] for i in range(25)], pa.list_(pa.int64()))})
    path = tmp_path / "empty_page.parquet"
    pq.write_table(table, path, write_page_index=True, data_page_size=1, write_batch_size=1)
    f = qv.parquet.ParquetFile(path)
    starts = [p["first_row_index"] for p in f.offset_index(0, 0)]
    assert len(starts) > len(set(starts))  # the empty page is there
    for first in range(25):
        for count in (0, 1, 2, 25 - first):
            if first + count <= 25:
                got = pa.Table.from_batches([pa.record_batch(f.read_row_range(0, first, count))])
                assert got.equals(table.slice(first, count)), (first, count)
    with qv.dataset(path) as ds:
        assert pa.table(ds.take([24, 3, 23])).equals(expected_rows(table, [24, 3, 23]))
        assert pa.table(ds[22:25]).equals(table.slice(22, 3))
