"""quiver.huggingface against the real `datasets`: its ArrayXD columns read
as canonical tensor columns over the same values buffer, quiver tables
written as Datasets that `datasets` reads back as the same arrays, and the
errors bad input gets."""

import json
import os

import numpy as np
import pytest

import quiver as qv

datasets = pytest.importorskip("datasets")
pa = pytest.importorskip("pyarrow")

from quiver.huggingface import from_huggingface, to_huggingface  # noqa: E402


def _leaf_buffer(chunk):
    """The innermost values array of an ArrayXD chunk's nested lists."""
    array = chunk.storage
    while hasattr(array, "values"):
        array = array.values
    return array


def _rows(rng, dims, dtype=np.float32, count=5):
    return [rng.random(dims(i)).astype(dtype) for i in range(count)]


@pytest.fixture
def rng():
    return np.random.default_rng(38)


@pytest.mark.parametrize(
    "feature, shape",
    [
        ("Array2D", (3, 4)),
        ("Array3D", (2, 3, 4)),
        ("Array4D", (2, 1, 3, 2)),
        ("Array5D", (1, 2, 2, 3, 2)),
    ],
)
def test_fixed_arrays_become_fixed_shape_tensors_over_the_same_values(rng, feature, shape):
    rows = _rows(rng, lambda i: shape)
    features = datasets.Features({"x": getattr(datasets, feature)(shape=shape, dtype="float32")})
    ds = datasets.Dataset.from_dict({"x": rows}, features=features)
    table = from_huggingface(ds)
    column = table.column("x").chunk(0)
    assert isinstance(column, qv.FixedShapeTensorArray)
    assert tuple(column.type.shape) == shape
    np.testing.assert_array_equal(column.to_numpy(), np.stack(rows))
    # Zero-copy: the tensor's values are the dataset's innermost buffer.
    leaf = _leaf_buffer(ds.data.table.column("x").chunk(0))
    ours = pa.array(column).storage.values
    assert ours.buffers()[1].address == leaf.buffers()[1].address


def test_dynamic_first_dimension_becomes_variable_shape_tensor(rng):
    rows = _rows(rng, lambda i: (i, 4, 5))  # row 0 has no entries on axis 0
    features = datasets.Features({"x": datasets.Array3D(shape=(None, 4, 5), dtype="float32")})
    ds = datasets.Dataset.from_dict({"x": rows}, features=features)
    column = from_huggingface(ds).column("x").chunk(0)
    assert isinstance(column, qv.VariableShapeTensorArray)
    assert list(column.type.uniform_shape) == [None, 4, 5]
    assert column.shapes().tolist() == [[i, 4, 5] for i in range(5)]
    for got, want in zip(column.to_numpy(), rows):
        np.testing.assert_array_equal(got, want)
    leaf = _leaf_buffer(ds.data.table.column("x").chunk(0))
    data = pa.array(column).storage.field("data").values
    assert data.buffers()[1].address == leaf.buffers()[1].address


def test_null_rows_become_variable_shape_null_rows(rng):
    rows = _rows(rng, lambda i: (2, 3), count=3)
    features = datasets.Features({"x": datasets.Array2D(shape=(2, 3), dtype="float32")})
    ds = datasets.Dataset.from_dict({"x": [rows[0], None, rows[2]]}, features=features)
    column = from_huggingface(ds).column("x").chunk(0)
    assert isinstance(column, qv.VariableShapeTensorArray)
    assert list(column.type.uniform_shape) == [2, 3]
    got = column.to_numpy()
    assert got[1] is None
    np.testing.assert_array_equal(got[0], rows[0])
    np.testing.assert_array_equal(got[2], rows[2])


def test_other_columns_pass_through_and_columns_picks(rng):
    features = datasets.Features(
        {
            "x": datasets.Array2D(shape=(2, 2), dtype="int32"),
            "label": datasets.Value("string"),
            "n": datasets.Value("int64"),
        }
    )
    ds = datasets.Dataset.from_dict(
        {"x": [np.eye(2, dtype=np.int32)] * 3, "label": ["a", "b", None], "n": [1, 2, 3]},
        features=features,
    )
    table = from_huggingface(ds, columns=["n", "label"])
    assert table.column_names == ["n", "label"]
    assert table.to_pyarrow().column("label").to_pylist() == ["a", "b", None]
    with pytest.raises(KeyError, match="no column named 'nope'"):
        from_huggingface(ds, columns=["nope"])


