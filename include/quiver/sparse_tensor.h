// Sparse tensors: COO, CSR, CSC and CSF (Arrow's SparseTensor; docs/formats.md,
// "SparseTensor message" and "Sparse tensor indices").
//
// A SparseTensor holds a value type (numeric or bool8), a shape, optional
// dim names, the non-zero values as a 1-D contiguous Tensor of length nnz,
// and one index:
//   COO  coords: an integer Tensor [nnz, ndim] (any strides; IPC carries
//        row-major and column-major), plus a canonical flag: true means
//        the coordinates are strictly increasing in row-major
//        lexicographic order (sorted, no duplicates).
//   CSR  (2-D) indptr [rows + 1] and indices [nnz] (column of each value).
//   CSC  (2-D) indptr [cols + 1] and indices [nnz] (row of each value).
//   CSF  ndim - 1 indptr arrays and ndim indices arrays, one per level of
//        the fiber tree, and axis_order: level k holds coordinates along
//        axis axis_order[k]; indptr[k] maps the nodes of level k to their
//        children in level k + 1; the last level's nodes are the values.
// Index tensors are 1-D (COO's coords 2-D), any strides, and may use any
// integer type, int8..int64 and uint8..uint64, each array its own.
//
// Validation: what follows from the sizes is checked at every level, kNone
// included, since it is O(1): at least one dimension, sizes >= 0 whose
// product fits int64, dim_names, values 1-D and contiguous, integer index
// types, index tensor ranks and lengths against nnz and the shape, CSF
// array counts and axis_order a permutation. kFull (the default, and what
// every import uses) also checks every index value: coordinates in bounds,
// the canonical flag true only when true, indptr starting at 0,
// non-decreasing and ending at its level's size, indices in range. Kernels
// check every index they use whatever the level, so a tensor made at a
// lower level never reads or writes out of bounds; it can only give
// Invalid.
//
// Values are non-zero by value, not by bytes: -0.0 is zero, NaN is not.
// Duplicated coordinates (allowed in non-canonical COO, and within a row
// of CSR/CSC or a fiber of CSF) are summed by ToDense and Canonicalize, as
// SciPy does; bool8 duplicates combine with logical or. Integer sums wrap.
//
// Conversions produce canonical output and never alias the input's index
// arrays unless they say so; values are shared (zero-copy) where the order
// of the non-zeros does not change.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "quiver/array.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver {

enum class SparseFormat : uint8_t { kCOO, kCSR, kCSC, kCSF };

// "COO", "CSR", "CSC", "CSF".
const char* SparseFormatName(SparseFormat format);

struct SparseCOOIndex {
  Tensor coords;  // [nnz, ndim], integer type
  bool canonical = false;
};

// CSR compresses axis 0, CSC axis 1.
struct SparseCSXIndex {
  Tensor indptr;   // [shape[compressed axis] + 1]
  Tensor indices;  // [nnz]: the other axis' coordinate of each value
};

struct SparseCSFIndex {
  std::vector<Tensor> indptr;       // ndim - 1 arrays; indptr[k] has size(indices[k]) + 1 entries
  std::vector<Tensor> indices;      // ndim arrays; indices[ndim - 1] has nnz entries
  std::vector<int64_t> axis_order;  // a permutation of 0..ndim-1
};

// How conversions build their output.
struct SparseOptions {
  // The integer type of every output index array; nullptr: the smallest
  // signed type (int8..int64) that holds every index value the output
  // needs. TypeError for a non-integer type, Invalid when a value does not
  // fit the requested type.
  TypePtr index_type;
  // CSF only: the level order; empty means 0, 1, ..., ndim - 1.
  std::vector<int64_t> axis_order;
  // Threads for dense scans and large copies (0: one per core).
  int threads = 0;
};

class SparseTensor {
 public:
  SparseTensor() = default;

  // Builders over existing tensors (zero-copy: the result shares them).
  // `values` is 1-D and contiguous, numeric or bool8; `dim_names` is empty
  // or one per axis. Checked at `level` (see above).
  static Result<SparseTensor> MakeCOO(std::vector<int64_t> shape, Tensor coords, Tensor values,
                                      bool canonical, std::vector<std::string> dim_names = {},
                                      ValidationLevel level = ValidationLevel::kFull);
  // CSR (format kCSR) or CSC (kCSC); `shape` must be 2-D.
  static Result<SparseTensor> MakeCSX(SparseFormat format, std::vector<int64_t> shape,
                                      Tensor indptr, Tensor indices, Tensor values,
                                      std::vector<std::string> dim_names = {},
                                      ValidationLevel level = ValidationLevel::kFull);
  static Result<SparseTensor> MakeCSF(std::vector<int64_t> shape, std::vector<Tensor> indptr,
                                      std::vector<Tensor> indices, std::vector<int64_t> axis_order,
                                      Tensor values, std::vector<std::string> dim_names = {},
                                      ValidationLevel level = ValidationLevel::kFull);

