"""Parquet writing against pyarrow, measured in one run on the same table.

A table of a fixed_shape_tensor float32 column (64 x 64 per row, about
256 MiB by default), a ragged float32 list column, int64, float64 and
string columns, written by qv.parquet.write_table and pq.write_table at
equal settings (row groups, page size, codec, dictionary, statistics).
Each figure is the best of several runs (the machine is shared and noisy);
ratios > 1 mean quiver is faster. File sizes are printed beside.

  python bench/python/bench_parquet.py
  QUIVER_BENCH_PARQUET_MIB=64 QUIVER_BENCH_REPEAT=3 python ...
"""

import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import quiver as qv

sys.path.insert(0, os.path.dirname(__file__))
from bench_timing import best_each  # noqa: E402

SIDE = 64
ROW_BYTES = SIDE * SIDE * 4


def make_table(target_bytes, seed=0):
    rows = max(1, target_bytes // ROW_BYTES)
    rng = np.random.default_rng(seed)
    # 8-bit values stored as float32: compressible the way images are.
    images = rng.integers(0, 256, size=(rows, SIDE, SIDE)).astype(np.float32) / 255
    lengths = rng.integers(0, 64, size=rows)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    ragged = pa.ListArray.from_arrays(
        pa.array(offsets), pa.array(rng.standard_normal(offsets[-1]).astype(np.float32))
    )
    words = np.array([f"word-{i}" for i in range(1000)])
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "score": pa.array(rng.standard_normal(rows)),
            "label": pa.array(words[rng.integers(0, 1000, rows)]),
            "ragged": ragged,
            "image": pa.array(qv.FixedShapeTensorArray.from_numpy(images)),
        }
    )


SETTINGS = [
    dict(compression="snappy", use_dictionary=True, data_page_version="1.0"),
    dict(compression="none", use_dictionary=False, data_page_version="1.0"),
    dict(compression="zstd", compression_level=1, use_dictionary=True, data_page_version="2.0"),
]


def main():
    mib = int(os.environ.get("QUIVER_BENCH_PARQUET_MIB", "256"))
    repeat = int(os.environ.get("QUIVER_BENCH_REPEAT", "3"))
    table = make_table(mib << 20)
    print(f"table: {table.num_rows} rows, {table.nbytes / 2**20:.0f} MiB in memory")
    with tempfile.TemporaryDirectory() as tmp:
        ours_path = os.path.join(tmp, "quiver.parquet")
        theirs_path = os.path.join(tmp, "pyarrow.parquet")
        for settings in SETTINGS:
            common = dict(row_group_size=1 << 20, data_page_size=1 << 20, **settings)
            try:
                qv.parquet.write_table(table.slice(0, 1), ours_path, **common)
            except NotImplementedError:
                continue  # a codec this build lacks
            ours, theirs = best_each(
                lambda: qv.parquet.write_table(table, ours_path, **common),
                lambda: pq.write_table(table, theirs_path, **common),
                repeat=repeat,
            )
            assert pq.read_table(ours_path).equals(pq.read_table(theirs_path))
            label = ", ".join(f"{k}={v}" for k, v in settings.items())
            print(
                f"{label}: quiver {ours:.3f} s, pyarrow {theirs:.3f} s, "
                f"ratio {theirs / ours:.2f}x; file {os.path.getsize(ours_path) / 2**20:.1f} MiB "
                f"vs {os.path.getsize(theirs_path) / 2**20:.1f} MiB"
            )


if __name__ == "__main__":
    main()
