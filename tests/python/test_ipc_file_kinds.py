"""Errors that say what a file is: an IPC stream given to open_file (and a
file to open_stream), a directory, Parquet, NumPy, zip, gzip, text and
empty files, for paths, bytes and file objects (docs/ipc.md, "When the
input is not what the reader expects")."""

import gzip
import io
import re
import zipfile

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pyarrow.parquet as pq
import pytest

import quiver as qv


def sample():
    return pa.table({"x": pa.array([1, 2, 3], pa.int32())})


def stream_bytes():
    sink = io.BytesIO()
    with pai.new_stream(sink, sample().schema) as writer:
        writer.write_table(sample())
    return sink.getvalue()


def file_bytes():
    sink = io.BytesIO()
    with pai.new_file(sink, sample().schema) as writer:
        writer.write_table(sample())
    return sink.getvalue()


def quoted(path):
    return re.escape(f"'{path}'")


def test_a_stream_is_not_a_file_and_a_file_not_a_stream(tmp_path):
    stream, file = tmp_path / "data.arrows", tmp_path / "data.arrow"
    stream.write_bytes(stream_bytes())
    file.write_bytes(file_bytes())
    for source in (stream, str(stream)):
        with pytest.raises(
            ValueError,
            match=quoted(stream) + " is an Arrow IPC stream, not an "
            r"Arrow IPC file; open it with open_stream \(C\+\+: ipc::StreamReader\)",
        ):
            qv.ipc.open_file(source)
    with pytest.raises(
        ValueError,
        match=quoted(file) + " is an Arrow IPC file, not an Arrow IPC "
        r"stream; open it with open_file \(C\+\+: ipc::FileReader\)",
    ):
        qv.ipc.open_stream(file)
    # Bytes and file objects have no name.
    with pytest.raises(
        ValueError, match="^the input is an Arrow IPC stream, not an Arrow IPC file"
    ):
        qv.ipc.open_file(stream_bytes())
    with pytest.raises(
        ValueError, match="^the input is an Arrow IPC file, not an Arrow IPC stream"
    ):
        qv.ipc.open_stream(io.BytesIO(file_bytes()))
    # Each reader still reads its own kind.
    assert qv.ipc.open_file(file).read_all().num_rows == 3
    assert qv.ipc.open_stream(stream).read_all().num_rows == 3
    assert qv.ipc.open_stream(open(stream, "rb")).read_all().num_rows == 3


def test_a_directory_is_named(tmp_path):
    for read in (
        qv.ipc.open_file,
        qv.ipc.open_stream,
        qv.ipc.read_tensor,
        qv.ipc.read_sparse_tensor,
    ):
        with pytest.raises(OSError, match=quoted(tmp_path) + " is a directory, not a file"):
            read(tmp_path)
    with pytest.raises(OSError, match="is a directory"):
        qv.ipc.open_file(tmp_path, memory_map=False)


def test_parquet_numpy_and_archives_are_named(tmp_path):
    parquet = tmp_path / "x.parquet"
    pq.write_table(sample(), parquet)
    npy = tmp_path / "x.npy"
    np.save(npy, np.arange(4))
    npz = tmp_path / "x.npz"
    np.savez(npz, a=np.arange(4))
    archive = tmp_path / "x.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data.arrow", file_bytes())
    packed = tmp_path / "x.arrow.gz"
    packed.write_bytes(gzip.compress(file_bytes()))
    cases = [
        (parquet, "a Parquet file", r"; read it with a Parquet reader \(pyarrow.parquet, polars\)"),
        (npy, r"a NumPy \.npy file", "; load it with numpy.load"),
        (npz, "a zip archive", "$"),
        (archive, "a zip archive", "$"),
        (packed, "a gzip-compressed file", "; decompress it first"),
    ]
    for path, kind, advice in cases:
        with pytest.raises(
            ValueError, match=quoted(path) + f" is {kind}, not an Arrow IPC file{advice}"
        ):
            qv.ipc.open_file(path)
        with pytest.raises(ValueError, match=quoted(path) + f" is {kind}, not an Arrow IPC stream"):
            qv.ipc.open_stream(path)
        with pytest.raises(ValueError, match=f"is {kind}, not an Arrow IPC Tensor message"):
            qv.ipc.read_tensor(path)
        with pytest.raises(ValueError, match=f"is {kind}, not an Arrow IPC SparseTensor message"):
            qv.ipc.read_sparse_tensor(path)
    # From memory too, and from a file object read message by message.
    with pytest.raises(ValueError, match="^the input is a Parquet file, not an Arrow IPC file"):
        qv.ipc.open_file(parquet.read_bytes())
    with pytest.raises(ValueError, match="^the input is a Parquet file, not an Arrow IPC stream"):
        with open(parquet, "rb") as f:
            qv.ipc.open_stream(f)


def test_empty_and_text_files_are_named(tmp_path):
    empty = tmp_path / "empty.arrow"
    empty.write_bytes(b"")
    with pytest.raises(
        ValueError, match=quoted(empty) + r" is empty \(0 bytes\), not an Arrow IPC file"
    ):
        qv.ipc.open_file(empty)
    with pytest.raises(
        ValueError,
        match=quoted(empty) + " is empty: an Arrow IPC stream starts with a schema message",
    ):
        qv.ipc.open_stream(empty)
    with pytest.raises(ValueError, match="no Tensor message at byte 0"):
        qv.ipc.read_tensor(empty)
    with pytest.raises(ValueError, match="^the IPC stream is empty: it has no schema message"):
        qv.ipc.open_stream(b"")
    csv = tmp_path / "x.csv"
    csv.write_text("id,name\n1,a\n2,b\n")
    with pytest.raises(
        ValueError,
        match=quoted(csv) + r' is a text file \(it starts "id,name\\n1,a'
        r'\\n2,b\\n"\), not an Arrow IPC file$',
    ):
        qv.ipc.open_file(csv)
    with pytest.raises(
        ValueError,
        match=quoted(csv) + r' is a text file \(it starts "id,name\\n"\), '
        "not an Arrow IPC stream$",
    ):
        qv.ipc.open_stream(csv)


def test_other_errors_stay_as_they_were():
    data = file_bytes()
    with pytest.raises(ValueError, match="bad magic at byte 0"):
        qv.ipc.open_file(b"NOTARROW" + data[8:])
    with pytest.raises(ValueError, match="not a complete Arrow IPC file: bad magic"):
        qv.ipc.open_file(data[:-1])
    with pytest.raises(ValueError, match="a 10-byte file is too short"):
        qv.ipc.open_file(bytes(10))
    with pytest.raises(ValueError, match="bytes of metadata, 12 are left"):
        qv.ipc.open_stream(stream_bytes()[:20])
    with pytest.raises(OSError, match="No such file or directory"):
        qv.ipc.open_file("/nonexistent/x.arrow")
