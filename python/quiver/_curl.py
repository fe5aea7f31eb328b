"""Where the package's libquiver_curl.so lies: a module that links libcurl,
which the first remote read opens (quiver links no libcurl, so that
``import quiver`` and the ``quiver`` command never load it and its libraries
unless a URL is read). The binary wheel carries libcurl as that module's
dependency. docs/remote.md."""

import os

MODULE_NAME = "libquiver_curl.so"


def curl_module():
    """The module's path, or None where this installation has none (a build
    without libcurl's headers)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), MODULE_NAME)
    return path if os.path.isfile(path) else None
