"""Arrow IPC against pyarrow, measured in one run on the same tables.

Tables of a fixed-shape float32 image column (3 x 64 x 64), a
variable-shape float32 column (3 x [8..64] x [8..64]) and an int64 id
column, at about 10 MiB, 100 MiB and 1 GiB. Each figure is the best of
several runs (the machine is shared and noisy); ratios > 1 mean quiver is
faster.

  python bench/python/bench_ipc.py            # all sizes
  QUIVER_BENCH_IPC_MAX_MIB=100 python ...     # smaller sizes only
"""

import gc
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai

import quiver as qv

ROW_BYTES = 3 * 64 * 64 * 4 + 3 * 36 * 36 * 4 + 8


def make_table(target_bytes, seed=0):
    rows = max(1, target_bytes // ROW_BYTES)
    rng = np.random.default_rng(seed)
    # 8-bit pixel values stored as float32: compressible the way real
    # images are, not like random noise.
    images = rng.integers(0, 256, size=(rows, 3, 64, 64)).astype(np.float32) / 255
    sizes = rng.integers(8, 65, size=(rows, 2))
    ragged = [rng.integers(0, 256, size=(3, h, w)).astype(np.float32) / 255 for h, w in sizes]
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "image": pa.array(qv.FixedShapeTensorArray.from_numpy(images)),
            "ragged": pa.array(qv.VariableShapeTensorArray.from_numpy(ragged)),
        }
    )


def best(*fns, repeat=5, scratch=None):
    """The best time of each function, run interleaved (so that noise from
    the shared machine hits every contender alike). Writers get a path that
    does not exist yet (`scratch`), removed after the timing, so no run pays
    for truncating another's file."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, spent in zip(fns, times):
            gc.collect()
            if scratch and os.path.exists(scratch):
                os.remove(scratch)
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return [min(t) for t in times]


# The same level for both writers: 1 for ZSTD (Arrow C++'s default), the
# LZ4 frame default for LZ4.
LEVELS = {"zstd": 1, "lz4": None, None: None}


def write_quiver(path, table, compression=None):
    qv.ipc.write_file(table, path, compression=compression, compression_level=LEVELS[compression])


def write_pyarrow(path, table, compression=None):
    codec = None
    if compression:
        codec = pa.Codec(compression, compression_level=LEVELS[compression])
    options = pai.IpcWriteOptions(compression=codec)
    with pai.new_file(path, table.schema, options=options) as writer:
        writer.write_table(table)


def read_quiver(path, memory_map=True):
    return qv.ipc.open_file(path, memory_map=memory_map).read_all()


def read_pyarrow(path, memory_map=True):
    source = pa.memory_map(path) if memory_map else pa.OSFile(path)
    return pai.open_file(source).read_all()


def plain_write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def row(name, ours, theirs, peer):
    print(
        f"| {name:<44} | {ours * 1e3:10.2f} ms | {theirs * 1e3:10.2f} ms | {peer:<14} "
        f"| {theirs / ours:6.2f}x |"
    )


def perf_paths(mib=1024, repeat=3):
    """(path, quiver s, peer, peer s, goal) rows for bench_perf_paths.py:
    LZ4 and ZSTD write and read of one file of tensors (issue 37, item 2).
    Both readers read the same file: the one pyarrow wrote (each large
    buffer one frame, which decompresses on one core in either reader),
    then the one quiver wrote (large buffers in parts that threads share,
    docs/ipc.md, "Compression")."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        ours_path, theirs_path = os.path.join(tmp, "q.arrow"), os.path.join(tmp, "p.arrow")
        table = qv.table(make_table(mib << 20))
        pa_table = pa.table(table)
        for codec in ("lz4", "zstd"):
            ours, theirs = best(
                lambda: write_quiver(ours_path, table, codec),
                lambda: write_pyarrow(ours_path, pa_table, codec),
                repeat=repeat,
                scratch=ours_path,
            )
            out.append((f"write {codec}, {mib} MiB of tensors", ours, "pyarrow", theirs, ">= 1.2x"))
            write_pyarrow(theirs_path, pa_table, codec)
            write_quiver(ours_path, table, codec)
            for label, path in (("pyarrow's file", theirs_path), ("quiver's file", ours_path)):
                ours, theirs = best(
                    lambda: read_quiver(path), lambda: read_pyarrow(path), repeat=repeat
                )
                out.append(
                    (f"read {codec}, {mib} MiB, {label}", ours, "pyarrow", theirs, ">= 1.2x")
                )
            os.remove(ours_path)
    return out


def main():
    max_mib = int(os.environ.get("QUIVER_BENCH_IPC_MAX_MIB", "1024"))
    sizes = [m for m in (10, 100, 1024) if m <= max_mib]
    print(
        "| operation                                    |     quiver    |      peer     "
        "| peer           | peer / quiver |"
    )
    print(
        "|----------------------------------------------|---------------|---------------|----------------|---------------|"
    )
    with tempfile.TemporaryDirectory() as tmp:
        ours_path, theirs_path = os.path.join(tmp, "q.arrow"), os.path.join(tmp, "p.arrow")
        for mib in sizes:
            table = qv.table(make_table(mib << 20))  # imported once, zero-copy
            pa_table = pa.table(table)
            write_pyarrow(theirs_path, pa_table)
            size = os.path.getsize(theirs_path)
            label = f"{size / 2**20:.0f} MiB"
            # Both read the same (pyarrow-written) file.
            ours, theirs = best(lambda: read_quiver(theirs_path), lambda: read_pyarrow(theirs_path))
            row(f"open + read all, mmap ({label})", ours, theirs, "pyarrow")
            data = np.ones(size, dtype=np.uint8)
            ours, theirs, plain = best(
                lambda: write_quiver(ours_path, table),
                lambda: write_pyarrow(ours_path, pa_table),
                lambda: plain_write(ours_path, data),
                repeat=3,
                scratch=ours_path,
            )
            row(f"write file, uncompressed ({label})", ours, theirs, "pyarrow")
            row(f"write file vs one write() ({label})", ours, plain, "write() bound")
            # Freed before the next sizes are made (the timed lambdas ran already).
            data = None
            if mib > 100:
                continue  # compression figures at 10 and 100 MiB keep the run short
            for codec in ("lz4", "zstd"):
                ours, theirs = best(
                    lambda: write_quiver(ours_path, table, codec),
                    lambda: write_pyarrow(ours_path, pa_table, codec),
                    repeat=3,
                    scratch=ours_path,
                )
                write_pyarrow(theirs_path, pa_table, codec)
                ratio = size / os.path.getsize(theirs_path)
                row(f"write {codec} ({label} raw, {ratio:.1f}:1)", ours, theirs, "pyarrow")
                ours, theirs = best(
                    lambda: read_quiver(theirs_path), lambda: read_pyarrow(theirs_path), repeat=3
                )
                row(f"read all {codec}, same file ({label} raw)", ours, theirs, "pyarrow")
            # Freed before the next sizes are made (the timed lambdas ran already).
            table = pa_table = None


if __name__ == "__main__":
    main()
