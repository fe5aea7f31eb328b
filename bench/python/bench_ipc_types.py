"""Reading a table of Map, Union and dictionary columns (1 GiB by
default) with quiver and with pyarrow, in one run on the same file.

The file is written by pyarrow: map<string, float64>, sparse and dense
unions, a dictionary<int32, string> of many distinct words, and a list of
dictionary-encoded strings (a dictionary below a list), in record batches
of 64 Ki rows, uncompressed, on disk. Each reader memory-maps it and reads
every batch. quiver's default read checks every offset, type id and index
before it returns (full validation), so it is compared with pyarrow's
read followed by `validate(full=True)`, the same work. With
read_all(validate="lazy") quiver checks buffer sizes only (pyarrow's
default read checks no values either), and each column in full when it
is first used; that read is compared with pyarrow's default one, and
the lazy read followed by a use of every column with pyarrow's full
validation. Also timed: the
stream form of the same table. Best of --repeat runs (the machine is
shared and noisy); ratios are pyarrow time / quiver time, so above 1
means quiver is faster.

  python bench/python/bench_ipc_types.py              # 1 GiB
  python bench/python/bench_ipc_types.py --mib 256    # smaller
"""

import argparse
import os
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai

import quiver as qv
from bench_timing import best_of

BATCH_ROWS = 1 << 16
WORDS = np.array([f"word-{i:05d}" for i in range(20000)], dtype=object)


def make_batch(rows, rng):
    """One record batch, about 150 bytes per row."""
    n_entries = rng.integers(0, 5, rows)
    offsets = np.concatenate([[0], np.cumsum(n_entries)]).astype(np.int32)
    total = int(offsets[-1])
    keys = pa.array(WORDS[rng.integers(0, 64, total)].tolist(), pa.string())
    items = pa.array(rng.standard_normal(total))
    type_ids = rng.integers(0, 3, rows).astype(np.int8)
    sparse = pa.UnionArray.from_sparse(
        pa.array(type_ids),
        [
            pa.array(rng.integers(0, 1 << 30, rows, dtype=np.int32)),
            pa.array(rng.standard_normal(rows)),
            pa.array(WORDS[rng.integers(0, len(WORDS), rows)].tolist(), pa.string()),
        ],
        ["i", "f", "s"],
    )
    dense_ids = rng.integers(0, 2, rows).astype(np.int8)
    dense_offsets = np.zeros(rows, np.int32)
    for k in (0, 1):
        where = dense_ids == k
        dense_offsets[where] = np.arange(int(where.sum()), dtype=np.int32)
    dense = pa.UnionArray.from_dense(
        pa.array(dense_ids),
        pa.array(dense_offsets),
        [
            pa.array(rng.integers(0, 1 << 40, int((dense_ids == 0).sum()), dtype=np.int64)),
            pa.array(
                WORDS[rng.integers(0, len(WORDS), int((dense_ids == 1).sum()))].tolist(),
                pa.string(),
            ),
        ],
        ["n", "s"],
    )
    dictionary = pa.DictionaryArray.from_arrays(
        pa.array(rng.integers(0, len(WORDS), rows, dtype=np.int32)), pa.array(WORDS.tolist())
    )
    tag_lengths = rng.integers(0, 4, rows)
    tag_offsets = np.concatenate([[0], np.cumsum(tag_lengths)]).astype(np.int32)
    tags = pa.ListArray.from_arrays(
        pa.array(tag_offsets),
        pa.DictionaryArray.from_arrays(
            pa.array(rng.integers(0, 64, int(tag_offsets[-1]), dtype=np.int16)),
            pa.array(WORDS[:64].tolist()),
        ),
    )
    return pa.record_batch(
        {
            "map": pa.MapArray.from_arrays(pa.array(offsets), keys, items),
            "sparse_union": sparse,
            "dense_union": dense,
            "dictionary": dictionary,
            "tags": tags,
        }
    )


def write(path, target_bytes, stream):
    rng = np.random.default_rng(0)
    first = make_batch(BATCH_ROWS, rng)
    per_batch = first.nbytes
    count = max(1, target_bytes // per_batch)
    opener = pai.new_stream if stream else pai.new_file
    with pa.OSFile(path, "wb") as sink, opener(sink, first.schema) as writer:
        writer.write_batch(first)
        for _ in range(count - 1):
            writer.write_batch(make_batch(BATCH_ROWS, rng))
    return count * BATCH_ROWS


def every_column(table):
    """Asks for each column, which validates a lazily read table in full."""
    for i in range(table.num_columns):
        table.column(i)
    return table


def contenders(path, stream):
    quiver_open = qv.ipc.open_stream if stream else qv.ipc.open_file
    pyarrow_open = pai.open_stream if stream else pai.open_file
    return {
        "quiver": lambda: quiver_open(path).read_all(),
        "quiver lazy": lambda: quiver_open(path).read_all(validate="lazy"),
        "quiver lazy + every column": lambda: every_column(
            quiver_open(path).read_all(validate="lazy")
        ),
        "pyarrow": lambda: pyarrow_open(pa.memory_map(path)).read_all(),
        "pyarrow + validate(full)": lambda: (
            pyarrow_open(pa.memory_map(path)).read_all().validate(full=True)
        ),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--mib", type=int, default=int(os.environ.get("QUIVER_BENCH_TYPES_MIB", 1024))
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for stream in (False, True):
            path = os.path.join(tmp, "types.arrows" if stream else "types.arrow")
            rows = write(path, args.mib << 20, stream)
            size = os.path.getsize(path) / 2**20
            # Same values both ways (checked once, outside the timings).
            ours = pa.table(contenders(path, stream)["quiver"]())
            assert ours.equals(contenders(path, stream)["pyarrow"]())
            contenders(path, stream)["pyarrow"]()  # page cache warm for both
            form = "stream" if stream else "file"
            print(
                f"IPC {form}: {size:.0f} MiB, {rows} rows of map, sparse and dense union, "
                f"dictionary, list<dictionary> (best of {args.repeat})"
            )
            times = {
                name: best_of(fn, args.repeat) for name, fn in contenders(path, stream).items()
            }
            for name, t in times.items():
                print(f"  {name:26s} {t * 1e3:9.1f} ms  {size / 1024 / t:7.2f} GiB/s")
            # Each quiver read against the pyarrow read that checks as much.
            for peer, ours in (
                ("pyarrow", "quiver lazy"),
                ("pyarrow + validate(full)", "quiver"),
                ("pyarrow + validate(full)", "quiver lazy + every column"),
            ):
                print(f"  {peer} / {ours}: {times[peer] / times[ours]:5.2f}x")
            os.remove(path)


if __name__ == "__main__":
    main()
