"""The paths issue 37 set goals for, side by side with their peers in one run.

Each subject's bench measures its own paths (best of N, quiver and the
peer interleaved on the same data) and hands them over through its
`perf_paths()`; this script runs them in turn and prints one table:
the path, quiver's time, the peer's, their ratio (> 1: quiver is
faster) and the goal. Where a goal is "<= k x", the peer is the cost
quiver is held to (one NumPy pass, one memcpy) and the ratio is
quiver's time over the peer's.

  python bench/python/bench_perf_paths.py
  QUIVER_BENCH_PERF_QUICK=1 python ...   # smaller sizes, for a look
"""

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Module, and the arguments of its perf_paths() for a full and a quick run.
SUBJECTS = [
    ("bench_selection", {"scale": 1.0}, {"scale": 0.1}),
    ("bench_ipc", {"mib": 1024}, {"mib": 64}),
    ("bench_enforce_shape", {}, {}),
    ("bench_variable_shape", {}, {"rows": 10**4, "repeat": 2}),
    ("bench_cli", {}, {}),
]


def ratio_text(ours, theirs, goal):
    if goal.startswith(("<=", "≤")):  # quiver's time as a multiple of the peer's
        return f"{ours / theirs:6.2f}x of peer"
    return f"{theirs / ours:6.2f}x"


def main():
    quick = bool(os.environ.get("QUIVER_BENCH_PERF_QUICK"))
    print("| path | quiver | peer | peer time | ratio | goal |")
    print("|---|---:|---|---:|---:|---|")
    for name, full, small in SUBJECTS:
        module = importlib.import_module(name)
        paths = getattr(module, "perf_paths", None)
        if paths is None:
            print(f"| {name}: no perf_paths() | | | | | |")
            continue
        for path, ours, peer, theirs, goal in paths(**(small if quick else full)):
            print(
                f"| {path} | {ours * 1e3:.3f} ms | {peer} | {theirs * 1e3:.3f} ms "
                f"| {ratio_text(ours, theirs, goal)} | {goal} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
