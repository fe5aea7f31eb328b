"""quiver.dataset (random access to the rows of IPC files) against pyarrow,
Hugging Face datasets and Lance, measured in one run on the same data.

The data: rows of a 3 x 64 x 64 uint8 `fixed_shape_tensor` column "image"
and an int64 "label" (12,296 bytes a row), in IPC files of record batches
of about 1 MiB of uncompressed data (85 rows). The same rows go to a Hugging
Face datasets Arrow stream (`datasets.Dataset.from_file`) and a Lance
dataset (`lance.write_dataset`), the image column as its storage type
(fixed_size_list<uint8, 12288>): neither knows Arrow's tensor extension
types. Images are 16 x 16 random blocks scaled up 4x, so that the LZ4 and
ZSTD files compress (the ratio is printed).

What is measured (each contender in a process of its own, after the parent
has read its files once, so the page cache is warm):

1. One random row, local, uncompressed, memory-mapped: the p50 and p99 of
   --samples calls (2000; fewer where a contender's calls exceed --budget
   seconds) at random indices: quiver `ds.take([i])` and `ds[i]`; pyarrow
   `get_batch(k).slice(j, 1)` on a mapped file (row -> batch from a
   precomputed index) and `Table.take([i])` on the mapped table; datasets
   `ds[i]` (its default Python rows, and `with_format("arrow")`); Lance
   `take([i])`. At every --gib size, to see whether the latency stays flat.
2. 64 random rows per call: the median of --takes calls (200), same
   contenders (quiver also through `__getitems__`).
3. The same two for a ragged variant (a `variable_shape_tensor` column of
   3 x [32..96] x [32..96] uint8 images; quiver and pyarrow only, the
   others have no ragged tensors), at the smallest size.
4. LZ4 and ZSTD files of the smallest size: quiver's rows/s over 64-row
   takes at random indices against reading the same file in order (64-row
   slices `ds[a:a+64]`, and `to_batches()`), with `cache_bytes` a quarter
   of the decoded size (--compressed-takes takes) and with a cache that
   holds all of it (one shuffled epoch); and the peak RSS of the shuffled
   quarter-cache run (VmHWM of the worker, and its getrusage ru_maxrss),
   raw and above the interpreter's RSS after its imports, mapped and read
   with pread.
5. Remote, where this build of quiver reads http(s):// (else one line says
   it is skipped): nginx serves the files from a network namespace the
   script creates, 10 ms of netem delay on each end of a veth pair (20 ms
   round trips; where the kernel has no netem, nginx on loopback behind a
   relay that holds every chunk 10 ms each way, said so). Requests and
   time to open the largest file and read its first row; rows/s of
   shuffled 64-row takes, remote against local on the same files and
   indices; bytes fetched against bytes needed (the rows' bytes of an
   uncompressed file, the record batches' compressed bodies of a
   compressed one).

The issue's targets are printed with each figure and whether it is met.

  python bench/python/bench_dataset.py                 # 1 GiB and 4 GiB (about 10 minutes)
  python bench/python/bench_dataset.py --big           # adds the issue's 16 GiB
  python bench/python/bench_dataset.py --gib 0.25      # a quick run
  python bench/python/bench_dataset.py --data-dir D    # keep the files in D, reuse them next time
  python bench/python/bench_dataset.py --sections local,compressed
      # of local,ragged,compressed,remote

The default run writes about 16 GiB of files (the IPC files, their datasets
and Lance copies, the compressed and ragged files) to a temporary
directory, removed at the end; --big adds about 48 GiB.
"""

import argparse
import contextlib
from concurrent.futures import ThreadPoolExecutor
import datetime
import gc
import http.client
import json
import os
import platform
import queue
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pyarrow as pa

import quiver as qv

SHAPE = (3, 64, 64)
IMAGE_BYTES = 3 * 64 * 64
ROW_BYTES = IMAGE_BYTES + 8
BATCH_BYTES = 1 << 20
ROWS_PER_BATCH = BATCH_BYTES // ROW_BYTES  # 85 rows, 1,045,160 bytes
TAKE = 64
BLOCK_BYTES = 16 << 10  # compression_block_bytes of the "-blocks" files
HF_ENV = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}


# ---------------------------------------------------------------- the data


def image_batches(rows, seed):
    """Record batches of ~1 MiB: the fixed-shape image column and a label."""
    rng = np.random.default_rng(seed)
    tensor_type = pa.fixed_shape_tensor(pa.uint8(), list(SHAPE))
    for first in range(0, rows, ROWS_PER_BATCH):
        n = min(ROWS_PER_BATCH, rows - first)
        blocks = rng.integers(0, 256, size=(n, 3, 16, 16), dtype=np.uint8)
        images = np.ascontiguousarray(blocks.repeat(4, axis=2).repeat(4, axis=3))
        storage = pa.FixedSizeListArray.from_arrays(pa.array(images.reshape(-1)), IMAGE_BYTES)
        yield pa.record_batch(
            {
                "image": pa.ExtensionArray.from_storage(tensor_type, storage),
                "label": pa.array(np.arange(first, first + n, dtype=np.int64) % 1000),
            }
        )


def ragged_batches(target_bytes, seed):
    """Record batches of ~1 MiB of 3 x [32..96] x [32..96] uint8 images."""
    rng = np.random.default_rng(seed)
    written = 0
    while written < target_bytes:
        images, size = [], 0
        while size < BATCH_BYTES:
            h, w = rng.integers(32, 97, size=2)
            images.append(rng.integers(0, 256, size=(3, h, w), dtype=np.uint8))
            size += images[-1].nbytes + 8
        written += size
        yield pa.record_batch(
            {
                "image": pa.array(qv.VariableShapeTensorArray.from_numpy(images)),
                "label": pa.array(np.arange(len(images), dtype=np.int64)),
            }
        )


