"""quiver.parquet.ParquetWriter: a Parquet file written a table or batch at
a time, each call's rows in row groups, read equal by pyarrow and quiver;
the file put in place only by close(); tables of another schema refused
with the writer still usable; and the calls after close()."""

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def tensors(start, count):
    values = np.arange(start * 6, (start + count) * 6, dtype=np.float32).reshape(count, 2, 3)
    images = qv.FixedShapeTensorArray.from_numpy(values)
    return pa.table({"id": np.arange(start, start + count), "x": pa.array(images)})


def test_tables_and_batches_become_row_groups_in_order(tmp_path):
    path = tmp_path / "out.parquet"
    first = tensors(0, 5)
    with qv.parquet.ParquetWriter(path, first.schema, row_group_size=2) as writer:
        writer.write_table(first)  # 2 + 2 + 1 rows
        writer.write_batch(tensors(5, 3).to_batches()[0])  # 2 + 1
        writer.write(qv.table(tensors(8, 1)))  # 1
        # A table of many small chunks is cut by rows, not by chunks.
        writer.write_table(pa.concat_tables([tensors(9, 1)] * 3))  # 2 + 1
    metadata = pq.ParquetFile(path).metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [
        2, 2, 1, 2, 1, 1, 2, 1,
    ]  # fmt: skip
    expected = pa.concat_tables([tensors(0, 9)] + [tensors(9, 1)] * 3)
    theirs = pq.read_table(path)
    assert theirs.column("x").type == expected.column("x").type
    assert theirs.equals(expected)
    ours = pa.table(qv.parquet.read_table(path))
    assert ours.equals(expected)


def test_the_file_appears_only_when_closed(tmp_path):
    path = tmp_path / "out.parquet"
    writer = qv.parquet.ParquetWriter(path, tensors(0, 1).schema, compression="zstd")
    writer.write_table(tensors(0, 4))
    assert not path.exists()
    writer.close()
    writer.close()  # a second close says what the first did
    assert pq.read_table(path).equals(tensors(0, 4))
    with pytest.raises(ValueError, match="the Parquet writer is closed"):
        writer.write_table(tensors(0, 1))


def test_an_exception_in_the_block_leaves_no_file(tmp_path):
    path = tmp_path / "out.parquet"
    path.write_bytes(b"the file before")
    with pytest.raises(RuntimeError, match="stop"):
        with qv.parquet.ParquetWriter(path, tensors(0, 1).schema) as writer:
            writer.write_table(tensors(0, 2))
            raise RuntimeError("stop")
    assert path.read_bytes() == b"the file before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet"]


def test_a_file_object_gets_the_footer(tmp_path):
    import io

    sink = io.BytesIO()
    with qv.parquet.ParquetWriter(sink, tensors(0, 1).schema) as writer:
        writer.write_table(tensors(0, 3))
    assert pq.read_table(io.BytesIO(sink.getvalue())).equals(tensors(0, 3))


def test_another_schema_is_refused_and_the_writer_goes_on(tmp_path):
    path = tmp_path / "out.parquet"
    with qv.parquet.ParquetWriter(path, pa.schema([("a", pa.int32())])) as writer:
        with pytest.raises(TypeError, match=r"column 0 \(a\) is float64, .* says int32"):
            writer.write_table(pa.table({"a": [1.5]}))
        with pytest.raises(TypeError, match="the table has 2 columns"):
            writer.write_table(pa.table({"a": pa.array([1], pa.int32()), "b": [2]}))
        writer.write_table(pa.table({"a": pa.array([7], pa.int32())}))
    assert pq.read_table(path).column("a").to_pylist() == [7]


def test_bad_options_and_types_leave_nothing(tmp_path):
    path = tmp_path / "out.parquet"
    schema = pa.schema([("a", pa.int32())])
    with pytest.raises(ValueError, match="brotli"):
        qv.parquet.ParquetWriter(path, schema, compression="brotli")
    with pytest.raises(ValueError, match="row_group_rows must be positive"):
        qv.parquet.ParquetWriter(path, schema, row_group_size=0)
    with pytest.raises(TypeError, match="Parquet cannot hold"):
        qv.parquet.ParquetWriter(
            path, pa.schema([("u", pa.dense_union([pa.field("i", pa.int8())]))])
        )
    with pytest.raises(TypeError, match="where must be a path or a writable binary file"):
        qv.parquet.ParquetWriter(3, schema)
    assert list(tmp_path.iterdir()) == []


def test_an_empty_file_has_the_schema_and_no_row_groups(tmp_path):
    path = tmp_path / "out.parquet"
    schema = tensors(0, 1).schema
    qv.parquet.ParquetWriter(path, schema).close()
    assert pq.ParquetFile(path).metadata.num_row_groups == 0
    assert pq.read_table(path).schema.equals(schema)
    assert qv.parquet.read_table(path).num_rows == 0


