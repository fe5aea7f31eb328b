"""quiver.safetensors.read_table / write_table: a safetensors file as a
one-row qv.Table of fixed_shape_tensor columns viewing the mapped file, and
back; files the safetensors package writes and reads, the Arrow file
pyarrow reads, and the errors a table of another form gets."""

import gc

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

st_numpy = pytest.importorskip("safetensors.numpy")


def weights():
    rng = np.random.default_rng(1)
    return {
        "embed": rng.standard_normal((5, 4)).astype(np.float32),
        "bias": rng.standard_normal(4).astype(np.float16),
        "steps": np.arange(3, dtype=np.int64),
        "mask": np.array([[True, False], [False, True]]),
        "scalar": np.array(2.5, dtype=np.float64),
        "empty": np.zeros((0, 3), dtype=np.int32),
    }


def address(array):
    return array.__array_interface__["data"][0]


def column_numpy(table, name):
    """The column's one row as NumPy (shape = the tensor's)."""
    return table.column(name).chunk(0).to_numpy()[0, ...]


def test_columns_view_the_mapped_file(tmp_path):
    path = tmp_path / "m.safetensors"
    st_numpy.save_file(weights(), str(path), metadata={"format": "np"})
    with qv.safetensors.open(path) as f:
        table = qv.safetensors.read_table(f)
        assert table.num_rows == 1 and table.column_names == f.keys()
        for name in f.keys():
            if f.shape(name) == (0, 3):
                continue  # no bytes to point at
            # The same bytes as the file's own view: nothing was copied.
            assert address(column_numpy(table, name)) == address(f.get_tensor(name))
    # From a path: the columns lie back to back as the header places them.
    table = qv.safetensors.read_table(str(path))
    with qv.safetensors.open(path) as f:
        first = f.keys()[0]
        begin0 = f._entry(first)[2]
        base = address(column_numpy(table, first))
        for name in f.keys():
            if f.shape(name) != (0, 3):
                offset = f._entry(name)[2] - begin0
                assert address(column_numpy(table, name)) == base + offset
    # The table keeps the mapping alive once everything else is gone.
    del f
    gc.collect()
    np.testing.assert_array_equal(column_numpy(table, "embed"), weights()["embed"])


def test_dtype_shape_and_metadata_are_kept(tmp_path):
    path = tmp_path / "m.safetensors"
    st_numpy.save_file(weights(), str(path), metadata={"format": "np", "é": "ü"})
    table = qv.safetensors.read_table(path)
    arrow = pa.table(table)
    assert arrow.schema.metadata == {b"format": b"np", "é".encode(): "ü".encode()}
    assert arrow.schema.field("bias").metadata == {b"safetensors.dtype": b"F16"}
    assert arrow.schema.field("mask").metadata == {b"safetensors.dtype": b"BOOL"}
    for name, expected in weights().items():
        got = column_numpy(table, name)
        assert got.shape == expected.shape and got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected)


def test_files_round_trip_with_the_safetensors_package(tmp_path):
    # Written by the package, read as a table, written back by quiver:
    # the same bytes, and the package reads it equal.
    original = tmp_path / "m.safetensors"
    st_numpy.save_file(weights(), str(original), metadata={"format": "np"})
    again = tmp_path / "again.safetensors"
    assert qv.safetensors.write_table(qv.safetensors.read_table(original), again) == 6
    assert again.read_bytes() == original.read_bytes()
    batch = tmp_path / "batch.safetensors"  # a qv.RecordBatch does as well
    qv.safetensors.write_table(qv.safetensors.read_table(original).to_batches()[0], batch)
    assert batch.read_bytes() == original.read_bytes()
    loaded = st_numpy.load_file(str(again))
    for name, expected in weights().items():
        assert loaded[name].shape == expected.shape and loaded[name].dtype == expected.dtype
        np.testing.assert_array_equal(loaded[name], expected)
    # A table quiver builds itself, read by the package.
    built = qv.table({"w": np.arange(12, dtype=np.float32).reshape(1, 3, 4)})
    out = tmp_path / "built.safetensors"
    qv.safetensors.write_table(built, out, metadata={"by": "quiver"})
    with st_numpy.safe_open(str(out), framework="numpy") as f:
        assert f.metadata() == {"by": "quiver"}
        np.testing.assert_array_equal(f.get_tensor("w"), np.arange(12).reshape(3, 4))


