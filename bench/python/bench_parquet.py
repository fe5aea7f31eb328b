"""quiver.parquet against pyarrow.parquet, measured in one run on the same
files.

Reading: each file is written once by pyarrow and read by both from the
page cache; a tensor column ends as one NumPy array of the column's shape
(quiver: ``read_table(...).column(...)`` chunk by chunk through
``to_numpy``; pyarrow: ``pq.read_table(...).column(...)`` combined, then
``to_numpy_ndarray``), a ragged column as a table column, flat columns as
table columns. Writing (when quiver has a writer): the same table written
by both at equal settings, with the file sizes: each tensor, ragged and
flat table, and one table mixing them (a fixed_shape_tensor float32
column, a ragged list column, int64, float64 and string columns) at three
settings, read back equal.

Each figure is the best of several interleaved runs (bench_timing); ratio =
pyarrow time / quiver time (> 1: quiver is faster). Sizes:
QUIVER_BENCH_PARQUET_MB (default 256) of tensor values per file.

  python bench/python/bench_parquet.py
  QUIVER_BENCH_PARQUET_ONLY=write python bench/python/bench_parquet.py
"""

import os
import platform
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from bench_timing import best_each

import quiver as qv

MB = int(os.environ.get("QUIVER_BENCH_PARQUET_MB", "256"))


