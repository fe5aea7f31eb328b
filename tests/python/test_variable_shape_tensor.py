import io
import threading
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import quiver as qv
from conftest import NUMERIC_DTYPES, PERMUTATIONS_3D, CapsuleProducer, sample


def ragged(dtype="float32", n=5, seed=0, channels=3):
    rng = np.random.default_rng(seed)
    return [
        sample(dtype, (channels, int(rng.integers(0, 5)), int(rng.integers(1, 6))), seed=i)
        for i in range(n)
    ]


def assert_rows_equal(array, expected):
    rows = array.to_numpy()
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected):
        if want is None:
            assert got is None
        else:
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)


# --- type -------------------------------------------------------------------


def test_type_parameters_and_metadata():
    t = qv.variable_shape_tensor(
        "float32",
        3,
        dim_names=["H", "W", "C"],
        permutation=[2, 0, 1],
        uniform_shape=[None, None, 3],
    )
    assert t.ndim == 3
    assert t.value_type == qv.type_for("float32")
    assert t.dim_names == ["H", "W", "C"]
    assert t.permutation == [2, 0, 1]
    assert t.uniform_shape == (None, None, 3)
    assert (
        t.serialize()
        == '{"dim_names":["H","W","C"],"permutation":[2,0,1],"uniform_shape":[null,null,3]}'
    )
    assert qv.variable_shape_tensor(np.int16, 2).serialize() == "{}"
    assert qv.type_from_arrow(t) == t


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(ndim=2, uniform_shape=[1, 2, 3]), ValueError, "uniform_shape has 3 entries for 2"),
        (dict(ndim=2, uniform_shape=[-1, None]), ValueError, r"uniform_shape\[0\] \(-1\)"),
        (dict(ndim=2, permutation=[1, 1]), ValueError, "entry 1 repeats 1"),
        (dict(ndim=2, dim_names=["a"]), ValueError, "1 dim_names for 2"),
        (dict(ndim=-1), ValueError, "ndim must be >= 0"),
    ],
)
def test_type_rejects_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        qv.variable_shape_tensor("float32", **kwargs)


# --- builders and outputs ---------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_from_numpy_round_trip_every_dtype(dtype):
    xs = ragged(dtype)
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    assert a.type.value_type == qv.type_for(dtype)
    assert_rows_equal(a, xs)
    assert a.shapes().tolist() == [list(x.shape) for x in xs]
    padded, shapes = a.to_padded(pad_value=1)
    for i, x in enumerate(xs):
        region = padded[i][tuple(slice(0, s) for s in x.shape)]
        np.testing.assert_array_equal(region, x)
        assert np.count_nonzero(padded[i] == 1) >= padded[i].size - x.size


@pytest.mark.parametrize("permutation", PERMUTATIONS_3D)
def test_permutation_views_are_logical(permutation):
    xs = ragged("float64")
    a = qv.VariableShapeTensorArray.from_numpy(xs, permutation=permutation)
    assert_rows_equal(a, xs)
    assert a.shapes().tolist() == [list(x.shape) for x in xs]
    padded, shapes = a.to_padded()
    assert padded.shape[1:] == tuple(max(x.shape[k] for x in xs) for k in range(3))
    again = qv.VariableShapeTensorArray.from_padded(padded, shapes, type=a.type)
    assert_rows_equal(again, xs)
    # The storage holds each row physically: logical.transpose(argsort(P)).
    values, offsets, physical = a.to_jagged()
    inverse = np.argsort(permutation)
    for i, x in enumerate(xs):
        stored = x.transpose(inverse)
        assert list(physical[i]) == list(stored.shape)
        np.testing.assert_array_equal(values[offsets[i] : offsets[i + 1]], stored.ravel())


def test_views_are_zero_copy_and_read_only():
    a = qv.VariableShapeTensorArray.from_numpy(ragged())
    values, _, _ = a.to_jagged()
    row = a[2]
    assert np.shares_memory(row, values)
    assert not row.flags.writeable
    assert a[-1].shape == a.to_numpy()[-1].shape
    with pytest.raises(IndexError, match="out of range for 5 rows"):
        a[5]


