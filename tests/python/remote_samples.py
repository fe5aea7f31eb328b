"""Sample data and helpers shared by the remote tests (test_remote_sources,
test_dataset_remote): the IPC files and streams the servers serve, fast
remote options, a bound on how long a call may take, and environment
variables set for a block."""

import contextlib
import os
import threading

import numpy as np
import pyarrow as pa

import quiver as qv

CODECS = [None] + qv.ipc.codecs()
FAST = {"timeout_seconds": 1, "max_retries": 3, "retry_delay_seconds": 0.01}


def bounded(seconds, fn, *args, **kwargs):
    """fn(*args) on a thread, which must end within `seconds` (nothing may
    hang); its result, or its exception raised here."""
    out = {}

    def run():
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn.__name__} still running after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


@contextlib.contextmanager
def environment(variables):
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def sample_table(rows=40):
    images = np.arange(rows * 4 * 3, dtype=np.float32).reshape(rows, 4, 3)
    ragged = [np.full((2, i % 7 + 1), i, np.int16) for i in range(rows)]
    return pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "image": pa.array(qv.FixedShapeTensorArray.from_numpy(images)),
            "ragged": pa.array(qv.VariableShapeTensorArray.from_numpy(ragged)),
            "label": pa.array([f"row {i}" * (i % 5) for i in range(rows)]),
        }
    )


def write_samples(root):
    """blob.bin (300 kB of random bytes) and an IPC file and stream per codec
    under `root`; their names."""
    blob = np.random.default_rng(0).bytes(300_000)
    (root / "blob.bin").write_bytes(blob)
    table = sample_table()
    names = {}
    for codec in CODECS:
        tag = codec or "plain"
        batches = table.to_batches(max_chunksize=7)
        for kind, write in [("file", qv.ipc.write_file), ("stream", qv.ipc.write_stream)]:
            name = f"data/{tag}.{'arrow' if kind == 'file' else 'arrows'}"
            (root / "data").mkdir(exist_ok=True)
            write(pa.Table.from_batches(batches), str(root / name), compression=codec)
            names[(codec, kind)] = name
    return blob, names
