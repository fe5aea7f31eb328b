"""quiver.from_huggingface against datasets' own NumPy format, measured in
one run on the same dataset.

The dataset: an ``Array3D(shape=(None, 8, 16), dtype="float32")`` column
(a dynamic first dimension of 1..8 per row), and one of shape
``(8, 8, 16)`` (--kind picks one; both by default), written by
``datasets`` (``save_to_disk``) and memory-mapped back with
``load_from_disk``, as a training job would open it. What is measured, per contender, is getting
every row of the column as a NumPy array:

- datasets: ``ds.with_format("numpy", columns=["x"])[:]["x"]`` (per-row
  arrays; one array for the fixed shape). ``ds.with_format("numpy")["x"]``
  is a lazy Column since datasets 4: the slice decodes it, as reading its
  rows would;
- quiver: ``qv.from_huggingface(ds).column("x")`` alone (relabelling, no
  value read); then ``to_jagged()`` on each chunk (the flat values, a view
  of the mapped file, with offsets and shapes written); ``to_numpy()`` on
  each chunk (per-row read-only views of the mapped file, the same result
  as datasets'); and ``to_padded()`` (one (rows, 8, 8, 16) array: a copy).
  For the fixed shape: ``to_numpy()`` on each chunk (one view of the file
  per chunk).

Times are the best of --repeat runs, contenders interleaved. Peak RSS is
measured in a fresh process per contender: the peak (VmHWM, reset just
before the access; getrusage's ru_maxrss cannot be reset and keeps the
parent's peak across exec) minus the RSS just before the access, both
after the imports and ``load_from_disk``; there the access also reads
every value (a sum over each row), so the mapped pages a contender touches
count. It is reported as a multiple of the column's payload (its values'
bytes).
"""

import argparse
import datetime
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np

from bench_timing import best_each

INNER = (8, 16)


def make_dataset(path, rows, ragged, seed=38):
    """Writes the dataset; returns its payload (the values' bytes)."""
    import datasets

    rng = np.random.default_rng(seed)
    firsts = rng.integers(1, 9, rows) if ragged else np.full(rows, 8)
    first_axis = None if ragged else 8
    features = datasets.Features(
        {"x": datasets.Array3D(shape=(first_axis, *INNER), dtype="float32")}
    )

    def rows_of(start, stop):
        return {"x": [rng.random((int(n), *INNER), dtype=np.float32) for n in firsts[start:stop]]}

    # Written in pieces so that building the data does not inflate this process.
    parts = [
        datasets.Dataset.from_dict(rows_of(s, min(s + 5000, rows)), features=features)
        for s in range(0, rows, 5000)
    ]
    datasets.concatenate_datasets(parts).save_to_disk(path)
    return int(firsts.sum()) * INNER[0] * INNER[1] * 4


def hf_column(ds):
    # ds.with_format("numpy")["x"] is a lazy Column in datasets 4+; slicing
    # decodes it, as reading its rows would.
    return ds.with_format("numpy", columns=["x"])[:]["x"]


def qv_column(ds):
    import quiver as qv

    return qv.from_huggingface(ds).column("x")


def qv_rows(ds):
    import quiver as qv

    column = qv.from_huggingface(ds).column("x")
    return [row for chunk in column.chunks for row in chunk.to_numpy()]


def qv_cells(ds):
    """A fixed-shape column's cells, one (rows, 8, 8, 16) view per chunk."""
    return [chunk.to_numpy() for chunk in qv_column(ds).chunks]


def qv_jagged(ds):
    column = qv_column(ds)
    return [chunk.to_jagged()[0] for chunk in column.chunks]


def qv_padded(ds):
    import quiver as qv

    padded, _shapes = qv.from_huggingface(ds).column("x").combine_chunks().to_padded()
    return padded


def status_bytes(key):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {key}")


