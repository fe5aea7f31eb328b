"""Run by tests/packaging/test_sdist.sh in the venv where the sdist was built
without ZSTD and LZ4 (and without pyarrow installed): the package imports
from the venv, round-trips uncompressed IPC, and refuses compressed IPC,
writing and reading, with the error that says how to get the codecs.

argv: the venv, and the folder holding plain.arrow, lz4.arrow and
zstd.arrow (written by pyarrow outside); writes roundtrip.arrow there."""

import os
import pathlib
import sys
import tempfile

import numpy as np

import quiver as qv

venv, work = map(pathlib.Path, sys.argv[1:3])
where = pathlib.Path(qv.__file__).resolve()
assert venv.resolve() in where.parents, f"quiver imported from {where}, not the venv"
assert qv.ipc.codecs() == [], qv.ipc.codecs()
info = qv.build_info()
assert set(info) == {"version", "codecs", "cli", "curl"}, info
assert info["version"] == qv.__version__ and info["codecs"] == [], info
# The command is built where CLI11 is found, remote sources where libcurl is
# (neither is hidden here); either way build_info says which.
assert info["cli"] is None or os.access(info["cli"], os.X_OK), info
assert info["curl"] is None or isinstance(info["curl"], str), info

# Uncompressed IPC both ways: a record batch file and the Tensor message.
batch = qv.ipc.open_file(str(work / "plain.arrow")).get_batch(0)
out = work / "roundtrip.arrow"
qv.ipc.write_file(batch, str(out))
again = qv.ipc.open_file(str(out)).get_batch(0)
assert again.equals(batch) and again.num_rows == batch.num_rows > 0
images = np.arange(5 * 3 * 4, dtype=np.float32).reshape(5, 3, 4)
with tempfile.TemporaryDirectory() as tmp:
    qv.ipc.write_tensor(qv.Tensor.from_numpy(images), f"{tmp}/t.arrow")
    assert np.array_equal(qv.ipc.read_tensor(f"{tmp}/t.arrow").to_numpy(), images)

    # Compressed IPC: the clear error, before anything is written, and on read.
    for codec, package in (("lz4", "liblz4-dev"), ("zstd", "libzstd-dev")):
        target = pathlib.Path(f"{tmp}/{codec}.arrow")
        for what, action in (
            ("write", lambda: qv.ipc.write_file(batch, str(target), compression=codec)),
            ("read", lambda: qv.ipc.open_file(str(work / f"{codec}.arrow")).get_batch(0)),
        ):
            try:
                action()
            except NotImplementedError as e:
                message = str(e)
            else:
                raise AssertionError(f"{what} with {codec} did not fail in a build without it")
            for needed in (
                "no " + ("LZ4_FRAME" if codec == "lz4" else "ZSTD") + " codec",
                "make wheel",
                "dist/quiver_tensors-*.whl",
                package,
                "rebuild",
            ):
                assert needed in message, f"{what} {codec}: {needed!r} not in {message!r}"
            print(f"sdist_check: {what} {codec}: NotImplementedError: {message}")
        assert not target.exists() or target.stat().st_size == 0, "the refused writer wrote bytes"
print(
    f"sdist_check: quiver {qv.__version__} from {where.parent}: uncompressed IPC round-trips, "
    "compressed IPC refused with the codec's install hint"
)
