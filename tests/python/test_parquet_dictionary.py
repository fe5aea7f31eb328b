"""Dictionary columns in Parquet: a column read as an Arrow dictionary takes
the row group's dictionary page entry for entry (categories no row uses and
the order of an ordered dictionary survive), the writer opens a chunk's
dictionary page with the Arrow dictionary's entries, and the loader reads a
file of many row groups that share one dictionary."""

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

CATEGORIES = ["zebra", "ant", "moth", "unused", "bee"]


def categorical(indices, categories=CATEGORIES, index_type=None, ordered=True, mask=None):
    index_type = index_type or pa.int8()
    return pa.DictionaryArray.from_arrays(
        pa.array(indices, index_type, mask=mask), pa.array(categories), ordered=ordered
    )


def chunks_of(table, name):
    return table.column(name).chunks


def test_each_row_group_keeps_the_dictionary_page_in_order(tmp_path):
    indices = [2, 0, 2, 1, 0, 2, 4, 0]
    table = pa.table({"c": categorical(indices * 3)})
    path = tmp_path / "d.parquet"
    pq.write_table(table, path, row_group_size=8)
    ours = pa.table(qv.parquet.read_table(path))
    theirs = pq.read_table(path)
    assert ours.column("c").type == theirs.column("c").type
    assert ours.column("c").type.ordered
    assert len(chunks_of(ours, "c")) == 3
    for a, b in zip(chunks_of(ours, "c"), chunks_of(theirs, "c")):
        # The unused category stays, at its place.
        assert a.dictionary.to_pylist() == CATEGORIES == b.dictionary.to_pylist()
        assert a.indices.to_pylist() == b.indices.to_pylist() == indices


@pytest.mark.parametrize("index_type", [pa.int8(), pa.int16(), pa.int32(), pa.int64()])
@pytest.mark.parametrize(
    "values",
    [
        pa.array([30, 10, 20, 99], pa.int32()),
        pa.array([3.5, -1.0, 2.25, 8.0], pa.float64()),
        pa.array([b"\x03", b"", b"\x01\x02", b"zz"], pa.binary()),
        pa.array(["c", "a", "b", "never"], pa.large_string()),
    ],
    ids=["int32", "float64", "binary", "large_string"],
)
def test_value_and_index_types_keep_their_entries(tmp_path, index_type, values):
    indices = pa.array([2, 0, None, 2, 1], index_type)
    column = pa.DictionaryArray.from_arrays(indices, values)
    path = tmp_path / "d.parquet"
    qv.parquet.write_table(pa.table({"c": column}), path)
    got = pa.table(qv.parquet.read_table(path)).column("c").chunk(0)
    assert got.type == column.type
    assert got.dictionary.equals(values)
    assert got.indices.to_pylist() == indices.to_pylist()
    decoded = pq.read_table(path).column("c").chunk(0)
    if pa.types.is_dictionary(decoded.type):  # pyarrow keeps binary dictionaries only
        decoded = decoded.cast(values.type)
    assert decoded.to_pylist() == column.cast(values.type).to_pylist()


def test_a_chunk_that_fell_back_from_its_dictionary_reads_equal(tmp_path):
    # Many distinct strings and a small dictionary limit: the first pages
    # are dictionary-encoded, the rest PLAIN.
    strings = [f"value-{i % 700:04d}" for i in range(3000)]
    table = pa.table({"c": pa.array(strings).dictionary_encode()})
    path = tmp_path / "d.parquet"
    pq.write_table(table, path, dictionary_pagesize_limit=4000, data_page_size=1000)
    encodings = pq.ParquetFile(path).metadata.row_group(0).column(0).encodings
    assert "PLAIN" in encodings and "RLE_DICTIONARY" in encodings
    got = pa.table(qv.parquet.read_table(path)).column("c")
    assert got.cast(pa.string()).to_pylist() == strings
    for chunk in got.chunks:
        entries = chunk.dictionary.to_pylist()
        assert len(entries) == len(set(entries))  # each value once
        # The dictionary page's entries come first, as the writer put them.
        assert entries[:3] == ["value-0000", "value-0001", "value-0002"]


def test_quiver_writes_the_arrow_dictionary_as_the_dictionary_page(tmp_path):
    indices = [4, 4, 0, 2, None, 0]
    table = pa.table({"c": categorical(indices, mask=np.array([i is None for i in indices]))})
    path = tmp_path / "d.parquet"
    qv.parquet.write_table(table, path)
    theirs = pq.read_table(path).column("c").chunk(0)
    assert theirs.type.ordered
    assert theirs.dictionary.to_pylist() == CATEGORIES
    assert theirs.indices.to_pylist() == indices
    ours = pa.table(qv.parquet.read_table(path)).column("c").chunk(0)
    assert ours.equals(table.column("c").chunk(0))


