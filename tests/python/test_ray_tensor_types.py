"""Ray Data's tensor types against the real Ray: ArrowTensorType (v1,
list<T>), ArrowTensorTypeV2 (large_list<T>) and ArrowVariableShapedTensorType
to the canonical types and back, the values buffers shared where the layout
allows (checked by address) and the copies where it does not; errors for
rows that do not match their shape; quiver.ray.read_ipc and write_ipc with
datasets Ray made itself, under both of Ray's fixed-shape formats, and with
IPC files that hold Ray's types."""

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")
pytest.importorskip(
    "ray.data", reason="Ray is an optional extra: pip install 'quiver-tensors[ray]'"
)

import quiver.ray as qr  # noqa: E402
from ray.data._internal.tensor_extensions.arrow import (  # noqa: E402
    ArrowTensorArray,
    ArrowTensorType,
    ArrowTensorTypeV2,
    ArrowVariableShapedTensorArray,
    FixedShapeTensorFormat,
)
from ray.data.context import DataContext  # noqa: E402

FORMATS = {"v1": FixedShapeTensorFormat.V1, "v2": FixedShapeTensorFormat.V2}
RAY_NAMES = {"v1": "ray.data.arrow_tensor", "v2": "ray.data.arrow_tensor_v2"}


def first_value_address(values):
    """Where the first value of a primitive pyarrow array lies in memory."""
    return values.buffers()[1].address + values.offset * values.type.bit_width // 8


def canonical_column(x, **kwargs):
    return pa.array(qv.FixedShapeTensorArray.from_numpy(x, **kwargs))


def column(table, name):
    return table.column(name).chunk(0)


def ray_fixed(x, version):
    """Ray's own fixed-shape array of `x`, made by Ray under `version`."""
    context = DataContext.get_current()
    before = context.arrow_fixed_shape_tensor_format
    context.arrow_fixed_shape_tensor_format = FORMATS[version]
    try:
        return ArrowTensorArray.from_numpy(x)
    finally:
        context.arrow_fixed_shape_tensor_format = before


# --- conversions (no cluster) --------------------------------------------------


def test_ray_defaults_to_v2():
    assert DataContext().arrow_fixed_shape_tensor_format == FixedShapeTensorFormat.V2


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_canonical_to_ray_and_back_shares_the_values(version):
    x = np.arange(5 * 6, dtype=np.float32).reshape(5, 2, 3)
    canonical = canonical_column(x)
    address = first_value_address(canonical.storage.values)
    ray_table = qr.to_ray_types(pa.table({"x": canonical}), fixed=version)
    ray_column = column(ray_table, "x")
    assert ray_column.type.extension_name == RAY_NAMES[version]
    assert isinstance(ray_column.type, ArrowTensorType if version == "v1" else ArrowTensorTypeV2)
    assert ray_column.type.shape == (2, 3)
    assert first_value_address(ray_column.storage.values) == address
    np.testing.assert_array_equal(ray_column.to_numpy(), x)
    back = column(qr.to_canonical_types(ray_table), "x")
    assert back.type.extension_name == "arrow.fixed_shape_tensor"
    assert first_value_address(back.storage.values) == address
    np.testing.assert_array_equal(qv.array(back).to_numpy(), x)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_sliced_canonical_column_reaches_ray_as_a_view(version):
    # Ray reads fixed-shape rows from the start of the values buffer, so the
    # slice must reach it as a buffer that starts at its first row.
    x = np.arange(6 * 4, dtype=np.float32).reshape(6, 2, 2)
    canonical = canonical_column(x)
    sliced = canonical.slice(1, 3)
    ray_column = column(qr.to_ray_types(pa.table({"x": sliced}), fixed=version), "x")
    assert (
        ray_column.storage.values.buffers()[1].address
        == first_value_address(canonical.storage.values) + 1 * 4 * 4
    )
    np.testing.assert_array_equal(ray_column.to_numpy(), x[1:4])
    # Null rows stay null.
    storage = canonical.storage
    mask = pa.array([False, False, True, False, False, False])
    with_null = pa.ExtensionArray.from_storage(
        canonical.type, pa.FixedSizeListArray.from_arrays(storage.values, 4, mask=mask)
    )
    ray_nulls = column(qr.to_ray_types(pa.table({"x": with_null.slice(1, 3)}), fixed=version), "x")
    assert ray_nulls.storage.is_null().to_pylist() == [False, True, False]
    back = column(qr.to_canonical_types(pa.table({"x": ray_nulls})), "x")
    assert back.is_null().to_pylist() == [False, True, False]
    np.testing.assert_array_equal(back.storage.values.to_numpy().reshape(3, 2, 2), x[1:4])


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_bool_tensors_reach_ray_as_bools(version):
    # quiver's bool tensors hold arrow.bool8 bytes; Ray reads plain bools.
    x = np.array([[True, False], [False, False], [True, True]])
    canonical = canonical_column(x)
    ray_column = column(qr.to_ray_types(pa.table({"x": canonical.slice(1, 2)}), fixed=version), "x")
    assert ray_column.type.value_type == pa.bool_()
    np.testing.assert_array_equal(ray_column.to_numpy(), x[1:])
    back = qv.array(column(qr.to_canonical_types(pa.table({"x": ray_column})), "x"))
    np.testing.assert_array_equal(back.to_numpy(), x[1:])


