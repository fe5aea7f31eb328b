"""The ``quiver`` console script: runs the command-line tool that the wheel
carries next to the package (``quiver/bin/quiver``), passing every argument
and the exit code through (docs/cli.md).

``python -m quiver._cli ARGS`` does the same where the script is not on PATH.
"""
import os
import subprocess
import sys
from pathlib import Path


def executable() -> Path:
    """The path of the bundled ``quiver`` executable (which may be absent
    in a source build made without CLI11)."""
    name = "quiver.exe" if os.name == "nt" else "quiver"
    return Path(__file__).resolve().parent / "bin" / name


def main() -> None:
    exe = executable()
    if not exe.is_file():
        sys.stderr.write(
            f"quiver: this installation has no command-line tool ({exe} is missing): it was "
            "built without CLI11 (Debian: libcli11-dev); reinstall from a wheel or with CLI11\n")
        sys.exit(1)
    args = [str(exe), *sys.argv[1:]]
    if os.name == "nt":
        sys.exit(subprocess.call(args))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(str(exe), args)  # the tool replaces this process: signals and exit code are its own


if __name__ == "__main__":
    main()