def write_ipc_file(batches, path, compression=None, block=None):
    """Writes record batches of about 1 MiB of uncompressed data to an IPC
    file; returns the writer used.

    THE ONE PLACE for max_batch_bytes: once qv.ipc.write_file takes
    max_batch_bytes= (another branch adds it), quiver writes every file of
    this benchmark, cut at 1 MiB of uncompressed data; until then this
    falls back to pyarrow's writer, fed batches already cut to ~1 MiB."""
    batches = iter(batches)
    first = next(batches)
    reader = pa.RecordBatchReader.from_batches(first.schema, _chain(first, batches))
    try:
        qv.ipc.write_file(
            reader,
            path,
            compression=compression,
            max_batch_bytes=BATCH_BYTES,
            compression_block_bytes=block,
        )
        return "quiver"
    except TypeError as e:  # raised before the reader is read
        if "max_batch_bytes" not in str(e):
            raise
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, reader.schema, options=options) as w:
        for batch in reader:
            w.write_batch(batch)
    return "pyarrow"


def _chain(first, rest):
    yield first
    yield from rest


def storage_batches(path):
    """The batches of a mapped IPC file, extension columns as their storage."""
    reader = pa.ipc.open_file(pa.memory_map(path))
    for k in range(reader.num_record_batches):
        batch = reader.get_batch(k)
        columns = [c.storage if isinstance(c, pa.ExtensionArray) else c for c in batch.columns]
        yield pa.record_batch(columns, names=batch.schema.names)


def write_hf_stream(path, stream):
    batches = storage_batches(path)
    first = next(batches)
    with pa.OSFile(stream, "wb") as sink, pa.ipc.new_stream(sink, first.schema) as writer:
        writer.write_batch(first)
        for batch in batches:
            writer.write_batch(batch)


def write_lance(path, uri):
    import lance

    batches = storage_batches(path)
    first = next(batches)
    reader = pa.RecordBatchReader.from_batches(first.schema, _chain(first, batches))
    lance.write_dataset(reader, uri, mode="overwrite")


def file_bytes(path):
    if os.path.isdir(path):
        return sum(
            os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files
        )
    return os.path.getsize(path)


def warm(path):
    """Reads a file (or a directory's files) once: into the page cache."""
    paths = (
        [os.path.join(d, f) for d, _, files in os.walk(path) for f in files]
        if os.path.isdir(path)
        else [path]
    )
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while f.read(16 << 20):
                pass


def file_layout(path):
    """Per record batch of an IPC file: its rows and its body's bytes (as
    stored: compressed where the file is). pyarrow alone."""
    reader = pa.ipc.open_file(pa.memory_map(path))
    rows = [reader.get_batch(k).num_rows for k in range(reader.num_record_batches)]
    source = pa.memory_map(path)
    source.seek(8)  # "ARROW1" and its padding; a stream follows
    messages = pa.ipc.MessageReader.open_stream(source)
    bodies = []
    while True:
        try:
            message = messages.read_next_message()
        except StopIteration:
            break
        if message is None:
            break
        if message.type == "record batch":
            bodies.append(message.body.size if message.body is not None else 0)
    return rows, bodies


# ------------------------------------------------------------ measurement


def rss_status():
    out = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmHWM:", "VmRSS:")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out


def maxrss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def latencies(fn, args, budget, warmup=50, min_samples=20):
    """Per-call times (µs) of fn(a) for a in args, after `warmup` calls
    (or a tenth of the budget), stopping early once `budget` seconds are
    spent (and min_samples taken)."""
    deadline = time.perf_counter() + budget / 10
    for a in args[:warmup]:
        fn(a)
        if time.perf_counter() > deadline:
            break
    out = []
    gc.disable()
    deadline = time.perf_counter() + budget
    try:
        for a in args:
            start = time.perf_counter_ns()
            fn(a)
            out.append((time.perf_counter_ns() - start) / 1000)
            if len(out) >= min_samples and time.perf_counter() > deadline:
                break
    finally:
        gc.enable()
    return out


def summary(times):
    t = np.asarray(times)
    return dict(p50=float(np.median(t)), p99=float(np.percentile(t, 99)), n=len(t))


def random_indices(n, samples, takes, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=samples), rng.integers(0, n, size=(takes, TAKE))


