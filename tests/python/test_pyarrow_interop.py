"""Round trips with pyarrow through the Arrow PyCapsule protocol."""

import ctypes
import json

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
from conftest import NUMERIC_DTYPES, CapsuleProducer, capsule_pointer, sample

PERMUTATIONS = [None, [1, 0], [2, 0, 1], [1, 2, 0], [0, 2, 1]]


def pa_tensor_array(dtype, cell_shape, n=4, permutation=None, dim_names=None, nulls=None):
    values = sample(dtype, (n,) + tuple(cell_shape))
    t = pa.fixed_shape_tensor(
        pa.from_numpy_dtype(np.dtype(dtype)),
        cell_shape,
        dim_names=dim_names,
        permutation=permutation,
    )
    mask = None if nulls is None else pa.array([i in nulls for i in range(n)])
    storage = pa.FixedSizeListArray.from_arrays(
        pa.array(values.reshape(-1)), int(np.prod(cell_shape)), mask=mask
    )
    return pa.ExtensionArray.from_storage(t, storage), values


def assert_same_tensor_array(ours, theirs):
    """Values, validity and metadata agree between a quiver and a pyarrow array."""
    assert len(ours) == len(theirs)
    assert ours.null_count == theirs.null_count
    assert [ours.is_valid(i) for i in range(len(ours))] == theirs.is_valid().to_pylist()
    metadata = json.loads(ours.type.serialize())
    assert metadata["shape"] == list(theirs.type.shape)
    assert metadata.get("dim_names") == (theirs.type.dim_names or None)
    assert metadata.get("permutation") == (theirs.type.permutation or None)


def shape_for(permutation):
    return (2, 3) if permutation is not None and len(permutation) == 2 else (2, 3, 4)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("permutation", PERMUTATIONS)
def test_pyarrow_to_quiver_and_back(dtype, permutation):
    shape = shape_for(permutation)
    names = ["d%d" % i for i in range(len(shape))]
    theirs, values = pa_tensor_array(
        dtype, shape, permutation=permutation, dim_names=names, nulls={2}
    )
    ours = qv.array(theirs)
    assert isinstance(ours, qv.FixedShapeTensorArray)
    assert_same_tensor_array(ours, theirs)
    assert ours.type.dim_names == names
    physical = ours.to_numpy(allow_nulls=True).transpose(
        np.argsort([0] + [p + 1 for p in (permutation or range(len(shape)))])
    )
    np.testing.assert_array_equal(physical[[0, 1, 3]], values[[0, 1, 3]])
    back = pa.array(ours)
    assert back.type == theirs.type
    assert back.equals(theirs)
    # Zero-copy both ways: the same values buffer.
    assert back.storage.values.buffers()[1].address == theirs.storage.values.buffers()[1].address


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("permutation", PERMUTATIONS)
def test_quiver_to_pyarrow_and_back(dtype, permutation):
    shape = shape_for(permutation)
    physical = sample(dtype, (5,) + shape)
    logical = physical.transpose([0] + [p + 1 for p in (permutation or range(len(shape)))])
    ours = qv.FixedShapeTensorArray.from_numpy(logical, copy=False)
    assert ours.type.permutation == permutation
    theirs = pa.array(ours)
    assert isinstance(theirs, pa.FixedShapeTensorArray)
    assert_same_tensor_array(ours, theirs)
    # pyarrow sees the physical row-major cells.
    np.testing.assert_array_equal(theirs.storage.flatten().to_numpy(), physical.reshape(-1))
    again = qv.array(theirs)
    assert again.type == ours.type
    np.testing.assert_array_equal(again.to_numpy(), logical)


def test_sliced_with_nulls_round_trips():
    theirs, values = pa_tensor_array("float32", (2, 2), n=6, nulls={1, 4}, dim_names=["r", "c"])
    sliced = theirs.slice(1, 4)
    ours = qv.array(sliced)
    assert ours.offset == 1
    assert ours.null_count == 2
    assert [ours.is_valid(i) for i in range(4)] == [False, True, True, False]
    with pytest.raises(ValueError, match="row 0 is null"):
        ours.to_numpy()
    with pytest.raises(ValueError, match="row 3 is null"):
        ours[3]
    np.testing.assert_array_equal(ours[1], values[2])
    np.testing.assert_array_equal(ours.to_numpy(allow_nulls=True)[1:3], values[2:4])
    back = pa.array(ours)
    assert back.equals(sliced)
    ours_sliced = qv.array(theirs)[2:5]
    assert pa.array(ours_sliced).equals(theirs.slice(2, 3))


