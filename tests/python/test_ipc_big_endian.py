"""Big-endian IPC files and streams: pyarrow cannot write them, so each
test writes a little-endian file (pyarrow, or quiver for tensor columns),
byte-swaps every buffer of every body according to its type's layout and
marks the schema big-endian, then checks that quiver reads it equal to its
little-endian twin."""

import datetime
import decimal
import io
import struct

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv


# --- reading flatbuffers ----------------------------------------------------


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

    def scalar(self, slot, fmt, default=0):
        p = self.field_pos(slot)
        return default if p is None else struct.unpack_from("<" + fmt, self.buf, p)[0]

    def ref(self, slot):
        p = self.field_pos(slot)
        return None if p is None else p + struct.unpack_from("<I", self.buf, p)[0]

    def table(self, slot):
        p = self.ref(slot)
        return None if p is None else _Table(self.buf, p)

    def vector(self, slot):
        p = self.ref(slot)
        return (p + 4, struct.unpack_from("<I", self.buf, p)[0]) if p is not None else (None, 0)

    def tables(self, slot):
        first, n = self.vector(slot)
        return [
            _Table(self.buf, first + 4 * i + struct.unpack_from("<I", self.buf, first + 4 * i)[0])
            for i in range(n)
        ]


def _root(buf, pos=0):
    return _Table(buf, pos + struct.unpack_from("<I", buf, pos)[0])


# --- writing: new root tables in front of the old flatbuffer ---------------
#
# A flatbuffer's offsets are relative, so new tables placed before the old
# bytes can point forward into them; the old root stays, unreferenced. The
# Schema's endianness is absent when it has its default (Little), so the
# Message (or Footer) and its Schema are written again in front.


def _prepend_tables(old, tables):
    """tables: lists of (slot, kind, value), kind 'B'/'h'/'q' (a scalar),
    'old' (a position in `old`) or 'new' (the index of a later table);
    tables[0] becomes the root. Every field gets its own 8-byte slot."""
    layout, pos = [], 8
    for fields in tables:
        nslots = max(slot for slot, _, _ in fields) + 1
        vt_size = 4 + 2 * nslots
        vt_pos = pos
        table_pos = (vt_pos + vt_size + 7) // 8 * 8
        pos = table_pos + 8 + 8 * len(fields)
        layout.append((vt_pos, vt_size, table_pos))
    prefix = (pos + 7) // 8 * 8
    out = bytearray(prefix) + bytearray(old)
    struct.pack_into("<I", out, 0, layout[0][2])
    for (vt_pos, vt_size, table_pos), fields in zip(layout, tables):
        struct.pack_into("<HH", out, vt_pos, vt_size, 8 + 8 * len(fields))
        struct.pack_into("<i", out, table_pos, table_pos - vt_pos)
        for k, (slot, kind, value) in enumerate(fields):
            at = table_pos + 8 + 8 * k
            struct.pack_into("<H", out, vt_pos + 4 + 2 * slot, at - table_pos)
            if kind in ("B", "h", "q"):
                struct.pack_into("<" + kind, out, at, value)
            else:
                target = prefix + value if kind == "old" else layout[value][2]
                struct.pack_into("<I", out, at, target - at)
    return bytes(out)


def _big_endian_schema_fields(schema):
    fields = [(0, "h", 1)]  # Endianness.Big
    for slot in (1, 2, 3):  # fields, custom_metadata, features
        if schema.ref(slot) is not None:
            fields.append((slot, "old", schema.ref(slot)))
    return fields


def _big_endian_message(meta):
    """A Schema message's flatbuffer, its schema marked big-endian."""
    message = _root(meta)
    fields = [
        (0, "h", message.scalar(0, "h")),
        (1, "B", 1),
        (2, "new", 1),
        (3, "q", message.scalar(3, "q")),
    ]
    if message.ref(4) is not None:
        fields.append((4, "old", message.ref(4)))
    return _prepend_tables(meta, [fields, _big_endian_schema_fields(message.table(2))])


