"""The installed binary wheel's `quiver` command (run by
tests/packaging/test_wheel.sh, where the system's libzstd, liblz4 and libcurl
are hidden): the `quiver` in the venv's scripts folder is the compiled
executable itself, not a Python script, and it needs nothing outside the
wheel: the codecs are in it, and URLs are read through the package's
libquiver_curl.so, found from the scripts folder."""

import os
import pathlib
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import quiver as qv

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))

SCRIPTS = pathlib.Path(sysconfig.get_path("scripts"))
QUIVER = SCRIPTS / "quiver"
CODECS = ["lz4", "zstd"]


def run(*args, env=None):
    # QUIVER_CURL_MODULE unset: the executable must find the module itself.
    base = {k: v for k, v in os.environ.items() if k != "QUIVER_CURL_MODULE"}
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, **(env or {})},
    )


def test_quiver_on_path_is_the_executable_itself():
    with open(QUIVER, "rb") as f:
        assert f.read(4) == b"\x7fELF", f"{QUIVER} is not an ELF executable (a Python launcher?)"
    assert os.access(QUIVER, os.X_OK)
    assert qv.build_info()["cli"] == str(QUIVER)
    # It needs no library of the wheel's (auditwheel would have put it behind
    # a Python launcher): the codecs are linked in, libcurl comes on demand.
    out = subprocess.run(["ldd", str(QUIVER)], capture_output=True, text=True, check=True).stdout
    assert "not found" not in out, out
    for library in ("zstd", "lz4", "curl", "quiver_tensors.libs"):
        assert library not in out, out


def test_version_and_python_m_quiver():
    version = run(QUIVER, "--version")
    assert version.returncode == 0 and version.stdout == f"quiver {qv.__version__}\n"
    fallback = run(sys.executable, "-m", "quiver", "--version")
    assert fallback.returncode == 0 and fallback.stdout == version.stdout, fallback.stderr


def sample_table():
    import pyarrow as pa

    images = np.arange(64 * 4 * 6, dtype=np.float32).reshape(64, 4, 6)
    col = qv.FixedShapeTensorArray.from_numpy(images)
    return pa.table({"image": pa.array(col), "id": np.arange(64, dtype=np.int64)})


@pytest.mark.parametrize("codec", [None, *CODECS])
def test_inspect_validate_head_of_local_files(tmp_path, codec):
    path = tmp_path / f"{codec}.arrow"
    qv.ipc.write_file(sample_table(), str(path), compression=codec)
    inspect = run(QUIVER, "inspect", path)
    assert inspect.returncode == 0, inspect.stderr
    assert "fixed_shape_tensor<float32>[4, 6]" in inspect.stdout
    assert (codec or "uncompressed") in inspect.stdout.lower()
    # validate and head decompress the values: the codecs linked in work.
    validate = run(QUIVER, "validate", path)
    assert validate.returncode == 0 and "OK" in validate.stdout, validate.stderr
    head = run(QUIVER, "head", path, "-n", "1", "--column", "id")
    assert head.returncode == 0 and "0" in head.stdout, head.stderr


@pytest.fixture(scope="module")
def nginx(tmp_path_factory):
    import remote_servers as servers
    from remote_samples import write_samples

    missing = servers.nginx_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("www")
    _, names = write_samples(root)
    with servers.Nginx(root, tmp_path_factory.mktemp("nginx")) as server:
        server.names = names
        yield server


@pytest.mark.parametrize("codec", [None, *CODECS])
def test_remote_reads_through_the_packages_curl_module(nginx, codec):
    url = f"{nginx.url}/{nginx.names[(codec, 'file')]}"
    for command in ("inspect", "validate", "head"):
        r = run(QUIVER, command, url)
        assert r.returncode == 0, (command, r.stderr)
        assert r.stdout
    # The module the executable opened: the package's, beside its extension.
    module = pathlib.Path(qv.__file__).resolve().parent / "libquiver_curl.so"
    trace = run(QUIVER, "inspect", url, env={"LD_DEBUG": "files"})
    opened = [
        line.split("file=")[1].split()[0]
        for line in trace.stderr.splitlines()
        if "file=" in line and "libquiver_curl.so" in line and "dynamically loaded" in line
    ]
    assert opened and pathlib.Path(opened[0]).resolve() == module, trace.stderr[-2000:]


def test_a_missing_curl_module_says_what_was_tried(nginx):
    url = f"{nginx.url}/{nginx.names[(None, 'file')]}"
    r = run(QUIVER, "inspect", url, env={"QUIVER_CURL_MODULE": "/no/such/libquiver_curl.so"})
    if os.environ.get("QUIVER_SYSTEM_CODECS_HIDDEN") == "1":
        # Neither the named module nor the system's libcurl: a clear error.
        assert r.returncode != 0
        assert "QUIVER_CURL_MODULE" in r.stderr and "/no/such/libquiver_curl.so" in r.stderr
    else:
        assert r.returncode == 0, r.stderr  # the system's libcurl.so.4
