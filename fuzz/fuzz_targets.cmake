# The fuzz targets named in fuzz/targets.txt, shared by the libFuzzer
# executables (fuzz/CMakeLists.txt) and the corpus replay test
# (tests/cpp/CMakeLists.txt). quiver_fuzz_logic() defines
#   QUIVER_FUZZ_TARGETS  (in the caller's scope) the target names, and
#   quiver_fuzz_logic    a static library with every target's entry function,
#                        quiver::fuzz::Fuzz<Name>(const uint8_t*, size_t),
#                        plus the generated fuzz_targets.h that declares them
#                        and lists them by name (quiver::fuzz::kTargets).
# The logic is built without -fsanitize=fuzzer, so ordinary programs (the
# test) can call it.
function(quiver_fuzz_logic)
  set(dir ${PROJECT_SOURCE_DIR}/fuzz)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/targets.txt)
  file(STRINGS ${dir}/targets.txt lines)
  set(targets "")
  set(declarations "")
  set(entries "")
  set(sources "")
  foreach(line ${lines})
    if(line MATCHES "^#" OR line STREQUAL "")
      continue()
    endif()
    if(NOT line MATCHES "^([a-z0-9_]+)_fuzz$")
      message(FATAL_ERROR "fuzz/targets.txt: '${line}' is not a name ending in _fuzz")
    endif()
    # fixed_shape_metadata_fuzz -> FuzzFixedShapeMetadata
    string(REPLACE "_" ";" words ${CMAKE_MATCH_1})
    set(function Fuzz)
    foreach(word ${words})
      string(SUBSTRING ${word} 0 1 first)
      string(SUBSTRING ${word} 1 -1 rest)
      string(TOUPPER ${first} first)
      string(APPEND function ${first}${rest})
    endforeach()
    list(APPEND targets ${line})
    list(APPEND sources ${dir}/${line}.cc)
    string(APPEND declarations "int ${function}(const uint8_t* data, size_t size);\n")
    string(APPEND entries "    {\"${line}\", &${function}},\n")
  endforeach()
  set(QUIVER_FUZZ_TARGETS ${targets} PARENT_SCOPE)
  if(TARGET quiver_fuzz_logic)
    return()
  endif()

  set(generated ${PROJECT_BINARY_DIR}/fuzz_generated)
  file(CONFIGURE OUTPUT ${generated}/fuzz_targets.h CONTENT
"// Generated from fuzz/targets.txt by fuzz/fuzz_targets.cmake.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quiver::fuzz {

// Each returns 0 (libFuzzer's convention) and aborts on a broken invariant.
${declarations}
struct Target {
  const char* name;
  int (*run)(const uint8_t* data, size_t size);
};

inline constexpr Target kTargets[] = {
${entries}};

}  // namespace quiver::fuzz
")
  add_library(quiver_fuzz_logic STATIC ${sources})
  target_include_directories(quiver_fuzz_logic PUBLIC ${generated})
  target_link_libraries(quiver_fuzz_logic PUBLIC quiver_static)
  # npy_reader_fuzz: the `quiver` tool's .npy / .npz readers (tools/).
  target_link_libraries(quiver_fuzz_logic PUBLIC quiver_tool_lib)
  # http_response_fuzz, s3_listing_fuzz: the remote sources' parsers
  # (internal headers of src/quiver/io/).
  target_include_directories(quiver_fuzz_logic PRIVATE ${PROJECT_SOURCE_DIR}/src)
  quiver_warnings(quiver_fuzz_logic)
endfunction()
