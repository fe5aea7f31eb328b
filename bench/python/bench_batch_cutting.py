"""What max_batch_bytes costs and buys: file size against the time to read
one random record batch of a ZSTD-compressed IPC file.

A compressed file is decoded one record batch at a time: reading any row
decompresses its whole batch. The table is image-like (a 3 x 64 x 64
uint8 fixed_shape_tensor column, smooth gradients plus noise, so it
compresses as images do), written with ZSTD and max_batch_bytes of
64 KiB, 1 MiB, 16 MiB and no limit (one batch). A random read opens the
file (memory-mapped) and reads batch i for a random i; the figure is the
median over many such reads (each a different random batch) and the best
of several full reads (bench_timing; the machine is shared and noisy).

  python bench/python/bench_batch_cutting.py             # 20,000 rows, ~234 MiB raw
  QUIVER_BENCH_CUT_ROWS=2000 python ...                   # another size
"""

import os
import random
import statistics
import tempfile
import time

import numpy as np

import quiver as qv
from bench_timing import best_of

LIMITS = [("64 KiB", 64 << 10), ("1 MiB", 1 << 20), ("16 MiB", 16 << 20), ("no limit", None)]


def make_images(rows, seed=0):
    """rows x 3 x 64 x 64 uint8: a gradient per image and channel plus noise
    of 2 bits (ZSTD compresses it about 1.5:1 whole, as photographs go)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:64, 0:64]
    base = (x + y).astype(np.int32)
    out = np.empty((rows, 3, 64, 64), np.uint8)
    for start in range(0, rows, 1000):
        n = min(1000, rows - start)
        shift = rng.integers(0, 256, size=(n, 3, 1, 1))
        noise = rng.integers(0, 4, size=(n, 3, 64, 64))
        out[start : start + n] = (base + shift + noise) % 256
    return out


def random_read_ms(path, reads, seed=1):
    """Median and 90th percentile (ms) of opening the file and reading one
    random batch, over `reads` reads."""
    rng = random.Random(seed)
    with qv.ipc.open_file(path) as reader:
        count = len(reader)
    times = []
    for _ in range(reads):
        i = rng.randrange(count)
        start = time.perf_counter()
        with qv.ipc.open_file(path) as reader:
            batch = reader.get_batch(i)
        times.append(time.perf_counter() - start)
        del batch
    times.sort()
    return statistics.median(times) * 1e3, times[int(0.9 * (len(times) - 1))] * 1e3


def read_all_s(path):
    def run():
        with qv.ipc.open_file(path) as reader:
            return reader.read_all()

    return best_of(run, repeat=3)


def main():
    rows = int(os.environ.get("QUIVER_BENCH_CUT_ROWS", "20000"))
    images = make_images(rows)
    batch = qv.record_batch({"image": qv.FixedShapeTensorArray.from_numpy(images)})
    raw = images.nbytes
    print(f"{rows} rows of 3x64x64 uint8 ({raw / 2**20:.0f} MiB raw), ZSTD, {os.cpu_count()} cores")
    header = (
        f"| {'max_batch_bytes':<15} | {'batches':>7} | {'rows/batch':>10} | {'file MiB':>8} "
        f"| {'ratio':>5} | {'random batch, median':>20} | {'p90':>9} | {'read all':>8} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, limit in LIMITS:
            path = os.path.join(tmp, f"cut-{limit}.arrow")
            qv.ipc.write_file(batch, path, compression="zstd", max_batch_bytes=limit)
            with qv.ipc.open_file(path) as reader:
                counts = reader.footer_record_batch_rows
            size = os.path.getsize(path)
            # Fewer reads where each decompresses the whole file.
            median, p90 = random_read_ms(path, reads=200 if len(counts) > 8 else 5)
            print(
                f"| {name:<15} | {len(counts):>7} | {rows / len(counts):>10.0f} "
                f"| {size / 2**20:>8.1f} | {raw / size:>5.2f} | {median:>17.2f} ms "
                f"| {p90:>6.2f} ms | {read_all_s(path):>6.2f} s |"
            )


if __name__ == "__main__":
    main()
