# quiver: `make demo` runs the sample job, `make test` runs every suite.
PYTHON ?= python3

.PHONY: all setup build test test-cpp test-asan test-example test-python python demo bench clean

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

python: setup
	$(PYTHON) -m pip install --no-build-isolation -q .

test-python: python
	$(PYTHON) -m pytest -q tests/python

test: test-cpp test-asan test-example test-python

demo: python
	$(PYTHON) examples/demo.py

bench: setup python
	cmake --preset release >/dev/null
	cmake --build --preset release
	./build/release/bench/cpp/quiver_bench --benchmark_min_time=0.2
	$(PYTHON) bench/python/bench_fixed_shape.py

clean:
	rm -rf build
