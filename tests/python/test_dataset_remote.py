"""quiver.dataset() over real servers on 127.0.0.1 (tests/python/
remote_servers.py): nginx serving IPC files and streams with range
requests, moto's S3 server with signature checking switched on (an
s3://bucket/prefix/ listed with ListObjectsV2), and a fault-injecting proxy
in front of nginx. Every read equals the same read of the local files;
projections fetch fewer bytes; a quiver file's first row takes at most
three requests; faults are retried to the right rows. The `quiver`
command reads URLs too."""

import os
import shutil
import subprocess

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

import remote_servers as servers
from remote_samples import CODECS, FAST, bounded, environment

pytestmark = pytest.mark.skipif(
    qv.build_info()["curl"] is None, reason="this build of quiver has no libcurl"
)


def as_arrow(table):
    return pa.table(table)


INDICES = [39, 0, 7, 7, 22, 23, 5, 39, 30, 12]


def test_dataset_over_http_equals_the_local_dataset(nginx):
    names = list(nginx.names.values())
    remote = qv.dataset([f"{nginx.url}/{n}" for n in names])
    local = qv.dataset([nginx.root / n for n in names])
    assert len(remote) == len(local) == 40 * len(names)
    rng = np.random.default_rng(5)
    for _ in range(5):
        idx = rng.integers(0, len(local), size=48)
        assert as_arrow(remote.take(idx)).equals(as_arrow(local.take(idx)))
    assert as_arrow(remote[35:90]).equals(as_arrow(local[35:90]))
    assert [b.num_rows for b in remote.to_batches()] == [b.num_rows for b in local.to_batches()]
    assert remote.cache_stats()["requests"] > 0


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("kind", ["file", "stream"])
def test_each_source_kind_and_codec(nginx, codec, kind):
    name = nginx.names[(codec, kind)]
    remote = qv.dataset(f"{nginx.url}/{name}", columns=["ragged", "id"])
    local = qv.dataset(nginx.root / name, columns=["ragged", "id"])
    assert as_arrow(remote.take(INDICES)).equals(as_arrow(local.take(INDICES)))


def test_projection_fetches_fewer_bytes(nginx):
    name = nginx.names[(None, "file")]
    url = f"{nginx.url}/{name}"
    options = {"readahead_bytes": 0, "coalesce_gap": 0, "tail_bytes": 1024}
    narrow = qv.dataset(url, columns=["id"], remote=options)
    wide = qv.dataset(url, remote=options)
    narrow.take(INDICES)
    wide.take(INDICES)
    assert narrow.cache_stats()["bytes_fetched"] < wide.cache_stats()["bytes_fetched"]


def test_first_row_of_a_quiver_file_in_three_requests(nginx):
    name = nginx.names[(None, "file")]
    ds = qv.dataset(f"{nginx.url}/{name}")
    ds.take([0])
    assert ds.cache_stats()["requests"] <= 3


@pytest.mark.parametrize("compression", [None, "lz4"])
def test_a_large_files_footer_and_schema_in_two_requests(nginx, compression):
    """A file many times the 64 KiB read at open (24 MiB, 2,000 rows in
    record batches of 1 MiB): its footer and schema come in at most two
    requests, its first row in at most three, and a row far into it in at
    most three more, whatever the file's size."""
    path = nginx.root / "data" / f"large-{compression}.arrow"
    table = _image_rows(2000)
    qv.ipc.write_file(table, str(path), max_batch_bytes=1 << 20, compression=compression)
    # Past the 64 KiB read at open (LZ4 keeps 146 KB of these rows).
    assert path.stat().st_size > (16 if compression is None else 2) * (64 << 10)
    ds = qv.dataset(f"{nginx.url}/data/large-{compression}.arrow")
    assert ds.cache_stats()["requests"] <= 2
    assert ds.num_rows == 2000 and ds.num_record_batches > 16
    assert ds.schema.names == ["image", "label"]
    first = ds[0]
    assert ds.cache_stats()["requests"] <= 3
    before = ds.cache_stats()["requests"]
    far = ds[1777]
    # Its header, then its bytes of each column (two buffers far apart,
    # fetched at once).
    assert ds.cache_stats()["requests"] - before <= 3
    assert as_arrow(first).equals(table.slice(0, 1))
    assert as_arrow(far).equals(table.slice(1777, 1))