  // The non-zeros of `dense` (any strides, row-major, column-major or
  // neither) in canonical `format`. CSR and CSC need a 2-D tensor. Dim
  // names are kept. Scans use options.threads.
  static Result<SparseTensor> FromDense(const Tensor& dense, SparseFormat format,
                                        const SparseOptions& options = {});

  SparseFormat format() const { return format_; }
  const TypePtr& type() const { return values_.type(); }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<std::string>& dim_names() const { return dim_names_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // Elements of the dense tensor (the product of the shape; fits int64).
  int64_t size() const { return size_; }
  int64_t non_zero_length() const { return values_.size(); }
  // The stored values, 1-D, contiguous, in index order.
  const Tensor& values() const { return values_; }

  // The index of this tensor's format; nullptr for the other formats.
  const SparseCOOIndex* coo_index() const { return std::get_if<SparseCOOIndex>(&index_); }
  const SparseCSXIndex* csx_index() const { return std::get_if<SparseCSXIndex>(&index_); }
  const SparseCSFIndex* csf_index() const { return std::get_if<SparseCSFIndex>(&index_); }

  // Sorted, without duplicates: COO's flag; for CSR/CSC, indices strictly
  // increasing within every row (column); for CSF, children strictly
  // increasing under every node. Known for tensors validated at kFull and
  // for conversion outputs; false when it was never checked.
  bool has_canonical_format() const { return canonical_; }

  // Re-checks the tensor at `level` (what the builders ran).
  Status Validate(ValidationLevel level = ValidationLevel::kFull) const;

  // The dense tensor, row-major, zero where nothing is stored; duplicates
  // summed. A new buffer; dim names kept.
  Result<Tensor> ToDense(int threads = 0) const;

  // Conversions, each canonical. `options.index_type` picks the index type
  // (see SparseOptions); ToCSF takes its axis order from options.
  Result<SparseTensor> ToCOO(const SparseOptions& options = {}) const;
  Result<SparseTensor> ToCSR(const SparseOptions& options = {}) const;
  Result<SparseTensor> ToCSC(const SparseOptions& options = {}) const;
  Result<SparseTensor> ToCSF(const SparseOptions& options = {}) const;
  Result<SparseTensor> Convert(SparseFormat format, const SparseOptions& options = {}) const;
  // The same format in canonical form: sorted, duplicates summed (explicit
  // zeros are kept: they are stored values, as in SciPy's sum_duplicates).
  // Returns a copy sharing everything when already canonical.
  Result<SparseTensor> Canonicalize() const;

  // Same value type, shape and values at every coordinate, whatever the
  // formats, index types and dim names (explicitly stored zeros equal
  // absent ones; NaN != NaN; -0.0 == 0.0). False for tensors whose indices
  // are invalid.
  bool Equals(const SparseTensor& other) const;

  // "SparseTensor<float, CSR>[3, 4] nnz=5".
  std::string ToString() const;

  // For the conversion kernels: a tensor assembled from parts they built
  // and checked themselves (no validation). `canonical` is what they know.
  static SparseTensor FromParts(SparseFormat format, std::vector<int64_t> shape, int64_t size,
                                std::variant<SparseCOOIndex, SparseCSXIndex, SparseCSFIndex> index,
                                Tensor values, std::vector<std::string> dim_names, bool canonical);

 private:
  using Index = std::variant<SparseCOOIndex, SparseCSXIndex, SparseCSFIndex>;
  // The builders' common path: assembles, validates at `level`, and keeps
  // what kFull found (for COO, whether its claim held).
  static Result<SparseTensor> Assemble(SparseFormat format, std::vector<int64_t> shape, Index index,
                                       Tensor values, std::vector<std::string> dim_names,
                                       bool claimed_canonical, ValidationLevel level);

  SparseFormat format_ = SparseFormat::kCOO;
  std::vector<int64_t> shape_;
  std::vector<std::string> dim_names_;
  int64_t size_ = 0;
  Index index_;
  Tensor values_;
  bool canonical_ = false;
};

}  // namespace quiver