def test_from_jagged_is_zero_copy():
    values = np.arange(20, dtype=np.float32)
    shapes = np.array([[2, 3], [1, 4], [0, 7], [2, 5]], dtype=np.int32)
    a = qv.VariableShapeTensorArray.from_jagged(values, None, shapes)
    assert np.shares_memory(a[0], values) and np.shares_memory(a[3], values)
    np.testing.assert_array_equal(a[3], values[10:20].reshape(2, 5))
    offsets = np.array([0, 6, 10, 10, 20], dtype=np.int64)
    b = qv.VariableShapeTensorArray.from_jagged(values, offsets, shapes.astype(np.int64))
    assert_rows_equal(b, a.to_numpy())
    v, o, s = b.to_jagged()
    assert np.shares_memory(v, values) and list(o) == list(offsets)
    np.testing.assert_array_equal(s, shapes)


@pytest.mark.parametrize(
    "values, offsets, shapes, match",
    [
        (
            np.arange(5, dtype=np.float32),
            None,
            [[2], [2]],
            "values has 5 elements but the shapes account for 4",
        ),
        (
            np.arange(5, dtype=np.float32),
            [0, 3, 5],
            [[2], [2]],
            r"row 0: data length 3 != product of shape \[2\] \(2\)",
        ),
        (
            np.arange(4, dtype=np.float32),
            [0, 2, 4],
            [[2], [-2]],
            r"row 1: shape \[-2\] has a negative size",
        ),
        (np.arange(4, dtype=np.float32), [0, 2, 1], [[2], [2]], "offset"),
        (
            np.arange(4, dtype=np.float32),
            [0, 2],
            [[2], [2]],
            r"offsets has shape \[2\], expected \[3\]",
        ),
        (
            np.arange(4, dtype=np.float32).reshape(2, 2),
            None,
            [[2], [2]],
            "values must be a contiguous 1-D",
        ),
    ],
)
def test_from_jagged_errors(values, offsets, shapes, match):
    with pytest.raises(ValueError, match=match):
        qv.VariableShapeTensorArray.from_jagged(values, offsets, np.array(shapes))


def test_from_padded_round_trip_and_errors():
    xs = ragged("int32")
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    batch, shapes = a.to_padded(pad_value=-7)
    assert batch.dtype == np.int32 and shapes.dtype == np.int32
    assert_rows_equal(qv.VariableShapeTensorArray.from_padded(batch, shapes), xs)
    too_big = shapes.copy()
    too_big[1, 2] = batch.shape[3] + 1
    with pytest.raises(ValueError, match="row 1: shape .* does not fit the padded cell"):
        qv.VariableShapeTensorArray.from_padded(batch, too_big)
    with pytest.raises(ValueError, match=r"shapes has shape \[5, 2\], expected \[5, 3\]"):
        qv.VariableShapeTensorArray.from_padded(batch, shapes[:, :2])
    with pytest.raises(ValueError, match="pad value 0.5 is not exactly representable as int32"):
        a.to_padded(pad_value=0.5)
    with pytest.raises(ValueError, match="not exactly representable as uint8"):
        qv.VariableShapeTensorArray.from_numpy(ragged("uint8")).to_padded(pad_value=256)


def test_pad_values_by_type():
    a = qv.VariableShapeTensorArray.from_numpy(
        [np.ones((1,), np.float16), np.ones((3,), np.float16)]
    )
    batch, _ = a.to_padded(pad_value=float("nan"))
    assert np.isnan(batch[0, 1:]).all()
    batch, _ = a.to_padded(pad_value=-0.25)
    assert (batch[0, 1:] == np.float16(-0.25)).all()
    with pytest.raises(ValueError, match="float16"):
        a.to_padded(pad_value=1e-9)
    big = qv.VariableShapeTensorArray.from_numpy([np.ones(1, np.int64), np.ones(2, np.int64)])
    assert big.to_padded(pad_value=-(2**63))[0][0, 1] == -(2**63)


def test_from_numpy_copies_strided_inputs_in_logical_order():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    xs = [base.T, base[::2, ::3], base[:, ::-1]]
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    assert_rows_equal(a, xs)
    assert not np.shares_memory(a[0], base)


