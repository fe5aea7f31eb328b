"""quiver with a real CUDA device: pinned batch memory that PyTorch sees as
page-locked and copies asynchronously, and device tensors from PyTorch,
CuPy and JAX that pass through quiver by DLPack without a copy and are
never read on the host. Every test is skipped on a machine without a
CUDA device (the CPU-only checks of the same paths live in
test_data_loader.py, test_c_device.py and test_dlpack.py)."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
import quiver.data as qd

torch = pytest.importorskip("torch", reason="the CUDA tests need torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device on this machine", allow_module_level=True)
# torch.Tensor.is_pinned() answers False for any memory until torch has set
# up CUDA in the process (a training step has, by its first copy).
torch.cuda.init()

CUDA = 2  # kDLCUDA


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """64 rows: id, emb (fixed (3,) float32) and img (ragged uint8)."""
    path = tmp_path_factory.mktemp("cuda_data") / "rows.arrow"
    rows = range(64)
    batch = pa.record_batch(
        {
            "id": pa.array(list(rows), pa.int64()),
            "emb": pa.array(
                qv.FixedShapeTensorArray.from_numpy(
                    np.array([[r, r + 0.5, -r] for r in rows], dtype=np.float32)
                )
            ),
            "img": pa.array(
                qv.VariableShapeTensorArray.from_numpy(
                    [np.full((1 + r % 3, 2), r, dtype=np.uint8) for r in rows]
                )
            ),
        }
    )
    with pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_file(sink, batch.schema) as writer:
            writer.write_batch(batch)
    return path


def test_the_cuda_runtime_is_found(dataset):
    assert qd._cuda_host_allocator() is not None
    assert qd.BatchReader(dataset, batch_size=8, pin_memory=True).pin_memory


@pytest.mark.parametrize("ragged", ["padded", "jagged"])
def test_pinned_batches_are_page_locked_and_copy_to_the_gpu(dataset, ragged):
    plain = list(qd.BatchReader(dataset, batch_size=8, ragged=ragged, shuffle=True, seed=3))
    pinned = qd.BatchReader(
        dataset, batch_size=8, ragged=ragged, shuffle=True, seed=3, pin_memory=True, prefetch=3
    )
    stream = torch.cuda.Stream()
    count = 0
    for expected, batch in zip(plain, pinned.to_torch()):
        assert set(batch) == set(expected)
        for name, host in batch.items():
            assert host.is_pinned(), f"{name} is not in page-locked memory"
            with torch.cuda.stream(stream):
                device = host.to("cuda", non_blocking=True)
            stream.synchronize()
            np.testing.assert_array_equal(device.cpu().numpy(), expected[name], err_msg=name)
        count += 1
    assert count == len(plain) == 8


def test_a_pinned_batch_kept_alive_keeps_its_values(dataset):
    """The ring reuses a buffer only once no batch holds it: a batch kept
    across many later batches still has its own rows."""
    reader = qd.BatchReader(dataset, batch_size=4, pin_memory=True, prefetch=2)
    batches = iter(reader)
    kept = next(batches)
    ids = kept["id"].copy()
    for _ in batches:
        pass
    np.testing.assert_array_equal(kept["id"], ids)
    assert torch.from_numpy(kept["id"]).is_pinned()


@pytest.mark.parametrize("prefetch", [0, 2])
def test_a_copy_queued_behind_gpu_work_reads_its_own_batch(dataset, prefetch):
    """`.to("cuda", non_blocking=True)` only queues the copy; here it waits
    behind ~30 ms of GPU work while the batch is dropped and the reader
    moves on. The reader must not write the batch's pinned buffer again
    before the copy ran."""
    expected = [b["emb"].copy() for b in qd.BatchReader(dataset, batch_size=8)]
    reader = qd.BatchReader(dataset, batch_size=8, pin_memory=True, prefetch=prefetch)
    copies = []
    for batch in reader.to_torch():
        torch.cuda._sleep(50_000_000)  # GPU cycles queued ahead of the copy
        copies.append(batch["emb"].to("cuda", non_blocking=True))
    torch.cuda.synchronize()
    assert len(copies) == len(expected) == 8
    for i, (got, want) in enumerate(zip(copies, expected)):
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"batch {i}")


def test_torch_data_loader_with_pin_memory(dataset):
    dataset_ = qd.TorchIterableDataset(dataset, batch_size=8, shuffle=True, seed=1)
    loader = torch.utils.data.DataLoader(dataset_, batch_size=None, num_workers=2, pin_memory=True)
    seen = []
    for batch in loader:
        assert batch["id"].is_pinned()
        seen += batch["id"].to("cuda").tolist()
    assert sorted(seen) == list(range(64))


def device_array(producer):
    """A (2, 3, 4) float32 array of 0..23 on the GPU, made by `producer`
    (imported here, not at collection: JAX and CuPy set up the device when
    they start)."""
    if producer == "torch":
        return torch.arange(24, dtype=torch.float32, device="cuda").reshape(2, 3, 4)
    if producer == "cupy":
        cupy = pytest.importorskip("cupy")
        return cupy.arange(24, dtype=cupy.float32).reshape(2, 3, 4)
    jax = pytest.importorskip("jax")
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        pytest.skip("JAX has no GPU backend here")
    return jax.device_put(jax.numpy.arange(24, dtype=jax.numpy.float32).reshape(2, 3, 4), gpus[0])


@pytest.mark.parametrize("producer", ["torch", "cupy", "jax"])
def test_a_device_tensor_passes_through_without_a_copy(producer):
    x = device_array(producer)
    t = qv.from_dlpack(x)
    assert t.device[0] == CUDA
    assert t.shape == (2, 3, 4)
    back = torch.from_dlpack(t)
    assert back.is_cuda
    assert back.data_ptr() == torch.from_dlpack(x).data_ptr()
    np.testing.assert_array_equal(
        back.cpu().numpy(), np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    )


@pytest.mark.parametrize("producer", ["torch", "cupy", "jax"])
def test_device_memory_is_never_read_on_the_host(producer):
    t = qv.from_dlpack(device_array(producer))
    with pytest.raises(NotImplementedError, match="CUDA"):
        t.to_numpy()
    with pytest.raises(BufferError, match="CPU only"):
        qv.from_dlpack(device_array(producer), device=(CUDA, 0))


def test_a_device_tensor_outlives_its_producer():
    x = torch.arange(24, dtype=torch.float32, device="cuda").reshape(2, 3, 4)
    t = qv.from_dlpack(x)
    del x
    torch.cuda.empty_cache()
    filler = torch.full((1 << 20,), 7.0, device="cuda")  # would reuse freed memory
    back = torch.from_dlpack(t)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(
        back.cpu().numpy(), np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    )
    del filler
