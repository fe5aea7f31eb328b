"""Helpers for test_parquet_testing.py: a small Thrift compact codec and a
Parquet file model, so a file pyarrow wrote can be taken apart into its
footer and pages, changed, and put back together with every offset and size
recomputed. The cases that pyarrow cannot write (legacy framings, schemas
older writers used, broken files) are made this way."""

import struct
import zlib

import pyarrow as pa

# Thrift compact protocol types.
T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY = 1, 2, 3, 4, 5, 6, 7, 8
T_LIST, T_SET, T_MAP, T_STRUCT = 9, 10, 11, 12


class Reader:
    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    def zigzag(self):
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, t):
        if t in (T_TRUE, T_FALSE):
            return self.byte() == 1  # only inside lists
        if t == T_BYTE:
            b = self.byte()
            return b - 256 if b > 127 else b
        if t in (T_I16, T_I32, T_I64):
            return self.zigzag()
        if t == T_DOUBLE:
            v = struct.unpack_from("<d", self.data, self.pos)[0]
            self.pos += 8
            return v
        if t == T_BINARY:
            n = self.varint()
            v = bytes(self.data[self.pos : self.pos + n])
            self.pos += n
            return v
        if t in (T_LIST, T_SET):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            return (et, [self.value(et) for _ in range(n)])
        if t == T_STRUCT:
            return self.struct()
        raise ValueError(f"thrift type {t} not handled")

    def struct(self):
        fields, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return fields
            delta, t = h >> 4, h & 0x0F
            fid = last + delta if delta else self.zigzag()
            last = fid
            if t in (T_TRUE, T_FALSE):
                fields[fid] = (T_TRUE, t == T_TRUE)
            else:
                fields[fid] = (t, self.value(t))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _zigzag(n):
    return varint((n << 1) ^ (n >> 63))


def encode_value(t, v):
    if t in (T_TRUE, T_FALSE):
        return bytes([1 if v else 2])
    if t == T_BYTE:
        return bytes([v & 0xFF])
    if t in (T_I16, T_I32, T_I64):
        return _zigzag(v)
    if t == T_DOUBLE:
        return struct.pack("<d", v)
    if t == T_BINARY:
        return varint(len(v)) + v
    if t in (T_LIST, T_SET):
        et, items = v
        head = (
            bytes([(len(items) << 4) | et])
            if len(items) < 15
            else bytes([0xF0 | et]) + varint(len(items))
        )
        return head + b"".join(encode_value(et, x) for x in items)
    if t == T_STRUCT:
        return encode_struct(v)
    raise ValueError(t)


def encode_struct(fields):
    out, last = bytearray(), 0
    for fid in sorted(fields):
        t, v = fields[fid]
        wire_t = (T_TRUE if v else T_FALSE) if t in (T_TRUE, T_FALSE) else t
        if 0 < fid - last <= 15:
            out.append(((fid - last) << 4) | wire_t)
        else:
            out.append(wire_t)
            out += _zigzag(fid)
        last = fid
        if t not in (T_TRUE, T_FALSE):
            out += encode_value(t, v)
    out.append(0)
    return bytes(out)


def i32(v):
    return (T_I32, v)


def i64(v):
    return (T_I64, v)


def binary(v):
    return (T_BINARY, v if isinstance(v, bytes) else v.encode())


def struct_(fields):
    return (T_STRUCT, fields)


# Page types and codecs as the format numbers them.
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3
UNCOMPRESSED, SNAPPY, GZIP, LZ4, ZSTD, LZ4_RAW = 0, 1, 2, 5, 6, 7
CODEC_NAMES = {UNCOMPRESSED: None, SNAPPY: "snappy", GZIP: "gzip", ZSTD: "zstd", LZ4_RAW: "lz4_raw"}


class Page:
    def __init__(self, header, payload):
        self.header, self.payload = header, payload

    @property
    def type(self):
        return self.header[1][1]

    def sub(self):
        """The data, dictionary or v2 header struct of this page."""
        return self.header[{DATA_PAGE: 5, DICTIONARY_PAGE: 7, DATA_PAGE_V2: 8}[self.type]][1]


class Chunk:
    def __init__(self, column, pages):
        self.column, self.pages = column, pages

    @property
    def meta(self):
        return self.column[3][1]


