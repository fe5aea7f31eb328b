#!/usr/bin/env python3
"""Writes the hand-made seed inputs of each fuzz target into fuzz/corpus/<target>/.

Each seed is a small valid input in the byte layout its target's .cc file
reads, so that fuzzing starts from inputs that reach the deep code paths.
Run it after changing a target's input layout; crash inputs kept in the
corpus directories are left alone.
"""

import json
import random
import struct
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"


def fixed_shape_metadata():
    # byte 0: storage list size; the rest: the extension metadata.
    yield "seed-2d", bytes([12]) + json.dumps({"shape": [3, 4]}).encode()
    yield (
        "seed-3d-permuted",
        bytes([24])
        + json.dumps(
            {"shape": [2, 3, 4], "dim_names": ["C", "H", "W"], "permutation": [2, 0, 1]}
        ).encode(),
    )
    # arrow-rs's form: every key written, null when absent, "permutations".
    yield (
        "seed-arrow-rs-nulls",
        bytes([6]) + b'{"shape":[2,3],"dim_names":null,"permutations":null}',
    )
    yield (
        "seed-arrow-rs-permuted",
        bytes([24]) + b'{"shape":[2,3,4],"dim_names":["C","H","W"],"permutations":[2,0,1]}',
    )


def array_validation():
    # outer length, inner length, outer offset, inner offset; then the string
    # validity (4 bytes), string offsets, characters (32 bytes), list validity
    # (2 bytes), list offsets.
    head = bytes([2, 3, 0, 0])
    strings = b"\xff" * 4 + struct.pack("<4i", 0, 1, 3, 6) + b"abcdef".ljust(32, b"\0")
    lists = b"\xff\xff" + struct.pack("<3i", 0, 2, 3)
    yield "seed-list-of-utf8", head + strings + lists


def variable_shape():
    # ndim, rows, metadata size, metadata, offsets (int8 each), shapes (int8
    # each), value count, validity byte (bit 0: has a bitmap).
    metadata = json.dumps({"dim_names": ["H", "W"]}).encode()
    body = bytes([0, 6, 8]) + bytes([2, 3, 1, 2]) + bytes([8, 0b11])
    yield "seed-2-rows-2d", bytes([2, 2, len(metadata)]) + metadata + body
    yield "seed-no-metadata", bytes([1, 1, 0]) + bytes([0, 4]) + bytes([4]) + bytes([4, 0])
    # arrow-rs's form: every key written, null when absent, "permutations".
    for name, text in [
        ("seed-arrow-rs-nulls", b'{"dim_names":null,"permutations":null,"uniform_shape":null}'),
        (
            "seed-arrow-rs-permuted",
            b'{"dim_names":null,"permutations":[1,0],"uniform_shape":[null,null]}',
        ),
    ]:
        yield name, bytes([2, 2, len(text)]) + text + body


def dlpack_import():
    # version major, minor, ndim, 4 shapes, 4 strides, pointer bits (1
    # shape, 2 strides, 4 data), dtype code, bits, lanes, byte_offset, device.
    def tensor(ndim, shape, strides, pointers, code, bits):
        return (
            bytes([1, 0, ndim])
            + struct.pack("<4q", *shape)
            + struct.pack("<4q", *strides)
            + bytes([pointers, code, bits])
            + struct.pack("<HQi", 1, 0, 1)
        )

    yield "seed-float32-2x3", tensor(2, [2, 3, 0, 0], [0, 0, 0, 0], 0b101, 2, 32)
    yield "seed-int16-strided", tensor(2, [3, 2, 0, 0], [1, 3, 0, 0], 0b111, 0, 16)