def test_selected_and_shuffled_rows_are_taken(rng):
    rows = _rows(rng, lambda i: (i + 1, 2, 2), count=6)
    features = datasets.Features({"x": datasets.Array3D(shape=(None, 2, 2), dtype="float32")})
    ds = datasets.Dataset.from_dict({"x": rows}, features=features)
    picked = ds.select([4, 0, 2])
    column = from_huggingface(picked).column("x").combine_chunks()
    for got, want in zip(column.to_numpy(), [rows[4], rows[0], rows[2]]):
        np.testing.assert_array_equal(got, want)


def test_a_sliced_arrow_table_keeps_its_slice(rng):
    rows = _rows(rng, lambda i: (3, 2), count=6)
    features = datasets.Features({"x": datasets.Array2D(shape=(3, 2), dtype="float32")})
    ds = datasets.Dataset.from_dict({"x": rows}, features=features)
    sliced = ds.data.table.slice(2, 3)
    column = from_huggingface(sliced).column("x").chunk(0)
    np.testing.assert_array_equal(column.to_numpy(), np.stack(rows[2:5]))


def test_qv_table_takes_a_dataset_and_its_arrow_table(rng):
    rows = _rows(rng, lambda i: (i + 1, 3, 2), count=3)
    features = datasets.Features({"x": datasets.Array3D(shape=(None, 3, 2), dtype="float64")})
    ds = datasets.Dataset.from_dict({"x": rows}, features=features)
    for source in (ds, ds.data.table):
        column = qv.table(source).column("x").chunk(0)
        assert isinstance(column, qv.VariableShapeTensorArray)
        np.testing.assert_array_equal(column[2], rows[2])
    batch = qv.record_batch(ds.data.table.to_batches()[0])
    assert isinstance(batch.column("x"), qv.VariableShapeTensorArray)


def test_extension_metadata_alone_is_enough(rng):
    # A datasets Arrow file read where datasets' types are not registered:
    # pyarrow shows list storage with the extension name in field metadata.
    values = pa.array(np.arange(12, dtype=np.float32))
    inner = pa.ListArray.from_arrays(pa.array(np.arange(0, 13, 3, dtype=np.int32)), values)
    outer = pa.ListArray.from_arrays(pa.array([0, 2, 4], pa.int32()), inner)
    metadata = {
        b"ARROW:extension:name": b"datasets.features.features.Array2DExtensionType",
        b"ARROW:extension:metadata": json.dumps([[2, 3], "float32"]).encode(),
    }
    field = pa.field("x", outer.type, metadata=metadata)
    table = pa.Table.from_arrays([outer], schema=pa.schema([field]))
    column = from_huggingface(table).column("x").chunk(0)
    np.testing.assert_array_equal(
        column.to_numpy(), np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    )


def test_load_from_disk_maps_the_file_and_shares_it(rng, tmp_path):
    rows = _rows(rng, lambda i: (i + 1, 4, 3), count=8)
    features = datasets.Features({"x": datasets.Array3D(shape=(None, 4, 3), dtype="float32")})
    datasets.Dataset.from_dict({"x": rows}, features=features).save_to_disk(str(tmp_path / "d"))
    loaded = datasets.load_from_disk(str(tmp_path / "d"))
    column = from_huggingface(loaded).column("x").combine_chunks()
    for got, want in zip(column.to_numpy(), rows):
        np.testing.assert_array_equal(got, want)
    leaf = _leaf_buffer(loaded.data.table.column("x").chunk(0))
    assert pa.array(column).storage.field("data").values.buffers()[1].address == (
        leaf.buffers()[1].address
    )
    # ... and that buffer is the mapped file's memory, not a heap copy.
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps to find the mapping in")
    address = leaf.buffers()[1].address
    with open("/proc/self/maps") as maps:
        mapped = [
            line.split()[-1]
            for line in maps
            if int(line.split("-")[0], 16) <= address < int(line.split()[0].split("-")[1], 16)
        ]
    assert mapped and mapped[0].endswith(".arrow")


