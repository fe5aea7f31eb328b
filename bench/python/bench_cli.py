"""The `quiver` command line tool, measured in one run (docs/cli.md):

- `quiver inspect` on a 1 GiB IPC file (a fixed_shape_tensor column,
  written by pyarrow; uncompressed, then zstd-compressed): wall time of
  the whole process (best of RUNS), its peak RSS (getrusage of the child:
  a run that paged the tensor data in, or decompressed it, would show
  about 1 GiB), against `pyarrow.ipc.open_file(path).schema` timed in
  this process. Target: under 50 ms, no data pages touched.
- `quiver pack` of 10^4 .npy files against `cat` of the same files into
  /dev/null (both with the files in the page cache, best of RUNS). Target:
  pack at least half cat's speed.
- The command's start: `quiver --version` and `quiver inspect` of the 1 GiB
  file, wall time of the whole process (best of RUNS), run as the
  installation's `quiver` (the compiled executable in the scripts folder,
  what PATH finds) and as `python -m quiver` (Python, then the package and
  NumPy imported, then the same executable: what the console script cost
  before the wheel put the executable itself on PATH). Target: under 50 ms.
  `perf_paths()` returns these for bench_perf_paths.py.

The executable: $QUIVER_CLI, else the installed package's, else PATH.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

RUNS = 5
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "cli"))


def installed_cli():
    """The installation's `quiver` (the compiled executable in the scripts
    folder), or None."""
    try:
        from quiver._cli import installed_executable
    except ImportError:
        return None
    return installed_executable()


def find_cli():
    return os.environ.get("QUIVER_CLI") or installed_cli() or shutil.which("quiver")


def timed_child(args):
    """Wall seconds of one child process."""
    path = shutil.which(args[0]) or args[0]
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        pid = os.posix_spawn(
            path, list(args), os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null.fileno(), 1)]
        )
        _, status, _ = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args} failed")
    return seconds, None


# A child's peak RSS counts the memory of the process it was forked or
# spawned from (Linux carries the high-water mark through exec), so the
# tool runs under a fresh small interpreter that forks it and reports its
# wait4 usage; `quiver --version` measured the same way is the floor.
RSS_WRAPPER = """
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss * 1024)
"""


def peak_rss(args):
    out = subprocess.run(
        [sys.executable, "-c", RSS_WRAPPER, *args], check=True, capture_output=True, text=True
    ).stdout
    return int(out)


ROWS, PER_BATCH = 4096, 256


def write_big_file(path, compression=None):
    """4096 rows of a fixed_shape_tensor<float32>[256, 256] column in 16
    batches (1 GiB uncompressed), written by pyarrow."""
    cell = (256, 256)  # 256 KiB of float32 a row
    typ = pa.fixed_shape_tensor(pa.float32(), cell)
    values = np.random.default_rng(0).random(PER_BATCH * cell[0] * cell[1], dtype=np.float32)
    storage = pa.FixedSizeListArray.from_arrays(pa.array(values), cell[0] * cell[1])
    batch = pa.record_batch([pa.ExtensionArray.from_storage(typ, storage)], names=["x"])
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.ipc.new_file(path, batch.schema, options=options) as w:
        for _ in range(ROWS // PER_BATCH):
            w.write_batch(batch)
    return path.stat().st_size


def bench_inspect(cli, work, compression=None):
    path = work / "big.arrow"
    rows, per_batch = ROWS, PER_BATCH
    size = write_big_file(path, compression)
    first, _ = timed_child([cli, "inspect", "--json", str(path)])
    rss = peak_rss([cli, "inspect", "--json", str(path)])
    rss_floor = peak_rss([cli, "--version"])
    best = min(
        [first] + [timed_child([cli, "inspect", "--json", str(path)])[0] for _ in range(RUNS - 1)]
    )
    base, _ = timed_child([cli, "--version"])  # process start alone
    pyarrow_best = float("inf")
    for _ in range(RUNS):
        start = time.perf_counter()
        pa.ipc.open_file(path).schema
        pyarrow_best = min(pyarrow_best, time.perf_counter() - start)
    print(
        f"inspect: {size / 2**30:.2f} GiB file, {rows // per_batch} batches, "
        f"compression {compression or 'none'}"
    )
    print(
        f"  quiver inspect --json (whole process): {best * 1e3:.1f} ms "
        f"(target < 50 ms; process start alone {base * 1e3:.1f} ms), "
        f"peak RSS {rss / 2**20:.1f} MiB ('quiver --version': {rss_floor / 2**20:.1f} MiB; "
        f"the file is {size / 2**20:.0f} MiB)"
    )
    print(
        f"  pyarrow.ipc.open_file(path).schema (in process): {pyarrow_best * 1e3:.2f} ms; "
        f"ratio quiver / pyarrow {best / pyarrow_best:.0f}x for the whole process, "
        f"{max(best - base, 0) / pyarrow_best:.0f}x past the process start "
        f"(quiver also reads every batch's metadata and shape buffers)"
    )
    path.unlink()


def bench_pack(cli, work):
    folder = work / "npys"
    folder.mkdir()
    rng = np.random.default_rng(0)
    count = 10_000
    for i in range(count):
        np.save(folder / f"{i:05d}.npy", rng.integers(0, 255, (64, 64, 3), dtype=np.uint8))
    files = sorted(str(p) for p in folder.iterdir())
    total = sum(os.path.getsize(f) for f in files)
    cat = 'cat -- "$@" > /dev/null'
    timed_child(["sh", "-c", cat, "sh", *files])  # warm the page cache
    cat_best = min(timed_child(["sh", "-c", cat, "sh", *files])[0] for _ in range(RUNS))
    out = work / "packed.arrow"
    pack_best = min(
        timed_child([cli, "pack", "-q", str(folder), "-o", str(out)])[0] for _ in range(RUNS)
    )
    print(f"pack: {count} .npy files, {total / 2**20:.0f} MiB")
    print(f"  cat > /dev/null: {cat_best * 1e3:.0f} ms ({total / cat_best / 2**20:.0f} MiB/s)")
    print(
        f"  quiver pack: {pack_best * 1e3:.0f} ms ({total / pack_best / 2**20:.0f} MiB/s), "
        f"{cat_best / pack_best:.2f}x cat's speed (target >= 0.5x)"
    )


def best_child(args, runs):
    """Best wall seconds of `runs` runs of a child process (one more run
    first, untimed, so that the files it maps are in the page cache)."""
    timed_child(args)
    return min(timed_child(args)[0] for _ in range(runs))


def start_times(cli, big, runs=RUNS):
    """{(command, how): best seconds} for `quiver --version` and
    `quiver inspect --json BIG`, run as the executable `cli` and as
    `python -m quiver`."""
    python_m = [sys.executable, "-m", "quiver"]
    times = {}
    for command in (["--version"], ["inspect", "--json", str(big)]):
        times[(command[0], "native")] = best_child([cli, *command], runs)
        times[(command[0], "python -m")] = best_child([*python_m, *command], runs)
    return times


def perf_paths(runs=RUNS):
    """The command's start, for bench/python/bench_perf_paths.py: a list of
    (path_name, quiver_seconds, peer_name, peer_seconds, goal_text), where
    quiver is the installation's `quiver` (the executable on PATH) and the
    peer `python -m quiver` (the way through Python the console script took
    before). Empty where the installation has no executable."""
    cli = installed_cli()
    if cli is None:
        return []
    with tempfile.TemporaryDirectory() as work:
        big = pathlib.Path(work) / "big.arrow"
        write_big_file(big)
        times = start_times(cli, big, runs)
    return [
        (
            "quiver --version (process)",
            times[("--version", "native")],
            "python -m quiver --version",
            times[("--version", "python -m")],
            "< 50 ms",
        ),
        (
            "quiver inspect of a 1 GiB IPC file (process)",
            times[("inspect", "native")],
            "python -m quiver inspect",
            times[("inspect", "python -m")],
            "< 50 ms",
        ),
    ]


def bench_start(work):
    cli = installed_cli()
    if cli is None:
        print(
            "start: no installed quiver executable (the package was built without CLI11); skipped"
        )
        return
    big = work / "big.arrow"
    size = write_big_file(big)
    times = start_times(cli, big)
    big.unlink()
    print(f"start: {cli} against python -m quiver ({sys.executable}), best of {RUNS}")
    for command, label in (
        ("--version", "--version"),
        ("inspect", f"inspect --json of a {size / 2**30:.2f} GiB file"),
    ):
        native, python_m = times[(command, "native")], times[(command, "python -m")]
        print(
            f"  quiver {label}: {native * 1e3:.1f} ms; python -m quiver {label}: "
            f"{python_m * 1e3:.0f} ms ({python_m / native:.0f}x; target < 50 ms)"
        )


def main():
    cli = find_cli()
    if cli is None:
        print("bench_cli: no quiver executable (set QUIVER_CLI); skipped")
        return
    with tempfile.TemporaryDirectory() as work:
        bench_start(pathlib.Path(work))
        bench_inspect(cli, pathlib.Path(work))
        # Compressed: inspect reads each buffer's 8-byte length prefix, never
        # decompresses the values (RSS stays at the floor).
        bench_inspect(cli, pathlib.Path(work), "zstd")
        bench_pack(cli, pathlib.Path(work))


if __name__ == "__main__":
    main()
