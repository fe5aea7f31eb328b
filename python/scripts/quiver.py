#!/usr/bin/env python3
"""The `quiver` command of an installation built without the command-line
tool (CLI11 was not found): the build installs this in the scripts folder,
where the native executable would be, so that `quiver` says how to get the
tool and exits with 2 instead of being an unknown command."""

from quiver._cli import main

main()