# --- quiver -> datasets ------------------------------------------------------------


def test_round_trip_datasets_quiver_datasets(rng):
    features = datasets.Features(
        {
            "fixed": datasets.Array2D(shape=(2, 3), dtype="int16"),
            "ragged": datasets.Array4D(shape=(None, 2, 1, 3), dtype="float32"),
            "name": datasets.Value("string"),
        }
    )
    data = {
        "fixed": [rng.integers(-5, 5, (2, 3)).astype(np.int16) for _ in range(4)],
        "ragged": _rows(rng, lambda i: (i % 3, 2, 1, 3), count=4),
        "name": ["a", "b", "c", "d"],
    }
    ds = datasets.Dataset.from_dict(data, features=features)
    back = to_huggingface(from_huggingface(ds))
    assert back.features == ds.features
    want, got = ds.with_format("numpy"), back.with_format("numpy")
    np.testing.assert_array_equal(got["fixed"], want["fixed"])
    for a, b in zip(got["ragged"], want["ragged"]):
        np.testing.assert_array_equal(a, b)
    assert back["name"] == data["name"]


def test_to_huggingface_shares_the_values_buffer(rng):
    cells = rng.random((5, 3, 4)).astype(np.float32)
    table = qv.table({"x": qv.FixedShapeTensorArray.from_numpy(cells)})
    ds = to_huggingface(table)
    assert ds.features["x"] == datasets.Array2D(shape=(3, 4), dtype="float32")
    leaf = _leaf_buffer(ds.data.table.column("x").chunk(0))
    assert leaf.buffers()[1].address == cells.ctypes.data
    np.testing.assert_array_equal(ds.with_format("numpy")["x"], cells)


def test_ipc_file_to_datasets_and_back(rng, tmp_path):
    ragged = [rng.random((n, 2, 2)).astype(np.float32) for n in (3, 1, 0, 2)]
    table = qv.table(
        {
            "img": qv.FixedShapeTensorArray.from_numpy(rng.random((4, 2, 3, 2))),
            "seq": qv.VariableShapeTensorArray.from_numpy(ragged, uniform_shape=[None, 2, 2]),
            "id": np.arange(4, dtype=np.int64),
        }
    )
    qv.ipc.write_file(table, str(tmp_path / "t.arrow"))
    read = qv.ipc.open_file(str(tmp_path / "t.arrow")).read_all()
    ds = to_huggingface(read)
    assert ds.features["img"] == datasets.Array3D(shape=(2, 3, 2), dtype="float64")
    assert ds.features["seq"] == datasets.Array3D(shape=(None, 2, 2), dtype="float32")
    arrays = ds.with_format("numpy")
    # (datasets' NumPy format turns float64 into float32 unless told a dtype)
    want = table.column("img").chunk(0).to_numpy()
    np.testing.assert_array_equal(ds.with_format("numpy", dtype=np.float64)["img"], want)
    for got, want in zip(arrays["seq"], ragged):
        np.testing.assert_array_equal(got.reshape(want.shape), want)
    again = from_huggingface(ds)
    assert again.column("img").equals(table.column("img"))
    for got, want in zip(again.column("seq").chunk(0).to_numpy(), ragged):
        np.testing.assert_array_equal(got, want)


def test_to_huggingface_other_shapes_become_lists(rng, tmp_path):
    vectors = rng.random((3, 4)).astype(np.float32)
    six = rng.random((2, 1, 2, 1, 2, 1, 2)).astype(np.float32)
    ragged = [rng.random(s).astype(np.float32) for s in [(2, 3), (1, 1), (0, 2)]]
    table = qv.table(
        {
            "vec": qv.FixedShapeTensorArray.from_numpy(vectors),
            "ragged": qv.VariableShapeTensorArray.from_numpy(ragged),
        }
    )
    ds = to_huggingface(table)
    six_ds = to_huggingface(qv.table({"six": qv.FixedShapeTensorArray.from_numpy(six)}))
    feature = datasets.Value("float32")
    for size in reversed(six.shape[1:]):
        feature = datasets.List(feature, length=size)
    assert six_ds.features["six"] == feature
    np.testing.assert_array_equal(np.asarray(six_ds["six"], np.float32), six)
    assert ds.features["vec"] == datasets.List(datasets.Value("float32"), length=4)
    assert ds.features["ragged"] == datasets.List(datasets.List(datasets.Value("float32")))
    arrays = ds.with_format("numpy")
    np.testing.assert_array_equal(arrays["vec"], vectors)
    assert [
        np.asarray(r, np.float32).reshape(w.shape).tolist() for r, w in zip(ds["ragged"], ragged)
    ] == [w.tolist() for w in ragged]
    # datasets writes and reads them back from disk as they are.
    ds.save_to_disk(str(tmp_path / "d"))
    loaded = datasets.load_from_disk(str(tmp_path / "d"))
    assert loaded.features == ds.features
    np.testing.assert_array_equal(loaded.with_format("numpy")["vec"], vectors)