def test_from_numpy_errors():
    with pytest.raises(ValueError, match="row 1: tensor has 1 dimensions, the array has 2"):
        qv.VariableShapeTensorArray.from_numpy([np.zeros((2, 2)), np.zeros(3)])
    # type= sets the ndim before any row is read; converted rows (masked,
    # non-native byte order) are held to it as well.
    t3 = qv.variable_shape_tensor("float64", 3)
    with pytest.raises(ValueError, match="row 0: tensor has 2 dimensions, the array has 3"):
        qv.VariableShapeTensorArray.from_numpy([np.zeros((2, 2))], type=t3)
    with pytest.raises(ValueError, match="row 2: tensor has 1 dimensions, the array has 2"):
        qv.VariableShapeTensorArray.from_numpy(
            [None, np.zeros((1, 2)), np.ma.masked_array(np.zeros(2))]
        )
    # Which error comes first: value types while reading, then type=, then
    # each row's ndim and sizes in row order.
    x2 = np.zeros((2, 2))
    with pytest.raises(TypeError, match="row 1: tensor holds int64, the array holds float64"):
        qv.VariableShapeTensorArray.from_numpy([x2, np.zeros(3, np.int64)])
    with pytest.raises(TypeError, match="row 0: tensor holds float64, the array holds int64"):
        qv.VariableShapeTensorArray.from_numpy([x2], type=qv.variable_shape_tensor("int64", 3))
    with pytest.raises(TypeError, match="type must be a quiver.VariableShapeTensorType"):
        qv.VariableShapeTensorArray.from_numpy([x2, np.zeros(3)], type="float64")
    with pytest.raises(ValueError, match="pass either type= or dim_names"):
        qv.VariableShapeTensorArray.from_numpy([x2], dim_names=["a", "b", "c"], type=t3)


def test_from_numpy_refuses_a_list_changed_while_read():
    rows = []

    class ClearsTheList:
        def __array__(self, dtype=None, copy=None):
            rows.clear()
            return np.zeros(2)

    rows.extend([ClearsTheList()] + [np.ones(2)] * 1000)
    with pytest.raises(ValueError, match="arrays changed while from_numpy read it"):
        qv.VariableShapeTensorArray.from_numpy(rows)

    # Same size and storage, but arrays put in place of other rows: more
    # plain arrays than were counted before reading.
    class SwapsInArrays:
        def __array__(self, dtype=None, copy=None):
            swapped[1:] = [np.ones(2)] * (len(swapped) - 1)
            return np.zeros(2)

    swapped = [SwapsInArrays()] + [[1.0, 2.0]] * 100
    with pytest.raises(ValueError, match="arrays changed while from_numpy read it"):
        qv.VariableShapeTensorArray.from_numpy(swapped)


def test_from_numpy_many_null_rows_and_many_axes():
    # The sizes block holds only the plain rows: 10^6 None rows next to one
    # 64-axis row take no 2 * 64 entries each.
    x = np.arange(2.0).reshape((1,) * 63 + (2,))
    a = qv.VariableShapeTensorArray.from_numpy([None] * 10**6 + [x])
    assert a.null_count == 10**6
    np.testing.assert_array_equal(a[10**6], x)
    with pytest.raises(TypeError, match="row 1: tensor holds int64, the array holds float64"):
        qv.VariableShapeTensorArray.from_numpy([np.zeros(2), np.zeros(3, np.int64)])
    with pytest.raises(ValueError, match="row 1: shape .* uniform_shape says 2"):
        qv.VariableShapeTensorArray.from_numpy(
            [np.zeros((2, 2)), np.zeros((3, 2))], uniform_shape=[2, None]
        )
    with pytest.raises(ValueError, match="cannot infer the value type"):
        qv.VariableShapeTensorArray.from_numpy([None, None])
    with pytest.raises(ValueError, match="either type= or"):
        qv.VariableShapeTensorArray.from_numpy(
            [], dim_names=["a"], type=qv.variable_shape_tensor("int8", 1)
        )


