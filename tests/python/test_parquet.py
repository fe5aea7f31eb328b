"""quiver.parquet.ParquetFile against files pyarrow writes: the schema as
Arrow types (tensor extension types and fixed-size lists restored from the
ARROW:schema key), the metadata equal to pyarrow's own reading of it,
every source kind (path, bytes, file object, URL), and the errors of files
that are not Parquet or whose footer lies."""

import io
import struct

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def sample_table():
    images = qv.FixedShapeTensorArray.from_numpy(np.arange(24, dtype=np.float32).reshape(3, 2, 4))
    ragged = qv.VariableShapeTensorArray.from_numpy(
        [np.ones((2, 3), np.int16), np.zeros((1, 3), np.int16), np.ones((4, 3), np.int16)]
    )
    return pa.table(
        {
            "i": pa.array([1, None, 3], pa.int32()),
            "u8": pa.array([1, 2, 255], pa.uint8()),
            "s": ["a", "bc", None],
            "big": pa.array(["x", "y", "z"], pa.large_string()),
            "f": pa.array([[1.0, 2.0], [3.0, 4.0], None], pa.list_(pa.float32(), 2)),
            "l": [[1], [], None],
            "t": pa.array([1, 2, 3], pa.timestamp("ns", "UTC")),
            "d": pa.array([1, 2, 3], pa.decimal128(20, 2)),
            "st": [{"x": 1, "y": "z"}, None, {"x": 2, "y": None}],
            "m": pa.array([[("k", 1)], [], None], pa.map_(pa.string(), pa.int64())),
            "images": pa.array(images),
            "ragged": pa.array(ragged),
        },
        metadata={"origin": "test"},
    )


@pytest.fixture
def written(tmp_path):
    path = tmp_path / "sample.parquet"
    pq.write_table(sample_table(), path, row_group_size=2, compression="zstd")
    return path


def test_schema_matches_the_table_pyarrow_wrote(written):
    f = qv.parquet.ParquetFile(written)
    ours = pa.schema(f.schema)
    theirs = sample_table().schema
    assert ours.names == theirs.names
    for name in theirs.names:
        assert ours.field(name).type == theirs.field(name).type, name
    assert ours.metadata == {b"origin": b"test"}
    assert f.schema.field("images").type.extension_name == "arrow.fixed_shape_tensor"
    assert f.schema.field("ragged").type.extension_name == "arrow.variable_shape_tensor"


def test_metadata_equals_pyarrows_reading(written):
    f = qv.parquet.ParquetFile(written)
    theirs = pq.ParquetFile(written).metadata
    assert f.num_rows == theirs.num_rows == 3
    assert f.num_row_groups == theirs.num_row_groups == 2
    assert f.metadata["created_by"] == theirs.created_by
    assert f.metadata["format_version"] in (1, 2)
    assert b"ARROW:schema" in f.metadata["key_value_metadata"]
    assert len(f.column_paths) == theirs.num_columns
    for g in range(theirs.num_row_groups):
        ours = f.row_group(g)
        group = theirs.row_group(g)
        assert ours["num_rows"] == group.num_rows
        assert ours["total_byte_size"] == group.total_byte_size
        for c in range(group.num_columns):
            mine, col = ours["columns"][c], group.column(c)
            assert ".".join(mine["path"]) == col.path_in_schema == f.column_paths[c]
            assert mine["physical_type"] == col.physical_type
            assert mine["codec"] == col.compression
            assert mine["num_values"] == col.num_values
            assert mine["compressed_size"] == col.total_compressed_size
            assert mine["uncompressed_size"] == col.total_uncompressed_size
            assert mine["data_page_offset"] == col.data_page_offset
            assert set(mine["encodings"]) == set(col.encodings)
            stats = col.statistics
            if stats is not None and stats.has_min_max and col.physical_type == "INT32":
                lo, hi = (
                    struct.unpack("<i", mine["statistics"]["min"])[0],
                    struct.unpack("<i", mine["statistics"]["max"])[0],
                )
                assert (lo, hi) == (stats.min, stats.max)
            if stats is not None and stats.has_null_count:
                assert mine["statistics"]["null_count"] == stats.null_count
    assert f.row_group(-1)["num_rows"] == 1
    with pytest.raises(IndexError, match="row group 2 of a file with 2 row groups"):
        f.row_group(2)


def test_every_source_kind_reads_the_same(written, tmp_path):
    data = written.read_bytes()
    sources = [written, str(written), data, io.BytesIO(data), memoryview(data)]
    for source in sources:
        f = qv.parquet.ParquetFile(source)
        assert f.num_rows == 3 and f.num_row_groups == 2, type(source)
    assert qv.parquet.ParquetFile(written, memory_map=False).column_paths == (
        qv.parquet.ParquetFile(written).column_paths
    )