@pytest.mark.parametrize(
    "theirs",
    [
        pa.array([1, None, -3], pa.int64()),
        pa.array([0.5, None], pa.float32()),
        pa.array(np.array([1, 2], dtype=np.float16)),
        pa.array([True, None, False]),
        pa.array(["héllo", None, ""]),
        pa.array(["a", "bb"], pa.large_string()),
        pa.array([b"\x00\x01", None], pa.binary()),
        pa.array([b"ab", b"cd"], pa.binary(2)),
        pa.array([[1, 2], None, [], [3]], pa.list_(pa.int32())),
        pa.array([[1.0], [2.0, 3.0]], pa.large_list(pa.float64())),
        pa.array([[1, 2], [3, 4]], pa.list_(pa.int8(), 2)),
        pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}]),
        pa.array([[{"x": [1]}], []], pa.list_(pa.struct([("x", pa.list_(pa.int16()))]))),
        pa.array([1, 2, 3, 4, 5], pa.uint32()).slice(1, 3),
        pa.array(["a", None, "ccc", "dd"]).slice(1, 3),
    ],
    ids=lambda a: str(a.type),
)
def test_plain_arrays_round_trip(theirs):
    ours = qv.array(theirs)
    assert isinstance(ours, qv.Array)
    assert len(ours) == len(theirs)
    assert ours.null_count == theirs.null_count
    assert str(ours.type) != ""
    back = pa.array(ours)
    assert back.type == theirs.type
    assert back.equals(theirs)
    assert back.to_pylist() == theirs.to_pylist()
    assert qv.type_from_arrow(theirs.type) == ours.type
    sliced = ours[1:]
    assert pa.array(sliced).equals(theirs.slice(1))


def test_field_metadata_and_extension_type_schema():
    t = qv.fixed_shape_tensor("int16", (2, 2), dim_names=["x", "y"], permutation=[1, 0])
    pa_type = pa.DataType._import_from_c_capsule(t.__arrow_c_schema__())
    assert pa_type == pa.fixed_shape_tensor(
        pa.int16(), (2, 2), dim_names=["x", "y"], permutation=[1, 0]
    )
    assert qv.type_from_arrow(pa_type) == t


def test_requested_schema():
    ours = qv.array(pa.array([1, 2]))
    schema, array = ours.__arrow_c_array__(requested_schema=pa.int64().__arrow_c_schema__())
    assert pa.Array._import_from_c_capsule(schema, array).to_pylist() == [1, 2]
    # Best-effort (PyCapsule protocol): a schema quiver cannot provide gets its own type.
    schema, array = ours.__arrow_c_array__(requested_schema=pa.int32().__arrow_c_schema__())
    assert pa.Array._import_from_c_capsule(schema, array).type == pa.int64()


def test_unconsumed_capsules_are_released():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    a = qv.FixedShapeTensorArray.from_numpy(x)
    for _ in range(100):
        a.__arrow_c_array__()  # dropped without consumption
    assert a.to_numpy().ctypes.data == x.ctypes.data


# --- bad input --------------------------------------------------------------


def producer_with_metadata(extension_metadata, storage):
    field = pa.field(
        "t",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.fixed_shape_tensor",
            "ARROW:extension:metadata": extension_metadata,
        },
    )
    return CapsuleProducer(field.__arrow_c_schema__(), storage.__arrow_c_array__()[1])


STORAGE_6 = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype=np.float32)), 6)


@pytest.mark.parametrize(
    "metadata, storage, error, match",
    [
        ('{"shape": [2, 3', STORAGE_6, ValueError, "not valid JSON"),
        ('"shape"', STORAGE_6, ValueError, "must be a JSON object"),
        ('{"dim_names": ["a"]}', STORAGE_6, ValueError, "has no 'shape'"),
        ('{"shape": [2, 2]}', STORAGE_6, ValueError, "storage list size is 6"),
        ('{"shape": [-2, -3]}', STORAGE_6, ValueError, "negative size -2"),
        (
            '{"shape": [4294967296, 4294967296, 4294967296]}',
            STORAGE_6,
            ValueError,
            "overflows int64",
        ),
        (
            '{"shape": [2, 3], "permutation": [1, 1]}',
            STORAGE_6,
            ValueError,
            "permutation \\[1, 1\\] is not a permutation of 0..1: entry 1 repeats 1",
        ),
        (
            '{"shape": [2, 3], "permutation": [0]}',
            STORAGE_6,
            ValueError,
            "1 entries for 2 dimensions",
        ),
        ('{"shape": [2, 3], "dim_names": ["a", 2]}', STORAGE_6, ValueError, "must be a string"),
        (
            '{"shape": [6]}',
            pa.array([[1.0] * 6, [2.0] * 6]),
            TypeError,
            "storage must be a fixed_size_list",
        ),
        (
            '{"shape": [1]}',
            pa.array([["a"], ["b"]], pa.list_(pa.string(), 1)),
            TypeError,
            "value type must be numeric, bool or bool8",
        ),
    ],
)
def test_bad_extension_metadata(metadata, storage, error, match):
    with pytest.raises(error, match=match):
        qv.array(producer_with_metadata(metadata, storage))