def c_data_import():
    # mode (0: two arrays, 1: a stream, 2: one array), validation level (3:
    # full), deep chain (0) or not (1), then the top-level type choice (0
    # fixed_shape_tensor, 3 variable_shape_tensor, 5 bool8, 6 + k plain type k
    # in Kind order); every later decision comes from the pseudo-random tail.
    rng = random.Random(8)
    kinds = [
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "bool",
        "utf8",
        "large_utf8",
        "binary",
        "large_binary",
        "fixed_size_binary",
        "list",
        "large_list",
        "fixed_size_list",
        "struct",
    ]

    def tail():
        return bytes(rng.randrange(256) for _ in range(400))

    choices = [
        ("fixed_shape_tensor", bytes([0])),
        ("variable_shape_tensor", bytes([3])),
        ("bool8", bytes([5])),
    ] + [(kind, bytes([6, k])) for k, kind in enumerate(kinds)]
    for name, choice in choices:
        yield f"seed-{name}", bytes([2, 3, 1]) + choice + tail()
    yield "seed-stream-variable_shape_tensor", bytes([1, 3, 1, 3]) + tail()
    yield "seed-stream-struct", bytes([1, 3, 1, 6, 20]) + tail()
    yield "seed-two-arrays-minimal-list", bytes([0, 1, 1, 6, 17]) + tail()
    yield "seed-deep-chain", bytes([2, 3, 0]) + tail()


def ipc_tables():
    """Small tables covering the column kinds IPC carries, written both by
    quiver and by pyarrow (the two writers lay bytes out differently)."""
    import decimal

    import numpy as np
    import pyarrow as pa

    import quiver as qv

    images = qv.FixedShapeTensorArray.from_numpy(
        np.arange(24, dtype=np.float32).reshape(4, 2, 3), dim_names=["H", "W"]
    )
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.full((2, i + 1), i, np.int16) for i in range(3)] + [None], uniform_shape=[2, None]
    )
    yield (
        "tensors",
        pa.table(
            {
                "id": pa.array([1, 2, None, 4], pa.int64()),
                "image": pa.array(images),
                "ragged": pa.array(ragged),
            }
        ),
    )
    yield (
        "strings",
        pa.table(
            {
                "s": pa.array(["a", None, "ccc", "dd"]),
                "l": pa.array([[1], [2, 3], None, []]),
                "st": pa.array([{"x": 1}, {"x": 2}, None, {"x": 4}]),
                "b": pa.array([True, False, None, True]),
            }
        ),
    )
    yield (
        "real_world",
        pa.table(
            {
                "ts": pa.array([1, None], pa.timestamp("us", "UTC")),
                "dec": pa.array([decimal.Decimal("1.5"), None], pa.decimal128(5, 1)),
                "view": pa.array(["short", "a string longer than twelve"], pa.string_view()),
                "cat": pa.array(["a", None]).dictionary_encode(),
                "nothing": pa.nulls(2),
            }
        ),
    )


def ipc_bytes(table, writer, codec, fmt):
    import io

    import pyarrow as pa
    import pyarrow.ipc as pai

    import quiver as qv

    if writer == "quiver":
        buf = io.BytesIO()
        new = qv.ipc.new_file if fmt == "file" else qv.ipc.new_stream
        with new(buf, table.schema, compression=codec) as w:
            w.write(table)
        return buf.getvalue()
    sink = pa.BufferOutputStream()
    new = pai.new_file if fmt == "file" else pai.new_stream
    with new(sink, table.schema, options=pai.IpcWriteOptions(compression=codec)) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def ipc_seeds(fmt):
    for name, table in ipc_tables():
        for writer in ("quiver", "pyarrow"):
            for codec in (None, "lz4", "zstd"):
                yield (
                    f"seed-{name}-{writer}-{codec or 'plain'}",
                    ipc_bytes(table, writer, codec, fmt),
                )


def nested_dictionary_table():
    import pyarrow as pa

    inner = pa.array(["a", "b", None]).dictionary_encode()
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 3]), inner)
    return pa.table(
        {
            "nested": pa.DictionaryArray.from_arrays(pa.array([1, 0, None], pa.int32()), lists),
            "plain": pa.array(["x", "y", "x"]).dictionary_encode(),
        }
    )


def dictionary_and_byte_order_seeds(fmt):
    """Dictionaries nested in another's values as pyarrow writes them, and
    big-endian twins of the uncompressed pyarrow seeds (each body swapped,
    the schema marked big-endian, as tests/python/test_ipc_big_endian.py
    makes them: pyarrow cannot write big-endian data)."""
    import sys

    sys.path.insert(0, str(CORPUS.parent.parent / "tests" / "python"))
    from test_ipc_big_endian import big_endian_file, big_endian_stream

    swap = big_endian_file if fmt == "file" else big_endian_stream
    nested = nested_dictionary_table()
    yield "seed-nested_dictionaries-pyarrow-plain", ipc_bytes(nested, "pyarrow", None, fmt)
    for name, table in list(ipc_tables()) + [("nested_dictionaries", nested)]:
        yield f"seed-{name}-pyarrow-big_endian", swap(ipc_bytes(table, "pyarrow", None, fmt))