def test_pyarrow_reads_the_converted_arrow_file(tmp_path):
    original = tmp_path / "m.safetensors"
    st_numpy.save_file(weights(), str(original), metadata={"format": "np"})
    arrow_path = tmp_path / "m.arrow"
    qv.ipc.write_file(qv.safetensors.read_table(original), str(arrow_path))
    with pa.ipc.open_file(arrow_path) as reader:
        arrow = reader.read_all()
    assert arrow.num_rows == 1 and arrow.schema.metadata == {b"format": b"np"}
    for name, expected in weights().items():
        column = arrow.column(name).chunk(0)
        assert isinstance(column.type, pa.FixedShapeTensorType)
        assert list(column.type.shape) == list(expected.shape)
        if expected.dtype == np.bool_:  # pyarrow makes no ndarray of bool8 cells
            values = column.storage.flatten().storage.to_numpy().astype(bool)
        else:
            values = column.to_numpy_ndarray()[0]
        np.testing.assert_array_equal(values.reshape(expected.shape), expected)
    # pyarrow's table back to safetensors (through the C stream, no copy).
    back = tmp_path / "back.safetensors"
    qv.safetensors.write_table(arrow, back)
    assert back.read_bytes() == original.read_bytes()


def test_bfloat16_keeps_its_meaning_through_a_table(tmp_path):
    torch = pytest.importorskip("torch")
    import safetensors.torch as st_torch

    values = torch.tensor([[1.5, -2.0], [0.25, 3.0]], dtype=torch.bfloat16)
    original = tmp_path / "m.safetensors"
    st_torch.save_file({"w": values}, str(original))
    table = qv.safetensors.read_table(original)
    assert pa.table(table).schema.field("w").metadata == {b"safetensors.dtype": b"BF16"}
    back = tmp_path / "back.safetensors"
    qv.safetensors.write_table(table, back)
    loaded = st_torch.load_file(str(back))["w"]
    assert loaded.dtype == torch.bfloat16 and torch.equal(loaded, values)


def test_permuted_and_chunked_columns_are_written_row_major(tmp_path):
    nd = np.arange(24, dtype=np.int32).reshape(1, 2, 3, 4).transpose(0, 3, 1, 2)
    column = qv.FixedShapeTensorArray.from_numpy(nd)
    table = qv.concat_tables([qv.table({"p": column[:0]}), qv.table({"p": column})])
    assert table.column("p").num_chunks == 2
    out = tmp_path / "p.safetensors"
    qv.safetensors.write_table(table, out)
    np.testing.assert_array_equal(st_numpy.load_file(str(out))["p"], nd[0])


def test_tables_of_another_form_are_refused(tmp_path):
    out = tmp_path / "out.safetensors"
    two = qv.table({"w": np.zeros((2, 3), np.float32)})
    with pytest.raises(
        ValueError, match="holds 2 rows; a safetensors file is written from exactly one"
    ):
        qv.safetensors.write_table(two, out)
    mixed = qv.table({"w": np.zeros((1, 3), np.float32), "id": np.array([7])})
    with pytest.raises(ValueError, match="column 'id' is int64, not a fixed_shape_tensor"):
        qv.safetensors.write_table(mixed, out)
    tensor_type = pa.array(qv.FixedShapeTensorArray.from_numpy(np.zeros((1, 2)))).type
    null_row = pa.ExtensionArray.from_storage(
        tensor_type, pa.array([None], type=tensor_type.storage_type)
    )
    with pytest.raises(ValueError, match="column 'w': row 0 is null"):
        qv.safetensors.write_table(pa.table({"w": null_row}), out)
    with pytest.raises(TypeError, match="metadata= is a dict of str to str"):
        qv.safetensors.write_table(qv.table({"w": np.zeros((1, 3))}), out, metadata={"k": 1})
    with pytest.raises(TypeError, match="write_table"):
        qv.safetensors.save(qv.table({"w": np.zeros((1, 3))}), out)
    with pytest.raises(TypeError, match="write_table\\(\\) takes a qv.Table.*got dict"):
        qv.safetensors.write_table({"w": np.zeros((1, 3))}, out)
    assert not out.exists()  # nothing half-written by any refusal
    with pytest.raises(OSError, match="missing.safetensors"):
        qv.safetensors.read_table(tmp_path / "missing.safetensors")
