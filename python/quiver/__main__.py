"""``python -m quiver ARGS`` runs the ``quiver`` command-line tool, as the
console script does (for a Python whose scripts folder is not on PATH)."""

from ._cli import main

main()