def test_from_numpy_mixed_inputs_keep_every_check():
    # Plain arrays of one dtype are read through their fields; the first of
    # each dtype, other producers, masked arrays and swapped bytes take the
    # general path. Every row is still checked, in any order.
    rows = [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.ones((1, 4), ">f4"),
        np.ma.masked_array(np.ones((2, 2), np.float32)),
        memoryview(np.zeros((3, 1), np.float32)),
        None,
        np.arange(8, dtype=np.float32).reshape(4, 2)[::-1, ::2],
        np.zeros((0, 5), np.float32),
    ]
    a = qv.VariableShapeTensorArray.from_numpy(rows)
    assert a.null_count == 1
    for got, want in zip(a.to_numpy(), rows):
        if want is None:
            assert got is None
        else:
            np.testing.assert_array_equal(got, np.asarray(want, np.float32))
    with pytest.raises(TypeError, match="row 3: tensor holds float64, the array holds float32"):
        qv.VariableShapeTensorArray.from_numpy(rows[:3] + [np.zeros((1, 1))])
    with pytest.raises(TypeError, match="row 2: tensor holds int32"):
        qv.VariableShapeTensorArray.from_numpy(
            [np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32), np.zeros((1, 1), np.int32)]
        )
    with pytest.raises(TypeError, match="row 0: tensor holds float32, the array holds int16"):
        qv.VariableShapeTensorArray.from_numpy(rows[:1], type=qv.variable_shape_tensor("int16", 2))
    with pytest.raises(ValueError, match="row 2: tensor has 1 dimensions"):
        qv.VariableShapeTensorArray.from_numpy(
            [np.zeros((1, 1), np.float32)] * 2 + [np.zeros(1, np.float32)]
        )
    with pytest.raises(TypeError, match="iterable"):
        qv.VariableShapeTensorArray.from_numpy(5)


def test_from_numpy_generators_and_large_inputs():
    # Any iterable; past a few MiB the copy runs on two threads.
    rows = [np.full((64, 64 + i % 7), i, np.float64) for i in range(300)]
    a = qv.VariableShapeTensorArray.from_numpy(r for r in rows)
    assert len(a) == 300
    for got, want in zip(a.to_numpy(), rows):
        np.testing.assert_array_equal(got, want)


def test_bool_rows_are_bool8():
    xs = [np.array([True, False]), np.array([[False], [True]]).ravel(), np.ones(3, bool)]
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    assert a.type.value_type.extension_name == "arrow.bool8"
    assert_rows_equal(a, xs)
    batch, _ = a.to_padded(pad_value=1)
    assert batch.dtype == np.bool_ and batch[0].tolist() == [True, False, True]
    # pyarrow refuses extension value types in variable-shape tensors; the
    # C Data round trip through quiver itself keeps them.
    assert_rows_equal(qv.array(CapsuleProducer(*a.__arrow_c_array__())), xs)


def test_nested_lists_are_accepted():
    a = qv.VariableShapeTensorArray.from_numpy([[[1.0, 2.0]], [[3.0], [4.0]]])
    assert a.shapes().tolist() == [[1, 2], [2, 1]]


# --- nulls, empties and zero sizes -------------------------------------------


def test_null_rows():
    xs = [np.ones((2, 2), np.float32), None, np.zeros((1, 3), np.float32)]
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    assert a.null_count == 1 and not a.is_valid(1)
    assert a[1] is None
    assert_rows_equal(a, xs)
    with pytest.raises(ValueError, match="row 1 is null"):
        a.to_padded()
    with pytest.raises(ValueError, match="row 1 is null"):
        a.to_jagged()
    batch, shapes = a.to_padded(pad_value=9, allow_nulls=True)
    assert (batch[1] == 9).all() and shapes[1].tolist() == [0, 0]
    assert_rows_equal(a.take([1, 2]), [None, xs[2]])
    assert_rows_equal(qv.concat([a, a[1:]]), xs + xs[1:])
    assert a.to_fixed is not None
    with pytest.raises(ValueError, match="row 2 has shape"):
        a.to_fixed()
    # Through pyarrow and back, nulls stay nulls.
    theirs = pa.array(a)
    assert theirs.null_count == 1
    assert_rows_equal(qv.array(theirs), xs)


