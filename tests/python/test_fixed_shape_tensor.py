"""FixedShapeTensorArray: NumPy views, permutations and copies."""

import itertools

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
from conftest import NUMERIC_DTYPES, PERMUTATIONS_3D, sample


def test_type_properties():
    t = qv.fixed_shape_tensor("float32", (3, 4), dim_names=["H", "W"], permutation=[1, 0])
    assert t.value_type == qv.type_for("float32")
    assert t.shape == (3, 4)
    assert t.dim_names == ["H", "W"]
    assert t.permutation == [1, 0]
    assert t.logical_shape == (4, 3)
    assert t.ndim == 2
    assert t.extension_name == "arrow.fixed_shape_tensor"
    assert str(t) == "fixed_shape_tensor<float32>[3, 4] dim_names=[H, W] permutation=[1, 0]"
    assert t == qv.fixed_shape_tensor(np.float32, [3, 4], ["H", "W"], [1, 0])
    assert t != qv.fixed_shape_tensor("float32", (3, 4))
    assert t.serialize() == '{"dim_names":["H","W"],"permutation":[1,0],"shape":[3,4]}'
    assert str(t.storage_type) == "fixed_size_list<item: float32>[12]"


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(shape=(-1, 2)), ValueError, "negative size -1"),
        (dict(shape=(2, 2), permutation=[0, 0]), ValueError, "entry 1 repeats 0"),
        (dict(shape=(2, 2), permutation=[0, 5]), ValueError, r"entry 1 \(5\) is outside 0..1"),
        (dict(shape=(2, 2), dim_names=["a"]), ValueError, "1 dim_names for 2 dimensions"),
        (dict(shape=(1 << 20, 1 << 20)), ValueError, "more than a fixed_size_list holds"),
        (dict(shape=(1 << 32, 1 << 32, 1 << 32)), ValueError, "overflows int64"),
    ],
)
def test_type_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        qv.fixed_shape_tensor("int32", **kwargs)


def test_unknown_value_type():
    with pytest.raises(TypeError, match="dtype complex64 is not a tensor value type"):
        qv.fixed_shape_tensor("complex64", (2,))
    with pytest.raises(TypeError, match="must be numeric, bool or bool8"):
        qv.fixed_shape_tensor(qv.type_from_arrow(pa.utf8()), (2,))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_from_numpy_is_zero_copy_for_every_dtype(dtype):
    x = sample(dtype, (5, 2, 3))
    a = qv.FixedShapeTensorArray.from_numpy(x, dim_names=["H", "W"])
    assert len(a) == 5
    assert a.type.value_type == qv.type_for(dtype)
    assert a.type.dim_names == ["H", "W"]
    y = a.to_numpy()
    assert y.dtype == x.dtype and y.shape == x.shape
    assert y.ctypes.data == x.ctypes.data
    np.testing.assert_array_equal(y, x)
    assert not y.flags.writeable


def test_views_keep_source_alive():
    a = qv.FixedShapeTensorArray.from_numpy(np.arange(12, dtype=np.int64).reshape(3, 4))
    view = a.to_numpy()
    row = a[2]
    del a
    np.testing.assert_array_equal(view[1], [4, 5, 6, 7])
    np.testing.assert_array_equal(row, [8, 9, 10, 11])


@pytest.mark.parametrize("perm", PERMUTATIONS_3D)
def test_to_numpy_follows_spec_permutation(perm):
    shape = (2, 3, 4)
    n = 3
    physical = np.arange(n * 24, dtype=np.float64).reshape((n,) + shape)
    a = qv.FixedShapeTensorArray.from_numpy(physical)  # no permutation: physical cells
    # Re-label the same storage with permutation P through pyarrow.
    t = pa.fixed_shape_tensor(pa.float64(), shape, permutation=perm)
    permuted = qv.array(pa.ExtensionArray.from_storage(t, pa.array(a).storage))
    expected = physical.transpose([0] + [p + 1 for p in perm])
    got = permuted.to_numpy()
    np.testing.assert_array_equal(got, expected)
    assert got.ctypes.data == physical.ctypes.data
    for i in range(n):
        np.testing.assert_array_equal(permuted[i], physical[i].transpose(perm))


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_from_numpy_of_transposed_block_is_zero_copy(order):
    base = np.arange(4 * 2 * 3 * 5, dtype=np.int32).reshape(4, 2, 3, 5)
    view = base.transpose([0] + [q + 1 for q in order])
    a = qv.FixedShapeTensorArray.from_numpy(view, dim_names=["a", "b", "c"], copy=False)
    back = a.to_numpy()
    assert back.ctypes.data == base.ctypes.data
    assert back.shape == view.shape and back.strides == view.strides
    np.testing.assert_array_equal(back, view)
    # The type stores the physical layout and the spec's permutation.
    assert a.type.shape == (2, 3, 5)
    assert a.type.logical_shape == view.shape[1:]
    identity = list(order) == [0, 1, 2]
    assert a.type.permutation == (None if identity else list(order))
    phys_names = [None] * 3
    for i, q in enumerate(order):
        phys_names[q] = ["a", "b", "c"][i]
    assert a.type.dim_names == phys_names


