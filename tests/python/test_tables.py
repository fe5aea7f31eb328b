"""Table, RecordBatch and ChunkedArray side by side with pyarrow.

Every verb runs on the same data on both sides and the results are compared
through pyarrow (`pa.table(ours).equals(theirs)`). The data: a
fixed_shape_tensor column and a ragged (variable_shape_tensor) column with
null rows, ints, floats and strings with nulls, a dictionary column whose
chunks carry different dictionaries, in several chunks (one of them empty).
pyarrow 26 knows variable_shape_tensor in C++ but has no Python class for
it: its rows read as the storage struct {"data": [...], "shape": [...]}.
"""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

SHAPE = (2, 3)
CHUNKS = [4, 0, 3, 5]  # rows per chunk
ROWS = sum(CHUNKS)
RAGGED = qv.variable_shape_tensor("int32", 2)
NAMES = ["fixed", "ragged", "ints", "floats", "strings", "words"]


def fixed_values(start, n):
    return (np.arange(start * 6, (start + n) * 6, dtype=np.float32) / 4).reshape((n,) + SHAPE)


def ragged_row(r):
    if r % 4 == 2:
        return None
    return (np.arange((1 + r % 3) * 2, dtype=np.int32) + 10 * r).reshape(1 + r % 3, 2)


def chunk_table(start, n, seed):
    rows = range(start, start + n)
    words = pa.array([None if r % 6 == 5 else "w%d" % ((r + seed) % 4) for r in rows], pa.string())
    return qv.table(
        {
            "fixed": qv.FixedShapeTensorArray.from_numpy(
                fixed_values(start, n), mask=np.array([r % 5 == 1 for r in rows], bool)
            ),
            "ragged": qv.VariableShapeTensorArray.from_numpy(
                [ragged_row(r) for r in rows], type=RAGGED
            ),
            "ints": pa.array([None if r % 3 == 0 else r - 4 for r in rows], pa.int64()),
            "floats": pa.array([None if r % 4 == 3 else r * 0.5 for r in rows], pa.float64()),
            "strings": pa.array(
                [None if r % 5 == 4 else "s" * (r % 3) + str(r) for r in rows], pa.string()
            ),
            "words": words.dictionary_encode(),  # each chunk its own dictionary
        }
    )


def make_tables():
    """(quiver table in len(CHUNKS) chunks, the same table in pyarrow)."""
    parts, start = [], 0
    for seed, n in enumerate(CHUNKS):
        parts.append(chunk_table(start, n, seed))
        start += n
    ours = qv.concat_tables(parts)
    return ours, pa.table(ours)


@pytest.fixture
def tables():
    return make_tables()


@pytest.fixture(params=["table", "batch"])
def tabular(request):
    """(ours, theirs) as tables in chunks or as one record batch each."""
    ours, theirs = make_tables()
    if request.param == "batch":
        return qv.record_batch(
            ours.combine_chunks().to_batches()[0]
        ), theirs.combine_chunks().to_batches()[0]
    return ours, theirs


def to_pa(obj):
    if isinstance(obj, (pa.Table, pa.RecordBatch, pa.ChunkedArray, pa.Array)):
        return obj
    if isinstance(obj, qv.Table):
        return pa.table(obj)
    if isinstance(obj, qv.RecordBatch):
        return pa.record_batch(obj)
    if isinstance(obj, qv.ChunkedArray):
        return pa.chunked_array(obj)
    return pa.array(obj)


def assert_same_column(got, want):
    assert got.type == want.type, (got.type, want.type)
    assert len(got) == len(want)
    assert got.null_count == want.null_count
    if pa.types.is_dictionary(want.type):
        # Differing dictionaries are joined differently by each library;
        # the values each row reads must agree.
        assert got.to_pylist() == want.to_pylist()
    else:
        assert got.equals(want), (got, want)


def assert_same(ours, theirs):
    """A quiver result holds what pyarrow's holds (any chunking)."""
    got = to_pa(ours)
    assert isinstance(got, type(theirs)), (type(got), type(theirs))
    if isinstance(theirs, (pa.Table, pa.RecordBatch)):
        assert got.schema.equals(theirs.schema), (got.schema, theirs.schema)
        assert got.num_rows == theirs.num_rows
        for i in range(theirs.num_columns):
            assert_same_column(got.column(i), theirs.column(i))
    else:
        assert_same_column(got, theirs)


def pa_row(scalar):
    """A pyarrow tensor scalar as a NumPy array (None for null)."""
    if not scalar.is_valid:
        return None
    if isinstance(scalar, pa.FixedShapeTensorScalar):
        return scalar.to_numpy()
    value = scalar.value.as_py()  # the ragged storage struct
    return np.array(value["data"], dtype=np.int32).reshape(value["shape"])


