"""Dictionaries in IPC files and streams written by pyarrow: at any depth
(inside lists, structs, map values and other dictionaries' values), ids
shared by fields of equal value type, deltas and replacements."""

import io
import struct

import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv


# --- a minimal flatbuffer reader, to patch ids in place ---------------------


class _Table:
    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        self.vt = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vtlen = struct.unpack_from("<H", buf, self.vt)[0]

    def field_pos(self, slot):
        o = 4 + 2 * slot
        if o >= self.vtlen:
            return None
        off = struct.unpack_from("<H", self.buf, self.vt + o)[0]
        return self.pos + off if off else None

    def ref(self, slot):
        p = self.field_pos(slot)
        return None if p is None else p + struct.unpack_from("<I", self.buf, p)[0]

    def table(self, slot):
        p = self.ref(slot)
        return None if p is None else _Table(self.buf, p)

    def vector(self, slot):
        """(position of the first element, length) of a vector field."""
        p = self.ref(slot)
        return (p + 4, struct.unpack_from("<I", self.buf, p)[0]) if p is not None else (None, 0)

    def tables(self, slot):
        first, n = self.vector(slot)
        return [
            _Table(self.buf, first + 4 * i + struct.unpack_from("<I", self.buf, first + 4 * i)[0])
            for i in range(n)
        ]


def _root(buf, pos):
    return _Table(buf, pos + struct.unpack_from("<I", buf, pos)[0])


def _messages(buf, pos):
    """(metadata start, metadata length, body start, body length) of each
    encapsulated message from `pos` to the end-of-stream marker."""
    out = []
    while pos + 8 <= len(buf):
        cont, length = struct.unpack_from("<Ii", buf, pos)
        assert cont == 0xFFFFFFFF
        if length == 0:
            break
        meta = pos + 8
        message = _root(buf, meta)
        body_length = (
            struct.unpack_from("<q", buf, message.field_pos(3))[0] if message.field_pos(3) else 0
        )
        out.append((meta, length, meta + length, body_length))
        pos = meta + length + body_length
    return out


def _set_dictionary_id(schema, path, new_id):
    """Sets the id of the DictionaryEncoding of field `path` (indices of
    top-level field, child, ...) where the id is stored (non-zero)."""
    field = schema.tables(1)[path[0]]
    for child in path[1:]:
        field = field.tables(5)[child]
    encoding = field.table(4)
    pos = encoding.field_pos(0)
    assert pos is not None, "the id must be stored to be patched in place"
    struct.pack_into("<q", schema.buf, pos, new_id)


def _shared_id_stream(table, path):
    """pyarrow's stream of `table`, with field `path`'s dictionary id set to
    0 (the first field's): two fields share one dictionary id."""
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, table.schema) as w:
        w.write_table(table)
    buf = bytearray(sink.getvalue().to_pybytes())
    msgs = _messages(buf, 0)
    _set_dictionary_id(_root(buf, msgs[0][0]).table(2), path, 0)
    # The second dictionary batch (id 1) becomes a second one for id 0: a
    # replacement before any record batch, with the same values.
    batch = _root(buf, msgs[2][0]).table(2)
    struct.pack_into("<q", buf, batch.field_pos(0), 0)
    return bytes(buf)


def _shared_id_file(table, path):
    """pyarrow's file of `table`, field `path`'s id set to 0, its dictionary
    block dropped from the footer (a file holds one dictionary per id)."""
    sink = pa.BufferOutputStream()
    with pai.new_file(sink, table.schema) as w:
        w.write_table(table)
    buf = bytearray(sink.getvalue().to_pybytes())
    msgs = _messages(buf, 8)
    _set_dictionary_id(_root(buf, msgs[0][0]).table(2), path, 0)
    footer_length = struct.unpack_from("<i", buf, len(buf) - 10)[0]
    footer = _root(buf, len(buf) - 10 - footer_length)
    _set_dictionary_id(footer.table(1), path, 0)
    first, n = footer.vector(2)
    assert n == 2
    struct.pack_into("<I", buf, first - 4, 1)  # keep the block of id 0 only
    return bytes(buf)


def _check_both_ways(table, data, kind):
    """quiver reads `data` as pyarrow does; pyarrow reads quiver's writing."""
    open_ = qv.ipc.open_file if kind == "file" else qv.ipc.open_stream
    pa_open = pai.open_file if kind == "file" else pai.open_stream
    expected = pa_open(pa.py_buffer(data)).read_all()
    assert expected.equals(table)
    got = pa.table(open_(data).read_all())
    assert got.equals(expected)
    return got