def test_fortran_cells_are_zero_copy_with_reversed_permutation():
    base = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 4, 3)
    view = base.transpose(0, 2, 1)  # each cell is Fortran-ordered (3, 4)
    a = qv.FixedShapeTensorArray.from_numpy(view, copy=False)
    assert a.type.permutation == [1, 0]
    assert a.type.shape == (4, 3)
    assert a.to_numpy().ctypes.data == base.ctypes.data


def test_non_contiguous_copies_only_when_allowed():
    base = np.arange(6 * 8, dtype=np.float32).reshape(6, 8)
    strided = base[:, ::2]
    with pytest.raises(ValueError, match="a copy is needed"):
        qv.FixedShapeTensorArray.from_numpy(strided, copy=False)
    a = qv.FixedShapeTensorArray.from_numpy(strided)  # copy=None: copy if needed
    np.testing.assert_array_equal(a.to_numpy(), strided)
    assert a.to_numpy().ctypes.data != base.ctypes.data
    rows_reversed = base[::-1]
    with pytest.raises(ValueError, match="a copy is needed"):
        qv.FixedShapeTensorArray.from_numpy(rows_reversed, copy=False)
    np.testing.assert_array_equal(
        qv.FixedShapeTensorArray.from_numpy(rows_reversed).to_numpy(), rows_reversed
    )
    dense = np.ones((3, 2), dtype=np.int8)
    forced = qv.FixedShapeTensorArray.from_numpy(dense, copy=True)
    assert forced.to_numpy().ctypes.data != dense.ctypes.data


def test_indexing_and_slicing():
    x = np.arange(5 * 2, dtype=np.int16).reshape(5, 2)
    a = qv.FixedShapeTensorArray.from_numpy(x)
    np.testing.assert_array_equal(a[0], [0, 1])
    np.testing.assert_array_equal(a[-1], [8, 9])
    with pytest.raises(IndexError, match="index 5 is out of range for 5 rows"):
        a[5]
    s = a[1:4]
    assert isinstance(s, qv.FixedShapeTensorArray)
    assert len(s) == 3 and s.offset == 1
    np.testing.assert_array_equal(s.to_numpy(), x[1:4])
    assert s.to_numpy().ctypes.data == x[1:].ctypes.data
    np.testing.assert_array_equal(a[::2].to_numpy(), x[::2])  # a step takes (copies)
    assert [r.tolist() for r in a] == x.tolist()


def test_zero_size_and_empty():
    empty_cells = qv.FixedShapeTensorArray.from_numpy(np.zeros((3, 0, 2), dtype=np.float32))
    assert len(empty_cells) == 3 and empty_cells.to_numpy().shape == (3, 0, 2)
    no_rows = qv.FixedShapeTensorArray.from_numpy(np.zeros((0, 4), dtype=np.uint8))
    assert len(no_rows) == 0 and no_rows.to_numpy().shape == (0, 4)


def test_numpy_bools_are_stored_as_bool8_without_a_copy():
    x = np.array([[True, False], [False, True], [True, True]])
    a = qv.FixedShapeTensorArray.from_numpy(x)
    assert a.type.value_type.extension_name == "arrow.bool8"
    y = a.to_numpy()
    assert y.dtype == np.bool_ and y.ctypes.data == x.ctypes.data
    theirs = pa.array(a)
    assert theirs.type.value_type == pa.bool8()
    np.testing.assert_array_equal(qv.array(theirs).to_numpy(), x)