def _big_endian_footer(footer):
    root = _root(footer)
    fields = [(0, "h", root.scalar(0, "h")), (1, "new", 1)]
    for slot in (2, 3, 4):
        if root.ref(slot) is not None:
            fields.append((slot, "old", root.ref(slot)))
    return _prepend_tables(footer, [fields, _big_endian_schema_fields(root.table(1))])


# --- swapping bodies --------------------------------------------------------

# Type union tags (Schema.fbs).
(
    NULL,
    INT,
    FLOAT,
    BINARY,
    UTF8,
    BOOL,
    DECIMAL,
    DATE,
    TIME,
    TIMESTAMP,
    INTERVAL,
    LIST,
    STRUCT,
    UNION,
    FSB,
    FSL,
    MAP,
    DURATION,
    LBINARY,
    LUTF8,
    LLIST,
    REE,
    BVIEW,
    UVIEW,
    LVIEW,
    LLVIEW,
) = range(1, 27)


def _buffer_kinds(field):
    """How each buffer of `field`'s node swaps: 0 (bytes: kept), a width,
    'view', or a tuple of field widths (intervals); and whether the field
    has variadic buffers."""
    encoding = field.table(4)
    if encoding is not None:
        index = encoding.table(1)
        return [0, (index.scalar(0, "i") if index else 32) // 8], False
    t, tt = field.table(3), field.scalar(2, "B")
    if tt == NULL or tt == REE:
        return [], False
    if tt == INT:
        return [0, t.scalar(0, "i") // 8], False
    if tt == FLOAT:
        return [0, {0: 2, 1: 4, 2: 8}[t.scalar(0, "h")]], False
    if tt in (BINARY, UTF8):
        return [0, 4, 0], False
    if tt in (LBINARY, LUTF8):
        return [0, 8, 0], False
    if tt in (BOOL, FSB):
        return [0, 0], False
    if tt == DECIMAL:
        return [0, t.scalar(2, "i", 128) // 8], False
    if tt == DATE:
        return [0, 4 if t.scalar(0, "h", 1) == 0 else 8], False
    if tt == TIME:
        return [0, t.scalar(1, "i", 32) // 8], False
    if tt in (TIMESTAMP, DURATION):
        return [0, 8], False
    if tt == INTERVAL:
        return [0, {0: 4, 1: (4, 4), 2: (4, 4, 8)}[t.scalar(0, "h")]], False
    if tt in (LIST, MAP):
        return [0, 4], False
    if tt == LLIST:
        return [0, 8], False
    if tt in (STRUCT, FSL):
        return [0], False
    if tt == UNION:
        return ([0, 4] if t.scalar(0, "h") == 1 else [0]), False
    if tt in (BVIEW, UVIEW):
        return [0, "view"], True
    if tt == LVIEW:
        return [0, 4, 4], False
    if tt == LLVIEW:
        return [0, 8, 8], False
    raise AssertionError(f"type tag {tt}")


def _swap(body, offset, length, kind):
    if kind == 0 or length == 0:
        return
    if kind == "view":
        for at in range(offset, offset + length - 15, 16):
            n = struct.unpack_from("<i", body, at)[0]  # read before swapping (LE -> BE)
            body[at : at + 4] = body[at : at + 4][::-1]
            if n > 12:
                body[at + 8 : at + 12] = body[at + 8 : at + 12][::-1]
                body[at + 12 : at + 16] = body[at + 12 : at + 16][::-1]
        return
    widths = kind if isinstance(kind, tuple) else (kind,)
    record = sum(widths)
    for at in range(offset, offset + length - record + 1, record):
        for w in widths:
            body[at : at + w] = body[at : at + w][::-1]
            at += w


class _BodySwapper:
    def __init__(self, buf, meta, body_start):
        batch = _root(buf, meta).table(2)
        self.message_type = _root(buf, meta).scalar(1, "B")
        if self.message_type == 2:  # DictionaryBatch: its data is a RecordBatch
            self.dictionary_id = batch.scalar(0, "q")
            batch = batch.table(1)
        assert batch.table(3) is None, "swap uncompressed bodies only"
        self.buf, self.body = buf, body_start
        self.specs, self.count = batch.vector(2)
        self.variadic, _ = batch.vector(4)
        self.next_buffer = self.next_variadic = 0

    def next(self, kind):
        offset, length = struct.unpack_from("<qq", self.buf, self.specs + 16 * self.next_buffer)
        self.next_buffer += 1
        _swap(self.buf, self.body + offset, length, kind)

    def field(self, field, as_values=False):
        kinds, variadic = _buffer_kinds(field) if not as_values else _value_kinds(field)
        for kind in kinds:
            self.next(kind)
        if variadic:
            n = struct.unpack_from("<q", self.buf, self.variadic + 8 * self.next_variadic)[0]
            self.next_variadic += 1
            for _ in range(n):
                self.next(0)
        if field.table(4) is not None and not as_values:
            return  # the values (and their children) live in the dictionary batch
        for child in field.tables(5):
            self.field(child)


def _value_kinds(field):
    """_buffer_kinds of a dictionary field's value type."""

    class _NoEncoding:
        def __init__(self, f):
            self.f = f

        def table(self, slot):
            return None if slot == 4 else self.f.table(slot)

        def scalar(self, *a):
            return self.f.scalar(*a)

    return _buffer_kinds(_NoEncoding(field))


def _dictionary_fields(fields, out):
    for field in fields:
        encoding = field.table(4)
        if encoding is not None:
            out[encoding.scalar(0, "q")] = field
        _dictionary_fields(field.tables(5), out)
    return out


def _swap_messages(buf, pos, schema):
    """Swaps the body of every message from `pos` on; returns their ends."""
    top = schema.tables(1)
    dictionaries = _dictionary_fields(top, {})
    while pos + 8 <= len(buf):
        cont, length = struct.unpack_from("<Ii", buf, pos)
        if cont != 0xFFFFFFFF or length == 0:
            break
        meta = pos + 8
        message = _root(buf, meta)
        body_length = message.scalar(3, "q")
        swapper = _BodySwapper(buf, meta, meta + length)
        if swapper.message_type == 2:
            swapper.field(dictionaries[swapper.dictionary_id], as_values=True)
        else:
            for field in top:
                swapper.field(field)
        assert swapper.next_buffer == swapper.count
        pos = meta + length + body_length
    return pos


def big_endian_stream(data):
    """The big-endian twin of the little-endian IPC stream `data`."""
    buf = bytearray(data)
    length = struct.unpack_from("<i", buf, 4)[0]
    meta = bytes(buf[8 : 8 + length])
    rest = buf[8 + length :]
    _swap_messages(rest, 0, _root(meta).table(2))
    new_meta = _big_endian_message(meta)
    return struct.pack("<Ii", 0xFFFFFFFF, len(new_meta)) + new_meta + bytes(rest)


def big_endian_file(data):
    """The big-endian twin of the little-endian IPC file `data`."""
    buf = bytearray(data)
    footer_length = struct.unpack_from("<i", buf, len(buf) - 10)[0]
    footer_start = len(buf) - 10 - footer_length
    length = struct.unpack_from("<i", buf, 12)[0]
    meta = bytes(buf[16 : 16 + length])
    schema = _root(meta).table(2)
    _swap_messages(buf, 16 + length, schema)
    new_meta = _big_endian_message(meta)
    grown = len(new_meta) - len(meta)
    footer = bytearray(buf[footer_start : len(buf) - 10])
    root = _root(footer)
    for slot in (2, 3):  # dictionary and record batch blocks move by `grown`
        first, n = root.vector(slot)
        for i in range(n):
            at = first + 24 * i
            struct.pack_into("<q", footer, at, struct.unpack_from("<q", footer, at)[0] + grown)
    new_footer = _big_endian_footer(bytes(footer))
    return (
        bytes(buf[:8])
        + struct.pack("<Ii", 0xFFFFFFFF, len(new_meta))
        + new_meta
        + bytes(buf[16 + length : footer_start])
        + new_footer
        + struct.pack("<i", len(new_footer))
        + b"ARROW1"
    )


# --- the tests ----------------------------------------------------------------


def _pyarrow_file(table, kind="file", batches=None):
    sink = pa.BufferOutputStream()
    new = pai.new_file if kind == "file" else pai.new_stream
    with new(sink, table.schema) as w:
        for b in batches or [table]:
            w.write_table(b)
    return sink.getvalue().to_pybytes()


def _columns():
    ints = {
        f"{t}": pa.array(
            [1, None, -3 if t.startswith("i") else 3, 2 ** (int(t[-2:].lstrip("t")) - 2)], t
        )
        for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
    }
    cols = dict(ints)
    cols.update(
        {
            "float16": pa.array(np.array([1.5, 2.25, -0.5, 8], np.float16), pa.float16()),
            "float32": pa.array([1.5, None, -2.25, 1e30], pa.float32()),
            "float64": pa.array([1.5, 2.5, None, -1e300]),
            "bool": pa.array([True, None, False, True]),
            "decimal128": pa.array(
                [
                    decimal.Decimal("1.25"),
                    None,
                    decimal.Decimal("-123456789012345.67"),
                    decimal.Decimal("0.01"),
                ],
                pa.decimal128(20, 2),
            ),
            "decimal256": pa.array(
                [
                    decimal.Decimal("1.2"),
                    decimal.Decimal("-" + "9" * 50 + ".5"),
                    None,
                    decimal.Decimal("3"),
                ],
                pa.decimal256(60, 1),
            ),
            "date32": pa.array(
                [
                    datetime.date(2020, 1, 2),
                    None,
                    datetime.date(1960, 5, 6),
                    datetime.date(2000, 1, 1),
                ]
            ),
            "date64": pa.array([0, 86400000, None, -86400000], pa.date64()),
            "time32": pa.array([1, 2, None, 86399], pa.time32("s")),
            "time64": pa.array([1, None, 3, 86399999999], pa.time64("us")),
            "timestamp": pa.array([1, None, -3, 2**60], pa.timestamp("ns", tz="UTC")),
            "duration": pa.array([1, None, -3, 2**40], pa.duration("ms")),
            "utf8": pa.array(["a", "", None, "longer text"]),
            "large_utf8": pa.array(["a", None, "bc", "def"], pa.large_string()),
            "binary": pa.array([b"\x00\x01", None, b"", b"xyz"]),
            "large_binary": pa.array([b"\x00\x01", None, b"", b"xyz"], pa.large_binary()),
            "fixed_binary": pa.array([b"abcd", None, b"\x00\x01\x02\x03", b"wxyz"], pa.binary(4)),
            "utf8_view": pa.array(
                ["short", None, "a string longer than twelve bytes", "x" * 40], pa.string_view()
            ),
            "binary_view": pa.array(
                [b"s", b"a binary value longer than twelve", None, b""], pa.binary_view()
            ),
            "list": pa.array([[1, 2], None, [], [3]], pa.list_(pa.int32())),
            "large_list": pa.array([[1.5], [], None, [2.5, 3.5]], pa.large_list(pa.float64())),
            "fixed_list": pa.array([[1, 2], [3, 4], None, [5, 6]], pa.list_(pa.int16(), 2)),
            "struct": pa.array(
                [{"a": 1, "b": "x"}, None, {"a": -2, "b": None}, {"a": 3, "b": "yz"}]
            ),
            "dictionary": pa.DictionaryArray.from_arrays(
                pa.array([1, 0, None, 1], pa.int16()), pa.array(["p", "q"])
            ),
            "dictionary_list": pa.DictionaryArray.from_arrays(
                pa.array([0, 1, 1, None], pa.int32()),
                pa.array([[1, 2], [300000]], pa.list_(pa.int64())),
            ),
        }
    )
    return cols


def _check_twins(le, kind, expected):
    be = big_endian_file(le) if kind == "file" else big_endian_stream(le)
    open_ = qv.ipc.open_file if kind == "file" else qv.ipc.open_stream
    assert open_(le).endianness == "little"
    reader = open_(be)
    assert reader.endianness == "big"
    got = pa.table(reader.read_all())
    twin = pa.table(open_(le).read_all())
    assert got.equals(twin)
    assert got.equals(expected)
    return be


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_every_type_reads_equal_to_its_little_endian_twin(kind):
    table = pa.table(_columns())
    le = _pyarrow_file(table, kind, [table.slice(0, 2), table.slice(2)])
    _check_twins(le, kind, table)


@pytest.mark.parametrize("name", sorted(_columns()))
def test_each_type_alone(name):
    # One column per file: a failure names the type.
    table = pa.table({name: _columns()[name]})
    _check_twins(_pyarrow_file(table), "file", table)


def test_the_swap_really_changes_the_bytes():
    # Values whose bytes differ in every position: a swapped run cannot
    # look like the unswapped one shifted by a few bytes.
    values = [0x11223344, -2, 0x55667788]
    table = pa.table({"x": pa.array(values, pa.int32())})
    le = _pyarrow_file(table)
    be = big_endian_file(le)
    assert struct.pack(">iii", *values) in be
    assert struct.pack("<iii", *values) in le and struct.pack("<iii", *values) not in be
    # pyarrow reads our big-endian file equal too (it swaps as well).
    assert pai.open_file(pa.py_buffer(be)).read_all().equals(table)


def _new_types():
    """Maps, unions, intervals, list views, run-end encoded and the small
    decimals (where this pyarrow has them)."""
    out = {
        "interval_mdn": pa.array(
            [pa.MonthDayNano([1, 2, 3]), None, pa.MonthDayNano([-1, 0, 2**40])],
            pa.month_day_nano_interval(),
        ),
        "map": pa.array([[("a", 1)], None, [("b", 2), ("c", 3)]], pa.map_(pa.string(), pa.int32())),
        "list_view": pa.array([[1, 2], None, [3]], pa.list_view(pa.int32())),
        "large_list_view": pa.array([[1, 2], None, [3]], pa.large_list_view(pa.int32())),
        "ree": pa.RunEndEncodedArray.from_arrays(pa.array([2, 3], pa.int32()), pa.array([7, 8])),
        "dense_union": pa.UnionArray.from_dense(
            pa.array([0, 1, 0], pa.int8()),
            pa.array([0, 0, 1], pa.int32()),
            [pa.array([1, 2]), pa.array(["x"])],
        ),
        "sparse_union": pa.UnionArray.from_sparse(
            pa.array([0, 1, 0], pa.int8()), [pa.array([1, 2, 3]), pa.array(["x", "y", "z"])]
        ),
    }
    if hasattr(pa, "decimal32"):
        out["decimal32"] = pa.array(
            [decimal.Decimal("1.5"), None, decimal.Decimal("-2.5")], pa.decimal32(5, 1)
        )
        out["decimal64"] = pa.array(
            [decimal.Decimal("1.5"), None, decimal.Decimal("-2.5")], pa.decimal64(15, 1)
        )
    return out


@pytest.mark.parametrize("kind", ["file", "stream"])
@pytest.mark.parametrize("name", sorted(_new_types()))
def test_newer_types(name, kind):
    table = pa.table({name: _new_types()[name]})
    _check_twins(_pyarrow_file(table, kind, [table.slice(0, 1), table.slice(1)]), kind, table)


def test_tensor_columns(tmp_path):
    fixed = qv.FixedShapeTensorArray.from_numpy(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.arange(6, dtype=np.int64).reshape(2, 3), np.arange(4, dtype=np.int64).reshape(1, 4)]
    )
    table = qv.table({"fixed": fixed, "ragged": ragged})
    path = tmp_path / "t.arrow"
    qv.ipc.write_file(table, str(path))
    le = path.read_bytes()
    be = big_endian_file(le)
    got = qv.ipc.open_file(be).read_all()
    twin = qv.ipc.open_file(le).read_all()
    assert pa.table(got).equals(pa.table(twin))
    assert np.array_equal(got.column("fixed").chunk(0).to_numpy(), fixed.to_numpy())
    rows = got.column("ragged").chunk(0)
    assert np.array_equal(np.asarray(rows[1]), np.arange(4, dtype=np.int64).reshape(1, 4))


def test_dictionary_deltas_big_endian():
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])
    b1 = pa.record_batch(
        [pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), pa.array(["a", "b"]))],
        schema=schema,
    )
    b2 = pa.record_batch(
        [pa.DictionaryArray.from_arrays(pa.array([2, 0], pa.int32()), pa.array(["a", "b", "c"]))],
        schema=schema,
    )
    sink = pa.BufferOutputStream()
    with pai.new_stream(
        sink, schema, options=pai.IpcWriteOptions(emit_dictionary_deltas=True)
    ) as w:
        w.write_batch(b1)
        w.write_batch(b2)
    be = big_endian_stream(sink.getvalue().to_pybytes())
    got = pa.table(qv.ipc.open_stream(be).read_all())
    assert got.column("d").to_pylist() == ["a", "b", "c", "a"]