def ipc_stream():
    yield from ipc_seeds("stream")
    yield from dictionary_and_byte_order_seeds("stream")


def ipc_file():
    yield from ipc_seeds("file")
    yield from dictionary_and_byte_order_seeds("file")


def ipc_tensor():
    import io

    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as pai

    import quiver as qv

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for name, view in [
        ("row-major", x),
        ("column-major", np.asfortranarray(x)),
        ("strided", x[:, ::2, 1:]),
    ]:
        buf = io.BytesIO()
        qv.ipc.write_tensor(qv.Tensor.from_numpy(view), buf)
        yield f"seed-quiver-{name}", buf.getvalue()
    sink = pa.BufferOutputStream()
    pai.write_tensor(
        pa.Tensor.from_numpy(np.arange(6, dtype=np.int16).reshape(2, 3), dim_names=["a", "b"]), sink
    )
    yield "seed-pyarrow-int16", sink.getvalue().to_pybytes()


def ipc_sparse_tensor():
    """SparseTensor messages of every format (COO row- and column-major,
    CSR, CSC, CSF with permuted axis orders, empty ones, bool8), written by
    quiver and by Arrow C++: the compatibility program writes both (quiver
    has no Python binding for sparse tensors yet). It is built first if
    needed, which takes build/dev/libquiver.a and pyarrow's C++ headers."""
    import subprocess
    import tempfile

    root = CORPUS.parent.parent
    program = root / "build" / "arrow_compat" / "arrow_sparse_compat"
    subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-f",
            "tests/arrow_compat/compat.mk",
            str(program.relative_to(root)),
        ],
        cwd=root,
        check=True,
    )
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [str(program), "--seeds", out], cwd=root, check=True, stdout=subprocess.DEVNULL
        )
        for path in sorted(Path(out).iterdir()):
            yield path.name, path.read_bytes()


def npy_reader():
    """.npy files as np.save writes them (both byte orders, Fortran order,
    0-d, empty, bool) and .npz archives, stored and deflated."""
    import io
    import zipfile

    def npy(descr, shape, data, fortran=False):
        shape_text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
            descr,
            fortran,
            shape_text,
        )
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data

    seeds = [
        ("f4_2x3", npy("<f4", (2, 3), struct.pack("<6f", *range(6)))),
        ("i2_big_fortran", npy(">i2", (2, 2), struct.pack(">4h", 1, 2, 3, 4), fortran=True)),
        ("f8_scalar", npy("<f8", (), struct.pack("<d", 3.5))),
        ("u1_empty", npy("|u1", (0, 4), b"")),
        ("b1", npy("|b1", (3,), b"\x01\x00\x01")),
    ]
    for method, name in [
        (zipfile.ZIP_STORED, "npz_stored"),
        (zipfile.ZIP_DEFLATED, "npz_deflated"),
    ]:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=method) as z:
            z.writestr("a.npy", seeds[0][1])
            z.writestr("b.npy", seeds[1][1])
        seeds.append((name, out.getvalue()))
    return seeds


def dataset_index():
    # byte 0: bit 0 maps the source, bit 1 projects every other column; the
    # rest: an IPC file or stream.
    for mode in (0, 1, 2, 3):
        for name, data in ipc_stream():
            yield f"stream-{mode}-{name}", bytes([mode]) + data
    for name, data in ipc_file():
        yield f"file-1-{name}", bytes([1]) + data
        yield f"file-2-{name}", bytes([2]) + data
    # quiver's LZ4 block files declare their block size in each record
    # batch (quiver:lz4_block_bytes): "blocks-hint-*". The corpus keeps the
    # "blocks-{0,1}-lz4-*" seeds an earlier writer made without it, whose
    # blocks a reader places by counting their sequences.
    for name, data in block_compressed_files():
        for mode in (0, 1):
            kind = "blocks-hint" if name.startswith("lz4") else "blocks"
            yield f"{kind}-{mode}-{name}", bytes([mode]) + data


