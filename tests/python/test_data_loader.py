"""quiver.data.BatchReader: every row once per epoch (shuffled or not,
sharded or not, with and without drop_last), determinism by seed and
epoch, padded / jagged / list values equal to the source rows, pad_value,
null rows, multi-file datasets, bucketing, arrays that outlive their
batch, the framework adapters, and the errors of bad input."""

import ast
import os
import pathlib

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
import quiver.data as qd


def image(r):
    shape = (1 + r % 3, 2 + r % 4)
    return ((np.arange(shape[0] * shape[1]) + r) % 251).astype(np.uint8).reshape(shape)


def write_rows(path, first, n, per_batch=None, nulls=False):
    """Rows first .. first + n - 1: id = r, emb = (r, -r), img = image(r)
    (None for r % 5 == 4 with nulls), in record batches of per_batch."""
    per_batch = per_batch or n
    batches = []
    for start in range(first, first + n, per_batch):
        rows = range(start, min(first + n, start + per_batch))
        emb = np.array([[r, -r] for r in rows], dtype=np.float32).reshape(-1, 2)
        imgs = [None if nulls and r % 5 == 4 else image(r) for r in rows]
        batches.append(
            pa.record_batch(
                {
                    "id": pa.array(list(rows), pa.int64()),
                    "emb": pa.array(qv.FixedShapeTensorArray.from_numpy(emb)),
                    "img": pa.array(qv.VariableShapeTensorArray.from_numpy(imgs)),
                }
            )
        )
    with pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_file(sink, batches[0].schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    return path


@pytest.fixture
def dataset(tmp_path):
    """23 rows in two files, five record batches, null images."""
    write_rows(tmp_path / "a.arrow", 0, 14, 5, nulls=True)
    write_rows(tmp_path / "b.arrow", 14, 9, 9, nulls=True)
    return tmp_path


def ids_of(batches):
    return [int(i) for b in batches for i in b["id"]]


@pytest.mark.parametrize("shuffle", [False, True, "window"])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("world", [1, 3])
def test_every_row_once_per_epoch(dataset, shuffle, drop_last, world):
    seen, lengths = [], set()
    for rank in range(world):
        reader = qd.BatchReader(
            dataset,
            batch_size=4,
            shuffle=shuffle,
            seed=3,
            window_rows=6,
            drop_last=drop_last,
            shard=(rank, world),
        )
        batches = list(reader)
        assert len(batches) == len(reader)
        lengths.add(len(reader))
        if drop_last:
            assert all(len(b["id"]) == 4 for b in batches)
        seen += ids_of(batches)
    assert len(seen) == len(set(seen))
    if drop_last:
        assert len(lengths) == 1  # equal across ranks
        assert len(seen) == world * (23 // world // 4) * 4
    else:
        assert sorted(seen) == list(range(23))


def test_determinism_by_seed_and_epoch(dataset):
    a = qd.BatchReader(dataset, batch_size=5, shuffle=True, seed=11)
    b = qd.BatchReader(dataset, batch_size=5, shuffle=True, seed=11)
    first = ids_of(a)
    assert first == ids_of(b)
    assert first == ids_of(a)  # iterating again restarts the epoch
    assert a.epoch_rows().tolist() == first
    a.set_epoch(1)
    assert a.epoch == 1
    second = ids_of(a)
    assert second != first and sorted(second) == sorted(first)
    b.set_epoch(1)
    assert ids_of(b) == second
    c = qd.BatchReader(dataset, batch_size=5, shuffle=True, seed=12)
    assert ids_of(c) != first
    assert ids_of(qd.BatchReader(dataset, batch_size=5)) == list(range(23))


def test_padded_values_equal_the_source_rows(dataset):
    reader = qd.BatchReader(
        [dataset / "a.arrow", dataset / "b.arrow"],
        batch_size=6,
        shuffle=True,
        pad_value=200,
        num_threads=2,
    )
    assert reader.output_names == ["id", "emb", "img", "img_shape"]
    assert reader.num_rows == 23
    for batch in reader:
        img, shape = batch["img"], batch["img_shape"]
        assert img.dtype == np.uint8 and shape.dtype == np.int32
        assert img.shape[0] == shape.shape[0] == len(batch["id"])
        assert img.shape[1:] == tuple(shape.max(axis=0))
        for i, r in enumerate(batch["id"]):
            np.testing.assert_array_equal(batch["emb"][i], [r, -r])
            if r % 5 == 4:  # null row: shape zeros, all padding
                assert shape[i].tolist() == [0, 0]
                assert (img[i] == 200).all()
                continue
            h, w = image(r).shape
            assert shape[i].tolist() == [h, w]
            np.testing.assert_array_equal(img[i, :h, :w], image(r))
            assert (img[i, h:, :] == 200).all() and (img[i, :, w:] == 200).all()


def test_jagged_and_list_layouts(dataset):
    reader = qd.BatchReader(dataset, columns=["img", "id"], batch_size=7, ragged="jagged")
    assert reader.output_names == ["img", "img_offsets", "img_shape", "id"]
    for batch in reader:
        offsets = batch["img_offsets"]
        assert offsets.dtype == np.int64 and offsets[0] == 0
        for i, r in enumerate(batch["id"]):
            row = batch["img"][offsets[i] : offsets[i + 1]]
            if r % 5 == 4:
                assert len(row) == 0 and batch["img_shape"][i].tolist() == [0, 0]
            else:
                np.testing.assert_array_equal(row.reshape(batch["img_shape"][i]), image(r))
    reader = qd.BatchReader(dataset, columns=["img", "id"], batch_size=7, ragged="list")
    for batch in reader:
        assert isinstance(batch["img"], list)
        for row, r in zip(batch["img"], batch["id"]):
            if r % 5 == 4:
                assert row is None
            else:
                np.testing.assert_array_equal(row, image(r))
                assert not row.flags.writeable  # a view of the file


def test_float_pad_value_and_scalar_nulls(tmp_path):
    rows = [np.full((1, n), n, dtype=np.float32) for n in (1, 3, 2)]
    batch = pa.record_batch(
        {
            "x": pa.array([1.5, None, 3.5], pa.float64()),
            "flag": pa.array([True, None, False]),
            "v": pa.array(qv.VariableShapeTensorArray.from_numpy(rows)),
        }
    )
    with pa.ipc.new_file(str(tmp_path / "f.arrow"), batch.schema) as writer:
        writer.write_batch(batch)
    (out,) = qd.BatchReader(tmp_path / "f.arrow", batch_size=3, pad_value=-0.5)
    np.testing.assert_array_equal(out["x"], [1.5, 0.0, 3.5])  # null: zero
    assert out["flag"].dtype == np.bool_ and out["flag"].tolist() == [True, False, False]
    np.testing.assert_array_equal(out["v"][0], [[1, -0.5, -0.5]])
    np.testing.assert_array_equal(out["v"][2], [[2, 2, -0.5]])
    with pytest.raises(ValueError, match="pad value 0.1 is not exactly representable as float32"):
        qd.BatchReader(tmp_path / "f.arrow", batch_size=3, pad_value=0.1)
    (out,) = qd.BatchReader(tmp_path / "f.arrow", batch_size=3, pad_value=np.float32(2.0))
    assert out["v"][0, 0, 2] == 2.0  # NumPy scalars are pad values too
    with pytest.raises(TypeError, match="pad_value must be an int or a float, got <class 'str'>"):
        qd.BatchReader(tmp_path / "f.arrow", batch_size=3, pad_value="0")


def test_arrays_stay_valid_and_writable_after_later_batches(dataset):
    reader = qd.BatchReader(dataset, batch_size=4, prefetch=1)
    batches = list(reader)
    reader.set_epoch(1)
    again = list(reader)
    assert ids_of(batches) == list(range(23))  # not overwritten by the second epoch
    assert ids_of(again) == list(range(23))
    batches[0]["emb"][0, 0] = 42.0  # writable, the batch's own memory
    assert again[0]["emb"][0, 0] == 0.0


def test_multi_file_and_directory_sources(dataset, tmp_path):
    by_dir = qd.BatchReader(dataset, batch_size=10)
    assert [pathlib.Path(f).name for f in by_dir.files] == ["a.arrow", "b.arrow"]
    by_list = qd.BatchReader([str(dataset / "b.arrow"), dataset / "a.arrow"], batch_size=10)
    assert ids_of(by_list) == list(range(14, 23)) + list(range(14))
    assert len(qd.BatchReader(dataset / "a.arrow", batch_size=10)) == 2


def test_bucketing_lowers_the_padding_ratio(tmp_path):
    rng = np.random.default_rng(0)
    sizes = np.where(rng.random(400) < 0.2, 64, 2)
    imgs = [np.zeros((s, s), np.uint8) for s in sizes]
    batch = pa.record_batch({"img": pa.array(qv.VariableShapeTensorArray.from_numpy(imgs))})
    with pa.ipc.new_file(str(tmp_path / "s.arrow"), batch.schema) as writer:
        writer.write_batch(batch)
    plain = qd.BatchReader(tmp_path, batch_size=16, shuffle=True)
    assert plain.padding_ratio == 0.0
    list(plain)
    bucketed = qd.BatchReader(
        tmp_path, batch_size=16, shuffle=True, bucket_by="img", bucket_window=8
    )
    rows = [int(r) for r in bucketed.epoch_rows()]
    list(bucketed)
    assert sorted(rows) == list(range(400))
    assert plain.padding_ratio > 0.5
    assert bucketed.padding_ratio < plain.padding_ratio / 2


def test_dlpack_and_the_jax_adapter(dataset):
    jnp = pytest.importorskip("jax.numpy")
    reader = qd.BatchReader(dataset, batch_size=8)
    batch = next(iter(reader))
    for value in batch.values():
        assert hasattr(value, "__dlpack__")
        np.testing.assert_array_equal(np.from_dlpack(value), value)
    converted = next(reader.to_jax())
    assert set(converted) == set(batch)
    np.testing.assert_array_equal(np.asarray(converted["img"]), batch["img"])
    assert isinstance(converted["id"], jnp.ndarray)


def test_torch_dataset_needs_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        assert not hasattr(qd, "TorchIterableDataset")
        with pytest.raises(AttributeError, match="needs torch, which is not installed"):
            qd.TorchIterableDataset  # noqa: B018
        with pytest.raises(ImportError):
            from quiver.data import TorchIterableDataset  # noqa: F401
    else:
        pytest.skip("torch is installed: the dataset test runs instead")


def test_pin_memory_falls_back_with_a_warning(dataset):
    if qd._cuda_host_allocator() is not None:
        reader = qd.BatchReader(dataset, batch_size=4, pin_memory=True)
        assert reader.pin_memory and ids_of(reader) == list(range(23))
        return
    with pytest.warns(RuntimeWarning, match="pin_memory=True: no CUDA runtime"):
        reader = qd.BatchReader(dataset, batch_size=4, pin_memory=True)
    assert not reader.pin_memory
    assert ids_of(reader) == list(range(23))


class FakeHostAllocator:
    """cudaHostAlloc / cudaFreeHost stand-ins over malloc that count calls:
    the pinned path without a GPU (the real runtime needs a device)."""

    def __init__(self):
        import ctypes
        import threading

        libc = ctypes.CDLL(None)
        libc.malloc.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        self.allocs = self.frees = 0
        self.sizes = []
        lock = threading.Lock()

        @ctypes.CFUNCTYPE(
            ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_uint
        )
        def host_alloc(out, size, flags):
            with lock:
                self.allocs += 1
                self.sizes.append(size)
            out[0] = libc.malloc(size)
            return 0 if out[0] else 2

        @ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
        def host_free(pointer):
            with lock:
                self.frees += 1
            libc.free(pointer)
            return 0

        self.syncs = 0
        self.sync_error = 0

        @ctypes.CFUNCTYPE(ctypes.c_int)
        def device_sync():
            with lock:
                self.syncs += 1
            return self.sync_error

        self._keep = (host_alloc, host_free, device_sync)
        self.addresses = (
            ctypes.cast(host_alloc, ctypes.c_void_p).value,
            ctypes.cast(host_free, ctypes.c_void_p).value,
        )
        self.with_sync = self.addresses + (ctypes.cast(device_sync, ctypes.c_void_p).value,)


def test_pinned_buffers_come_from_the_host_allocator_and_are_reused(tmp_path, monkeypatch):
    import gc

    write_rows(tmp_path / "a.arrow", 0, 400, 50)
    fake = FakeHostAllocator()
    monkeypatch.setattr(qd, "_cuda_host_allocator", lambda: fake.addresses)
    reader = qd.BatchReader(tmp_path, batch_size=4, pin_memory=True, prefetch=2)
    assert reader.pin_memory
    for epoch in range(2):
        reader.set_epoch(epoch)
        seen = []
        for batch in reader:  # each batch dropped before the next: buffers go back to the ring
            seen += [int(i) for i in batch["id"]]
            r = int(batch["id"][0])
            np.testing.assert_array_equal(
                batch["img"][0][: image(r).shape[0], : image(r).shape[1]], image(r)
            )
        assert seen == list(range(400))
    # 200 batches of 4 arrays each (id, emb, img, img_shape) came from the
    # ring of (prefetch + 2) x 4 buffers, small ones included
    assert 0 < fake.allocs <= (2 + 2) * 4, fake.allocs
    del batch
    kept = next(iter(reader))  # a batch kept alive keeps its pinned memory
    del reader
    gc.collect()
    assert fake.frees < fake.allocs
    np.testing.assert_array_equal(kept["id"], [0, 1, 2, 3])
    del kept
    gc.collect()
    assert fake.frees == fake.allocs


def test_pinned_buffers_wait_for_the_device_before_reuse(tmp_path, monkeypatch):
    """A copy queued from a pinned batch may run after the batch is dropped,
    so the reader synchronizes the device before it writes a kept buffer
    again, and never for a fresh one."""
    write_rows(tmp_path / "a.arrow", 0, 400, 50)
    fake = FakeHostAllocator()
    monkeypatch.setattr(qd, "_cuda_host_allocator", lambda: fake.with_sync)
    reader = qd.BatchReader(tmp_path, batch_size=4, pin_memory=True, prefetch=0)
    batches = iter(reader)
    first = [next(batches) for _ in range(3)]  # all kept: each buffer is fresh
    assert fake.syncs == 0 and fake.allocs == 3 * 4
    del first
    seen = [int(i) for batch in batches for i in batch["id"]]
    assert seen == list(range(12, 400))
    # 97 more batches of 4 arrays, each array in a reused buffer
    assert fake.allocs == 3 * 4 and fake.syncs == 97 * 4, (fake.allocs, fake.syncs)


def test_exit_while_a_python_allocator_is_in_use(tmp_path):
    """Python ends a thread that calls into it during interpreter shutdown
    (here the prefetch thread calling a Python allocator) with pthread_exit;
    the process must exit normally, not abort in quiver's thread code."""
    import subprocess
    import sys
    import textwrap

    write_rows(tmp_path / "a.arrow", 0, 400, 10)
    script = tmp_path / "leave_running.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import quiver.data as qd
        from test_data_loader import FakeHostAllocator
        fake = FakeHostAllocator()
        qd._cuda_host_allocator = lambda: fake.with_sync
        reader = qd.BatchReader({str(tmp_path)!r}, batch_size=4, pin_memory=True, prefetch=3)
        batch = next(iter(reader))
        # exits with the reader still working ahead
    """)
    )
    for _ in range(3):
        run = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert "FATAL" not in run.stderr


def test_a_failing_device_sync_fails_the_batch(tmp_path, monkeypatch):
    write_rows(tmp_path / "a.arrow", 0, 40, 10)
    fake = FakeHostAllocator()
    fake.sync_error = 700  # cudaErrorIllegalAddress: the device is gone
    monkeypatch.setattr(qd, "_cuda_host_allocator", lambda: fake.with_sync)
    reader = qd.BatchReader(tmp_path, batch_size=4, pin_memory=True, prefetch=0)
    batches = iter(reader)
    next(batches)  # fresh buffers, dropped (the iterator holds the last batch until
    next(batches)  # the next one is read): the third batch reuses the first's
    with pytest.raises(
        OSError,
        match=r"cudaDeviceSynchronize failed \(error 700\) before a "
        r"pinned batch buffer was reused",
    ):
        next(batches)


def test_a_failing_host_allocator_fails_the_batch(dataset, monkeypatch):
    import ctypes

    @ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_uint)
    def refuse(out, size, flags):
        return 2  # cudaErrorMemoryAllocation

    free = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(lambda pointer: 0)
    addresses = (
        ctypes.cast(refuse, ctypes.c_void_p).value,
        ctypes.cast(free, ctypes.c_void_p).value,
    )
    monkeypatch.setattr(qd, "_cuda_host_allocator", lambda: addresses)
    reader = qd.BatchReader(dataset, batch_size=4, pin_memory=True)
    with pytest.raises(MemoryError, match="cudaHostAlloc of .* bytes failed .error 2"):
        next(iter(reader))


def test_bad_input(dataset, tmp_path):
    with pytest.raises(ValueError, match="batch_size must be > 0, got 0"):
        qd.BatchReader(dataset, batch_size=0)
    with pytest.raises(ValueError, match="batch_size must be > 0, got -2"):
        qd.BatchReader(dataset, batch_size=-2)
    with pytest.raises(TypeError, match="batch_size must be an int"):
        qd.BatchReader(dataset, batch_size=2.5)
    with pytest.raises(ValueError, match="no column named 'label'"):
        qd.BatchReader(dataset, batch_size=2, columns=["id", "label"])
    with pytest.raises(ValueError, match="ragged must be 'padded', 'jagged' or 'list'"):
        qd.BatchReader(dataset, batch_size=2, ragged="nested")
    with pytest.raises(ValueError, match="shuffle must be"):
        qd.BatchReader(dataset, batch_size=2, shuffle="rows")
    with pytest.raises(ValueError, match=r"shard rank must be in \[0, 2\), got 2"):
        qd.BatchReader(dataset, batch_size=2, shard=(2, 2))
    with pytest.raises(TypeError, match="shard must be"):
        qd.BatchReader(dataset, batch_size=2, shard=3)
    with pytest.raises(ValueError, match="bucket_window"):
        qd.BatchReader(dataset, batch_size=2, bucket_by="img")
    with pytest.raises(ValueError, match="not a variable_shape_tensor column"):
        qd.BatchReader(dataset, batch_size=2, bucket_by="id", bucket_window=2)
    with pytest.raises(OSError, match="no such file"):
        qd.BatchReader(tmp_path / "missing.arrow", batch_size=2)
    with pytest.raises(TypeError, match="source must be a path"):
        qd.BatchReader(42, batch_size=2)
    (tmp_path / "notes.arrow").write_text("not an Arrow file at all, just text")
    with pytest.raises(ValueError, match="notes.arrow is a text file .*not an Arrow IPC file"):
        qd.BatchReader(tmp_path / "notes.arrow", batch_size=2)


def test_different_schemas_name_the_file_and_column(tmp_path):
    write_rows(tmp_path / "a.arrow", 0, 4)
    three_d = pa.array(qv.VariableShapeTensorArray.from_numpy([np.zeros((1, 2, 2), np.uint8)]))
    batch = pa.record_batch(
        {
            "id": pa.array([9], pa.int64()),
            "emb": pa.array(qv.FixedShapeTensorArray.from_numpy(np.zeros((1, 2), np.float32))),
            "img": three_d,
        }
    )
    with pa.ipc.new_file(str(tmp_path / "b.arrow"), batch.schema) as writer:
        writer.write_batch(batch)
    with pytest.raises(
        ValueError,
        match=r"b.arrow: column 2 'img' has type "
        r"variable_shape_tensor<uint8, ndim=3>",
    ):
        qd.BatchReader(tmp_path, batch_size=2)


def test_a_truncated_file_is_an_error_naming_it(dataset, tmp_path):
    data = (dataset / "a.arrow").read_bytes()
    (tmp_path / "cut.arrow").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cut.arrow"):
        qd.BatchReader(tmp_path / "cut.arrow", batch_size=2)


def test_a_corrupt_record_batch_fails_the_batch_that_touches_it(tmp_path):
    # Shapes (7, 11) occur only in record batch 1; one of them is made to
    # claim more values than the row holds. Batch 0 still reads; batch 1
    # fails naming the file, the record batch, the column and the row.
    shapes = [(2, 3)] * 4 + [(7, 11)] * 4 + [(2, 3)] * 4
    rows = [np.full(shape, r, np.uint8) for r, shape in enumerate(shapes)]
    table = pa.table({"img": pa.array(qv.VariableShapeTensorArray.from_numpy(rows))})
    path = tmp_path / "c.arrow"
    with pa.ipc.new_file(str(path), table.schema) as writer:
        writer.write_table(table, max_chunksize=4)
    data = bytearray(path.read_bytes())
    at = data.find(np.array([7, 11], np.int32).tobytes())
    assert at > 0
    data[at : at + 4] = np.int32(1 << 30).tobytes()
    path.write_bytes(bytes(data))
    reader = qd.BatchReader(path, batch_size=4, prefetch=0)
    batches = iter(reader)
    np.testing.assert_array_equal(next(batches)["img"][0], rows[0])
    with pytest.raises(
        ValueError,
        match=r"c.arrow: record batch 1: column 0 \(img\): row 0: "
        r"data length 77 != product of shape \[1073741824, 11\]",
    ):
        next(batches)


def test_stubs_declare_the_module():
    tree = ast.parse(
        (pathlib.Path(__file__).resolve().parents[2] / "python" / "quiver" / "data.pyi").read_text()
    )
    declared = {
        node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))
    }
    assert set(qd.__all__) <= declared
    assert declared - set(qd.__all__) == {"TorchIterableDataset"}
    (reader_stub,) = [
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BatchReader"
    ]
    members = {n.name for n in reader_stub.body if isinstance(n, ast.FunctionDef)}
    public = {n for n in vars(qd.BatchReader) if not n.startswith("_")} | {"__iter__", "__len__"}
    assert public <= members | {"pin_memory"}


def test_batch_buffers_are_reused_once_released(tmp_path):
    rng = np.random.default_rng(1)
    imgs = [
        rng.integers(0, 256, size=(3, h, w), dtype=np.uint8)
        for h, w in rng.integers(60, 64, size=(64, 2))
    ]
    batch = pa.record_batch({"img": pa.array(qv.VariableShapeTensorArray.from_numpy(imgs))})
    with pa.ipc.new_file(str(tmp_path / "r.arrow"), batch.schema) as writer:
        writer.write_batch(batch)
    reader = qd.BatchReader(tmp_path, batch_size=8, prefetch=2)
    addresses = set()
    for epoch in range(3):
        reader.set_epoch(epoch)
        for b in reader:  # each batch let go before the next is asked for
            addresses.add(b["img"].ctypes.data)
    # 24 batches came out of a handful of buffers (the ring: prefetch + 2).
    assert len(addresses) <= 6
    held = list(reader)  # held batches are never overwritten: new buffers instead
    assert len({b["img"].ctypes.data for b in held}) == len(held)
    for b, expected in zip(held, [imgs[i : i + 8] for i in range(0, 64, 8)]):
        for row, img in zip(b["img"], expected):
            np.testing.assert_array_equal(row[:, : img.shape[1], : img.shape[2]], img)