def test_swap_endian_false_keeps_the_data_and_refuses_batches():
    table = pa.table({"x": pa.array([1, 2, 3], pa.int64())})
    be = big_endian_file(_pyarrow_file(table))
    reader = qv.ipc.open_file(be, swap_endian=False)
    assert reader.endianness == "big"
    assert pa.schema(reader.schema).equals(table.schema)
    with pytest.raises(
        NotImplementedError,
        match="big-endian, not in this machine's byte order, and swap_endian is off",
    ):
        reader.get_batch(0)
    stream = qv.ipc.open_stream(
        big_endian_stream(_pyarrow_file(table, "stream")), swap_endian=False
    )
    assert stream.endianness == "big"
    with pytest.raises(NotImplementedError, match="swap_endian is off"):
        stream.read_all()
    # Little-endian data is native: the option changes nothing.
    le = qv.ipc.open_file(_pyarrow_file(table), swap_endian=False)
    assert pa.table(le.read_all()).equals(table)


def test_swap_endian_false_hands_out_the_bytes_as_stored():
    """Kept as it is, non-native data is reached through layouts and body
    buffers (bytes in the file's order), never through arrays."""
    table = pa.table(
        {
            "x": pa.array([1, None, 3], pa.int64()),
            "d": pa.array(["a", "b", "a"]).dictionary_encode(),
        }
    )
    le_bytes = _pyarrow_file(table)
    for be, le in (
        (
            qv.ipc.open_file(big_endian_file(le_bytes), swap_endian=False),
            qv.ipc.open_file(le_bytes),
        ),
    ):
        layout, twin = be.record_batch_layout(0), le.record_batch_layout(0)
        assert layout == twin  # the header places the same buffers
        x = layout["columns"][0]
        assert (x["name"], x["length"], x["null_count"], x["dictionary_id"]) == ("x", 3, 1, None)
        assert layout["columns"][1]["dictionary_id"] == 0
        values = x["buffers"][1]
        stored = np.asarray(be.read_body_buffer(0, values))
        assert stored.dtype == np.uint8
        np.testing.assert_array_equal(stored.view(">i8")[[0, 2]], [1, 3])
        np.testing.assert_array_equal(
            stored,
            np.asarray(le.read_body_buffer(0, values)).view("<i8").astype(">i8").view(np.uint8),
        )
        with pytest.raises(NotImplementedError, match="swap_endian is off"):
            be.get_batch(0)
    # A stream with a dictionary: its layouts go past the dictionary batch.
    stream = qv.ipc.open_stream(
        big_endian_stream(_pyarrow_file(table, "stream")), swap_endian=False
    )
    layout = stream.read_next_layout()
    assert layout["num_rows"] == 3 and layout["columns"][1]["dictionary_id"] == 0
    stored = np.asarray(stream.read_body_buffer(layout["columns"][0]["buffers"][1]))
    np.testing.assert_array_equal(stored.view(">i8")[[0, 2]], [1, 3])
    assert stream.read_next_layout() is None


