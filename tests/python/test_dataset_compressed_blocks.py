"""Compressed IPC files written in blocks (compression_block_bytes): any
Arrow reader reads them; once its cache is full, quiver.dataset takes a few
rows by decoding only the blocks that hold them (cache_stats says so),
equal to pyarrow's take; rows read one after another decode each block
once; most of a batch, a file written in one frame per buffer, or a cache
with room decode the batch whole; over HTTP the same rows come back, the
second time fetching only their blocks; bad block sizes are refused by
name."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

ROW_BYTES = 4096  # a uint8 [4, 32, 32] tensor
# cache_bytes that one record batch of 256 rows (1 MiB and its ids) fills
# to within a sixteenth: takes of a few rows then decode their blocks alone.
FILLED_BY_ONE_BATCH = 1_100_000


def table(n):
    """n rows of a fixed-shape tensor (every row different) and an int64 id
    with nulls."""
    images = np.empty((n, 4, 32, 32), dtype=np.uint8)
    for r in range(n):
        images[r] = (np.arange(ROW_BYTES).reshape(4, 32, 32) // 16 + r) % 251
    ids = pa.array([None if r % 7 == 3 else r for r in range(n)], pa.int64())
    return pa.table({"image": pa.array(qv.FixedShapeTensorArray.from_numpy(images)), "id": ids})


def write(path, n, codec, block, stream=False):
    writer = qv.ipc.write_stream if stream else qv.ipc.write_file
    writer(
        table(n),
        str(path),
        compression=codec,
        max_batch_rows=256,
        compression_block_bytes=block,
    )
    return path


def read_with_pyarrow(path, stream=False):
    with pa.memory_map(str(path)) as source:
        if stream:
            return pa.ipc.open_stream(source).read_all()
        return pa.ipc.open_file(source).read_all()


CODECS = [c for c in ("lz4", "zstd") if c in qv.build_info()["codecs"]]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("block", [4096, 16384, 65536, 1 << 20])
@pytest.mark.parametrize("stream", [False, True])
def test_pyarrow_reads_files_written_in_blocks(tmp_path, codec, block, stream):
    path = write(tmp_path / "t.arrow", 600, codec, block, stream)
    assert read_with_pyarrow(path, stream).equals(table(600))


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("memory_map", [True, False])
def test_few_rows_decode_only_their_blocks(tmp_path, codec, memory_map):
    expected = table(768)
    path = write(tmp_path / "b.arrow", 768, codec, 16384)
    # A cache that one batch (1 MiB) fills: few rows are then read alone.
    blocks = qv.dataset(path, memory_map=memory_map, cache_bytes=FILLED_BY_ONE_BATCH)
    roomy = qv.dataset(path, memory_map=memory_map)
    frames = qv.dataset(write(tmp_path / "f.arrow", 768, codec, None), memory_map=memory_map)
    for ds in (blocks, roomy, frames):
        ds[0:200]  # learns that the file is compressed, and fills a small cache
    few = [700, 300, 301, 300, 520]
    before = blocks.cache_stats()
    assert pa.table(blocks.take(few)).equals(expected.take(few))
    after = blocks.cache_stats()
    # Four rows of 4 KiB in one or two 16 KiB blocks each, and the small id
    # buffers whole: far from the two batches of 1 MiB they lie in.
    assert after["bytes_decoded"] - before["bytes_decoded"] <= 4 * 2 * 16384 + 3 * 4096
    assert after["bytes_cached"] == before["bytes_cached"]  # rows read alone are not kept

    before = frames.cache_stats()
    assert pa.table(frames.take(few)).equals(expected.take(few))
    assert frames.cache_stats()["bytes_decoded"] - before["bytes_decoded"] >= 2 * 256 * ROW_BYTES

    # ds[i] and __getitems__ read alone too, and equal pyarrow's rows; a
    # row comes in buffers of its own (never a slice of a batch-long buffer
    # whose other bytes were not decoded).
    one = pa.table(blocks[333])
    assert one.equals(expected.slice(333, 1))
    for column in one.columns:
        for chunk in column.chunks:
            array = chunk.storage if isinstance(chunk, pa.ExtensionArray) else chunk
            sizes = [b.size for b in array.buffers() if b is not None]
            assert max(sizes) <= ROW_BYTES + 64, sizes
    assert pa.table(blocks.__getitems__([5, 600])).equals(expected.take([5, 600]))

    # While the cache has room, the batches are decoded whole and kept for
    # the rows that will follow.
    assert pa.table(roomy.take(few)).equals(expected.take(few))
    assert roomy.cache_stats()["bytes_cached"] >= 3 * 256 * ROW_BYTES

    # Most of a batch: decoded whole, once.
    before = blocks.cache_stats()["bytes_decoded"]
    assert pa.table(blocks[512:700]).equals(expected.slice(512, 188))
    assert blocks.cache_stats()["bytes_decoded"] >= before + 256 * ROW_BYTES

    rng = np.random.default_rng(9)
    for _ in range(20):
        idx = rng.integers(0, 768, size=int(rng.integers(1, 50)))
        assert pa.table(blocks.take(idx)).equals(expected.take(idx))


@pytest.mark.parametrize("codec", CODECS)
def test_rows_read_one_after_another_decode_each_block_once(tmp_path, codec):
    expected = table(512)
    ds = qv.dataset(write(tmp_path / "b.arrow", 512, codec, 16384), cache_bytes=FILLED_BY_ONE_BATCH)
    ds[400:512]  # learns the file is compressed; batch 1 fills the cache
    before = ds.cache_stats()["bytes_decoded"]
    for r in range(0, 64):
        assert pa.table(ds[r]).equals(expected.slice(r, 1))
    decoded = ds.cache_stats()["bytes_decoded"] - before
    # 64 rows of 4 KiB lie in 16 blocks of 16 KiB: each decoded once (the
    # id buffer, one small frame, once), not once per row.
    assert decoded <= 16 * 16384 + 256 * 8 + 64


def test_bad_block_sizes_are_refused_by_name(tmp_path):
    for bad in (1000, 2048, 12288, 8 << 20):
        with pytest.raises(ValueError, match="compression_block_bytes"):
            qv.ipc.write_file(
                table(4), str(tmp_path / "x.arrow"), compression="zstd", compression_block_bytes=bad
            )
    for bad in (0, -4096, 1 << 70):
        with pytest.raises(ValueError, match="compression_block_bytes must be a power of two"):
            qv.ipc.new_stream(
                str(tmp_path / "y.arrows"), table(1).schema, compression_block_bytes=bad
            )
    with pytest.raises(TypeError, match="compression_block_bytes"):
        qv.ipc.new_file(str(tmp_path / "z.arrow"), table(1).schema, compression_block_bytes=True)
    assert not (tmp_path / "x.arrow").exists()
    # Without a codec the option changes nothing.
    write(tmp_path / "plain.arrow", 10, None, 4096)
    assert read_with_pyarrow(tmp_path / "plain.arrow").equals(table(10))


@pytest.mark.skipif(qv.build_info()["curl"] is None, reason="this build of quiver has no libcurl")
@pytest.mark.parametrize("codec", CODECS)
def test_rows_of_a_remote_file_in_blocks(nginx, codec):
    name = f"blocks-{codec}.arrow"
    write(nginx.root / name, 768, codec, 16384)
    remote = qv.dataset(f"{nginx.url}/{name}", cache_bytes=FILLED_BY_ONE_BATCH)
    local = qv.dataset(nginx.root / name)
    remote[0:200]
    idx = [700, 3, 3, 450, 767]
    before = remote.cache_stats()["bytes_fetched"]
    assert pa.table(remote.take(idx)).equals(pa.table(local.take(idx)))
    assert pa.table(remote.take(idx)).equals(table(768).take(idx))
    # The second take of the same rows knows where their blocks lie and
    # fetches a few compressed blocks, not the stored buffers.
    first = remote.cache_stats()["bytes_fetched"]
    assert pa.table(remote.take([701, 451])).equals(table(768).take([701, 451]))
    assert remote.cache_stats()["bytes_fetched"] - first < (first - before) / 4