def tensor_table(dtype):
    shape = (3, 64, 64) if dtype == np.uint8 else (64, 64)
    per_row = int(np.prod(shape)) * np.dtype(dtype).itemsize
    rows = max(1, MB * 2**20 // per_row)
    rng = np.random.default_rng(0)
    if dtype == np.uint8:
        # Images: runs and a few hundred distinct values make dictionary
        # encoding meaningful.
        values = (rng.integers(0, 32, (rows, *shape)) * 8).astype(np.uint8)
    else:
        values = rng.standard_normal((rows, *shape)).astype(dtype)
    column = qv.FixedShapeTensorArray.from_numpy(values)
    return pa.table({"x": pa.array(column)}), values.shape


def ragged_table():
    rng = np.random.default_rng(1)
    rows, total = [], 0
    while total < MB * 2**20:
        h = int(rng.integers(16, 96))
        rows.append(rng.standard_normal((h, 64)).astype(np.float32))
        total += rows[-1].nbytes
    return pa.table({"x": pa.array(qv.VariableShapeTensorArray.from_numpy(rows))})


def flat_table():
    n = MB * 2**20 // 32
    rng = np.random.default_rng(2)
    return pa.table(
        {
            "i64": rng.integers(0, 10**9, n),
            "f64": rng.random(n),
            "s": pa.array([f"item-{i % 5000}" for i in range(n // 8)] * 8),
        }
    )


def read_quiver_tensor(path):
    column = qv.parquet.read_table(path, columns=["x"]).column("x")
    return np.concatenate([chunk.to_numpy() for chunk in column.chunks])


def read_pyarrow_tensor(path):
    column = pq.read_table(path, columns=["x"]).column("x").combine_chunks()
    return column.to_numpy_ndarray()


def report(name, ours, theirs, extra=""):
    print(
        f"  {name:<44} quiver {ours * 1e3:9.1f} ms   pyarrow {theirs * 1e3:9.1f} ms"
        f"   ratio {theirs / ours:5.2f}x {extra}"
    )


def bench_reads(folder):
    print("reading (ratio = pyarrow / quiver; > 1: quiver faster)")
    for dtype in (np.float32, np.uint8):
        table, shape = tensor_table(dtype)
        for encoding in ("PLAIN", "BYTE_STREAM_SPLIT", "dictionary"):
            for compression in ("none", "snappy", "zstd"):
                path = os.path.join(folder, "t.parquet")
                options = {"use_dictionary": encoding == "dictionary"}
                if encoding == "BYTE_STREAM_SPLIT":
                    options["column_encoding"] = {"x": "BYTE_STREAM_SPLIT"}
                pq.write_table(table, path, compression=compression, **options)
                a = read_quiver_tensor(path)
                b = read_pyarrow_tensor(path)
                assert a.shape == shape and np.array_equal(a, b)
                del a, b
                t_ours, t_theirs = best_each(
                    lambda: read_quiver_tensor(path), lambda: read_pyarrow_tensor(path)
                )
                size = os.path.getsize(path) / 2**20
                report(
                    f"fixed_shape_tensor {np.dtype(dtype).name} {encoding} {compression}",
                    t_ours,
                    t_theirs,
                    f"({size:.0f} MiB file)",
                )
        del table
    path = os.path.join(folder, "r.parquet")
    pq.write_table(ragged_table(), path, compression="none")
    t_ours, t_theirs = best_each(lambda: qv.parquet.read_table(path), lambda: pq.read_table(path))
    report("variable_shape_tensor float32 none", t_ours, t_theirs)
    table = flat_table()
    for compression in ("none", "snappy"):
        pq.write_table(table, path, compression=compression)
        for column in ("i64", "f64", "s"):
            t_ours, t_theirs = best_each(
                lambda: qv.parquet.read_table(path, columns=[column]),
                lambda: pq.read_table(path, columns=[column]),
            )
            report(f"flat {column} {compression}", t_ours, t_theirs)


def bench_writes(folder):
    if not hasattr(qv.parquet, "write_table"):
        print("writing: this build of quiver has no Parquet writer")
        return
    print("writing (ratio = pyarrow / quiver; sizes quiver / pyarrow)")
    tables = {
        "fixed_shape_tensor float32": tensor_table(np.float32)[0],
        "variable_shape_tensor float32": ragged_table(),
        "flat": flat_table(),
    }
    ours_path = os.path.join(folder, "q.parquet")
    theirs_path = os.path.join(folder, "p.parquet")
    for name, table in tables.items():
        for compression in ("none", "snappy", "zstd"):
            t_ours, t_theirs = best_each(
                lambda: qv.parquet.write_table(table, ours_path, compression=compression),
                lambda: pq.write_table(table, theirs_path, compression=compression),
                repeat=3,
            )
            sizes = os.path.getsize(ours_path) / os.path.getsize(theirs_path)
            report(f"{name} {compression}", t_ours, t_theirs, f"size {sizes:.3f}")


def mixed_table():
    side = 64
    rows = max(1, MB * 2**20 // (side * side * 4))
    rng = np.random.default_rng(3)
    # 8-bit values stored as float32: compressible the way images are.
    images = rng.integers(0, 256, size=(rows, side, side)).astype(np.float32) / 255
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


MIXED_SETTINGS = [
    dict(compression="snappy", use_dictionary=True, data_page_version="1.0"),
    dict(compression="none", use_dictionary=False, data_page_version="1.0"),
    dict(compression="zstd", compression_level=1, use_dictionary=True, data_page_version="2.0"),
]


def bench_writes_mixed(folder):
    if not hasattr(qv.parquet, "write_table"):
        return
    table = mixed_table()
    print(f"writing a mixed table ({table.num_rows} rows, {table.nbytes / 2**20:.0f} MiB)")
    ours_path = os.path.join(folder, "q.parquet")
    theirs_path = os.path.join(folder, "p.parquet")
    for settings in MIXED_SETTINGS:
        common = dict(row_group_size=1 << 20, data_page_size=1 << 20, **settings)
        try:
            qv.parquet.write_table(table.slice(0, 1), ours_path, **common)
        except NotImplementedError:
            continue  # a codec this build lacks
        t_ours, t_theirs = best_each(
            lambda: qv.parquet.write_table(table, ours_path, **common),
            lambda: pq.write_table(table, theirs_path, **common),
            repeat=3,
        )
        assert pq.read_table(ours_path).equals(pq.read_table(theirs_path))
        label = " ".join(f"{v}" for v in settings.values())
        ours_mib = os.path.getsize(ours_path) / 2**20
        sizes = f"{ours_mib:.1f} / {os.path.getsize(theirs_path) / 2**20:.1f} MiB"
        report(f"mixed {label}", t_ours, t_theirs, sizes)


def main():
    print(
        f"bench_parquet: {platform.machine()}, {os.cpu_count()} cores, quiver "
        f"{qv.__version__}, pyarrow {pa.__version__}, {MB} MiB per tensor file"
    )
    with tempfile.TemporaryDirectory() as folder:
        only = os.environ.get("QUIVER_BENCH_PARQUET_ONLY", "")
        if only in ("", "read"):
            bench_reads(folder)
        if only in ("", "write"):
            bench_writes(folder)
            bench_writes_mixed(folder)


if __name__ == "__main__":
    main()
