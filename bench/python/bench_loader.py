"""quiver.data.BatchReader against other ways of getting padded training
batches out of Arrow files, measured in one run on the same data.

The dataset: ragged uint8 images (3 x [64..256] x [64..256]) and a fixed
float32 embedding (256 values) per row, in an IPC file of record batches
of 256 rows. Each contender reads one epoch of batches of 64 rows, images
padded to the batch's largest height and width; the figure is the padded
output (every array of every batch, in bytes) per second of the epoch.

- quiver: BatchReader, unshuffled, shuffled (a global permutation), and
  shuffled with size bucketing;
- numpy: the plain loop, a memory-mapped pyarrow table, `take` of each
  batch's rows, then padding row by row in NumPy;
- Ray Data (`iter_batches` with a local shuffle buffer and a padding
  collate) and Hugging Face datasets (`with_format("numpy")`, padding in a
  collate), when installed; skipped with the reason otherwise.

--fixed measures fixed-shape rows (3 x 128 x 128 uint8 images and the
embedding, written by quiver as fixed_shape_tensor columns), which Lance
can hold too (as fixed_size_list columns; it has no ragged type): quiver
in order and shuffled against Lance's `to_batches` in order and `take`
of each shuffled batch's rows, both turned into (B, 3, 128, 128) and
(B, 256) NumPy arrays.

--scale measures the loader beyond the page cache, on images of 8 x 8
flat blocks (so that they compress) rewritten by quiver in record batches
of at most 1 MiB: an LZ4 file read
with a cache of a quarter of its decoded size, in order and with the
window shuffle (whose windows, as many rows as half the cache holds, touch
few record batches),
against the uncompressed file in order; and the uncompressed file served
by nginx behind 20 ms round trips (bench_dataset.py's server: a network
namespace with netem where the kernel has it, else a relay that delays
every chunk), in order, against the local read. Each contender runs in a
process of its own: its best of --repeat epochs (each epoch in its own
order), its peak RSS over them, and its cache counts in the first epoch.

Also printed: the machine's memcpy bandwidth (one large NumPy copy), and
each contender's best of --repeat epochs (3) and its peak RSS: every
contender runs in a process of its own, after a first pass has put the file
in the page cache (the mapped pages a
contender touches count in its RSS).

  python bench/python/bench_loader.py               # 256 MiB
  python bench/python/bench_loader.py --mib 2048    # the 2 GiB dataset
  python bench/python/bench_loader.py --only quiver  # quiver alone
  python bench/python/bench_loader.py --scale      # compressed and remote (below)
  python bench/python/bench_loader.py --fixed      # fixed-shape images, against Lance
  python bench/python/bench_loader.py --plan-rows 1000000000
      # the epoch plan alone: a file of 10^9 int8 rows (1 GB), the memory
      # and time a globally shuffled reader needs to its first batch
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

import quiver as qv
import quiver.data as qd

EMBED = 256
BATCH = 64
RECORD_BATCH = 256


def compressible_image(rng, h, w):
    """A 3 x h x w uint8 image of 8 x 8 flat blocks (compresses as photos
    roughly do, where random bytes would not compress at all)."""
    blocks = rng.integers(0, 256, size=(3, -(-h // 8), -(-w // 8)), dtype=np.uint8)
    return np.ascontiguousarray(blocks.repeat(8, axis=1).repeat(8, axis=2)[:, :h, :w])


def write_dataset(path, target_bytes, seed=0, compressible=False):
    rng = np.random.default_rng(seed)
    written = rows = 0
    schema = None
    with pa.OSFile(path, "wb") as sink:
        writer = None
        while written < target_bytes:
            sizes = rng.integers(64, 257, size=(RECORD_BATCH, 2))
            if compressible:
                images = [compressible_image(rng, h, w) for h, w in sizes]
            else:
                images = [rng.integers(0, 256, size=(3, h, w), dtype=np.uint8) for h, w in sizes]
            emb = rng.standard_normal((RECORD_BATCH, EMBED), dtype=np.float32)
            batch = pa.record_batch(
                {
                    "img": pa.array(qv.VariableShapeTensorArray.from_numpy(images)),
                    "emb": pa.array(qv.FixedShapeTensorArray.from_numpy(emb)),
                }
            )
            if writer is None:
                schema = batch.schema
                writer = pa.ipc.new_file(sink, schema)
            writer.write_batch(batch)
            written += sum(im.nbytes for im in images) + emb.nbytes
            rows += RECORD_BATCH
        writer.close()
    return rows, written


def batch_bytes(batch):
    return sum(v.nbytes for v in batch.values())


def peak_rss_mib():
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts from its parent's
    # peak at fork time, VmHWM from its own memory after exec.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_quiver(path, **options):
    reader = qd.BatchReader(path, batch_size=BATCH, **options)
    start = time.perf_counter()
    total = 0
    for batch in reader:
        total += batch_bytes(batch)
    return total, time.perf_counter() - start, reader.padding_ratio


def pad_rows(rows, shapes):
    """The plain NumPy collate: a zero batch of the largest shape, each row
    copied into its corner."""
    cell = shapes.max(axis=0)
    out = np.zeros((len(rows), *cell), np.uint8)
    for i, (row, shape) in enumerate(zip(rows, shapes)):
        out[i, : shape[0], : shape[1], : shape[2]] = row
    return out


def numpy_batch(table, indices):
    """One padded batch the plain way: take, then pad row by row."""
    part = table.take(pa.array(indices))
    img = part.column("img").combine_chunks()
    storage = img.storage if hasattr(img, "storage") else img
    data, shape = storage.field("data"), storage.field("shape")
    shapes = np.asarray(shape.flatten().to_numpy(zero_copy_only=False)).reshape(-1, 3)
    offsets = data.offsets.to_numpy()
    values = data.values.to_numpy(zero_copy_only=False)
    rows = [values[offsets[i] : offsets[i + 1]].reshape(shapes[i]) for i in range(len(shapes))]
    padded = pad_rows(rows, shapes)
    emb_col = part.column("emb").combine_chunks()
    emb_storage = emb_col.storage if hasattr(emb_col, "storage") else emb_col
    emb = emb_storage.flatten().to_numpy(zero_copy_only=False).reshape(-1, EMBED)
    return padded.nbytes + emb.nbytes + shapes.astype(np.int32).nbytes


def run_numpy(path, shuffle, seed=0):
    table = pa.ipc.open_file(pa.memory_map(path)).read_all()
    n = table.num_rows
    order = np.random.default_rng(seed).permutation(n) if shuffle else np.arange(n)
    numpy_batch(table, order[:BATCH])  # first-call costs (lazy imports) off the clock
    start = time.perf_counter()
    total = 0
    for first in range(0, n, BATCH):
        total += numpy_batch(table, order[first : first + BATCH])
    return total, time.perf_counter() - start


def plain_table(path):
    """The dataset without extension types (what Ray Data can hold): the
    images' flat pixels and shapes as lists, the embedding as a list."""
    table = pa.ipc.open_file(pa.memory_map(path)).read_all()
    chunks = []
    for batch in table.to_batches():
        img = batch.column(0)
        storage = img.storage if hasattr(img, "storage") else img
        emb = batch.column(1)
        emb = emb.storage if hasattr(emb, "storage") else emb
        chunks.append(
            pa.record_batch(
                {
                    "pixels": storage.field("data"),
                    "shape": storage.field("shape").cast(pa.list_(pa.int32())),
                    "emb": emb.cast(pa.list_(pa.float32())),
                }
            )
        )
    return pa.Table.from_batches(chunks)


