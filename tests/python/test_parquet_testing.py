"""quiver.parquet against the cases of the apache/parquet-testing corpus.

The corpus's binary files are not shipped with any package this project
can install, so each case is made here: written by pyarrow with the
options that give the same structure, or, where pyarrow cannot write it
(legacy LZ4 framing, concatenated gzip members, schemas older writers used,
unknown logical types, a dictionary page offset of 0), taken apart and put
back together by parquet_testing_cases.py. Every readable case must read
equal to pyarrow's reading of the same bytes; every case of the corpus's
bad_data/ directory (the same defect, made by changing a valid file) must
be refused with a clean, descriptive exception. docs/parquet.md lists the
cases under "Conformance"."""

import struct

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import parquet_testing_cases as ptc  # noqa: E402
from parquet_testing_cases import (  # noqa: E402
    DATA_PAGE,
    DICTIONARY_PAGE,
    T_LIST,
    T_STRUCT,
    ParquetModel,
    binary,
    i32,
    i64,
    pyarrow_file,
    struct_,
)

GOOD = {}
BAD = {}


def good(name):
    def register(fn):
        GOOD[name] = fn
        return fn

    return register


def bad(name, error, match):
    def register(fn):
        BAD[name] = (fn, error, match)
        return fn

    return register


def pyarrow_read(data):
    return pq.read_table(pa.BufferReader(data))


def assert_same(ours, theirs, storage_of_extensions=False):
    assert ours.schema.names == theirs.schema.names
    for name in theirs.schema.names:
        a, b = ours.column(name), theirs.column(name)
        if storage_of_extensions and isinstance(b.type, pa.BaseExtensionType):
            b = pa.chunked_array([c.storage for c in b.chunks], b.type.storage_type)
        assert a.type == b.type, (name, a.type, b.type)
        a, b = a.combine_chunks(), b.combine_chunks()
        # NaN is not equal to itself under equals(); the values' reprs are.
        assert a.equals(b) or repr(a.to_pylist()) == repr(b.to_pylist()), (name, a, b)
    assert ours.num_rows == theirs.num_rows


def schema_index(model, name):
    for k, element in enumerate(model.schema):
        if element[4][1] == name.encode():
            return k
    raise KeyError(name)


def pages_of(model, rg=0, column=0):
    return model.chunks[rg][column].pages


def data_pages(model, rg=0, column=0):
    return [p for p in pages_of(model, rg, column) if p.type != DICTIONARY_PAGE]


def drop_statistics(model):
    for row in model.chunks:
        for chunk in row:
            chunk.meta.pop(12, None)
            chunk.meta.pop(16, None)  # size statistics (level histograms)
            for page in chunk.pages:
                if page.type != DICTIONARY_PAGE:
                    page.sub().pop(5 if page.type == DATA_PAGE else 8, None)


# ---------------------------------------------------------------------------
# Tables like the corpus's.


def alltypes(n=8):
    ids = np.arange(n, dtype=np.int32)
    return pa.table(
        {
            "id": pa.array(ids),
            "bool_col": pa.array(ids % 2 == 0),
            "tinyint_col": pa.array(ids % 2, pa.int32()),
            "smallint_col": pa.array(ids % 2, pa.int32()),
            "int_col": pa.array(ids % 2, pa.int32()),
            "bigint_col": pa.array((ids % 2) * 10, pa.int64()),
            "float_col": pa.array((ids % 2) * 1.1, pa.float32()),
            "double_col": pa.array((ids % 2) * 10.1, pa.float64()),
            "date_string_col": pa.array([f"{1 + k % 12:02d}/01/09".encode() for k in ids]),
            "string_col": pa.array([str(k % 2).encode() for k in ids]),
            "timestamp_col": pa.array(
                1230768000 * 10**9 + ids.astype(np.int64) * 60 * 10**9, pa.timestamp("ns")
            ),
        }
    )


def plain(table, **kwargs):
    kwargs.setdefault("compression", "none")
    kwargs.setdefault("use_dictionary", False)
    return pyarrow_file(table, **kwargs)


@good("alltypes_plain")
def _():
    return plain(alltypes(8), version="1.0", use_deprecated_int96_timestamps=True)


@good("alltypes_plain.snappy")
def _():
    return plain(
        alltypes(2), version="1.0", compression="snappy", use_deprecated_int96_timestamps=True
    )


@good("alltypes_dictionary")
def _():
    return pyarrow_file(
        alltypes(2), version="1.0", compression="none", use_deprecated_int96_timestamps=True
    )


@good("alltypes_tiny_pages")
def _():
    return pyarrow_file(
        alltypes(7300),
        compression="none",
        data_page_size=64,
        write_batch_size=16,
        write_page_index=True,
        use_deprecated_int96_timestamps=True,
    )


@good("alltypes_tiny_pages_plain")
def _():
    return plain(alltypes(7300), data_page_size=64, write_batch_size=16, write_page_index=True)


@good("binary")
def _():
    return plain(pa.table({"foo": pa.array([bytes([k]) for k in range(12)])}))


def decimal_table(precision, scale, n=24, nullable=True):
    values = [None if nullable and k % 7 == 3 else k + 1 for k in range(n)]
    field = pa.field("value", pa.decimal128(precision, scale), nullable=nullable)
    return pa.table({"value": pa.array(values, field.type)}, schema=pa.schema([field]))


@good("int32_decimal")
def _():
    return plain(decimal_table(4, 2), store_decimal_as_integer=True)


@good("int64_decimal")
def _():
    return plain(decimal_table(10, 2), store_decimal_as_integer=True)


@good("fixed_length_decimal")
def _():
    return plain(decimal_table(25, 2))


@good("fixed_length_decimal_legacy")
def _():
    # DECIMAL as a converted type only (scale and precision fields, no
    # logical type), as writers before the logical types wrote it.
    model = ParquetModel(plain(decimal_table(13, 2)))
    model.drop_arrow_schema()
    model.schema[1].pop(10, None)
    return model.to_bytes()


@good("byte_array_decimal")
def _():
    # DECIMAL on BYTE_ARRAY: pyarrow writes FIXED_LEN_BYTE_ARRAY, so each
    # value is given a length prefix and the column retyped.
    model = ParquetModel(plain(decimal_table(4, 2, nullable=False)))
    model.drop_arrow_schema()
    drop_statistics(model)
    element = model.schema[1]
    width = element[2][1]
    element[1] = i32(6)
    element.pop(2)
    chunk = model.chunks[0][0]
    chunk.meta[1] = i32(6)
    for page in chunk.pages:
        values = [page.payload[k : k + width] for k in range(0, len(page.payload), width)]
        page.payload = b"".join(struct.pack("<I", width) + v for v in values)
        page.header[2] = i32(len(page.payload))
        page.header[3] = i32(len(page.payload))
    return model.to_bytes()


@good("datapage_v2.snappy")
def _():
    table = pa.table(
        {
            "a": ["abc", "abc", "abc", None, "abc"],
            "b": pa.array([1, 2, 3, 4, 5], pa.int32()),
            "c": [2.0, 3.0, 4.0, 5.0, 2.0],
            "d": [True, True, True, False, True],
            "e": [[1, 2, 3], None, None, [1, 2, 3], [1, 2]],
        }
    )
    return pyarrow_file(table, data_page_version="2.0", compression="snappy")


