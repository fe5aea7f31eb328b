// SparseTensor: builders, accessors and the conversion entry points (the
// kernels live beside this file, one concern each).
#include "quiver/sparse_tensor.h"

#include <algorithm>

#include "quiver/internal/checked_math.h"
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/sparse_validate.h"

namespace quiver {

const char* SparseFormatName(SparseFormat format) {
  switch (format) {
    case SparseFormat::kCOO: return "COO";
    case SparseFormat::kCSR: return "CSR";
    case SparseFormat::kCSC: return "CSC";
    case SparseFormat::kCSF: return "CSF";
  }
  return "?";
}

SparseTensor SparseTensor::FromParts(SparseFormat format, std::vector<int64_t> shape, int64_t size,
                                     Index index, Tensor values, std::vector<std::string> dim_names,
                                     bool canonical) {
  SparseTensor t;
  t.format_ = format;
  t.shape_ = std::move(shape);
  t.size_ = size;
  t.index_ = std::move(index);
  t.values_ = std::move(values);
  t.dim_names_ = std::move(dim_names);
  t.canonical_ = canonical;
  return t;
}

Result<SparseTensor> SparseTensor::Assemble(SparseFormat format, std::vector<int64_t> shape,
                                            Index index, Tensor values,
                                            std::vector<std::string> dim_names,
                                            bool claimed_canonical, ValidationLevel level) {
  if (!values.type()) return Status::Invalid("sparse tensor has no values tensor");
  if (shape.empty()) return Status::Invalid("a sparse tensor needs at least one dimension");
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::ShapeProduct(shape, "sparse tensor shape"));
  SparseTensor t = FromParts(format, std::move(shape), size, std::move(index), std::move(values),
                             std::move(dim_names), claimed_canonical);
  QUIVER_ASSIGN_OR_RETURN(bool canonical, internal::WithoutThrowing("sparse validation", [&] {
                            return sparse::ValidateSparse(t, level);
                          }));
  // What a full check found (for COO: the claim, checked). A COO claim
  // made below kFull stays in the index as given but is not reported:
  // Canonicalize would otherwise return duplicates unchanged.
  t.canonical_ = canonical;
  return t;
}

Result<SparseTensor> SparseTensor::MakeCOO(std::vector<int64_t> shape, Tensor coords, Tensor values,
                                           bool canonical, std::vector<std::string> dim_names,
                                           ValidationLevel level) {
  return Assemble(SparseFormat::kCOO, std::move(shape),
                  SparseCOOIndex{std::move(coords), canonical}, std::move(values),
                  std::move(dim_names), canonical, level);
}

Result<SparseTensor> SparseTensor::MakeCSX(SparseFormat format, std::vector<int64_t> shape,
                                           Tensor indptr, Tensor indices, Tensor values,
                                           std::vector<std::string> dim_names,
                                           ValidationLevel level) {
  if (format != SparseFormat::kCSR && format != SparseFormat::kCSC) {
    return Status::Invalid("MakeCSX builds CSR or CSC, not ", SparseFormatName(format));
  }
  return Assemble(format, std::move(shape), SparseCSXIndex{std::move(indptr), std::move(indices)},
                  std::move(values), std::move(dim_names), false, level);
}

Result<SparseTensor> SparseTensor::MakeCSF(std::vector<int64_t> shape, std::vector<Tensor> indptr,
                                           std::vector<Tensor> indices,
                                           std::vector<int64_t> axis_order, Tensor values,
                                           std::vector<std::string> dim_names,
                                           ValidationLevel level) {
  return Assemble(SparseFormat::kCSF, std::move(shape),
                  SparseCSFIndex{std::move(indptr), std::move(indices), std::move(axis_order)},
                  std::move(values), std::move(dim_names), false, level);
}

Status SparseTensor::Validate(ValidationLevel level) const {
  return internal::WithoutThrowing("sparse validation", [&]() -> Status {
    return sparse::ValidateSparse(*this, level).status();
  });
}

Result<SparseTensor> SparseTensor::Convert(SparseFormat format,
                                           const SparseOptions& options) const {
  return internal::WithoutThrowing("sparse conversion", [&]() -> Result<SparseTensor> {
    if (format == SparseFormat::kCSR) {
      if (auto direct = sparse::SortedCOOToCSR(*this, options)) return std::move(*direct);
    }
    QUIVER_ASSIGN_OR_RETURN(sparse::CoordList list, sparse::ToCoordList(*this));
    QUIVER_ASSIGN_OR_RETURN(list,
                            sparse::CanonicalCoords(std::move(list), shape_, options.threads));
    return sparse::FromCoordList(std::move(list), format, shape_, dim_names_, options);
  });
}

Result<SparseTensor> SparseTensor::ToCOO(const SparseOptions& options) const {
  return Convert(SparseFormat::kCOO, options);
}
Result<SparseTensor> SparseTensor::ToCSR(const SparseOptions& options) const {
  return Convert(SparseFormat::kCSR, options);
}
Result<SparseTensor> SparseTensor::ToCSC(const SparseOptions& options) const {
  return Convert(SparseFormat::kCSC, options);
}
Result<SparseTensor> SparseTensor::ToCSF(const SparseOptions& options) const {
  return Convert(SparseFormat::kCSF, options);
}

Result<SparseTensor> SparseTensor::Canonicalize() const {
  if (canonical_) return *this;
  SparseOptions options;
  // Keep the widest index type the tensor already uses when it holds what
  // a requested type must (see SparseOptions: the largest coordinate the
  // shape allows, and nnz for indptr). A narrower one may still hold every
  // stored index (int8 indices of a [2, 200] CSR matrix), yet would be
  // refused as a request: the smallest type that fits is taken then.
  std::vector<const Tensor*> arrays;
  if (const auto* coo = coo_index()) arrays = {&coo->coords};
  if (const auto* csx = csx_index()) arrays = {&csx->indptr, &csx->indices};
  if (const auto* csf = csf_index()) {
    for (const Tensor& t : csf->indptr) arrays.push_back(&t);
    for (const Tensor& t : csf->indices) arrays.push_back(&t);
    options.axis_order = csf->axis_order;
  }
  for (const Tensor* t : arrays) {
    if (!options.index_type || t->type()->bit_width() > options.index_type->bit_width()) {
      options.index_type = t->type();
    }
  }
  int64_t bound = format_ == SparseFormat::kCOO ? 0 : non_zero_length();
  for (int64_t d : shape_) bound = std::max(bound, d - 1);
  if (options.index_type) {
    const int64_t bits =
        options.index_type->bit_width() - (options.index_type->is_signed_integer() ? 1 : 0);
    if (bits < 63 && bound >= (int64_t{1} << bits)) options.index_type = nullptr;
  }
  return Convert(format_, options);
}

std::string SparseTensor::ToString() const {
  return "SparseTensor<" + (values_.type() ? values_.type()->ToString() : std::string("?")) + ", " +
         SparseFormatName(format_) + ">" + internal::FormatShape(shape_) +
         " nnz=" + std::to_string(non_zero_length());
}

}  // namespace quiver
