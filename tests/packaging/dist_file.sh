# Sourced by the packaging tests (with ROOT set and nullglob on).
#
# dist_file TEST GLOB WHAT TARGET: sets DIST_FILE to the one file of
# $ROOT/dist/ matching GLOB and prints its name and size after "TEST: ";
# with none or several, says so (WHAT names the file, TARGET the make
# target that builds it) and exits 1.
dist_file() {
  local test=$1 pattern=$2 what=$3 target=$4
  local found=("$ROOT"/dist/$pattern)
  if [ ${#found[@]} -ne 1 ]; then
    echo "$test: expected one $what in dist/, found ${#found[@]} (run make $target)" >&2
    exit 1
  fi
  DIST_FILE=${found[0]}
  echo "$test: $(basename "$DIST_FILE") ($(du -k "$DIST_FILE" | cut -f1) KiB)"
}