def test_permuted_tensors_are_copied_into_logical_order(rng):
    physical = rng.random((3, 4, 2)).astype(np.float32)
    fixed = qv.FixedShapeTensorArray.from_numpy(physical.transpose(0, 2, 1), copy=False)
    assert list(fixed.type.permutation) == [1, 0]
    ds = to_huggingface(qv.table({"x": fixed}))
    assert ds.features["x"] == datasets.Array2D(shape=(2, 4), dtype="float32")
    np.testing.assert_array_equal(ds.with_format("numpy")["x"], physical.transpose(0, 2, 1))


def test_bool8_tensors_become_datasets_bools(rng):
    masks = rng.random((3, 2, 2)) > 0.5
    ragged = [masks[0], masks[1][:1]]
    table = qv.table(
        {
            "fixed": qv.FixedShapeTensorArray.from_numpy(masks),
            "ragged": qv.VariableShapeTensorArray.from_numpy(ragged + [masks[2]]),
        }
    )
    ds = to_huggingface(table)
    assert ds.features["fixed"] == datasets.Array2D(shape=(2, 2), dtype="bool")
    assert ds.features["ragged"] == datasets.Array2D(shape=(None, 2), dtype="bool")
    arrays = ds.with_format("numpy")[:]
    np.testing.assert_array_equal(arrays["fixed"], masks)
    for got, want in zip(arrays["ragged"], ragged + [masks[2]]):
        np.testing.assert_array_equal(got, want)
    # ... and back as arrow.bool8 (bytes: a copy), the same values.
    again = from_huggingface(ds)
    assert again.column("fixed").equals(table.column("fixed"))
    for got, want in zip(again.column("ragged").chunk(0).to_numpy(), ragged + [masks[2]]):
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want)


def test_bool8_ragged_rows_that_need_a_copy_reach_datasets(rng):
    # A permuted bool8 column (rows copied into logical order) and one whose
    # null row holds data: pyarrow holds no variable_shape_tensor of bool8,
    # so the copy must leave through the storage.
    masks = [rng.random((2, 3)) > 0.5, rng.random((1, 3)) > 0.5]
    permuted = qv.VariableShapeTensorArray.from_numpy(masks, permutation=[1, 0])
    ds = to_huggingface(qv.table({"x": permuted}))
    rows = ds.with_format("numpy")["x"]
    for got, want in zip(rows, permuted.to_numpy()):
        np.testing.assert_array_equal(got, want)
    storage = pa.array(qv.VariableShapeTensorArray.from_numpy(masks).storage)
    holed = pa.StructArray.from_arrays(
        [storage.field("data"), storage.field("shape")],
        names=["data", "shape"],
        mask=pa.array([True, False]),
    )
    column = qv.VariableShapeTensorArray.from_storage(
        qv.variable_shape_tensor(pa.bool8(), 2), holed
    )
    ds = to_huggingface(qv.table({"x": column}))
    assert ds.data.table.column("x").is_null().to_pylist() == [True, False]
    np.testing.assert_array_equal(ds.with_format("numpy")["x"][1], masks[1])


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (2, 0, 3)])
def test_zero_size_axes_keep_their_rows_both_ways(shape):
    # A zero-size axis leaves no values: the row count and every row's
    # shape come from the offsets and the type, not from the values.
    rows = np.zeros((3, *shape), np.float32)
    fixed = qv.FixedShapeTensorArray.from_numpy(rows)
    ds = to_huggingface(qv.table({"x": fixed}))
    assert ds.num_rows == 3
    np.testing.assert_array_equal(ds.with_format("numpy")["x"], rows)
    back = from_huggingface(ds).column("x").chunk(0)
    assert isinstance(back, qv.FixedShapeTensorArray)
    assert back.to_numpy().shape == rows.shape
    # A dynamic first axis over a zero-size inner axis keeps each row's length.
    ragged = [np.zeros((n, *shape[1:]), np.float32) for n in (2, 0, 3)]
    ds = to_huggingface(qv.table({"x": qv.VariableShapeTensorArray.from_numpy(ragged)}))
    assert [np.shape(r) for r in ds.with_format("numpy")["x"]] == [r.shape for r in ragged]
    again = from_huggingface(ds).column("x").chunk(0).to_numpy()
    assert [r.shape for r in again] == [r.shape for r in ragged]


