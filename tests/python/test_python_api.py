"""The Python API as NumPy users meet it: the array and buffer protocols,
masked arrays and byte orders, value type names, reprs, comparisons,
to_pylist, record batch columns and messages that name Python arguments."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv


def cells(n=4):
    return np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)


# --- NumPy protocol -------------------------------------------------------------


def test_array_protocol_is_a_zero_copy_view():
    x = cells(100)
    col = qv.FixedShapeTensorArray.from_numpy(x)
    y = np.asarray(col)
    assert (
        y.shape == (100, 2, 3)
        and y.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    )
    assert not y.flags.writeable
    z = np.array(col)  # copy=True
    assert (
        z.flags.writeable and z.__array_interface__["data"][0] != x.__array_interface__["data"][0]
    )
    assert np.asarray(col, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(col, dtype=np.float64, copy=False)
    assert (
        np.asarray(col, copy=False).__array_interface__["data"][0]
        == x.__array_interface__["data"][0]
    )
    t = qv.Tensor.from_numpy(x[0])
    assert np.asarray(t).shape == (2, 3) and np.asarray(t).dtype == np.float32
    assert t.shape == (2, 3) and t.ndim == 2 and t.dtype == np.float32 and len(t) == 2
    assert qv.Tensor.from_numpy(np.array([True])).dtype == np.bool_


@pytest.mark.parametrize(
    "dtype",
    [
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "float16",
        "float32",
        "float64",
        "bool",
    ],
)
def test_buffer_protocol_views_every_value_type(dtype):
    x = (np.arange(24) % 5).astype(dtype).reshape(4, 2, 3)
    for obj in (qv.Tensor.from_numpy(x), qv.FixedShapeTensorArray.from_numpy(x)):
        view = memoryview(obj)
        assert view.readonly and view.shape == (4, 2, 3) and view.strides == x.strides
        assert view.itemsize == x.itemsize
        y = np.asarray(view)
        # The very dtype (numpy.int64, not numpy.longlong), the same memory.
        assert y.dtype.type is x.dtype.type
        assert np.shares_memory(y, x) and np.array_equal(y, x)


def test_buffer_protocol_keeps_strides_and_refuses_what_it_cannot_give():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    permuted = qv.FixedShapeTensorArray.from_numpy(x.transpose(0, 2, 1))  # cells transposed
    y = np.asarray(permuted)
    assert np.array_equal(y, x.transpose(0, 2, 1)) and np.shares_memory(y, x)
    reversed_rows = qv.Tensor.from_numpy(x[::-1])
    assert np.array_equal(np.asarray(reversed_rows), x[::-1])
    assert memoryview(reversed_rows).strides[0] < 0
    # A contiguous view is asked of a strided tensor: refused, not copied.
    with pytest.raises(TypeError, match="contiguous"):
        memoryview(qv.Tensor.from_numpy(x.transpose(2, 1, 0))).cast("B")
    # Writing is refused: the memory is shared Arrow data.
    import struct

    with pytest.raises(TypeError, match="read-write"):
        struct.pack_into("f", qv.Tensor.from_numpy(x), 0, 1.0)
    # Null rows: no buffer, and NumPy goes on to __array__ and its message.
    col = qv.FixedShapeTensorArray.from_numpy(x, mask=np.array([False, True]))
    with pytest.raises(BufferError, match="null"):
        memoryview(col)
    with pytest.raises(ValueError, match="null"):
        np.asarray(col)
    # The view keeps the column's memory alive after the column is gone.
    view = memoryview(qv.Tensor.from_numpy(np.arange(6.0)))
    assert view.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_masked_arrays_make_null_rows():
    x = np.ma.masked_array(cells(), mask=False)
    x[1] = np.ma.masked
    col = qv.FixedShapeTensorArray.from_numpy(x)
    assert col.null_count == 1 and not col.is_valid(1)
    x[2, 0, 1] = np.ma.masked
    with pytest.raises(ValueError, match="row 2 is masked in part"):
        qv.FixedShapeTensorArray.from_numpy(x)
    col = qv.FixedShapeTensorArray.from_numpy(cells(), mask=[False, True, False, True])
    assert [col.is_valid(i) for i in range(4)] == [True, False, True, False]
    rows = [np.ones(3), np.ma.masked_array(np.ones(2), mask=True), np.ma.masked_array(np.ones(2))]
    v = qv.VariableShapeTensorArray.from_numpy(rows)
    assert v.null_count == 1 and v[1] is None and v[2].shape == (2,)
    with pytest.raises(ValueError, match="row 0 is masked in part"):
        qv.VariableShapeTensorArray.from_numpy([np.ma.masked_array(np.ones(2), mask=[True, False])])


def test_non_native_byte_order():
    x = cells().astype(">f4")
    col = qv.FixedShapeTensorArray.from_numpy(x)
    np.testing.assert_array_equal(col.to_numpy(), x)
    assert col.to_numpy().dtype == np.float32
    with pytest.raises(ValueError, match=r">f4 in non-native byte order.*copy=None"):
        qv.FixedShapeTensorArray.from_numpy(x, copy=False)
    v = qv.VariableShapeTensorArray.from_numpy([np.arange(3, dtype=">i8")])
    assert v[0].tolist() == [0, 1, 2]
    assert qv.Tensor.from_numpy(np.arange(3, dtype=">i2")).to_numpy().tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    "bad, name",
    [
        (np.array([["a"]]), "<U1"),
        (np.array([[object()]]), "object"),
        (np.zeros((2, 2), "datetime64[s]"), "datetime64"),
        (np.zeros((1, 1), "m8[ns]"), "timedelta64"),
    ],
)
def test_clear_type_errors_for_unsupported_dtypes(bad, name):
    for build in (
        qv.FixedShapeTensorArray.from_numpy,
        qv.Tensor.from_numpy,
        lambda a: qv.VariableShapeTensorArray.from_numpy([a]),
    ):
        with pytest.raises(TypeError, match=f"dtype {name}"):
            build(bad)


# --- value type names ------------------------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [
        ("bool8", "extension<arrow.bool8"),
        (np.bool_, "extension<arrow.bool8"),
        ("?", "extension<arrow.bool8"),
        ("f4", "float32"),
        (np.float32, "float32"),
        (np.dtype("<i8"), "int64"),
        ("uint16", "uint16"),
        (pa.float16(), "float16"),
        (pa.int32(), "int32"),
        (pa.bool8(), "extension<arrow.bool8"),
    ],
)
def test_value_types_by_every_name(name, expected):
    assert str(qv.type_for(name)).startswith(expected)
    assert qv.fixed_shape_tensor(name, (2,)).value_type == qv.type_for(name)


def test_empty_bool_variable_column():
    col = qv.VariableShapeTensorArray.from_numpy([], type=qv.variable_shape_tensor("bool8", 2))
    assert len(col) == 0 and str(col.type.value_type).startswith("extension<arrow.bool8")


def test_bad_value_type_names():
    with pytest.raises(TypeError, match="unknown value type 'nope'"):
        qv.type_for("nope")
    with pytest.raises(TypeError, match="datetime64"):
        qv.type_for("M8[s]")
    with pytest.raises(TypeError, match="non-native byte order"):
        qv.type_for(">f4")
    with pytest.raises(TypeError, match="needs an object with __arrow_c_schema__"):
        qv.type_from_arrow(5)


# --- reprs and comparisons ------------------------------------------------------


def test_repr_snapshots():
    col = qv.FixedShapeTensorArray.from_numpy(
        np.arange(8, dtype=np.int16).reshape(2, 2, 2), mask=[False, True]
    )
    assert repr(col) == (
        "quiver.FixedShapeTensorArray<fixed_shape_tensor<int16>[2, 2]> length=2 null_count=1\n"
        "[\n"
        "  [[0, 1],\n"
        "   [2, 3]],\n"
        "  null\n"
        "]"
    )
    assert (
        repr(col[:0])
        == "quiver.FixedShapeTensorArray<fixed_shape_tensor<int16>[2, 2]> length=0\n[]"
    )
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.zeros((1, 2), np.uint8), None, np.ones((2, 1), np.uint8)]
    )
    assert repr(ragged) == (
        "quiver.VariableShapeTensorArray<variable_shape_tensor<uint8, ndim=2>> length=3 "
        "null_count=1\n"
        "[\n"
        "  (1, 2) [[0, 0]],\n"
        "  null,\n"
        "  (2, 1) [[1],\n"
        "          [1]]\n"
        "]"
    )
    long = qv.FixedShapeTensorArray.from_numpy(np.arange(20, dtype=np.int64).reshape(10, 2))
    assert repr(long) == (
        "quiver.FixedShapeTensorArray<fixed_shape_tensor<int64>[2]> length=10\n"
        "[\n  [0, 1],\n  [2, 3],\n  [4, 5],\n  ...,\n  [14, 15],\n  [16, 17],\n  [18, 19]\n]"
    )
    wide = qv.VariableShapeTensorArray.from_numpy([np.arange(100)])
    assert "(100,) [ 0,  1, ..., 98, 99]" in repr(wide)
    assert (
        repr(qv.Tensor.from_numpy(np.arange(3.0)))
        == "quiver.Tensor<float64> shape=(3,)\n[0., 1., 2.]"
    )
    assert (
        repr(qv.array(pa.array(["a", None])))
        == "quiver.Array<utf8> length=2 null_count=1\n[\n  'a',\n  None\n]"
    )


def test_equality_by_value():
    a = qv.FixedShapeTensorArray.from_numpy(cells())
    b = qv.FixedShapeTensorArray.from_numpy(cells().copy())
    assert a == b and a.equals(b) and not (a != b)
    assert a != qv.FixedShapeTensorArray.from_numpy(cells() + 1)
    assert a != a[1:] and a != "x"
    # the same logical values with different layouts compare equal
    t = qv.FixedShapeTensorArray.from_numpy(
        np.ascontiguousarray(cells().transpose(0, 2, 1)).transpose(0, 2, 1)
    )
    assert t.type != a.type and t != a  # types differ (permutation)
    v = qv.VariableShapeTensorArray.from_numpy([np.ones(2), None])
    assert v == qv.VariableShapeTensorArray.from_numpy([np.ones(2), None])
    assert v != qv.VariableShapeTensorArray.from_numpy([np.ones(2), np.ones(1)])
    assert qv.Tensor.from_numpy(np.ones(3)) == qv.Tensor.from_numpy(np.ones(3))
    assert qv.array(pa.array([1, None])) == qv.array(pa.array([1, None]))
    with pytest.raises(TypeError):
        hash(a)


def test_to_pylist_and_iteration():
    col = qv.FixedShapeTensorArray.from_numpy(cells(2), mask=[False, True])
    assert col.to_pylist() == [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], None]
    rows = list(col)
    assert rows[1] is None and rows[0].shape == (2, 3)
    v = qv.VariableShapeTensorArray.from_numpy([np.arange(2), None])
    assert v.to_pylist() == [[0, 1], None] and [r if r is None else r.tolist() for r in v] == [
        [0, 1],
        None,
    ]
    assert qv.array(pa.array([[1], None, []])).to_pylist() == [[1], None, []]


def test_record_batch_columns():
    col = qv.FixedShapeTensorArray.from_numpy(cells(3))
    batch = pa.RecordBatch.from_arrays([pa.array(col), pa.array([1, 2, 3])], names=["img", "label"])
    imported = qv.array(batch)
    assert imported.num_fields == 2 and imported.field_names == ["img", "label"]
    assert isinstance(imported["img"], qv.FixedShapeTensorArray) and imported["img"] == col
    assert imported[1:]["img"] == col[1:]
    assert imported.field(1).to_pylist() == [1, 2, 3]
    with pytest.raises(KeyError, match="no field named 'x'"):
        imported["x"]


def test_messages_name_python_arguments():
    col = qv.FixedShapeTensorArray.from_numpy(cells(), mask=[True, False, False, False])
    with pytest.raises(ValueError) as info:
        col.to_numpy()
    assert "allow_nulls=True" in str(info.value) and "NullPolicy" not in str(info.value)
    with pytest.raises(ValueError) as info:
        qv.FixedShapeTensorArray.from_numpy(np.ones((2, 4))[:, ::2], copy=False)
    assert "copy=None" in str(info.value) and "CopyMode" not in str(info.value)
    t = qv.Tensor.from_numpy(np.ones(3))
    with pytest.raises(TypeError, match="dl_device must be a .device_type, device_id. tuple"):
        t.__dlpack__(dl_device="cpu")
    with pytest.raises(TypeError, match="copy must be None, True or False, got 'yes'"):
        t.__dlpack__(copy="yes")
    with pytest.raises(TypeError, match="copy must be None, True or False"):
        qv.from_dlpack(np.ones(2), copy="yes")
    with pytest.raises(TypeError, match="copy must be None, True or False"):
        qv.FixedShapeTensorArray.from_numpy(cells(), copy="yes")