def contender_variants(lib, path, n):
    """{variant: (one_row(i), many_rows(index array))} of a library over
    the same rows; many_rows None where the variant has no batched form."""
    if lib == "quiver":
        # One dataset each: a variant run second on the same dataset would
        # find the first one's record batches decoded and cached.
        taker, getter = qv.dataset(path), qv.dataset(path)
        return {
            "quiver ds.take([i])": (lambda i: taker.take([i]), lambda idx: taker.take(idx)),
            "quiver ds[i] (64 rows: __getitems__)": (
                lambda i: getter[i],
                lambda idx: getter.__getitems__(idx.tolist()),
            ),
        }
    if lib == "pyarrow":
        reader = pa.ipc.open_file(pa.memory_map(path))
        counts = [reader.get_batch(k).num_rows for k in range(reader.num_record_batches)]
        starts = np.concatenate([[0], np.cumsum(counts)])
        table = reader.read_all()

        def one_row(i):
            k = int(np.searchsorted(starts, i, side="right")) - 1
            return reader.get_batch(k).slice(i - int(starts[k]), 1)

        variants = {"pyarrow get_batch(k).slice(j, 1)": (one_row, None)}
        # Table.take of a table of many chunks is slow (91 ms a row at
        # 1 GiB), and at 16 GiB it grew to 24 GB of RSS on this 23.5 GiB
        # machine and stalled the run: timed only where the file is under
        # a quarter of the memory.
        if os.path.getsize(path) <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4:
            variants["pyarrow Table.take"] = (
                lambda i: table.take([i]),
                lambda idx: table.take(idx),
            )
        return variants
    if lib == "datasets":
        import datasets

        datasets.disable_progress_bars()
        ds = datasets.Dataset.from_file(path)
        arrow = ds.with_format("arrow")
        numpy = ds.with_format("numpy")
        return {
            "datasets ds[i] (Python rows)": (lambda i: ds[i], lambda idx: ds[idx.tolist()]),
            'datasets ds[i] (with_format("numpy"))': (
                lambda i: numpy[i],
                lambda idx: numpy[idx.tolist()],
            ),
            'datasets ds[i] (with_format("arrow"))': (
                lambda i: arrow[i],
                lambda idx: arrow[idx.tolist()],
            ),
        }
    if lib == "lance":
        import lance

        ds = lance.dataset(path)
        return {"lance take([i])": (lambda i: ds.take([i]), lambda idx: ds.take(idx.tolist()))}
    raise ValueError(lib)


def work_latency(spec):
    variants = contender_variants(spec["lib"], spec["path"], spec["rows"])
    singles, batches = random_indices(spec["rows"], spec["samples"], spec["takes"], spec["seed"])
    singles = [int(i) for i in singles]
    out = {}
    for name, (one, many) in variants.items():
        r = dict(one=summary(latencies(one, singles, spec["budget"])))
        if many is not None:
            r["many"] = summary(latencies(many, list(batches), spec["budget"], warmup=5))
        out[name] = r
    if spec["lib"] == "quiver":
        out["_first_touch"] = first_touch(spec["path"], spec["budget"])
    out["_rss"] = rss_status()
    return out


def first_touch(path, budget):
    """quiver ds[i] p50 for a row of a record batch not read before (its
    header parsed, its columns described, its pages faulted in) and for a
    second row of the same batch (cached): a random row's p50 mixes the two
    in proportions that depend on the samples per record batch."""
    rows, _ = file_layout(path)
    starts = np.concatenate([[0], np.cumsum(rows)])
    order = np.random.default_rng(1).permutation(len(rows))
    ds = qv.dataset(path)
    cold, warm = [], []
    deadline = time.perf_counter() + budget
    for k in order:
        i = int(starts[k])
        start = time.perf_counter_ns()
        ds[i]
        middle = time.perf_counter_ns()
        ds[i + 1 if rows[k] > 1 else i]
        cold.append((middle - start) / 1000)
        warm.append((time.perf_counter_ns() - middle) / 1000)
        if len(cold) >= 20 and time.perf_counter() > deadline:
            break
    return dict(cold=summary(cold), warm=summary(warm))


def work_compressed(spec):
    """One quiver read of a compressed file, in this process: rows/s and
    the RSS peak above the RSS after the imports."""
    base = rss_status()
    rows = spec["rows"]
    rng = np.random.default_rng(spec["seed"])
    mode = spec["mode"]
    if mode == "shuffled":
        takes = rng.integers(0, rows, size=(spec["takes"], TAKE))
    elif mode == "epoch":
        perm = rng.permutation(rows)
        takes = [perm[i : i + TAKE] for i in range(0, rows, TAKE)]
    ds = qv.dataset(spec["path"], cache_bytes=spec["cache_bytes"], memory_map=spec["memory_map"])
    start = time.perf_counter()
    done = 0
    if mode in ("shuffled", "epoch"):
        for idx in takes:
            done += len(ds.take(idx))
    elif mode == "slices":
        for first in range(0, rows, TAKE):
            done += len(ds[first : first + TAKE])
    elif mode == "to_batches":
        done = sum(b.num_rows for b in ds.to_batches())
    seconds = time.perf_counter() - start
    stats = ds.cache_stats()
    peak = rss_status()
    return dict(
        rows=done,
        seconds=seconds,
        stats=stats,
        base=base,
        peak=peak,
        maxrss=maxrss_mib(),
    )