def test_zero_size_vectors_become_lists_of_every_row():
    for rows in (np.zeros((3, 0), np.float32), np.zeros((2, 1, 1, 1, 1, 0), np.float32)):
        ds = to_huggingface(qv.table({"x": qv.FixedShapeTensorArray.from_numpy(rows)}))
        assert ds.num_rows == len(rows)
        assert np.asarray(ds["x"], np.float32).shape == rows.shape


def test_null_rows_stay_null(rng):
    ragged = [rng.random((2, 3)).astype(np.float32), None, rng.random((1, 3)).astype(np.float32)]
    table = qv.table({"x": qv.VariableShapeTensorArray.from_numpy(ragged)})
    ds = to_huggingface(table)
    assert ds.features["x"] == datasets.Array2D(shape=(None, 3), dtype="float32")
    assert ds.data.table.column("x").is_null().to_pylist() == [False, True, False]
    assert np.isnan(ds["x"][1])  # datasets' own reading of a null ArrayXD row
    np.testing.assert_array_equal(np.asarray(ds["x"][2], np.float32), ragged[2])
    back = from_huggingface(ds).column("x").chunk(0).to_numpy()
    assert back[1] is None
    np.testing.assert_array_equal(back[0], ragged[0])


# --- errors -------------------------------------------------------------------------


def _hf_table(storage, shape, dtype="float32"):
    from datasets.features.features import Array2DExtensionType, Array3DExtensionType

    cls = {2: Array2DExtensionType, 3: Array3DExtensionType}[len(shape)]
    column = pa.ExtensionArray.from_storage(cls(shape, dtype), storage)
    return pa.table({"x": column})


def test_not_a_dataset_is_a_type_error():
    with pytest.raises(
        TypeError, match="takes a datasets.Dataset or a pyarrow Table.*builtins.dict"
    ):
        from_huggingface({"x": [1]})
    with pytest.raises(TypeError, match="columns must be a list of names"):
        from_huggingface(pa.table({"x": [1]}), columns="x")


def test_a_dataset_dict_names_its_splits(rng):
    split = datasets.Dataset.from_dict({"n": [1, 2]})
    both = datasets.DatasetDict({"train": split, "test": split})
    with pytest.raises(TypeError, match=r"several splits \('train', 'test'\).*ds\['train'\]"):
        from_huggingface(both)
    with pytest.raises(TypeError, match="several splits"):
        qv.table(both)


def test_an_iterable_dataset_is_a_type_error():
    streamed = datasets.Dataset.from_dict({"n": [1, 2]}).to_iterable_dataset()
    with pytest.raises(TypeError, match="an IterableDataset streams its rows"):
        from_huggingface(streamed)


def test_a_null_list_inside_a_tensor_names_the_row():
    inner = pa.array([[1.0, 2.0], None, [5.0, 6.0], [7.0, 8.0]], pa.list_(pa.float32()))
    storage = pa.ListArray.from_arrays(pa.array([0, 2, 4], pa.int32()), inner)
    with pytest.raises(ValueError, match=r"column 'x': row 0 has a null list \(axis 1\)"):
        from_huggingface(_hf_table(storage, (2, 2)))