def test_a_ragged_column_whose_null_rows_have_null_shapes_reaches_ray():
    # The spec lets a null row's shape be null too; every other row keeps
    # its own shape (the shapes are not taken as a list that skips nulls).
    data = pa.ListArray.from_arrays(pa.array([0, 2, 2, 5], pa.int32()), pa.array([1.0, 2, 3, 4, 5]))
    null = pa.array([False, True, False])
    shape = pa.FixedSizeListArray.from_arrays(pa.array([2, 0, 3], pa.int32()), 1, mask=null)
    storage = pa.StructArray.from_arrays([data, shape], names=["data", "shape"], mask=null)
    quiver_type = qv.variable_shape_tensor(pa.float64(), 1)
    canonical = pa.ExtensionArray.from_storage(
        pa.DataType._import_from_c_capsule(quiver_type.__arrow_c_schema__()), storage
    )
    ray_column = column(qr.to_ray_types(pa.table({"r": canonical})), "r")
    assert ray_column.storage.is_null().to_pylist() == [False, True, False]
    rows = ray_column.to_numpy(zero_copy_only=False)
    np.testing.assert_array_equal(rows[0], [1.0, 2.0])
    np.testing.assert_array_equal(rows[2], [3.0, 4.0, 5.0])


def test_a_sliced_ragged_column_reaches_ray_with_its_own_rows():
    # Ray reads ragged rows at their offsets from the values buffer's start.
    rows = [np.arange(2 * n, dtype=np.float64).reshape(2, n) + n for n in (1, 3, 2, 4)]
    canonical = pa.array(qv.VariableShapeTensorArray.from_numpy(rows))
    ray_column = column(qr.to_ray_types(pa.table({"r": canonical.slice(1, 2)})), "r")
    got = ray_column.to_numpy()
    assert len(got) == 2
    for row, want in zip(got, rows[1:3]):
        np.testing.assert_array_equal(row, want)
    assert first_value_address(ray_column.storage.field("data").values) == first_value_address(
        canonical.storage.field("data").values
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_rays_own_arrays_become_views(version):
    x = np.arange(6 * 6, dtype=np.int16).reshape(6, 3, 2)
    made = ray_fixed(x, version)
    assert made.type.extension_name == RAY_NAMES[version]
    # A slice starts its offsets past zero: still a view of the same values.
    sliced = made.slice(2, 3)
    canonical = column(qr.to_canonical_types(pa.table({"x": sliced})), "x")
    assert (
        first_value_address(canonical.storage.values)
        == first_value_address(made.storage.values) + 2 * 6 * 2
    )
    np.testing.assert_array_equal(qv.array(canonical).to_numpy(), x[2:5])
    empty = column(qr.to_canonical_types(pa.table({"x": made.slice(0, 0)})), "x")
    assert len(empty) == 0 and empty.type.shape == [3, 2]
    # One axis per tensor.
    vectors = ray_fixed(np.arange(12, dtype=np.float64).reshape(4, 3), version)
    flat = column(qr.to_canonical_types(pa.table({"v": vectors})), "v")
    assert flat.type.shape == [3]
    np.testing.assert_array_equal(qv.array(flat).to_numpy(), np.arange(12).reshape(4, 3))


def ray_with_storage(version, offsets, values, mask=None):
    list_class = pa.ListArray if version == "v1" else pa.LargeListArray
    ray_type = (ArrowTensorType if version == "v1" else ArrowTensorTypeV2)((2, 2), pa.float32())
    storage = list_class.from_arrays(pa.array(offsets), pa.array(values, pa.float32()), mask=mask)
    return pa.ExtensionArray.from_storage(ray_type, storage)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_null_rows(version):
    values = np.arange(12, dtype=np.float32)
    # Null rows backed by values, as Ray writes them: a view.
    backed = ray_with_storage(version, [0, 4, 8, 12], values, pa.array([False, True, False]))
    canonical = column(qr.to_canonical_types(pa.table({"x": backed})), "x")
    assert canonical.null_count == 1 and not canonical.is_valid()[1].as_py()
    assert first_value_address(canonical.storage.values) == first_value_address(
        backed.storage.values
    )
    # A null row without values: the column is copied, the rows in place.
    empty_null = ray_with_storage(version, [0, 4, 4, 8], values[:8], pa.array([False, True, False]))
    copied = column(qr.to_canonical_types(pa.table({"x": empty_null})), "x")
    assert copied.null_count == 1
    rows = copied.to_pylist()
    assert rows[0] == [0, 1, 2, 3] and rows[1] is None and rows[2] == [4, 5, 6, 7]


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("value_type", [pa.bool_(), pa.float16(), pa.uint64()])
def test_a_null_row_without_values_of_any_value_type(version, value_type):
    # The copy fills the null row with zeros of the column's value type.
    list_class = pa.ListArray if version == "v1" else pa.LargeListArray
    ray_type = (ArrowTensorType if version == "v1" else ArrowTensorTypeV2)((2,), value_type)
    values = pa.array([1, 0, 0, 1], pa.int8()).cast(value_type)
    storage = list_class.from_arrays(
        pa.array([0, 2, 2, 4]), values, mask=pa.array([False, True, False])
    )
    ray_column = pa.ExtensionArray.from_storage(ray_type, storage)
    back = qv.array(column(qr.to_canonical_types(pa.table({"x": ray_column})), "x"))
    rows = back.to_numpy(allow_nulls=True)
    assert back.null_count == 1
    np.testing.assert_array_equal(rows[[0, 2]].astype(np.int8), [[1, 0], [0, 1]])


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_zero_size_tensors_keep_their_rows_both_ways(version, shape):
    x = np.zeros((4, *shape), np.float32)
    ray_table = qr.to_ray_types(pa.table({"x": canonical_column(x)}), fixed=version)
    assert column(ray_table, "x").to_numpy().shape == x.shape
    back = qv.array(column(qr.to_canonical_types(ray_table), "x"))
    assert back.to_numpy().shape == x.shape


def test_conversions_keep_the_schema_and_field_metadata():
    ray_column = ray_fixed(np.arange(12.0).reshape(3, 2, 2), "v2")
    schema = pa.schema(
        [
            pa.field("x", ray_column.type, metadata={"about": "x"}),
            pa.field("y", pa.int64(), metadata={"about": "y"}),
        ],
        metadata={"origin": "test"},
    )
    table = pa.Table.from_arrays([ray_column, pa.array([1, 2, 3])], schema=schema)
    canonical = qr.to_canonical_types(table)
    ray_again = qr.to_ray_types(canonical, fixed="v1")
    for converted in (canonical, ray_again, pa.table(qv.table(table))):
        assert converted.schema.metadata == {b"origin": b"test"}
        assert converted.schema.field("x").metadata == {b"about": b"x"}
        assert converted.schema.field("y").metadata == {b"about": b"y"}
    assert canonical.schema.field("x").type.extension_name == "arrow.fixed_shape_tensor"


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_row_that_does_not_match_its_shape_is_named(version):
    bad = ray_with_storage(version, [0, 4, 7, 11], np.arange(11, dtype=np.float32))
    with pytest.raises(
        ValueError,
        match=r"row 1 of the Ray tensor column holds 3 values, its shape \[2, 2\] needs 4",
    ):
        qr.to_canonical_types(pa.table({"x": bad}))


def test_permuted_columns_are_copied_into_logical_order_for_ray():
    physical = np.arange(4 * 6, dtype=np.int32).reshape(4, 2, 3)
    canonical = pa.array(
        qv.FixedShapeTensorArray.from_storage(
            qv.fixed_shape_tensor("int32", (2, 3), dim_names=["H", "W"], permutation=[1, 0]),
            qv.array(pa.FixedSizeListArray.from_arrays(pa.array(physical.reshape(-1)), 6)),
        )
    )
    ray_column = column(qr.to_ray_types(pa.table({"x": canonical}), fixed="v2"), "x")
    assert ray_column.type.shape == (3, 2)
    np.testing.assert_array_equal(ray_column.to_numpy(), physical.transpose(0, 2, 1))
    back = qv.array(column(qr.to_canonical_types(pa.table({"x": ray_column})), "x"))
    np.testing.assert_array_equal(back.to_numpy(), physical.transpose(0, 2, 1))
    assert back.type.permutation is None and back.type.dim_names is None


def test_fixed_must_be_a_known_format():
    with pytest.raises(ValueError, match="fixed must be one of 'canonical', 'v1', 'v2', got 'v3'"):
        qr.to_ray_types(pa.table({"x": canonical_column(np.ones((2, 2), np.float32))}), fixed="v3")
    with pytest.raises(ValueError, match="fixed must be one of"):
        qr.read_ipc("anything", fixed="native")


def test_ragged_values_shared_both_ways():
    rows = [np.arange(2 * n, dtype=np.float64).reshape(2, n) for n in (1, 3, 2)]
    canonical = pa.array(qv.VariableShapeTensorArray.from_numpy(rows))
    address = first_value_address(canonical.storage.field("data").values)
    ray_column = column(qr.to_ray_types(pa.table({"r": canonical})), "r")
    assert ray_column.type.extension_name == "ray.data.arrow_variable_shaped_tensor"
    assert first_value_address(ray_column.storage.field("data").values) == address
    back = column(qr.to_canonical_types(pa.table({"r": ray_column})), "r")
    assert first_value_address(back.storage.field("data").values) == address
    for got, want in zip(qv.array(back).to_numpy(), rows):
        np.testing.assert_array_equal(got, want)
    # Ray's own ragged array.
    made = ArrowVariableShapedTensorArray.from_numpy(rows)
    from_ray = qv.array(column(qr.to_canonical_types(pa.table({"r": made})), "r"))
    assert [tuple(s) for s in from_ray.shapes()] == [(2, 1), (2, 3), (2, 2)]


def write_with_pyarrow(table, path):
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


# --- datasets (a real local Ray) ------------------------------------------------


@pytest.fixture(params=["v1", "v2", "native"])
def ray_format(request):
    # Ray 2.60's three fixed-shape formats: its v1 and v2 types, and
    # "native", pyarrow's arrow.fixed_shape_tensor.
    formats = {**FORMATS, "native": FixedShapeTensorFormat.ARROW_NATIVE}
    context = DataContext.get_current()
    before = context.arrow_fixed_shape_tensor_format
    context.arrow_fixed_shape_tensor_format = formats[request.param]
    yield request.param
    context.arrow_fixed_shape_tensor_format = before


def read_quiver(paths):
    return qv.concat_tables([qv.ipc.open_file(p).read_all() for p in paths])


def test_datasets_made_by_ray_are_written_canonical(ray, ray_format, tmp_path):
    images = np.arange(6 * 12, dtype=np.float32).reshape(6, 3, 4)
    ds = ray.data.from_numpy(images)
    names = {**RAY_NAMES, "native": "arrow.fixed_shape_tensor"}
    assert ds.schema().base_schema.field("data").type.extension_name == names[ray_format]
    table = read_quiver(qr.write_ipc(ds, tmp_path / "fixed"))
    assert table["data"].type.extension_name == "arrow.fixed_shape_tensor"
    np.testing.assert_array_equal(table["data"].to_numpy(), images)

    rows = [np.full((n, 2), n, np.int64) for n in (1, 3, 2, 4)]
    ragged = ray.data.from_items([{"r": r, "i": i} for i, r in enumerate(rows)])
    table = read_quiver(qr.write_ipc(ragged, tmp_path / "ragged"))
    assert table["r"].type.extension_name == "arrow.variable_shape_tensor"
    order = np.argsort(table.to_pyarrow().column("i").to_numpy())
    got = table["r"].to_numpy()
    for k, i in enumerate(order):
        np.testing.assert_array_equal(got[i], rows[k])


def test_blocks_ray_typed_fixed_are_written_ragged_when_asked(ray, tmp_path):
    # After map_batches Ray no longer knows the column is ragged: each
    # one-row block comes out as a fixed-shape tensor of its own shape.
    rows = [np.full((n, 2), n, np.float32) for n in (1, 3, 2)]
    ds = ray.data.from_items([{"r": r, "i": i} for i, r in enumerate(rows)], override_num_blocks=3)
    mapped = ds.map_batches(lambda batch: batch, batch_format="pyarrow")
    paths = qr.write_ipc(mapped, tmp_path / "ragged", ragged=["r"])
    schemas = {str(qv.ipc.open_file(p).schema) for p in paths}
    assert len(schemas) == 1 and "variable_shape_tensor<float32, ndim=2>" in schemas.pop()
    table = read_quiver(paths)
    by_id = dict(zip(table.to_pyarrow().column("i").to_numpy().tolist(), table["r"].to_numpy()))
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(by_id[i], row)
    with pytest.raises(Exception, match="ragged column 'i' holds int64, not a tensor type"):
        qr.write_ipc(mapped, tmp_path / "bad", ragged=["i"])


def test_from_arrow_with_canonical_types_written_and_read_back(ray, tmp_path):
    images = np.arange(4 * 6, dtype=np.uint8).reshape(4, 2, 3)
    rows = [np.ones((2, n), np.float32) * n for n in (1, 2, 3, 4)]
    source = pa.table(
        {
            "img": canonical_column(images),
            "r": pa.array(qv.VariableShapeTensorArray.from_numpy(rows)),
        }
    )
    table = read_quiver(qr.write_ipc(ray.data.from_arrow(qr.to_ray_types(source)), tmp_path))
    np.testing.assert_array_equal(table["img"].to_numpy(), images)
    for got, want in zip(table["r"].to_numpy(), rows):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fixed", ["canonical", "v1", "v2"])
def test_quiver_files_read_by_ray_equal_the_source(ray, fixed, tmp_path):
    images = np.arange(5 * 6, dtype=np.float64).reshape(5, 3, 2)
    rows = [np.arange(3 * n, dtype=np.int32).reshape(n, 3) for n in (2, 1, 4, 3, 1)]
    path = tmp_path / "q.arrow"
    qv.ipc.write_file(
        qv.table({"img": images, "r": qv.VariableShapeTensorArray.from_numpy(rows)}), str(path)
    )
    ds = qr.read_ipc(path, fixed=fixed)
    expected_name = {"canonical": "arrow.fixed_shape_tensor", **RAY_NAMES}[fixed]
    assert ds.schema().base_schema.field("img").type.extension_name == expected_name
    batch = ds.take_batch(5, batch_format="numpy")
    np.testing.assert_array_equal(batch["img"], images)
    assert len(batch["r"]) == 5
    for got, want in zip(batch["r"], rows):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_ipc_files_holding_rays_types(ray, version, tmp_path):
    images = np.arange(4 * 4, dtype=np.float32).reshape(4, 2, 2)
    rows = [np.full((n, 2), n, np.float64) for n in (1, 2, 3, 4)]
    ray_table = pa.table(
        {"img": ray_fixed(images, version), "r": ArrowVariableShapedTensorArray.from_numpy(rows)}
    )
    path = tmp_path / "ray.arrow"
    write_with_pyarrow(ray_table, path)
    ds = qr.read_ipc(path)
    batch = ds.take_batch(4, batch_format="numpy")
    np.testing.assert_array_equal(batch["img"], images)
    for got, want in zip(batch["r"], rows):
        np.testing.assert_array_equal(got, want)
    table = read_quiver(qr.write_ipc(ds, tmp_path / "out"))
    assert table["img"].type.extension_name == "arrow.fixed_shape_tensor"
    assert table["r"].type.extension_name == "arrow.variable_shape_tensor"
    np.testing.assert_array_equal(table["img"].to_numpy(), images)
    # The same file's Ray types, read by quiver alone, convert as well.
    raw = qv.ipc.open_file(str(path)).read_all()
    canonical = qv.table(qr.to_canonical_types(raw))
    np.testing.assert_array_equal(canonical["img"].to_numpy(), images)