def work_remote(spec):
    """Opening the largest file over HTTP, and shuffled takes remote
    against local on the same files and indices."""
    out = dict(open=[])
    for _ in range(3):
        start = time.perf_counter()
        ds = qv.dataset(spec["big_url"])
        opened = time.perf_counter()
        ds[0]
        out["open"].append(
            dict(
                open_s=opened - start,
                first_row_s=time.perf_counter() - start,
                stats=ds.cache_stats(),
            )
        )
        ds.close()
    out["files"] = {}
    for name, url, path, compressed in spec["files"]:
        rows, bodies = file_layout(path)
        starts = np.concatenate([[0], np.cumsum(rows)])
        n = int(starts[-1])
        takes = np.random.default_rng(spec["seed"]).integers(0, n, size=(spec["takes"], TAKE))
        result = {}
        for where, source in (("local", path), ("remote", url)):
            ds = qv.dataset(source)
            before = ds.cache_stats()
            start = time.perf_counter()
            done = 0
            for idx in takes:
                done += len(ds.take(idx))
                if time.perf_counter() - start > spec["budget"] and done >= 10 * TAKE:
                    break
            seconds = time.perf_counter() - start
            after = ds.cache_stats()
            used = takes[: done // TAKE]
            if compressed:
                touched = np.unique(np.searchsorted(starts, used.ravel(), side="right") - 1)
                needed = int(sum(bodies[k] for k in touched))
            else:
                needed = int(len(np.unique(used)) * ROW_BYTES)
            result[where] = dict(
                rows=done,
                seconds=seconds,
                fetched=after["bytes_fetched"] - before["bytes_fetched"],
                requests=after["requests"] - before["requests"],
                needed=needed,
            )
            # The same takes from `concurrency` threads at once (take releases
            # the GIL): a loader's workers keep several requests in flight.
            ds = qv.dataset(source)
            start = time.perf_counter()
            with ThreadPoolExecutor(spec["concurrency"]) as pool:
                parallel_rows = sum(pool.map(lambda idx: len(ds.take(idx)), takes))
            result[where]["parallel_rows"] = parallel_rows
            result[where]["parallel_seconds"] = time.perf_counter() - start
            ds.close()
        out["files"][name] = result
    return out


WORKERS = {"latency": work_latency, "compressed": work_compressed, "remote": work_remote}


def run_worker(spec, timeout=1800):
    """Runs one measurement in a fresh interpreter; its JSON result, or an
    error string."""
    command = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]
    try:
        out = subprocess.run(
            command,
            capture_output=True,
            text=True,
            check=True,
            timeout=timeout,
            env={**os.environ, **HF_ENV},
            cwd=tempfile.gettempdir(),
        )
    except subprocess.CalledProcessError as e:
        tail = (e.stderr or "").strip().splitlines()[-1:]
        return f"failed: {tail[0] if tail else e}"
    except subprocess.TimeoutExpired:
        return f"failed: over {timeout} s"
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- remote


def remote_built():
    """Whether this build of quiver reads http:// (build_info()['curl'] once
    the remote branch reports it; until then, a dataset at a closed port
    raises NotImplementedError in a build without it)."""
    info = qv.build_info()
    if "curl" in info:
        return bool(info["curl"])
    try:
        qv.dataset("http://127.0.0.1:1/x.arrow")
    except NotImplementedError:
        return False
    except Exception:
        return True
    return True


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LatencyRelay:
    """A TCP relay on 127.0.0.1 that holds every chunk of bytes, in either
    direction, for `delay_ms` before passing it on: round trips grow by
    twice the delay while bandwidth and pipelining stay as they are. Used
    where the kernel has no netem (the delay a namespace would add)."""

    def __init__(self, upstream_host, upstream_port, delay_ms):
        self.upstream = (upstream_host, upstream_port)
        self.delay = delay_ms / 1000
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._pump(client, server)
            self._pump(server, client)

    def _pump(self, source, sink):
        held = queue.Queue()

        def read():
            while True:
                try:
                    data = source.recv(1 << 20)
                except OSError:
                    data = b""
                held.put((time.monotonic() + self.delay, data))
                if not data:
                    return

        def write():
            while True:
                due, data = held.get()
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                if not data:
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)
                    return
                try:
                    sink.sendall(data)
                except OSError:
                    return

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=write, daemon=True).start()

    def close(self):
        self.closed = True
        self.listener.close()


class Server:
    """nginx serving `root`, in a network namespace with 10 ms of netem
    delay on each end of a veth pair (20 ms round trips); on loopback with
    no added latency where the namespace or the delay cannot be set up."""

    def __init__(self, root, delay_ms=10):
        self.root = root
        self.delay_ms = delay_ms
        self.ns = f"qvbench{os.getpid()}"
        self.veth = f"qvb{os.getpid() % 1000000}h"
        self.peer = f"qvb{os.getpid() % 1000000}n"
        self.tmp = tempfile.mkdtemp(prefix="qv-nginx-")
        self.process = None
        self.netns = False
        self.note = ""
        self.relay = None

    def _ip(self, *args, ns=False):
        prefix = ["ip", "netns", "exec", self.ns] if ns else []
        subprocess.run(prefix + list(args), check=True, capture_output=True, text=True)

    def _setup_netns(self):
        self._ip("ip", "netns", "add", self.ns)
        self.netns = True
        self._ip("ip", "link", "add", self.veth, "type", "veth", "peer", "name", self.peer)
        self._ip("ip", "link", "set", self.peer, "netns", self.ns)
        self._ip("ip", "addr", "add", "10.200.1.1/24", "dev", self.veth)
        self._ip("ip", "link", "set", self.veth, "up")
        self._ip("ip", "addr", "add", "10.200.1.2/24", "dev", self.peer, ns=True)
        self._ip("ip", "link", "set", self.peer, "up", ns=True)
        self._ip("ip", "link", "set", "lo", "up", ns=True)
        delay = f"{self.delay_ms}ms"
        self._ip("tc", "qdisc", "add", "dev", self.veth, "root", "netem", "delay", delay)
        self._ip("tc", "qdisc", "add", "dev", self.peer, "root", "netem", "delay", delay, ns=True)

    def _teardown_netns(self):
        if self.netns:
            subprocess.run(["ip", "link", "del", self.veth], capture_output=True)
            subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
            self.netns = False

    def __enter__(self):
        try:
            self._setup_netns()
            self.host = "10.200.1.2"
            self.note = f"nginx in a network namespace, netem {self.delay_ms} ms each way"
        except (OSError, subprocess.CalledProcessError) as e:
            why = (getattr(e, "stderr", "") or str(e)).strip().splitlines()[-1:]
            self._teardown_netns()
            self.host = "127.0.0.1"
            self.note = (
                f"loopback through a relay holding every chunk {self.delay_ms} ms each way "
                f"(no netem here: {why[0] if why else e})"
            )
        self.port = free_port()
        conf = os.path.join(self.tmp, "nginx.conf")
        temps = "\n".join(
            f"  {kind}_temp_path {self.tmp}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        user = "user root;" if os.geteuid() == 0 else ""
        with open(conf, "w") as f:
            f.write(
                f"""{user}
worker_processes 2;
pid {self.tmp}/nginx.pid;
error_log {self.tmp}/error.log;
events {{ worker_connections 512; }}
http {{
  access_log off;
{temps}
  default_type application/octet-stream;
  sendfile on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  keepalive_timeout 300;
  server {{
    listen {self.host}:{self.port};
    root {self.root};
    location / {{ }}
  }}
}}
"""
            )
        command = ["/usr/sbin/nginx", "-p", self.tmp, "-c", conf, "-g", "daemon off;"]
        if self.netns:
            command = ["ip", "netns", "exec", self.ns] + command
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        deadline = time.time() + 10
        while True:
            try:
                self.rtt_ms()
                break
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    err = self.process.stderr.read() if self.process.poll() is not None else ""
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"nginx did not start: {err.strip()}")
                time.sleep(0.1)
        if not self.netns:
            self.relay = LatencyRelay(self.host, self.port, self.delay_ms)
        return self

    def url(self, name):
        if self.relay is not None:
            return f"http://127.0.0.1:{self.relay.port}/{name}"
        return f"http://{self.host}:{self.port}/{name}"

    def rtt_ms(self, tries=5):
        """The least time of a HEAD request on a kept-alive connection."""
        port = self.relay.port if self.relay is not None else self.port
        host = "127.0.0.1" if self.relay is not None else self.host
        conn = http.client.HTTPConnection(host, port, timeout=5)
        best = float("inf")
        try:
            for _ in range(tries):
                start = time.perf_counter()
                conn.request("HEAD", "/")
                conn.getresponse().read()
                best = min(best, time.perf_counter() - start)
        finally:
            conn.close()
        return best * 1000

    def __exit__(self, *exc):
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            if self.relay is not None:
                self.relay.close()
            self._teardown_netns()
            shutil.rmtree(self.tmp, ignore_errors=True)


