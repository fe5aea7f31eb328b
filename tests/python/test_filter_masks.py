"""filter() masks with nulls, side by side with pyarrow: a null in the mask
(an Arrow null in a pyarrow or quiver boolean array or chunked array, a
numpy.ma masked entry, a None in a list) selects nothing, as pyarrow's
default null_selection_behavior="drop" has it; at every filter entry
point (Table, RecordBatch, ChunkedArray, FixedShapeTensorArray,
VariableShapeTensorArray)."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

ROWS = 6
VALUES = [True, None, False, True, None, True]  # None: null
MASKED = [v is None for v in VALUES]


def _data():
    cells = np.arange(ROWS * 4, dtype=np.float32).reshape(ROWS, 2, 2)
    fixed = pa.FixedShapeTensorArray.from_numpy_ndarray(cells)
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.full((r % 3, 2), r, np.int32) for r in range(ROWS)]
    )
    table = pa.table(
        {
            "i": pa.chunked_array([[0, 1, 2], [3, 4, 5]], pa.int64()),
            "s": pa.array(list("abcdef")),
            "fixed": fixed,
            "ragged": pa.array(ragged),
        }
    )
    return table, fixed, ragged


TABLE, FIXED, RAGGED = _data()


def _masks():
    """name -> a mask whose nulls sit where VALUES has None."""
    filled = [bool(v) for v in VALUES]
    return {
        "pyarrow_array": pa.array(VALUES, pa.bool_()),
        "pyarrow_sliced": pa.array([False] + VALUES, pa.bool_()).slice(1),
        "pyarrow_chunked": pa.chunked_array([VALUES[:2], [], VALUES[2:]], pa.bool_()),
        "quiver_array": qv.array(pa.array(VALUES, pa.bool_())),
        "quiver_chunked": qv.chunked_array(pa.chunked_array([VALUES[:4], VALUES[4:]], pa.bool_())),
        # The data under a masked entry is True: masked means null, not its value.
        "numpy_ma": np.ma.masked_array(
            [True if m else f for f, m in zip(filled, MASKED)], mask=MASKED
        ),
        "list_with_none": list(VALUES),
        "bool8": qv.array(
            pa.ExtensionArray.from_storage(
                pa.bool8(), pa.array([None if v is None else 2 * int(v) for v in VALUES], pa.int8())
            )
        )
        if hasattr(pa, "bool8")
        else None,
    }


MASKS = {k: v for k, v in _masks().items() if v is not None}
WANT = pa.array(VALUES, pa.bool_())  # pyarrow's reading of the mask


def _pa_filter(obj):
    return obj.filter(WANT)  # null_selection_behavior="drop" by default


@pytest.mark.parametrize("name", sorted(MASKS))
def test_table_and_batch(name):
    mask = MASKS[name]
    got = qv.table(TABLE).filter(mask)
    assert pa.table(got).equals(_pa_filter(TABLE))
    assert got.num_rows == 3
    batch = TABLE.combine_chunks().to_batches()[0]
    got_batch = qv.record_batch(batch).filter(mask)
    assert pa.record_batch(got_batch).equals(_pa_filter(batch))


@pytest.mark.parametrize("name", sorted(MASKS))
def test_chunked_array(name):
    column = TABLE.column("s")
    got = qv.chunked_array(column).filter(MASKS[name])
    assert pa.chunked_array(got).combine_chunks().equals(_pa_filter(column).combine_chunks())


@pytest.mark.parametrize("name", sorted(MASKS))
def test_tensor_columns(name):
    fixed = qv.array(FIXED).filter(MASKS[name])
    assert pa.array(fixed).equals(_pa_filter(FIXED))
    ragged = RAGGED.filter(MASKS[name])
    want = [RAGGED[i] for i in (0, 3, 5)]
    assert len(ragged) == 3
    for got, row in zip(ragged.to_numpy(), want):
        np.testing.assert_array_equal(got, row)
    assert pa.array(ragged).equals(_pa_filter(pa.array(RAGGED)))


def test_numpy_ma_without_masked_entries_is_its_data():
    data = np.array([True, False, True, True, False, False])
    for mask in (np.ma.masked_array(data), np.ma.masked_array(data, mask=np.ma.nomask)):
        assert qv.table(TABLE).filter(mask).num_rows == 3


def test_bad_masks_are_refused():
    table = qv.table(TABLE)
    with pytest.raises(TypeError, match="the mask is int64; a filter mask holds booleans"):
        table.filter(pa.array(range(ROWS)))
    with pytest.raises(TypeError, match="mask chunk 0 is utf8"):
        table.filter(pa.chunked_array([["a"] * 3, ["b"] * 3]))
    with pytest.raises(TypeError, match="mask entry 2 is str"):
        table.filter([True, None, "x", True, True, True])
    with pytest.raises(TypeError, match="mask must hold bools, got dtype <U"):
        table.filter(["a"] * ROWS)
    with pytest.raises(TypeError, match="mask must hold bools, got dtype int64"):
        table.filter(np.ma.masked_array(np.ones(ROWS, np.int64)))
    with pytest.raises(ValueError, match="mask must be one-dimensional"):
        table.filter(np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="filter mask has 5 entries for 6 rows"):
        table.filter(pa.array(VALUES[:5], pa.bool_()))
    with pytest.raises(ValueError, match="filter mask has 5 entries for 6 rows"):
        table.filter(np.ma.masked_array(np.ones(5, bool), mask=[True] + [False] * 4))
    # An empty chunked mask of another type names it too.
    with pytest.raises(TypeError, match="is int32"):
        qv.table(TABLE.slice(0, 0)).filter(pa.chunked_array([], pa.int32()))
    assert qv.table(TABLE.slice(0, 0)).filter(pa.chunked_array([], pa.bool_())).num_rows == 0