def assert_rows_equal(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
        else:
            np.testing.assert_array_equal(a, b)
            assert a.shape == b.shape and a.dtype == b.dtype


# ---------------------------------------------------------------------------
# The data itself


def test_pyarrow_sees_the_data_we_built(tables):
    ours, theirs = tables
    assert ours.num_rows == theirs.num_rows == ROWS
    assert ours.column_names == theirs.column_names == NAMES
    assert ours["fixed"].num_chunks == len(CHUNKS)
    assert theirs.column("fixed").type == pa.fixed_shape_tensor(pa.float32(), SHAPE)
    assert theirs.column("ragged").type.extension_name == "arrow.variable_shape_tensor"
    fixed = theirs.column("fixed").combine_chunks()
    assert fixed.is_null().to_pylist() == [r % 5 == 1 for r in range(ROWS)]
    assert_rows_equal(
        [pa_row(s) for s in fixed],
        [None if r % 5 == 1 else fixed_values(r, 1)[0] for r in range(ROWS)],
    )
    assert_rows_equal(
        [pa_row(s) for s in theirs.column("ragged")], [ragged_row(r) for r in range(ROWS)]
    )
    assert theirs.column("ints").to_pylist() == [None if r % 3 == 0 else r - 4 for r in range(ROWS)]
    dictionaries = [c.dictionary.to_pylist() for c in theirs.column("words").chunks]
    assert len(set(map(tuple, dictionaries))) > 1  # the chunks' dictionaries differ


def test_round_trip_through_pyarrow(tables):
    ours, theirs = tables
    back = qv.table(theirs)
    assert back == ours and back.equals(ours)
    assert isinstance(back["ragged"].type, qv.VariableShapeTensorType)
    assert isinstance(back["fixed"].type, qv.FixedShapeTensorType)
    assert_same(ours.to_pyarrow(), theirs)
    assert isinstance(ours.to_pyarrow(), pa.Table)


# ---------------------------------------------------------------------------
# Construction


def test_table_from_dict_and_list_matches_pyarrow():
    ints = np.arange(5, dtype=np.int64)
    floats = np.linspace(0, 1, 5)
    strings = ["a", None, "ccc", "", "e"]
    assert_same(
        qv.table({"i": ints, "f": floats, "s": strings}),
        pa.table({"i": ints, "f": floats, "s": strings}),
    )
    assert_same(
        qv.table([ints, strings], names=["i", "s"]), pa.table([ints, strings], names=["i", "s"])
    )
    assert_same(
        qv.record_batch({"i": ints, "s": strings}), pa.record_batch({"i": ints, "s": strings})
    )
    assert_same(
        qv.record_batch([ints, floats], names=["i", "f"]),
        pa.record_batch([ints, floats], names=["i", "f"]),
    )
    assert_same(qv.table({}), pa.table({}))
    # pyarrow columns, chunked or not, go in as they are.
    chunked = pa.chunked_array([[1, 2], [3, None, 5]])
    assert_same(qv.table({"c": chunked}), pa.table({"c": chunked}))
    assert qv.table({"c": chunked})["c"].num_chunks == 2


def test_table_of_numpy_columns_is_zero_copy():
    ints = np.arange(6, dtype=np.int64)
    images = np.arange(24, dtype=np.float32).reshape(6, 2, 2)
    t = qv.table({"i": ints, "img": images})
    assert t["img"].type == qv.fixed_shape_tensor("float32", (2, 2))
    assert np.shares_memory(pa.table(t).column("i").chunk(0).to_numpy(), ints)
    assert np.shares_memory(t["img"].to_numpy(), images)


def test_numpy_columns_pyarrow_converts():
    """Strings, dates, objects and masked values: what pyarrow.table makes."""
    masked = np.ma.masked_array([1, 2, 3], mask=[False, True, False])
    columns = {
        "s": np.array(["x", "yy"]),
        "d": np.array(["2020-01-01", "NaT"], "datetime64[D]"),
        "b": np.array([b"a", b"bc"]),
        "o": np.array([1, None], dtype=object),
        "m": masked[:2],
    }
    assert_same(qv.table(columns), pa.table(columns))
    assert qv.table({"m": masked})["m"].to_pylist() == [1, None, 3]
    # Masked tensors: whole rows null.
    cells = np.ma.masked_array(np.zeros((3, 2)), mask=[[0, 0], [1, 1], [0, 0]])
    assert qv.table({"t": cells})["t"].null_count == 1


def test_empty_fixed_shape_column_with_mask():
    col = qv.FixedShapeTensorArray.from_numpy(
        np.zeros((0, 2, 3), np.float32), mask=np.zeros(0, bool)
    )
    assert len(col) == 0 and col.type == qv.fixed_shape_tensor("float32", (2, 3))


def test_table_construction_errors():
    with pytest.raises(ValueError, match="got 1 names for 2 columns"):
        qv.table([np.arange(2), np.arange(2)], names=["a"])
    with pytest.raises(TypeError, match="needs names="):
        qv.table([np.arange(2)])
    with pytest.raises(TypeError, match="names= goes with a list"):
        qv.table({"a": np.arange(2)}, names=["a"])
    with pytest.raises(TypeError, match="column names are str, got int"):
        qv.table({1: np.arange(2)})
    with pytest.raises(ValueError, match=r"column 1 \(b\) has 3 rows, 2 expected"):
        qv.table({"a": np.arange(2), "b": np.arange(3)})
    with pytest.raises(TypeError, match="column 'a' must be a quiver column"):
        qv.table({"a": object()})


def test_chunked_array_from_list_and_producer():
    a, b = pa.array([1, None, 3]), pa.array([4, 5])
    ours = qv.chunked_array([a, b])
    assert ours.num_chunks == 2 and len(ours) == 5
    assert_same(ours, pa.chunked_array([a, b]))
    assert_same(qv.chunked_array(pa.chunked_array([a, b])), pa.chunked_array([a, b]))
    assert_same(qv.chunked_array([[1, 2], [3]]), pa.chunked_array([[1, 2], [3]]))
    assert_same(qv.chunked_array([], type=pa.int64()), pa.chunked_array([], type=pa.int64()))
    empty = qv.chunked_array([], type=RAGGED)
    assert len(empty) == 0 and empty.num_chunks == 0 and empty.type == RAGGED
    with pytest.raises(ValueError, match="needs type="):
        qv.chunked_array([])
    with pytest.raises(TypeError, match="chunk 1 is utf8, the column is int64"):
        qv.chunked_array([a, pa.array(["x"])])
    with pytest.raises(TypeError, match="chunk 0 is int64, the column is float64"):
        qv.chunked_array([a], type=pa.float64())


# ---------------------------------------------------------------------------
# Column access and the column verbs


def test_column_access(tabular):
    ours, theirs = tabular
    for key in ["fixed", "ragged", "words", 0, 3, -1, -6]:
        assert_same(ours[key], theirs[key])
        assert_same(ours.column(key), theirs.column(key))
    assert ours.column_names == theirs.column_names
    assert ours.shape == theirs.shape
    assert ours.num_rows == theirs.num_rows and len(ours) == len(theirs)
    assert ours.num_columns == theirs.num_columns
    assert [to_pa(c).type for c in ours.columns] == [c.type for c in theirs.columns]
    for key in ["ints", 5, -2]:
        f = ours.field(key)
        assert f.name == theirs.field(key).name
        assert pa.field(f).equals(theirs.field(key))


def test_column_access_errors(tabular):
    ours, _ = tabular
    with pytest.raises(KeyError, match="no column named 'nope'"):
        ours["nope"]
    with pytest.raises(KeyError, match="no column named 'nope'"):
        ours.field("nope")
    with pytest.raises(IndexError, match="index 6 is out of range for 6 columns"):
        ours[6]
    with pytest.raises(IndexError, match="index -7 is out of range for 6 columns"):
        ours.column(-7)
    with pytest.raises(TypeError, match="a column is chosen by int or str, got float"):
        ours[1.0]
    with pytest.raises(TypeError, match="got bool"):
        ours[True]


def test_select_drop_remove(tabular):
    ours, theirs = tabular
    assert_same(
        ours.select(["words", "fixed", "fixed"]), theirs.select(["words", "fixed", "fixed"])
    )
    assert_same(ours.select([4, 0]), theirs.select([4, 0]))
    assert_same(ours.select([]), theirs.select([]))
    assert_same(ours.drop_columns(["ints", "ragged"]), theirs.drop_columns(["ints", "ragged"]))
    assert_same(ours.drop_columns("ints"), theirs.drop_columns("ints"))
    assert_same(ours.remove_column(1), theirs.remove_column(1))
    with pytest.raises(KeyError, match="no column named 'nope'"):
        ours.select(["fixed", "nope"])
    with pytest.raises(KeyError, match="no column named 'nope'"):
        ours.drop_columns(["nope"])
    with pytest.raises(IndexError, match="index 6 is out of range for 6 columns"):
        ours.select([6])
    with pytest.raises(IndexError, match="index 6 is out of range for 6 columns"):
        ours.remove_column(6)
    with pytest.raises(TypeError, match="a list of names or positions, got a str"):
        ours.select("fixed")


def test_rename_columns(tabular):
    ours, theirs = tabular
    names = ["a", "b", "c", "d", "e", "f"]
    assert_same(ours.rename_columns(names), theirs.rename_columns(names))
    mapping = {"ints": "n", "fixed": "img"}
    assert_same(ours.rename_columns(mapping), theirs.rename_columns(mapping))
    assert ours.rename_columns(mapping).column_names == [
        "img",
        "ragged",
        "n",
        "floats",
        "strings",
        "words",
    ]
    with pytest.raises(ValueError, match="got 2 names for 6 columns"):
        ours.rename_columns(["a", "b"])
    with pytest.raises(KeyError, match="no column named 'nope'"):
        ours.rename_columns({"nope": "x"})
    with pytest.raises(TypeError, match="a list or a dict, got a str"):
        ours.rename_columns("abcdef")


def test_add_append_set_column(tabular):
    ours, theirs = tabular
    extra = np.arange(ROWS, dtype=np.float32)
    for i in [0, 3, 6]:
        assert_same(ours.add_column(i, "x", extra), theirs.add_column(i, "x", pa.array(extra)))
    assert_same(ours.append_column("x", extra), theirs.append_column("x", pa.array(extra)))
    assert_same(ours.set_column(2, "x", extra), theirs.set_column(2, "x", pa.array(extra)))
    # A qv.Field names the column, its type must be the column's.
    field = qv.table({"x": extra}).field("x")
    assert_same(
        ours.append_column(field, extra),
        theirs.append_column(pa.field("x", pa.float32()), pa.array(extra)),
    )
    # A pyarrow Field does too, as pyarrow takes it.
    assert_same(
        ours.append_column(pa.field("x", pa.float32()), extra),
        theirs.append_column(pa.field("x", pa.float32()), pa.array(extra)),
    )
    # A tensor column from another table, chunked differently.
    img, pa_img = ours["fixed"], theirs["fixed"]
    if isinstance(pa_img, pa.ChunkedArray):
        img, pa_img = img.combine_chunks(), pa_img.combine_chunks()
    assert_same(ours.append_column("img", img), theirs.append_column("img", pa_img))
    # pyarrow columns and lists go in as pyarrow would take them.
    values = list(range(ROWS))
    assert_same(ours.append_column("l", values), theirs.append_column("l", pa.array(values)))
    assert_same(
        ours.append_column("c", pa.chunked_array([values[:5], values[5:]])),
        theirs.append_column("c", pa.chunked_array([values[:5], values[5:]])),
    )


def test_add_column_errors(tabular):
    ours, _ = tabular
    extra = np.arange(ROWS, dtype=np.float32)
    with pytest.raises(ValueError, match=f"column 'x' has 3 rows, the table {ROWS}"):
        ours.add_column(0, "x", np.arange(3))
    with pytest.raises(ValueError, match=f"column 'x' has {ROWS + 1} rows, the table {ROWS}"):
        ours.append_column("x", np.arange(ROWS + 1))
    with pytest.raises(ValueError, match=f"column 'x' has 3 rows, the table {ROWS}"):
        ours.set_column(0, "x", np.arange(3))
    wrong = qv.table({"x": np.arange(3, dtype=np.int64)}).field("x")
    with pytest.raises(TypeError, match="field 'x' is int64, the column is float32"):
        ours.append_column(wrong, extra)
    with pytest.raises(TypeError, match="field 'x' is int64, the column is float32"):
        ours.append_column(pa.field("x", pa.int64()), extra)
    with pytest.raises(IndexError, match="position 7 is out of range for adding to 6 columns"):
        ours.add_column(7, "x", extra)
    with pytest.raises(IndexError, match="position -1 is out of range for adding to 6 columns"):
        ours.add_column(-1, "x", extra)
    with pytest.raises(IndexError, match="index 6 is out of range for 6 columns"):
        ours.set_column(6, "x", extra)
    with pytest.raises(
        TypeError,
        match=r"a column is named by a str, a quiver.Field or an Arrow field "
        r"\(__arrow_c_schema__\), got int",
    ):
        ours.append_column(3, extra)


# ---------------------------------------------------------------------------
# Row verbs


@pytest.mark.parametrize(
    "offset,length",
    [
        (0, None),
        (0, ROWS),
        (2, 5),
        (3, 1),
        (4, 3),
        (5, 0),
        (ROWS, None),
        (ROWS + 5, 2),
        (7, 100),
        (11, None),
    ],
)
def test_slice(tabular, offset, length):
    ours, theirs = tabular
    assert_same(ours.slice(offset, length), theirs.slice(offset, length))
    assert_same(ours.slice(offset), theirs.slice(offset))


@pytest.mark.parametrize(
    "key",
    [
        slice(None),
        slice(2, 9),
        slice(-5, None),
        slice(None, -3),
        slice(9, 2),
        slice(100, 200),
        slice(None, None, 2),
        slice(None, None, -1),
        slice(10, 1, -3),
        slice(1, None, 5),
    ],
)
def test_getitem_slice(tabular, key):
    ours, theirs = tabular
    assert_same(ours[key], theirs[key])


def test_slice_errors(tabular):
    ours, _ = tabular
    with pytest.raises(IndexError, match="slice offset -1 is negative"):
        ours.slice(-1)
    with pytest.raises(IndexError, match="slice length -2 is negative"):
        ours.slice(0, -2)
    with pytest.raises(ValueError, match="step"):
        ours[::0]


@pytest.mark.parametrize(
    "indices", [[0, 1, 2], [11, 0, 5, 5, 3], [], [7], list(range(ROWS))[::-1], [3, 4, 5, 6]]
)
def test_take(tabular, indices):
    ours, theirs = tabular
    assert_same(ours.take(indices), theirs.take(pa.array(indices, pa.int64())))
    assert_same(
        ours.take(np.array(indices, dtype=np.uint32)), theirs.take(pa.array(indices, pa.int64()))
    )
    assert_same(
        ours.take(pa.array(indices, pa.int64())), theirs.take(pa.array(indices, pa.int64()))
    )


def test_take_errors(tabular):
    ours, _ = tabular
    with pytest.raises(
        IndexError, match=f"index {ROWS} at position 1 is out of range for {ROWS} rows"
    ):
        ours.take([0, ROWS])
    with pytest.raises(IndexError, match=f"index -1 at position 0 is out of range for {ROWS} rows"):
        ours.take([-1])
    with pytest.raises(TypeError, match="indices must be integers, got dtype float64"):
        ours.take([0.5, 1.0])
    with pytest.raises(TypeError, match="indices must be integers, got dtype bool"):
        ours.take(np.ones(ROWS, bool))
    with pytest.raises(ValueError, match="indices must be one-dimensional"):
        ours.take(np.zeros((2, 2), np.int64))


@pytest.mark.parametrize("pattern", ["all", "none", "even", "run", "random"])
def test_filter(tabular, pattern):
    ours, theirs = tabular
    rows = np.arange(ROWS)
    mask = {
        "all": rows >= 0,
        "none": rows < 0,
        "even": rows % 2 == 0,
        "run": (rows > 4) & (rows < 9),
        "random": np.random.default_rng(3).random(ROWS) < 0.5,
    }[pattern]
    assert_same(ours.filter(mask), theirs.filter(pa.array(mask)))
    assert_same(ours.filter(list(mask)), theirs.filter(pa.array(mask)))
    assert_same(ours.filter(pa.array(mask)), theirs.filter(pa.array(mask)))


def test_filter_errors(tabular):
    ours, _ = tabular
    with pytest.raises(ValueError, match=f"filter mask has 3 entries for {ROWS} rows"):
        ours.filter([True, False, True])
    with pytest.raises(ValueError, match=f"filter mask has {ROWS + 1} entries for {ROWS} rows"):
        ours.filter(np.ones(ROWS + 1, bool))
    with pytest.raises(TypeError, match="mask must hold bools, got dtype int64"):
        ours.filter(np.ones(ROWS, np.int64))
    with pytest.raises(TypeError, match="mask must hold bools, got dtype float64"):
        ours.filter(np.ones(ROWS))


def test_combine_chunks(tables):
    ours, theirs = tables
    combined = ours.combine_chunks()
    assert_same(combined, theirs.combine_chunks())
    assert all(c.num_chunks == 1 for c in combined.columns)
    assert combined == ours


def test_to_batches(tables):
    ours, theirs = tables
    batches = ours.to_batches()
    want = theirs.to_batches()
    # The empty chunk before the last row is a zero-row batch, as in pyarrow.
    assert [b.num_rows for b in batches] == [b.num_rows for b in want] == CHUNKS
    for got, expected in zip(batches, want):
        assert_same(got, expected)
    for size in [1, 2, 5, 100]:
        got = ours.to_batches(max_chunksize=size)
        expected = theirs.to_batches(max_chunksize=size)
        assert [b.num_rows for b in got] == [b.num_rows for b in expected]
        for a, b in zip(got, expected):
            assert_same(a, b)
    for bad in [0, -3]:
        with pytest.raises(ValueError, match=f"max_chunksize must be positive, got {bad}"):
            ours.to_batches(max_chunksize=bad)


def test_to_batches_cuts_where_any_column_chunk_ends():
    a = [pa.array([1, 2, 3]), pa.array([4, 5, 6, 7])]
    b = [pa.array([1.0]), pa.array([2.0, 3.0, 4.0, 5.0, 6.0]), pa.array([7.0])]
    ours = qv.table({"a": qv.chunked_array(a), "b": qv.chunked_array(b)})
    theirs = pa.table({"a": pa.chunked_array(a), "b": pa.chunked_array(b)})
    got, want = ours.to_batches(), theirs.to_batches()
    assert [x.num_rows for x in got] == [x.num_rows for x in want] == [1, 2, 3, 1]
    for x, y in zip(got, want):
        assert_same(x, y)
    assert_same(ours, theirs)


def test_from_batches(tables):
    ours, theirs = tables
    assert_same(
        qv.Table.from_batches(ours.to_batches()), pa.Table.from_batches(theirs.to_batches())
    )
    assert_same(
        qv.Table.from_batches(theirs.to_batches()), pa.Table.from_batches(theirs.to_batches())
    )
    assert_same(
        qv.Table.from_batches(theirs.to_batches(), schema=theirs.schema),
        pa.Table.from_batches(theirs.to_batches(), schema=theirs.schema),
    )
    empty = qv.Table.from_batches([], schema=ours.schema)
    assert_same(empty, pa.Table.from_batches([], schema=theirs.schema))
    with pytest.raises(ValueError, match="needs schema="):
        qv.Table.from_batches([])
    with pytest.raises(ValueError, match="record batch 1 has another schema than the table"):
        qv.Table.from_batches([ours.to_batches()[0], ours.select([0]).to_batches()[0]])
    with pytest.raises(TypeError, match="takes record batches, got int"):
        qv.Table.from_batches([1])


def test_concat_tables(tables):
    ours, theirs = tables
    got = qv.concat_tables([ours, ours.slice(3, 4), ours.slice(0, 0)])
    assert_same(got, pa.concat_tables([theirs, theirs.slice(3, 4), theirs.slice(0, 0)]))
    assert (
        got["ints"].num_chunks == ours["ints"].num_chunks + ours.slice(3, 4)["ints"].num_chunks + 1
    )
    with pytest.raises(ValueError, match="table 1 has another schema than table 0"):
        qv.concat_tables([ours, ours.select([0, 1])])
    with pytest.raises(ValueError, match="table 1 has another schema than table 0"):
        qv.concat_tables([ours, ours.rename_columns(["a", "b", "c", "d", "e", "f"])])
    with pytest.raises(ValueError, match="at least one table"):
        qv.concat_tables([])
    with pytest.raises(TypeError, match="takes quiver Tables, got pyarrow.lib.Table"):
        qv.concat_tables([ours, theirs])


def test_concat_tables_ignores_schema_metadata_as_pyarrow_does():
    plain = pa.table({"a": [1, 2]})
    tagged = plain.replace_schema_metadata({"origin": "pandas"})
    got = qv.concat_tables([qv.table(plain), qv.table(tagged)])
    assert_same(got, pa.concat_tables([plain, tagged]))
    assert got.schema.metadata == {}
    batches = [qv.record_batch(plain.to_batches()[0]), qv.record_batch(tagged.to_batches()[0])]
    assert qv.Table.from_batches(batches).num_rows == 4


def every_type_batch(n, seed):
    import decimal

    r = np.random.default_rng(seed)
    nulls = r.random(n) < 0.3

    def m(values):
        return [None if nulls[i] else v for i, v in enumerate(values)]

    ints = [int(v) for v in r.integers(0, 100, n)]
    return pa.record_batch(
        {
            "bool": pa.array(m([v % 2 == 0 for v in ints]), pa.bool_()),
            "int8": pa.array(m([v - 50 for v in ints]), pa.int8()),
            "uint64": pa.array(m([v * 2**56 for v in ints]), pa.uint64()),
            "float16": pa.array(r.random(n).astype(np.float16)),
            "decimal": pa.array(m([decimal.Decimal(v) / 100 for v in ints]), pa.decimal128(10, 2)),
            "timestamp": pa.array(m([v * 10**9 for v in ints]), pa.timestamp("ms", tz="UTC")),
            "date32": pa.array(m(ints), pa.date32()),
            "string": pa.array(m(["x" * (v % 20) for v in ints]), pa.string()),
            "large_string": pa.array(m(["y" * (v % 20) for v in ints]), pa.large_string()),
            "binary": pa.array(m([bytes([v]) * (v % 7) for v in ints]), pa.binary()),
            "string_view": pa.array(
                m(["a view longer than twelve bytes " * (v % 2) + str(v) for v in ints]),
                pa.string_view(),
            ),
            "list": pa.array(m([list(range(v % 5)) for v in ints]), pa.list_(pa.int32())),
            "large_list": pa.array(
                m([["a" * j for j in range(v % 4)] for v in ints]), pa.large_list(pa.string())
            ),
            "fixed_size_list": pa.array(
                m([[float(v), -1.0] for v in ints]), pa.list_(pa.float32(), 2)
            ),
            "struct": pa.array(
                m([{"a": v, "b": None if v % 3 == 0 else str(v)} for v in ints]),
                pa.struct([("a", pa.int64()), ("b", pa.string())]),
            ),
            "dictionary": pa.array(["c%d" % (v % 5 + seed) for v in ints])
            .dictionary_encode()
            .cast(pa.dictionary(pa.int8(), pa.string())),
            "null": pa.nulls(n),
            "fixed_size_binary": pa.array(m([bytes([v] * 3) for v in ints]), pa.binary(3)),
        }
    )


def pa_verb(table, verb, *args):
    """pyarrow's verb; through string for string_view, which pyarrow 26
    cannot take, filter or concatenate."""
    i = table.schema.get_field_index("string_view")
    plain = table.set_column(i, "string_view", table["string_view"].cast(pa.string()))
    result = getattr(plain, verb)(*args)
    return result.set_column(i, "string_view", result["string_view"].cast(pa.string_view()))


def test_every_arrow_type_through_the_row_verbs():
    """Bitmaps at odd offsets, offsets, views, nested children, dictionaries
    of differing dictionaries: every row verb agrees with pyarrow."""
    batches = [
        every_type_batch(37, 1).slice(3, 29),
        every_type_batch(50, 2).slice(11),
        every_type_batch(1, 3),
        every_type_batch(64, 4).slice(5, 40),
    ]
    theirs = pa.Table.from_batches(batches)
    ours = qv.table(theirs)
    n = theirs.num_rows
    assert_same(ours, theirs)
    assert ours.to_pylist() == theirs.to_pylist()  # datetimes and Decimals as pyarrow reads them
    rng = np.random.default_rng(0)
    for indices in [
        rng.integers(0, n, 200),
        np.arange(n)[::-1],
        np.arange(3, 40),
        rng.permutation(n),
    ]:
        assert_same(ours.take(indices), pa_verb(theirs, "take", pa.array(indices)))
    for p in [0.1, 0.5, 0.9]:
        mask = rng.random(n) < p
        assert_same(ours.filter(mask), pa_verb(theirs, "filter", pa.array(mask)))
    assert_same(ours.combine_chunks(), pa_verb(theirs, "combine_chunks"))
    assert_same(
        ours.slice(17, 50).combine_chunks(), pa_verb(theirs.slice(17, 50), "combine_chunks")
    )
    assert_same(ours[::3], pa_verb(theirs, "take", pa.array(np.arange(0, n, 3))))


def test_array_equals_compares_values_of_every_type():
    a = qv.array(pa.array([1, 2], pa.timestamp("s")))
    b = qv.array(pa.array([5, 6], pa.timestamp("s")))
    assert not a.equals(b) and a != b
    assert a.equals(qv.array(pa.array([1, 2], pa.timestamp("s"))))
    assert a.to_pylist() == pa.array([1, 2], pa.timestamp("s")).to_pylist()


def test_equals(tables):
    ours, _ = tables
    combined = ours.combine_chunks()
    assert ours.equals(combined) and ours == combined
    assert not ours.equals(ours.slice(1)) and ours != ours.slice(1)
    assert ours != ours.rename_columns({"ints": "n"})
    assert ours != ours.take([1, 0] + list(range(2, ROWS)))
    assert ours != pa.table(ours)
    assert (ours == 3) is False
    batch = ours.to_batches()[0]
    assert batch == qv.record_batch(pa.record_batch(batch)) and batch.equals(batch)
    with pytest.raises(TypeError):
        ours.equals(pa.table(ours))


def test_to_pylist_and_to_pydict(tabular):
    ours, theirs = tabular
    # Scalar columns read as pyarrow reads them.
    scalars = ["ints", "floats", "strings", "words"]
    assert ours.select(scalars).to_pylist() == theirs.select(scalars).to_pylist()
    assert ours.select(scalars).to_pydict() == theirs.select(scalars).to_pydict()
    rows = ours.to_pylist()
    assert len(rows) == ROWS and list(rows[0]) == NAMES
    columns = ours.to_pydict()
    assert list(columns) == NAMES
    assert columns["fixed"] == [row["fixed"] for row in rows] == ours["fixed"].to_pylist()


def test_verbs_keep_tensor_types(tables):
    ours, _ = tables
    for result in [
        ours.select(["ragged", "fixed"]),
        ours.slice(2, 5),
        ours.take([5, 1]),
        ours.filter(np.arange(ROWS) % 2 == 0),
        ours.combine_chunks(),
        ours.to_batches()[1],
        ours[3:9],
        ours[::2],
        ours.rename_columns({"ragged": "r"}),
    ]:
        types = {f.name: f.type for f in (result.schema.field(n) for n in result.column_names)}
        assert types["fixed"] == qv.fixed_shape_tensor("float32", SHAPE)
        assert types.get("ragged", types.get("r")) == RAGGED
        assert "fixed_shape_tensor<float32>[2, 3]" in repr(result)


# ---------------------------------------------------------------------------
# Zero-copy where pyarrow is zero-copy


def numpy_table():
    ints = np.arange(100, dtype=np.int64) * 3
    images = np.random.default_rng(0).standard_normal((100, 4)).astype(np.float32)
    return qv.table({"i": ints, "img": images}), ints, images


def ints_view(obj):
    """The int column's first chunk as NumPy, through pyarrow (no copy)."""
    column = to_pa(obj).column("i")
    return column.chunk(0).to_numpy() if isinstance(column, pa.ChunkedArray) else column.to_numpy()


def test_zero_copy_verbs():
    t, ints, images = numpy_table()
    assert np.shares_memory(ints_view(t), ints)
    assert np.shares_memory(t["img"].to_numpy(), images)
    assert np.shares_memory(t[1].chunk(0).to_numpy(), images)
    for shared in [
        t.select(["img", "i"]),
        t.drop_columns("img").append_column("img", t["img"]),
        t.rename_columns(["i", "x"]).rename_columns(["i", "img"]),
        t.slice(10, 20),
        t[5:50],
        t.combine_chunks(),
        t.to_batches()[0],
        t.to_batches(max_chunksize=30)[2],
        qv.Table.from_batches(t.to_batches()),
        qv.concat_tables([t, t]),
        t.take(np.arange(20, 40)),
        t.filter(np.arange(100) < 10),
    ]:
        assert np.shares_memory(ints_view(shared), ints), shared
        assert np.shares_memory(
            shared.column("img")[0] if isinstance(shared, qv.RecordBatch) else shared["img"][0],
            images,
        )
    sliced = t.slice(10, 20)
    np.testing.assert_array_equal(ints_view(sliced), ints[10:30])
    np.testing.assert_array_equal(sliced["img"].to_numpy(), images[10:30])
    assert np.shares_memory(t.to_pyarrow().column("i").chunk(0).to_numpy(), ints)
    # pyarrow over our buffers: the same addresses.
    address = pa.table(t).column("img").chunk(0).storage.values.buffers()[1].address
    assert address == images.ctypes.data
    # Rows gathered from several places are copies.
    assert not np.shares_memory(ints_view(t.take([3, 1])), ints)
    # A combine of several chunks copies; of one chunk it does not.
    both = qv.concat_tables([t, t])
    assert not np.shares_memory(ints_view(both.combine_chunks()), ints)
    assert np.shares_memory(qv.concat_tables([t]).combine_chunks()["img"].to_numpy(), images)


def test_chunked_array_zero_copy():
    t, ints, images = numpy_table()
    col = t["img"]
    assert np.shares_memory(col.combine_chunks().to_numpy(), images)
    assert np.shares_memory(col.chunk(0).to_numpy(), images)
    assert np.shares_memory(col.chunks[0].to_numpy(), images)
    assert np.shares_memory(col[10:20].to_numpy(), images[10:20])
    assert np.shares_memory(col.slice(10, 5).to_numpy(), images[10:15])
    assert np.shares_memory(col[3], images[3])
    assert np.shares_memory(col.take([4, 5, 6]).to_numpy(), images)


# ---------------------------------------------------------------------------
# ChunkedArray verbs, column by column


@pytest.fixture(params=NAMES)
def columns(request):
    ours, theirs = make_tables()
    return request.param, ours[request.param], theirs.column(request.param)


def pa_rows(column):
    return [pa_row(s) for s in column]


def test_chunked_basics(columns):
    name, ours, theirs = columns
    assert_same(ours, theirs)
    assert ours.num_chunks == len(CHUNKS)
    assert ours.null_count == theirs.null_count
    assert len(ours) == ours.length() == theirs.length() == ROWS
    assert [len(c) for c in ours.chunks] == CHUNKS
    for i in range(ours.num_chunks):
        assert len(ours.chunk(i)) == CHUNKS[i]
    assert len(ours.chunk(-1)) == CHUNKS[-1]
    with pytest.raises(IndexError, match="index 4 is out of range for 4 chunks"):
        ours.chunk(4)
    assert ours.equals(ours) and ours == ours
    assert ours.equals(qv.chunked_array([ours.combine_chunks()]))
    assert not ours.equals(ours[1:]) and ours != ours[1:]


def test_chunked_rows_and_iteration(columns):
    name, ours, theirs = columns
    if name in ("fixed", "ragged"):
        want = pa_rows(theirs)
        assert_rows_equal([ours[i] for i in range(ROWS)], want)
        assert_rows_equal([ours[i - ROWS] for i in range(ROWS)], want)
        assert_rows_equal(list(ours), want)
        if name == "ragged":
            assert_rows_equal(ours.to_numpy(), want)  # one array per row, None for null
        else:
            stacked = ours.to_numpy(allow_nulls=True)  # null rows hold whatever their slots hold
            assert_rows_equal([None if w is None else stacked[i] for i, w in enumerate(want)], want)
    else:
        want = theirs.to_pylist()
        assert [ours[i] for i in range(ROWS)] == want
        assert [ours[i - ROWS] for i in range(ROWS)] == want
        assert list(ours) == want
        assert ours.to_pylist() == want
        assert ours[np.int64(2)] == want[2]
    with pytest.raises(IndexError, match=f"index {ROWS} is out of range for {ROWS} rows"):
        ours[ROWS]
    with pytest.raises(IndexError, match=f"index {-ROWS - 1} is out of range for {ROWS} rows"):
        ours[-ROWS - 1]
    with pytest.raises(TypeError, match="takes an int or a slice, got float"):
        ours[1.5]


@pytest.mark.parametrize(
    "key",
    [
        slice(None),
        slice(2, 9),
        slice(-5, None),
        slice(9, 2),
        slice(3, 4),
        slice(None, None, 3),
        slice(None, None, -1),
    ],
)
def test_chunked_getitem_slice(columns, key):
    _, ours, theirs = columns
    assert_same(ours[key], theirs[key])


@pytest.mark.parametrize(
    "offset,length", [(0, None), (2, 5), (4, 3), (5, 0), (ROWS, None), (7, 100)]
)
def test_chunked_slice(columns, offset, length):
    _, ours, theirs = columns
    assert_same(ours.slice(offset, length), theirs.slice(offset, length))
    with pytest.raises(IndexError, match="slice offset -1 is negative"):
        ours.slice(-1)


def test_chunked_combine_take_filter(columns):
    _, ours, theirs = columns
    assert_same(ours.combine_chunks(), theirs.combine_chunks())
    for indices in [[0, 11, 5, 5], [], [4, 5, 6]]:
        assert_same(ours.take(indices), theirs.take(pa.array(indices, pa.int64())))
    mask = np.arange(ROWS) % 3 != 1
    assert_same(ours.filter(mask), theirs.filter(pa.array(mask)))
    with pytest.raises(
        IndexError, match=f"index {ROWS} at position 0 is out of range for {ROWS} rows"
    ):
        ours.take([ROWS])
    with pytest.raises(ValueError, match=f"filter mask has 2 entries for {ROWS} rows"):
        ours.filter([True, False])
    with pytest.raises(TypeError, match="mask must hold bools"):
        ours.filter(np.zeros(ROWS, np.uint8))
    with pytest.raises(TypeError, match="indices must be integers"):
        ours.take([1.0])


def test_chunked_fixed_to_numpy():
    ours, theirs = make_tables()
    col, pcol = ours["fixed"], theirs.column("fixed")
    with pytest.raises(ValueError, match="null"):
        col.to_numpy()
    valid = col.filter(np.array([r % 5 != 1 for r in range(ROWS)]))
    want = np.concatenate([fixed_values(r, 1) for r in range(ROWS) if r % 5 != 1])
    np.testing.assert_array_equal(valid.to_numpy(), want)
    pvalid = pcol.filter(pcol.is_valid()).combine_chunks()
    np.testing.assert_array_equal(valid.to_numpy(), pvalid.to_numpy_ndarray())
    assert col.to_numpy(allow_nulls=True).shape == (ROWS,) + SHAPE
    with pytest.raises(TypeError, match="to_numpy\\(\\) needs a tensor column, got int64"):
        ours["ints"].to_numpy()


def test_chunked_ragged_shapes_and_padding():
    ours, _ = make_tables()
    col = ours["ragged"]
    rows = [ragged_row(r) for r in range(ROWS)]
    shapes = col.shapes()
    assert shapes.dtype == np.int32 and shapes.shape == (ROWS, 2)
    for r, row in enumerate(rows):
        assert tuple(shapes[r]) == ((0, 0) if row is None else row.shape)
    with pytest.raises(ValueError, match="null"):
        col.to_padded()
    batch, got_shapes = col.to_padded(pad_value=-1, allow_nulls=True)
    np.testing.assert_array_equal(got_shapes, shapes)
    assert batch.shape == (ROWS, 3, 2) and batch.dtype == np.int32
    for r, row in enumerate(rows):
        want = np.full((3, 2), -1, np.int32)
        if row is not None:
            want[: row.shape[0], : row.shape[1]] = row
        np.testing.assert_array_equal(batch[r], want)
    out = np.zeros_like(batch)
    result, _ = col.to_padded(pad_value=-1, allow_nulls=True, out=out)
    assert result is out
    np.testing.assert_array_equal(out, batch)
    with pytest.raises(
        ValueError, match=r"out has shape \(2, 3, 2\) but the padded batch has shape"
    ):
        col.to_padded(allow_nulls=True, out=np.zeros((2, 3, 2), np.int32))
    with pytest.raises(TypeError, match="dtype"):
        col.to_padded(allow_nulls=True, out=np.zeros_like(batch, dtype=np.float32))
    # One chunk and no chunks.
    single, _ = col.slice(4, 3).to_padded(allow_nulls=True)
    np.testing.assert_array_equal(single, batch[4:7] * (batch[4:7] != -1))
    empty = qv.chunked_array([], type=RAGGED)
    assert empty.to_padded()[0].shape == (0, 0, 0)
    assert empty.shapes().shape == (0, 2)
    with pytest.raises(TypeError, match="to_padded\\(\\) needs a variable_shape_tensor column"):
        ours["fixed"].to_padded()


def test_chunked_to_fixed_and_to_variable():
    ours, _ = make_tables()
    fixed = ours["fixed"]
    ragged = fixed.to_variable()
    assert ragged.num_chunks == fixed.num_chunks
    assert isinstance(ragged.type, qv.VariableShapeTensorType)
    assert_rows_equal(list(ragged), list(fixed))
    back = ragged.to_fixed()
    assert back.type == fixed.type and back == fixed
    with pytest.raises(ValueError):
        ours["ragged"].to_fixed()  # rows of several shapes
    with pytest.raises(TypeError, match="to_variable\\(\\) needs a fixed_shape_tensor column"):
        ours["ragged"].to_variable()


# ---------------------------------------------------------------------------
# pandas and Dask


def test_to_pandas(tabular):
    pd = pytest.importorskip("pandas")
    ours, theirs = tabular
    df = ours.to_pandas()
    want = theirs.to_pandas()
    assert list(df.columns) == NAMES
    for name in ["ints", "floats", "strings", "words"]:
        pd.testing.assert_series_equal(df[name], want[name])
    assert df["fixed"].dtype == object and df["ragged"].dtype == object
    assert_rows_equal(list(df["fixed"]), pa_rows(theirs.column("fixed")))
    assert_rows_equal(list(df["ragged"]), pa_rows(theirs.column("ragged")))
    assert df["fixed"][0].shape == SHAPE


def test_to_pandas_repeated_names():
    pd = pytest.importorskip("pandas")
    theirs = pa.table([pa.array([1, 2]), pa.array([3, 4])], names=["a", "a"])
    df = qv.table(theirs).to_pandas()
    pd.testing.assert_frame_equal(df, theirs.to_pandas())
    assert df.iloc[:, 1].tolist() == [3, 4]


def test_to_pandas_tensor_rows_are_views():
    pytest.importorskip("pandas")
    t, _, images = numpy_table()
    df = t.to_pandas()
    assert np.shares_memory(df["img"][7], images)
    np.testing.assert_array_equal(df["img"][7], images[7])


def test_dask_array_from_fixed_shape_column():
    da = pytest.importorskip("dask.array")
    values = np.random.default_rng(1).standard_normal((1000, 3, 4))
    col = qv.FixedShapeTensorArray.from_numpy(values)
    d = da.from_array(col, chunks=(128, 3, 4))
    assert d.shape == (1000, 3, 4) and d.dtype == np.float64
    np.testing.assert_allclose(d.sum().compute(), values.sum())
    np.testing.assert_allclose(d.sum(axis=0).compute(), values.sum(axis=0))


def test_rows_of_empty_lists_of_dictionaries():
    """Taking, filtering and concatenating only empty lists of structs of
    dictionaries: the dictionary column below gets no row to join (this
    killed the process before)."""
    words = pa.dictionary(pa.int8(), pa.string())
    t = qv.table(
        pa.table({"x": pa.array([[], [{"w": "a"}], []], pa.list_(pa.struct([("w", words)])))})
    )
    assert pa.table(t.take([0, 2])).column("x").to_pylist() == [[], []]
    assert pa.table(t.filter([True, False, True])).column("x").to_pylist() == [[], []]
    both = qv.concat_tables([t.slice(0, 1), t.slice(2, 1)])
    assert pa.table(both).column("x").to_pylist() == [[], []]
    assert pa.table(t.take([1, 0])).column("x").to_pylist() == [[{"w": "a"}], []]