def block_compressed_files():
    # quiver's files in compression blocks (compression_block_bytes): a take
    # of a few rows decodes their blocks alone (row_blocks.cc).
    import io

    import numpy as np

    import quiver as qv

    images = (np.arange(64 * 1024) % 251).astype(np.uint8).reshape(64, 4, 16, 16)
    batch = qv.record_batch(
        {
            "image": qv.FixedShapeTensorArray.from_numpy(images),
            "id": np.arange(64, dtype=np.int64),
        }
    )
    for codec in ("lz4", "zstd"):
        for writer in ("file", "stream"):
            sink = io.BytesIO()
            write = qv.ipc.write_file if writer == "file" else qv.ipc.write_stream
            write(batch, sink, compression=codec, max_batch_rows=32, compression_block_bytes=4096)
            yield f"{codec}-{writer}", sink.getvalue()


def http_response():
    # bytes 0-7: offset, length, object size and body size (two bytes each:
    # fuzz_input.h's Int); the whole input is also read as header lines.
    def numbers(offset, length, extra, body):
        return struct.pack("<4H", offset, length, extra, body)

    yield (
        "seed-206",
        numbers(10, 5, 100, 5)
        + (
            b"\nHTTP/1.1 206 Partial Content\r\nContent-Range: bytes 10-14/115\r\n"
            b"Content-Length: 5\r\n\r\n"
        ),
    )
    yield (
        "seed-tail",
        numbers(0, 20, 30, 20) + (b"\nHTTP/2 206\r\ncontent-range: bytes 30-49/50\r\n\r\n"),
    )
    yield (
        "seed-redirect-then-404",
        numbers(0, 0, 0, 0)
        + (b"\nHTTP/1.1 302 Found\r\nLocation: /x\r\n\r\nHTTP/1.1 404 Not Found\r\n\r\n"),
    )
    yield "seed-416", numbers(0, 0, 0, 0) + b"\nHTTP/1.1 416 R\r\nContent-Range: bytes */0\r\n"


def s3_listing():
    yield (
        "seed-page",
        (
            b'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws'
            b'.com/doc/2006-03-01/"><Name>b</Name><Prefix>d/</Prefix><IsTruncated>true'
            b"</IsTruncated><NextContinuationToken>1/a+b=&amp;</NextContinuationToken><Contents>"
            b"<Key>d/a&amp;b &#233;.arrow</Key><Size>3</Size></Contents><Contents><Key><![CDATA[d/<"
            b"c>.arrow]]></Key></Contents><CommonPrefixes><Prefix>d/e/</Prefix></CommonPrefixes>"
            b"<!-- note --><Empty/></ListBucketResult>"
        ),
    )
    yield (
        "seed-error",
        (
            b'<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>gone</Message>'
            b"<Key>x</Key></Error>"
        ),
    )


