"""The installed binary wheel's codecs (run by tests/packaging/test_wheel.sh,
where the system's libzstd and liblz4 are hidden): ZSTD and LZ4 come from
inside the wheel, and the files quiver writes with them are the ones
pyarrow reads, both ways."""

import ctypes
import os
import pathlib
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.ipc
import pytest

import quiver as qv
import quiver._quiver as core

CODECS = ["lz4", "zstd"]


def test_the_wheel_has_both_codecs():
    assert qv.ipc.codecs() == CODECS
    assert qv.build_info()["codecs"] == CODECS


@pytest.mark.skipif(
    os.environ.get("QUIVER_SYSTEM_CODECS_HIDDEN") != "1",
    reason="run by test_wheel.sh with the system libraries hidden",
)
@pytest.mark.parametrize("library", ["libzstd.so.1", "liblz4.so.1", "libcurl.so.4"])
def test_the_system_libraries_are_hidden(library):
    with pytest.raises(OSError):
        ctypes.CDLL(library)


def test_the_extension_loads_codecs_from_the_wheel_only():
    extension = pathlib.Path(core.__file__)
    site = extension.parent.parent
    out = subprocess.run(["ldd", str(extension)], capture_output=True, text=True, check=True).stdout
    assert "not found" not in out, out
    codec_lines = [line for line in out.splitlines() if "zstd" in line or "lz4" in line]
    assert len(codec_lines) == 2, out
    for line in codec_lines:
        path = pathlib.Path(line.split("=>")[1].split("(")[0].strip())
        assert site in path.parents, f"{line.strip()}: outside the wheel's files in {site}"


def sample_table():
    rng = np.random.default_rng(7)
    images = np.repeat(rng.integers(0, 4, (64, 4, 6), dtype=np.uint8), 8, axis=0)
    col = qv.FixedShapeTensorArray.from_numpy(images)
    ids = np.arange(len(images), dtype=np.int64) // 3
    return pa.table({"image": pa.array(col), "id": ids}), images


@pytest.mark.parametrize("codec", CODECS)
def test_quiver_writes_what_pyarrow_reads(tmp_path, codec):
    table, images = sample_table()
    path = tmp_path / f"{codec}.arrow"
    qv.ipc.write_file(table, str(path), compression=codec)
    plain = tmp_path / "plain.arrow"
    qv.ipc.write_file(table, str(plain))
    assert path.stat().st_size < plain.stat().st_size / 2  # really compressed
    back = pa.ipc.open_file(str(path)).read_all()
    assert back.equals(table)
    assert np.array_equal(back.column("image").combine_chunks().to_numpy_ndarray(), images)


@pytest.mark.parametrize("codec", CODECS)
def test_pyarrow_writes_what_quiver_reads(tmp_path, codec):
    table, images = sample_table()
    path = tmp_path / f"{codec}.arrow"
    options = pa.ipc.IpcWriteOptions(compression="lz4" if codec == "lz4" else "zstd")
    with pa.ipc.new_file(str(path), table.schema, options=options) as writer:
        writer.write_table(table)
    reader = qv.ipc.open_file(str(path))
    batch = reader.get_batch(0)
    assert np.array_equal(batch.column("image").to_numpy(), images)
    assert pa.table(reader).equals(table)


def test_libcurl_comes_from_the_wheel_and_only_on_first_use():
    """The extension links no libcurl; the wheel's libquiver_curl.so brings
    the wheel's own copy when a remote read (or build_info) first needs it,
    with the system's hidden too."""
    extension = pathlib.Path(core.__file__)
    site = extension.parent.parent
    out = subprocess.run(["ldd", str(extension)], capture_output=True, text=True, check=True).stdout
    assert "curl" not in out, out
    module = extension.parent / "libquiver_curl.so"
    out = subprocess.run(["ldd", str(module)], capture_output=True, text=True, check=True).stdout
    assert "not found" not in out, out
    curl_lines = [line for line in out.splitlines() if "libcurl" in line]
    assert len(curl_lines) == 1, out
    path = pathlib.Path(curl_lines[0].split("=>")[1].split("(")[0].strip())
    assert site in path.parents, f"{curl_lines[0].strip()}: outside the wheel's files"
    code = (
        "import quiver as qv\n"
        "maps = lambda: any('libcurl' in l for l in open('/proc/self/maps'))\n"
        "print(maps(), qv.build_info()['curl'] is not None, maps())\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert got == ["False", "True", "True"]
