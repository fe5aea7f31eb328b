"""Prints where an installed wheel's packages lie (platlib) relative to its
scripts folder, for every installation scheme of the Python that builds the
wheel, as one ':'-separated list, most likely first.

The wheel's `quiver` executable lies in the scripts folder (venv/bin/quiver)
and looks for the package's libquiver_curl.so in these folders
(tools/curl_module.h): which scheme an installer used is known only at
install time, and asking Python at run time would cost the Python start the
native executable exists to avoid. A Python built with Debian's patches
knows Debian's schemes; a wheel built elsewhere (manylinux) may still be
installed into them, so they are added here by name.
"""

import os
import sys
import sysconfig

BASE = "/base"


def relative_platlib(scheme):
    variables = {
        name: BASE
        for name in ("base", "platbase", "installed_base", "installed_platbase", "userbase")
    }
    paths = sysconfig.get_paths(scheme, vars=variables)
    if "scripts" not in paths or "platlib" not in paths:
        return None
    return os.path.relpath(paths["platlib"], paths["scripts"]).replace(os.sep, "/")


def main():
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    # Windows' schemes on POSIX and the reverse name folders no install uses.
    foreign = ("posix", "osx") if os.name == "nt" else ("nt",)
    schemes = [sysconfig.get_default_scheme()] if hasattr(sysconfig, "get_default_scheme") else []
    schemes += sorted(sysconfig.get_scheme_names())
    found = []
    for scheme in schemes:
        if scheme.startswith(foreign):
            continue
        if scheme.startswith("osx") and sys.platform != "darwin":
            continue
        path = relative_platlib(scheme)
        if path is not None:
            found.append(path)
    found += [
        # Fedora's and RHEL's Python: platlibdir lib64.
        f"../lib64/python{version}/site-packages",
        # Debian's posix_local (/usr/local/bin, /usr/local/lib/python3.X/dist-packages)
        # and deb_system (/usr/bin, /usr/lib/python3/dist-packages).
        f"../lib/python{version}/dist-packages",
        "../lib/python3/dist-packages",
        # auditwheel's <name>.scripts folder in platlib, where a repaired
        # wheel moves a scripts-folder program that needs the wheel's libraries.
        "..",
    ]
    unique = list(dict.fromkeys(found))
    if any(":" in path for path in unique):
        sys.exit(f"a platlib path holds ':': {unique}")
    print(":".join(unique))


if __name__ == "__main__":
    main()