def safetensors():
    """safetensors files as the reference writes them: every dtype, a 0-d,
    an empty and a multi-axis tensor, metadata, and a file with none."""

    def st(tensors, metadata=None):
        header, data = {}, b""
        if metadata is not None:
            header["__metadata__"] = metadata
        for name, dtype, shape, raw in tensors:
            header[name] = {
                "dtype": dtype,
                "shape": shape,
                "data_offsets": [len(data), len(data) + len(raw)],
            }
            data += raw
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        return struct.pack("<Q", len(text)) + text + data

    widths = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2}
    widths.update({"F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "F64": 8, "I64": 8, "U64": 8})
    every = [(f"t{d}", d, [2], bytes(range(2 * w))) for d, w in widths.items()]
    return [
        ("every_dtype", st(every, {"format": "pt"})),
        ("f32_2x3", st([("w", "F32", [2, 3], struct.pack("<6f", *range(6)))])),
        ("scalar_and_empty", st([("s", "I64", [], b"\0" * 8), ("e", "U8", [0, 4], b"")])),
        ("no_tensors", st([], {})),
    ]


def parquet_metadata():
    """Parquet files as pyarrow writes them (their footers are what the
    target reads): flat and nested columns, every codec pyarrow has here,
    statistics, page indexes, data pages v1 and v2, key/value metadata.
    Needs pyarrow when run; the files it wrote are kept in the corpus."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "i": pa.array([1, None, 3], pa.int32()),
            "s": ["a", "bc", None],
            "f": pa.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], pa.list_(pa.float32(), 2)),
            "l": [[1], [], None],
            "t": pa.array([1, 2, 3], pa.timestamp("ns", "UTC")),
            "d": pa.array([1, 2, 3], pa.decimal128(20, 2)),
            "st": [{"x": 1, "y": "z"}, None, {"x": 2, "y": None}],
            "m": pa.array([[("k", 1)], [], None], pa.map_(pa.string(), pa.int64())),
        },
        metadata={"note": "seed"},
    )
    variants = {
        "plain_v1": dict(compression="none", data_page_version="1.0", use_dictionary=False),
        "dict_v2_zstd": dict(compression="zstd", data_page_version="2.0"),
        "snappy_page_index": dict(compression="snappy", write_page_index=True),
        "gzip_no_stats": dict(compression="gzip", write_statistics=False),
        "lz4_split": dict(compression="lz4", use_byte_stream_split=["f"], use_dictionary=["s"]),
    }
    for name, options in variants.items():
        sink = io.BytesIO()
        pq.write_table(table, sink, row_group_size=2, **options)
        yield name, sink.getvalue()
        # The same bytes from the first page header on: the target reads a
        # page header at the input's start.
        yield "page_" + name, sink.getvalue()[4:]


def parquet_read():
    """Small Parquet files whose pages the target decodes: every physical
    type, nulls at every level, nested lists, structs and maps, a tensor
    column, under each codec, page version and value encoding pyarrow
    writes, and page indexes over small pages. Needs pyarrow when run; the
    files it wrote are kept."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "b": [True, None, False, True],
            "i": pa.array([1, None, -3, 4], pa.int32()),
            "u8": pa.array([1, 2, 255, 0], pa.uint8()),
            "i64": pa.array([10**12, -5, None, 7], pa.int64()),
            "f": pa.array([1.5, None, -2.0, 0.25], pa.float32()),
            "d": [0.5, 1e300, None, -1.0],
            "s": ["a", "bc", None, "a"],
            "fsb": pa.array([b"ab", b"cd", None, b"ef"], pa.binary(2)),
            "dec": pa.array([1, 2, None, -3], pa.decimal128(20, 2)),
            "t": pa.array([1, 2, 3, None], pa.timestamp("ms")),
            "fsl": pa.array([[1.0, 2.0], None, [3.0, None], [5.0, 6.0]], pa.list_(pa.float32(), 2)),
            "l": [[1], [], None, [None, 2]],
            "ll": [[[1], []], None, [[2, 3]], [None]],
            "st": [{"x": 1, "y": "z"}, None, {"x": None, "y": None}, {"x": 4, "y": "w"}],
            "m": pa.array([[("k", 1)], [], None, [("a", None)]], pa.map_(pa.string(), pa.int64())),
        }
    )
    variants = {
        "plain_v1": dict(compression="none", data_page_version="1.0", use_dictionary=False),
        "dict_v1": dict(compression="none", data_page_version="1.0"),
        "dict_v2_zstd": dict(compression="zstd", data_page_version="2.0"),
        "snappy_v2": dict(compression="snappy", data_page_version="2.0", use_dictionary=False),
        "lz4": dict(compression="lz4"),
        "split": dict(
            compression="none",
            use_dictionary=False,
            column_encoding={"f": "BYTE_STREAM_SPLIT", "d": "BYTE_STREAM_SPLIT"},
        ),
        "delta": dict(
            compression="none",
            use_dictionary=False,
            column_encoding={
                "i": "DELTA_BINARY_PACKED",
                "i64": "DELTA_BINARY_PACKED",
                "s": "DELTA_BYTE_ARRAY",
                "fsb": "DELTA_BYTE_ARRAY",
            },
        ),
        "delta_length": dict(
            compression="none",
            use_dictionary=False,
            column_encoding={"s": "DELTA_LENGTH_BYTE_ARRAY"},
        ),
    }
    for name, options in variants.items():
        sink = io.BytesIO()
        pq.write_table(table, sink, row_group_size=3, **options)
        yield name, sink.getvalue()
    # Page indexes over pages of one or two rows, for reads of a row range.
    for version in ("1.0", "2.0"):
        sink = io.BytesIO()
        pq.write_table(
            table,
            sink,
            row_group_size=4,
            write_page_index=True,
            data_page_size=1,
            write_batch_size=1,
            data_page_version=version,
        )
        yield "page_index_v" + version[0], sink.getvalue()


