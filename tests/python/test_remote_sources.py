"""Remote sources (http://, https://, s3://) against real servers on
127.0.0.1: nginx serving files (range requests), moto's S3 server with
signature checking switched on, and a fault-injecting proxy in front of
nginx (tests/python/remote_servers.py). Reads go through
quiver.ipc.open_file / open_stream with URLs, and through the internal
quiver._quiver._io_read / _io_expand helpers, which report the requests,
bytes and retries a source used. Every read that meets a fault either ends
with the right bytes or fails with a clean error within a bounded time."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
from quiver import _quiver

import remote_servers as servers
from remote_samples import CODECS, FAST, bounded, environment, write_samples

pytestmark = pytest.mark.skipif(
    qv.build_info()["curl"] is None, reason="this build of quiver has no libcurl"
)


def read_ipc(location, kind):
    reader = qv.ipc.open_file(location) if kind == "file" else qv.ipc.open_stream(location)
    return pa.table(reader.read_all())


# --- nginx --------------------------------------------------------------------


LOADED_CURL = "print(any('libcurl' in line for line in open('/proc/self/maps')))"


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc/self/maps")
def test_libcurl_is_loaded_by_the_first_remote_read_not_by_import(nginx):
    """import quiver maps no libcurl (nor the libraries it brings); the first
    remote read opens it, and then reads as before."""
    code = f"""
import quiver as qv
{LOADED_CURL}
ds = qv.dataset("{nginx.url}/{nginx.names[(None, "file")]}")
print(len(ds))
{LOADED_CURL}
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "40", "True"]


def test_open_sends_one_request_for_the_tail(nginx):
    url = f"{nginx.url}/blob.bin"
    info = _quiver._io_read(url, [])
    assert info["size"] == len(nginx.blob)
    assert info["name"] == f"'{url}'"
    assert info["requests"] == 1
    assert info["bytes_fetched"] == 64 << 10
    # The last bytes come from the tail kept at open: no second request.
    info = _quiver._io_read(url, [(len(nginx.blob) - 1000, 1000)])
    assert info["chunks"] == [nginx.blob[-1000:]]
    assert info["requests"] == 1


def test_reads_and_read_ahead(nginx):
    url = f"{nginx.url}/blob.bin"
    info = _quiver._io_read(url, [(10, 100)])
    assert info["chunks"] == [nginx.blob[10:110]]
    assert info["requests"] == 2  # the tail, then one read-ahead block
    assert info["bytes_fetched"] == (64 << 10) * 2
    info = _quiver._io_read(url, [(1000, 200_000)])
    assert info["chunks"] == [nginx.blob[1000:201_000]]


def test_read_ranges_coalesce_and_come_back_in_order(nginx):
    url = f"{nginx.url}/blob.bin"
    rng = np.random.default_rng(1)
    ranges = [
        (int(o), int(n)) for o, n in zip(rng.integers(0, 200_000, 40), rng.integers(0, 5000, 40))
    ]
    options = {"coalesce_gap": 1000, "parallel_requests": 4}
    info = _quiver._io_read(url, ranges, options)
    assert info["chunks"] == [nginx.blob[o : o + n] for o, n in ranges]
    assert 1 < info["requests"] <= 1 + len(ranges)
    # One gap wide enough for everything: the tail, then one request.
    info = _quiver._io_read(url, ranges, {"coalesce_gap": 1 << 20})
    assert info["requests"] == 2


def test_parallel_ranges_share_a_few_kept_connections(nginx):
    """Ranges too far apart to merge go out in parallel (more than one
    connection at a time) over connections the process keeps: three calls
    of 40 ranges use a handful of connections, each carrying many requests,
    not one connection per request."""
    (nginx.root / "pooled.bin").write_bytes(nginx.blob)
    ranges = [(i * 7000, 1000) for i in range(40)]
    options = {"coalesce_gap": 0, "parallel_requests": 4}
    for _ in range(3):
        info = _quiver._io_read(f"{nginx.url}/pooled.bin", ranges, options)
        assert info["chunks"] == [nginx.blob[o : o + n] for o, n in ranges]
    requests = nginx.requests_for("/pooled.bin")
    # The tail at open, then the ranges it does not hold, one request each.
    assert 3 * 30 <= len(requests) <= 3 * (1 + len(ranges))
    connections = {connection for connection, _ in requests}
    assert 2 <= len(connections) <= 8, requests
    assert max(serial for _, serial in requests) >= 10


