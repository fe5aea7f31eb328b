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

    def __init__(self, root, workdir):
        self.root = str(root)
        self.workdir = str(workdir)
        self.port = free_port()
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

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
    access_log {w}/access.log;
    client_body_temp_path {w}/body;
    proxy_temp_path {w}/proxy;
    fastcgi_temp_path {w}/fastcgi;
    uwsgi_temp_path {w}/uwsgi;
    scgi_temp_path {w}/scgi;
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{self.port};
        root {self.root};
    }}
}}
"""

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