def test_a_null_value_inside_a_tensor_names_the_row():
    inner = pa.array([[1.0, 2.0], [3.0, 4.0], [5.0, None], [7.0, 8.0]], pa.list_(pa.float32()))
    storage = pa.ListArray.from_arrays(pa.array([0, 2, 4], pa.int32()), inner)
    with pytest.raises(ValueError, match=r"column 'x': row 1 has a null value \(axis 2\)"):
        from_huggingface(_hf_table(storage, (2, 2)))


def test_a_list_of_the_wrong_length_names_row_and_axis():
    inner = pa.array([[1.0, 2.0], [3.0, 4.0], [5.0], [7.0, 8.0]], pa.list_(pa.float32()))
    storage = pa.ListArray.from_arrays(pa.array([0, 2, 4], pa.int32()), inner)
    with pytest.raises(ValueError, match=r"row 1 has 1 entries on axis 1.*\(2, 2\) says 2"):
        from_huggingface(_hf_table(storage, (2, 2)))
    good = pa.array([[1.0, 2.0], [3.0, 4.0], [7.0, 8.0]], pa.list_(pa.float32()))
    short = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), good)
    with pytest.raises(ValueError, match=r"row 1 has 1 entries on axis 0"):
        from_huggingface(_hf_table(short, (2, 2)))


def test_errors_in_a_later_chunk_name_the_row_of_the_column():
    inner = pa.array([[1.0, 2.0], [3.0, 4.0], [5.0], [7.0, 8.0]], pa.list_(pa.float32()))
    storage = pa.ListArray.from_arrays(pa.array([0, 2, 4], pa.int32()), inner)
    good = pa.ListArray.from_arrays(
        pa.array([0, 2, 4], pa.int32()), pa.array([[1.0, 2.0]] * 4, pa.list_(pa.float32()))
    )
    table = _hf_table(storage, (2, 2))
    column = pa.chunked_array(
        [_hf_table(good, (2, 2)).column("x").chunk(0), table.column("x").chunk(0)]
    )
    with pytest.raises(ValueError, match=r"column 'x': row 3 has 1 entries on axis 1"):
        from_huggingface(pa.table({"x": column}))
    short = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), good.values.slice(0, 3))
    column = pa.chunked_array(
        [
            _hf_table(good, (2, 2)).column("x").chunk(0),
            _hf_table(short, (2, 2)).column("x").chunk(0),
        ]
    )
    with pytest.raises(ValueError, match=r"column 'x': row 3 has 1 entries on axis 0"):
        from_huggingface(pa.table({"x": column}))


@pytest.mark.parametrize("text", [b"garbage", b"{}", b'[3, "float32"]', b'[["a"], "f"]'])
def test_unreadable_arrayxd_metadata_names_the_column(text):
    # As read from a file without datasets imported: the type is known
    # only by its extension keys, which may be anything.
    storage = pa.array([[[1.0, 2.0]]], pa.list_(pa.list_(pa.float32())))
    field = pa.field(
        "x",
        storage.type,
        metadata={
            b"ARROW:extension:name": b"datasets.features.features.Array2DExtensionType",
            b"ARROW:extension:metadata": text,
        },
    )
    with pytest.raises(ValueError, match=r"column 'x': its Array2DExtensionType metadata"):
        from_huggingface(pa.table([storage], schema=pa.schema([field])))


def test_non_numeric_values_are_a_type_error():
    features = datasets.Features({"x": datasets.Array2D(shape=(1, 2), dtype="string")})
    ds = datasets.Dataset.from_dict({"x": [[["a", "b"]]]}, features=features)
    with pytest.raises(
        TypeError,
        match=r"column 'x': Array2D of string cannot be a tensor column \(tensor values are "
        r"integers, floats or bools\)",
    ):
        from_huggingface(ds)


def test_the_bridge_is_exported_from_quiver():
    assert qv.from_huggingface is from_huggingface
    assert qv.to_huggingface is to_huggingface
    assert {"from_huggingface", "to_huggingface"} <= set(dir(qv))
    with pytest.raises(AttributeError, match="has no attribute 'from_hugginface'"):
        qv.from_hugginface  # noqa: B018