class ParquetModel:
    """A Parquet file as its footer (a dict of Thrift fields) and, per row
    group and column, its pages (header fields and payload bytes)."""

    def __init__(self, data):
        (footer_len,) = struct.unpack_from("<I", data, len(data) - 8)
        self.footer = Reader(data, len(data) - 8 - footer_len).struct()
        self.chunks = []
        for rg in self.footer[4][1][1]:
            row = []
            for column in rg[1][1][1]:
                meta = column[3][1]
                start = meta[9][1]
                if 11 in meta and 0 < meta[11][1] < start:
                    start = meta[11][1]
                end = start + meta[7][1]
                pages, pos = [], start
                while pos < end:
                    r = Reader(data, pos)
                    header = r.struct()
                    size = header[3][1]
                    pages.append(Page(header, bytes(data[r.pos : r.pos + size])))
                    pos = r.pos + size
                row.append(Chunk(column, pages))
            self.chunks.append(row)

    @property
    def schema(self):
        return self.footer[2][1][1]

    def drop_arrow_schema(self):
        if 5 in self.footer:
            kv = [e for e in self.footer[5][1][1] if e[1][1] != b"ARROW:schema"]
            self.footer[5] = (T_LIST, (T_STRUCT, kv))

    def to_bytes(self, keep_offsets=False):
        out = bytearray(b"PAR1")
        for rg, row in zip(self.footer[4][1][1], self.chunks):
            rg_start, rg_compressed, rg_uncompressed = len(out), 0, 0
            for chunk in row:
                meta = chunk.meta
                start = len(out)
                compressed = uncompressed = 0
                data_offset = dict_offset = None
                for page in chunk.pages:
                    offset = len(out)
                    if page.type == DICTIONARY_PAGE and dict_offset is None:
                        dict_offset = offset
                    elif data_offset is None and page.type != DICTIONARY_PAGE:
                        data_offset = offset
                    head = encode_struct(page.header)
                    out += head + page.payload
                    compressed += len(head) + len(page.payload)
                    uncompressed += len(head) + page.header[2][1]
                if not keep_offsets:
                    meta[9] = i64(data_offset if data_offset is not None else start)
                    if dict_offset is not None:
                        meta[11] = i64(dict_offset)
                    else:
                        meta.pop(11, None)
                    meta[7] = i64(compressed)
                    meta[6] = i64(uncompressed)
                    chunk.column[2] = i64(start)
                # Page indexes and bloom filters are not carried over.
                for fid in (4, 5, 6, 7):
                    chunk.column.pop(fid, None)
                for fid in (14, 15):
                    meta.pop(fid, None)
                rg_compressed += compressed
                rg_uncompressed += uncompressed
            rg[1][1][1][:] = [c.column for c in row]
            rg[2] = i64(rg_uncompressed)
            if 5 in rg:
                rg[5] = i64(rg_start)
            if 6 in rg:
                rg[6] = i64(rg_compressed)
        footer = encode_struct(self.footer)
        out += footer + struct.pack("<I", len(footer)) + b"PAR1"
        return bytes(out)


def pyarrow_file(table, **kwargs):
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **kwargs)
    return sink.getvalue().to_pybytes()


# RLE / bit-packed hybrid levels, and PLAIN values, for hand-built pages.
def rle_runs(values, bit_width):
    """Levels as RLE runs only (one run per stretch of equal values)."""
    out, i, nbytes = bytearray(), 0, (bit_width + 7) // 8
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        out += (
            varint((j - i) << 1) + values[i].to_bytes(nbytes, "little")
            if nbytes
            else varint((j - i) << 1)
        )
        i = j
    return bytes(out)


def v1_levels(values, max_level):
    if max_level == 0:
        return b""
    runs = rle_runs(values, max_level.bit_length())
    return struct.pack("<I", len(runs)) + runs


def data_page_v1(num_values, payload, encoding=0):
    header = {
        1: i32(DATA_PAGE),
        2: i32(len(payload)),
        3: i32(len(payload)),
        5: struct_({1: i32(num_values), 2: i32(encoding), 3: i32(3), 4: i32(3)}),
    }
    return Page(header, payload)


def hadoop_lz4(raw, pieces=1):
    """The legacy LZ4 codec as Hadoop frames it: per block the big-endian
    decompressed and compressed sizes, then an LZ4 block."""
    codec = pa.Codec("lz4_raw")
    out, step = bytearray(), max(1, -(-len(raw) // pieces))
    for k in range(0, max(len(raw), 1), step):
        part = raw[k : k + step]
        block = codec.compress(part, asbytes=True)
        out += struct.pack(">II", len(part), len(block)) + block
    return bytes(out)


def gzip_members(raw, members=2):
    out, step = bytearray(), max(1, -(-len(raw) // members))
    for k in range(0, len(raw), step):
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        out += c.compress(raw[k : k + step]) + c.flush()
    return bytes(out)


def recompress(model, codec, compress):
    """Every page of every chunk decompressed and compressed again by
    `compress`; the chunks' codec set to `codec` (v2 levels stay plain)."""
    for row in model.chunks:
        for chunk in row:
            old = chunk.meta[4][1]
            for page in chunk.pages:
                raw = decompress_page(page, old)
                if page.type == DATA_PAGE_V2:
                    sub = page.sub()
                    levels = sub[5][1] + sub[6][1]
                    body = compress(raw[levels:]) if raw[levels:] else b""
                    page.payload = raw[:levels] + body
                    sub[7] = (T_TRUE, True)
                else:
                    page.payload = compress(raw)
                page.header[3] = i32(len(page.payload))
                page.header.pop(4, None)
            chunk.meta[4] = i32(codec)


def decompress_page(page, codec):
    if codec == UNCOMPRESSED:
        return page.payload
    if page.type == DATA_PAGE_V2:
        sub = page.sub()
        levels = sub[5][1] + sub[6][1]
        if 7 in sub and not sub[7][1]:
            return page.payload
        body = page.payload[levels:]
        size = page.header[2][1] - levels
        raw = (
            pa.decompress(body, decompressed_size=size, codec=CODEC_NAMES[codec], asbytes=True)
            if size
            else b""
        )
        return page.payload[:levels] + raw
    return pa.decompress(
        page.payload, decompressed_size=page.header[2][1], codec=CODEC_NAMES[codec], asbytes=True
    )
