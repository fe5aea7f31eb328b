"""Training batches from an IPC file to a CUDA device, with and without
pinned batch memory, against PyTorch's own pinning, in one run.

Each contender reads one epoch of batches and copies every batch to the
GPU with `non_blocking=True`, then waits for the device:

- quiver pin_memory=True: batches are assembled straight into page-locked
  buffers, so the copy is asynchronous DMA with no staging;
- quiver pageable: the same batches in ordinary memory (the driver stages
  each copy through its own pinned buffer);
- DataLoader(pin_memory=True): PyTorch's pinning thread copies each
  pageable quiver batch into pinned memory first (what a user gets by
  wrapping a pageable reader in a DataLoader).

Needs torch with a CUDA device; prints why and exits otherwise.

  python bench/python/bench_pinned.py                 # about 512 MiB
  QUIVER_BENCH_PINNED_MIB=2048 python ...             # another size
"""

import os
import tempfile

import numpy as np
import pyarrow as pa

import quiver as qv
import quiver.data as qd

from bench_timing import best_each


def write_file(path, mib, row_floats=1024):
    rows = max(1, (mib << 20) // (row_floats * 4))
    values = np.random.default_rng(0).standard_normal((rows, row_floats)).astype(np.float32)
    table = pa.table({"x": pa.array(qv.FixedShapeTensorArray.from_numpy(values))})
    with pa.OSFile(path, "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=1 << 14)
    return values.nbytes


def main():
    try:
        import torch
    except ImportError:
        print("bench_pinned: skipped, torch is not installed")
        return
    if not torch.cuda.is_available():
        print("bench_pinned: skipped, no CUDA device on this machine")
        return
    mib = int(os.environ.get("QUIVER_BENCH_PINNED_MIB", "512"))
    batch_size = 1024  # 4 MiB batches
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "rows.arrow")
        nbytes = write_file(path, mib)

        def epoch(batches):
            for batch in batches:
                batch["x"].to("cuda", non_blocking=True)
            torch.cuda.synchronize()

        def quiver_reader(pin):
            return qd.BatchReader(
                path, batch_size=batch_size, pin_memory=pin, prefetch=4
            ).to_torch()

        def torch_pinning():
            dataset = qd.TorchIterableDataset(path, batch_size=batch_size, prefetch=4)
            return torch.utils.data.DataLoader(dataset, batch_size=None, pin_memory=True)

        torch.cuda.init()
        epoch(quiver_reader(True))  # warm the file pages and the CUDA context
        pinned, pageable, dataloader = best_each(
            lambda: epoch(quiver_reader(True)),
            lambda: epoch(quiver_reader(False)),
            lambda: epoch(torch_pinning()),
            repeat=5,
        )
        # The copies alone, from batches already read (kept, so each has its
        # own buffer): what pinning buys the transfer itself.
        kept = {pin: [b["x"] for b in quiver_reader(pin)] for pin in (True, False)}

        def copies(tensors):
            for t in tensors:
                t.to("cuda", non_blocking=True)
            torch.cuda.synchronize()

        copy_pinned, copy_pageable = best_each(
            lambda: copies(kept[True]), lambda: copies(kept[False]), repeat=5
        )
        assert all(t.is_pinned() for t in kept[True])
    gbs = lambda seconds: nbytes / seconds / 1e9  # noqa: E731
    print(
        f"bench_pinned: {nbytes / 2**20:.0f} MiB to {torch.cuda.get_device_name()}, "
        f"{batch_size}-row batches, best of 5"
    )
    print(f"  quiver pin_memory=True     {pinned * 1e3:8.1f} ms  {gbs(pinned):6.2f} GB/s")
    print(
        f"  quiver pageable            {pageable * 1e3:8.1f} ms  {gbs(pageable):6.2f} GB/s"
        f"  (pinned is {pageable / pinned:.2f}x faster)"
    )
    print(
        f"  DataLoader(pin_memory=True) {dataloader * 1e3:7.1f} ms  {gbs(dataloader):6.2f} GB/s"
        f"  (pinned is {dataloader / pinned:.2f}x faster)"
    )
    print("  the host-to-device copies alone, from batches already read:")
    print(f"  pinned                     {copy_pinned * 1e3:8.1f} ms  {gbs(copy_pinned):6.2f} GB/s")
    print(
        f"  pageable                   {copy_pageable * 1e3:8.1f} ms  "
        f"{gbs(copy_pageable):6.2f} GB/s"
        f"  (pinned is {copy_pageable / copy_pinned:.2f}x faster)"
    )


if __name__ == "__main__":
    main()
