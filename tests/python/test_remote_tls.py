"""https:// sources against nginx serving TLS on 127.0.0.1 with a
certificate of its own (remote_servers.py): read as the local files once
the certificate is trusted (the `remote=` dict's ca_bundle or
ca_directory, SSL_CERT_FILE, CURL_CA_BUNDLE, SSL_CERT_DIR), refused at
once where it is not; a CA bundle that names no file is an error naming
it, relative paths hold when the working folder changes, and plain http
ignores all of it."""

import os
import subprocess
import time

import pyarrow as pa
import pytest

import quiver as qv

import remote_servers as servers
from remote_samples import write_samples

pytestmark = pytest.mark.skipif(
    qv.build_info()["curl"] is None, reason="this build of quiver has no libcurl"
)

INDICES = [39, 0, 7, 7, 22, 23, 5, 39, 30, 12]


@pytest.fixture(scope="module")
def https(tmp_path_factory):
    """nginx over TLS serving the remote samples: .url, .root, .names and
    .certificate (the PEM file that vouches for it)."""
    missing = servers.nginx_missing()
    if missing:
        pytest.skip(missing)
    tls = servers.self_signed_certificate(tmp_path_factory.mktemp("tls"))
    if tls is None:
        pytest.skip("the cryptography package is missing (scripts/setup --test installs it)")
    root = tmp_path_factory.mktemp("www-tls")
    _, names = write_samples(root)
    with servers.Nginx(root, tmp_path_factory.mktemp("nginx-tls"), tls=tls) as server:
        server.root = root
        server.names = names
        server.certificate = tls[0]
        yield server


@pytest.fixture
def clean_environment(monkeypatch):
    for name in ["SSL_CERT_FILE", "CURL_CA_BUNDLE", "AWS_CA_BUNDLE", "SSL_CERT_DIR"]:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def same_rows(remote, local):
    assert pa.table(remote.take(INDICES)).equals(pa.table(local.take(INDICES)))
    assert pa.table(remote[3:31]).equals(pa.table(local[3:31]))


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_https_with_the_ca_bundle_option_reads_as_the_local_file(https, clean_environment, kind):
    for codec in [None, "zstd"]:
        name = https.names[(codec, kind)]
        remote = qv.dataset(f"{https.url}/{name}", remote={"ca_bundle": https.certificate})
        same_rows(remote, qv.dataset(https.root / name))
        assert remote.cache_stats()["requests"] > 0


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "CURL_CA_BUNDLE"])
def test_https_trusts_the_file_the_environment_names(https, clean_environment, variable):
    clean_environment.setenv(variable, https.certificate)
    name = https.names[("lz4", "file")]
    same_rows(qv.dataset(f"{https.url}/{name}"), qv.dataset(https.root / name))
    with qv.ipc.open_file(f"{https.url}/{name}") as reader:
        assert reader.read_all().num_rows == 40


def test_an_untrusted_certificate_fails_at_once_naming_the_url(https, clean_environment):
    url = f"{https.url}/{https.names[(None, 'file')]}"
    start = time.monotonic()
    with pytest.raises(OSError) as error:
        # Retries would only wait: a certificate check fails the same way
        # every time.
        qv.dataset(url, remote={"max_retries": 5, "retry_delay_seconds": 3.0})
    assert time.monotonic() - start < 2.0
    message = str(error.value)
    assert message.startswith(url + ": ")
    assert "certificate" in message.lower()
    assert "after" not in message  # not retried


def test_a_ca_bundle_that_names_no_file_is_an_error_naming_it(https, clean_environment, tmp_path):
    url = f"{https.url}/{https.names[(None, 'file')]}"
    missing = tmp_path / "nowhere.pem"
    with pytest.raises(ValueError) as error:
        qv.dataset(url, remote={"ca_bundle": str(missing)})
    assert str(error.value) == (
        f"{url}: the CA bundle '{missing}' (from ca_bundle) is not a file that can be read"
    )
    clean_environment.setenv("SSL_CERT_FILE", str(tmp_path))  # a directory
    with pytest.raises(ValueError, match=r"\(from SSL_CERT_FILE\) is not a file that can be read"):
        qv.dataset(url)