def reset_peak():
    """Resets VmHWM to the current RSS (Linux 4.0+), so the peak that
    follows is the access's alone, not the imports' or load_from_disk's."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")


def child(path, contender):
    """Runs one contender over every value and prints its peak RSS above
    the RSS it started from, in bytes."""
    import datasets

    import quiver  # noqa: F401 (imported before the baseline, as datasets is)

    ds = datasets.load_from_disk(path)
    reset_peak()
    before = status_bytes("VmRSS")
    total = 0.0
    if contender == "datasets":
        for row in hf_column(ds):
            total += float(row.sum())
    elif contender == "quiver cells":
        total = sum(float(cells.sum()) for cells in qv_cells(ds))
    elif contender == "quiver rows":
        for row in qv_rows(ds):
            total += float(row.sum())
    elif contender == "quiver jagged":
        total = sum(float(values.sum()) for values in qv_jagged(ds))
    else:
        total = float(qv_padded(ds).sum())
    # ru_maxrss would keep the parent's peak across the exec that started
    # this process (Linux keeps the high-water mark of the mm it replaces)
    # and cannot be reset: VmHWM, reset above, is the same measure for this
    # process alone. ru_maxrss is checked to be no lower.
    peak = status_bytes("VmHWM")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 >= peak
    print(max(peak - before, 0), total)


def peak_rss(path, contender):
    run = subprocess.run(
        [sys.executable, __file__, "--child", path, contender],
        capture_output=True,
        text=True,
        check=True,
    )
    extra, total = run.stdout.split()
    return int(extra), float(total)


# Per kind of column: (label, function, contender name for the RSS child
# or None where no value is read).
CONTENDERS = {
    "ragged": [
        ('datasets `with_format("numpy")[:]["x"]`', hf_column, "datasets"),
        ('quiver `from_huggingface(ds).column("x")`', qv_column, None),
        ("quiver, then `to_jagged()` per chunk (values zero-copy)", qv_jagged, "quiver jagged"),
        ("quiver, then `to_numpy()` per chunk (row views)", qv_rows, "quiver rows"),
        ("quiver, then `to_padded()` (a copy)", qv_padded, "quiver padded"),
    ],
    "fixed": [
        ('datasets `with_format("numpy")[:]["x"]`', hf_column, "datasets"),
        ('quiver `from_huggingface(ds).column("x")`', qv_column, None),
        ("quiver, then `to_numpy()` per chunk (views)", qv_cells, "quiver cells"),
    ],
}


def measure(kind, rows, repeat):
    """Prints one table: the dataset of ``kind``, every contender's time and
    (in a process of its own) peak RSS over the payload."""
    import datasets

    import quiver as qv

    contenders = CONTENDERS[kind]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ds")
        payload = make_dataset(path, rows, ragged=kind == "ragged")
        ds = datasets.load_from_disk(path)
        # Same values, both ways, before anything is timed.
        theirs = hf_column(ds)
        ours = qv_rows(ds) if kind == "ragged" else np.concatenate(qv_cells(ds))
        assert len(ours) == len(theirs) == rows
        assert all(np.array_equal(a, b) for a, b in zip(ours[:100], theirs[:100]))
        del ours, theirs
        times = best_each(*[lambda fn=fn: fn(ds) for _, fn, _ in contenders], repeat=repeat)
        rss = {name: peak_rss(path, name) for _, _, name in contenders if name}
        for name, (_, total) in rss.items():
            assert np.isclose(total, rss["datasets"][1], rtol=1e-4), (name, rss)

    first = "None" if kind == "ragged" else "8"
    print(
        f"## Hugging Face datasets: Array3D({first}, {INNER[0]}, {INNER[1]}) float32, "
        f"{rows} rows, {payload / 2**20:.1f} MiB payload, memory-mapped "
        f"({datetime.date.today()}, datasets {datasets.__version__}, quiver {qv.__version__}, "
        f"best of {repeat})"
    )
    print()
    print("| access | time | datasets / this | peak RSS above start | x payload |")
    print("|---|---|---|---|---|")
    for (label, _, name), seconds in zip(contenders, times):
        if name is None:  # no value read: nothing to weigh against the payload
            memory = "| - | - |"
        else:
            extra = rss[name][0]
            memory = f"| {extra / 2**20:.1f} MiB | {extra / payload:.2f}x |"
        print(f"| {label} | {seconds * 1e3:.2f} ms | {times[0] / seconds:.1f}x {memory}")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kind", choices=["ragged", "fixed", "both"], default="both")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    try:
        import datasets  # noqa: F401
    except ImportError as e:
        print(f"bench_huggingface: skipped, datasets is not installed ({e})")
        return
    for kind in ("ragged", "fixed") if args.kind == "both" else (args.kind,):
        measure(kind, args.rows, args.repeat)


if __name__ == "__main__":
    main()
