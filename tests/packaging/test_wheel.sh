#!/usr/bin/env bash
# `make test-wheel`: dist/'s binary wheel, installed with its [test] extra in
# a fresh venv, passes the Python suite run from outside the source tree
# (so `import quiver` finds the installed package only); installed with only
# [arrow] in another, it runs the README's first examples; and its codecs
# work where the system's libzstd and liblz4 cannot be loaded.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-python3}
WORK="$ROOT/build/test-wheel"

shopt -s nullglob
source "$ROOT/tests/packaging/dist_file.sh"
dist_file test-wheel 'quiver_tensors-*manylinux*.whl' 'manylinux wheel' wheel
wheel=$DIST_FILE

rm -rf "$WORK"
mkdir -p "$WORK/run"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q "${wheel}[test]"

cd "$WORK/run"  # not the source tree: nothing of python/quiver is importable
"$WORK/venv/bin/python" - "$WORK/venv" <<'PY'
import pathlib, sys
import quiver
where = pathlib.Path(quiver.__file__).resolve()
assert pathlib.Path(sys.argv[1]).resolve() in where.parents, f"quiver imported from {where}"
print(f"test-wheel: quiver {quiver.__version__} from {where.parent}, codecs {quiver.ipc.codecs()}")
PY
# The wheel carries the `quiver` command: the compiled executable itself in
# the venv's scripts folder (no Python launcher in front of it).
[ "$(head -c 4 "$WORK/venv/bin/quiver" | od -An -c | tr -d ' ')" = '177ELF' ] \
  || { echo "test-wheel: $WORK/venv/bin/quiver is not an ELF executable" >&2; exit 1; }
"$WORK/venv/bin/quiver" --help | grep -q "quiver inspect" || { echo "test-wheel: quiver --help failed" >&2; exit 1; }
"$WORK/venv/bin/quiver" demo --rows 8 >/dev/null
echo "test-wheel: quiver (an ELF executable on the venv's PATH): --help and demo run"
"$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/tests/python" "$ROOT/tests/cli/test_cli.py"

# First contact: the wheel with only its [arrow] extra (NumPy, pyarrow), in a
# fresh venv that sees no system site packages, runs every unmarked python
# block of the README and docs/ipc.md, and `python -m quiver` runs the tool.
"$PYTHON" -m venv "$WORK/minimal"
"$WORK/minimal/bin/python" -m pip install -q "${wheel}[arrow]"
"$WORK/minimal/bin/python" "$ROOT/tests/packaging/doc_blocks_minimal.py" "$ROOT/README.md" "$ROOT/docs/ipc.md"
"$WORK/minimal/bin/python" -m quiver --help | grep -q "quiver inspect" \
  || { echo "test-wheel: python -m quiver --help failed" >&2; exit 1; }

# The codecs and libcurl with the system's libzstd, liblz4 and libcurl hidden
# (empty files bound over them in a private mount namespace): the extension
# must load only the copies inside the wheel, and the `quiver` executable
# has the codecs in it and reads URLs through the package's libcurl module.
mapfile -t libs < <(for lib in /usr/lib/*/libzstd.so.1 /usr/lib/*/liblz4.so.1 /usr/lib/*/libcurl.so.4; do
  [ -e "$lib" ] && readlink -f "$lib"; done | sort -u)
: > "$WORK/empty"
QUIVER_SYSTEM_CODECS_HIDDEN=1 unshare -m --propagation private bash -euo pipefail -c '
  empty=$1; shift; python=$1; shift; test=$1; shift
  for lib in "$@"; do mount --bind "$empty" "$lib"; echo "test-wheel: hid $lib (now $(wc -c < "$lib") bytes)"; done
  "$python" -m pytest -q -p no:cacheprovider "$test" "${test%/*}/wheel_cli_test.py"
' _ "$WORK/empty" "$WORK/venv/bin/python" "$ROOT/tests/packaging/wheel_codecs_test.py" "${libs[@]}"