def _image_rows(n, first=0):
    images = (np.arange(first, first + n, dtype=np.uint64)[:, None] * 7 + np.arange(12288)) % 251
    return pa.table(
        {
            "image": qv.FixedShapeTensorArray.from_numpy(
                images.astype(np.uint8).reshape(n, 3, 64, 64)
            ),
            "label": pa.array(np.arange(first, first + n, dtype=np.int64)),
        }
    )


def test_few_rows_of_fixed_width_columns_fetch_about_their_bytes(nginx):
    """A take of a few rows of fixed-width columns fetches those rows (and
    the record batches' headers), not whole buffers: bytes fetched stay
    within 1.5x the rows' bytes, and the rows equal the local ones."""
    path = nginx.root / "data" / "images.arrow"
    qv.ipc.write_file(_image_rows(2000), str(path), max_batch_bytes=1 << 20)
    remote = qv.dataset(f"{nginx.url}/data/images.arrow")
    local = qv.dataset(path)
    row_bytes = 3 * 64 * 64 + 8
    rng = np.random.default_rng(3)
    for size in (1, 8, 64):
        idx = rng.choice(len(local), size=size, replace=False)
        before = remote.cache_stats()["bytes_fetched"]
        assert as_arrow(remote.take(idx)).equals(as_arrow(local.take(idx)))
        fetched = remote.cache_stats()["bytes_fetched"] - before
        assert fetched <= 1.5 * size * row_bytes, (size, fetched)


def _open_descriptors():
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_many_remote_objects_share_a_bounded_set_of_connections(nginx):
    """Hundreds of remote objects in one dataset keep a bounded number of
    connections open (one cache per process), not a few per object."""
    folder = nginx.root / "many"
    folder.mkdir(exist_ok=True)
    count = 300
    for i in range(count):
        table = pa.table({"x": pa.array([i, i + 1], pa.int64())})
        qv.ipc.write_file(table, str(folder / f"{i:04}.arrow"))
    before = _open_descriptors()
    ds = qv.dataset([f"{nginx.url}/many/{i:04}.arrow" for i in range(count)])
    assert len(ds) == 2 * count
    taken = ds.take(np.arange(0, 2 * count, 2))
    assert as_arrow(taken).column("x").to_pylist() == list(range(count))
    assert _open_descriptors() - before < 64
    ds.close()


def test_fault_on_a_row_read_is_retried(nginx):
    name = nginx.names[("zstd" if "zstd" in CODECS else None, "file")]
    local = qv.dataset(nginx.root / name)
    for mode in ("drop", "503", "truncate", "wrong_range"):
        with servers.FaultProxy(nginx.port, mode, faults=1, after=2, delay=3) as proxy:
            ds = bounded(20, qv.dataset, f"{proxy.url}/{name}", remote=FAST)
            taken = bounded(20, ds.take, INDICES)
            assert as_arrow(taken).equals(as_arrow(local.take(INDICES))), mode


def test_lasting_fault_is_a_clean_error(nginx):
    name = nginx.names[(None, "stream")]
    with servers.FaultProxy(nginx.port, "503", faults=1000, after=0) as proxy:
        with pytest.raises(OSError, match=f"{proxy.url}/{name}"):
            bounded(30, qv.dataset, f"{proxy.url}/{name}", remote=dict(FAST, max_retries=1))


def test_bad_remote_options_are_refused(nginx):
    url = f"{nginx.url}/{nginx.names[(None, 'file')]}"
    with pytest.raises(ValueError, match="unknown source option 'timeout'"):
        qv.dataset(url, remote={"timeout": 3})
    with pytest.raises(ValueError, match="memory_map"):
        qv.dataset(url, remote={"memory_map": False})
    with pytest.raises(TypeError, match="dict"):
        qv.dataset(url, remote=3)


def test_missing_object_names_the_url(nginx):
    url = f"{nginx.url}/data/missing.arrow"
    with pytest.raises(OSError, match="HTTP 404"):
        qv.dataset(url)


def test_dataset_over_an_s3_prefix(s3):
    local_names = sorted(n for n in s3.names.values())
    local = qv.dataset([s3.root / n for n in local_names])
    with environment(s3.environment()):
        remote = qv.dataset(f"s3://{s3.bucket}/data/")
        assert remote.sources == [f"s3://{s3.bucket}/{n}" for n in local_names]
        assert as_arrow(remote.take(INDICES)).equals(as_arrow(local.take(INDICES)))


