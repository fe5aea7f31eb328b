"""Messages of metadata version V4 (Arrow before 1.0): a union there has
a validity buffer before its type ids, which the reader skips as Arrow
C++ does; in a V5 message the same buffer is one too many and refused."""

import io
import struct

import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv

V4 = pai.IpcWriteOptions(metadata_version=pai.MetadataVersion.V4)


def _unions():
    types = pa.array([0, 1, 0, 1, 1], pa.int8())
    sparse = pa.UnionArray.from_sparse(
        types,
        [pa.array([1, None, 3, 4, 5], pa.int64()), pa.array(["a", "b", None, "d", "e"])],
        ["i", "s"],
    )
    dense = pa.UnionArray.from_dense(
        pa.array([5, 9, 9, 5, 9], pa.int8()),
        pa.array([0, 0, 1, 1, 2], pa.int32()),
        [pa.array([1.5, None], pa.float64()), pa.array([b"x", None, b"zz"])],
        ["f", "b"],
        [5, 9],
    )
    return {"sparse": sparse, "dense": dense}


UNIONS = _unions()


def _table(kind):
    # The union nested in a struct too: the skipped buffer shifts every
    # buffer after it.
    union = UNIONS[kind]
    nested = pa.StructArray.from_arrays([union, pa.array(range(5), pa.int32())], ["u", "n"])
    return pa.table({"u": union, "nested": nested, "after": pa.array(list("vwxyz"))})


def _write(table, stream, options):
    sink = io.BytesIO()
    new = pai.new_stream if stream else pai.new_file
    with new(sink, table.schema, options=options) as writer:
        writer.write_table(table.slice(0, 3))
        writer.write_table(table.slice(3))
    return sink.getvalue()


def _field(data, table, index):
    """Where field `index` of the flatbuffer table at `table` lies (0: absent)."""
    vtable = table - struct.unpack_from("<i", data, table)[0]
    if 4 + 2 * index >= struct.unpack_from("<H", data, vtable)[0]:
        return 0
    offset = struct.unpack_from("<H", data, vtable + 4 + 2 * index)[0]
    return table + offset if offset else 0


def _messages(data, stream):
    """(offset of each message's flatbuffer, its length), front to back."""
    pos = 0 if stream else 8
    out = []
    while pos + 8 <= len(data):
        marker, length = struct.unpack_from("<Ii", data, pos)
        assert marker == 0xFFFFFFFF
        if length == 0:
            break
        start = pos + 8
        out.append((start, length))
        table = start + struct.unpack_from("<I", data, start)[0]
        body_at = _field(data, table, 3)  # Message: version, header_type, header, bodyLength
        pos = start + length + (struct.unpack_from("<q", data, body_at)[0] if body_at else 0)
    return out


def _set_version(data, stream, version):
    """The bytes with every message's metadata version set to `version`."""
    out = bytearray(data)
    for start, _ in _messages(data, stream):
        version_at = _field(out, start + struct.unpack_from("<I", out, start)[0], 0)
        assert version_at != 0  # pyarrow writes the version explicitly
        struct.pack_into("<h", out, version_at, version)
    return bytes(out)


def _read(data, stream):
    if stream:
        return qv.ipc.open_stream(data).read_all()
    return qv.ipc.open_file(data).read_all()


def _pyarrow_read(data, stream):
    return (pai.open_stream(data) if stream else pai.open_file(data)).read_all()


@pytest.mark.parametrize("kind", sorted(UNIONS))
@pytest.mark.parametrize("stream", [False, True])
def test_v4_unions_read_as_pyarrow_reads_them(kind, stream):
    table = _table(kind)
    data = _write(table, stream, V4)
    assert {
        pai.read_message(pa.BufferReader(data[s - 8 :])).metadata_version
        for s, _ in _messages(data, stream)
    } == {pai.MetadataVersion.V4}
    got = _read(data, stream)
    assert pa.table(got).equals(_pyarrow_read(data, stream))
    assert pa.table(got).equals(table)
    # One batch alone.
    if not stream:
        reader = qv.ipc.open_file(data)
        assert pa.table(qv.table(reader.get_batch(1))).equals(table.slice(3))


@pytest.mark.parametrize("kind", sorted(UNIONS))
@pytest.mark.parametrize("stream", [False, True])
def test_v5_unions_are_unchanged(kind, stream):
    table = _table(kind)
    data = _write(table, stream, None)
    assert pa.table(_read(data, stream)).equals(table)


@pytest.mark.parametrize("kind", sorted(UNIONS))
@pytest.mark.parametrize("stream", [False, True])
def test_a_v5_union_with_a_validity_buffer_is_refused(kind, stream):
    data = _set_version(_write(_table(kind), stream, V4), stream, 4)  # V5
    with pytest.raises(pa.ArrowInvalid):  # pyarrow reads buffers shifted by one
        _pyarrow_read(data, stream).validate(full=True)
    with pytest.raises(ValueError, match=r"field nodes and \d+ buffers, the schema uses"):
        _read(data, stream)


def test_v4_without_unions_reads_as_v5():
    table = pa.table({"x": pa.array([1, None, 3]), "s": pa.array(["a", "b", None])})
    for stream in (False, True):
        assert pa.table(_read(_write(table, stream, V4), stream)).equals(table)
