"""What installing and importing quiver costs, measured in one run:

- the binary wheel's size (dist/, written by `make wheel`) and what is in it;
- `import quiver` beside `import numpy` and `import pyarrow`, each in fresh
  interpreters (the median of RUNS), and `import quiver` in an interpreter
  that has already imported NumPy (quiver's own share where a program
  uses NumPy anyway). quiver's import brings no NumPy: the bindings import
  it on first use. The target: `import quiver` under `import numpy`.
"""

import pathlib
import statistics
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNS = 21

TIMER = """
import sys, time
for name in sys.argv[1].split(",")[:-1]:
    __import__(name)
start = time.perf_counter()
__import__(sys.argv[1].split(",")[-1])
print(time.perf_counter() - start)
"""


def import_seconds(modules, cwd):
    times = []
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-c", TIMER, modules],
            cwd=cwd,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        times.append(float(out))
    return statistics.median(times), min(times)


def brings_numpy(cwd):
    out = subprocess.run(
        [sys.executable, "-c", "import sys, quiver; print('numpy' in sys.modules)"],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.strip() == "True"


def main():
    wheels = sorted((ROOT / "dist").glob("quiver_tensors-*.whl"))
    if wheels:
        wheel = wheels[-1]
        with zipfile.ZipFile(wheel) as z:
            unpacked = sum(i.file_size for i in z.infolist())
            libs = [
                (i.filename, i.file_size)
                for i in z.infolist()
                if i.filename.endswith((".so",)) or ".so." in i.filename
            ]
        print(
            f"wheel: {wheel.name}: {wheel.stat().st_size / 2**20:.2f} MiB "
            f"({unpacked / 2**20:.2f} MiB unpacked)"
        )
        for name, size in libs:
            print(f"  {name}: {size / 2**20:.2f} MiB")
    else:
        print("wheel: none in dist/ (make wheel writes it)")

    # From an empty folder, so the source tree's python/ cannot be imported.
    with tempfile.TemporaryDirectory() as cwd:
        import quiver

        print(
            f"import times, median (best) of {RUNS} fresh interpreters, quiver from "
            f"{pathlib.Path(quiver.__file__).parent}:"
        )
        numpy_s = import_seconds("numpy", cwd)
        pyarrow_s = import_seconds("pyarrow", cwd)
        quiver_s = import_seconds("quiver", cwd)
        after_numpy_s = import_seconds("numpy,quiver", cwd)
        for label, (median, best) in [
            ("import numpy", numpy_s),
            ("import pyarrow", pyarrow_s),
            ("import quiver", quiver_s),
            ("import quiver, NumPy already imported", after_numpy_s),
        ]:
            print(f"  {label:40s} {median * 1e3:7.1f} ms ({best * 1e3:.1f})")
        print(f"  import quiver brings NumPy in: {brings_numpy(cwd)}")
        ratio = quiver_s[0] / numpy_s[0]
        print(
            f"  import quiver / import numpy: {ratio:.2f}x "
            f"(target < 1x: {'met' if ratio < 1 else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
