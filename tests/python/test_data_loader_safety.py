"""quiver.data in a real training job: a BatchReader used before a fork
works in the child (iterate, set_epoch, delete, exit), torch DataLoader
workers (fork and spawn) over a dataset whose reader the parent iterated
first, memory_map=False surviving a truncated file, max_batch_bytes,
integer arguments out of range, close() and pickling.

Each fork scenario runs as a script of its own in a subprocess with a
timeout: a hang fails the test instead of stalling the suite."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
import quiver.data as qd

ROWS = 50


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    """ROWS rows in 5 record batches: id, and img (ragged)."""
    path = tmp_path_factory.mktemp("safety") / "rows.arrow"
    images = [np.full((1 + r % 3, 2 + r % 2), r, dtype=np.int32) for r in range(ROWS)]
    table = pa.table(
        {
            "id": pa.array(np.arange(ROWS)),
            "img": pa.array(qv.VariableShapeTensorArray.from_numpy(images)),
        }
    )
    with pa.ipc.new_file(path, table.schema) as writer:
        writer.write_table(table, max_chunksize=10)
    return str(path)


def run_script(body, timeout=120, **env):
    """Runs `body` in a fresh interpreter; returns its stdout. A hang past
    `timeout` seconds, a signal or a non-zero exit fails the test."""
    code = textwrap.dedent(body)
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **env},
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the script hung (killed after {timeout} s); output so far: {e.stdout!r}")
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


FORK_SCRIPT = """
import os, sys
import numpy as np
import quiver.data as qd

reader = qd.BatchReader({path!r}, batch_size=4, shuffle=True, seed=3, prefetch=3,
                        memory_map={memory_map})
it = iter(reader)
next(it)  # the prefetch thread is running and has batches ready
pid = os.fork()
if pid == 0:
    action = {action!r}
    if action == "iterate":
        ids = np.concatenate([b["id"] for b in reader])
        ok = sorted(ids.tolist()) == list(range({rows}))
    elif action == "set_epoch":
        reader.set_epoch(1)
        ids = np.concatenate([b["id"] for b in reader])
        ok = sorted(ids.tolist()) == list(range({rows}))
    elif action == "delete":
        del reader, it
        ok = True
    else:  # exit with the reader alive: the interpreter's teardown destroys it
        ok = True
    sys.stdout.flush()
    # A normal exit, so that Python tears down the reader as it would.
    sys.exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
# The parent's epoch goes on as before.
rest = np.concatenate([b["id"] for b in it])
assert len(rest) == {rows} - 4, len(rest)
print("ok")
"""


@pytest.mark.parametrize("memory_map", [True, False])
@pytest.mark.parametrize("action", ["iterate", "set_epoch", "delete", "exit"])
def test_a_reader_iterated_before_fork_works_in_the_child(data_file, action, memory_map):
    out = run_script(
        FORK_SCRIPT.format(path=data_file, action=action, rows=ROWS, memory_map=memory_map),
        timeout=60,
    )
    assert out.strip() == "ok"


DATALOADER_SCRIPT = """
import sys
import numpy as np
import torch.utils.data
import quiver.data as qd


class Batches(torch.utils.data.Dataset):
    # Map-style: batch i of the reader's epoch, whatever process asks.
    def __init__(self, reader):
        self.reader = reader

    def __len__(self):
        return len(self.reader)

    def __getitem__(self, i):
        return self.reader.read_batch(i)


def epoch_ids(loader):
    return sorted(np.concatenate([b["id"].numpy() for b in loader]).tolist())


if __name__ == "__main__":
    context = {context!r}
    reader = qd.BatchReader({path!r}, batch_size=4, shuffle=True, seed=1, prefetch=2)
    next(iter(reader))  # the parent peeks first: its prefetch thread runs
    loader = torch.utils.data.DataLoader(Batches(reader), batch_size=None, num_workers=2,
                                         multiprocessing_context=context)
    for epoch in range(2):
        reader.set_epoch(epoch)
        assert epoch_ids(loader) == list(range({rows})), epoch

    # The iterable dataset of quiver.data, iterated in the parent first.
    ds = qd.TorchIterableDataset({path!r}, batch_size=4, shuffle=True)
    next(iter(ds))
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2,
                                         multiprocessing_context=context)
    for epoch in range(2):
        ds.set_epoch(epoch)
        assert epoch_ids(loader) == list(range({rows})), epoch
    print("ok")
"""


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_dataloader_workers_over_a_reader_the_parent_iterated(data_file, context, tmp_path):
    pytest.importorskip("torch", reason="torch is not installed")
    script = tmp_path / "loader_job.py"
    script.write_text(DATALOADER_SCRIPT.format(context=context, path=data_file, rows=ROWS))
    try:
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=240
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the DataLoader ({context}) hung")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_unmapped_reader_reads_what_the_mapped_one_reads(data_file):
    for shuffle in (False, True, "window"):
        mapped = qd.BatchReader(data_file, batch_size=7, shuffle=shuffle, seed=5)
        unmapped = qd.BatchReader(
            data_file, batch_size=7, shuffle=shuffle, seed=5, memory_map=False
        )
        for a, b in zip(mapped, unmapped, strict=True):
            assert a.keys() == b.keys()
            for name in a:
                np.testing.assert_array_equal(a[name], b[name])


TRUNCATE_SCRIPT = """
import os
import quiver.data as qd

