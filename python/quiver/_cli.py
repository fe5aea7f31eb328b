"""``python -m quiver ARGS`` (or ``python -m quiver._cli ARGS``): runs the
``quiver`` command-line tool where the scripts folder is not on PATH,
passing every argument and the exit code through (docs/cli.md).

The wheel installs the compiled executable itself as ``quiver`` in the
environment's scripts folder (``venv/bin/quiver``), so that the command
starts without Python; this module finds it there.
"""

import functools
import os
import sys
import sysconfig
from pathlib import Path

# The tool's exit code for usage errors and missing files. A missing tool
# exits with it too: it is not the "bad file or failed work" of exit code 1,
# which a script such as `quiver validate x.arrow || mark_corrupt x.arrow`
# would otherwise read as a verdict on the file.
USAGE_ERROR = 2

NAME = "quiver.exe" if os.name == "nt" else "quiver"
DISTRIBUTION = "quiver-tensors"


def _recorded_in(record, site):
    """The executable's path in the RECORD file `record` (paths relative to
    `site`), or None."""
    import csv

    with open(record, newline="", encoding="utf-8") as f:
        for row in csv.reader(f):
            if row and Path(row[0]).name == NAME:
                return (site / row[0]).resolve()
    return None


def _recorded():
    """The executable's path as the installer recorded it for this
    distribution (RECORD): right whatever scheme, prefix or target folder
    the installation used. None without such metadata."""
    # Beside the package first: a glob and a 5 kB read, where
    # importlib.metadata costs 25-40 ms of imports (email, zipfile, ...).
    site = Path(__file__).resolve().parent.parent
    try:
        for record in site.glob(f"{DISTRIBUTION.replace('-', '_')}-*.dist-info/RECORD"):
            found = _recorded_in(record, site)
            if found is not None:
                return found
    except OSError:
        pass
    # An editable install: the package is not beside its metadata.
    try:
        from importlib import metadata

        files = metadata.distribution(DISTRIBUTION).files or ()
    except (ImportError, OSError, ValueError):  # PackageNotFoundError is a ValueError
        return None
    for file in files:
        if file.name == NAME:
            return Path(file.locate()).resolve()
    return None


def _user_scheme():
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"


def _candidates():
    """Where the executable may be, most exact first (lazily: the later
    ones are looked at only when the earlier hold no executable)."""
    recorded = _recorded()
    if recorded is not None:
        yield recorded
    yield Path(sysconfig.get_path("scripts")) / NAME
    yield Path(sysconfig.get_path("scripts", _user_scheme())) / NAME
    yield Path(sys.executable).parent / NAME


def is_native(path) -> bool:
    """Whether ``path`` is the compiled tool: an executable file that is not
    a ``#!`` script (an installation built without the tool has a script
    named ``quiver`` in its place that says how to get it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(2)
    except OSError:
        return False
    return len(head) == 2 and head != b"#!" and os.access(path, os.X_OK)


@functools.lru_cache(maxsize=None)
def _find():
    first = None
    for path in _candidates():
        first = first or path
        if is_native(path):
            return path
    return first


def executable() -> Path:
    """The path of the ``quiver`` executable this installation put in its
    scripts folder, or where it would be when there is none (a source build
    made without CLI11: see ``is_native``)."""
    return _find()


def installed_executable():
    """The executable's path as a str, or None where this installation has
    no tool (``quiver.build_info()['cli']``)."""
    exe = executable()
    return str(exe) if is_native(exe) else None


def missing_message(exe) -> str:
    """What a command says when this installation has no tool, with the fix."""
    return (
        f"quiver: this installation has no command-line tool (no compiled executable at {exe}): "
        "it was built from source without CLI11. To get the tool, either install CLI11 "
        "(Debian/Ubuntu: apt-get install libcli11-dev, and zlib1g-dev for compressed .npz files) "
        'and reinstall from the quiver clone (pip install ".[arrow]"), or build the binary wheel, '
        "which carries the tool (in the clone: make wheel, then pip install "
        "dist/quiver_tensors-*.whl)\n"
    )


def main() -> None:
    exe = executable()
    if not is_native(exe):
        sys.stderr.write(missing_message(exe))
        sys.exit(USAGE_ERROR)
    args = [str(exe), *sys.argv[1:]]
    if os.name == "nt":
        import subprocess

        sys.exit(subprocess.call(args))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(str(exe), args)  # the tool replaces this process: signals and exit code are its own


if __name__ == "__main__":
    main()
