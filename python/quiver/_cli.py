"""The ``quiver`` console script: runs the command-line tool that the wheel
carries next to the package (``quiver/bin/quiver``), passing every argument
and the exit code through (docs/cli.md).

``python -m quiver ARGS`` (or ``python -m quiver._cli ARGS``) does the same
where the script is not on PATH.
"""

import os
import subprocess
import sys
from pathlib import Path

# The tool's exit code for usage errors and missing files. A missing tool
# exits with it too: it is not the "bad file or failed work" of exit code 1,
# which a script such as `quiver validate x.arrow || mark_corrupt x.arrow`
# would otherwise read as a verdict on the file.
USAGE_ERROR = 2


def executable() -> Path:
    """The path of the bundled ``quiver`` executable (which may be absent
    in a source build made without CLI11)."""
    name = "quiver.exe" if os.name == "nt" else "quiver"
    return Path(__file__).resolve().parent / "bin" / name


def installed_executable():
    """The bundled executable's path as a str, or None where this
    installation has none (``quiver.build_info()['cli']``)."""
    exe = executable()
    return str(exe) if exe.is_file() else None


def missing_message(exe) -> str:
    """What a command says when this installation has no tool, with the fix."""
    return (
        f"quiver: this installation has no command-line tool ({exe} is missing): it was built "
        "from source without CLI11. To get the tool, either install CLI11 (Debian/Ubuntu: "
        "apt-get install libcli11-dev, and zlib1g-dev for compressed .npz files) and reinstall "
        'from the quiver clone (pip install ".[arrow]"), or build the binary wheel, which '
        "carries the tool (in the clone: make wheel, then pip install dist/quiver_tensors-*.whl)\n"
    )


def main() -> None:
    exe = executable()
    if not exe.is_file():
        sys.stderr.write(missing_message(exe))
        sys.exit(USAGE_ERROR)
    args = [str(exe), *sys.argv[1:]]
    if os.name == "nt":
        sys.exit(subprocess.call(args))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(str(exe), args)  # the tool replaces this process: signals and exit code are its own


if __name__ == "__main__":
    main()