def test_missing_object_names_the_url_and_status(nginx):
    url = f"{nginx.url}/missing.arrow"
    with pytest.raises(OSError, match=re.escape(f"{url}: HTTP 404 Not Found")):
        qv.ipc.open_file(url)
    with pytest.raises(OSError, match="past the end"):
        _quiver._io_read(f"{nginx.url}/blob.bin", [(len(nginx.blob) - 5, 10)])


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("kind", ["file", "stream"])
def test_ipc_over_http_equals_the_local_read(nginx, codec, kind):
    name = nginx.names[(codec, kind)]
    local = read_ipc(str(nginx.root / name), kind)
    remote = read_ipc(f"{nginx.url}/{name}", kind)
    assert remote.equals(local)
    assert remote.num_rows == 40
    assert remote.schema.field("image").type.extension_name == "arrow.fixed_shape_tensor"
    assert remote.schema.field("ragged").type.extension_name == "arrow.variable_shape_tensor"


def test_file_reader_over_http_reads_batches_lazily(nginx):
    name = nginx.names[(None, "file")]
    reader = qv.ipc.open_file(f"{nginx.url}/{name}")
    assert reader.num_record_batches == 6
    assert pa.record_batch(reader[5]).num_rows == 5


# --- faults -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["drop", "503", "truncate", "wrong_range", "slow"])
@pytest.mark.parametrize("after", [0, 1])  # the request at open, or a read after it
def test_a_fault_is_retried_to_the_right_bytes(nginx, mode, after):
    with servers.FaultProxy(nginx.port, mode, faults=1, after=after, delay=3) as proxy:
        url = f"{proxy.url}/blob.bin"
        start = time.monotonic()
        info = bounded(20, _quiver._io_read, url, [(5000, 100_000)], FAST)
        assert info["chunks"] == [nginx.blob[5000:105_000]]
        assert info["retries"] == 1
        assert info["requests"] == proxy.requests == 3
        assert time.monotonic() - start < 10


@pytest.mark.parametrize("mode", ["drop", "503", "truncate", "wrong_range", "slow"])
def test_a_lasting_fault_fails_cleanly_in_bounded_time(nginx, mode):
    with servers.FaultProxy(nginx.port, mode, faults=1000, after=1, delay=2.5) as proxy:
        url = f"{proxy.url}/blob.bin"
        options = dict(FAST, max_retries=2)
        with pytest.raises(OSError) as error:
            bounded(30, _quiver._io_read, url, [(5000, 100_000)], options)
        message = str(error.value)
        assert message.startswith(f"{url}: "), message
        assert "(after 2 retries)" in message
        assert proxy.requests == 1 + 3


def test_unreachable_server_fails_fast():
    url = f"http://127.0.0.1:{servers.free_port()}/x.arrow"
    with pytest.raises(OSError, match=re.escape(url)):
        bounded(10, _quiver._io_read, url, [], FAST)


# --- S3 (moto) ----------------------------------------------------------------


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    missing = servers.moto_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("s3")
    blob, names = write_samples(root)
    with servers.MotoS3() as server:
        server.put("blob.bin", blob)
        # moto's signature check gets keys with '+', '=' or '&' wrong (boto3's
        # own signed GETs of them fail there too): their encoding is checked
        # in tests/cpp/io/s3_location_test.cc instead.
        server.put("odd keys/a b~c_d-e.bin", blob[:1000])
        for name in names.values():
            server.put(name, (root / name).read_bytes())
        server.put("data/notes.txt", b"not arrow")
        server.enforce_signatures()
        server.blob = blob
        server.names = names
        server.root = root
        yield server


def test_s3_signed_reads(s3):
    with environment(s3.environment()):
        info = _quiver._io_read(f"s3://{s3.bucket}/blob.bin", [(100, 50_000), (200_000, 10)])
        assert info["chunks"] == [s3.blob[100:50_100], s3.blob[200_000:200_010]]
        assert info["size"] == len(s3.blob)
        info = _quiver._io_read(f"s3://{s3.bucket}/odd keys/a b~c_d-e.bin", [(0, 1000)])
        assert info["chunks"] == [s3.blob[:1000]]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("kind", ["file", "stream"])
def test_ipc_over_s3_equals_the_local_read(s3, codec, kind):
    name = s3.names[(codec, kind)]
    with environment(s3.environment()):
        remote = read_ipc(f"s3://{s3.bucket}/{name}", kind)
    assert remote.equals(read_ipc(str(s3.root / name), kind))


def test_s3_prefix_lists_the_matching_keys(s3):
    arrow = sorted(f"s3://{s3.bucket}/{n}" for n in s3.names.values() if n.endswith(".arrow"))
    with environment(s3.environment()):
        # The bucket's root: every key, signed and checked.
        assert _quiver._io_expand([f"s3://{s3.bucket}/"], [".arrow"]) == arrow
        assert _quiver._io_expand([f"s3://{s3.bucket}/"], [".txt"]) == [
            f"s3://{s3.bucket}/data/notes.txt"
        ]
        with pytest.raises(ValueError, match=f"s3://{s3.bucket}/ holds no .parquet objects"):
            _quiver._io_expand([f"s3://{s3.bucket}/"], [".parquet"])
        # moto's signature check gets a '/' in the prefix parameter wrong
        # (boto3's own signed ListObjectsV2 of "data/" fails there too): a
        # prefix with one is listed with the check switched off.
        s3.relax_signatures()
        try:
            assert _quiver._io_expand([f"s3://{s3.bucket}/data/"], [".arrow"]) == arrow
            with pytest.raises(ValueError, match=f"s3://{s3.bucket}/nothing/ holds no"):
                _quiver._io_expand([f"s3://{s3.bucket}/nothing/"], [".arrow"])
        finally:
            s3.enforce_signatures()