path = {path!r}
reader = qd.BatchReader(path, batch_size=10, prefetch={prefetch}, memory_map=False)
size = os.path.getsize(path)
os.truncate(path, size // 3)
try:
    for batch in reader:
        pass
    print("no error")
except OSError as e:
    assert path in str(e), e
    print("OSError")
# The next epoch, after the file shrank further: an error or the rows
# already read, never a signal.
os.truncate(path, 0)
reader.set_epoch(1)
try:
    for batch in reader:
        pass
except OSError as e:
    assert path in str(e), e
print("alive")
"""


@pytest.mark.parametrize("prefetch", [0, 2])
def test_unmapped_reader_survives_a_truncated_file(data_file, tmp_path, prefetch):
    path = tmp_path / "victim.arrow"
    path.write_bytes(open(data_file, "rb").read())
    out = run_script(TRUNCATE_SCRIPT.format(path=str(path), prefetch=prefetch))
    assert out.split() == ["OSError", "alive"]


def test_max_batch_bytes_refuses_a_huge_padded_batch(tmp_path):
    # Two rows whose common padded shape is (20000, 20000): 3.2 GB of
    # float64 from a file of 320 KB.
    rows = [np.zeros((1, 20000)), np.zeros((20000, 1))]
    path = tmp_path / "wide_tall.arrow"
    table = pa.table({"x": pa.array(qv.VariableShapeTensorArray.from_numpy(rows))})
    with pa.ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    reader = qd.BatchReader(str(path), batch_size=2)  # the default cap: 4 GiB
    with pytest.raises(ValueError) as e:
        next(iter(reader))
    message = str(e.value)
    assert "padding 2 rows to their largest extents [2, 20000, 20000]" in message
    assert "row 0 has shape [1, 20000]" in message and "row 1 has shape [20000, 1]" in message
    assert "max_batch_bytes (4294967296)" in message
    assert "bucket_by=" in message and "ragged='jagged'" in message
    small = qd.BatchReader(str(path), batch_size=2, max_batch_bytes=10**6)
    with pytest.raises(ValueError, match="max_batch_bytes \\(1000000\\)"):
        small.read_batch(0)
    jagged = next(iter(qd.BatchReader(str(path), batch_size=2, ragged="jagged")))
    assert jagged["x"].shape == (40000,)
    with pytest.raises(ValueError, match="max_batch_bytes must be > 0, got 0"):
        qd.BatchReader(str(path), batch_size=2, max_batch_bytes=0)


def test_len_with_a_batch_size_near_two_to_the_63(data_file):
    reader = qd.BatchReader(data_file, batch_size=2**63 - 1)
    assert len(reader) == 1
    assert [len(b["id"]) for b in reader] == [ROWS]
    assert len(qd.BatchReader(data_file, batch_size=2**63 - 1, drop_last=True)) == 0


@pytest.mark.parametrize(
    "argument, value, message",
    [
        ("batch_size", 2**63, "batch_size must be <= 9223372036854775807, got 9223372036854775808"),
        ("prefetch", 2**31, "prefetch must be <= 2147483647"),
        ("prefetch", -1, "prefetch must be >= 0, got -1"),
        ("num_threads", 2**40, "num_threads must be <= 2147483647"),
        ("seed", 2**64, "seed must be <= 18446744073709551615"),
        ("seed", -1, "seed must be >= 0, got -1"),
        ("window_rows", 2**64, "window_rows must be <= 9223372036854775807"),
        ("shard", (0, 2**40), "shard world_size must be <= 2147483647"),
        ("max_batch_bytes", 2**63, "max_batch_bytes must be <= 9223372036854775807"),
    ],
)
def test_arguments_out_of_range_name_the_argument(data_file, argument, value, message):
    with pytest.raises(ValueError) as e:
        qd.BatchReader(data_file, **{"batch_size": 4, argument: value})
    assert message in str(e.value)


def test_epoch_and_batch_index_out_of_range(data_file):
    reader = qd.BatchReader(data_file, batch_size=4)
    with pytest.raises(ValueError, match="epoch must be <= 9223372036854775807"):
        reader.set_epoch(2**63)
    with pytest.raises(ValueError, match="epoch must be >= 0, got -1"):
        reader.set_epoch(-1)
    with pytest.raises(IndexError, match="batch 13 is out of range for 13 batches"):
        reader.read_batch(13)
    with pytest.raises(IndexError, match="batch -1 is out of range"):
        reader.read_batch(-1)
    with pytest.raises(ValueError, match="i must be <= 9223372036854775807"):
        reader.read_batch(2**64)


def test_close_and_the_context_manager(data_file):
    with qd.BatchReader(data_file, batch_size=4) as reader:
        batch = next(iter(reader))
    assert reader.closed
    reader.close()  # idempotent
    assert "closed" in repr(reader)
    assert batch["id"].tolist() == [0, 1, 2, 3]  # arrays outlive the reader
    for use in (
        lambda: next(iter(reader)),
        lambda: reader.read_batch(0),
        lambda: len(reader),
        lambda: reader.set_epoch(1),
        lambda: reader.num_rows,
    ):
        with pytest.raises(ValueError, match="the BatchReader is closed"):
            use()


def test_pickles_with_its_arguments_and_epoch(data_file):
    reader = qd.BatchReader(data_file, batch_size=6, shuffle=True, seed=9, memory_map=False)
    reader.set_epoch(3)
    copy = pickle.loads(pickle.dumps(reader))
    assert copy.epoch == 3 and len(copy) == len(reader)
    for a, b in zip(reader, copy, strict=True):
        np.testing.assert_array_equal(a["id"], b["id"])
