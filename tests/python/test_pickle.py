"""Pickling, copy and deepcopy of every quiver class; zero-copy shown by
counting out-of-band buffers and their sizes."""

import copy
import multiprocessing
import pickle

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv


def fixed(n=6, perm=False, nulls=False):
    x = np.arange(n * 2 * 3, dtype=np.float32).reshape(n, 2, 3)
    if perm:
        x = np.ascontiguousarray(x.transpose(0, 2, 1)).transpose(0, 2, 1)
    mask = np.arange(n) % 3 == 1 if nulls else None
    return qv.FixedShapeTensorArray.from_numpy(x, mask=mask)


def ragged(nulls=False, perm=None):
    rows = [np.arange(h * 3, dtype=np.int32).reshape(h, 3) for h in (2, 0, 5, 1, 4)]
    if nulls:
        rows[3] = None
    return qv.VariableShapeTensorArray.from_numpy(rows, permutation=perm)


def round_trip(obj, protocol, out_of_band):
    if not out_of_band:
        return pickle.loads(pickle.dumps(obj, protocol=protocol)), []
    buffers = []
    data = pickle.dumps(obj, protocol=protocol, buffer_callback=buffers.append)
    return pickle.loads(data, buffers=buffers), buffers


CASES = {
    "fixed": lambda: fixed(),
    "fixed-sliced": lambda: fixed(10)[3:7],
    "fixed-nulls": lambda: fixed(7, nulls=True)[1:],
    "fixed-permuted": lambda: fixed(4, perm=True),
    "variable": lambda: ragged(),
    "variable-sliced-nulls": lambda: ragged(nulls=True)[2:],
    "variable-permuted": lambda: ragged(perm=[1, 0]),
    "array-utf8": lambda: qv.array(pa.array(["a", None, "ccc", "dd"]))[1:],
    "array-bool": lambda: qv.array(pa.array([True, None, False] * 5))[3:],
    "array-struct": lambda: qv.array(
        pa.RecordBatch.from_pydict({"a": [1, 2, 3], "b": [[1], [], None]})
    )[1:],
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("protocol, out_of_band", [(2, False), (5, False), (5, True)])
def test_arrays_round_trip(name, protocol, out_of_band):
    obj = CASES[name]()
    back, buffers = round_trip(obj, protocol, out_of_band)
    assert type(back) is type(obj)
    assert back == obj and back.equals(obj)
    assert back.type == obj.type
    assert back.null_count == obj.null_count
    assert back.to_pylist() == obj.to_pylist()
    if out_of_band:
        assert buffers  # data went out of band
    assert copy.deepcopy(obj) == obj
    assert copy.copy(obj) is obj  # immutable


def test_out_of_band_buffers_are_the_data_itself():
    col = fixed(1000)
    buffers = []
    payload = pickle.dumps(col, protocol=5, buffer_callback=buffers.append)
    assert [b.raw().nbytes for b in buffers] == [1000 * 6 * 4]
    assert len(payload) < 400  # metadata only
    view = buffers[0].raw()
    assert (
        np.frombuffer(view, np.float32).__array_interface__["data"][0]
        == col.to_numpy().__array_interface__["data"][0]
    )  # no copy was made
    back = pickle.loads(payload, buffers=buffers)
    assert (
        back.to_numpy().__array_interface__["data"][0]
        == col.to_numpy().__array_interface__["data"][0]
    )


def test_slices_pickle_only_their_rows():
    col = fixed(1000)[500:510]
    buffers = []
    pickle.dumps(col, protocol=5, buffer_callback=buffers.append)
    # Exactly the slice's rows, although 500 is not a multiple of 8.
    assert sum(b.raw().nbytes for b in buffers) == 10 * 24
    for start in range(1, 9):  # with nulls: the validity bits come shifted
        with_nulls = qv.array(
            pa.array([None if i % 3 == 0 else i for i in range(100)], pa.int64())
        )[start:]
        buffers = []
        payload = pickle.dumps(with_nulls, protocol=5, buffer_callback=buffers.append)
        assert sum(b.raw().nbytes for b in buffers) <= (100 - start) * 8 + (100 - start + 7) // 8
        assert pickle.loads(payload, buffers=buffers).to_pylist() == with_nulls.to_pylist()
    rows = ragged()[3:]
    buffers = []
    pickle.dumps(rows, protocol=5, buffer_callback=buffers.append)
    assert sum(b.raw().nbytes for b in buffers) < 4 * (2 * 3 + 5 * 3) + 200


@pytest.mark.parametrize("protocol", [2, 5])
def test_types_and_tensors(protocol):
    types = [
        qv.type_for("int8"),
        qv.type_for("bool8"),
        qv.type_from_arrow(pa.list_(pa.utf8())),
        qv.fixed_shape_tensor("float32", (2, 3), dim_names=["H", "W"], permutation=[1, 0]),
        qv.variable_shape_tensor("int16", 2, uniform_shape=[None, 3]),
    ]
    for t in types:
        back = pickle.loads(pickle.dumps(t, protocol=protocol))
        assert back == t and type(back) is type(t) and str(back) == str(t)
        assert copy.copy(t) is t and copy.deepcopy(t) == t
    x = np.arange(24.0).reshape(4, 6)[::-2, 1::2]
    t = qv.Tensor.from_numpy(x, dim_names=["a", "b"])
    back, buffers = round_trip(t, protocol, protocol == 5)
    np.testing.assert_array_equal(back.to_numpy(), x)
    assert back.dim_names == ["a", "b"] and back == t
    if protocol == 5:
        assert sum(b.raw().nbytes for b in buffers) <= x.base.nbytes
    d = copy.deepcopy(t)
    assert (
        d == t and d.to_numpy().__array_interface__["data"][0] != x.__array_interface__["data"][0]
    )


def test_unpickling_validates():
    col = ragged()
    reduce_fn, (type_state, state) = col.__reduce_ex__(5)
    length, offset, nulls, buffers, children, dictionary = state
    # A data list whose offsets run past the values: refused like a bad import.
    data_state = list(children[0])
    values = bytearray(bytes(data_state[3][1]))
    values[4:8] = (10**6).to_bytes(4, "little")
    data_state[3] = (data_state[3][0], bytes(values))
    bad = (length, offset, nulls, buffers, (tuple(data_state), children[1]), dictionary)
    with pytest.raises(ValueError):
        reduce_fn(type_state, bad)


def _rows_sum(col):
    return float(sum(np.sum(r) for r in col if r is not None))


def test_spawn_pool_receives_columns():
    cols = [fixed(), ragged(nulls=True), fixed(5, nulls=True)]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        sums = pool.map(_rows_sum, cols)
    assert sums == [_rows_sum(c) for c in cols]


class _Rows:
    """A map-style dataset over a column: workers receive it pickled."""

    def __init__(self, col):
        self.col = col

    def __len__(self):
        return len(self.col)

    def __getitem__(self, i):
        return np.array(self.col[i])


def test_torch_dataloader_workers():
    torch = pytest.importorskip("torch")
    col = fixed(8)
    loader = torch.utils.data.DataLoader(
        _Rows(col), batch_size=4, num_workers=2, multiprocessing_context="spawn"
    )
    batches = [b.numpy() for b in loader]
    np.testing.assert_array_equal(np.concatenate(batches), col.to_numpy())


# --- record batches, tables, chunked arrays, schemas and fields ------------


def _batch(n=1000):
    x = np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)
    return pa.RecordBatch.from_pydict(
        {
            "images": pa.array(qv.FixedShapeTensorArray.from_numpy(x)),
            "label": pa.array(np.arange(n, dtype=np.int64)),
            "name": pa.array([None if i % 7 == 3 else f"r{i}" for i in range(n)]),
            "when": pa.array(np.arange(n, dtype=np.int64), pa.timestamp("ms", tz="Europe/Paris")),
            "kind": pa.array(["a", "b", "c", "a"] * (n // 4)).dictionary_encode(),
        },
        metadata={"source": "test"},
    )


BATCH_CASES = {
    "record-batch": lambda: qv.record_batch(_batch()),
    "record-batch-sliced": lambda: qv.record_batch(_batch()).slice(501, 10),
    "table": lambda: qv.table(pa.Table.from_batches([_batch(), _batch(8)])),
    "chunked-array": lambda: qv.table(pa.Table.from_batches([_batch(), _batch(8)])).column(
        "images"
    ),
    "chunked-dictionary": lambda: qv.chunked_array(
        pa.chunked_array([_batch(8)["kind"], _batch(12)["kind"]])
    ),
}


def _same(a, b):
    if isinstance(a, qv.ChunkedArray):
        return a.type == b.type and [c.to_pylist() for c in a.chunks] == [
            c.to_pylist() for c in b.chunks
        ]
    return a.equals(b)


@pytest.mark.parametrize("name", BATCH_CASES)
@pytest.mark.parametrize("protocol, out_of_band", [(2, False), (5, False), (5, True)])
def test_batches_round_trip(name, protocol, out_of_band):
    obj = BATCH_CASES[name]()
    back, buffers = round_trip(obj, protocol, out_of_band)
    assert type(back) is type(obj)
    assert _same(back, obj)
    assert len(back) == len(obj)
    if not isinstance(obj, qv.ChunkedArray):
        assert back.schema == obj.schema and back.schema.metadata == obj.schema.metadata
        assert pa.table(back).equals(pa.table(obj))
    assert bool(buffers) == out_of_band
    assert copy.copy(obj) is obj
    deep = copy.deepcopy(obj)
    assert _same(deep, obj)


def test_record_batch_out_of_band_buffers_are_the_columns():
    batch = qv.record_batch(_batch(1000))
    buffers = []
    payload = pickle.dumps(batch, protocol=5, buffer_callback=buffers.append)
    images = np.asarray(batch.column("images"))
    addresses = {np.frombuffer(b.raw(), np.uint8).__array_interface__["data"][0] for b in buffers}
    assert images.__array_interface__["data"][0] in addresses  # the tensor values, not a copy
    assert (
        sum(b.raw().nbytes for b in buffers) < 1000 * (24 + 8 + 8 + 8 + 1) + 10 * 1000
    )  # names vary
    assert len(payload) < 4000  # metadata only
    back = pickle.loads(payload, buffers=buffers)
    assert (
        np.asarray(back.column("images")).__array_interface__["data"][0]
        == images.__array_interface__["data"][0]
    )


def test_batch_slices_pickle_only_their_rows():
    whole = qv.record_batch(_batch(1000))
    sliced = whole.slice(500, 10)
    sizes = {}
    for name, obj in (("whole", whole), ("sliced", sliced)):
        buffers = []
        pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        sizes[name] = sum(b.raw().nbytes for b in buffers)
    # Ten rows (re-based to a multiple of 8: four rows ride along), not a thousand.
    assert sizes["sliced"] < 20 * 24 + 20 * 8 * 2 + 20 * 4 + 16 * 8 + 200
    assert sizes["whole"] > 1000 * 24
    back = pickle.loads(pickle.dumps(sliced, protocol=5))
    assert back.equals(sliced) and back.num_rows == 10
    assert pa.record_batch(back).equals(pa.record_batch(sliced))


def test_table_chunks_keep_their_boundaries():
    table = qv.table(pa.Table.from_batches([_batch(16), _batch(8), _batch(4)]))
    back = pickle.loads(pickle.dumps(table, protocol=5))
    assert [b.num_rows for b in back.to_batches()] == [16, 8, 4]
    assert back.equals(table)


@pytest.mark.parametrize("protocol", [2, 5])
def test_schemas_and_fields(protocol):
    schema = qv.record_batch(_batch(8)).schema
    back = pickle.loads(pickle.dumps(schema, protocol=protocol))
    assert type(back) is qv.Schema and back == schema and back.metadata == schema.metadata
    assert [str(t) for t in back.types] == [str(t) for t in schema.types]
    for i in range(len(schema)):
        field = schema.field(i)
        again = pickle.loads(pickle.dumps(field, protocol=protocol))
        assert type(again) is qv.Field and again == field and again.metadata == field.metadata
        assert copy.copy(field) is field and copy.deepcopy(field) == field
    assert copy.copy(schema) is schema and copy.deepcopy(schema) == schema


def test_unpickling_batches_validates():
    batch = qv.record_batch(_batch(8))
    reduce_fn, (schema_state, (num_rows, columns)) = batch.__reduce_ex__(5)
    # More rows than the columns hold.
    with pytest.raises(ValueError):
        reduce_fn(schema_state, (num_rows + 1, columns))
    # A column missing.
    with pytest.raises(ValueError):
        reduce_fn(schema_state, (num_rows, columns[:-1]))
    # A dictionary index past the dictionary: caught by full validation.
    kind = list(columns[4])
    buffers = list(kind[3])
    indices = bytearray(bytes(buffers[1]))
    indices[0] = 100
    buffers[1] = bytes(indices)
    kind[3] = tuple(buffers)
    with pytest.raises(ValueError, match="dictionary"):
        reduce_fn(schema_state, (num_rows, columns[:4] + (tuple(kind),)))
    # A type state naming an unknown format: refused like an unknown import.
    fields, metadata = schema_state
    name, type_state, nullable, field_metadata = fields[1]
    bad_type = (b"?", *type_state[1:])
    bad_fields = (fields[0], (name, bad_type, nullable, field_metadata)) + fields[2:]
    with pytest.raises(NotImplementedError, match="format"):
        reduce_fn((bad_fields, metadata), (num_rows, columns))


def _table_rows(table):
    return table.num_rows


def test_spawn_pool_receives_tables():
    tables = [qv.table(pa.Table.from_batches([_batch(8), _batch(4)])), qv.record_batch(_batch(12))]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        assert pool.map(_table_rows, tables) == [12, 12]


def test_misaligned_out_of_band_buffers_are_copied_not_refused():
    # Dask packs out-of-band frames back to back: a buffer may start at any
    # byte. Values read as 8-byte numbers need alignment, so quiver copies.
    dense = np.eye(4)
    objects = [
        qv.SparseCSRMatrix.from_dense_numpy(dense),
        qv.FixedShapeTensorArray.from_numpy(np.arange(12.0).reshape(3, 4)),
        qv.Tensor.from_numpy(np.arange(6, dtype=np.int64)),
    ]
    for obj in objects:
        buffers = []
        data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        shifted = []
        for b in buffers:
            raw = bytearray(len(b.raw()) + 1)
            raw[1:] = b.raw()
            shifted.append(memoryview(raw)[1:])
        assert pickle.loads(data, buffers=shifted) == obj
