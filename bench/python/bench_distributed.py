"""Ray Data pipelines over a ragged image dataset, measured in one run.

A dataset of ragged uint8 images (3 x [64..256] x [64..256]) goes through
read -> map_batches (per-row mean) -> consume on a local Ray with 2 CPUs:

- quiver: quiver.ray.read_ipc over a folder of IPC files, the map
  function turning each batch into a quiver Table (qv.table) and taking
  each row's mean from its NumPy view;
- Ray: ray.data.read_parquet over the same rows written by Ray itself
  (Ray's own variable-shaped tensor type), the map function taking each
  row's mean in batch_format="numpy".

It also counts the batches whose values were copied on their way from
Ray into quiver: the address of the values buffer Ray hands the function
against the one the quiver column reads (the target is zero).

It first times the driver's planning (row counts from footers and record
batch headers) over a 1 GiB ZSTD file (--plan-gib), against reading every
batch to count them.

  python bench/python/bench_distributed.py            # 0.25 GiB
  python bench/python/bench_distributed.py --gib 1    # the 1 GiB figure
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

try:
    import pyarrow as pa
    import ray
    import ray.data
except ImportError as e:  # an optional peer: say so and stop
    print(
        f"bench_distributed: skipped, {e.name} is not installed (pip install 'quiver-tensors[ray]')"
    )
    sys.exit(0)

import quiver as qv
import quiver.ray as qr

ROWS_PER_FILE = 256


def write_dataset(folder, gib, seed=0):
    """IPC files of ragged images and a label, about `gib` GiB in all."""
    rng = np.random.default_rng(seed)
    target, written, part = gib * 2**30, 0, 0
    while written < target:
        sizes = rng.integers(64, 257, size=(ROWS_PER_FILE, 2))
        images = [rng.integers(0, 256, size=(3, h, w), dtype=np.uint8) for h, w in sizes]
        table = qv.table(
            {
                "image": qv.VariableShapeTensorArray.from_numpy(images),
                "label": np.arange(ROWS_PER_FILE) + part * ROWS_PER_FILE,
            }
        )
        qv.ipc.write_file(table, os.path.join(folder, f"part{part:04d}.arrow"))
        written += sum(int(img.nbytes) for img in images)
        part += 1
    return written


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def planning(folder, gib):
    """What the driver spends to plan quiver.dask.from_ipc and
    quiver.ray.read_ipc over one ZSTD file of about `gib` GiB (a
    fixed-shape float32 column in 256 record batches), written by quiver
    (row counts in its footer) and by pyarrow (counts in the record batch
    headers alone), against counting the rows by reading every batch, as
    the planning did before and as pyarrow's reader must."""
    import quiver.dask as qd

    rows = max(256, int(gib * 2**30 // (64 * 64 * 4)))
    values = np.random.default_rng(1).integers(0, 16, size=(rows, 64, 64)).astype(np.float32)
    table = qv.table({"x": qv.FixedShapeTensorArray.from_numpy(values), "id": np.arange(rows)})
    ours = os.path.join(folder, "quiver.arrow")
    qv.ipc.write_file(table, ours, compression="zstd", max_batch_rows=-(-rows // 256))
    theirs = os.path.join(folder, "pyarrow.arrow")
    arrow = pa.table(table)
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with pa.ipc.new_file(theirs, arrow.schema, options=options) as writer:
        for batch in arrow.to_batches(max_chunksize=-(-rows // 256)):
            writer.write_batch(batch)
    print(f"planning over one ZSTD file of {values.nbytes / 2**30:.2f} GiB, 256 record batches")
    for name, path in [("written by quiver", ours), ("written by pyarrow", theirs)]:
        t_rows, counted = best_of(5, lambda path=path: sum(qr.record_batch_rows(path)))
        t_dask, _ = best_of(5, lambda path=path: qd.from_ipc(path, "x"))
        t_read, read = best_of(2, lambda path=path: sum(b.num_rows for b in qv.ipc.open_file(path)))
        t_pa, by_pa = best_of(
            2,
            lambda path=path: sum(
                pa.ipc.open_file(path).get_batch(i).num_rows
                for i in range(pa.ipc.open_file(path).num_record_batches)
            ),
        )
        assert counted == read == by_pa == rows
        print(f"  {name}:")
        print(f"    read_ipc's plan (record_batch_rows): {t_rows * 1e3:8.2f} ms")
        print(f"    from_ipc, the dask array planned:    {t_dask * 1e3:8.2f} ms")
        print(
            f"    every batch read by quiver:          {t_read * 1e3:8.2f} ms"
            f"  ({t_read / t_rows:.0f}x the plan)"
        )
        print(
            f"    every batch read by pyarrow:         {t_pa * 1e3:8.2f} ms"
            f"  ({t_pa / t_rows:.0f}x the plan)"
        )


def quiver_means(batch):
    """Per-row means through quiver; also whether the values were copied."""
    column = batch.column("image").chunk(0).storage.field("data").values
    table = qv.table(batch)
    rows = table["image"]
    means = np.array([row.mean() for row in rows], np.float64)
    first = rows[0]
    copied = (
        first is not None and first.__array_interface__["data"][0] != column.buffers()[1].address
    )
    flags = np.zeros(len(means), bool)
    flags[:1] = copied  # one flag per batch
    return pa.table({"mean": means, "copied": flags})


def ray_means(batch):
    return {"mean": np.array([row.mean() for row in batch["image"]], np.float64)}


def run(pipeline):
    start = time.perf_counter()
    result = pipeline()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gib", type=float, default=0.25)
    parser.add_argument("--plan-gib", type=float, default=1.0, help="the planning file's size")
    args = parser.parse_args()
    plan_folder = tempfile.mkdtemp(prefix="quiver-bench-plan-")
    try:
        planning(plan_folder, args.plan_gib)
    finally:
        shutil.rmtree(plan_folder, ignore_errors=True)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}},
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    work = tempfile.mkdtemp(prefix="quiver-bench-distributed-")
    try:
        ipc_folder = os.path.join(work, "ipc")
        parquet_folder = os.path.join(work, "parquet")
        os.makedirs(ipc_folder)
        value_bytes = write_dataset(ipc_folder, args.gib)
        # Ray's own copy of the rows, in its own tensor type, as Parquet.
        qr.read_ipc(ipc_folder).write_parquet(parquet_folder)

        def quiver_pipeline():
            ds = qr.read_ipc(ipc_folder).map_batches(quiver_means, batch_format="pyarrow")
            out = ds.to_pandas()
            return len(out), int(out["copied"].sum())

        def ray_pipeline():
            ds = ray.data.read_parquet(parquet_folder).map_batches(ray_means, batch_format="numpy")
            return len(ds.to_pandas()), 0

        results = {"quiver": [], "ray": []}
        for _ in range(3):  # interleaved: noise hits both alike
            results["quiver"].append(run(quiver_pipeline))
            results["ray"].append(run(ray_pipeline))
        best_q = min(t for t, _ in results["quiver"])
        best_r = min(t for t, _ in results["ray"])
        rows, copied = results["quiver"][0][1]
        gb = value_bytes / 1e9
        print(f"ragged uint8 images, {gb:.2f} GB of values, {rows} rows, 2 Ray CPUs")
        print(f"  quiver read_ipc -> map_batches: {best_q:7.2f} s  {gb / best_q:6.2f} GB/s")
        print(f"  Ray read_parquet -> map_batches: {best_r:7.2f} s  {gb / best_r:6.2f} GB/s")
        print(f"  ratio (Ray time / quiver time): {best_r / best_q:.2f}x")
        print(f"  batches whose values were copied from Ray into quiver: {copied}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        ray.shutdown()


if __name__ == "__main__":
    main()