def test_empty_arrays():
    t = qv.variable_shape_tensor("float32", 2)
    a = qv.VariableShapeTensorArray.from_numpy([], type=t)
    assert len(a) == 0 and a.to_numpy() == []
    batch, shapes = a.to_padded()
    assert batch.shape == (0, 0, 0) and shapes.shape == (0, 2)
    values, offsets, shapes = a.to_jagged()
    assert values.shape == (0,) and offsets.tolist() == [0]
    assert len(qv.array(pa.array(a))) == 0
    with pytest.raises(ValueError, match="complete uniform_shape"):
        a.to_fixed()
    fixed = qv.VariableShapeTensorArray.from_numpy(
        [], type=qv.variable_shape_tensor("float32", 2, uniform_shape=[2, 3])
    ).to_fixed()
    assert fixed.type.shape == (2, 3)


def test_zero_size_dimensions():
    xs = [np.zeros((0, 3), np.float32), np.ones((2, 0), np.float32), np.ones((1, 1), np.float32)]
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    assert_rows_equal(a, xs)
    batch, shapes = a.to_padded(pad_value=5)
    assert batch.shape == (3, 2, 3)
    assert (batch[0] == 5).all() and (batch[1] == 5).all() and batch[2, 0, 0] == 1
    assert_rows_equal(qv.array(pa.array(a)), xs)


def test_zero_dimensional_rows():
    xs = [np.array(1.5), np.array(2.5)]
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    assert a[1].shape == () and a[1] == 2.5
    assert a.to_fixed().to_numpy().tolist() == [1.5, 2.5]


# --- slicing and selection ---------------------------------------------------


def test_slices_take_filter_concat():
    xs = ragged(n=8)
    a = qv.VariableShapeTensorArray.from_numpy(xs)
    s = a[2:6]
    assert s.offset == 2 and len(s) == 4
    assert_rows_equal(s, xs[2:6])
    assert_rows_equal(a[::3], xs[::3])
    assert_rows_equal(a[::-1], xs[::-1])
    assert_rows_equal(s.take([3, 0, 0]), [xs[5], xs[2], xs[2]])
    assert_rows_equal(s.filter([True, False, False, True]), [xs[2], xs[5]])
    assert_rows_equal(qv.concat([s, a[:2]]), xs[2:6] + xs[:2])
    assert_rows_equal(qv.array(pa.array(s)), xs[2:6])
    with pytest.raises(IndexError, match="index 4 at position 1 is out of range for 4 rows"):
        s.take([0, 4])
    with pytest.raises(ValueError, match="mask has 2 entries for 4 rows"):
        s.filter([True, False])
    with pytest.raises(TypeError, match="cannot concat array 1"):
        qv.concat([a, qv.VariableShapeTensorArray.from_numpy(ragged("float64"))])
    with pytest.raises(ValueError, match="at least one"):
        qv.concat([])


def test_concat_recomputes_uniform_shape():
    a = qv.VariableShapeTensorArray.from_numpy([np.zeros((2, 3))], uniform_shape=[2, 3])
    b = qv.VariableShapeTensorArray.from_numpy([np.zeros((4, 3))], uniform_shape=[4, 3])
    assert qv.concat([a, b]).type.uniform_shape == (None, 3)
    assert qv.concat([a, a]).type.uniform_shape == (2, 3)
    c = qv.VariableShapeTensorArray.from_numpy([np.zeros((4, 3))])
    assert qv.concat([a, c]).type.uniform_shape is None


def test_infer_and_record_uniform_shape():
    a = qv.VariableShapeTensorArray.from_numpy([np.zeros((2, 3, 4)), np.zeros((5, 3, 4)), None])
    assert a.infer_uniform_shape() == (None, 3, 4)
    b = a.with_uniform_shape(a.infer_uniform_shape())
    assert b.type.uniform_shape == (None, 3, 4)
    assert b.with_uniform_shape(None).type.uniform_shape is None
    with pytest.raises(ValueError, match="row 1: .* uniform_shape says 2"):
        a.with_uniform_shape([2, 3, 4])


# --- fixed <-> variable ------------------------------------------------------