def pad_collate(batch):
    """Ray's batches as padded arrays: the NumPy collate a user writes."""
    shapes = np.stack(batch["shape"]).astype(np.int32)
    rows = [np.asarray(p).reshape(s) for p, s in zip(batch["pixels"], shapes)]
    padded = pad_rows(rows, shapes)
    emb = np.stack(batch["emb"]).astype(np.float32, copy=False)
    return padded.nbytes + emb.nbytes + shapes.nbytes


def run_ray(path, shuffle):
    import ray

    ray.init(
        num_cpus=os.cpu_count(),
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    ds = ray.data.from_arrow(plain_table(path))
    buffer = 16 * BATCH if shuffle else None
    start = time.perf_counter()
    total = 0
    for batch in ds.iter_batches(
        batch_size=BATCH, batch_format="numpy", local_shuffle_buffer_size=buffer
    ):
        total += pad_collate(batch)
    seconds = time.perf_counter() - start
    ray.shutdown()
    return total, seconds


def run_hf(path, shuffle):
    """Hugging Face datasets over the same rows: its own memory-mapped
    Arrow stream file (what its cache holds), `with_format("numpy")`,
    batches from `iter`, padded by the same collate; shuffled with its
    `shuffle` (an indices mapping gathered per batch)."""
    import datasets

    datasets.disable_progress_bars()
    stream = path + ".hf.arrows"
    if not os.path.exists(stream):
        table = plain_table(path)
        with pa.OSFile(stream, "wb") as sink:
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
    ds = datasets.Dataset.from_file(stream).with_format("numpy")
    if shuffle:
        ds = ds.shuffle(seed=0)
    start = time.perf_counter()
    total = 0
    for batch in ds.iter(batch_size=BATCH):
        total += pad_collate(batch)
    return total, time.perf_counter() - start


def memcpy_gbps(mib=256):
    src = np.ones(mib << 20, np.uint8)
    dst = np.empty_like(src)
    best = min(_timed(lambda: np.copyto(dst, src)) for _ in range(5))
    return src.nbytes / best / 1e9


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


FIXED_SHAPE = (3, 128, 128)


def write_fixed(path, target_bytes, seed=0):
    rng = np.random.default_rng(seed)
    row_bytes = int(np.prod(FIXED_SHAPE)) + EMBED * 4
    rows = max(BATCH, target_bytes // row_bytes)
    images = rng.integers(0, 256, size=(rows, *FIXED_SHAPE), dtype=np.uint8)
    emb = rng.standard_normal((rows, EMBED), dtype=np.float32)
    table = qv.table(
        {
            "img": qv.FixedShapeTensorArray.from_numpy(images),
            "emb": qv.FixedShapeTensorArray.from_numpy(emb),
        }
    )
    qv.ipc.write_file(table, path, max_batch_rows=RECORD_BATCH)
    return rows, images.nbytes + emb.nbytes


def lance_batch(table):
    """A Lance batch's rows as the arrays quiver gives: (B, 3, 128, 128)
    and (B, 256)."""
    n = table.num_rows
    img = table.column("img").combine_chunks()
    emb = table.column("emb").combine_chunks()
    images = img.values.to_numpy(zero_copy_only=False).reshape(n, *FIXED_SHAPE)
    embeddings = emb.values.to_numpy(zero_copy_only=False).reshape(n, EMBED)
    return images.nbytes + embeddings.nbytes


def run_lance(uri, shuffle, seed=0):
    import lance

    ds = lance.dataset(uri)
    n = ds.count_rows()
    start = time.perf_counter()
    total = 0
    if shuffle:
        order = np.random.default_rng(seed).permutation(n)
        for first in range(0, n, BATCH):
            total += lance_batch(ds.take(order[first : first + BATCH]))
    else:
        for batch in ds.to_batches(batch_size=BATCH):
            total += lance_batch(pa.Table.from_batches([batch]))
    return total, time.perf_counter() - start


FIXED_CONTENDERS = {
    "quiver, in order": ("quiver", dict()),
    "quiver, shuffled": ("quiver", dict(shuffle=True)),
    "lance, in order (to_batches)": ("lance", dict(shuffle=False)),
    "lance, shuffled (take per batch)": ("lance", dict(shuffle=True)),
}


def run_fixed_one(name, path, repeat):
    kind, options = FIXED_CONTENDERS[name]
    best = None
    for _ in range(repeat):
        if kind == "quiver":
            total, seconds, _ = run_quiver(path, **options)
        else:
            total, seconds = run_lance(path + ".lance", **options)
        if best is None or seconds < best[1]:
            best = (total, seconds)
    total, seconds = best
    print(json.dumps(dict(total=total, seconds=seconds, rss=peak_rss_mib())))


def run_fixed(args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fixed.arrow")
        rows, data_bytes = write_fixed(path, args.mib << 20)
        lance_ok = has_module("lance")
        if lance_ok:
            import lance

            source = pa.ipc.open_file(pa.memory_map(path)).read_all()
            storage = pa.table(
                {
                    name: (
                        col.combine_chunks().storage
                        if hasattr(col.type, "storage_type")
                        else col.combine_chunks()
                    )
                    for name, col in zip(source.column_names, source.columns)
                }
            )
            lance.write_dataset(storage, path + ".lance")
        print(
            f"dataset: {rows} rows of {FIXED_SHAPE} uint8 and {EMBED} float32, "
            f"{data_bytes / 2**20:.0f} MiB, batches of {BATCH}, {os.cpu_count()} cores"
        )
        print(f"{'contender':<34} {'GB/s':>7} {'seconds':>8} {'peak RSS MiB':>13}")
        run_quiver(path, prefetch=0)  # the file into the page cache
        for name, (kind, _) in FIXED_CONTENDERS.items():
            if kind == "lance" and not lance_ok:
                print(f"{name:<34} skipped (lance is not installed)")
                continue
            command = [
                sys.executable,
                __file__,
                "--contender",
                "fixed:" + name,
                "--path",
                path,
                "--repeat",
                str(args.repeat),
            ]
            out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=3600)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"{name:<34} {r['total'] / r['seconds'] / 1e9:>7.2f} {r['seconds']:>8.2f} "
                f"{r['rss']:>13.0f}",
                flush=True,
            )


SCALE_CONTENDERS = {
    "uncompressed, in order": ("plain", dict()),
    "LZ4, cache 1/4, in order": ("lz4", dict(quarter=True)),
    "LZ4, cache 1/4, window shuffle": ("lz4", dict(quarter=True, shuffle="window")),
    "LZ4, cache 1/4, global shuffle": ("lz4", dict(quarter=True, shuffle=True)),
    "remote (20 ms RTT), in order": ("remote", dict()),
}


def run_scale_one(name, path, decoded_bytes, repeat):
    kind, options = SCALE_CONTENDERS[name]
    options = dict(options)
    if options.pop("quarter", False):
        options["cache_bytes"] = decoded_bytes // 4
    baseline = rss_mib("VmRSS")  # the interpreter and its imports
    reader = qd.BatchReader(path, batch_size=BATCH, **options)
    seconds, stats = [], None
    for epoch in range(repeat):
        reader.set_epoch(epoch)
        start = time.perf_counter()
        total = sum(batch_bytes(batch) for batch in reader)
        seconds.append(time.perf_counter() - start)
        stats = stats or reader.stats()  # the first epoch's
    rss = peak_rss_mib()
    print(
        json.dumps(
            dict(
                total=total,
                seconds=min(seconds),
                rss=rss,
                above=rss - baseline,
                cache=options.get("cache_bytes", 256 << 20),
                stats=stats,
            )
        )
    )


def run_scale(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_dataset

    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "images.arrow")
        rows, data_bytes = write_dataset(source, args.mib << 20, compressible=True)
        table = qv.table(pa.ipc.open_file(pa.memory_map(source)).read_all())
        paths = {}
        for kind, codec in (("plain", None), ("lz4", "lz4")):
            paths[kind] = os.path.join(tmp, f"{kind}.arrow")
            qv.ipc.write_file(table, paths[kind], compression=codec, max_batch_bytes=1 << 20)
        del table
        decoded = os.path.getsize(paths["plain"])
        print(
            f"dataset: {rows} rows, {decoded / 2**20:.0f} MiB uncompressed, LZ4 "
            f"{os.path.getsize(paths['lz4']) / decoded:.0%} of that, record batches of <= 1 MiB, "
            f"batches of {BATCH}, {os.cpu_count()} cores"
        )
        print(
            f"{'contender':<34} {'GB/s':>7} {'seconds':>8} {'peak RSS MiB':>13} "
            f"{'above start':>12} {'cache MiB':>10}  cache"
        )
        results = {}
        server = None
        if bench_dataset.remote_built():
            server = bench_dataset.Server(tmp).__enter__()
            print(f"remote: {server.note}, HTTP round trip {server.rtt_ms():.1f} ms")
        try:
            for name, (kind, _) in SCALE_CONTENDERS.items():
                if kind == "remote" and server is None:
                    print(f"{name:<34} skipped (this build reads no http://)")
                    continue
                where = server.url("plain.arrow") if kind == "remote" else paths[kind]
                command = [
                    sys.executable,
                    __file__,
                    "--contender",
                    "scale:" + name,
                    "--path",
                    where,
                    "--decoded",
                    str(decoded),
                    "--repeat",
                    str(args.repeat),
                ]
                out = subprocess.run(
                    command, capture_output=True, text=True, check=True, timeout=3600
                )
                r = json.loads(out.stdout.strip().splitlines()[-1])
                results[name] = r
                cache = r["stats"]
                print(
                    f"{name:<34} {r['total'] / r['seconds'] / 1e9:>7.2f} {r['seconds']:>8.2f} "
                    f"{r['rss']:>13.0f} {r['above']:>12.0f} {r['cache'] / 2**20:>10.0f}  "
                    f"misses {cache['misses']}, hits {cache['hits']}, "
                    f"decoded {cache['bytes_decoded'] / 2**20:.0f} MiB",
                    flush=True,
                )
        finally:
            if server is not None:
                server.__exit__(None, None, None)

    def ratio(a, b):
        if a in results and b in results:
            return results[b]["seconds"] / results[a]["seconds"]
        return float("nan")

    window = ratio("LZ4, cache 1/4, window shuffle", "LZ4, cache 1/4, in order")
    lz4 = ratio("LZ4, cache 1/4, in order", "uncompressed, in order")
    remote = ratio("remote (20 ms RTT), in order", "uncompressed, in order")
    print(f"LZ4 window shuffle / LZ4 in order: {window:.2f} (target >= 0.5)")
    print(f"LZ4 in order / uncompressed in order: {lz4:.2f} (target >= 0.7)")
    print(f"remote in order / local in order: {remote:.2f} (target >= 0.5)")


def has_module(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True


CONTENDERS = {
    "quiver, in order": ("quiver", dict()),
    "quiver, shuffled": ("quiver", dict(shuffle=True)),
    "quiver, shuffled, bucketed (K=16)": (
        "quiver",
        dict(shuffle=True, bucket_by="img", bucket_window=16),
    ),
    "numpy loop, in order": ("numpy", dict(shuffle=False)),
    "numpy loop, shuffled": ("numpy", dict(shuffle=True)),
    "ray data, in order": ("ray", dict(shuffle=False)),
    "ray data, local shuffle buffer": ("ray", dict(shuffle=True)),
    "hf datasets, in order": ("datasets", dict(shuffle=False)),
    "hf datasets, shuffled": ("datasets", dict(shuffle=True)),
}


def run_one(name, path, threads, repeat):
    """One contender, in this process, `repeat` epochs: prints a JSON line
    of its best epoch (the machine may be shared and noisy)."""
    kind, options = CONTENDERS[name]
    best = None
    for _ in range(repeat):
        if kind == "quiver":
            total, seconds, padding = run_quiver(path, num_threads=threads, **options)
        elif kind == "ray":
            (total, seconds), padding = run_ray(path, **options), None
        elif kind == "datasets":
            (total, seconds), padding = run_hf(path, **options), None
        else:
            (total, seconds), padding = run_numpy(path, **options), None
        if best is None or seconds < best[1]:
            best = (total, seconds, padding)
    total, seconds, padding = best
    print(json.dumps(dict(total=total, seconds=seconds, padding=padding, rss=peak_rss_mib())))


def plan_cost(path):
    """RSS growth and seconds from opening a globally shuffled reader of
    `path` to its first batch (in a process of its own)."""
    before = rss_mib("RssAnon"), rss_mib("RssFile")
    start = time.perf_counter()
    reader = qd.BatchReader(path, batch_size=1024, shuffle=True, seed=1, prefetch=0)
    first = next(iter(reader))
    seconds = time.perf_counter() - start
    assert len(first["x"]) == 1024
    print(
        json.dumps(
            dict(
                rows=reader.num_rows,
                seconds=seconds,
                anon_growth_mib=rss_mib("RssAnon") - before[0],
                file_growth_mib=rss_mib("RssFile") - before[1],
                plan_bytes=reader.plan_bytes,
            )
        )
    )


def rss_mib(field):
    """A /proc/self/status figure in MiB: RssAnon (memory the process
    allocated) or RssFile (file pages it maps: the rows it read)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run_plan(rows):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.arrow")
        chunk = 1 << 24
        schema = qv.table({"x": np.zeros(0, np.int8)}).schema
        with qv.ipc.new_file(path, schema, max_batch_rows=1 << 20) as writer:
            for start in range(0, rows, chunk):
                n = min(chunk, rows - start)
                values = (np.arange(start, start + n) % 127).astype(np.int8)
                writer.write_table(qv.table({"x": values}))
        command = [sys.executable, __file__, "--contender", "plan", "--path", path]
        out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"plan: {r['rows']:,} int8 rows, shuffle=True, batch 1024: first batch after "
            f"{r['seconds'] * 1000:.1f} ms, allocated memory (RssAnon) +"
            f"{r['anon_growth_mib']:.1f} MiB, mapped file pages (RssFile) +"
            f"{r['file_growth_mib']:.1f} MiB, plan {r['plan_bytes']} bytes; a table of rows "
            f"would take {r['rows'] * 8 / 2**20:,.0f} MiB"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--mib",
        type=int,
        default=int(os.environ.get("QUIVER_BENCH_LOADER_MIB", 256)),
        help="dataset size in MiB (default 256; the issue's figure is 2048)",
    )
    parser.add_argument("--threads", type=int, default=None, help="num_threads for quiver")
    parser.add_argument("--repeat", type=int, default=3, help="epochs per contender (best)")
    parser.add_argument(
        "--only",
        default="quiver,numpy,ray,datasets",
        help="contenders to run, of quiver,numpy,ray,datasets (default all)",
    )
    parser.add_argument(
        "--plan-rows",
        type=int,
        default=0,
        help="measure only the epoch plan over a file of this many int8 rows",
    )
    parser.add_argument(
        "--scale", action="store_true", help="compressed and remote datasets (see above)"
    )
    parser.add_argument(
        "--fixed", action="store_true", help="fixed-shape rows, against Lance (see above)"
    )
    parser.add_argument("--contender", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    parser.add_argument("--decoded", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender and args.contender.startswith("fixed:"):
        return run_fixed_one(args.contender[len("fixed:") :], args.path, args.repeat)
    if args.fixed:
        return run_fixed(args)
    if args.contender and args.contender.startswith("scale:"):
        return run_scale_one(args.contender[len("scale:") :], args.path, args.decoded, args.repeat)
    if args.scale:
        return run_scale(args)
    if args.contender == "plan":
        return plan_cost(args.path)
    if args.contender:
        return run_one(args.contender, args.path, args.threads, args.repeat)
    if args.plan_rows:
        return run_plan(args.plan_rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "images.arrow")
        rows, data_bytes = write_dataset(path, args.mib << 20)
        print(
            f"dataset: {rows} rows, {data_bytes / 2**20:.0f} MiB of values, "
            f"batches of {BATCH}, {os.cpu_count()} cores"
        )
        print(f"memcpy bandwidth: {memcpy_gbps():.2f} GB/s")
        print(f"{'contender':<34} {'GB/s':>7} {'seconds':>8} {'padding':>8} {'peak RSS MiB':>13}")
        run_quiver(path, prefetch=0)  # the file into the page cache
        for name, (kind, _) in CONTENDERS.items():
            if kind not in args.only.split(","):
                continue
            if kind in ("ray", "datasets") and not has_module(kind):
                print(f"{name:<34} skipped ({kind} is not installed)")
                continue
            command = [
                sys.executable,
                __file__,
                "--contender",
                name,
                "--path",
                path,
                "--repeat",
                str(args.repeat),
            ]
            if args.threads:
                command += ["--threads", str(args.threads)]
            try:
                out = subprocess.run(
                    command, capture_output=True, text=True, check=True, timeout=1800
                )
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
                tail = (getattr(e, "stderr", "") or "").strip().splitlines()[-1:]
                print(f"{name:<34} failed: {tail[0] if tail else e}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            pad = f"{r['padding']:.3f}" if r["padding"] is not None else "-"
            print(
                f"{name:<34} {r['total'] / r['seconds'] / 1e9:>7.2f} {r['seconds']:>8.2f} "
                f"{pad:>8} {r['rss']:>13.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