def test_chunks_with_and_without_nulls_give_one_variable_column():
    features = datasets.Features({"x": datasets.Array2D(shape=(2, 2), dtype="float32")})
    full = datasets.Dataset.from_dict({"x": [np.ones((2, 2))] * 2}, features=features)
    holed = datasets.Dataset.from_dict({"x": [None, np.zeros((2, 2))]}, features=features)
    both = datasets.concatenate_datasets([full, holed])
    assert both.data.table.column("x").num_chunks == 2
    table = from_huggingface(both)
    column = table.column("x")
    assert column.num_chunks == 2
    assert isinstance(column.chunk(0), qv.VariableShapeTensorArray)
    rows = column.combine_chunks().to_numpy()
    assert rows[2] is None
    np.testing.assert_array_equal(rows[3], np.zeros((2, 2)))
    # Back to datasets the first axis the type fixes stays fixed.
    back = to_huggingface(table)
    assert back.features == both.features
    np.testing.assert_array_equal(back.with_format("numpy")[0]["x"], np.ones((2, 2)))
    assert back.data.table.column("x").null_count == 1


def test_an_empty_dataset_keeps_its_types():
    features = datasets.Features({"x": datasets.Array2D(shape=(2, 3), dtype="int8")})
    empty = datasets.Dataset.from_dict({"x": []}, features=features)
    table = from_huggingface(empty)
    assert table.num_rows == 0
    assert str(table.column("x").type) == "fixed_shape_tensor<int8>[2, 3]"
    assert to_huggingface(table).features == features


def test_qv_record_batch_takes_a_dataset(rng):
    features = datasets.Features({"x": datasets.Array2D(shape=(2, 3), dtype="float32")})
    rows = _rows(rng, lambda i: (2, 3), count=3)
    ds = datasets.Dataset.from_dict({"x": rows}, features=features)
    batch = qv.record_batch(ds)
    assert isinstance(batch, qv.RecordBatch)
    np.testing.assert_array_equal(batch.column("x").to_numpy(), np.stack(rows))
    with pytest.raises(TypeError, match="names= goes with a list of columns"):
        qv.table(ds, names=["y"])


def test_a_permuted_variable_shape_column_is_copied_into_logical_order(rng):
    rows = [rng.random((n, 3)).astype(np.float32) for n in (2, 4)]
    column = qv.VariableShapeTensorArray.from_numpy(rows, permutation=[1, 0])
    assert list(column.type.permutation) == [1, 0]
    ds = to_huggingface(qv.table({"x": column}))
    assert ds.features["x"] == datasets.Array2D(shape=(None, 3), dtype="float32")
    for got, want in zip(ds.with_format("numpy")["x"], column.to_numpy()):
        np.testing.assert_array_equal(got, want)
    # uniform_shape is per physical axis: [3, None] is logically (None, 3).
    fixed_rows = qv.VariableShapeTensorArray.from_numpy(
        rows, permutation=[1, 0], uniform_shape=[3, None]
    )
    again = to_huggingface(qv.table({"x": fixed_rows}))
    assert again.features["x"] == datasets.Array2D(shape=(None, 3), dtype="float32")
    # The values were copied: the stored order is not the logical one.
    ours = pa.array(column).storage.field("data").values.buffers()[1].address
    assert _leaf_buffer(ds.data.table.column("x").chunk(0)).buffers()[1].address != ours


def test_null_rows_holding_data_are_compacted(rng):
    # A writer may leave data behind a null row; datasets' lists cannot skip it.
    values = pa.array(np.arange(10, dtype=np.float32))
    data = pa.ListArray.from_arrays(pa.array([0, 4, 8, 10], pa.int32()), values)
    shape = pa.FixedSizeListArray.from_arrays(pa.array([2, 2, 2, 2, 1, 2], pa.int32()), 2)
    storage = pa.StructArray.from_arrays(
        [data, shape], names=["data", "shape"], mask=pa.array([False, True, False])
    )
    column = qv.VariableShapeTensorArray.from_storage(
        qv.variable_shape_tensor("float32", 2), storage
    )
    ds = to_huggingface(qv.table({"x": column}))
    assert ds.features["x"] == datasets.Array2D(shape=(None, 2), dtype="float32")
    assert ds.data.table.column("x").null_count == 1
    np.testing.assert_array_equal(np.asarray(ds["x"][0]), [[0, 1], [2, 3]])
    np.testing.assert_array_equal(np.asarray(ds["x"][2]), [[8, 9]])
