#include "py_index.h"

#include <algorithm>
#include <string>

#include "py_errors.h"

namespace quiver::python {

// Resolves a Python index (negative counts from the end) against `length`.
int64_t ResolveIndex(int64_t index, int64_t length, const char* what) {
  int64_t resolved = index < 0 ? index + length : index;
  if (resolved < 0 || resolved >= length) {
    Raise(Status::IndexError("index " + std::to_string(index) + " is out of range for " +
                             std::to_string(length) + " " + what));
  }
  return resolved;
}

int64_t ResolveIndex(nb::handle index, int64_t length, const char* what) {
  nb::object integer = nb::steal(PyNumber_Index(index.ptr()));
  if (!integer.is_valid()) throw nb::python_error();
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
  if (value == -1 && PyErr_Occurred()) throw nb::python_error();
  if (overflow != 0) {
    Raise(Status::IndexError("index ", Str(integer), " is out of range for ", length, " ", what));
  }
  return ResolveIndex(static_cast<int64_t>(value), length, what);
}

// [start, start + count) of a step-1 Python slice over `length` rows.
std::pair<int64_t, int64_t> ClipSlice(int64_t offset, std::optional<int64_t> length, int64_t rows) {
  if (offset < 0)
    Raise(Status::IndexError("slice offset " + std::to_string(offset) + " is negative"));
  if (length && *length < 0) {
    Raise(Status::IndexError("slice length " + std::to_string(*length) + " is negative"));
  }
  const int64_t start = std::min(offset, rows);
  return {start, std::min(length.value_or(rows), rows - start)};
}

std::pair<int64_t, int64_t> ResolveSlice(const nb::slice& slice, int64_t length) {
  auto [start, stop, step, count] = slice.compute(static_cast<size_t>(length));
  if (step != 1) {
    Raise(Status::NotImplemented("slices with a step other than 1 are not supported (got " +
                                 std::to_string(step) + ")"));
  }
  return {static_cast<int64_t>(start), static_cast<int64_t>(count)};
}

bool SliceRows(const nb::slice& slice, int64_t length, std::vector<int64_t>* rows) {
  auto [start, stop, step, count] = slice.compute(static_cast<size_t>(length));
  if (step == 1) return false;
  rows->reserve(count);
  for (size_t k = 0; k < count; ++k) {
    rows->push_back(static_cast<int64_t>(start) + static_cast<int64_t>(k) * step);
  }
  return true;
}

}  // namespace quiver::python
