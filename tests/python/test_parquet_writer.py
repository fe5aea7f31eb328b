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
