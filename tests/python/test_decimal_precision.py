"""Decimal precision out of its type's range, from an IPC schema and from a
C Data Interface format string: refused with the field named, as Arrow C++
refuses it (decimal32 [1, 9], decimal64 [1, 18], decimal128 [1, 38],
decimal256 [1, 76]); a negative scale is fine."""

import ctypes
import decimal
import io

import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv

# (pyarrow type with a precision and scale found once in its schema
# message, the bit width's name, the largest precision)
TYPES = [
    (pa.decimal32(7, 5), "decimal32", 9),
    (pa.decimal64(17, 5), "decimal64", 18),
    (pa.decimal128(37, 29), "decimal128", 38),
    (pa.decimal256(70, 29), "decimal256", 76),
]


def _stream_with_precision(type_, precision):
    """A stream whose column "price" is `type_` with its precision patched."""
    table = pa.table({"price": pa.array([decimal.Decimal("0.5")], type_)})
    sink = io.BytesIO()
    with pai.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    data = bytearray(sink.getvalue())
    schema_end = 8 + int.from_bytes(data[4:8], "little")
    old = type_.precision.to_bytes(4, "little")
    at = data.find(old, 0, schema_end)
    assert at > 0 and data.find(old, at + 1, schema_end) < 0  # found once
    data[at : at + 4] = precision.to_bytes(4, "little", signed=True)
    return bytes(data)


@pytest.mark.parametrize("type_, name, most", TYPES, ids=[t[1] for t in TYPES])
def test_ipc_schema_precision_is_checked(type_, name, most):
    assert qv.ipc.open_stream(_stream_with_precision(type_, most)).read_all().num_rows == 1
    for bad in (0, -3, most + 1, 1 << 30):
        data = _stream_with_precision(type_, bad)
        with pytest.raises(
            ValueError,
            match=rf"price.*{name} precision {bad} is outside "
            rf"\[1, {most}\]",
        ):
            qv.ipc.open_stream(data).read_all()


class _Schema:
    """A producer of one ArrowSchema: pyarrow's export of `schema` with the
    format string of its first field replaced by `format_`."""

    def __init__(self, schema, format_):
        self.schema, self.format = schema, format_.encode()

    def __arrow_c_schema__(self):
        # struct ArrowSchema: format, name, metadata, flags, n_children,
        # children, dictionary, release, private_data (9 words).
        self.struct = ctypes.create_string_buffer(72)
        self.schema._export_to_c(ctypes.addressof(self.struct))
        children = ctypes.c_void_p.from_address(ctypes.addressof(self.struct) + 40).value
        child = ctypes.c_void_p.from_address(children).value
        self.text = ctypes.create_string_buffer(self.format)
        ctypes.c_void_p.from_address(child).value = ctypes.addressof(self.text)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.struct), b"arrow_schema", None)


@pytest.mark.parametrize(
    "format_, message",
    [
        ("d:39,2", r"decimal128 precision 39 is outside \[1, 38\]"),
        ("d:0,2", r"decimal128 precision 0 is outside \[1, 38\]"),
        ("d:77,2,256", r"decimal256 precision 77 is outside \[1, 76\]"),
        ("d:10,2,32", r"decimal32 precision 10 is outside \[1, 9\]"),
        ("d:19,-2,64", r"decimal64 precision 19 is outside \[1, 18\]"),
    ],
)
def test_c_data_format_precision_is_checked(format_, message):
    schema = pa.schema([pa.field("price", pa.decimal128(10, 2))])
    sink = io.BytesIO()
    with qv.ipc.new_stream(sink, _Schema(schema, "d:38,-2")):
        pass
    assert pai.open_stream(sink.getvalue()).schema.field("price").type == pa.decimal128(38, -2)
    with pytest.raises(ValueError, match="price.*" + message):
        qv.ipc.new_stream(io.BytesIO(), _Schema(schema, format_))


def test_negative_scale_is_kept():
    for type_ in (pa.decimal128(10, -3), pa.decimal256(40, -2), pa.decimal32(5, -1)):
        table = pa.table({"d": pa.array([decimal.Decimal("1E+5")], type_)})
        sink = io.BytesIO()
        with pai.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        back = qv.ipc.open_file(sink.getvalue()).read_all()
        assert pa.table(back).equals(table)