# ---------------------------------------------------------------- report


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 2**20
    except OSError:
        mem = float("nan")
    versions = [f"quiver {qv.__version__ if hasattr(qv, '__version__') else '?'}"]
    versions.append(f"pyarrow {pa.__version__}")
    for name, module in (("datasets", "datasets"), ("pylance", "lance")):
        try:
            versions.append(f"{name} {__import__(module).__version__}")
        except ImportError:
            versions.append(f"{name} not installed")
    return (
        f"{model}, {os.cpu_count()} cores, {mem:.1f} GiB memory, Linux {platform.release()}, "
        f"Python {platform.python_version()}; {', '.join(versions)}; "
        f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}"
    )


def us(x):
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def verdict(ok):
    return "met" if ok else "**not met**"


class Report:
    def __init__(self):
        self.lines = []
        self.targets = []

    def add(self, *lines):
        for line in lines:
            print(line, flush=True)
            self.lines.append(line)

    def target(self, what, figure, ok):
        self.targets.append(f"| {what} | {figure} | {verdict(ok)} |")


def gib_name(gib):
    return f"{gib:g}GiB"


# ----------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--gib",
        default="1,4",
        help="uncompressed sizes in GiB, comma-separated (default 1,4; the issue's pair is 1,16)",
    )
    parser.add_argument("--big", action="store_true", help="add the 16 GiB dataset")
    parser.add_argument("--samples", type=int, default=2000, help="one-row calls per contender")
    parser.add_argument("--takes", type=int, default=200, help="64-row calls per contender")
    parser.add_argument(
        "--budget", type=float, default=15.0, help="seconds per variant before stopping early"
    )
    parser.add_argument(
        "--compressed-takes", type=int, default=100, help="64-row takes of the quarter-cache run"
    )
    parser.add_argument("--remote-takes", type=int, default=100, help="64-row takes, remote")
    parser.add_argument(
        "--remote-threads", type=int, default=16, help="threads taking at once, remote and local"
    )
    parser.add_argument(
        "--sections",
        default="local,ragged,compressed,remote",
        help="of local,ragged,compressed,remote (default all)",
    )
    parser.add_argument(
        "--only",
        default="quiver,pyarrow,datasets,lance",
        help="contenders of the local section (default all)",
    )
    parser.add_argument(
        "--data-dir", help="keep the files here and reuse them (default: a temp dir)"
    )
    parser.add_argument("--report", help="also write the markdown report to this file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        spec = json.loads(args.worker)
        print(json.dumps(WORKERS[spec["kind"]](spec)))
        return

    sizes = [float(g) for g in args.gib.split(",")]
    if args.big and 16 not in sizes:
        sizes.append(16.0)
    sizes.sort()
    sections = set(args.sections.split(","))
    libs = args.only.split(",")
    for lib, module in (("datasets", "datasets"), ("lance", "lance")):
        if lib in libs:
            try:
                __import__(module)
            except ImportError:
                print(f"{lib}: skipped ({module} is not installed)")
                libs.remove(lib)

    data_dir = args.data_dir or tempfile.mkdtemp(prefix="qv-bench-dataset-", dir=args.data_dir)
    os.makedirs(data_dir, exist_ok=True)
    report = Report()
    started = time.time()
    try:
        report.add(
            "## quiver.dataset: random access (bench/python/bench_dataset.py)",
            "",
            f"Machine: {machine()}.",
            "",
        )
        files = prepare(args, sizes, sections, libs, data_dir, report)
        if "local" in sections:
            section_local(args, sizes, libs, files, report)
        if "ragged" in sections:
            section_ragged(args, sizes, files, report)
        if "compressed" in sections:
            section_compressed(args, sizes, files, report)
        if "remote" in sections:
            section_remote(args, sizes, files, data_dir, report)
        report.add("### Targets", "", "| target | figure | |", "|---|---|---|", *report.targets, "")
        report.add(f"Whole run: {(time.time() - started) / 60:.1f} minutes.")
    finally:
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(report.lines) + "\n")


