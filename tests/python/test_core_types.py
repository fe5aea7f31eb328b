"""null, temporal, decimal, view and dictionary types through the PyCapsule
protocol with pyarrow: types, values, validity and time zones survive the
trip both ways, sliced or not."""

import datetime
import decimal

import pyarrow as pa
import pytest

import quiver as qv

D = decimal.Decimal
LONG = "a string longer than twelve"

# (pyarrow array, quiver type string): every new type, with nulls.
CASES = [
    (pa.array([None, None, None], pa.null()), "null"),
    (pa.array([0, 19000, None, -1], pa.date32()), "date32[day]"),
    (pa.array([86400000, None, 0], pa.date64()), "date64[ms]"),
    (pa.array([1, None, 86399], pa.time32("s")), "time32[s]"),
    (pa.array([1, None, 86399999], pa.time32("ms")), "time32[ms]"),
    (pa.array([1, None, 5], pa.time64("us")), "time64[us]"),
    (pa.array([1000, None, 5000], pa.time64("ns")), "time64[ns]"),
    (pa.array([0, None, 1700000000], pa.timestamp("s")), "timestamp[s]"),
    (pa.array([0, None, 1700000000000], pa.timestamp("ms", "UTC")), "timestamp[ms, tz=UTC]"),
    (
        pa.array([0, None, 1700000000000000], pa.timestamp("us", "Europe/Paris")),
        "timestamp[us, tz=Europe/Paris]",
    ),
    (pa.array([0, None, 1000], pa.timestamp("ns", "+02:00")), "timestamp[ns, tz=+02:00]"),
    (pa.array([-5, None, 5], pa.duration("s")), "duration[s]"),
    (pa.array([-5, None, 5], pa.duration("ms")), "duration[ms]"),
    (pa.array([-5, None, 5], pa.duration("us")), "duration[us]"),
    (pa.array([-5000, None, 5000], pa.duration("ns")), "duration[ns]"),
    (
        pa.array([D("123.45"), None, D("-0.01"), D("99999999.99")], pa.decimal128(10, 2)),
        "decimal128(10, 2)",
    ),
    (pa.array([D("1" * 38), None, D("-" + "9" * 38)], pa.decimal128(38, 0)), "decimal128(38, 0)"),
    (pa.array([D("1" * 70) / 1000, None, D("-3.141")], pa.decimal256(76, 3)), "decimal256(76, 3)"),
    (
        pa.array(["a", None, LONG, "", "twelve bytes", "thirteen bytes"], pa.string_view()),
        "utf8_view",
    ),
    (pa.array([b"\xff", None, b"\x00" * 40, b""], pa.binary_view()), "binary_view"),
    (
        pa.array(["a", "b", None, "a"]).dictionary_encode(),
        "dictionary<values=utf8, indices=int32, ordered=0>",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_round_trip(case):
    theirs, type_string = case
    ours = qv.array(theirs)
    assert isinstance(ours, qv.Array)
    assert str(ours.type) == type_string
    assert len(ours) == len(theirs)
    assert ours.null_count == theirs.null_count
    assert [ours.is_valid(i) for i in range(len(ours))] == theirs.is_valid().to_pylist()
    back = pa.array(ours)
    assert back.type == theirs.type
    assert back.equals(theirs)
    assert back.to_pylist() == theirs.to_pylist()


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
@pytest.mark.parametrize("start,stop", [(1, None), (0, 2), (2, 3)])
def test_sliced_round_trip(case, start, stop):
    theirs, _ = case
    sliced_theirs = theirs[start:stop]
    # Sliced on the pyarrow side (an offset in the C struct) ...
    back = pa.array(qv.array(sliced_theirs))
    assert back.type == theirs.type
    assert back.to_pylist() == sliced_theirs.to_pylist()
    # ... and on the quiver side.
    ours = qv.array(theirs)[start:stop]
    back = pa.array(ours)
    assert back.to_pylist() == sliced_theirs.to_pylist()
    assert back.is_valid().to_pylist() == sliced_theirs.is_valid().to_pylist()


def test_time_zone_survives_values():
    paris = pa.array(
        [datetime.datetime(2024, 3, 31, 1, 30, tzinfo=datetime.timezone.utc)],
        pa.timestamp("us", "Europe/Paris"),
    )
    back = pa.array(qv.array(paris))
    assert back.type.tz == "Europe/Paris"
    assert back[0].as_py() == paris[0].as_py()


def test_string_views_share_memory_and_keep_their_buffers():
    theirs = pa.array(["a", None, LONG, "short", LONG + "!" * 100], pa.string_view())
    back = pa.array(qv.array(theirs))
    assert back.to_pylist() == theirs.to_pylist()
    # validity, views and the variadic data buffer(s): the same memory.
    assert [b.address for b in back.buffers() if b is not None] == [
        b.address for b in theirs.buffers() if b is not None
    ]
    short_only = pa.array(["x", None, "twelve bytes"], pa.string_view())
    assert pa.array(qv.array(short_only)).equals(short_only)
    assert pa.array(qv.array(pa.array([], pa.string_view()))).to_pylist() == []


def test_dictionaries():
    strings = pa.array(["a", "b", None, "a"]).dictionary_encode()
    ours = qv.array(strings)
    assert ours.type.index_type == qv.type_from_arrow(pa.int32())
    assert str(ours.type.value_type) == "utf8"
    assert ours.type.ordered is False
    back = pa.array(ours)
    assert back.type == strings.type
    assert back.dictionary.equals(strings.dictionary)
    assert back.indices.equals(strings.indices)
    for index_type in [pa.int8(), pa.uint8(), pa.int16(), pa.uint32(), pa.int64(), pa.uint64()]:
        typed = pa.DictionaryArray.from_arrays(
            pa.array([1, None, 0, 1], index_type), pa.array(["x", None]), ordered=True
        )
        back = pa.array(qv.array(typed))
        assert back.type == typed.type
        assert back.type.ordered
        assert back.to_pylist() == typed.to_pylist()
    # Dictionaries of other value types, and of views.
    for values in [
        pa.array([1.5, None, 2.5]),
        pa.array([LONG, "b"], pa.string_view()),
        pa.array([D("1.25"), D("2.50")], pa.decimal128(5, 2)),
    ]:
        typed = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 1], pa.int16()), values)
        assert pa.array(qv.array(typed)).equals(typed)