@pytest.mark.parametrize("permutation", PERMUTATIONS_3D)
def test_fixed_to_variable_and_back(permutation):
    x = sample("int16", (4, 2, 3, 5)).transpose([0] + [p + 1 for p in permutation])
    fixed = qv.FixedShapeTensorArray.from_numpy(x)
    variable = fixed.to_variable()
    assert variable.type.uniform_shape == fixed.type.shape
    assert variable.type.permutation == fixed.type.permutation
    assert_rows_equal(variable, list(x))
    assert np.shares_memory(variable[1], x)
    back = variable.to_fixed(copy=False)
    assert back.type == fixed.type
    np.testing.assert_array_equal(back.to_numpy(), x)


def test_variable_to_fixed_copies_only_when_needed():
    a = qv.VariableShapeTensorArray.from_numpy([np.ones((2, 2)), None, np.zeros((2, 2))])
    with pytest.raises(ValueError, match="needs a copy"):
        a.to_fixed(copy=False)
    f = a.to_fixed()
    assert f.null_count == 1
    np.testing.assert_array_equal(f[2], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="row 1 has shape \\[3\\] but row 0 has \\[2\\]"):
        qv.VariableShapeTensorArray.from_numpy([np.ones(2), np.ones(3)]).to_fixed()


# --- Arrow interchange ---------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_pyarrow_round_trip_keeps_the_extension(dtype):
    xs = ragged(dtype)
    a = qv.VariableShapeTensorArray.from_numpy(
        xs, dim_names=["C", "H", "W"], uniform_shape=[3, None, None]
    )
    theirs = pa.array(a)
    assert theirs.type.extension_name == "arrow.variable_shape_tensor"
    assert theirs.type.storage_type.field(0).name == "data"
    assert theirs.type.storage_type.field(1).type == pa.list_(pa.int32(), 3)
    ours = qv.array(theirs)
    assert isinstance(ours, qv.VariableShapeTensorArray)
    assert ours.type == a.type
    assert_rows_equal(ours, xs)
    values, _, _ = a.to_jagged()
    assert np.shares_memory(ours[0], values)  # there and back without a copy


def test_parquet_round_trip_keeps_the_metadata():
    xs = ragged("float32", n=20)
    a = qv.VariableShapeTensorArray.from_numpy(
        xs, dim_names=["C", "H", "W"], permutation=[0, 2, 1], uniform_shape=[3, None, None]
    )
    sink = io.BytesIO()
    pq.write_table(pa.table({"images": pa.array(a)}), sink)
    table = pq.read_table(io.BytesIO(sink.getvalue()))
    ours = qv.array(table.column("images").combine_chunks())
    assert ours.type == a.type
    assert_rows_equal(ours, xs)


def storage_producer(storage, metadata):
    field = pa.field(
        "t",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.variable_shape_tensor",
            "ARROW:extension:metadata": metadata,
        },
    )
    return CapsuleProducer(field.__arrow_c_schema__(), storage.__arrow_c_array__()[1])


def storage_of(rows, shape_type=pa.int32(), ndim=2):
    data = pa.array([r[0] for r in rows], pa.list_(pa.float32()))
    shape = pa.array([r[1] for r in rows], pa.list_(shape_type, ndim))
    return pa.StructArray.from_arrays([data, shape], names=["data", "shape"])


@pytest.mark.parametrize(
    "metadata, uniform",
    [
        ("", None),
        ("{}", None),
        ('{"uniform_shape": [null, 3]}', (None, 3)),
        ('{"ragged_dimensions": [0], "uniform_shape": [0, 3]}', (None, 3)),
        ('{"uniform_dimensions": [1], "uniform_shape": [0, 3], "ndim": 2}', (None, 3)),
        ('{"uniform_dimensions": [1], "uniform_shape": [3]}', (None, 3)),
        ('{"ragged_dimensions": [0]}', None),
    ],
)
def test_draft_metadata_forms_are_read(metadata, uniform):
    for shape_type in (pa.int32(), pa.uint32()):
        storage = storage_of([([1, 2, 3], [1, 3]), ([1, 2, 3, 4, 5, 6], [2, 3])], shape_type)
        a = qv.array(storage_producer(storage, metadata))
        assert a.type.uniform_shape == uniform
        assert a[1].shape == (2, 3)
        # Written back in the final form only.
        back = pa.array(a)
        assert back.type.storage_type.field(1).type == pa.list_(pa.int32(), 2)
        assert "ragged_dimensions" not in a.type.serialize()