# --- shared ids -----------------------------------------------------------


def _two_dictionary_columns():
    values = pa.array(["x", "y", "z"])
    a = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 2], pa.int32()), values)
    b = pa.DictionaryArray.from_arrays(pa.array([2, 2, 0, None], pa.int32()), values)
    return pa.table({"a": a, "b": b})


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_fields_may_share_a_dictionary_id(kind):
    table = _two_dictionary_columns()
    data = (_shared_id_file if kind == "file" else _shared_id_stream)(table, [1])
    got = _check_both_ways(table, data, kind)
    assert got.column("b").to_pylist() == ["z", "z", "x", None]


def test_shared_id_with_different_value_types_is_refused():
    values = pa.array(["x", "y", "z"])
    a = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), values)
    b = pa.DictionaryArray.from_arrays(pa.array([1, 0], pa.int32()), pa.array([1.5, 2.5]))
    data = _shared_id_stream(pa.table({"a": a, "b": b}), [1])
    with pytest.raises(
        ValueError,
        match="uses dictionary id 0 for values of type utf8 and of type "
        "float64; fields sharing a dictionary id must have equal value types",
    ):
        qv.ipc.open_stream(data)


def test_shared_id_inside_a_struct():
    values = pa.array(["p", "q"])
    a = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1], pa.int8()), values)
    s = pa.StructArray.from_arrays(
        [pa.DictionaryArray.from_arrays(pa.array([1, 1, 0], pa.int8()), values)], names=["inner"]
    )
    table = pa.table({"a": a, "s": s})
    for kind, make in (("file", _shared_id_file), ("stream", _shared_id_stream)):
        _check_both_ways(table, make(table, [1, 0]), kind)


# --- dictionaries at any depth --------------------------------------------


def _nested_table(with_nulls=True):
    inner = pa.array(["a", "b", "a", None if with_nulls else "c"]).dictionary_encode()
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 4]), inner)
    outer = pa.DictionaryArray.from_arrays(pa.array([1, 0, None, 1], pa.int32()), lists)
    struct_col = pa.StructArray.from_arrays(
        [pa.array(["x", "y", None, "z"]).dictionary_encode(), pa.array([1, 2, 3, 4])],
        names=["s", "n"],
    )
    list_col = pa.ListArray.from_arrays(
        pa.array([0, 1, 3, 3, 4]), pa.array(["u", "v", "u", "w"]).dictionary_encode()
    )
    dict_of_struct = pa.DictionaryArray.from_arrays(
        pa.array([0, 0, 1, None], pa.int16()),
        pa.StructArray.from_arrays(
            [pa.array(["k", "l"]).dictionary_encode(), pa.array([7, 8])], names=["key", "v"]
        ),
    )
    return pa.table(
        {"outer": outer, "struct": struct_col, "list": list_col, "dict_of_struct": dict_of_struct}
    )


@pytest.mark.parametrize("kind", ["file", "stream"])
@pytest.mark.parametrize("compression", [None, "zstd"])
def test_dictionaries_at_any_depth_from_pyarrow(kind, compression):
    if compression and compression not in qv.ipc.codecs():
        pytest.skip(f"this build has no {compression}")
    table = _nested_table()
    sink = pa.BufferOutputStream()
    options = pai.IpcWriteOptions(compression=compression)
    new = pai.new_file if kind == "file" else pai.new_stream
    with new(sink, table.schema, options=options) as w:
        w.write_table(table.slice(1))
        w.write_table(table)
    got = _check_both_ways(
        pa.concat_tables([table.slice(1), table]), sink.getvalue().to_pybytes(), kind
    )
    # table.slice(1) first: rows 1 to 3 of indices [1, 0, None, 1] over [["a", "b"], ["a", None]].
    assert got.column("outer").to_pylist()[:3] == [["a", "b"], None, ["a", None]]


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_quiver_writes_nested_dictionaries(kind, tmp_path):
    table = _nested_table()
    path = tmp_path / "nested.arrow"
    if kind == "file":
        qv.ipc.write_file(qv.table(table), str(path))
        back = pai.open_file(str(path)).read_all()
    else:
        with qv.ipc.new_stream(str(path), qv.table(table).schema) as w:
            w.write(qv.table(table))
        back = pai.open_stream(pa.OSFile(str(path))).read_all()
    assert back.equals(table)
    reread = (qv.ipc.open_file if kind == "file" else qv.ipc.open_stream)(str(path)).read_all()
    assert pa.table(reread).equals(table)


