# quiver: `make demo` runs the sample job, `make test` runs every suite.
PYTHON ?= python3

.PHONY: all setup build test test-cpp test-asan test-example test-python test-arrow-compat python demo bench fuzz clean

all: build

setup:
	@bash scripts/setup

build: setup
	cmake --preset dev >/dev/null
	cmake --build --preset dev

test-cpp: build
	ctest --preset dev

test-asan: setup
	cmake --preset asan >/dev/null
	cmake --build --preset asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan

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

test-python: python
	$(PYTHON) -m pytest -q tests/python

test: test-cpp test-asan test-example test-python test-arrow-compat

demo: python
	$(PYTHON) examples/demo.py

bench: setup python
	cmake --preset release >/dev/null
	cmake --build --preset release
	./build/release/bench/cpp/quiver_bench --benchmark_min_time=0.2
	$(PYTHON) bench/python/bench_fixed_shape.py
	$(PYTHON) bench/python/bench_variable_shape.py
	$(PYTHON) bench/python/bench_dlpack.py
	$(PYTHON) bench/python/bench_ipc.py
	$(PYTHON) bench/python/bench_python_practice.py
	$(PYTHON) bench/python/bench_enforce_shape.py
	$(PYTHON) bench/python/bench_sparse.py

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
	rm -rf build