@pytest.mark.parametrize(
    "rows, metadata, match",
    [
        ([([1, 2, 3], [2, 2])], "{}", r"row 0: data length 3 != product of shape \[2, 2\] \(4\)"),
        ([([1, 2], [1, 2]), ([], [-1, 0])], "{}", r"row 1: shape \[-1, 0\] has a negative size"),
        (
            [([1, 2], [1, 2]), ([1, 2], [2, 1])],
            '{"uniform_shape": [1, null]}',
            r"row 1: shape \[2, 1\] has size 2 on axis 0 but uniform_shape says 1",
        ),
        ([([1], [1, 1])], '{"uniform_shape": [1]}', "uniform_shape has 1 entries for 2"),
        ([([1], [1, 1])], '{"ndim": 3}', "'ndim' is 3"),
        ([([1], [1, 1])], "{", "not valid JSON"),
    ],
)
def test_invalid_storage_is_rejected(rows, metadata, match):
    with pytest.raises(ValueError, match=match):
        qv.array(storage_producer(storage_of(rows), metadata))


def test_valid_rows_need_data_and_shape():
    data = pa.array([[1.0], None], pa.list_(pa.float32()))
    shape = pa.array([[1], [1]], pa.list_(pa.int32(), 1))
    storage = pa.StructArray.from_arrays([data, shape], names=["data", "shape"])
    with pytest.raises(ValueError, match="row 1: the row is valid but its data list is null"):
        qv.array(storage_producer(storage, "{}"))


def test_bad_storage_types():
    wrong = pa.StructArray.from_arrays(
        [pa.array([1]), pa.array([[1]], pa.list_(pa.int32(), 1))], names=["data", "shape"]
    )
    with pytest.raises(TypeError, match="field 0 is not a list"):
        qv.array(storage_producer(wrong, "{}"))
    wrong_shape = storage_of([([1.0], [1])], pa.float64(), ndim=1)
    with pytest.raises(TypeError, match="shape entries must be int32"):
        qv.array(storage_producer(wrong_shape, "{}"))
    # Other integer shapes and large_list data are tolerated (as Polars
    # writes them) and come back canonical: test_polars_ragged.py.
    int64_shapes = qv.array(storage_producer(storage_of([([1.0], [1])], pa.int64(), ndim=1), "{}"))
    assert int64_shapes.shapes().dtype == np.int32 and int64_shapes[0].tolist() == [1.0]