def test_nested_dictionaries_through_the_c_data_interface():
    table = _nested_table()
    assert pa.table(qv.table(table)).equals(table)
    for name in table.column_names:
        column = table.column(name).chunk(0)
        assert pa.array(qv.array(column)).equals(column)


def test_dictionary_in_map_values():
    m = pa.MapArray.from_arrays(
        pa.array([0, 1, 2, 2, 4]),
        pa.array(["k", "k", "j", "k"]),
        pa.array(["p", "q", None, "q"]).dictionary_encode(),
    )
    table = pa.table({"m": m})
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, table.schema) as w:
        w.write_table(table)
    _check_both_ways(table, sink.getvalue().to_pybytes(), "stream")


# --- deltas and replacements ----------------------------------------------


def _batches_with_growing_dictionary():
    schema = pa.schema(
        [
            ("d", pa.dictionary(pa.int32(), pa.string())),
            ("n", pa.dictionary(pa.int8(), pa.list_(pa.dictionary(pa.int32(), pa.string())))),
        ]
    )
    inner1 = pa.array(["a", "b"]).dictionary_encode()
    inner2 = pa.array(["a", "b", "c"]).dictionary_encode()
    b1 = pa.record_batch(
        [
            pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), pa.array(["a", "b"])),
            pa.DictionaryArray.from_arrays(
                pa.array([0, 0], pa.int8()), pa.ListArray.from_arrays(pa.array([0, 2]), inner1)
            ),
        ],
        schema=schema,
    )
    b2 = pa.record_batch(
        [
            pa.DictionaryArray.from_arrays(
                pa.array([2, None, 0], pa.int32()), pa.array(["a", "b", "c"])
            ),
            pa.DictionaryArray.from_arrays(
                pa.array([1, 0, 1], pa.int8()),
                pa.ListArray.from_arrays(pa.array([0, 2, 3]), inner2),
            ),
        ],
        schema=schema,
    )
    return schema, [b1, b2]


def _count_deltas(buf, pos):
    """Dictionary batches with isDelta set, from `pos` (so that the delta
    tests are not vacuous)."""
    deltas = 0
    for meta, _, _, _ in _messages(buf, pos):
        message = _root(buf, meta)
        if struct.unpack_from("<B", buf, message.field_pos(1))[0] == 2:  # DictionaryBatch
            batch = message.table(2)
            p = batch.field_pos(2)
            deltas += bool(p is not None and buf[p])
    return deltas


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_dictionary_deltas_from_pyarrow(kind):
    schema, batches = _batches_with_growing_dictionary()
    if kind == "file":
        # pyarrow writes no delta for the nested column (its inner
        # dictionary changes, a replacement, which a file cannot hold).
        schema = pa.schema([schema.field("d")])
        batches = [pa.record_batch([b.column(0)], schema=schema) for b in batches]
    sink = pa.BufferOutputStream()
    options = pai.IpcWriteOptions(emit_dictionary_deltas=True)
    new = pai.new_file if kind == "file" else pai.new_stream
    with new(sink, schema, options=options) as w:
        for b in batches:
            w.write_batch(b)
    data = sink.getvalue().to_pybytes()
    assert _count_deltas(data, 8 if kind == "file" else 0) >= 1
    expected = (pai.open_file if kind == "file" else pai.open_stream)(pa.py_buffer(data)).read_all()
    got = pa.table((qv.ipc.open_file if kind == "file" else qv.ipc.open_stream)(data).read_all())
    assert got.to_pylist() == expected.to_pylist()
    assert got.column("d").to_pylist() == ["a", "b", "c", None, "a"]


def test_dictionary_replacements_in_a_stream():
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])
    batches = [
        pa.record_batch(
            [pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), pa.array(["a", "b"]))],
            schema=schema,
        ),
        pa.record_batch(
            [pa.DictionaryArray.from_arrays(pa.array([1, 0, 0], pa.int32()), pa.array(["x", "y"]))],
            schema=schema,
        ),
        pa.record_batch(
            [pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), pa.array(["p"]))],
            schema=schema,
        ),
    ]
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, schema, options=pai.IpcWriteOptions(unify_dictionaries=False)) as w:
        for b in batches:
            w.write_batch(b)
    data = sink.getvalue().to_pybytes()
    reader = qv.ipc.open_stream(data)
    got = [pa.record_batch(b) for b in reader]
    # Each batch keeps the dictionary it was decoded with.
    assert [b.column(0).to_pylist() for b in got] == [["a", "b"], ["y", "x", "x"], ["p"]]
    assert [b.column(0).dictionary.to_pylist() for b in got] == [["a", "b"], ["x", "y"], ["p"]]


