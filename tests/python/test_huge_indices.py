"""Indices that no int64 holds (np.uint64(2**64 - 1), Python ints beyond
64 bits) are IndexErrors that quote the index as written, for row access,
take() and tensor indexing alike: never a wrapped -1, a clipped value or a
TypeError about overloads."""

import re

import numpy as np
import pytest

import quiver as qv

HUGE = [np.uint64(2**64 - 1), 2**64 - 1, 2**63, 2**70, -(2**63) - 1, np.uint64(2**63)]


def columns():
    fixed = qv.FixedShapeTensorArray.from_numpy(np.zeros((4, 2), np.float32))
    ragged = qv.VariableShapeTensorArray.from_numpy([np.zeros(2)] * 4)
    table = qv.table({"x": np.arange(4), "f": fixed})
    return {
        "fixed": fixed,
        "ragged": ragged,
        "chunked": table["x"],
        "chunked_fixed": table["f"],
        "table": table,
    }


@pytest.mark.parametrize("index", HUGE, ids=str)
@pytest.mark.parametrize("name", ["fixed", "ragged", "chunked", "chunked_fixed"])
def test_row_access(name, index):
    column = columns()[name]
    with pytest.raises(
        IndexError,
        match=rf"^index {re.escape(str(int(index)))} is out of range "
        r"for 4 rows$",
    ):
        column[index]


@pytest.mark.parametrize(
    "indices",
    [
        np.array([0, 2**64 - 1], np.uint64),
        [0, 2**64 - 1],
        [1, 2**70],
        [0, -(2**63) - 1],
        np.array([1, 2**64 - 1], dtype=object),
    ],
    ids=repr,
)
@pytest.mark.parametrize("name", ["fixed", "ragged", "chunked", "table"])
def test_take(name, indices):
    value = str(int(np.asarray(indices, dtype=object)[1]))
    with pytest.raises(
        IndexError,
        match=rf"^index {re.escape(value)} at position 1 is out of "
        r"range for 4 rows$",
    ):
        columns()[name].take(indices)


def test_take_still_refuses_what_is_not_an_integer():
    with pytest.raises(TypeError, match="indices must be integers, got float at position 1"):
        columns()["fixed"].take(np.array([1, 2.5, 2**70], dtype=object))
    with pytest.raises(TypeError, match="indices must be integers, got dtype float64"):
        columns()["fixed"].take(np.array([1.0]))
    with pytest.raises(TypeError, match="indices must be integers, got dtype float64"):
        columns()["fixed"].take([1.0, 2**64 - 1])
    assert columns()["fixed"].take(np.array([3, 0], np.uint64)).to_numpy().shape == (2, 2)
    assert columns()["ragged"].take(np.array([3], dtype=object))[0].shape == (2,)


@pytest.mark.parametrize("index", HUGE, ids=str)
def test_tensor_indexing(index):
    t = qv.Tensor.from_numpy(np.zeros((4, 3)))
    pattern = rf"^index {re.escape(str(int(index)))} is out of range: no axis holds 2\^63"
    with pytest.raises(IndexError, match=pattern):
        t[index]
    with pytest.raises(IndexError, match=pattern):
        t[0, index]


def test_a_ragged_column_names_what_it_takes():
    with pytest.raises(TypeError, match="takes an int .* or a slice .*, got str"):
        columns()["ragged"]["a"]