def test_wrong_buffer_count_is_rejected():
    schema, array = pa.array([1, 2, 3], pa.int32()).__arrow_c_array__()
    n_buffers = ctypes.cast(
        capsule_pointer(array, b"arrow_array") + 24, ctypes.POINTER(ctypes.c_int64)
    )
    n_buffers[0] = 1
    with pytest.raises(ValueError, match="ArrowArray of type int32 has 1 buffers, expected 2"):
        qv.array(CapsuleProducer(schema, array))


def test_already_released_capsules_are_rejected():
    producer = CapsuleProducer(*pa.array([1, 2]).__arrow_c_array__())
    qv.array(producer)  # consumes both structs
    with pytest.raises(ValueError, match="already released"):
        qv.array(producer)


def test_wrong_capsule_names_and_objects():
    schema, array = pa.array([1]).__arrow_c_array__()
    with pytest.raises(TypeError, match="named 'arrow_schema'"):
        qv.array(CapsuleProducer(array, schema))
    with pytest.raises(TypeError, match="needs an object with __arrow_c_array__"):
        qv.array([1, 2, 3])

    class Broken:
        def __arrow_c_array__(self, requested_schema=None):
            raise AttributeError("inside the producer")

    with pytest.raises(AttributeError, match="inside the producer"):
        qv.array(Broken())


def test_invalid_offsets_are_caught_by_full_validation():
    theirs = pa.array(["ab", "cd"])
    _, offsets, data = theirs.buffers()
    bad_offsets = pa.py_buffer(np.array([0, 3, 2], dtype=np.int32).tobytes())
    broken = pa.Array.from_buffers(pa.utf8(), 2, [None, bad_offsets, data])
    with pytest.raises(ValueError, match=r"offset 2 \(2\) < offset 1 \(3\)"):
        qv.array(broken)


def cells(n=4):
    return np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)


def test_requested_schema_is_best_effort():
    col = qv.FixedShapeTensorArray.from_numpy(cells())
    ext = pa.fixed_shape_tensor(pa.float32(), [2, 3])
    theirs = pa.array(col, type=ext)  # pyarrow asks for the storage type
    assert theirs.type == ext.storage_type
    np.testing.assert_array_equal(np.asarray(theirs.flatten()), cells().ravel())
    table = pa.table({"x": col}, schema=pa.schema([("x", ext)]))
    assert table.schema.field("x").type == ext
    schema, array = col.__arrow_c_array__(pa.int8().__arrow_c_schema__())
    assert pa.Array._import_from_c_capsule(schema, array).type == ext  # own type


def test_identity_permutation_equals_none():
    col = qv.FixedShapeTensorArray.from_numpy(cells())
    ext = pa.fixed_shape_tensor(pa.float32(), [2, 3], permutation=[0, 1])
    theirs = qv.array(pa.ExtensionArray.from_storage(ext, pa.array(col).storage))
    assert theirs.type == col.type and hash(theirs.type) == hash(col.type)
    assert "permutation" in theirs.type.serialize()  # kept as read
    assert len(qv.concat([theirs, col])) == 8
    v = qv.VariableShapeTensorArray.from_numpy([np.ones((2, 2))])
    w = qv.VariableShapeTensorArray.from_numpy([np.ones((1, 2))], permutation=[0, 1])
    assert v.type == w.type and len(qv.concat([v, w])) == 2


def test_an_empty_result_of_a_sliced_chunk_concatenates_in_pyarrow():
    # A filter keeping no row of a chunk that starts at an offset: the empty
    # array goes out at offset 0, so pyarrow's concatenation of it (whose
    # buffers pyarrow imports as empty) does not slice past their end.
    sliced = pa.array(np.arange(10, dtype=np.int64)).slice(3, 5)
    table = qv.table(pa.table({"x": sliced}))
    chunk = pa.chunked_array(table.column("x").filter(np.zeros(5, bool))).chunks[0]
    assert chunk.offset == 0 and len(chunk) == 0
    assert pa.concat_arrays([chunk, pa.array([7], pa.int64())]).to_pylist() == [7]
    words = pa.array(["a", "bb", "ccc", "d"]).slice(1, 3)
    empty = pa.array(qv.chunked_array(words).filter(np.zeros(3, bool)).chunk(0))
    assert pa.concat_arrays([empty, pa.array(["z"])]).to_pylist() == ["z"]