def prepare(args, sizes, sections, libs, data_dir, report):
    """Writes (or, with --data-dir, reuses) the files the sections need."""
    files = {}
    writers = set()
    start = time.time()

    def need(path, write):
        """write(target) unless `path` exists (from an earlier --data-dir
        run); written under a temporary name, renamed once complete."""
        if not os.path.exists(path):
            partial = path + ".partial"
            shutil.rmtree(partial, ignore_errors=True)
            result = write(partial)
            if isinstance(result, str):
                writers.add(result)
            os.rename(partial, path)
        return path

    for gib in sizes if sections & {"local", "remote"} else sizes[:1]:
        rows = int(gib * 2**30) // ROW_BYTES
        name = gib_name(gib)
        path = os.path.join(data_dir, f"images-{name}.arrow")
        need(path, lambda t: write_ipc_file(image_batches(rows, args.seed), t))
        entry = dict(rows=rows, path=path)
        if "local" in sections and "datasets" in libs:
            stream = os.path.join(data_dir, f"images-{name}.hf.arrows")
            entry["datasets"] = need(stream, lambda t: write_hf_stream(path, t))
        if "local" in sections and "lance" in libs:
            uri = os.path.join(data_dir, f"images-{name}.lance")
            entry["lance"] = need(uri, lambda t: write_lance(path, t))
        files[gib] = entry
    small = sizes[0]
    rows = int(small * 2**30) // ROW_BYTES
    if sections & {"compressed", "remote"}:
        for codec in ("lz4", "zstd"):
            path = os.path.join(data_dir, f"images-{gib_name(small)}-{codec}.arrow")
            need(path, lambda t: write_ipc_file(image_batches(rows, args.seed), t, codec))
            files[codec] = dict(rows=rows, path=path, decoded=rows * ROW_BYTES)
    if "compressed" in sections:
        # The same rows, each buffer compressed in independent blocks: a
        # take of a few rows decodes only the blocks that hold them.
        for codec in ("lz4", "zstd"):
            path = os.path.join(data_dir, f"images-{gib_name(small)}-{codec}-blocks.arrow")
            need(
                path,
                lambda t: write_ipc_file(image_batches(rows, args.seed), t, codec, BLOCK_BYTES),
            )
            files[f"{codec}-blocks"] = dict(rows=rows, path=path, decoded=rows * ROW_BYTES)
    if "ragged" in sections:
        path = os.path.join(data_dir, f"ragged-{gib_name(small)}.arrow")
        need(path, lambda t: write_ipc_file(ragged_batches(int(small * 2**30), args.seed), t))
        files["ragged"] = dict(rows=qv.dataset(path).num_rows, path=path)
    written = ", ".join(sorted(writers)) or "none written: all reused"
    report.add(
        f"Data: {ROW_BYTES:,} bytes a row (3x64x64 uint8 fixed_shape_tensor + int64), record "
        f"batches of {ROWS_PER_BATCH} rows (~1 MiB); sizes {', '.join(gib_name(g) for g in sizes)}"
        f"; files written by {written} in {time.time() - start:.0f} s.",
        "",
    )
    return files


def section_local(args, sizes, libs, files, report):
    results = {}
    touches = {}
    for gib in sizes:
        for lib in libs:
            path = files[gib].get(lib, files[gib]["path"])
            warm(path)
            spec = dict(
                kind="latency",
                lib=lib,
                path=path,
                rows=files[gib]["rows"],
                samples=args.samples,
                takes=args.takes,
                budget=args.budget,
                seed=args.seed + 1,
            )
            r = run_worker(spec)
            if isinstance(r, str):
                print(f"{lib} at {gib_name(gib)}: {r}", flush=True)
                results[(gib, lib)] = r
                continue
            for variant, v in r.items():
                if not variant.startswith("_"):
                    results[(gib, variant)] = v
            if "_first_touch" in r:
                touches[gib] = r["_first_touch"]
            print(f"  measured {lib} at {gib_name(gib)}", flush=True)
    latency_table(
        report, "Random rows, uncompressed, memory-mapped, page cache warm", sizes, results
    )
    if touches:
        report.add(
            "quiver `ds[i]`, a record batch's first row against a second row of it:",
            "",
            "| size | first row of a batch p50 | p99 | second row p50 | p99 |",
            "|---|---|---|---|---|",
        )
        for gib, t in touches.items():
            report.add(
                f"| {gib_name(gib)} | {us(t['cold']['p50'])} µs | {us(t['cold']['p99'])} µs | "
                f"{us(t['warm']['p50'])} µs | {us(t['warm']['p99'])} µs |"
            )
        report.add("")

    # The targets compare the fastest variant of each side (quiver's
    # zero-copy ds[i] or its copying take, a peer's fastest format).
    def fastest(gib, prefix, key):
        found = [
            (k[1], v)
            for k, v in results.items()
            if k[0] == gib and k[1].startswith(prefix) and isinstance(v, dict) and key in v
        ]
        return min(found, key=lambda kv: kv[1][key]["p50"]) if found else None

    for gib in sizes:
        for peer in ("datasets", "lance"):
            for key, what in (("one", "one row (p50)"), ("many", "64 rows (median)")):
                q, p = fastest(gib, "quiver", key), fastest(gib, peer, key)
                if not q or not p:
                    continue
                ratio = p[1][key]["p50"] / q[1][key]["p50"]
                report.target(
                    f"{what}, {gib_name(gib)}: quiver >= 20x faster than {peer} (fastest "
                    "variant of each)",
                    f"{ratio:.1f}x ({q[0]} {us(q[1][key]['p50'])} µs vs {p[0]} "
                    f"{us(p[1][key]['p50'])} µs)",
                    ratio >= 20,
                )
    for variant in ("quiver ds.take([i])", "quiver ds[i] (64 rows: __getitems__)"):
        a, b = results.get((sizes[0], variant)), results.get((sizes[-1], variant))
        if len(sizes) > 1 and isinstance(a, dict) and isinstance(b, dict):
            ratio = b["one"]["p50"] / a["one"]["p50"]
            report.target(
                f"{variant} flat from {gib_name(sizes[0])} to {gib_name(sizes[-1])} (p50 ratio "
                "<= 1.5)",
                f"{ratio:.2f}x ({us(a['one']['p50'])} -> {us(b['one']['p50'])} µs)",
                ratio <= 1.5,
            )