def test_hostile_dictionary_indices_are_refused():
    bad = pa.DictionaryArray.from_arrays(
        pa.array([0, 5], pa.int32()), pa.array(["a", "b"]), safe=False
    )
    with pytest.raises(ValueError, match="row 1: dictionary index 5 is outside a dictionary of 2"):
        qv.array(bad)


def test_hostile_views_are_refused():
    good = pa.array(["a", LONG], pa.string_view())
    validity, views, data = good.buffers()
    raw = bytearray(views.to_pybytes())
    raw[16 + 8 : 16 + 12] = (3).to_bytes(4, "little")  # buffer index 3 of 1
    bad = pa.Array.from_buffers(pa.string_view(), 2, [validity, pa.py_buffer(bytes(raw)), data])
    with pytest.raises(ValueError, match="row 1: view points into variadic buffer 3"):
        qv.array(bad)
    raw = bytearray(views.to_pybytes())
    raw[16 + 12 : 16 + 16] = (10).to_bytes(4, "little")  # offset 10 + 27 > 27
    bad = pa.Array.from_buffers(pa.string_view(), 2, [validity, pa.py_buffer(bytes(raw)), data])
    with pytest.raises(ValueError, match=r"row 1: view \[10, 37\) is outside variadic buffer 0"):
        qv.array(bad)


