"""Reading big-endian IPC files against their little-endian twins, in one
run, with quiver and pyarrow.

A big-endian file is made from a little-endian one as the tests make
theirs (tests/python/test_ipc_big_endian.py: every body buffer swapped by
its type's layout, the schema marked big-endian). Little-endian reads are
zero-copy; big-endian reads copy every buffer once while swapping it, so
the figure to watch is the big-endian read against a plain copy of the
data. Best of several runs (the machine is shared and noisy).

  python bench/python/bench_ipc_big_endian.py          # about 256 MiB
  QUIVER_BENCH_BE_MIB=1024 python ...                   # another size
"""

import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai

import quiver as qv
from bench_timing import best_of  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "python"))
from test_ipc_big_endian import big_endian_file  # noqa: E402


def make_table(target_bytes, seed=0):
    # per row: 8 + 8 + ~12 (string) + ~20 (list) + 2 (dictionary) + 64 (tensor)
    rows = max(1, target_bytes // 120)
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 9, size=rows)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    words = pa.array(["alpha", "beta", "gamma", "delta", "epsilon"])
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "value": pa.array(rng.standard_normal(rows)),
            "text": pa.array(np.char.add("row-", np.arange(rows).astype(str)).astype(object)),
            "list": pa.ListArray.from_arrays(
                pa.array(offsets), pa.array(rng.integers(0, 1000, offsets[-1], dtype=np.int32))
            ),
            "dict": pa.DictionaryArray.from_arrays(
                pa.array(rng.integers(0, 5, rows, dtype=np.int16)), words
            ),
            "tensor": pa.array(
                qv.FixedShapeTensorArray.from_numpy(
                    rng.standard_normal((rows, 4, 4)).astype(np.float32)
                )
            ),
        }
    )


def main():
    mib = int(os.environ.get("QUIVER_BENCH_BE_MIB", "256"))
    table = make_table(mib << 20)
    sink = pa.BufferOutputStream()
    batch_rows = max(1, table.num_rows // 16)
    with pai.new_file(sink, table.schema) as w:
        w.write_table(table, max_chunksize=batch_rows)
    le = sink.getvalue().to_pybytes()
    be = big_endian_file(le)
    size = len(le) / 2**20
    assert pa.table(qv.ipc.open_file(be).read_all()).equals(
        pa.table(qv.ipc.open_file(le).read_all())
    )
    copy = best_of(lambda: bytearray(le))
    results = {
        "quiver little-endian": best_of(lambda: qv.ipc.open_file(le).read_all()),
        "quiver big-endian": best_of(lambda: qv.ipc.open_file(be).read_all()),
        "pyarrow little-endian": best_of(lambda: pai.open_file(pa.py_buffer(le)).read_all()),
        "pyarrow big-endian": best_of(lambda: pai.open_file(pa.py_buffer(be)).read_all()),
    }
    print(f"{size:.0f} MiB file, {table.num_rows} rows in 16 batches (best of 5)")
    print(
        f"  {'a plain copy of the bytes':28s} {copy * 1e3:9.1f} ms  {size / 1024 / copy:6.2f} GiB/s"
    )
    for name, t in results.items():
        print(f"  {name:28s} {t * 1e3:9.1f} ms  {size / 1024 / t:6.2f} GiB/s")
    q = results["quiver big-endian"]
    print(
        f"  big-endian / little-endian: quiver {q / results['quiver little-endian']:.1f}x, "
        f"pyarrow {results['pyarrow big-endian'] / results['pyarrow little-endian']:.1f}x; "
        f"quiver big-endian / pyarrow big-endian {q / results['pyarrow big-endian']:.2f}"
    )


if __name__ == "__main__":
    main()