def test_hostile_big_endian_offsets_are_caught():
    # Offsets swapped twice (left little-endian in a big-endian file) are
    # huge: validation refuses them instead of reading out of bounds.
    table = pa.table({"s": pa.array(["ab", "cde"])})
    be = bytearray(big_endian_file(_pyarrow_file(table)))
    good = struct.pack(">iii", 0, 2, 5)
    at = bytes(be).index(good)
    be[at : at + 12] = struct.pack("<iii", 0, 2, 5)
    with pytest.raises(ValueError):
        qv.ipc.open_file(bytes(be)).read_all()


def test_quiver_writes_little_endian(tmp_path):
    path = tmp_path / "w.arrow"
    qv.ipc.write_file(qv.table(pa.table({"x": [1, 2]})), str(path))
    assert qv.ipc.open_file(str(path)).endianness == "little"
    out = io.BytesIO()
    with qv.ipc.new_stream(out, qv.table(pa.table({"x": [1, 2]})).schema) as w:
        w.write(qv.table(pa.table({"x": [1, 2]})))
    assert qv.ipc.open_stream(out.getvalue()).endianness == "little"


def test_every_corrupted_byte_is_an_error_or_valid_data():
    # Each byte of a big-endian file's batches flipped in turn: reading
    # either raises a documented error or gives columns that pyarrow's full
    # validation accepts (the swap happens before quiver validates).
    columns = {
        name: arr
        for name, arr in {**_columns(), **_new_types()}.items()
        if name
        in (
            "utf8",
            "list",
            "utf8_view",
            "dictionary",
            "dense_union",
            "ree",
            "interval_mdn",
            "large_list_view",
        )
    }
    table = pa.table({name: arr.slice(0, 3) for name, arr in columns.items()})
    be = big_endian_file(_pyarrow_file(table))
    # The dictionary and record batch messages: what the swap reads (a
    # corrupt schema gives field names pyarrow cannot decode, another matter).
    first = 16 + struct.unpack_from("<i", be, 12)[0]
    end = len(be) - 10 - struct.unpack_from("<i", be, len(be) - 10)[0]
    accepted = 0
    for at in range(first, end):
        corrupt = bytearray(be)
        corrupt[at] ^= 0x80
        try:
            got = qv.ipc.open_file(bytes(corrupt)).read_all()
        except (ValueError, NotImplementedError, IndexError, OSError):
            continue
        try:
            pa.table(got).validate(full=True)
        except pa.ArrowInvalid as e:
            # What quiver's kFull leaves unread by choice (docs/validation.md),
            # little-endian data alike: an inline view's padding, and the
            # offset and size of a null list view slot.
            null_slot = tuple(
                f"Column {table.column_names.index('large_list_view')}: In chunk 0: "
                f"Invalid: Offset invariant failure: {what} for slot 1 "
                for what in ("offset", "size")
            )
            assert "padding bytes were not all zero" in str(e) or str(e).startswith(null_slot), e
        accepted += 1
    assert 0 < accepted < end - first
