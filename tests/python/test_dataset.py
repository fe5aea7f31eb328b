"""quiver.dataset(): random access to the rows of IPC files and streams,
compressed or not, mapped or read with pread; files written by pyarrow and
by quiver; takes in any order with repeats equal to pyarrow's take of the
whole table; slices, __getitem__ and PyTorch's __getitems__; projections;
the cache's counts; close() and with; and the errors of bad input."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv


def image(r):
    shape = (1 + r % 3, 2 + r % 4)
    return ((np.arange(shape[0] * shape[1]) + r) % 251).astype(np.uint8).reshape(shape)


def batch_of(rows):
    emb = np.array([[r, -r] for r in rows], dtype=np.float32).reshape(-1, 2)
    return pa.record_batch(
        {
            "id": pa.array(list(rows), pa.int64()),
            "emb": pa.array(qv.FixedShapeTensorArray.from_numpy(emb)),
            "img": pa.array(qv.VariableShapeTensorArray.from_numpy([image(r) for r in rows])),
        }
    )


def write(path, first, n, per_batch, stream=False, compression=None):
    """Rows first .. first + n - 1 in record batches of per_batch, written
    by pyarrow as an IPC file or stream."""
    batches = [
        batch_of(range(s, min(first + n, s + per_batch)))
        for s in range(first, first + n, per_batch)
    ]
    options = pa.ipc.IpcWriteOptions(compression=compression)
    opener = pa.ipc.new_stream if stream else pa.ipc.new_file
    with pa.OSFile(str(path), "wb") as sink, opener(sink, batches[0].schema, options=options) as w:
        for b in batches:
            w.write_batch(b)
    return path


def whole(n):
    return pa.Table.from_batches([batch_of(range(n))])


def as_arrow(table):
    return pa.table(table)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("compression", [None, "lz4", "zstd"])
@pytest.mark.parametrize("memory_map", [True, False])
def test_take_equals_pyarrow_take(tmp_path, stream, compression, memory_map):
    write(tmp_path / "a.arrow", 0, 23, 5, stream, compression)
    write(tmp_path / "b.arrows", 23, 17, 8, stream, compression)
    ds = qv.dataset(tmp_path, memory_map=memory_map)
    assert len(ds) == ds.num_rows == 40
    assert ds.num_record_batches == 5 + 3
    indices = [39, 0, 7, 7, 22, 23, 5, 39, 30]
    assert as_arrow(ds.take(indices)).equals(whole(40).take(indices))
    assert as_arrow(ds.take(np.array(indices, dtype=np.int32))).equals(whole(40).take(indices))
    assert as_arrow(ds[3:33]).equals(whole(40).slice(3, 30))
    assert as_arrow(ds[::7]).equals(whole(40).take(list(range(0, 40, 7))))
    assert as_arrow(ds[-1]).equals(whole(40).slice(39, 1))
    assert as_arrow(ds.__getitems__([1, 2])).equals(whole(40).take([1, 2]))
    # Arrays of any integer dtype are takes; a 0-d one and a NumPy integer
    # are one row.
    for dtype in (np.int64, np.int32, np.uint16):
        picked = np.array([39, 0, 7], dtype=dtype)
        assert as_arrow(ds[picked]).equals(whole(40).take([39, 0, 7]))
    assert as_arrow(ds[np.array([4])]).equals(whole(40).take([4]))
    assert as_arrow(ds[np.array(4)]).equals(whole(40).slice(4, 1))
    assert as_arrow(ds[np.int64(-2)]).equals(whole(40).slice(38, 1))
    batches = ds.to_batches()
    assert [b.num_rows for b in batches] == [5, 5, 5, 5, 3, 8, 8, 1]


def test_random_takes_over_many_batches(tmp_path):
    write(tmp_path / "a.arrow", 0, 300, 7)
    ds = qv.dataset(str(tmp_path / "a.arrow"))
    expected = whole(300)
    rng = np.random.default_rng(3)
    for _ in range(20):
        idx = rng.integers(0, 300, size=int(rng.integers(1, 64)))
        assert as_arrow(ds.take(idx)).equals(expected.take(idx))


def test_files_written_by_quiver_and_a_list_of_sources(tmp_path):
    qv.ipc.write_file(qv.table(whole(10)), str(tmp_path / "q.arrow"), compression="zstd")
    write(tmp_path / "p.arrows", 10, 6, 4, stream=True)
    ds = qv.dataset([tmp_path / "q.arrow", str(tmp_path / "p.arrows")])
    assert ds.sources == [str(tmp_path / "q.arrow"), str(tmp_path / "p.arrows")]
    assert as_arrow(ds.take([15, 0, 9, 10])).equals(whole(16).take([15, 0, 9, 10]))


def test_glob_pattern(tmp_path):
    write(tmp_path / "part-1.arrow", 0, 4, 4)
    write(tmp_path / "part-2.arrow", 4, 4, 4)
    write(tmp_path / "other.arrow", 100, 4, 4)
    ds = qv.dataset(str(tmp_path / "part-*.arrow"))
    assert as_arrow(ds[:]).equals(whole(8))


def test_a_directory_reads_its_ipc_files_sorted_by_name(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    # Every extension a directory reads, files and streams, named so that
    # the sorted order is not the order they were written in.
    write(folder / "d.ipc", 12, 4, 3)
    write(folder / "a.feather", 0, 4, 4)
    write(folder / "c.arrows", 8, 4, 2, stream=True)
    write(folder / "b.arrow", 4, 4, 4)
    (folder / "notes.txt").write_text("not a dataset")
    write(folder / ".hidden.arrow", 100, 4, 4)
    (folder / "sub").mkdir()
    write(folder / "sub" / "e.arrow", 200, 4, 4)
    ds = qv.dataset(folder)
    assert [p.rsplit("/", 1)[-1] for p in ds.sources] == [
        "a.feather",
        "b.arrow",
        "c.arrows",
        "d.ipc",
    ]
    assert as_arrow(ds[:]).equals(whole(16))
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "readme.md").write_text("nothing to read")
    with pytest.raises(ValueError, match="empty"):
        qv.dataset(empty)


def test_local_files_are_mapped_by_default_with_a_256_mib_cache(tmp_path):
    path = write(tmp_path / "a.arrow", 0, 40, 10)
    ds = qv.dataset(path)
    assert ds.memory_map is True
    assert ds.cache_bytes == 256 * 1024 * 1024
    assert as_arrow(ds.take([5, 31, 5])).equals(whole(40).take([5, 31, 5]))
    # Mapped: the rows are views of the file's pages, nothing is read into
    # memory of the dataset's own.
    assert ds.cache_stats()["bytes_fetched"] == 0
    unmapped = qv.dataset(path, memory_map=False, cache_bytes=1 << 20)
    assert unmapped.memory_map is False
    assert unmapped.cache_bytes == 1 << 20
    assert as_arrow(unmapped.take([5, 31, 5])).equals(whole(40).take([5, 31, 5]))
    assert unmapped.cache_stats()["bytes_fetched"] > 0


def test_getitem_with_lists_arrays_and_negative_indices(tmp_path):
    path = write(tmp_path / "a.arrow", 0, 30, 7)
    ds = qv.dataset(path)
    expected = whole(30)
    picks = [29, 0, 13, 13, 6]
    assert as_arrow(ds[picks]).equals(expected.take(picks))
    assert as_arrow(ds[np.array(picks, dtype=np.int32)]).equals(expected.take(picks))
    assert as_arrow(ds.__getitems__(picks)).equals(expected.take(picks))
    assert as_arrow(ds[-1]).equals(expected.slice(29, 1))
    assert as_arrow(ds[5:12]).equals(expected.slice(5, 7))
    assert ds[[]].num_rows == 0
    with pytest.raises(IndexError):
        ds[[0, 30]]
    with pytest.raises(IndexError):
        ds[-31]
    batches = ds.to_batches()
    assert iter(batches) is batches
    assert [b.num_rows for b in batches] == [7, 7, 7, 7, 2]


def test_projection_reads_only_those_columns(tmp_path):
    write(tmp_path / "a.arrow", 0, 50, 10)
    ds = qv.dataset(tmp_path / "a.arrow", columns=["img", "id"], memory_map=False)
    assert ds.schema.names == ["img", "id"]
    taken = as_arrow(ds.take([3, 1]))
    assert taken.equals(whole(50).take([3, 1]).select(["img", "id"]))
    full = qv.dataset(tmp_path / "a.arrow", memory_map=False)
    before = full.cache_stats()["bytes_fetched"]
    full.take([3, 1])
    fetched_full = full.cache_stats()["bytes_fetched"] - before
    ds2 = qv.dataset(tmp_path / "a.arrow", columns=["id"], memory_map=False)
    before = ds2.cache_stats()["bytes_fetched"]
    ds2.take([3, 1])
    assert ds2.cache_stats()["bytes_fetched"] - before < fetched_full


def test_cache_stats_and_its_bound(tmp_path):
    write(tmp_path / "a.arrow", 0, 200, 10, compression="zstd")
    ds = qv.dataset(tmp_path / "a.arrow", cache_bytes=3000)
    ds.take([0])
    stats = ds.cache_stats()
    assert stats["misses"] == 3 and stats["hits"] == 0
    ds.take([1])
    assert ds.cache_stats()["hits"] == 3
    for row in range(0, 200, 10):
        ds.take([row])
    stats = ds.cache_stats()
    assert stats["bytes_cached"] <= 3000
    assert stats["evictions"] > 0
    assert stats["bytes_decoded"] > 0
    assert set(stats) == {
        "hits",
        "misses",
        "evictions",
        "bytes_decoded",
        "bytes_cached",
        "bytes_fetched",
        "requests",
    }


def test_close_and_with(tmp_path):
    write(tmp_path / "a.arrow", 0, 10, 5)
    with qv.dataset(tmp_path / "a.arrow") as ds:
        assert len(ds) == 10
    with pytest.raises(ValueError, match="closed"):
        len(ds)
    ds = qv.dataset(tmp_path / "a.arrow")
    ds.close()
    with pytest.raises(ValueError, match="closed"):
        ds.take([0])
    assert "closed" in repr(ds)


def test_errors_name_what_is_wrong(tmp_path):
    write(tmp_path / "a.arrow", 0, 10, 5)
    ds = qv.dataset(tmp_path / "a.arrow")
    with pytest.raises(IndexError, match="index 10 at position 1 is out of range"):
        ds.take([0, 10])
    with pytest.raises(IndexError):
        ds[10]
    with pytest.raises(TypeError, match="integers"):
        ds.take([0.5])
    for scalar in (1.0, True, np.float64(2.0), np.bool_(False)):
        with pytest.raises(TypeError, match="indices must be integers, got"):
            ds[scalar]
    with pytest.raises(ValueError, match="no column named 'nope'"):
        qv.dataset(tmp_path / "a.arrow", columns=["nope"])
    with pytest.raises(ValueError, match="cache_bytes"):
        qv.dataset(tmp_path / "a.arrow", cache_bytes=-1)
    with pytest.raises(OSError, match="no such file"):
        qv.dataset(tmp_path / "missing.arrow")
    with pytest.raises(TypeError, match="path or a URL"):
        qv.dataset(3)
    (tmp_path / "notes.arrow").write_text("id,emb\n1,2\n")
    with pytest.raises(ValueError, match="notes.arrow is a text file .*, or a Parquet file"):
        qv.dataset(tmp_path / "notes.arrow")
    with pytest.raises(ValueError, match="empty"):
        qv.dataset([])


def test_truncated_file_read_without_mapping_is_an_error_not_a_crash(tmp_path):
    path = write(tmp_path / "a.arrows", 0, 200, 50, stream=True)
    ds = qv.dataset(path, memory_map=False)
    with open(path, "r+b") as f:
        f.truncate(2000)
    with pytest.raises(OSError):
        ds.take([199])


def test_rows_read_with_pread_come_in_buffers_of_their_own(tmp_path):
    """A few rows of a large record batch, read without mapping, are the
    rows' bytes alone: never a slice of a batch-long buffer whose other
    bytes were not read (whatever memory it was given held before)."""
    rows = 4096
    emb = (np.arange(rows * 256, dtype=np.float32) % 977).reshape(rows, 256)
    expected = pa.table(
        {
            "id": pa.array(np.arange(rows), pa.int64()),
            "emb": pa.array(qv.FixedShapeTensorArray.from_numpy(emb)),
        }
    )
    path = tmp_path / "big.arrow"
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, expected.schema) as w:
        w.write_table(expected)  # one record batch of 4 MiB
    ds = qv.dataset(path, memory_map=False)
    for few in ([7], [100, 101, 102], [4000, 3, 4000]):
        got = as_arrow(ds.take(few))
        assert got.equals(expected.take(few))
        for column in got.columns:
            for chunk in column.chunks:
                array = chunk.storage if isinstance(chunk, pa.ExtensionArray) else chunk
                sizes = [b.size for b in array.buffers() if b is not None]
                assert max(sizes) <= len(few) * 1024 + 64, sizes
    assert ds.cache_stats()["bytes_fetched"] < 64 * 1024 + 4 * 1024 * 3


def test_pickle_reopens_the_sources(tmp_path):
    import pickle

    write(tmp_path / "a.arrow", 0, 10, 5)
    ds = qv.dataset(tmp_path, columns=["id"], cache_bytes=1000)
    again = pickle.loads(pickle.dumps(ds))
    assert again.schema.names == ["id"]
    assert as_arrow(again.take([9, 0])).equals(as_arrow(ds.take([9, 0])))
    ds.close()
    with pytest.raises(ValueError, match="closed"):
        pickle.dumps(ds)


def test_fork_after_use_reads_in_the_child(tmp_path):
    """A child forked while the parent's dataset was in use (and possibly
    mid-read on another thread) reads its rows; nothing hangs."""
    import os
    import threading

    write(tmp_path / "a.arrow", 0, 400, 10, compression="zstd")
    ds = qv.dataset(tmp_path / "a.arrow", cache_bytes=20_000)
    ds.take([1, 2, 3])
    stop = threading.Event()

    def churn():
        rng = np.random.default_rng(0)
        while not stop.is_set():
            ds.take(rng.integers(0, 400, size=16))

    thread = threading.Thread(target=churn)
    thread.start()
    try:
        read, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            try:
                ok = as_arrow(ds.take([399, 0, 200])).equals(whole(400).take([399, 0, 200]))
                os.write(write_end, b"ok" if ok else b"bad")
            finally:
                os._exit(0)
        os.close(write_end)
        import select

        ready, _, _ = select.select([read], [], [], 60)
        assert ready, "the forked child did not answer within 60 s"
        assert os.read(read, 16) == b"ok"
        os.waitpid(pid, 0)
    finally:
        stop.set()
        thread.join()


def test_torch_dataloader_workers_fork_and_spawn(tmp_path):
    torch = pytest.importorskip("torch")
    write(tmp_path / "a.arrow", 0, 64, 8)
    ds = qv.dataset(tmp_path / "a.arrow", columns=["id"])
    ds.take([0])  # used in the parent first
    for context in ("fork", "spawn"):
        loader = torch.utils.data.DataLoader(
            ds,
            batch_size=8,
            shuffle=True,
            num_workers=2,
            collate_fn=_identity,
            multiprocessing_context=context,
            timeout=120,
        )
        seen = sorted(int(i) for table in loader for i in as_arrow(table)["id"].to_pylist())
        assert seen == list(range(64)), context


def _identity(table):
    return table


def test_a_column_asked_for_twice_is_refused(tmp_path):
    write(tmp_path / "a.arrow", 0, 4, 4)
    with pytest.raises(ValueError, match="column 'id' is asked for twice"):
        qv.dataset(tmp_path / "a.arrow", columns=["id", "id"])


def test_concurrent_first_takes_do_not_deadlock(tmp_path):
    """Several threads whose first call imports NumPy at once (each call
    lets go of the GIL) all finish."""
    import subprocess
    import sys

    write(tmp_path / "a.arrow", 0, 40, 5)
    script = f"""
import threading, quiver as qv
ds = qv.dataset({str(tmp_path / "a.arrow")!r})
threads = [threading.Thread(target=ds.take, args=([1, 2, 3],)) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print("done")
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "done", run.stderr
