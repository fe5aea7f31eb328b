# Builds and runs the Arrow C++ compatibility program (main.cc says what it
# checks) against the libarrow and headers that the pyarrow wheel ships.
# `make test-arrow-compat` runs it from the repository root after building
# build/dev/libquiver.a; it prints a skip line when pyarrow, its headers or
# a libarrow with quiver's C++ ABI are missing.
PYTHON ?= python3
CXX ?= g++
QUIVER_LIB ?= build/dev/libquiver.a
SRC := tests/arrow_compat
OUT := build/arrow_compat

PYARROW_INCLUDE := $(shell $(PYTHON) -c "import pyarrow; print(pyarrow.get_include())" 2>/dev/null)
PYARROW_LIBDIR := $(shell $(PYTHON) -c "import pyarrow; print(pyarrow.get_library_dirs()[0])" 2>/dev/null)
LIBARROW := $(firstword $(wildcard $(PYARROW_LIBDIR)/libarrow.so.[0-9]*))
# libquiver.a uses the C++11 std::string ABI (the compiler's default); the
# program passes std::string between its halves, so libarrow must too. The
# manylinux wheels have used it since pyarrow 13; an old one is skipped.
ARROW_CXX11_ABI := $(if $(LIBARROW),$(shell nm -D --defined-only $(LIBARROW) 2>/dev/null | grep -c '_ZNK5arrow6Status8ToStringB5cxx11Ev'),0)

# The project's warning set (CMakeLists.txt, quiver_warnings).
WARNINGS := -Wall -Wextra -Wpedantic -Wconversion -Wno-sign-conversion -Wno-missing-field-initializers -Werror
FLAGS := -std=c++20 -O1 -D_GLIBCXX_USE_CXX11_ABI=1 $(WARNINGS)

.PHONY: run
ifeq ($(wildcard $(PYARROW_INCLUDE)/arrow/sparse_tensor.h),)
run:
	@echo "test-arrow-compat: skipped (pyarrow with its C++ headers not found by $(PYTHON))"
else ifeq ($(LIBARROW),)
run:
	@echo "test-arrow-compat: skipped (no libarrow.so.N in $(PYARROW_LIBDIR))"
else ifeq ($(ARROW_CXX11_ABI),0)
run:
	@echo "test-arrow-compat: skipped ($(LIBARROW) uses the pre-C++11 std::string ABI)"
else
run: $(OUT)/arrow_sparse_compat
	$(OUT)/arrow_sparse_compat
endif

# Arrow C++ 26 deprecates the Tensor and SparseTensor messages; calling
# them is the point here.
$(OUT)/arrow_side.o: $(SRC)/arrow_side.cc $(SRC)/plain_sparse.h
	@mkdir -p $(OUT)
	$(CXX) $(FLAGS) -Wno-deprecated-declarations -isystem $(PYARROW_INCLUDE) -c $< -o $@

$(OUT)/%.o: $(SRC)/%.cc $(SRC)/plain_sparse.h
	@mkdir -p $(OUT)
	$(CXX) $(FLAGS) -Iinclude -c $< -o $@

$(OUT)/arrow_sparse_compat: $(OUT)/main.o $(OUT)/plain_sparse.o $(OUT)/quiver_side.o $(OUT)/arrow_side.o $(QUIVER_LIB)
	$(CXX) -o $@ $(filter %.o,$^) $(QUIVER_LIB) -lzstd -llz4 $(LIBARROW) -Wl,-rpath,$(PYARROW_LIBDIR)
