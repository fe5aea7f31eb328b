"""quiver.data with PyTorch: to_torch shares the batch's memory, jagged
output builds a nested tensor without a copy, and TorchIterableDataset in
a DataLoader with 2 workers (fork and spawn, persistent or not) reads
every row once per epoch, follows set_epoch, and splits ranks x workers
into disjoint shards."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
import quiver.data as qd

torch = pytest.importorskip("torch", reason="torch is not installed")

ROWS = 37


def image(r):
    return np.full((1 + r % 3, 2 + r % 4), r % 251, dtype=np.uint8)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """ROWS rows in two files: id, emb (fixed 2), img (ragged, every 6th null)."""
    folder = tmp_path_factory.mktemp("torch_data")
    for name, rows in (("a.arrow", range(0, 20)), ("b.arrow", range(20, ROWS))):
        batch = pa.record_batch(
            {
                "id": pa.array(list(rows), pa.int64()),
                "emb": pa.array(
                    qv.FixedShapeTensorArray.from_numpy(
                        np.array([[r, -r] for r in rows], dtype=np.float32)
                    )
                ),
                "img": pa.array(
                    qv.VariableShapeTensorArray.from_numpy(
                        [None if r % 6 == 5 else image(r) for r in rows]
                    )
                ),
            }
        )
        with pa.OSFile(str(folder / name), "wb") as sink:
            with pa.ipc.new_file(sink, batch.schema) as writer:
                writer.write_batch(batch)
    return folder


def test_to_torch_shares_the_batch_memory(dataset):
    batch = next(iter(qd.BatchReader(dataset, batch_size=8)))
    tensors = qd.to_torch(batch)
    assert set(tensors) == set(batch)
    for name, value in batch.items():
        assert isinstance(tensors[name], torch.Tensor)
        assert tensors[name].data_ptr() == value.ctypes.data, name
        np.testing.assert_array_equal(tensors[name].numpy(), value)
    assert tensors["img"].dtype == torch.uint8
    assert tuple(tensors["img"].shape) == batch["img"].shape


def test_reader_to_torch_lists_keep_null_rows(dataset):
    batches = list(qd.BatchReader(dataset, batch_size=10, ragged="list").to_torch())
    rows = [row for b in batches for row in b["img"]]
    assert len(rows) == ROWS
    for r, row in enumerate(rows):
        if r % 6 == 5:
            assert row is None
        else:
            np.testing.assert_array_equal(row.numpy(), image(r))


@pytest.mark.parametrize("workers", [0, 2])
def test_string_and_binary_columns_stay_python_lists_in_torch_batches(tmp_path, workers):
    words = [None if i % 5 == 3 else f"w{i}" for i in range(12)]
    blobs = [bytes([i]) * (i % 3) for i in range(12)]
    table = pa.table(
        {
            "text": pa.array(words, pa.string()),
            "blob": pa.array(blobs, pa.large_binary()),
            "tags": pa.array([[f"t{i}"] * (i % 2) for i in range(12)]),  # a to_pylist() column
            "score": pa.array(np.arange(12) * 0.5),
        }
    )
    path = tmp_path / "kinds.arrow"
    with pa.ipc.new_file(str(path), table.schema) as writer:
        writer.write_table(table, max_chunksize=5)
    batches = list(qd.BatchReader(path, batch_size=4).to_torch())
    assert [w for b in batches for w in b["text"]] == words
    assert [x for b in batches for x in b["blob"]] == blobs
    assert isinstance(batches[0]["score"], torch.Tensor)
    ds = qd.TorchIterableDataset(path, batch_size=4)
    loaded = list(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers))
    assert sorted(w for b in loaded for w in b["text"] if w is not None) == sorted(
        w for w in words if w is not None
    )
    assert all(isinstance(b["score"], torch.Tensor) for b in loaded)


def test_jagged_batch_makes_a_nested_tensor_without_a_copy(dataset):
    batch = next(iter(qd.BatchReader(dataset, batch_size=12, ragged="jagged")))
    values = torch.from_dlpack(batch["img"])
    offsets = torch.from_dlpack(batch["img_offsets"]).to(torch.int64)
    nested = torch.nested.nested_tensor_from_jagged(values, offsets)
    assert nested.values().data_ptr() == batch["img"].ctypes.data
    shapes = batch["img_shape"]
    for r, row in enumerate(nested.unbind()):
        expected = np.zeros((0,), np.uint8) if r % 6 == 5 else image(r).ravel()
        np.testing.assert_array_equal(row.numpy(), expected)
        if r % 6 != 5:
            assert tuple(shapes[r]) == image(r).shape


def epoch_ids(loader):
    return [int(i) for batch in loader for i in batch["id"]]


@pytest.mark.parametrize("context", ["fork", "spawn"])
@pytest.mark.parametrize("persistent", [False, True])
def test_dataloader_with_two_workers_follows_set_epoch(dataset, context, persistent):
    ds = qd.TorchIterableDataset(dataset, batch_size=4, shuffle=True, seed=3)
    loader = torch.utils.data.DataLoader(
        ds,
        batch_size=None,
        num_workers=2,
        multiprocessing_context=context,
        persistent_workers=persistent,
    )
    orders = []
    for epoch in (0, 1, 0):
        ds.set_epoch(epoch)
        orders.append(epoch_ids(loader))
        assert sorted(orders[-1]) == list(range(ROWS))
    assert orders[0] != orders[1], "set_epoch did not reach the workers"
    assert orders[0] == orders[2], "the same epoch must give the same order"


def test_batches_arrive_as_tensors_with_padded_images(dataset):
    ds = qd.TorchIterableDataset(dataset, batch_size=5, columns=["id", "img"], pad_value=7)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
    for batch in loader:
        assert set(batch) == {"id", "img", "img_shape"}
        for k, r in enumerate(batch["id"].tolist()):
            if r % 6 == 5:
                assert batch["img_shape"][k].tolist() == [0, 0]
                assert bool((batch["img"][k] == 7).all())
                continue
            h, w = image(r).shape
            np.testing.assert_array_equal(batch["img"][k, :h, :w].numpy(), image(r))
            assert bool((batch["img"][k, h:] == 7).all()) and bool(
                (batch["img"][k, :, w:] == 7).all()
            )


@pytest.mark.parametrize("drop_last", [False, True])
def test_ranks_times_workers_are_disjoint_and_cover_the_epoch(dataset, drop_last):
    per_rank = []
    for rank in range(2):
        ds = qd.TorchIterableDataset(
            dataset, batch_size=3, shuffle=True, seed=5, shard=(rank, 2), drop_last=drop_last
        )
        loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
        per_rank.append(epoch_ids(loader))
    first, second = (set(ids) for ids in per_rank)
    assert len(first) == len(per_rank[0]) and len(second) == len(per_rank[1])
    assert not first & second
    if drop_last:
        # each of the 4 shards (2 ranks x 2 workers) keeps whole batches only
        assert len(first | second) >= ROWS - 4 * 3
        assert all(len(ids) % 3 == 0 for ids in per_rank)
    else:
        assert first | second == set(range(ROWS))


def test_len_is_the_ranks_batch_count(dataset):
    ds = qd.TorchIterableDataset(dataset, batch_size=4, shard=(1, 2), drop_last=True)
    assert len(ds) == len(qd.BatchReader(dataset, batch_size=4, shard=(1, 2), drop_last=True))
    assert len(ds) == (ROWS // 2) // 4


def test_bad_options_fail_when_the_dataset_is_made(dataset):
    with pytest.raises(ValueError, match="batch_size"):
        qd.TorchIterableDataset(dataset, batch_size=0)
    with pytest.raises(ValueError, match="nope"):
        qd.TorchIterableDataset(dataset, batch_size=2, columns=["nope"])


def test_the_dataset_pickles_with_its_epoch(dataset):
    import pickle

    ds = qd.TorchIterableDataset(dataset, batch_size=4, shuffle=True)
    ds.set_epoch(4)
    copy = pickle.loads(pickle.dumps(ds))
    assert type(copy) is qd.TorchIterableDataset
    assert copy.epoch == 4 and len(copy) == len(ds)
    copy.set_epoch(9)
    assert ds.epoch == 4


def test_set_epoch_refuses_what_the_shared_int64_cannot_hold(dataset):
    ds = qd.TorchIterableDataset(dataset, batch_size=4)
    ds.set_epoch(3)
    for bad in (-1, 2**63, 2**64 + 5):
        with pytest.raises(ValueError, match=r"epoch must be in \[0, 2\^63 - 1\], got " + str(bad)):
            ds.set_epoch(bad)
    assert ds.epoch == 3
    with pytest.raises(TypeError, match="epoch must be an int"):
        ds.set_epoch(1.5)
    ds.set_epoch(2**63 - 1)
    assert ds.epoch == 2**63 - 1


@pytest.mark.parametrize("context", ["fork", "spawn"])
@pytest.mark.parametrize("persistent", [False, True])
def test_map_dataset_with_a_sampler_in_forked_and_spawned_workers(dataset, context, persistent):
    from torch.utils.data import BatchSampler, RandomSampler

    ds = qd.MapDataset(dataset, columns=["id", "img"], pad_value=7)
    ds[[0]]  # used in the parent before the workers start
    generator = torch.Generator().manual_seed(0)
    sampler = BatchSampler(RandomSampler(ds, generator=generator), batch_size=6, drop_last=False)
    loader = torch.utils.data.DataLoader(
        ds,
        batch_size=None,
        sampler=sampler,
        num_workers=2,
        multiprocessing_context=context,
        persistent_workers=persistent,
    )
    for _ in range(2):  # two epochs: persistent workers serve both
        ids = []
        for batch in loader:
            assert isinstance(batch["img"], torch.Tensor)
            for k, r in enumerate(batch["id"].tolist()):
                if r % 6 != 5:
                    h, w = image(r).shape
                    np.testing.assert_array_equal(batch["img"][k, :h, :w].numpy(), image(r))
            ids += batch["id"].tolist()
        assert sorted(ids) == list(range(ROWS))


@pytest.mark.parametrize("workers", [0, 2])
def test_stateful_dataloader_resumes_mid_epoch(dataset, workers):
    stateful = pytest.importorskip(
        "torchdata.stateful_dataloader", reason="torchdata is not installed"
    )

    def loader():
        ds = qd.TorchIterableDataset(dataset, batch_size=3, shuffle=True, seed=11)
        return stateful.StatefulDataLoader(ds, batch_size=None, num_workers=workers)

    first = loader()
    whole = epoch_ids(first)
    assert sorted(whole) == list(range(ROWS))
    first = loader()
    it = iter(first)
    before = [i for _ in range(4) for i in next(it)["id"].tolist()]
    state = first.state_dict()
    del it
    resumed = loader()
    resumed.load_state_dict(state)
    after = epoch_ids(resumed)
    assert sorted(before + after) == list(range(ROWS)), "every row once across the restart"
    assert before + after == whole or workers > 0  # one worker: the same order exactly
