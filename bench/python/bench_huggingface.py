"""quiver.from_huggingface against datasets' own NumPy format, measured in
one run on the same dataset.

The dataset: an ``Array3D(shape=(None, 8, 16), dtype="float32")`` column
(a dynamic first dimension of 1..8 per row), written by ``datasets``
(``save_to_disk``) and memory-mapped back with ``load_from_disk``, as a
training job would open it. What is measured, per contender, is getting
every row of the column as a NumPy array:

- datasets: ``ds.with_format("numpy")["x"]`` (a column of per-row arrays);
- quiver: ``qv.from_huggingface(ds).column("x")`` alone (relabelling, no
  value read); then ``to_jagged()`` on each chunk (the flat values, a view
  of the mapped file, with offsets and shapes written); ``to_numpy()`` on
  each chunk (per-row read-only views of the mapped file, the same result
  as datasets'); and ``to_padded()`` (one (rows, 8, 8, 16) array: a copy).

Times are the best of --repeat
runs, contenders interleaved. Peak RSS is measured in a fresh process per
contender: the peak (VmHWM, reset just before the access; getrusage's
ru_maxrss cannot be reset and keeps the parent's peak across exec) minus
the RSS just before the access, both after the imports and
``load_from_disk``; there the access also reads every value (a sum over
each row), so the mapped pages a contender touches count. It is reported
as a multiple of the column's payload (its values' bytes).
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


def make_dataset(path, rows, seed=38):
    import datasets

    rng = np.random.default_rng(seed)
    firsts = rng.integers(1, 9, rows)
    features = datasets.Features({"x": datasets.Array3D(shape=(None, *INNER), dtype="float32")})

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    try:
        import datasets
    except ImportError as e:
        print(f"bench_huggingface: skipped, datasets is not installed ({e})")
        return
    import quiver as qv

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ds")
        payload = make_dataset(path, args.rows)
        ds = datasets.load_from_disk(path)
        # Same values, both ways, before anything is timed.
        ours = qv_rows(ds)
        theirs = hf_column(ds)
        assert len(ours) == len(theirs) == args.rows
        assert all(np.array_equal(a, b) for a, b in zip(ours[:100], theirs[:100]))
        del ours, theirs
        t_hf, t_column, t_jagged, t_rows, t_padded = best_each(
            lambda: hf_column(ds),
            lambda: qv_column(ds),
            lambda: qv_jagged(ds),
            lambda: qv_rows(ds),
            lambda: qv_padded(ds),
            repeat=args.repeat,
        )
        rss = {
            c: peak_rss(path, c)
            for c in ("datasets", "quiver jagged", "quiver rows", "quiver padded")
        }
        sums = {c: total for c, (_, total) in rss.items()}
        assert np.isclose(sums["datasets"], sums["quiver rows"], rtol=1e-4), sums
        assert np.isclose(sums["datasets"], sums["quiver padded"], rtol=1e-4), sums
        assert np.isclose(sums["datasets"], sums["quiver jagged"], rtol=1e-4), sums

    mib = payload / 2**20
    print(
        f"## Hugging Face datasets: Array3D(None, {INNER[0]}, {INNER[1]}) float32, "
        f"{args.rows} rows, {mib:.1f} MiB payload, memory-mapped "
        f"({datetime.date.today()}, datasets {datasets.__version__}, quiver {qv.__version__}, "
        f"best of {args.repeat})"
    )
    print()
    print("| access | time | datasets / this | peak RSS above start | x payload |")
    print("|---|---|---|---|---|")
    rows = [
        ('datasets `with_format("numpy")[:]["x"]`', t_hf, "datasets"),
        ('quiver `from_huggingface(ds).column("x")`', t_column, None),
        ("quiver, then `to_jagged()` per chunk (values zero-copy)", t_jagged, "quiver jagged"),
        (
            'quiver `from_huggingface(ds).column("x")`, `to_numpy()` per chunk (row views)',
            t_rows,
            "quiver rows",
        ),
        ("quiver `from_huggingface(ds)`, `to_padded()` (a copy)", t_padded, "quiver padded"),
    ]
    for label, seconds, contender in rows:
        if contender is None:  # no value read: nothing to weigh against the payload
            memory = "| - | - |"
        else:
            extra = rss[contender][0]
            memory = f"| {extra / 2**20:.1f} MiB | {extra / payload:.2f}x |"
        print(f"| {label} | {seconds * 1e3:.2f} ms | {t_hf / seconds:.1f}x {memory}")


if __name__ == "__main__":
    main()
