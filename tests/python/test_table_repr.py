"""Reprs of Table, RecordBatch, Schema and Field: tensor types spelled out
(never the storage struct), then a preview of the first rows."""

import numpy as np
import pyarrow as pa

import quiver as qv

CELLS = np.arange(12, dtype=np.int16).reshape(3, 2, 2)


def permuted_column():
    """Cells stored transposed: the type records permutation=[1, 0]."""
    layout = np.ascontiguousarray(CELLS.transpose(0, 2, 1)).transpose(0, 2, 1)
    return qv.FixedShapeTensorArray.from_numpy(
        layout, dim_names=["H", "W"], mask=[False, True, False]
    )


def ragged_column():
    rows = [np.zeros((1, 2), np.uint8), None, np.ones((2, 1), np.uint8)]
    return qv.VariableShapeTensorArray.from_numpy(rows, dim_names=["T", "C"])


def sample_table():
    return qv.table(
        {
            "img": permuted_column(),
            "clip": ragged_column(),
            "label": qv.array(pa.array([7, None, 9], pa.int64())),
        }
    )


def test_table_repr():
    assert repr(sample_table()) == (
        "quiver.Table: 3 rows\n"
        "img: fixed_shape_tensor<int16>[2, 2] dim_names=[W, H] permutation=[1, 0]\n"
        "clip: variable_shape_tensor<uint8, ndim=2> dim_names=[T, C]\n"
        "label: int64\n"
        "----\n"
        "img: [[[0, 1], [2, 3]], null, [[ 8,  9], [10, 11]]]\n"
        "clip: [[[0, 0]], null, [[1], [1]]]\n"
        "label: [7, null, 9]"
    )


def test_schema_and_field_reprs():
    schema = sample_table().schema
    assert repr(schema) == (
        "quiver.Schema\n"
        "img: fixed_shape_tensor<int16>[2, 2] dim_names=[W, H] permutation=[1, 0]\n"
        "clip: variable_shape_tensor<uint8, ndim=2> dim_names=[T, C]\n"
        "label: int64"
    )
    assert repr(schema.field("img")) == (
        "quiver.Field<img: fixed_shape_tensor<int16>[2, 2] dim_names=[W, H] permutation=[1, 0]>"
    )
    not_null = qv.table(
        pa.table({"x": pa.array([1])}, schema=pa.schema([pa.field("x", pa.int8(), False)]))
    )
    assert repr(not_null.schema.field(0)) == "quiver.Field<x: int8 not null>"
    assert str(schema.field("clip").type) == "variable_shape_tensor<uint8, ndim=2> dim_names=[T, C]"


def test_uniform_shape_and_metadata():
    column = qv.VariableShapeTensorArray.from_numpy(
        [np.zeros((4, 3), np.float32)], uniform_shape=[None, 3]
    )
    table = qv.table(
        pa.table({"v": pa.array(column)}).replace_schema_metadata(
            {"origin": "camera " * 20, b"\x00raw": b"\xff\n"}
        )
    )
    assert repr(table.schema) == (
        "quiver.Schema\n"
        "v: variable_shape_tensor<float32, ndim=2> uniform_shape=[null, 3]\n"
        "-- schema metadata --\n"
        "origin: " + ("camera " * 20)[:64] + "...\n"
        "\\x00raw: \\xff\\x0a"
    )


def test_record_batch_repr_with_long_columns():
    cells = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    batch = qv.record_batch(
        pa.record_batch(
            {
                "x": pa.array(qv.FixedShapeTensorArray.from_numpy(cells)),
                "name": pa.array([f"n{i}" for i in range(10)]),
            }
        )
    )
    assert repr(batch) == (
        "quiver.RecordBatch: 10 rows\n"
        "x: fixed_shape_tensor<float32>[3]\n"
        "name: utf8\n"
        "----\n"
        "x: [[0., 1., 2.], [3., 4., 5.], [6., 7., 8.], ...]\n"
        "name: ['n0', 'n1', 'n2', ...]"
    )


def test_nested_tensor_types_and_chunks():
    ext = pa.array(permuted_column())
    nested = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), ext)
    pair = pa.StructArray.from_arrays(
        [pa.array(ragged_column()[:2]), pa.array(["a", None])], ["clip", "tag"]
    )
    chunked = pa.table({"nested": nested, "pair": pair})
    table = qv.table(pa.concat_tables([chunked.slice(0, 1), chunked.slice(1)]))
    text = repr(table)
    assert text.startswith(
        "quiver.Table: 2 rows\n"
        "nested: list<item: fixed_shape_tensor<int16>[2, 2] dim_names=[W, H] permutation=[1, 0]>\n"
        "pair: struct<clip: variable_shape_tensor<uint8, ndim=2> dim_names=[T, C], tag: utf8>\n"
        "----\n"
        "nested: ["
    )
    assert "storage" not in text and "struct<data" not in text
    assert len(text.splitlines()) == 6  # one preview line per column, rows of every chunk


def test_empty_and_one_row_tables():
    empty = qv.table({"img": permuted_column()[:0]})
    assert repr(empty) == (
        "quiver.Table: 0 rows\n"
        "img: fixed_shape_tensor<int16>[2, 2] dim_names=[W, H] permutation=[1, 0]\n"
        "----\n"
        "img: []"
    )
    assert repr(qv.table({"x": qv.array(pa.array([1.5]))})) == (
        "quiver.Table: 1 row\nx: float64\n----\nx: [1.5]"
    )