def test_from_numpy_rejects_bad_input():
    with pytest.raises(TypeError, match="dtype complex64 .complex numbers."):
        qv.FixedShapeTensorArray.from_numpy(np.zeros((2, 2), dtype=np.complex64))
    with pytest.raises(ValueError, match="row axis"):
        qv.FixedShapeTensorArray.from_numpy(np.float32(1.0).reshape(()))
    with pytest.raises(ValueError, match="dim_names has 1 entries for cells of 2 dimensions"):
        qv.FixedShapeTensorArray.from_numpy(np.zeros((2, 2, 2)), dim_names=["a"])


def test_tensor_round_trip():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1)
    t = qv.Tensor.from_numpy(x, dim_names=["c", "a", "b"])
    assert t.shape == x.shape
    assert t.strides == x.strides
    assert t.dim_names == ["c", "a", "b"]
    assert t.type == qv.type_for("float64")
    assert not t.is_contiguous
    y = t.to_numpy()
    assert y.ctypes.data == x.ctypes.data
    np.testing.assert_array_equal(y, x)
    c = t.to_contiguous()
    assert c.is_contiguous and c.equals(t)
    np.testing.assert_array_equal(c.to_numpy(), x)
    neg = qv.Tensor.from_numpy(np.arange(5, dtype=np.int32)[::-1])
    np.testing.assert_array_equal(neg.to_numpy(), [4, 3, 2, 1, 0])
    scalar = qv.Tensor.from_numpy(np.array(7, dtype=np.uint16))
    assert scalar.shape == () and scalar.to_numpy() == 7
    with pytest.raises(ValueError, match="1 dim_names"):
        qv.Tensor.from_numpy(np.zeros((2, 2)), dim_names=["x"])


def test_fixed_shape_array_to_tensor():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = qv.FixedShapeTensorArray.from_numpy(x)
    t = a.to_tensor()
    assert t.shape == (3, 4)
    assert t.to_numpy().ctypes.data == x.ctypes.data


def cells(n=4):
    return np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)


def test_fixed_shape_take_filter_concat_slices():
    x = cells(6)
    col = qv.FixedShapeTensorArray.from_numpy(x, mask=[False, False, True, False, False, False])
    taken = col.take([5, 0, 2])
    np.testing.assert_array_equal(taken[0], x[5])
    assert taken.null_count == 1 and not taken.is_valid(2)
    np.testing.assert_array_equal(col.filter(np.arange(6) < 2).to_numpy(), x[:2])
    np.testing.assert_array_equal(col[::-2].to_numpy(allow_nulls=True)[[0, 2]], x[::-2][[0, 2]])
    joined = qv.concat([col[:2], col[4:]])
    np.testing.assert_array_equal(joined.to_numpy(), x[[0, 1, 4, 5]])
    with pytest.raises(TypeError, match="indices must be integers, got dtype float64"):
        col.take([0.7])
    with pytest.raises(TypeError, match="mask must hold bools"):
        col.filter([1, 0, 1, 0, 1, 0])
    with pytest.raises(TypeError, match="fixed- and variable-shape"):
        qv.concat([col, col.to_variable()])
    back = qv.FixedShapeTensorArray.from_storage(col.type, col.storage)
    assert back == col
    back = qv.FixedShapeTensorArray.from_storage(col.type, pa.array(col).storage)
    assert back == col
    with pytest.raises(TypeError, match="storage has type"):
        qv.FixedShapeTensorArray.from_storage(qv.fixed_shape_tensor("int8", (6,)), col.storage)
    v = qv.VariableShapeTensorArray.from_numpy([np.ones(2), None])
    assert qv.VariableShapeTensorArray.from_storage(v.type, v.storage) == v


def test_to_numpy_into_a_reusable_output():
    col = qv.FixedShapeTensorArray.from_numpy(
        np.ascontiguousarray(cells().transpose(0, 2, 1)).transpose(0, 2, 1)
    )
    out = np.empty((4, 2, 3), np.float32)
    assert col.to_numpy(out=out) is out
    np.testing.assert_array_equal(out, cells())
    with pytest.raises(TypeError, match="out has dtype float64"):
        col.to_numpy(out=np.empty((4, 2, 3)))
    with pytest.raises(ValueError, match="out has shape"):
        col.to_numpy(out=np.empty((4, 3, 2), np.float32))
    with pytest.raises(TypeError, match="C-contiguous"):
        col.to_numpy(out=np.empty((4, 2, 6), np.float32)[:, :, ::2])
    with pytest.raises(TypeError, match="C-contiguous"):
        col.to_numpy(out=[[0.0]])
    frozen = np.empty((4, 2, 3), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        col.to_numpy(out=frozen)