def test_names_and_nullability_must_match_the_schema(tmp_path):
    path = tmp_path / "out.parquet"
    schema = pa.schema([("price", pa.float64()), pa.field("qty", pa.float64(), nullable=False)])
    with qv.parquet.ParquetWriter(path, schema) as writer:
        swapped = pa.table({"qty": [1.0], "price": [9.5]})
        with pytest.raises(TypeError, match="column 0 is named 'qty', .* names it 'price'"):
            writer.write_table(swapped)
        nullable = pa.table(
            {"price": [1.0], "qty": [None]}, schema=schema.set(1, schema[1].with_nullable(True))
        )
        with pytest.raises(TypeError, match=r"column 1 \(qty\) is nullable, .* not nullable"):
            writer.write_table(nullable)
        writer.write_table(pa.table({"price": [9.5], "qty": [1.0]}, schema=schema))
    assert pq.read_table(path).to_pylist() == [{"price": 9.5, "qty": 1.0}]


def test_a_row_group_refused_before_its_first_byte_leaves_the_writer_usable(tmp_path):
    # Two int8 dictionaries that join to 200 entries cannot make one row
    # group's column: refused before anything is written, so the rows
    # before and after it are kept.
    path = tmp_path / "out.parquet"
    index_type = pa.dictionary(pa.int8(), pa.string())
    schema = pa.schema([("c", index_type)])

    def part(words):
        indices = pa.array(range(len(words)), pa.int8())
        return pa.DictionaryArray.from_arrays(indices, pa.array(words))

    good = pa.table({"c": part(["a"])})
    chunks = [part([f"x{i}" for i in range(100)]), part([f"y{i}" for i in range(100)])]
    too_many = pa.Table.from_arrays([pa.chunked_array(chunks)], schema=schema)
    with qv.parquet.ParquetWriter(path, schema) as writer:
        writer.write_table(good)
        with pytest.raises(ValueError):
            writer.write_table(too_many)
        writer.write_table(good)
    assert pq.read_table(path).column("c").to_pylist() == ["a", "a"]


@pytest.mark.parametrize(
    "option, value, error, message",
    [
        ("row_group_size", 2.5, TypeError, "row_group_size must be an int, not float"),
        ("row_group_size", "2", TypeError, "row_group_size must be an int, not str"),
        ("data_page_size", 2**70, ValueError, "data_page_size is out of range"),
        ("compression_level", 2**40, ValueError, "compression_level is out of range"),
        ("use_dictionary", 1, TypeError, "must be bools"),
        ("compression", 3, TypeError, "compression must be a str"),
    ],
)
def test_options_of_the_wrong_type_are_named(tmp_path, option, value, error, message):
    table = pa.table({"a": [1]})
    with pytest.raises(error, match=message):
        qv.parquet.write_table(table, tmp_path / "a.parquet", **{option: value})
    with pytest.raises(error, match=message):
        qv.parquet.ParquetWriter(tmp_path / "b.parquet", table.schema, **{option: value})
    assert list(tmp_path.iterdir()) == []


def test_a_schema_of_none_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="schema must be a qv.Schema"):
        qv.parquet.ParquetWriter(tmp_path / "out.parquet", None)


def test_page_indexes_of_every_row_group_are_written_at_close(tmp_path):
    path = tmp_path / "out.parquet"
    with qv.parquet.ParquetWriter(
        path, tensors(0, 1).schema, write_page_index=True, data_page_size=64
    ) as writer:
        writer.write_table(tensors(0, 40))
        writer.write_table(tensors(40, 40))
    f = qv.parquet.ParquetFile(path)
    assert f.num_row_groups == 2
    for g in range(2):
        pages = f.offset_index(g, "id")
        assert len(pages) > 1 and pages[0]["first_row_index"] == 0
        assert f.column_index(g, "id")["boundary_order"] == "ascending"
    metadata = pq.ParquetFile(path).metadata
    assert metadata.row_group(1).column(0).has_offset_index
    assert pq.read_table(path).equals(tensors(0, 80))


def test_dicts_of_columns_are_tables_as_qv_table_makes_them(tmp_path):
    columns = {"a": np.arange(3), "b": ["x", "y", "z"]}
    qv.parquet.write_table(columns, tmp_path / "one.parquet")
    with qv.parquet.ParquetWriter(tmp_path / "many.parquet", qv.table(columns).schema) as writer:
        writer.write_table(columns)
        writer.write(columns)
    assert pq.read_table(tmp_path / "one.parquet").to_pydict() == {
        "a": [0, 1, 2],
        "b": ["x", "y", "z"],
    }
    assert pq.read_table(tmp_path / "many.parquet").num_rows == 6
