"""take and filter over many chunks, side by side with pyarrow on the same
buffers: every path the selection takes (a gather checked as it reads, a
sparse or clustered mask's runs, a dense mask's branchless copy, pieces
of ragged rows), over numbers with nulls, fixed-shape and variable-shape
tensor columns, sliced and empty chunks, and outputs large enough to be
shared between threads."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

ROWS = 300_000


def _table():
    rng = np.random.default_rng(5)
    numbers = pa.array(np.arange(ROWS, dtype=np.int64), mask=np.arange(ROWS) % 7 == 3)
    cells = rng.standard_normal((ROWS, 4)).astype(np.float32)
    sizes = rng.integers(0, 5, size=ROWS)
    values = rng.standard_normal(int(sizes.sum())).astype(np.float32)
    ragged = qv.VariableShapeTensorArray.from_numpy(np.split(values, np.cumsum(sizes)[:-1]))
    whole = pa.table(
        {
            "n": numbers,
            "cells": pa.FixedShapeTensorArray.from_numpy_ndarray(cells),
            "ragged": pa.array(ragged),
        }
    )
    # Chunks of uneven sizes, two empty, each a slice of the whole.
    bounds = [0, 1, 1, 70_000, 70_001, 150_000, 150_000, 299_999, ROWS]
    return pa.Table.from_batches(
        [b for a, z in zip(bounds, bounds[1:]) for b in whole.slice(a, z - a).to_batches()]
        or whole.to_batches(),
        schema=whole.schema,
    )


TABLE = _table()
OURS = qv.table(TABLE)


def _masks():
    rng = np.random.default_rng(6)
    clustered = np.zeros(ROWS, bool)
    clustered[1000:90_000] = True
    clustered[149_990:150_010] = True  # across a chunk boundary
    return {
        "sparse": rng.random(ROWS) < 0.01,
        "half": rng.random(ROWS) < 0.5,
        "almost all": rng.random(ROWS) < 0.99,
        "clustered": clustered,
        "none": np.zeros(ROWS, bool),
        "all": np.ones(ROWS, bool),
        "strided": np.repeat(rng.random(ROWS) < 0.3, 2)[::2],  # not contiguous
    }


@pytest.mark.parametrize("name", sorted(_masks()))
def test_filter_equals_pyarrow(name):
    mask = _masks()[name]
    got = pa.table(OURS.filter(mask)).combine_chunks()
    assert got.equals(TABLE.filter(pa.array(mask)).combine_chunks())


@pytest.mark.parametrize("order", ["random", "sorted", "permutation", "repeats"])
def test_take_equals_pyarrow(order):
    rng = np.random.default_rng(7)
    indices = {
        "random": rng.integers(0, ROWS, size=ROWS // 3),
        "sorted": np.sort(rng.integers(0, ROWS, size=ROWS // 3)),
        "permutation": rng.permutation(ROWS),
        "repeats": np.full(5000, ROWS - 1),
    }[order]
    got = pa.table(OURS.take(indices)).combine_chunks()
    assert got.equals(TABLE.take(pa.array(indices)).combine_chunks())


def test_take_names_the_first_index_out_of_range():
    indices = np.zeros(ROWS, np.int64)
    indices[250_001] = ROWS
    indices[299_000] = -1
    with pytest.raises(IndexError, match=f"index {ROWS} at position 250001 is out of range"):
        OURS.take(indices)
    with pytest.raises(IndexError, match="index -1 at position 39000 "):
        OURS["cells"].take(indices[260_000:])


def test_combine_chunks_equals_pyarrow():
    assert pa.table(OURS.combine_chunks()).equals(TABLE.combine_chunks())