def test_s3_wrong_secret_is_a_clean_error(s3):
    """moto checks the Signature V4 of every request once its free requests
    are used up (MotoS3.enforce_signatures): a wrong secret key gives
    SignatureDoesNotMatch, and the message names neither key."""
    secret = "wrong-secret-0123456789"
    with environment(s3.environment(secret=secret)):
        with pytest.raises(OSError) as error:
            _quiver._io_read(f"s3://{s3.bucket}/blob.bin", [])
        with pytest.raises(OSError, match=r"HTTP 403 Forbidden \(SignatureDoesNotMatch\)"):
            _quiver._io_expand([f"s3://{s3.bucket}/"], [".arrow"])
    message = str(error.value)
    assert message == f"s3://{s3.bucket}/blob.bin: HTTP 403 Forbidden (SignatureDoesNotMatch)"
    assert secret not in message and s3.secret_key not in message


def test_s3_missing_key_names_the_code(s3):
    with environment(s3.environment()):
        with pytest.raises(
            OSError, match=re.escape(f"s3://{s3.bucket}/nope.arrow: HTTP 404 Not Found (NoSuchKey)")
        ):
            qv.ipc.open_file(f"s3://{s3.bucket}/nope.arrow")


# --- what an S3 request carries -------------------------------------------------


def s3_environment(endpoint, **extra):
    """The variables of a temporary credential with AWS_ENDPOINT_URL alone
    naming the endpoint (no AWS_ENDPOINT_URL_S3, no region)."""
    variables = {
        "AWS_ACCESS_KEY_ID": "ASIATEMPORARYKEY0001",
        "AWS_SECRET_ACCESS_KEY": "temporary-secret-0123456789",
        "AWS_SESSION_TOKEN": "session-token-of-the-temporary-key",
        "AWS_ENDPOINT_URL": endpoint,
    }
    variables.update(extra)
    return variables


@pytest.fixture
def no_s3_variables(monkeypatch):
    for name in list(os.environ):
        if name.startswith("AWS_") or name == "QUIVER_S3_ADDRESSING":
            monkeypatch.delenv(name)


@pytest.mark.parametrize("style", ["path", "virtual"])
def test_s3_requests_carry_the_session_token_and_the_signature(tmp_path, no_s3_variables, style):
    _, names = write_samples(tmp_path)
    name = names[("zstd", "file")]
    data = (tmp_path / name).read_bytes()
    with servers.RecordingServer({f"bucket-1/{name}": data}) as server:
        if style == "path":
            variables = s3_environment(f"http://127.0.0.1:{server.port}")
        else:
            # *.localhost resolves to the loopback address without DNS.
            variables = s3_environment(
                f"http://localhost:{server.port}", QUIVER_S3_ADDRESSING="virtual"
            )
        with environment(variables):
            remote = qv.dataset(f"s3://bucket-1/{name}")
            got = pa.table(remote.take([3, 39, 3]))
        assert got.equals(pa.table(qv.dataset(tmp_path / name).take([3, 39, 3])))
        assert server.requests
        for path, headers in server.requests:
            if style == "path":
                assert path == f"/bucket-1/{name}"
                assert headers["host"] == f"127.0.0.1:{server.port}"
            else:
                assert path == f"/{name}"
                assert headers["host"] == f"bucket-1.localhost:{server.port}"
            assert headers["x-amz-security-token"] == "session-token-of-the-temporary-key"
            authorization = headers["authorization"]
            assert authorization.startswith("AWS4-HMAC-SHA256 Credential=ASIATEMPORARYKEY0001/"), (
                authorization
            )
            assert "/us-east-1/s3/aws4_request" in authorization
            signed = re.search(r"SignedHeaders=([^,]+)", authorization).group(1).split(";")
            assert {"host", "x-amz-date", "x-amz-security-token"} <= set(signed)
            assert headers["x-amz-content-sha256"] == (
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            )
            assert "temporary-secret" not in authorization


def test_s3_errors_name_no_credential(tmp_path, no_s3_variables):
    with servers.RecordingServer({}) as server:
        variables = s3_environment(f"http://127.0.0.1:{server.port}")
        with environment(variables):
            with pytest.raises(OSError) as error:
                qv.dataset("s3://bucket-1/missing.arrow")
    message = str(error.value)
    assert message == "s3://bucket-1/missing.arrow: HTTP 404 Not Found"
    for value in variables.values():
        if not value.startswith("http"):
            assert value not in message