def delta_ints(n=200, seed=1):
    rng = np.random.default_rng(seed)
    columns = {}
    for bits in (0, 1, 7, 8, 15, 31, 33, 63):
        if bits < 32:
            columns[f"int32_b{bits}"] = pa.array(
                rng.integers(0, 2**bits, n, dtype=np.int64), pa.int32()
            )
        columns[f"int64_b{bits}"] = pa.array(
            rng.integers(-(2**bits) // 2, max(1, 2**bits // 2), n, dtype=np.int64)
        )
    columns["int64_extremes"] = pa.array(
        [np.iinfo(np.int64).min, np.iinfo(np.int64).max] * (n // 2), pa.int64()
    )
    return pa.table(columns)


@good("delta_binary_packed")
def _():
    return plain(delta_ints(), version="2.6", column_encoding="DELTA_BINARY_PACKED")


def strings(n=300, nulls=True, seed=2):
    rng = np.random.default_rng(seed)
    words = ["apple", "application", "apply", "banana", "band", "bandana", "", "zz" * 40]
    return [
        None if nulls and rng.random() < 0.15 else words[rng.integers(len(words))] + str(k % 13)
        for k in range(n)
    ]


@good("delta_length_byte_array")
def _():
    table = pa.table({"FRUIT": strings()})
    return plain(table, column_encoding="DELTA_LENGTH_BYTE_ARRAY", data_page_version="2.0")


@good("delta_byte_array")
def _():
    table = pa.table({f"c_{k}": strings(seed=k) for k in range(3)})
    return plain(table, column_encoding="DELTA_BYTE_ARRAY", data_page_version="2.0")


@good("delta_encoding_required_column")
def _():
    schema = pa.schema(
        [pa.field("c_customer_sk", pa.int32(), False), pa.field("c_name", pa.string(), False)]
    )
    table = pa.table(
        {
            "c_customer_sk": pa.array(np.arange(100, dtype=np.int32) * 37 % 101),
            "c_name": strings(100, False),
        },
        schema=schema,
    )
    return plain(
        table,
        column_encoding={"c_customer_sk": "DELTA_BINARY_PACKED", "c_name": "DELTA_BYTE_ARRAY"},
    )


@good("delta_encoding_optional_column")
def _():
    ints = pa.array([None if k % 5 == 0 else k * 1000 - 50 for k in range(100)], pa.int64())
    table = pa.table({"c_customer_sk": ints, "c_name": strings(100)})
    return plain(
        table,
        column_encoding={
            "c_customer_sk": "DELTA_BINARY_PACKED",
            "c_name": "DELTA_LENGTH_BYTE_ARRAY",
        },
    )


@good("dict-page-offset-zero")
def _():
    # The chunk's dictionary_page_offset is 0 and its data_page_offset
    # points at the dictionary page, as some writers recorded it.
    data = pyarrow_file(
        pa.table({"l_partkey": pa.array([1552] * 39, pa.int32())}), compression="none"
    )
    model = ParquetModel(data)
    out = model.to_bytes()
    model = ParquetModel(out)
    meta = model.chunks[0][0].meta
    meta[9] = i64(meta[11][1])
    meta[11] = i64(0)
    return model.to_bytes(keep_offsets=True)


def lz4_table(n):
    return pa.table(
        {
            "c0": pa.array(np.arange(n, dtype=np.int64) * 1593604801),
            "c1": pa.array([f"abc{k % 97}" for k in range(n)]),
            "v11": pa.array(np.linspace(0, 1, n)),
        }
    )


def reframed(table, codec, compress, **kwargs):
    model = ParquetModel(pyarrow_file(table, compression="snappy", data_page_size=4096, **kwargs))
    ptc.recompress(model, codec, compress)
    return model.to_bytes()


@good("hadoop_lz4_compressed")
def _():
    return reframed(lz4_table(4), ptc.LZ4, ptc.hadoop_lz4)


@good("hadoop_lz4_compressed_larger")
def _():
    return reframed(lz4_table(10000), ptc.LZ4, ptc.hadoop_lz4)


@good("hadoop_lz4_compressed_block_split")
def _():
    return reframed(lz4_table(3000), ptc.LZ4, lambda raw: ptc.hadoop_lz4(raw, pieces=3))


@good("hadoop_lz4_compressed-v2-pages")
def _():
    return reframed(lz4_table(3000), ptc.LZ4, ptc.hadoop_lz4, data_page_version="2.0")


@good("concatenated_gzip_members-v2-pages")
def _():
    return reframed(
        lz4_table(3000), ptc.GZIP, lambda raw: ptc.gzip_members(raw, 3), data_page_version="2.0"
    )


@good("non_hadoop_lz4_compressed")
def _():
    return reframed(
        lz4_table(4), ptc.LZ4, lambda raw: pa.Codec("lz4_raw").compress(raw, asbytes=True)
    )


@good("lz4_raw_compressed")
def _():
    return pyarrow_file(lz4_table(4), compression="lz4")


@good("lz4_raw_compressed_larger")
def _():
    return pyarrow_file(lz4_table(10000), compression="lz4")


@good("large_string_map.brotli")
def _():
    # The corpus file holds a 2 GiB chunk; the same shape (a map of
    # strings), BROTLI-compressed, in a size a test can hold.
    keys = [[f"key-{i}-{j}" for j in range(i % 4)] for i in range(300)]
    values = pa.array(
        [list(zip(k, (f"value-{len(x)}" * 3 for x in k))) for k in keys],
        pa.map_(pa.string(), pa.string()),
    )
    return pyarrow_file(pa.table({"arr": values}), compression="brotli")


@good("concatenated_gzip_members")
def _():
    table = pa.table({"long_col": pa.array(np.arange(1, 514, dtype=np.uint64))})
    return reframed(table, ptc.GZIP, ptc.gzip_members)


@good("list_columns")
def _():
    table = pa.table(
        {
            "int64_list": pa.array([[1, 2, 3], [None, 1], [4]], pa.list_(pa.int64())),
            "utf8_list": [["abc", "efg", "hij"], None, ["efg", None, "hij", "xyz"]],
        }
    )
    return pyarrow_file(table, compression="snappy")


@good("nested_lists.snappy")
def _():
    table = pa.table(
        {
            "a": [
                [[["a", "b"], ["c"]], [None, ["d"]]],
                [[["a", "b"], ["c", "d"]], [None, ["e"]]],
                [[["a", "b"], ["c", "d"], ["e"]], [None, ["f"]]],
                None,
                [[], [[]], [None]],
            ],
            "b": pa.array([1, 1, 1, 1, 1], pa.int32()),
        }
    )
    return pyarrow_file(table, compression="snappy")


@good("nested_maps.snappy")
def _():
    inner = pa.map_(pa.int32(), pa.bool_())
    table = pa.table(
        {
            "a": pa.array(
                [
                    [("a", [(1, True), (2, False)])],
                    [("b", [(1, True)])],
                    [("c", None)],
                    [("d", [])],
                    [("e", [(1, True)])],
                    [("f", [(3, True), (4, False), (5, True)])],
                    None,
                ],
                pa.map_(pa.string(), inner),
            ),
            "b": pa.array([1] * 7, pa.int32()),
            "c": [1.0] * 7,
        }
    )
    return pyarrow_file(table, compression="snappy")


@good("nested_structs.rust")
def _():
    def stats(k):
        return {"min": k, "max": k * 2, "mean": k * 1.5, "count": k + 1, "present": k % 2 == 0}

    table = pa.table(
        {
            "roll_num": [{"min": k, "max": k + 1} for k in range(3)],
            "PC_CUR": [
                {"ro": stats(k), "rw": stats(k + 10), "nested": {"deep": stats(k + 20)}}
                for k in range(3)
            ],
        }
    )
    return pyarrow_file(table, compression="none")


IMPALA_TYPE = pa.struct(
    [
        ("a", pa.int32()),
        ("B", pa.list_(pa.int32())),
        (
            "c",
            pa.struct(
                [("D", pa.list_(pa.list_(pa.struct([("e", pa.int32()), ("f", pa.string())]))))]
            ),
        ),
        ("G", pa.map_(pa.string(), pa.struct([("h", pa.struct([("i", pa.list_(pa.float64()))]))]))),
    ]
)


def impala_row(k, nulls):
    n = None if nulls else 0
    return {
        "ID": k,
        "Int_Array": None if nulls and k == 1 else [k, n, -k],
        "int_array_array": [[k, -k], None if nulls else [], [n]],
        "Int_Map": [("k1", k), ("k2", n)],
        "nested_Struct": None
        if nulls and k == 2
        else {
            "a": n if k == 3 else k,
            "B": [k, n],
            "c": {
                "D": [
                    [{"e": k, "f": "aaa"}, None if nulls else {"e": 0, "f": ""}],
                    None if nulls else [],
                ]
            },
            "G": [
                ("g1", {"h": {"i": [1.1, None if nulls else 0.0]}}),
                ("g2", {"h": None if nulls else {"i": []}}),
            ],
        },
    }


def impala_table(nulls, n):
    schema = pa.schema(
        [
            pa.field("ID", pa.int64(), nullable=nulls),
            pa.field("Int_Array", pa.list_(pa.int32())),
            pa.field("int_array_array", pa.list_(pa.list_(pa.int32()))),
            pa.field("Int_Map", pa.map_(pa.string(), pa.int32())),
            pa.field("nested_Struct", IMPALA_TYPE),
        ]
    )
    rows = [impala_row(k, nulls) for k in range(n)]
    return pa.Table.from_pylist(rows, schema=schema)


@good("nonnullable.impala")
def _():
    return pyarrow_file(impala_table(False, 1), compression="none")


@good("nullable.impala")
def _():
    return pyarrow_file(impala_table(True, 7), compression="none")


@good("null_list")
def _():
    return pyarrow_file(pa.table({"emptylist": pa.array([[]], pa.list_(pa.null()))}))


@good("nulls.snappy")
def _():
    table = pa.table(
        {"b_struct": pa.array([{"b_c_int": None}] * 8, pa.struct([("b_c_int", pa.int32())]))}
    )
    return pyarrow_file(table, compression="snappy")


def collapse_list(model, name):
    """Turns `group name (LIST) { repeated group list { required T element } }`
    into the older `group name (LIST) { repeated T element }` (same levels)."""
    k = schema_index(model, name)
    list_group, element = model.schema[k + 1], model.schema[k + 2]
    assert list_group[3][1] == 2 and element[3][1] == 0
    element[3] = i32(2)
    del model.schema[k + 1]
    for row in model.chunks:
        for chunk in row:
            path = chunk.meta[3][1][1]
            for j in range(len(path) - 1):
                if path[j] == name.encode() and path[j + 1] == b"list":
                    del path[j + 1]
                    break


@good("old_list_structure")
def _():
    # LIST<LIST<INT32>> in the two-level form: each list's repeated field is
    # its element.
    element = pa.field("element", pa.int32(), nullable=False)
    inner = pa.field("element", pa.list_(element), nullable=False)
    table = pa.table({"a": pa.array([[[1, 2], [3, 4]], [[5]], [], None], pa.list_(inner))})
    model = ParquetModel(pyarrow_file(table, compression="none"))
    model.drop_arrow_schema()
    collapse_list(model, "a")  # a { repeated group element (LIST) { repeated group list { ... } } }
    collapse_list(model, "element")
    return model.to_bytes()


def two_level_struct_list(element_name, fields):
    """`optional group a (LIST) { repeated group <element_name> { ... } }`:
    the repeated group is the element, a struct of `fields`."""
    element = pa.field(
        "element", pa.struct([pa.field(f, pa.int32(), False) for f in fields]), False
    )
    rows = [[{f: k + j for j, f in enumerate(fields)} for k in range(n)] for n in (2, 0, 1)] + [
        None
    ]
    table = pa.table({"a": pa.array(rows, pa.list_(element))})
    model = ParquetModel(pyarrow_file(table, compression="none"))
    model.drop_arrow_schema()
    collapse_list(model, "a")
    model.schema[schema_index(model, "element")][4] = binary(element_name)
    for row in model.chunks:
        for chunk in row:
            path = chunk.meta[3][1][1]
            path[path.index(b"element")] = element_name.encode()
    return model.to_bytes()


@good("old_list_structure-array")
def _():
    # A repeated group named "array" with one field: the group is the
    # element (a struct), not the field.
    return two_level_struct_list("array", ["x"])


@good("old_list_structure-tuple")
def _():
    # A repeated group named <list>_tuple with one field: the element too.
    return two_level_struct_list("a_tuple", ["x"])


@good("old_list_structure-struct")
def _():
    # A repeated group of two fields: a list of structs in two levels.
    return two_level_struct_list("item", ["x", "y"])


@good("repeated_primitive_no_list")
def _():
    # REPEATED primitive fields outside any LIST: `repeated int32 x` at the
    # top and inside a required group.
    def unannotated(model, name):
        k = schema_index(model, name)
        element = model.schema[k + 2]
        element[3] = i32(2)
        element[4] = binary(name)
        del model.schema[k : k + 2]
        for row in model.chunks:
            for chunk in row:
                path = chunk.meta[3][1][1]
                if name.encode() in path:
                    j = path.index(name.encode())
                    del path[j + 1 : j + 3]

    value = pa.field("element", pa.int32(), nullable=False)
    text = pa.field("element", pa.string(), nullable=False)
    ints = [[0, 1, 2], [3], [], [4, 5]]
    texts = [["a"], ["b", "c"], [], []]
    group = pa.struct(
        [
            pa.field("Int32_list_in_group", pa.list_(value), False),
            pa.field("String_list_in_group", pa.list_(text), False),
        ]
    )
    schema = pa.schema(
        [
            pa.field("Int32_list", pa.list_(value), False),
            pa.field("String_list", pa.list_(text), False),
            pa.field("group_of_lists", group, False),
        ]
    )
    table = pa.table(
        {
            "Int32_list": ints,
            "String_list": texts,
            "group_of_lists": [
                {"Int32_list_in_group": a, "String_list_in_group": b} for a, b in zip(ints, texts)
            ],
        },
        schema=schema,
    )
    model = ParquetModel(pyarrow_file(table, compression="none"))
    model.drop_arrow_schema()
    for name in ("Int32_list", "String_list", "Int32_list_in_group", "String_list_in_group"):
        unannotated(model, name)
    return model.to_bytes()


@good("repeated_no_annotation")
def _():
    # `optional group phoneNumbers { repeated group phone { required int64
    # number; optional binary kind } }`: a repeated group without LIST.
    phone = pa.struct([pa.field("number", pa.int64(), False), pa.field("kind", pa.string())])
    schema = pa.schema(
        [
            pa.field("id", pa.int32(), False),
            pa.field("phoneNumbers", pa.list_(pa.field("element", phone, False))),
        ]
    )
    table = pa.table(
        {
            "id": pa.array(range(1, 7), pa.int32()),
            "phoneNumbers": [
                None,
                None,
                [],
                [{"number": 5555555555, "kind": None}],
                [{"number": 1111111111, "kind": "home"}],
                [{"number": 1111111111, "kind": "home"}, {"number": 2222222222, "kind": None}],
            ],
        },
        schema=schema,
    )
    model = ParquetModel(pyarrow_file(table, compression="none"))
    model.drop_arrow_schema()
    k = schema_index(model, "phoneNumbers")
    model.schema[k].pop(6, None)
    model.schema[k].pop(10, None)
    group, element = model.schema[k + 1], model.schema[k + 2]
    group[4] = binary("phone")
    group[5] = element[5]
    del model.schema[k + 2]
    for row in model.chunks:
        for chunk in row:
            path = chunk.meta[3][1][1]
            if path[0] == b"phoneNumbers":
                path[1:3] = [b"phone"]
    return model.to_bytes()


@good("single_nan")
def _():
    return pyarrow_file(pa.table({"mycol": pa.array([np.nan])}))


@good("rle_boolean_encoding")
def _():
    values = [True, False, None, True, True, None, False, False, True, False] * 7
    return plain(
        pa.table({"datatype_boolean": values}), column_encoding="RLE", data_page_version="2.0"
    )


@good("fixed_length_byte_array")
def _():
    values = [None if k % 11 == 0 else bytes([k % 256, 1, 2, k % 7]) for k in range(1000)]
    table = pa.table({"flba_field": pa.array(values, pa.binary(4))})
    return pyarrow_file(table, data_page_size=256, write_batch_size=32, write_page_index=True)


@good("int32_with_null_pages")
def _():
    rng = np.random.default_rng(3)
    values = []
    for page in range(40):
        null_page = rng.random() < 0.3
        values += [
            None if null_page or rng.random() < 0.2 else int(v)
            for v in rng.integers(-(2**31), 2**31 - 1, 25)
        ]
    table = pa.table({"int32_field": pa.array(values, pa.int32())})
    return plain(table, data_page_size=64, write_batch_size=25, write_page_index=True)


def checksum_table():
    schema = pa.schema([pa.field("a", pa.int32(), False), pa.field("b", pa.int32(), False)])
    rng = np.random.default_rng(4)
    n = 2048
    return pa.table(
        {
            "a": pa.array(rng.integers(0, 2**31 - 1, n, dtype=np.int32)),
            "b": pa.array(rng.integers(0, 2**31 - 1, n, dtype=np.int32)),
        },
        schema=schema,
    )


def dict_checksum_table():
    return pa.table(
        {
            "long_field": pa.array([k % 5 for k in range(1000)], pa.int64()),
            "binary_field": pa.array([f"v{k % 3}".encode() for k in range(1000)]),
        }
    )


def corrupt_crcs(data, which):
    model = ParquetModel(data)
    for rg, column, page in which:
        header = model.chunks[rg][column].pages[page].header
        header[4] = i32(header[4][1] ^ 0x5A5A5A5A)
    return model.to_bytes()


@good("datapage_v1-uncompressed-checksum")
def _():
    return plain(checksum_table(), write_page_checksum=True, data_page_size=4096, version="1.0")


@good("datapage_v1-snappy-compressed-checksum")
def _():
    return plain(
        checksum_table(), compression="snappy", write_page_checksum=True, data_page_size=4096
    )


@good("datapage_v1-corrupt-checksum")
def _():
    # quiver does not check page CRCs (pyarrow by default neither): the
    # values read as they are.
    data = plain(checksum_table(), write_page_checksum=True, data_page_size=4096)
    return corrupt_crcs(data, [(0, 0, 0), (0, 1, 1)])


@good("rle-dict-snappy-checksum")
def _():
    return pyarrow_file(
        dict_checksum_table(),
        compression="snappy",
        write_page_checksum=True,
        data_page_version="2.0",
    )


@good("plain-dict-uncompressed-checksum")
def _():
    return pyarrow_file(
        dict_checksum_table(), compression="none", write_page_checksum=True, version="1.0"
    )


@good("rle-dict-uncompressed-corrupt-checksum")
def _():
    data = pyarrow_file(
        dict_checksum_table(), compression="none", write_page_checksum=True, data_page_version="2.0"
    )
    return corrupt_crcs(data, [(0, 0, 0), (0, 1, 0)])


@good("overflow_i16_page_cnt")
def _():
    # More than 32767 pages in one column chunk.
    schema = pa.schema([pa.field("inc", pa.bool_(), False)])
    table = pa.table({"inc": pa.array(np.arange(40000) % 3 == 0)}, schema=schema)
    return plain(table, data_page_size=1, write_batch_size=1, write_statistics=False)


@good("nan_in_stats")
def _():
    model = ParquetModel(pyarrow_file(pa.table({"x": [1.0, np.nan]})))
    nan = struct.pack("<d", np.nan)
    model.chunks[0][0].meta[12] = struct_(
        {1: binary(nan), 2: binary(struct.pack("<d", 1.0)), 3: i64(0)}
    )
    return model.to_bytes()


@good("float16_nonzeros_and_nans")
def _():
    values = [None, 1.0, -2.0, np.nan, 0.0, -1.0, -0.0, 2.0]
    return pyarrow_file(
        pa.table(
            {
                "x": pa.array(
                    np.array([0 if v is None else v for v in values], np.float16),
                    mask=np.array([v is None for v in values]),
                )
            }
        ),
        compression="none",
    )


@good("float16_zeros_and_nans")
def _():
    return pyarrow_file(
        pa.table(
            {
                "x": pa.array(
                    np.array([0, 0, np.nan], np.float16), mask=np.array([True, False, False])
                )
            }
        ),
        compression="none",
    )


@good("floating_orders_nan_count")
def _():
    groups = [
        [1.5, -2.0, 3.0],
        [np.nan, 1.0, -np.nan],
        [np.nan, np.nan, np.nan],
        [0.0, 1.0, 2.0],
        [-2.0, -1.0, -0.0],
    ]
    values = [v for g in groups for v in g]
    table = pa.table(
        {
            "f32": pa.array(np.array(values, np.float32)),
            "f64": pa.array(np.array(values, np.float64)),
            "f16": pa.array(np.array(values, np.float16)),
        }
    )
    return pyarrow_file(table, row_group_size=3, write_page_index=True)


@good("byte_stream_split.zstd")
def _():
    rng = np.random.default_rng(0)
    table = pa.table(
        {
            "f32": rng.normal(size=300).astype(np.float32),
            "f64": rng.normal(size=300).astype(np.float64),
        }
    )
    return plain(
        table,
        version="2.6",
        compression="zstd",
        compression_level=22,
        column_encoding="BYTE_STREAM_SPLIT",
    )


@good("byte_stream_split_extended.gzip")
def _():
    rng = np.random.default_rng(5)
    n = 200
    columns = {
        "float16": pa.array(rng.normal(size=n).astype(np.float16)),
        "float": pa.array(rng.normal(size=n).astype(np.float32)),
        "double": pa.array(rng.normal(size=n)),
        "int32": pa.array(rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)),
        "int64": pa.array(rng.integers(-(2**62), 2**62, n, dtype=np.int64)),
        "flba5": pa.array(
            [bytes(rng.integers(0, 256, 5, dtype=np.uint8)) for _ in range(n)], pa.binary(5)
        ),
        "decimal": pa.array([int(v) for v in rng.integers(-9999, 9999, n)], pa.decimal128(7, 3)),
    }
    table = pa.table(
        {
            f"{name}_{kind}": col
            for name, col in columns.items()
            for kind in ("plain", "byte_stream_split")
        }
    )
    encodings = {
        name: ("PLAIN" if name.endswith("plain") else "BYTE_STREAM_SPLIT")
        for name in table.schema.names
    }
    return plain(table, version="2.6", compression="gzip", column_encoding=encodings)


@good("column_chunk_key_value_metadata")
def _():
    schema = pa.schema(
        [pa.field("column1", pa.int32(), False), pa.field("column2", pa.int32(), False)]
    )
    model = ParquetModel(
        pyarrow_file(pa.table({"column1": [1, 2], "column2": [3, 4]}, schema=schema))
    )
    kv = [
        struct_({1: binary("foo"), 2: binary("bar")}),
        struct_({1: binary("thisiskeywithoutvalue")}),
    ]
    model.chunks[0][0].meta[8] = (T_LIST, (T_STRUCT, [v[1] for v in kv]))
    return model.to_bytes()


@good("sort_columns")
def _():
    table = pa.table({"a": pa.array([None, 3, 2, 1], pa.int64()), "b": [b"a", b"b", b"c", None]})
    sorting = [
        pq.SortingColumn(0, descending=True, nulls_first=True),
        pq.SortingColumn(1, nulls_first=False),
    ]
    return pyarrow_file(pa.concat_tables([table, table]), row_group_size=4, sorting_columns=sorting)


@good("data_index_bloom_encoding_stats")
def _():
    table = pa.table(
        {
            "String": [
                "Hello",
                "This is",
                "a",
                "test",
                "How",
                "are you",
                "doing ",
                "today",
                "the quick",
                None,
            ]
            * 2
        }
    )
    return pyarrow_file(table, write_page_index=True, data_page_size=32, write_batch_size=4)


@good("data_index_bloom_encoding_with_length")
def _():
    # Bloom filters (with their length recorded) and page indexes between
    # and after the column chunks: a reader skips what it does not use.
    table = pa.table(
        {
            "String": ["Hello", "This is", "a", "test", None] * 40,
            "i": pa.array(range(200), pa.int64()),
        }
    )
    return pyarrow_file(
        table,
        row_group_size=80,
        write_page_index=True,
        bloom_filter_options={"String": {"ndv": 10, "fpp": 0.05}, "i": True},
    )


@good("content-defined-chunking")
def _():
    # Pages cut where the content says (pyarrow's content-defined chunking).
    rng = np.random.default_rng(6)
    table = pa.table(
        {
            "x": pa.array(rng.integers(0, 1000, 50000)),
            "s": [f"row{k % 701}" for k in range(50000)],
            "l": [[k, k + 1] if k % 9 else None for k in range(50000)],
        }
    )
    return pyarrow_file(table, use_content_defined_chunking=True, max_rows_per_page=3000)


def v2_body_empty(codec_name, column_type):
    """A DataPageV2 of one null value: its levels and nothing else; the
    body is either a compressed empty stream or no bytes at all."""
    table = pa.table({"x": pa.array([None], column_type)})
    return pyarrow_file(
        table, compression=codec_name, data_page_version="2.0", use_dictionary=False
    )


@good("page_v2_empty_compressed")
def _():
    model = ParquetModel(v2_body_empty("zstd", pa.int32()))
    for page in model.chunks[0][0].pages:
        sub = page.sub()
        levels = sub[5][1] + sub[6][1]
        empty = pa.Codec("zstd").compress(b"", asbytes=True)
        sub[7] = (ptc.T_TRUE, True)
        page.payload = page.payload[:levels] + empty
        page.header[2] = i32(levels)
        page.header[3] = i32(len(page.payload))
        page.header.pop(4, None)
    return model.to_bytes()


@good("datapage_v2_empty_datapage.snappy")
def _():
    model = ParquetModel(v2_body_empty("snappy", pa.float32()))
    for page in model.chunks[0][0].pages:
        sub = page.sub()
        levels = sub[5][1] + sub[6][1]
        page.payload = page.payload[:levels]
        sub[7] = (ptc.T_TRUE, True)
        page.header[2] = i32(levels)
        page.header[3] = i32(levels)
        page.header.pop(4, None)
    return model.to_bytes()


def relabel(table, name, logical=None, converted=None, **kwargs):
    model = ParquetModel(pyarrow_file(table, **kwargs))
    model.drop_arrow_schema()
    element = model.schema[schema_index(model, name)]
    element.pop(6, None)
    element.pop(10, None)
    if logical is not None:
        element[10] = struct_(logical)
    if converted is not None:
        element[6] = i32(converted)
    return model.to_bytes()


@good("unknown-logical-type")
def _():
    # A logical type union member this reader does not know (id 99): the
    # column reads as its physical type.
    table = pa.table(
        {"column with known type": ["known"] * 3, "column with unknown type": ["unknown"] * 3}
    )
    return relabel(table, "column with unknown type", logical={99: struct_({})})


@good("json")
def _():
    table = pa.table({"json": ['{"a":1}', '{"a":1,"b":null}', "[1,null,3]", None]})
    return relabel(table, "json", logical={12: struct_({})}, converted=19)


@good("uuid")
def _():
    # A UUID column from a writer that stores no ARROW:schema key.
    import uuid

    values = [uuid.UUID(int=k * 7919).bytes for k in range(3)] + [None]
    model = ParquetModel(pyarrow_file(pa.table({"u": pa.array(values, pa.uuid())})))
    model.drop_arrow_schema()
    return model.to_bytes()


@good("geospatial-geometry")
def _():
    # GEOMETRY (WKB in a BYTE_ARRAY): point (1 2).
    point = struct.pack("<BIdd", 1, 1, 1.0, 2.0)
    table = pa.table({"geometry": [point, None, point]})
    return relabel(table, "geometry", logical={17: struct_({})})


def int96(julian_day, nanos):
    return struct.pack("<qi", nanos, julian_day)


def spark_int96(values):
    schema = pa.schema([pa.field("a", pa.timestamp("ns"), False)])
    table = pa.table({"a": pa.array(np.arange(len(values)), pa.timestamp("ns"))}, schema=schema)
    model = ParquetModel(plain(table, use_deprecated_int96_timestamps=True))
    model.drop_arrow_schema()
    drop_statistics(model)
    page = data_pages(model)[0]
    assert len(page.payload) == 12 * len(values)
    page.payload = b"".join(values)
    return model.to_bytes()


@good("int96_from_spark")
def _():
    # INT96 (nanoseconds of the day, Julian day) as Spark wrote them, within
    # the range of int64 nanoseconds (1677-09-21 to 2262-04-11).
    return spark_int96(
        [
            int96(2440588, 0),
            int96(2440588 + 19000, 123456789000),
            int96(2440000, 5),
            int96(2378497, 86399999999999),  # 1800-01-01
            int96(2547000, 1),  # 2261
        ]
    )


@bad(
    "int96_from_spark-out-of-range", ValueError, "INT96 timestamp 2 .* overflows int64 nanoseconds"
)
def _():
    # Days outside the nanosecond range (0001-01-01, 9999-12-31): pyarrow
    # wraps them around silently, quiver refuses them, naming the value.
    return spark_int96(
        [
            int96(2440588, 0),
            int96(2440588 + 19000, 123456789000),
            int96(1721426, 1000),
            int96(5373484, 86399999999000),
        ]
    )


@good("int96_timestamp_order")
def _():
    schema = pa.schema([pa.field("ts", pa.timestamp("ns"), False)])
    values = np.array([-(2**40), 2**40, 0, 86399 * 10**9, 86400 * 10**9 + 1], np.int64)
    table = pa.table({"ts": pa.array(values, pa.timestamp("ns"))}, schema=schema)
    return plain(table, use_deprecated_int96_timestamps=True)


@good("duration")
def _():
    return pyarrow_file(pa.table({"d": pa.array([1, None, -5, 2**40], pa.duration("ms"))}))


@bad("incorrect_map_schema", ValueError, "keys of Parquet MAP 'my_map' are not required")
def _():
    # A MAP whose key is OPTIONAL (not REQUIRED), as Presto and Trino wrote
    # them: the key column gets a definition level more, so its page is
    # written again here. pyarrow refuses such a map too ("Map keys must be
    # annotated as required").
    table = pa.table(
        {
            "my_map": pa.array(
                [[("name", "report"), ("parent", "another")]], pa.map_(pa.string(), pa.string())
            )
        }
    )
    model = ParquetModel(plain(table, version="1.0"))
    model.drop_arrow_schema()
    drop_statistics(model)
    model.schema[schema_index(model, "key")][3] = i32(1)
    values = b"".join(struct.pack("<I", len(v)) + v for v in (b"name", b"parent"))
    payload = ptc.v1_levels([0, 1], 1) + ptc.v1_levels([3, 3], 3) + values
    model.chunks[0][0].pages = [ptc.data_page_v1(2, payload)]
    return model.to_bytes()


@good("map_no_value")
def _():
    # MAP groups whose key_value holds a key and no value.
    table = pa.table(
        {
            "my_map": pa.array(
                [[(1, 1), (2, 2)], [(3, 3)], None, []], pa.map_(pa.int32(), pa.int32())
            ),
            "my_list": [[1, 2], [3], None, []],
        }
    )
    model = ParquetModel(pyarrow_file(table, compression="none"))
    model.drop_arrow_schema()
    k = schema_index(model, "key_value")
    model.schema[k][5] = i32(1)
    del model.schema[k + 2]
    for row in model.chunks:
        del row[1]
    for rg in model.footer[4][1][1]:
        del rg[1][1][1][1]
    if 7 in model.footer:
        del model.footer[7][1][1][1]
    return model.to_bytes()


@good("complex_map_key")
def _():
    key = pa.struct([pa.field("a", pa.int32(), False), pa.field("b", pa.string(), False)])
    table = pa.table(
        {
            "m": pa.array(
                [[({"a": 1, "b": "x"}, 10)], None, [], [({"a": 2, "b": "y"}, None)]],
                pa.map_(key, pa.int64()),
            )
        }
    )
    return pyarrow_file(table)


@good("many-dictionary-pages")
def _():
    # One dictionary, many data pages, a fallback to PLAIN mid-chunk.
    values = [f"value-{k % 3000}-{'x' * (k % 17)}" for k in range(20000)]
    return pyarrow_file(
        pa.table({"s": values}), data_page_size=1024, dictionary_pagesize_limit=16384
    )


@good("empty-pages-and-row-groups")
def _():
    table = pa.table({"x": pa.array([None] * 5000 + [1], pa.int64()), "l": [[]] * 5001})
    return pyarrow_file(table, row_group_size=1000, data_page_size=16, write_batch_size=8)


# ---------------------------------------------------------------------------
# bad_data/: each defect made by changing a valid file.


def flat_model(table, **kwargs):
    kwargs.setdefault("compression", "none")
    return ParquetModel(pyarrow_file(table, **kwargs))


@bad("PARQUET-1481", ValueError, "unknown physical type -7")
def _():
    # A schema element's physical type corrupted to a value out of range.
    model = flat_model(pa.table({"a": pa.array([1, 2, 3], pa.int32())}))
    model.schema[1][1] = i32(-7)
    return model.to_bytes()


@bad("ARROW-RS-GH-6229-DICTHEADER", ValueError, r"num_values is negative \(-4\)")
def _():
    # A dictionary page header whose number of values is negative.
    model = flat_model(pa.table({"a": pa.array([1, 2, 1, 2], pa.int64())}))
    page = pages_of(model)[0]
    assert page.type == DICTIONARY_PAGE
    page.sub()[1] = i32(-4)
    return model.to_bytes()


@bad("ARROW-RS-GH-6229-LEVELS", ValueError, "repetition levels: the values end before")
def _():
    # A list column's page holds fewer repetition levels than its header's
    # count (and the chunk's) say.
    model = flat_model(
        pa.table({"l": pa.array([[1, 2], [3], [4, 5, 6]], pa.list_(pa.int64()))}),
        use_dictionary=False,
    )
    drop_statistics(model)
    values = struct.pack("<6q", 1, 2, 3, 4, 5, 6)
    payload = ptc.v1_levels([0, 1, 0], 1) + ptc.v1_levels([3] * 6, 3) + values
    model.chunks[0][0].pages = [ptc.data_page_v1(6, payload)]
    return model.to_bytes()


@bad("ARROW-GH-41321", ValueError, "definition levels: the values end before")
def _():
    # Definition levels decode to fewer than the page header's num_values.
    model = flat_model(
        pa.table({"a": pa.array([1, None, 3, None, 5] * 20, pa.int32())}), use_dictionary=False
    )
    drop_statistics(model)
    page = model.chunks[0][0].pages[0]
    page.sub()[1] = i32(page.sub()[1][1] + 5000)
    model.chunks[0][0].meta[5] = i64(model.chunks[0][0].meta[5][1] + 5000)
    return model.to_bytes()


@bad("ARROW-GH-41317", ValueError, "the levels hold 90 rows, not 100")
def _():
    # The columns of a row group hold different numbers of rows.
    table = pa.table({"a": pa.array(range(100), pa.int32()), "b": pa.array(range(100), pa.int64())})
    short = flat_model(table.slice(0, 90))
    model = flat_model(table)
    model.chunks[0][1] = short.chunks[0][1]
    return model.to_bytes()


@good("ARROW-GH-43605")
def _():
    # bad_data/: a dictionary-encoded page whose RLE indices have a bit
    # width of 0 while the dictionary holds several values. Such indices
    # are all 0 (the page's other bytes are left over): pyarrow reads them
    # so since its fix, and quiver reads the same values.
    schema = pa.schema([pa.field("a", pa.int32(), False)])
    model = flat_model(
        pa.table({"a": pa.array([k % 5 for k in range(100)], pa.int32())}, schema=schema)
    )
    drop_statistics(model)
    page = data_pages(model)[0]
    assert page.sub()[2][1] in (2, 8)
    page.payload = b"\x00" + page.payload[1:]
    return model.to_bytes()


@bad("ARROW-GH-45185", ValueError, "the first repetition level is 1, not 0")
def _():
    # A list column whose repetition levels start with 1: the first value
    # continues a row that never began.
    model = flat_model(
        pa.table({"l": pa.array([[1, 2], [3]], pa.list_(pa.int64()))}), use_dictionary=False
    )
    drop_statistics(model)
    values = struct.pack("<3q", 1, 2, 3)
    payload = ptc.v1_levels([1, 1, 0], 1) + ptc.v1_levels([3] * 3, 3) + values
    model.chunks[0][0].pages = [ptc.data_page_v1(3, payload)]
    return model.to_bytes()


@bad("ARROW-GH-47662", ValueError, "PLAIN values run past the page's end")
def _():
    # A REQUIRED FIXED_LEN_BYTE_ARRAY column whose pages hold nulls (their
    # definition levels written as for an optional column).
    values = [None if k % 3 == 0 else bytes([k, 1, 2, 3]) for k in range(60)]
    model = flat_model(pa.table({"f": pa.array(values, pa.binary(4))}), use_dictionary=False)
    model.drop_arrow_schema()
    drop_statistics(model)
    model.schema[1][3] = i32(0)
    return model.to_bytes()


@bad("ARROW-GH-47662-v2", ValueError, r"cannot be null \(REQUIRED\) says it holds 20 nulls")
def _():
    # The same as DataPageV2: definition levels and a null count in a page
    # of a REQUIRED column.
    values = [None if k % 3 == 0 else bytes([k, 1, 2, 3]) for k in range(60)]
    model = flat_model(
        pa.table({"f": pa.array(values, pa.binary(4))}),
        use_dictionary=False,
        data_page_version="2.0",
    )
    model.drop_arrow_schema()
    drop_statistics(model)
    model.schema[1][3] = i32(0)
    return model.to_bytes()


@bad(
    "ARROW-RS-GH-11261-FLBA-DICT",
    ValueError,
    "a dictionary page of 32 bytes whose 4 PLAIN FIXED_LEN_BYTE_ARRAY values take 16",
)
def _():
    # A FIXED_LEN_BYTE_ARRAY(4) column whose dictionary page holds its values
    # as BYTE_ARRAY (each behind a 4-byte length).
    values = [bytes([k % 4, 0, 0, 1]) for k in range(40)]
    model = flat_model(pa.table({"f": pa.array(values, pa.binary(4))}))
    drop_statistics(model)
    page = pages_of(model)[0]
    assert page.type == DICTIONARY_PAGE
    n = page.sub()[1][1]
    entries = [page.payload[k * 4 : k * 4 + 4] for k in range(n)]
    page.payload = b"".join(struct.pack("<I", 4) + e for e in entries)
    page.header[2] = i32(len(page.payload))
    page.header[3] = i32(len(page.payload))
    return model.to_bytes()


@bad("nation.dict-malformed", ValueError, "PLAIN value 4 of 7 runs past the page's end")
def _():
    # A dictionary page that says it holds more values than its bytes do.
    model = flat_model(pa.table({"name": ["ALGERIA", "ARGENTINA", "BRAZIL", "CANADA"] * 5}))
    page = pages_of(model)[0]
    assert page.type == DICTIONARY_PAGE
    page.sub()[1] = i32(page.sub()[1][1] + 3)
    return model.to_bytes()


@good("variant")
def _():
    # bad_data/variants/ holds VARIANT groups whose encoded values are
    # malformed. Neither pyarrow nor quiver decodes VARIANT values: the
    # group reads as a struct of its metadata and value binaries, the bytes
    # as they are, whatever they hold.
    table = pa.table({"v": [{"metadata": b"\x01\x00\x00", "value": b"\x0c\x01"}]})
    model = ParquetModel(pyarrow_file(table))
    model.drop_arrow_schema()
    model.schema[schema_index(model, "v")][10] = struct_({16: struct_({})})
    return model.to_bytes()


@bad("page-size-past-chunk", ValueError, "run past the column chunk's end")
def _():
    # A page header whose compressed size runs past its column chunk.
    model = flat_model(pa.table({"a": pa.array(range(100), pa.int64())}), use_dictionary=False)
    page = pages_of(model)[0]
    page.header[3] = i32(page.header[3][1] + 1000)
    page.header[2] = i32(page.header[2][1] + 1000)
    return model.to_bytes()


@bad("negative-page-size", ValueError, r"compressed_page_size is negative \(-5\)")
def _():
    # A page header whose compressed size is negative.
    model = flat_model(pa.table({"a": pa.array(range(100), pa.int64())}), use_dictionary=False)
    pages_of(model)[0].header[3] = i32(-5)
    return model.to_bytes()


@bad("more-values-than-chunk", ValueError, "its 100 values run past the chunk's 60")
def _():
    # A chunk whose pages hold more values than its metadata says.
    model = flat_model(pa.table({"a": pa.array(range(100), pa.int64())}), use_dictionary=False)
    model.chunks[0][0].meta[5] = i64(60)
    return model.to_bytes()


@bad(
    "level-above-maximum",
    ValueError,
    "definition level 3 at value 1 is above the column's maximum 2",
)
def _():
    # An optional list of required values: levels up to 2 in 2 bits; one is 3.
    element = pa.field("element", pa.int64(), nullable=False)
    model = flat_model(
        pa.table({"l": pa.array([[1], [2], [3]], pa.list_(element))}), use_dictionary=False
    )
    drop_statistics(model)
    payload = (
        ptc.v1_levels([0, 0, 0], 1) + ptc.v1_levels([2, 3, 2], 2) + struct.pack("<3q", 1, 2, 3)
    )
    model.chunks[0][0].pages = [ptc.data_page_v1(3, payload)]
    return model.to_bytes()


@bad("uncompressed-size-lies", ValueError, r"the Snappy block holds \d+ bytes, the page says \d+")
def _():
    model = flat_model(
        pa.table({"a": pa.array(range(1000), pa.int64())}),
        compression="snappy",
        use_dictionary=False,
    )
    page = data_pages(model)[0]
    page.header[2] = i32(page.header[2][1] + 64)
    page.header.pop(4, None)
    return model.to_bytes()


def required_page(table, payload, num_values, encoding=0, **kwargs):
    """`table`'s one required column with its one data page replaced."""
    model = flat_model(table, use_dictionary=False, **kwargs)
    drop_statistics(model)
    model.chunks[0][0].pages = [ptc.data_page_v1(num_values, payload, encoding)]
    return model.to_bytes()


def required(name, values, type_):
    return pa.table(
        {name: pa.array(values, type_)}, schema=pa.schema([pa.field(name, type_, False)])
    )


@bad("byte-array-length-overflows", ValueError, "PLAIN value 1 of 2 runs past")
def _():
    # A BYTE_ARRAY value whose 4-byte length (0xFFFFFFF0) runs past the page.
    payload = struct.pack("<I", 1) + b"a" + struct.pack("<I", 0xFFFFFFF0) + b"bc"
    return required_page(required("s", ["a", "bc"], pa.binary()), payload, 2)


@bad("level-run-overflows", ValueError, "definition levels: a repeated run too long")
def _():
    # A definition level run whose count (a varint past 2^62) cannot be.
    run = bytes([0xFE] * 9 + [0x7F, 0x01])
    model = flat_model(pa.table({"a": pa.array([1, None], pa.int64())}), use_dictionary=False)
    drop_statistics(model)
    payload = struct.pack("<I", len(run)) + run + struct.pack("<q", 1)
    model.chunks[0][0].pages = [ptc.data_page_v1(2, payload)]
    return model.to_bytes()


@bad("dictionary-index-out-of-range", ValueError, "dictionary index 7 is out of range")
def _():
    # RLE_DICTIONARY indices past the dictionary's 3 values.
    model = flat_model(required("a", [10, 20, 30], pa.int32()))
    drop_statistics(model)
    page = data_pages(model)[0]
    page.payload = bytes([3]) + bytes([3 << 1, 7])  # bit width 3, a run of three 7s
    page.header[2] = i32(len(page.payload))
    page.header[3] = i32(len(page.payload))
    return model.to_bytes()


@bad("delta-block-size-lies", ValueError, "a DELTA_BINARY_PACKED block of 100 values")
def _():
    # A DELTA_BINARY_PACKED header whose block size (100) is no multiple of 128.
    header = ptc.varint(100) + ptc.varint(4) + ptc.varint(3) + ptc._zigzag(5)
    return required_page(required("a", [5, 6, 7], pa.int64()), header + b"\x00" * 16, 3, encoding=5)


@bad("encrypted-footer", NotImplementedError, "encrypt")
def _():
    data = pyarrow_file(pa.table({"a": [1, 2]}))
    return data[:-4] + b"PARE"


def pyarrow_encrypted(plaintext_footer):
    """A file pyarrow encrypts (the corpus's encrypt_columns_and_footer*
    files): column double_field under key kc1, the footer under kf, in the
    clear or not. The test's key service wraps keys in base64 only."""
    import base64

    pe = pytest.importorskip("pyarrow.parquet.encryption")

    class Keys(pe.KmsClient):
        def __init__(self, config):
            pe.KmsClient.__init__(self)

        def wrap_key(self, key, master_key_identifier):
            return base64.b64encode(key)

        def unwrap_key(self, wrapped, master_key_identifier):
            return base64.b64decode(wrapped)

    config = pe.EncryptionConfiguration(
        footer_key="kf",
        column_keys={"kc1": ["double_field"]},
        plaintext_footer=plaintext_footer,
        double_wrapping=False,
    )
    properties = pe.CryptoFactory(Keys).file_encryption_properties(pe.KmsConnectionConfig(), config)
    table = pa.table({"double_field": [1.0, 2.0], "int32_field": pa.array([1, 2], pa.int32())})
    return pyarrow_file(table, encryption_properties=properties)


@bad("encrypt_columns_and_footer", NotImplementedError, "encrypted footer")
def _():
    return pyarrow_encrypted(False)


@bad("encrypt_columns_plaintext_footer", NotImplementedError, "is an encrypted Parquet file")
def _():
    return pyarrow_encrypted(True)


@bad("brotli", ValueError if "BROTLI" in qv.parquet.codecs() else NotImplementedError, "BROTLI")
def _():
    # Pages labelled BROTLI that are not: corrupt (or, in a build without
    # libbrotli, a codec it lacks).
    model = flat_model(pa.table({"a": [1, 2]}))
    model.chunks[0][0].meta[4] = i32(4)
    return model.to_bytes()


@bad("bson", TypeError, "BSON")
def _():
    # bson.parquet: pyarrow reads BSON columns as binary; quiver refuses
    # them by name (docs/parquet.md).
    return relabel(
        pa.table({"bson": [b"\x05\x00\x00\x00\x00", None]}),
        "bson",
        logical={13: struct_({})},
        converted=20,
    )


# ---------------------------------------------------------------------------


# pyarrow reads these logical types as its arrow.json and arrow.uuid
# extension types, quiver as the types they store (docs/parquet.md).
EXTENSION_CASES = ("json", "uuid")


@pytest.mark.parametrize("name", sorted(GOOD))
def test_case_reads_as_pyarrow_reads_it(name):
    data = GOOD[name]()
    theirs = pyarrow_read(data)
    ours = pa.table(qv.parquet.read_table(data))
    assert_same(ours, theirs, storage_of_extensions=name in EXTENSION_CASES)
    # The footer as pyarrow reads it.
    f = qv.parquet.ParquetFile(data)
    meta = pq.ParquetFile(pa.BufferReader(data)).metadata
    assert (f.num_rows, f.num_row_groups) == (meta.num_rows, meta.num_row_groups)
    assert f.column_paths == [meta.schema.column(k).path for k in range(meta.num_columns)]
    # One row group at a time and one column at a time read the same.
    if f.num_row_groups:
        last = f.num_row_groups - 1
        one = pa.table(
            qv.parquet.read_table(data, row_groups=[last], columns=[theirs.schema.names[-1]])
        )
        expected = pq.ParquetFile(pa.BufferReader(data)).read_row_group(
            last, columns=[theirs.schema.names[-1]]
        )
        assert_same(one, expected, storage_of_extensions=name in EXTENSION_CASES)


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_case_is_refused_cleanly(name):
    make, error, match = BAD[name]
    data = make()
    with pytest.raises(error, match=f"(?i){match}"):
        qv.parquet.read_table(data)


def test_case_lists_cover_the_corpus_names():
    assert len(GOOD) >= 60 and len(BAD) >= 15


def chunk_meta(data, rg=0, column=0):
    return ParquetModel(data).chunks[rg][column]


def test_crafted_cases_hold_what_they_name():
    # The framings, offsets and schemas the cases stand for are there.
    for name in ("hadoop_lz4_compressed", "non_hadoop_lz4_compressed"):
        assert chunk_meta(GOOD[name]()).meta[4][1] == ptc.LZ4
    block = chunk_meta(GOOD["hadoop_lz4_compressed_block_split"](), column=1).pages[-1].payload
    (first,) = struct.unpack_from(">I", block, 4)
    assert len(block) > 8 + first  # more than one block in the page
    gz = chunk_meta(GOOD["concatenated_gzip_members"]())
    assert gz.meta[4][1] == ptc.GZIP and data_pages_of(gz)[0].payload.count(b"\x1f\x8b\x08") >= 2
    zero = ParquetModel(GOOD["dict-page-offset-zero"]()).chunks[0][0]
    assert zero.meta[11][1] == 0 and zero.pages[0].type == DICTIONARY_PAGE
    pages = chunk_meta(GOOD["overflow_i16_page_cnt"]()).pages
    assert len(pages) > 32767
    for name in ("datapage_v1-uncompressed-checksum", "rle-dict-snappy-checksum"):
        assert all(4 in p.header for p in chunk_meta(GOOD[name]()).pages)
    legacy = ParquetModel(GOOD["fixed_length_decimal_legacy"]()).schema[1]
    assert 10 not in legacy and legacy[6][1] == 5  # DECIMAL as a converted type only
    assert ParquetModel(GOOD["byte_array_decimal"]()).schema[1][1][1] == 6  # BYTE_ARRAY
    v2 = chunk_meta(GOOD["datapage_v2_empty_datapage.snappy"]()).pages[0]
    assert v2.type == ptc.DATA_PAGE_V2 and v2.sub()[7][1] and v2.header[3][1] == v2.sub()[5][1]
    dictionary = chunk_meta(GOOD["alltypes_dictionary"](), column=0)
    assert 2 in dictionary.meta[2][1][1]  # PLAIN_DICTIONARY


def data_pages_of(chunk):
    return [p for p in chunk.pages if p.type != DICTIONARY_PAGE]


@pytest.mark.parametrize(
    "name",
    [
        "nan_in_stats",
        "float16_nonzeros_and_nans",
        "float16_zeros_and_nans",
        "floating_orders_nan_count",
        "int96_timestamp_order",
        "sort_columns",
        "column_chunk_key_value_metadata",
        "alltypes_plain",
    ],
)
def test_statistics_are_the_bytes_the_file_stores(name):
    # The corpus's statistics cases (NaN in a legacy max, float16 zeros and
    # NaNs, five row groups of float orders): ParquetFile gives each chunk's
    # min, max (min_value/max_value, else the legacy min/max) and null count
    # as the footer holds them, read here with the test's own Thrift parser.
    data = GOOD[name]()
    f = qv.parquet.ParquetFile(data)
    for rg, row in enumerate(ParquetModel(data).chunks):
        columns = f.row_group(rg)["columns"]
        for c, chunk in enumerate(row):
            stored = chunk.meta.get(12, (None, {}))[1]
            ours = columns[c].get("statistics") or {}
            assert ours.get("min") == stored.get(6, stored.get(2, (0, None)))[1]
            assert ours.get("max") == stored.get(5, stored.get(1, (0, None)))[1]
            assert ours.get("null_count") == stored.get(3, (0, None))[1]


@pytest.mark.parametrize("version", ["1.0", "2.4", "2.6"])
@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
@pytest.mark.parametrize("compression", ["none", "snappy", "gzip", "zstd", "lz4"])
def test_corpus_tables_under_every_format_and_page_version_and_codec(
    version, page_version, compression
):
    # The corpus's alltypes (with INT96 timestamps) and nullable.impala
    # tables written under each format version, page version and codec.
    for table in (alltypes(50), impala_table(True, 7)):
        for dictionary in (True, False):
            data = pyarrow_file(
                table,
                version=version,
                data_page_version=page_version,
                compression=compression,
                use_dictionary=dictionary,
                use_deprecated_int96_timestamps=True,
            )
            assert_same(pa.table(qv.parquet.read_table(data)), pyarrow_read(data))


# The broken cases, and the valid ones that took a fix, as files of the
# parquet_read_fuzz corpus (replayed by the C++ tests under the sanitizers).
FUZZ_CASES = [
    "datapage_v2_empty_datapage.snappy",
    "page_v2_empty_compressed",
    "map_no_value",
    "ARROW-GH-43605",
    "hadoop_lz4_compressed",
    "concatenated_gzip_members",
    "dict-page-offset-zero",
    "repeated_primitive_no_list",
    "old_list_structure",
    "repeated_no_annotation",
]


def write_fuzz_corpus(directory):
    import pathlib
    import re

    def safe(name):
        return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")

    out = pathlib.Path(directory)
    for name, (make, _, _) in BAD.items():
        (out / f"parquet-testing-bad-{safe(name)}").write_bytes(make())
    for name in FUZZ_CASES:
        (out / f"parquet-testing-good-{safe(name)}").write_bytes(GOOD[name]())


if __name__ == "__main__":
    import sys

    write_fuzz_corpus(sys.argv[1])
