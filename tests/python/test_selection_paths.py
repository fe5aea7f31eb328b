"""take and filter over many chunks, side by side with pyarrow on the same
buffers: every path the selection takes (a gather checked as it reads, a
sparse or clustered mask's runs, a dense mask's branchless copy, pieces
of ragged rows), over numbers with nulls, fixed-shape and variable-shape
tensor columns, sliced and empty chunks, and outputs large enough to be
shared between threads."""

import subprocess
import sys
import textwrap

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


def test_a_bool_mask_of_bytes_other_than_0_and_1_keeps_every_non_zero_byte():
    # A NumPy bool array made by .view(bool) can hold any byte: each one
    # not 0 keeps its row, in a table's filter and a column's.
    raw = np.zeros(ROWS, np.uint8)
    raw[::7] = 2
    raw[3::11] = 255
    want = TABLE.filter(pa.array(raw != 0)).combine_chunks()
    assert pa.table(OURS.filter(raw.view(bool))).combine_chunks().equals(want)
    column = OURS.column("n").filter(raw.view(bool))
    assert pa.chunked_array(column).combine_chunks().equals(want.column("n").combine_chunks())


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


def _run(body, timeout=120):
    """Runs `body` in a fresh interpreter (a crash there fails this test
    instead of the whole session); returns its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_a_mask_whose_memory_only_the_import_holds_outlives_the_filter():
    # An object exporting its bools through __dlpack__ (or a buffer) may
    # hand out memory that only the exported capsule keeps alive: the mask
    # read in place must hold that export, not just the object, for the
    # whole filter (which runs without the GIL).
    out = _run(
        """
        import numpy as np, pyarrow as pa, quiver as qv
        N = 20_000_000
        class FreshMask:
            def __dlpack__(self, *args, **kwargs):
                mask = np.zeros(N, bool)
                mask[::3] = True
                return mask.__dlpack__(*args, **kwargs)
            def __dlpack_device__(self):
                return (1, 0)
        half = pa.array(np.arange(N // 2, dtype=np.int64))
        column = qv.chunked_array(pa.chunked_array([half, half]))
        kept = pa.chunked_array(column.filter(FreshMask())).to_numpy()
        print(len(kept), int(kept[1]), int(kept[-1]))
        """
    )
    assert out.split() == [str((20_000_000 + 2) // 3), "3", str(9_999_998)]


@pytest.mark.parametrize("column", ["int64 with nulls", "utf8"])
def test_a_mask_changed_by_another_thread_never_corrupts_memory(column):
    # The filter reads a NumPy mask in place without the GIL: another
    # thread may change it meanwhile. The result is then unspecified, but
    # counting the marks and copying them must not disagree into writes
    # past the output (MarkedRows, FilterRows' parts and validity).
    out = _run(
        f"""
        import threading, time
        import numpy as np, pyarrow as pa, quiver as qv
        N = 4_000_000
        if {column!r} == "utf8":
            whole = pa.array(np.arange(N).astype(str))
        else:
            whole = pa.array(np.arange(N, dtype=np.int64), mask=np.arange(N) % 5 == 0)
        column = qv.chunked_array(pa.chunked_array([whole.slice(0, N // 2), whole.slice(N // 2)]))
        mask = np.zeros(N, bool)
        mask[::2] = True  # alternating: too many runs, filtered by the mask itself
        stop = False
        def flip():
            while not stop:
                mask[1::2] = True
                mask[1::2] = False
        thread = threading.Thread(target=flip)
        thread.start()
        start = time.time()
        try:
            while time.time() - start < 3:
                column.filter(mask)
        finally:
            stop = True
            thread.join()
        print("survived")
        """
    )
    assert out.strip() == "survived"