def test_writing_keeps_dictionaries_inside_structs_and_lists(tmp_path):
    labels = categorical([1, 3, 1])
    table = pa.table(
        {
            "s": pa.StructArray.from_arrays([labels, pa.array([1, 2, 3])], ["label", "n"]),
            "l": pa.ListArray.from_arrays([0, 2, 2, 3], categorical([0, 4, 4])),
        }
    )
    path = tmp_path / "d.parquet"
    qv.parquet.write_table(table, path)
    for reader in (pq.read_table, lambda p: pa.table(qv.parquet.read_table(p))):
        back = reader(path)
        label = back.column("s").chunk(0).field("label")
        assert label.dictionary.to_pylist() == CATEGORIES
        assert label.indices.to_pylist() == [1, 3, 1]
        values = back.column("l").chunk(0).values
        assert values.dictionary.to_pylist() == CATEGORIES
        assert values.indices.to_pylist() == [0, 4, 4]


def test_dictionary_entries_that_are_null_or_repeated_are_left_out(tmp_path):
    # Parquet dictionaries hold no nulls, and a repeated entry stands for
    # one value: the values read back equal, the dictionary without them.
    dictionary = pa.array(["a", None, "b", "a"])
    indices = pa.array([0, 1, 2, 3, 2], pa.int32())
    table = pa.table({"c": pa.DictionaryArray.from_arrays(indices, dictionary)})
    path = tmp_path / "d.parquet"
    qv.parquet.write_table(table, path)
    got = pa.table(qv.parquet.read_table(path)).column("c")
    assert got.cast(pa.string()).to_pylist() == ["a", None, "b", "a", "b"]
    assert got.chunk(0).dictionary.to_pylist() == ["a", "b"]


def test_without_dictionary_encoding_the_values_still_read_back(tmp_path):
    table = pa.table({"c": categorical([3, 1, 1])})
    path = tmp_path / "d.parquet"
    qv.parquet.write_table(table, path, use_dictionary=False)
    got = pa.table(qv.parquet.read_table(path)).column("c")
    assert got.type == table.column("c").type
    # No dictionary page: the values that occur, in the order they occur.
    assert got.chunk(0).dictionary.to_pylist() == ["unused", "ant"]
    assert got.cast(pa.string()).to_pylist() == ["unused", "ant", "ant"]


def test_the_loader_reads_a_dictionary_column_over_many_row_groups(tmp_path):
    import quiver.data

    ids = np.arange(100)
    table = pa.table({"id": ids, "label": categorical(ids % 3 + (ids % 3 == 2))})
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=16)
    reader = quiver.data.BatchReader(str(tmp_path), batch_size=10, shuffle=True, seed=3)
    assert pa.array(reader.dictionary("label")).to_pylist() == CATEGORIES
    seen = []
    for batch in reader:
        expected = [CATEGORIES[i % 3 + (i % 3 == 2)] for i in batch["id"]]
        assert [CATEGORIES[k] for k in batch["label"]] == expected
        seen.extend(batch["id"].tolist())
    assert sorted(seen) == ids.tolist()


def test_a_dictionary_larger_than_its_index_type_counts_reads_its_used_entries(tmp_path):
    # 300 entries, int8 indices, rows using three of them: the page holds
    # all 300; the reader keeps the used ones, in the page's order.
    words = [f"w{i:03d}" for i in range(300)]
    column = pa.DictionaryArray.from_arrays(pa.array([5, 1, 5, 100], pa.int8()), pa.array(words))
    for write in (pq.write_table, qv.parquet.write_table):
        path = tmp_path / "d.parquet"
        write(pa.table({"c": column}), path)
        got = pa.table(qv.parquet.read_table(path)).column("c").chunk(0)
        assert got.type == column.type
        assert got.dictionary.to_pylist() == ["w001", "w005", "w100"]
        assert got.to_pylist() == ["w005", "w001", "w005", "w100"]


def test_an_arrow_dictionary_past_the_page_limit_still_encodes_the_used_values(tmp_path):
    words = [f"category-{i:06d}" for i in range(100_000)]  # about 2 MiB of entries
    column = pa.DictionaryArray.from_arrays(pa.array([7, 7, 99_999] * 10, pa.int32()), words)
    path = tmp_path / "d.parquet"
    qv.parquet.write_table(pa.table({"c": column}), path)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
    assert "RLE_DICTIONARY" in chunk.encodings
    assert chunk.total_compressed_size < 10_000  # not the 2 MiB dictionary
    got = pa.table(qv.parquet.read_table(path)).column("c").chunk(0)
    assert got.dictionary.to_pylist() == [words[7], words[99_999]]
    assert got.to_pylist() == [words[7], words[7], words[99_999]] * 10