def parquet_values():
    """Pages for the value decoders, each behind the 4 bytes the target
    reads first: encoding, physical type, value count (little endian)."""

    def seed(encoding, physical_type, count, page):
        return bytes([encoding, physical_type]) + struct.pack("<H", count) + page

    def uleb(n):
        out = bytearray()
        while n >= 0x80:
            out.append(n & 0x7F | 0x80)
            n >>= 7
        out.append(n)
        return bytes(out)

    words = [b"apple", b"applesauce", b"band"]
    plain_strings = b"".join(struct.pack("<I", len(w)) + w for w in words)
    # DELTA_BINARY_PACKED 1..5: blocks of 128 in 4 miniblocks, min delta 1.
    deltas = uleb(128) + uleb(4) + uleb(5) + uleb(2) + uleb(2) + bytes(4)
    # Lengths 5 10 4: first 5 (zigzag 10), min delta -6 (zigzag 11), the
    # deltas less it (11, 0) in one 4-bit miniblock of 32 values.
    lengths = uleb(128) + uleb(4) + uleb(3) + uleb(10) + uleb(11) + bytes([4, 0, 0, 0])
    lengths += b"\x0b" + bytes(15)
    return [
        ("plain_int64", seed(0, 2, 3, struct.pack("<3q", 1, -2, 3))),
        ("plain_booleans", seed(0, 0, 9, b"\xb5\x01")),
        ("plain_strings", seed(0, 6, 3, plain_strings)),
        ("plain_fixed", seed(0, 7, 2, b"abcdef")),
        # Width 2: one group 0 1 2 1 0 2 1 0, then 1 ten times.
        ("dictionary_indices", seed(8, 1, 18, b"\x02\x03\x64\x18\x14\x01")),
        ("rle_booleans", seed(3, 0, 13, struct.pack("<I", 4) + b"\x14\x01\x03\x05")),
        ("byte_stream_split", seed(9, 4, 2, b"\x00\x00\x00\x00\x80\x00\x3f\x40")),
        ("delta_binary_packed", seed(5, 1, 5, deltas)),
        ("delta_length", seed(6, 6, 3, lengths + b"".join(words))),
        (
            "delta_byte_array",
            seed(
                7,
                6,
                3,
                deltas[:2] + uleb(4) + uleb(3) + bytes(2) + bytes(4) + lengths + b"".join(words),
            ),
        ),
    ]


TARGETS = {
    "fixed_shape_metadata_fuzz": fixed_shape_metadata,
    "array_validation_fuzz": array_validation,
    "variable_shape_fuzz": variable_shape,
    "dlpack_import_fuzz": dlpack_import,
    "c_data_import_fuzz": c_data_import,
    "ipc_stream_fuzz": ipc_stream,
    "ipc_file_fuzz": ipc_file,
    "ipc_tensor_fuzz": ipc_tensor,
    "ipc_sparse_tensor_fuzz": ipc_sparse_tensor,
    "npy_reader_fuzz": npy_reader,
    "dataset_index_fuzz": dataset_index,
    "http_response_fuzz": http_response,
    "safetensors_fuzz": safetensors,
    "s3_listing_fuzz": s3_listing,
    "parquet_metadata_fuzz": parquet_metadata,
    "parquet_read_fuzz": parquet_read,
    "parquet_values_fuzz": parquet_values,
}

if __name__ == "__main__":
    import sys

    wanted = set(sys.argv[1:])  # target names; all when none are given
    for target, seeds in TARGETS.items():
        if wanted and target not in wanted:
            continue
        (CORPUS / target).mkdir(parents=True, exist_ok=True)
        for name, data in seeds():
            (CORPUS / target / name).write_bytes(data)
