"""Real servers for the remote-source tests (test_remote_sources.py), each
on 127.0.0.1 at a free port: nginx serving a directory (range requests
natively), moto's S3 server, and a fault-injecting HTTP proxy written here
that sits in front of nginx."""

import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

NGINX = "/usr/sbin/nginx"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process=None, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


def nginx_missing():
    """Why nginx cannot run here, or None."""
    if not (os.path.exists(NGINX) or shutil.which("nginx")):
        return "nginx is not installed (Debian: nginx-light)"
    return None


class Nginx:
    """nginx serving `root` (files with range requests), its logs, pid file
    and temporary folders in `workdir`."""

    def __init__(self, root, workdir, tls=None):
        self.root = str(root)
        self.workdir = str(workdir)
        self.port = free_port()
        self.process = None
        self.tls = tls  # (certificate, key) files: https
        # With tls, a plain http port that redirects every request to https.
        self.redirect_port = free_port() if tls else None

    @property
    def url(self):
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def _config(self):
        w = self.workdir
        # Started by root, nginx's workers would run as nobody, who may not
        # read pytest's private temporary folders.
        user = "user root;" if os.geteuid() == 0 else ""
        return f"""
{user}
worker_processes 1;
pid {w}/nginx.pid;
error_log {w}/error.log;
events {{ worker_connections 256; }}
http {{
    log_format quiver '$connection $connection_requests $status "$request"';
    access_log {w}/access.log quiver;
    client_body_temp_path {w}/body;
    proxy_temp_path {w}/proxy;
    fastcgi_temp_path {w}/fastcgi;
    uwsgi_temp_path {w}/uwsgi;
    scgi_temp_path {w}/scgi;
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{self.port}{" ssl" if self.tls else ""};
        {self._tls_lines()}
        root {self.root};
    }}
    {self._redirect_server()}
}}
"""

    def requests_for(self, path):
        """(connection number, request number on that connection) of every
        request for `path` so far, from the access log."""
        out = []
        with open(os.path.join(self.workdir, "access.log")) as log:
            for line in log:
                connection, serial, _status, request = line.rstrip("\n").split(" ", 3)
                if request.split(" ")[1] == path:
                    out.append((int(connection), int(serial)))
        return out

    def _redirect_server(self):
        if not self.tls:
            return ""
        return f"""server {{
        listen 127.0.0.1:{self.redirect_port};
        return 301 https://127.0.0.1:{self.port}$request_uri;
    }}"""

    def _tls_lines(self):
        if not self.tls:
            return ""
        certificate, key = self.tls
        return f"ssl_certificate {certificate}; ssl_certificate_key {key};"

    def __enter__(self):
        conf = os.path.join(self.workdir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(self._config())
        binary = NGINX if os.path.exists(NGINX) else shutil.which("nginx")
        self.process = subprocess.Popen(
            [binary, "-p", self.workdir, "-c", conf, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            wait_for_port(self.port, self.process)
        except RuntimeError as e:
            self.process.kill()
            raise RuntimeError(f"nginx did not start: {self.process.stderr.read()!r}") from e
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def self_signed_certificate(folder, name="127.0.0.1"):
    """A certificate for the address 127.0.0.1 signed by its own key, as
    (certificate, key) PEM files in `folder`; None where the cryptography
    package (which moto[server] brings) is missing."""
    try:
        import datetime
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        return None
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(name))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = os.path.join(str(folder), "server.pem")
    key_path = os.path.join(str(folder), "server.key")
    with open(cert_path, "wb") as f:
        f.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    return cert_path, key_path


def moto_missing():
    try:
        import boto3  # noqa: F401
        from moto.server import ThreadedMotoServer  # noqa: F401
    except ImportError as e:
        return f"moto's S3 server is not installed (pip install 'moto[server]'): {e}"
    return None


class MotoS3:
    """moto's S3 server with one bucket, an IAM user whose key may do
    everything, and signature checking switched on (moto checks SigV4
    signatures once its 'reset-auth' count of free requests is used up:
    the setup's own requests are free)."""

    def __init__(self, bucket="quiver-test"):
        self.bucket = bucket
        self.port = free_port()
        self.server = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def client(self, service, key="AKIAFREEFORSETUP0000", secret="setup"):
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=key,
            aws_secret_access_key=secret,
        )

    def __enter__(self):
        from moto.server import ThreadedMotoServer

        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        wait_for_port(self.port)
        # moto keeps its users and buckets per process, not per server: a
        # second server in the same test run starts from the first's state.
        self._post("/moto-api/reset", b"")
        self._post("/moto-api/reset-auth", b"1000000")  # free until the setup is done
        iam = self.client("iam")
        iam.create_user(UserName="reader")
        iam.put_user_policy(
            UserName="reader",
            PolicyName="all",
            PolicyDocument='{"Version": "2012-10-17", "Statement": '
            '[{"Effect": "Allow", "Action": "*", "Resource": "*"}]}',
        )
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        self.access_key = key["AccessKeyId"]
        self.secret_key = key["SecretAccessKey"]
        self.client("s3").create_bucket(Bucket=self.bucket)
        return self

    def put(self, key, data):
        self.client("s3").put_object(Bucket=self.bucket, Key=key, Body=data)

    def enforce_signatures(self):
        """Every request from now on must carry a valid signature of the
        reader's key."""
        self._post("/moto-api/reset-auth", b"0")

    def relax_signatures(self):
        """Requests are no longer checked (until enforce_signatures)."""
        self._post("/moto-api/reset-auth", b"1000000")

    def _post(self, path, body):
        # Not form-encoded: moto reads the raw body.
        request = urllib.request.Request(
            self.endpoint + path, data=body, method="POST", headers={"Content-Type": "text/plain"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()

    def environment(self, secret=None):
        return {
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": secret or self.secret_key,
            "AWS_ENDPOINT_URL_S3": self.endpoint,
            "AWS_REGION": "us-east-1",
        }

    def __exit__(self, *exc):
        self.server.stop()


class RecordingServer:
    """A plain HTTP server on 127.0.0.1 that answers range GETs of the
    objects it holds, by path ("/bucket/key") or, where the Host header
    names a subdomain ("bucket.localhost:PORT"), by that and the path
    ("/key"); it keeps each request's path and headers (.requests) to show
    what a client sends, and checks no signature."""

    def __init__(self, objects):
        import http.server

        self.objects = dict(objects)  # "bucket/key" -> bytes
        self.requests = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                owner.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                host = self.headers.get("Host", "").split(":")[0]
                bucket = host.split(".")[0] + "/" if host.endswith(".localhost") else ""
                data = owner.objects.get(bucket + self.path.lstrip("/"))
                if data is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                first, last = self._range(self.headers.get("Range", ""), len(data))
                body = data[first : last + 1]
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {first}-{last}/{len(data)}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            @staticmethod
            def _range(header, size):
                spec = header.split("=", 1)[1]
                start, end = spec.split("-")
                if not start:  # the last N bytes
                    return max(0, size - int(end)), size - 1
                return int(start), min(int(end), size - 1) if end else size - 1

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _read_head(conn):
    """The request or response head (up to the blank line) and what came after."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


class FaultProxy:
    """An HTTP proxy in front of `upstream_port` that passes the first
    `after` responses through, breaks the next `faults` as `mode` says, then
    passes the rest through:

    drop        closes the connection without an answer
    503         answers 503 Service Unavailable
    truncate    sends the head and half the body, then closes
    slow        waits `delay` seconds before answering (longer than the
                client's timeout)
    wrong_range shifts the Content-Range by one byte

    One request per connection (it asks upstream for Connection: close).
    `requests` counts what it received; `log` keeps each request head."""

    MODES = ("drop", "503", "truncate", "slow", "wrong_range")

    def __init__(self, upstream_port, mode, faults=1, after=0, delay=3.0):
        assert mode in self.MODES, mode
        self.upstream_port = upstream_port
        self.mode = mode
        self.faults = faults
        self.after = after
        self.delay = delay
        self.requests = 0
        self.log = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._listener.close()
        self._thread.join(5)

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        with conn:
            head, _ = _read_head(conn)
            if head is None:
                return
            with self._lock:
                number = self.requests
                self.requests += 1
                self.log.append(head.decode("latin-1"))
                broken = self.after <= number < self.after + self.faults
            if broken and self.mode == "drop":
                return
            if broken and self.mode == "503":
                conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                return
            if broken and self.mode == "slow":
                self._stop.wait(self.delay)
            status_and_headers, body = self._fetch(head)
            if broken and self.mode == "truncate":
                conn.sendall(status_and_headers + b"\r\n\r\n" + body[: len(body) // 2])
                return
            if broken and self.mode == "wrong_range":
                status_and_headers = self._shift_range(status_and_headers)
            try:
                conn.sendall(status_and_headers + b"\r\n\r\n" + body)
            except OSError:
                pass  # the client gave up (timed out) first

    def _fetch(self, head):
        lines = [
            line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")
        ]
        request = b"\r\n".join(lines) + b"\r\nConnection: close\r\n\r\n"
        with socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10) as up:
            up.sendall(request)
            response = b""
            while chunk := up.recv(65536):
                response += chunk
        status_and_headers, _, body = response.partition(b"\r\n\r\n")
        return status_and_headers, body

    @staticmethod
    def _shift_range(status_and_headers):
        out = []
        for line in status_and_headers.split(b"\r\n"):
            if line.lower().startswith(b"content-range: bytes "):
                span, _, total = line[len(b"content-range: bytes ") :].partition(b"/")
                first, _, last = span.partition(b"-")
                line = b"Content-Range: bytes %d-%d/%s" % (int(first) + 1, int(last) + 1, total)
            out.append(line)
        return b"\r\n".join(out)