CODEC_NAMES = {
    "none": "UNCOMPRESSED",
    "snappy": "SNAPPY",
    "gzip": "GZIP",
    "zstd": "ZSTD",
    "lz4": "LZ4_RAW",
    "brotli": "BROTLI",
}


@pytest.mark.parametrize("codec", ["none", "snappy", "gzip", "zstd", "lz4", "brotli"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_footers_of_every_codec_and_page_version_read(tmp_path, codec, version):
    path = tmp_path / "t.parquet"
    table = pa.table({"x": np.arange(1000, dtype=np.int64), "y": [str(i) for i in range(1000)]})
    pq.write_table(table, path, compression=codec, data_page_version=version, write_page_index=True)
    f = qv.parquet.ParquetFile(path)
    assert f.num_rows == 1000
    column = f.row_group(0)["columns"][0]
    # The format's codec names (pyarrow calls LZ4_RAW, which it writes, "LZ4").
    assert column["codec"] == CODEC_NAMES[codec]
    assert column["has_page_index"]
    assert struct.unpack("<q", column["statistics"]["max"])[0] == 999


def test_files_that_are_not_parquet_are_refused_with_the_reason(tmp_path, written):
    data = written.read_bytes()
    with pytest.raises(ValueError, match="not a Parquet file: it does not end with the magic"):
        qv.parquet.ParquetFile(data[:-1])
    with pytest.raises(ValueError, match="fewer than the 12"):
        qv.parquet.ParquetFile(b"PAR1")
    arrow_file = tmp_path / "x.arrow"
    qv.ipc.write_file(qv.table({"a": np.arange(3)}), arrow_file)
    with pytest.raises(ValueError, match="'.*x.arrow' is not a Parquet file"):
        qv.parquet.ParquetFile(arrow_file)
    # The footer's length word pointing before the file's start.
    lying = data[:-8] + struct.pack("<I", len(data)) + b"PAR1"
    with pytest.raises(ValueError, match="runs past the start"):
        qv.parquet.ParquetFile(lying)
    # A footer whose bytes are garbled.
    length = struct.unpack("<I", data[-8:-4])[0]
    garbled = data[: -8 - length] + b"\xff" * length + data[-8:]
    with pytest.raises(ValueError, match="Parquet footer"):
        qv.parquet.ParquetFile(garbled)
    with pytest.raises(NotImplementedError, match="encrypted footer"):
        qv.parquet.ParquetFile(data[:-4] + b"PARE")
    with pytest.raises(OSError, match="missing.parquet': No such file"):
        qv.parquet.ParquetFile(tmp_path / "missing.parquet")
    with pytest.raises(TypeError, match="a Parquet source is a path"):
        qv.parquet.ParquetFile(3.5)
    # The message is the format's own, not the IPC reader's.
    with pytest.raises(TypeError, match=r"text mode; the data is binary") as refused:
        with open(written, encoding="latin-1") as text:
            qv.parquet.ParquetFile(text)
    assert "IPC" not in str(refused.value)


def test_every_truncation_of_a_file_fails_cleanly(written):
    data = written.read_bytes()
    for cut in range(0, len(data), max(1, len(data) // 200)):
        with pytest.raises((ValueError, NotImplementedError)):
            qv.parquet.ParquetFile(data[:cut])


def test_a_remote_file_opens_by_url(nginx):
    path = nginx.root / "remote.parquet"
    pq.write_table(sample_table(), path, row_group_size=2)
    f = qv.parquet.ParquetFile(f"{nginx.url}/remote.parquet")
    assert f.num_rows == 3
    assert pa.schema(f.schema).names == sample_table().schema.names


@pytest.mark.parametrize("plaintext_footer", [True, False])
def test_encrypted_files_are_refused_by_name(tmp_path, plaintext_footer):
    import base64

    pe = pytest.importorskip("pyarrow.parquet.encryption")

    class KeysInTheClear(pe.KmsClient):
        def __init__(self, config):
            super().__init__()

        def wrap_key(self, key_bytes, master_key_identifier):
            return base64.b64encode(key_bytes)

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return base64.b64decode(wrapped_key)

    keys = {"footer": "0123456789012345", "col": "1234567890123450"}
    config = pe.EncryptionConfiguration(
        footer_key="footer",
        column_keys={"col": ["a"]},
        plaintext_footer=plaintext_footer,
        double_wrapping=False,
    )
    properties = pe.CryptoFactory(KeysInTheClear).file_encryption_properties(
        pe.KmsConnectionConfig(custom_kms_conf=keys), config
    )
    path = tmp_path / "secret.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path, encryption_properties=properties)
    expected = (
        "a plaintext footer over encrypted columns" if plaintext_footer else "encrypted footer"
    )
    with pytest.raises(NotImplementedError, match=expected):
        qv.parquet.ParquetFile(path)
    with pytest.raises(NotImplementedError, match=expected):
        qv.parquet.read_table(path)