def test_dataset_over_s3_checks_signatures(s3):
    name = s3.names[(None, "file")]
    s3.enforce_signatures()
    try:
        with environment(s3.environment()):
            ds = qv.dataset(f"s3://{s3.bucket}/{name}")
            assert as_arrow(ds.take([3])).equals(as_arrow(qv.dataset(s3.root / name).take([3])))
        with environment(s3.environment(secret="wrong-secret-0123456789")):
            with pytest.raises(OSError, match="SignatureDoesNotMatch"):
                qv.dataset(f"s3://{s3.bucket}/{name}")
    finally:
        s3.relax_signatures()


def _cli():
    from quiver._cli import installed_executable

    return os.environ.get("QUIVER_CLI") or installed_executable() or shutil.which("quiver")


@pytest.mark.skipif(_cli() is None, reason="no quiver executable (built without CLI11)")
def test_cli_reads_urls(nginx):
    for kind in ("file", "stream"):
        url = f"{nginx.url}/{nginx.names[(None, kind)]}"
        for command in ("inspect", "head", "validate"):
            run = subprocess.run(
                [_cli(), command, url], capture_output=True, text=True, timeout=120
            )
            assert run.returncode == 0, (command, run.stderr)
            assert run.stdout
    run = subprocess.run(
        [_cli(), "inspect", f"{nginx.url}/data/missing.arrow"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    url = f"{nginx.url}/data/missing.arrow"
    # The URL once: the error starts with it, the tool does not add it again.
    assert run.stderr.splitlines()[0] == f"quiver: {url}: HTTP 404 Not Found"


@pytest.mark.skipif(_cli() is None, reason="no quiver executable (built without CLI11)")
def test_cli_reads_s3_urls_with_signatures_checked(s3):
    s3.enforce_signatures()
    try:
        env = dict(os.environ, **s3.environment())
        for kind in ("file", "stream"):
            url = f"s3://{s3.bucket}/{s3.names[('zstd', kind)]}"
            for command in ("inspect", "head", "validate"):
                run = subprocess.run(
                    [_cli(), command, url], capture_output=True, text=True, env=env, timeout=120
                )
                assert run.returncode == 0, (command, run.stderr)
                assert run.stdout
        env = dict(os.environ, **s3.environment(secret="wrong-secret-0123456789"))
        url = f"s3://{s3.bucket}/{s3.names[(None, 'file')]}"
        run = subprocess.run(
            [_cli(), "inspect", url], capture_output=True, text=True, env=env, timeout=120
        )
        assert run.returncode != 0
        assert run.stderr.splitlines()[0] == (
            f"quiver: {url}: HTTP 403 Forbidden (SignatureDoesNotMatch)"
        )
        assert "wrong-secret" not in run.stderr
    finally:
        s3.relax_signatures()


def test_pickle_keeps_the_remote_options(nginx):
    import pickle

    url = f"{nginx.url}/{nginx.names[(None, 'file')]}"
    ds = qv.dataset(url, remote={"max_retries": 1, "timeout_seconds": 2})
    again = pickle.loads(pickle.dumps(ds))
    assert as_arrow(again.take([1])).equals(as_arrow(ds.take([1])))
    _, args = ds.__reduce__()
    assert args[-1] == {"max_retries": 1, "timeout_seconds": 2}


def test_errors_show_no_credentials(nginx):
    url = f"http://user:s3cretPW@127.0.0.1:{nginx.port}/data/missing.arrow?X-Amz-Signature=abc"
    with pytest.raises(OSError) as error:
        qv.dataset(url)
    assert "s3cretPW" not in str(error.value) and "abc" not in str(error.value)
    assert "HTTP 404" in str(error.value)


def test_remote_options_out_of_range_are_refused(nginx):
    url = f"{nginx.url}/{nginx.names[(None, 'file')]}"
    for options, name in [
        ({"timeout_seconds": float("inf")}, "timeout_seconds"),
        ({"timeout_seconds": float("nan")}, "timeout_seconds"),
        ({"parallel_requests": 0}, "parallel_requests"),
        ({"max_retries": -1}, "max_retries"),
    ]:
        with pytest.raises(ValueError, match=name):
            qv.dataset(url, remote=options)