def test_types_from_arrow():
    ts = qv.type_from_arrow(pa.timestamp("us", "UTC"))
    assert str(ts) == "timestamp[us, tz=UTC]"
    assert repr(ts) == "quiver.DataType(timestamp[us, tz=UTC])"
    assert ts.unit == "us"
    assert ts.tz == "UTC"
    assert qv.type_from_arrow(pa.timestamp("ns")).tz is None
    dec = qv.type_from_arrow(pa.decimal128(10, 2))
    assert repr(dec) == "quiver.DataType(decimal128(10, 2))"
    assert (dec.precision, dec.scale) == (10, 2)
    assert qv.type_from_arrow(pa.decimal256(40, -2)).scale == -2
    assert qv.type_from_arrow(pa.time32("ms")).unit == "ms"
    assert qv.type_from_arrow(pa.duration("ns")).unit == "ns"
    assert qv.type_from_arrow(pa.int32()).unit is None
    assert qv.type_from_arrow(pa.int32()).precision is None
    assert str(qv.type_from_arrow(pa.null())) == "null"
    assert str(qv.type_from_arrow(pa.date32())) == "date32[day]"
    assert str(qv.type_from_arrow(pa.date64())) == "date64[ms]"
    assert str(qv.type_from_arrow(pa.string_view())) == "utf8_view"
    assert str(qv.type_from_arrow(pa.binary_view())) == "binary_view"
    dictionary = qv.type_from_arrow(pa.dictionary(pa.int8(), pa.string(), ordered=True))
    assert str(dictionary) == "dictionary<values=utf8, indices=int8, ordered=1>"
    assert dictionary.ordered is True
    assert str(dictionary.index_type) == "int8"
    assert qv.type_from_arrow(pa.int8()).index_type is None
    # The types export back to the same pyarrow types.
    for t in [
        pa.timestamp("us", "UTC"),
        pa.decimal256(40, -2),
        pa.string_view(),
        pa.null(),
        pa.dictionary(pa.int8(), pa.string(), ordered=True),
        pa.time64("ns"),
    ]:
        assert pa.DataType._import_from_c_capsule(qv.type_from_arrow(t).__arrow_c_schema__()) == t
    assert qv.type_from_arrow(pa.timestamp("us", "UTC")) == qv.type_from_arrow(
        pa.timestamp("us", "UTC")
    )
    assert qv.type_from_arrow(pa.timestamp("us", "UTC")) != qv.type_from_arrow(pa.timestamp("us"))


@pytest.mark.parametrize(
    "t,name",
    [
        (pa.map_(pa.int32(), pa.utf8()), "map<int32, utf8>"),
        (pa.map_(pa.int32(), pa.utf8(), keys_sorted=True), "map<int32, utf8, keys_sorted>"),
        (pa.month_day_nano_interval(), "interval[month_day_nano]"),
        (pa.list_view(pa.int32()), "list_view<item: int32>"),
        (pa.large_list_view(pa.int32()), "large_list_view<item: int32>"),
        (pa.run_end_encoded(pa.int32(), pa.utf8()), "run_end_encoded<run_ends=int32, values=utf8>"),
        (pa.dense_union([pa.field("a", pa.int32())]), "dense_union<a: int32=0>"),
        (
            pa.sparse_union([pa.field("a", pa.int8()), pa.field("b", pa.utf8())], [5, 2]),
            "sparse_union<a: int8=5, b: utf8=2>",
        ),
        (pa.decimal32(9, 2), "decimal32(9, 2)"),
        (pa.decimal64(18, -1), "decimal64(18, -1)"),
    ],
)
def test_every_arrow_type_round_trips(t, name):
    # Each type of the format (docs/ipc.md, "Types"), alone and nested.
    got = qv.type_from_arrow(t)
    assert got.id == name
    assert pa.DataType._import_from_c_capsule(got.__arrow_c_schema__()) == t
    nested = pa.struct([pa.field("col", t)])
    assert (
        pa.DataType._import_from_c_capsule(qv.type_from_arrow(nested).__arrow_c_schema__())
        == nested
    )


def test_decimal32_and_64_have_precision_and_scale():
    assert qv.type_from_arrow(pa.decimal32(9, 2)).precision == 9
    assert qv.type_from_arrow(pa.decimal64(18, -3)).scale == -3