def latency_table(report, title, sizes, results):
    names = []
    for (_, variant), _v in results.items():
        if variant not in names:
            names.append(variant)
    ref = "quiver ds.take([i])"
    head = ["contender"]
    for gib in sizes:
        g = gib_name(gib)
        head += [f"{g} 1 row p50 µs", "p99 µs", "x quiver", f"{g} 64 rows median µs", "x quiver"]
    report.add(f"### {title}", "", "| " + " | ".join(head) + " |", "|---" * len(head) + "|")
    for name in names:
        row = [name]
        for gib in sizes:
            v = results.get((gib, name))
            q = results.get((gib, ref))
            if not isinstance(v, dict):
                row += [str(v or "-")] + ["-"] * 4
                continue
            one_ratio = v["one"]["p50"] / q["one"]["p50"] if isinstance(q, dict) else None
            row += [us(v["one"]["p50"]), us(v["one"]["p99"])]
            row.append(f"{one_ratio:.1f}" if one_ratio else "-")
            if "many" in v:
                ratio = v["many"]["p50"] / q["many"]["p50"] if isinstance(q, dict) else None
                row += [us(v["many"]["p50"]), f"{ratio:.1f}" if ratio else "-"]
            else:
                row += ["-", "-"]
        report.add("| " + " | ".join(row) + " |")
    counts = {v["one"]["n"] for v in results.values() if isinstance(v, dict)} | {
        v["many"]["n"] for v in results.values() if isinstance(v, dict) and "many" in v
    }
    report.add(
        "",
        "x quiver: the contender's time / quiver ds.take's (> 1: quiver is faster). Calls per "
        f"figure: {', '.join(str(c) for c in sorted(counts))} (fewer where a variant spent "
        f"its --budget).",
        "",
    )


def section_ragged(args, sizes, files, report):
    f = files["ragged"]
    results = {}
    for lib in ("quiver", "pyarrow"):
        warm(f["path"])
        spec = dict(
            kind="latency",
            lib=lib,
            path=f["path"],
            rows=f["rows"],
            samples=args.samples,
            takes=args.takes,
            budget=args.budget,
            seed=args.seed + 2,
        )
        r = run_worker(spec)
        if isinstance(r, str):
            results[(sizes[0], lib)] = r
            continue
        for variant, v in r.items():
            if not variant.startswith("_"):
                results[(sizes[0], variant)] = v
    latency_table(
        report,
        f"Ragged rows (variable_shape_tensor 3 x [32..96] x [32..96] uint8, {f['rows']:,} rows)",
        sizes[:1],
        results,
    )


