"""Compressed IPC with buffers large enough to be compressed in parts and
decompressed by several threads (docs/ipc.md, "Compression"): quiver's
files read by pyarrow and pyarrow's by quiver give the same tables, with
nulls, sliced tables, ragged rows of size 0, incompressible buffers (kept
raw) and several record batches decoded at once."""

import io

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv

CODECS = [c for c in ("lz4", "zstd") if c in qv.ipc.codecs()]


def large_table(rows=700, seed=3):
    """About 24 MiB: the image column is one 16 MiB buffer (compressed in
    parts), the noise column incompressible, the ragged one with empty and
    null rows."""
    rng = np.random.default_rng(seed)
    images = (rng.integers(0, 256, size=(rows, 3, 40, 40)) / 255).astype(np.float32)
    noise = rng.integers(0, 2**63, size=(rows, 128), dtype=np.int64)
    ragged = [
        None if i % 11 == 5 else rng.random((2, i % 7, 30)).astype(np.float32) for i in range(rows)
    ]
    mask = pa.array([i % 13 == 4 for i in range(rows)])
    image_cells = pa.array(qv.FixedShapeTensorArray.from_numpy(images))
    images_with_nulls = pa.ExtensionArray.from_storage(
        image_cells.type,
        pa.FixedSizeListArray.from_arrays(image_cells.storage.flatten(), 3 * 40 * 40, mask=mask),
    )
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "image": images_with_nulls,
            "noise": pa.FixedSizeListArray.from_arrays(pa.array(noise.ravel()), 128),
            "ragged": pa.array(qv.VariableShapeTensorArray.from_numpy(ragged)),
        }
    )


def quiver_bytes(table, codec, **options):
    sink = io.BytesIO()
    qv.ipc.write_file(qv.table(table), sink, compression=codec, **options)
    return sink.getvalue()


def pyarrow_bytes(table, codec):
    sink = io.BytesIO()
    with pai.new_file(sink, table.schema, options=pai.IpcWriteOptions(compression=codec)) as w:
        w.write_table(table)
    return sink.getvalue()


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("sliced", [False, True])
def test_quiver_parts_read_by_pyarrow_and_quiver(codec, sliced):
    table = large_table()
    if sliced:
        table = table.slice(37, 600)
    data = quiver_bytes(table, codec)
    assert len(data) < table.nbytes  # compressed, the noise column raw
    assert pai.open_file(pa.BufferReader(data)).read_all().equals(table)
    assert pa.table(qv.ipc.open_file(data).read_all()).equals(table)


@pytest.mark.parametrize("codec", CODECS)
def test_pyarrow_frames_read_by_quiver(codec):
    table = large_table()
    assert pa.table(qv.ipc.open_file(pyarrow_bytes(table, codec)).read_all()).equals(table)


@pytest.mark.parametrize("codec", CODECS)
def test_incompressible_buffers_stay_raw(codec):
    rng = np.random.default_rng(1)
    noise = pa.table({"x": pa.array(rng.integers(0, 2**63, size=2_000_000, dtype=np.int64))})
    data = quiver_bytes(noise, codec)
    # Stored as is (uncompressed length -1): the file is the raw bytes and
    # a few hundred bytes of framing, not the codec's larger output.
    assert len(data) < noise.nbytes + 1024
    # The buffer's 8-byte prefix is -1 and its values follow as they are.
    values = noise.column("x").chunk(0).to_numpy()
    assert data.find(b"\xff" * 8 + values[:4].tobytes()) > 0
    assert pai.open_file(pa.BufferReader(data)).read_all().equals(noise)
    assert pa.table(qv.ipc.open_file(data).read_all()).equals(noise)


@pytest.mark.parametrize("codec", CODECS)
def test_several_batches_decompressed_at_once(codec):
    table = large_table(rows=1400)
    data = quiver_bytes(table, codec, max_batch_bytes=12 << 20)
    reader = qv.ipc.open_file(data)
    assert len(reader) >= 3
    assert pa.table(reader.read_all()).equals(table)
    # Batch by batch, as pyarrow reads them.
    theirs = pai.open_file(pa.BufferReader(data))
    for i in range(len(reader)):
        assert pa.record_batch(reader.get_batch(i)).equals(theirs.get_batch(i))


@pytest.mark.parametrize("codec", CODECS)
def test_stream_of_parts_both_ways(codec):
    table = large_table()
    sink = io.BytesIO()
    with qv.ipc.new_stream(sink, qv.table(table).schema, compression=codec) as writer:
        writer.write_table(qv.table(table))
    assert pai.open_stream(sink.getvalue()).read_all().equals(table)
    assert pa.table(qv.ipc.open_stream(sink.getvalue()).read_all()).equals(table)