def test_torch_nested_from_jagged_shares_values():
    torch = pytest.importorskip("torch")
    xs = [np.full((n, 4), n, np.float32) for n in (2, 5, 1)]
    a = qv.VariableShapeTensorArray.from_numpy(xs, uniform_shape=[None, 4])
    values, offsets, _ = a.to_jagged()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch notes that the view is read-only
        flat = torch.from_numpy(values).view(-1, 4)
    # One ragged dimension (rows of 4), as torch's jagged layout wants.
    nested = torch.nested.nested_tensor_from_jagged(flat, torch.from_numpy(offsets // 4))
    assert nested.values().data_ptr() == values.ctypes.data
    for got, want in zip(nested.unbind(), xs):
        np.testing.assert_array_equal(got.numpy(), want)


def test_integer_pad_values_are_exact():
    col = qv.VariableShapeTensorArray.from_numpy([np.ones(3, np.int64), np.ones(1, np.int64)])
    batch, _ = col.to_padded(pad_value=2**53 + 1)
    assert int(batch[1, 2]) == 2**53 + 1
    batch, _ = col.to_padded(pad_value=2**63 - 1)
    assert int(batch[1, 1]) == 2**63 - 1
    with pytest.raises(
        ValueError, match="pad value 9223372036854775808 is not exactly representable as int64"
    ):
        col.to_padded(pad_value=2**63)
    with pytest.raises(
        ValueError, match="pad value 340282366920938463463374607431768211456 does not fit"
    ):
        col.to_padded(pad_value=2**128)
    u = qv.VariableShapeTensorArray.from_numpy([np.ones(2, np.uint64), np.ones(1, np.uint64)])
    assert int(u.to_padded(pad_value=2**64 - 1)[0][1, 1]) == 2**64 - 1
    f = qv.VariableShapeTensorArray.from_numpy([np.ones(2, np.float32), np.ones(1, np.float32)])
    with pytest.raises(
        ValueError, match="pad value 16777217 is not exactly representable as float"
    ):
        f.to_padded(pad_value=2**24 + 1)
    assert f.to_padded(pad_value=np.float32(0.5))[0][1, 1] == 0.5
    with pytest.raises(TypeError, match="pad_value must be a number"):
        f.to_padded(pad_value="0")


def test_padded_round_trip_with_zero_size_axes():
    col = qv.VariableShapeTensorArray.from_numpy(
        [np.zeros((0, 2)), np.zeros((0, 3)), np.zeros((0, 0))]
    )
    back = qv.VariableShapeTensorArray.from_padded(*col.to_padded())
    assert back == col


def test_to_padded_into_a_reusable_output():
    col = qv.VariableShapeTensorArray.from_numpy(
        [np.ones((2, 3), np.float32), np.ones((1, 1), np.float32)]
    )
    out = np.full((2, 2, 3), 7, np.float32)
    batch, shapes = col.to_padded(pad_value=0, out=out)
    assert batch is out and out.sum() == 7 and shapes.tolist() == [[2, 3], [1, 1]]
    with pytest.raises(
        ValueError, match=r"out has shape \[2, 2, 2\] but the padded batch has shape \[2, 2, 3\]"
    ):
        col.to_padded(out=np.empty((2, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r"out has shape \[3, 2, 3\]"):
        col.to_padded(out=np.empty((3, 2, 3), np.float32))
    # A larger cell pads further.
    wide = np.full((2, 3, 4), 7, np.float32)
    col.to_padded(pad_value=-1, out=wide)
    np.testing.assert_array_equal(wide[0, :2, :3], 1)
    assert (wide[0, 2, :] == -1).all() and (wide[0, :, 3] == -1).all() and wide[1].sum() == 1 - 11
    with pytest.raises(TypeError, match="out has dtype float64"):
        col.to_padded(out=np.empty((2, 2, 3)))
    with pytest.raises(TypeError, match="C-contiguous"):
        col.to_padded(out=np.empty((2, 3, 2), np.float32).transpose(0, 2, 1))


def test_a_thread_progresses_while_to_padded_runs():
    rng = np.random.default_rng(0)
    rows = [np.ones((3, h, w), np.float32) for h, w in rng.integers(200, 257, size=(96, 2))]
    col = qv.VariableShapeTensorArray.from_numpy(rows)
    out = np.empty((96, 3, 256, 256), np.float32)
    counter = [0]
    stop = threading.Event()
    started = threading.Event()

    def count():
        started.set()
        while not stop.is_set():
            counter[0] += 1

    thread = threading.Thread(target=count)
    thread.start()
    started.wait()
    # Progress is measured as work done during the call, not as a time.
    before = counter[0]
    col.to_padded(out=out)
    col.to_padded()
    during = counter[0] - before
    stop.set()
    thread.join()
    assert during > 1000  # with the GIL held the counter could not move (at most a switch or two)


def test_jagged_storage_changed_after_the_fact_is_checked():
    # from_jagged shares the caller's int32 offsets and shapes (zero-copy);
    # changing them afterwards must give errors, never reads out of bounds.
    values = np.arange(10, dtype=np.float32)
    offsets = np.array([0, 4, 10], dtype=np.int32)
    shapes = np.array([[4], [6]], dtype=np.int32)
    col = qv.VariableShapeTensorArray.from_jagged(values, offsets, shapes)
    assert col.to_padded()[0].shape == (2, 6)
    offsets[2] = 50_000_000
    shapes[1, 0] = 50_000_000 - 4
    for call in (
        col.to_padded,
        lambda: col.take([1]),
        lambda: col[1],
        col.to_jagged,
        lambda: col.filter([False, True]),
        lambda: qv.concat([col, col]),
    ):
        with pytest.raises(
            ValueError, match=r"row 1: data \[4, 50000000\) is not a range inside the 10 values"
        ):
            call()
    np.testing.assert_array_equal(col[0], values[:4])  # row 0 is untouched
