# The layering rules of src/quiver/ and python/src/, checked as a test
# (ctest: LayoutRules). Run as: cmake -DROOT=<source dir> -P layout_rules.cmake
#
# - src/quiver/internal/ is the generic toolkit any layer may use: it
#   includes nothing above array.h, that is only internal/ headers and the
#   core headers status.h, buffer.h, type.h, dims.h, array.h and the value
#   type pad_value.h; never a
#   component folder (extension/, shape/, interchange/, sparse/, ipc/) nor
#   another public header.
# - the core model (the files at the root of src/quiver/) includes from the
#   component folders only internal/ headers and
#   extension/canonical_extensions.h, the one door into the tensor types.
# - python/src/ (the bindings) includes only public headers (quiver/NAME.h)
#   and its own: never a header from a folder under src/quiver/.
# - tests/cpp/ mirrors src/quiver/: every src/quiver/<dir>/NAME.cc has its
#   tests in tests/cpp/<dir>/NAME_test.cc, and the files at the root of
#   src/quiver/ (the core model) theirs in tests/cpp/core/NAME_test.cc.
cmake_minimum_required(VERSION 3.22)

set(violations "")

file(GLOB internal_files "${ROOT}/src/quiver/internal/*.h" "${ROOT}/src/quiver/internal/*.cc")
foreach(path IN LISTS internal_files)
  file(STRINGS "${path}" includes REGEX "^#include \"quiver/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    if(NOT header MATCHES "^quiver/internal/" AND
       NOT header MATCHES "^quiver/(status|buffer|type|dims|array|pad_value)\\.h$")
      string(APPEND violations "  ${path}: includes ${header} (internal/ includes nothing above array.h)\n")
    endif()
  endforeach()
endforeach()

file(GLOB core_files "${ROOT}/src/quiver/*.h" "${ROOT}/src/quiver/*.cc")
foreach(path IN LISTS core_files)
  file(STRINGS "${path}" includes REGEX "^#include \"quiver/[a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    if(NOT header MATCHES "^quiver/internal/" AND
       NOT header STREQUAL "quiver/extension/canonical_extensions.h")
      string(APPEND violations "  ${path}: includes ${header} (the core reaches extension/ through canonical_extensions.h only, and no other component folder)\n")
    endif()
  endforeach()
endforeach()

file(GLOB binding_files "${ROOT}/python/src/*.h" "${ROOT}/python/src/*.cc")
foreach(path IN LISTS binding_files)
  file(STRINGS "${path}" includes REGEX "^#include \"quiver/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    if(header MATCHES "^quiver/[^/]+/")
      string(APPEND violations "  ${path}: includes ${header} (the bindings use public headers only)\n")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE source_files RELATIVE "${ROOT}/src/quiver" "${ROOT}/src/quiver/*.cc")
foreach(source IN LISTS source_files)
  get_filename_component(dir "${source}" DIRECTORY)
  get_filename_component(name "${source}" NAME_WE)
  if(dir STREQUAL "")
    set(dir "core")
  endif()
  if(NOT EXISTS "${ROOT}/tests/cpp/${dir}/${name}_test.cc")
    string(APPEND violations "  src/quiver/${source}: no tests/cpp/${dir}/${name}_test.cc (every source file has a test file named after it)\n")
  endif()
endforeach()

list(LENGTH internal_files internal_count)
list(LENGTH binding_files binding_count)
list(LENGTH source_files source_count)
if(internal_count EQUAL 0 OR binding_count EQUAL 0 OR source_count EQUAL 0)
  message(FATAL_ERROR "layout rules: no files found under ${ROOT} (ROOT wrong?)")
endif()
if(violations)
  message(FATAL_ERROR "layout rules broken:\n${violations}")
endif()
message(STATUS "layout rules hold for ${internal_count} internal/ and ${binding_count} python/src/ files; "
               "${source_count} source files have their test files")