def section_compressed(args, sizes, files, report):
    report.add(
        f"### Compressed files ({gib_name(sizes[0])} decoded, record batches of "
        f"{ROWS_PER_BATCH} rows)",
        "",
        "| codec | read | cache_bytes | mapped | rows/s | x in order | peak RSS MiB (VmHWM) | "
        "above baseline | ru_maxrss MiB | cache hits / misses / evictions |",
        "|---|---|---|---|---|---|---|---|---|---|",
    )
    for codec in ("lz4", "lz4-blocks", "zstd", "zstd-blocks"):
        f = files[codec]
        quarter = f["decoded"] // 4
        whole = f["decoded"] * 2
        warm(f["path"])
        runs = [
            ("in order, ds[a:a+64]", "slices", quarter, True),
            ("in order, to_batches()", "to_batches", quarter, True),
            (f"shuffled, {args.compressed_takes} takes of 64", "shuffled", quarter, True),
            (f"shuffled, {args.compressed_takes} takes of 64", "shuffled", quarter, False),
            ("shuffled epoch, takes of 64", "epoch", whole, True),
        ]
        in_order = None
        ratio_pct = 100 * os.path.getsize(f["path"]) / f["decoded"]
        for label, mode, cache, mapped in runs:
            spec = dict(
                kind="compressed",
                path=f["path"],
                rows=f["rows"],
                mode=mode,
                cache_bytes=cache,
                memory_map=mapped,
                takes=args.compressed_takes,
                seed=args.seed + 3,
            )
            r = run_worker(spec)
            if isinstance(r, str):
                report.add(f"| {codec} | {label} | | | {r} | | | | | |")
                continue
            rate = r["rows"] / r["seconds"]
            if mode == "slices":
                in_order = rate
            hwm = r["peak"]["VmHWM"]
            above = hwm - r["base"]["VmRSS"]
            s = r["stats"]
            cache_label = "decoded x 2" if cache == whole else "decoded / 4"
            report.add(
                f"| {codec} ({ratio_pct:.0f}% of decoded) | {label} | {cache_label} "
                f"({cache >> 20} MiB) | {'yes' if mapped else 'pread'} | {rate:,.0f} | "
                f"{rate / in_order:.3f} | {hwm:.0f} | {above:.0f} | {r['maxrss']:.0f} | "
                f"{s['hits']} / {s['misses']} / {s['evictions']} |"
            )
            if mode in ("shuffled", "epoch") and in_order:
                report.target(
                    f"{codec}: shuffled take >= 0.5x in order ({label}, cache {cache_label}, "
                    f"{'mapped' if mapped else 'pread'})",
                    f"{rate / in_order:.3f}x ({rate:,.0f} vs {in_order:,.0f} rows/s)",
                    rate / in_order >= 0.5,
                )
            if mode == "shuffled":
                limit = (cache >> 20) + 64
                report.target(
                    f"{codec}: RSS <= cache_bytes + 64 MiB above baseline ({label}, "
                    f"{'mapped' if mapped else 'pread'})",
                    f"{above:.0f} MiB above a {r['base']['VmRSS']:.0f} MiB baseline (raw peak "
                    f"{hwm:.0f} MiB) vs {limit} MiB",
                    above <= limit,
                )
    report.add(
        "",
        "rows/s: rows returned / seconds of the loop, one worker process each; x in order: "
        "against ds[a:a+64] over the whole file with the same cache. -blocks: the same rows "
        f"written with compression_block_bytes={BLOCK_BYTES}. Baseline: the worker's "
        "VmRSS after its imports; VmHWM is the worker's own peak (ru_maxrss also counts the "
        "parent's RSS at fork, kept across exec).",
        "",
    )


def section_remote(args, sizes, files, data_dir, report):
    if not remote_built():
        report.add("remote: skipped (this build reads no remote data)", "")
        return
    big = files[sizes[-1]]["path"]
    small = files[sizes[0]]["path"]
    with Server(data_dir) as server:
        rtt = server.rtt_ms()
        shuffled = [("uncompressed", small, False)]
        for codec in ("lz4", "zstd"):
            if codec in files:
                shuffled.append((codec, files[codec]["path"], True))
        spec = dict(
            kind="remote",
            big_url=server.url(os.path.basename(big)),
            files=[
                (name, server.url(os.path.basename(p)), p, compressed)
                for name, p, compressed in shuffled
            ],
            takes=args.remote_takes,
            concurrency=args.remote_threads,
            budget=args.budget * 4,
            seed=args.seed + 4,
        )
        for _, p, _ in shuffled:
            warm(p)
        r = run_worker(spec)
    report.add(f"### Remote ({server.note}; HTTP round trip {rtt:.1f} ms)", "")
    if isinstance(r, str):
        report.add(f"remote: {r}", "")
        return
    report.add(
        "| open + first row of | requests | seconds | round trips (seconds / RTT) "
        "| bytes fetched |",
        "|---|---|---|---|---|",
    )
    for o in r["open"]:
        report.add(
            f"| {os.path.basename(big)} ({file_bytes(big) / 2**30:.1f} GiB) | "
            f"{o['stats']['requests']} | {o['first_row_s']:.3f} (open {o['open_s']:.3f}) | "
            f"{o['first_row_s'] * 1000 / rtt:.1f} | {o['stats']['bytes_fetched']:,} |"
        )
    first = r["open"][0]
    report.target(
        f"remote open + first row of the {gib_name(sizes[-1])} file in <= 3 round trips",
        f"{first['stats']['requests']} requests, {first['first_row_s'] * 1000:.0f} ms = "
        f"{first['first_row_s'] * 1000 / rtt:.1f} RTT",
        first["stats"]["requests"] <= 3 and first["first_row_s"] * 1000 / rtt <= 3.5,
    )
    threads = spec["concurrency"]
    report.add(
        "",
        "| file | local rows/s | remote rows/s | remote / local | "
        f"{threads} threads: local rows/s | remote rows/s | remote / local | requests | "
        "bytes fetched | bytes needed | fetched / needed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    )
    for name, v in r["files"].items():
        local = v["local"]["rows"] / v["local"]["seconds"]
        remote = v["remote"]["rows"] / v["remote"]["seconds"]
        local_par = v["local"]["parallel_rows"] / v["local"]["parallel_seconds"]
        remote_par = v["remote"]["parallel_rows"] / v["remote"]["parallel_seconds"]
        over = v["remote"]["fetched"] / max(1, v["remote"]["needed"])
        report.add(
            f"| {name} | {local:,.0f} | {remote:,.0f} | {remote / local:.3f} | "
            f"{local_par:,.0f} | {remote_par:,.0f} | {remote_par / local_par:.3f} | "
            f"{v['remote']['requests']} | {v['remote']['fetched']:,} | {v['remote']['needed']:,} "
            f"| {over:.2f} |"
        )
        report.target(
            f"remote shuffled 64-row takes >= 25% of local, {threads} threads each ({name})",
            f"{100 * remote_par / local_par:.1f}% (one thread: {100 * remote / local:.1f}%)",
            remote_par / local_par >= 0.25,
        )
        report.target(
            f"remote bytes fetched / needed <= 1.5x ({name})", f"{over:.2f}x", over <= 1.5
        )
    report.add("")


if __name__ == "__main__":
    main()