def test_relative_paths_hold_when_the_working_folder_changes(https, clean_environment, tmp_path):
    import pickle
    import shutil

    shutil.copy(https.certificate, tmp_path / "ca.pem")
    name = https.names[("lz4", "file")]
    clean_environment.chdir(tmp_path)
    # Small reads at open, so that the rows below are fetched after the
    # change of folder, up to 8 at once (new connections, which read the
    # bundle again).
    options = {"ca_bundle": "ca.pem", "parallel_requests": 8, "tail_bytes": 1024}
    options["readahead_bytes"] = 1024
    remote = qv.dataset(f"{https.url}/{name}", remote=options)
    again = pickle.dumps(remote)
    clean_environment.chdir("/")
    before = remote.cache_stats()["requests"]
    same_rows(remote, qv.dataset(https.root / name))
    assert remote.cache_stats()["requests"] > before
    same_rows(pickle.loads(again), qv.dataset(https.root / name))
    # "" is unset, in a pickle too (not the working folder).
    empty = qv.dataset(
        f"{https.url}/{name}", remote={"ca_bundle": https.certificate, "ca_directory": ""}
    )
    _, args = empty.__reduce__()
    assert args[-1]["ca_directory"] == ""


def test_a_certificate_folder_from_ssl_cert_dir(https, clean_environment, tmp_path):
    """A folder of certificates by subject hash (`openssl rehash`): the
    ca_directory option or SSL_CERT_DIR."""
    import shutil

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is missing (it names certificates by hash)")
    subject_hash = subprocess.run(
        [openssl, "x509", "-hash", "-noout", "-in", https.certificate],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = tmp_path / "certs"
    folder.mkdir()
    shutil.copy(https.certificate, folder / f"{subject_hash}.0")
    name = https.names[(None, "stream")]
    local = qv.dataset(https.root / name)
    same_rows(qv.dataset(f"{https.url}/{name}", remote={"ca_directory": str(folder)}), local)
    clean_environment.setenv("SSL_CERT_DIR", str(folder))
    same_rows(qv.dataset(f"{https.url}/{name}"), local)
    clean_environment.setenv("SSL_CERT_DIR", str(tmp_path / "none"))
    with pytest.raises(ValueError, match=r"\(from SSL_CERT_DIR\) is not a folder"):
        qv.dataset(f"{https.url}/{name}")


def test_a_redirect_from_http_to_https_is_checked_too(https, clean_environment, tmp_path):
    name = https.names[(None, "file")]
    url = f"http://127.0.0.1:{https.redirect_port}/{name}"
    local = qv.dataset(https.root / name)
    same_rows(qv.dataset(url, remote={"ca_bundle": https.certificate}), local)
    # A stale variable is passed over for the next (an http URL), the
    # certificate still checked.
    clean_environment.setenv("CURL_CA_BUNDLE", str(tmp_path / "gone.pem"))
    clean_environment.setenv("SSL_CERT_FILE", https.certificate)
    same_rows(qv.dataset(url), local)
    clean_environment.delenv("SSL_CERT_FILE")
    with pytest.raises(OSError, match="certificate"):
        qv.dataset(url)


def test_plain_http_ignores_the_certificate_settings(nginx, clean_environment, tmp_path):
    # A stale variable (a removed virtual environment's bundle) concerns
    # https alone.
    clean_environment.setenv("SSL_CERT_FILE", str(tmp_path / "gone.pem"))
    clean_environment.setenv("SSL_CERT_DIR", str(tmp_path / "gone"))
    name = nginx.names[(None, "file")]
    same_rows(qv.dataset(f"{nginx.url}/{name}"), qv.dataset(nginx.root / name))


def test_the_path_options_take_path_likes_and_none(https, clean_environment, tmp_path):
    import pathlib

    name = https.names[(None, "file")]
    local = qv.dataset(https.root / name)
    certificate = pathlib.Path(https.certificate)
    same_rows(qv.dataset(f"{https.url}/{name}", remote={"ca_bundle": certificate}), local)
    clean_environment.setenv("SSL_CERT_FILE", https.certificate)
    same_rows(qv.dataset(f"{https.url}/{name}", remote={"ca_bundle": None}), local)
    with pytest.raises(TypeError, match="ca_bundle is a path"):
        qv.dataset(f"{https.url}/{name}", remote={"ca_bundle": b"/etc/ca.pem"})


def _cli():
    import shutil

    from quiver._cli import installed_executable

    return os.environ.get("QUIVER_CLI") or installed_executable() or shutil.which("quiver")


@pytest.mark.skipif(_cli() is None, reason="no quiver executable (built without CLI11)")
def test_the_cli_reads_https_with_ssl_cert_file(https, clean_environment):
    url = f"{https.url}/{https.names[(None, 'file')]}"
    env = dict(os.environ, SSL_CERT_FILE=https.certificate)
    for command in ("inspect", "head", "validate"):
        run = subprocess.run(
            [_cli(), command, url], capture_output=True, text=True, env=env, timeout=120
        )
        assert run.returncode == 0, (command, run.stderr)
        assert run.stdout
    env.pop("SSL_CERT_FILE")
    run = subprocess.run(
        [_cli(), "inspect", url], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode != 0
    first = run.stderr.splitlines()[0]
    assert first.startswith(f"quiver: {url}: ") and "certificate" in first.lower()
