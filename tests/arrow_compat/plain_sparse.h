// Plain data crossing between the Arrow C++ side and the quiver side of the
// compatibility program: standard types only, so neither side's headers
// (nor their compile flags) reach the other translation unit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace compat {

struct PlainSparse {
  std::string format;       // "COO", "CSR", "CSC" or "CSF"
  std::string value_type;   // "int8" .. "uint64", "float16", "float32", "float64", "bool8"
  std::string index_type;   // COO coordinates; CSX and CSF indices
  std::string indptr_type;  // CSX and CSF indptr ("" for COO)
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;
  int64_t nnz = 0;
  // COO: nnz x ndim coordinates, listed row by row whatever the layout;
  // column_major says how they lie in memory.
  std::vector<int64_t> coords;
  bool column_major = false;
  bool canonical = false;
  // CSR/CSC: one array each; CSF: one per level.
  std::vector<std::vector<int64_t>> indptr, indices;
  std::vector<int64_t> axis_order;
  std::vector<uint8_t> values;  // nnz values, little-endian bytes
  // Filled by readers: the dense tensor, row-major, as doubles.
  std::vector<double> dense;
};

// Each returns "" on success, the error otherwise.
std::string ArrowWrite(const PlainSparse& in, std::vector<uint8_t>* out);
std::string ArrowRead(const std::vector<uint8_t>& bytes, PlainSparse* out);
std::string QuiverWrite(const PlainSparse& in, std::vector<uint8_t>* out);
std::string QuiverRead(const std::vector<uint8_t>& bytes, PlainSparse* out);

// Width in bytes of a type name above.
int64_t WidthOf(const std::string& type);
// Element i of `bytes` holding values of `type`, as a double.
double ValueAt(const std::string& type, const uint8_t* bytes, int64_t i);

// Entries of a 1-D or 2-D integer tensor of `type`, row by row, whatever
// its strides: an Arrow or a quiver tensor (both have shape(), strides()
// in bytes, ndim() and raw_data()).
template <typename AnyTensor>
std::vector<int64_t> TensorEntries(const AnyTensor& tensor, const std::string& type) {
  const int64_t rows = tensor.shape()[0];
  const int64_t columns = tensor.ndim() == 2 ? tensor.shape()[1] : 1;
  const int64_t column_stride = tensor.ndim() == 2 ? tensor.strides()[1] : 0;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < columns; ++j) {
      const uint8_t* at = tensor.raw_data() + i * tensor.strides()[0] + j * column_stride;
      out.push_back(static_cast<int64_t>(ValueAt(type, at, 0)));
    }
  }
  return out;
}

}  // namespace compat