def test_read_all_gives_each_batch_its_own_dictionary():
    """read_all decodes a stream's batches several at a time: each still
    gets the dictionary of its place in the stream, across replacements and
    deltas, and the same batches as reading one at a time."""
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])
    batches = []
    for b in range(40):
        words = [f"w{b // 3}-{k}" for k in range(3)]  # a new dictionary every 3 batches
        batches.append(
            pa.record_batch(
                [
                    pa.DictionaryArray.from_arrays(
                        pa.array([b % 3, (b + 1) % 3], pa.int32()), pa.array(words)
                    )
                ],
                schema=schema,
            )
        )
    for options in (
        pai.IpcWriteOptions(unify_dictionaries=False),
        pai.IpcWriteOptions(emit_dictionary_deltas=True),
    ):
        sink = pa.BufferOutputStream()
        with pai.new_stream(sink, schema, options=options) as w:
            for batch in batches:
                w.write_batch(batch)
        data = sink.getvalue().to_pybytes()
        one_by_one = [pa.record_batch(b) for b in qv.ipc.open_stream(data)]
        table = pa.table(qv.ipc.open_stream(data).read_all())
        assert table.column("d").to_pylist() == [
            v for b in batches for v in b.column(0).to_pylist()
        ]
        assert [c.to_pylist() for c in table.column("d").chunks] == [
            b.column(0).to_pylist() for b in one_by_one
        ]


def test_read_all_reports_the_first_bad_batch():
    schema = pa.schema([("s", pa.string())])
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, schema) as w:
        for b in range(30):
            w.write_batch(pa.record_batch([pa.array(["a", f"MAGIC{100 + b}"])], schema=schema))
    data = bytearray(sink.getvalue().to_pybytes())
    for b in (14, 10):  # not UTF-8 any more (both in one window of 8 batches)
        data[data.index(f"MAGIC{100 + b}".encode())] = 0xFF
    with pytest.raises(ValueError, match="not valid UTF-8") as one_by_one:
        list(qv.ipc.open_stream(bytes(data)))
    reader = qv.ipc.open_stream(bytes(data))
    for attempt in range(2):  # the failure sticks
        with pytest.raises(ValueError) as first:
            reader.read_all()
        assert str(first.value) == str(one_by_one.value)


def _patch_second_dictionary_to_replacement(buf):
    """A file pyarrow wrote with a delta: the delta flag cleared, so the
    second dictionary batch of that id is a replacement."""
    cleared = 0
    for meta, _, _, _ in _messages(buf, 8):
        message = _root(buf, meta)
        if struct.unpack_from("<B", buf, message.field_pos(1))[0] == 2:
            p = message.table(2).field_pos(2)
            if p is not None and buf[p]:
                buf[p] = 0
                cleared += 1
    return cleared


def test_a_replacement_in_a_file_is_refused():
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])
    b1 = pa.record_batch(
        [pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), pa.array(["a", "b"]))],
        schema=schema,
    )
    b2 = pa.record_batch(
        [pa.DictionaryArray.from_arrays(pa.array([2], pa.int32()), pa.array(["a", "b", "c"]))],
        schema=schema,
    )
    sink = pa.BufferOutputStream()
    with pai.new_file(sink, schema, options=pai.IpcWriteOptions(emit_dictionary_deltas=True)) as w:
        w.write_batch(b1)
        w.write_batch(b2)
    buf = bytearray(sink.getvalue().to_pybytes())
    assert _patch_second_dictionary_to_replacement(buf) == 1
    reader = qv.ipc.open_file(bytes(buf))
    with pytest.raises(
        ValueError,
        match="a second dictionary for id 0 that is not a delta; the IPC file "
        "format allows one dictionary per id, extended only by deltas",
    ):
        reader.get_batch(0)
    # pyarrow refuses it too.
    with pytest.raises(pa.ArrowInvalid):
        pai.open_file(pa.py_buffer(bytes(buf))).read_all()


def test_quiver_streams_replace_nested_dictionaries():
    schema, batches = _batches_with_growing_dictionary()
    out = io.BytesIO()
    with qv.ipc.new_stream(out, qv.record_batch(batches[0]).schema) as w:
        for b in batches:
            w.write(qv.record_batch(b))
    back = pai.open_stream(pa.py_buffer(out.getvalue())).read_all()
    assert back.to_pylist() == pa.Table.from_batches(batches).to_pylist()
