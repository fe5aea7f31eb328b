// Reading the SparseTensor IPC message (the layout and the CSF length
// quirk are described at the top of sparse_tensor_message_write.cc): every
// buffer checked against the body, the arrays sliced zero-copy, then the
// tensor built and validated through SparseTensor::MakeCOO / MakeCSX /
// MakeCSF.
#include <string>
#include <vector>

#include "quiver/internal/checked_math.h"
#include "quiver/ipc.h"
#include "quiver/ipc/message.h"
#include "quiver/ipc/metadata.h"

namespace quiver::ipc {

namespace {

// Arrow C++ records buffer lengths padded to 8 bytes (quiver the exact
// ones); a buffer longer than that means the sizes in the metadata lie.
constexpr int64_t kMaxRecordedPadding = 8;

// The message being read: its body, and "message at byte N" for errors.
struct Body {
  BufferPtr bytes;
  std::string where;

  // Bytes [offset, offset + length) as an 8-byte-aligned buffer: a view of
  // the body, copied only when a hostile offset puts it off alignment.
  Result<BufferPtr> Slice(int64_t offset, int64_t length, const std::string& what) const {
    const int64_t size = bytes->size();
    if (offset < 0 || length < 0 || offset > size || length > size - offset) {
      return Status::Invalid(where, ": ", what, " [", offset, ", +", length, ") lies outside the ",
                             size, "-byte body");
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr view, Buffer::Slice(bytes, offset, length));
    return AlignedTo8(std::move(view));
  }

  // The first `needed` bytes of a buffer whose recorded length must cover
  // them, give or take padding; `need` says what needs them.
  Result<BufferPtr> Sized(const fb::Buffer& buffer, int64_t needed, const std::string& what,
                          const std::string& need) const {
    QUIVER_RETURN_NOT_OK(Slice(buffer.offset(), buffer.length(), what).status());
    const std::string holds =
        where + ": " + what + " holds " + std::to_string(buffer.length()) + " bytes, ";
    if (buffer.length() < needed) {
      return Status::Invalid(holds, needed, " needed for ", need);
    }
    if (buffer.length() - needed >= kMaxRecordedPadding) {
      return Status::Invalid(holds, "more than the ", needed, " that ", need,
                             " take (the metadata's sizes disagree)");
    }
    return Slice(buffer.offset(), needed, what);
  }
};

// What every format shares.
struct Common {
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;
  int64_t nnz = 0;
  Tensor values;
};

Result<TypePtr> ReadValueType(const fb::Message& message, const fb::SparseTensor& sparse,
                              const std::string& where) {
  QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                          ReadTensorValueType(sparse.type_type(), sparse.type(), where));
  return ApplyTensorValueExtension(std::move(type), ReadKeyValues(message.custom_metadata()),
                                   where);
}

Status ReadShape(const fb::SparseTensor& sparse, const std::string& where, Common* out) {
  bool any_name = false;
  for (const fb::TensorDim* dim : *sparse.shape()) {
    const std::string axis = "dimension " + std::to_string(out->shape.size());
    if (dim == nullptr) return Status::Invalid(where, ": ", axis, " is missing");
    if (dim->size() < 0) {
      return Status::Invalid(where, ": ", axis, " has a negative size ", dim->size());
    }
    out->shape.push_back(dim->size());
    out->dim_names.push_back(dim->name() ? dim->name()->str() : "");
    any_name = any_name || (dim->name() != nullptr && dim->name()->size() > 0);
  }
  // Arrow C++ writes an empty name for every unnamed axis: all empty is none.
  if (!any_name) out->dim_names.clear();
  return Status::OK();
}

Result<Common> ReadCommon(const fb::Message& message, const fb::SparseTensor& sparse,
                          const Body& body) {
  Common out;
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, ReadValueType(message, sparse, body.where));
  QUIVER_RETURN_NOT_OK(ReadShape(sparse, body.where, &out));
  out.nnz = sparse.non_zero_length();
  if (out.nnz < 0) {
    return Status::Invalid(body.where, ": negative non_zero_length ", out.nnz);
  }
  const std::string need =
      "non_zero_length " + std::to_string(out.nnz) + " " + type->ToString() + " values";
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(out.nnz, type->byte_width(), need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data,
                          body.Sized(LoadStruct(sparse.data()), bytes, "data buffer", need));
  QUIVER_ASSIGN_OR_RETURN(out.values, Tensor::Make(std::move(type), std::move(data), {out.nnz}));
  return out;
}

Result<TypePtr> ReadIndexType(const fb::Int* type, const std::string& where, const char* what) {
  // The schema types the field as Int; its bit width is what can lie.
  return ReadTensorValueType(fb::Type::Int, type, where + ": " + what);
}

// Row-major when absent (as Arrow C++ reads it); otherwise row- or
// column-major (size-1 axes may step by anything), the two layouts the
// format describes.
Result<std::vector<int64_t>> ReadCooStrides(const flatbuffers::Vector<int64_t>* strides,
                                            int64_t rows, int64_t columns, int64_t width,
                                            const std::string& where) {
  const std::vector<int64_t> row_major = {columns * width, width};
  if (strides == nullptr || rows * columns == 0) return row_major;
  if (strides->size() != 2) {
    return Status::Invalid(where, ": COO indices_strides has ", strides->size(),
                           " entries, the coordinates matrix 2 axes");
  }
  const std::vector<int64_t> given = {LoadScalar(strides, 0), LoadScalar(strides, 1)};
  const std::vector<int64_t> column_major = {width, rows * width};
  const int64_t sizes[2] = {rows, columns};
  auto matches = [&](const std::vector<int64_t>& layout) {
    return (sizes[0] == 1 || given[0] == layout[0]) && (sizes[1] == 1 || given[1] == layout[1]);
  };
  if (matches(row_major) || matches(column_major)) return given;
  return Status::Invalid(where, ": COO indices_strides [", given[0], ", ", given[1],
                         "] are neither row- nor column-major for ", rows, " x ", columns, " ",
                         width, "-byte coordinates");
}

Result<SparseTensor> ReadCoo(const fb::SparseTensorIndexCOO& coo, const Body& body, Common common,
                             ValidationLevel level) {
  QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                          ReadIndexType(coo.indices_type(), body.where, "COO indices_type"));
  const int64_t ndim = static_cast<int64_t>(common.shape.size());
  const std::string need = std::to_string(common.nnz) + " x " + std::to_string(ndim) + " " +
                           type->ToString() + " coordinates";
  QUIVER_ASSIGN_OR_RETURN(int64_t count, internal::MultiplyChecked(common.nnz, ndim, need));
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(count, type->byte_width(), need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, body.Sized(LoadStruct(coo.indices_buffer()), bytes,
                                                     "COO indices buffer", need));
  QUIVER_ASSIGN_OR_RETURN(
      std::vector<int64_t> strides,
      ReadCooStrides(coo.indices_strides(), common.nnz, ndim, type->byte_width(), body.where));
  QUIVER_ASSIGN_OR_RETURN(Tensor coords, Tensor::Make(std::move(type), std::move(data),
                                                      {common.nnz, ndim}, std::move(strides)));
  return SparseTensor::MakeCOO(std::move(common.shape), std::move(coords), std::move(common.values),
                               coo.is_canonical(), std::move(common.dim_names), level);
}

// A 1-D index array of `count` entries from a buffer with a byte length.
Result<Tensor> ReadIndexArray(const Body& body, const fb::Buffer& buffer, TypePtr type,
                              int64_t count, const std::string& what) {
  const std::string need = std::to_string(count) + " " + type->ToString() + " entries";
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(count, type->byte_width(), need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, body.Sized(buffer, bytes, what, need));
  return Tensor::Make(std::move(type), std::move(data), {count});
}

Result<SparseTensor> ReadCsx(const fb::SparseMatrixIndexCSX& csx, const Body& body, Common common,
                             ValidationLevel level) {
  if (common.shape.size() != 2) {
    return Status::Invalid(body.where, ": a CSX index needs a 2-D shape, the tensor has ",
                           common.shape.size(), " dimensions");
  }
  SparseFormat format;
  switch (csx.compressed_axis()) {
    case fb::SparseMatrixCompressedAxis::Row: format = SparseFormat::kCSR; break;
    case fb::SparseMatrixCompressedAxis::Column: format = SparseFormat::kCSC; break;
    default:
      return Status::Invalid(body.where, ": unknown CSX compressed_axis ",
                             static_cast<int>(csx.compressed_axis()));
  }
  const int64_t compressed = common.shape[format == SparseFormat::kCSR ? 0 : 1];
  QUIVER_ASSIGN_OR_RETURN(int64_t pointers,
                          internal::AddChecked(compressed, 1, "CSX indptr length"));
  QUIVER_ASSIGN_OR_RETURN(TypePtr indptr_type,
                          ReadIndexType(csx.indptr_type(), body.where, "CSX indptr_type"));
  QUIVER_ASSIGN_OR_RETURN(TypePtr indices_type,
                          ReadIndexType(csx.indices_type(), body.where, "CSX indices_type"));
  QUIVER_ASSIGN_OR_RETURN(
      Tensor indptr, ReadIndexArray(body, LoadStruct(csx.indptr_buffer()), std::move(indptr_type),
                                    pointers, "CSX indptr buffer"));
  QUIVER_ASSIGN_OR_RETURN(
      Tensor indices, ReadIndexArray(body, LoadStruct(csx.indices_buffer()),
                                     std::move(indices_type), common.nnz, "CSX indices buffer"));
  return SparseTensor::MakeCSX(format, std::move(common.shape), std::move(indptr),
                               std::move(indices), std::move(common.values),
                               std::move(common.dim_names), level);
}

// Element counts of the CSF index buffers (see the top of the file).
struct CsfCounts {
  std::vector<int64_t> indptr, indices;

  // The fiber tree's sizes: the last level holds the values, and each
  // indptr array has one entry more than its level has nodes.
  bool FitTree(int64_t nnz) const {
    if (indices.back() != nnz) return false;
    for (size_t k = 0; k < indptr.size(); ++k) {
      if (indptr[k] < 1 || indptr[k] - 1 != indices[k]) return false;
    }
    return true;
  }
};

// Element counts as Arrow C++ records them when they fit the tree, exact
// byte counts when only those do (the format's own unit), and the element
// counts otherwise, so validation names the level that disagrees.
CsfCounts ReadCsfCounts(const std::vector<fb::Buffer>& indptr,
                        const std::vector<fb::Buffer>& indices, int64_t indptr_width,
                        int64_t indices_width, int64_t nnz) {
  CsfCounts elements, bytes;
  bool exact_bytes = true;
  auto add = [&](const fb::Buffer& buffer, int64_t width, std::vector<int64_t>* as_elements,
                 std::vector<int64_t>* as_bytes) {
    as_elements->push_back(buffer.length());
    as_bytes->push_back(buffer.length() / width);
    exact_bytes = exact_bytes && buffer.length() % width == 0;
  };
  for (const fb::Buffer& buffer : indptr)
    add(buffer, indptr_width, &elements.indptr, &bytes.indptr);
  for (const fb::Buffer& buffer : indices)
    add(buffer, indices_width, &elements.indices, &bytes.indices);
  if (!elements.FitTree(nnz) && exact_bytes && bytes.FitTree(nnz)) return bytes;
  return elements;
}

std::vector<fb::Buffer> LoadBuffers(const flatbuffers::Vector<const fb::Buffer*>* buffers) {
  std::vector<fb::Buffer> out;
  for (flatbuffers::uoffset_t i = 0; i < buffers->size(); ++i)
    out.push_back(LoadStruct(buffers, i));
  return out;
}

// One CSF index array of `count` entries at the buffer's offset (its
// recorded length being a count, the extent is computed).
Result<Tensor> ReadCsfArray(const Body& body, const fb::Buffer& buffer, const TypePtr& type,
                            int64_t count, const std::string& what) {
  const std::string need = std::to_string(count) + " " + type->ToString() + " entries";
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(count, type->byte_width(), what + ": " + need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, body.Slice(buffer.offset(), bytes, what));
  return Tensor::Make(type, std::move(data), {count});
}

Result<SparseTensor> ReadCsf(const fb::SparseTensorIndexCSF& csf, const Body& body, Common common,
                             ValidationLevel level) {
  const size_t ndim = common.shape.size();
  const std::string of = " for a " + std::to_string(ndim) + "-D tensor";
  if (ndim == 0) return Status::Invalid(body.where, ": a CSF index needs at least one dimension");
  if (csf.indptr_buffers()->size() != ndim - 1 || csf.indices_buffers()->size() != ndim ||
      csf.axis_order()->size() != ndim) {
    return Status::Invalid(body.where, ": CSF index has ", csf.indptr_buffers()->size(),
                           " indptr buffers, ", csf.indices_buffers()->size(),
                           " indices buffers and ", csf.axis_order()->size(), " axis_order entries",
                           of, " (", ndim - 1, ", ", ndim, " and ", ndim, " needed)");
  }
  QUIVER_ASSIGN_OR_RETURN(TypePtr indptr_type,
                          ReadIndexType(csf.indptr_type(), body.where, "CSF indptr_type"));
  QUIVER_ASSIGN_OR_RETURN(TypePtr indices_type,
                          ReadIndexType(csf.indices_type(), body.where, "CSF indices_type"));
  const std::vector<fb::Buffer> indptr_buffers = LoadBuffers(csf.indptr_buffers());
  const std::vector<fb::Buffer> indices_buffers = LoadBuffers(csf.indices_buffers());
  const CsfCounts counts = ReadCsfCounts(indptr_buffers, indices_buffers, indptr_type->byte_width(),
                                         indices_type->byte_width(), common.nnz);
  std::vector<Tensor> indptr, indices;
  for (size_t k = 0; k < indptr_buffers.size(); ++k) {
    QUIVER_ASSIGN_OR_RETURN(Tensor array,
                            ReadCsfArray(body, indptr_buffers[k], indptr_type, counts.indptr[k],
                                         "CSF indptr buffer " + std::to_string(k)));
    indptr.push_back(std::move(array));
  }
  for (size_t k = 0; k < indices_buffers.size(); ++k) {
    QUIVER_ASSIGN_OR_RETURN(Tensor array,
                            ReadCsfArray(body, indices_buffers[k], indices_type, counts.indices[k],
                                         "CSF indices buffer " + std::to_string(k)));
    indices.push_back(std::move(array));
  }
  std::vector<int64_t> axis_order;
  for (flatbuffers::uoffset_t k = 0; k < csf.axis_order()->size(); ++k) {
    axis_order.push_back(LoadScalar(csf.axis_order(), k));
  }
  return SparseTensor::MakeCSF(std::move(common.shape), std::move(indptr), std::move(indices),
                               std::move(axis_order), std::move(common.values),
                               std::move(common.dim_names), level);
}

Result<SparseTensor> ReadIndex(const fb::SparseTensor& sparse, const Body& body, Common common,
                               ValidationLevel level) {
  if (const auto* coo = sparse.sparse_index_as_SparseTensorIndexCOO()) {
    return ReadCoo(*coo, body, std::move(common), level);
  }
  if (const auto* csx = sparse.sparse_index_as_SparseMatrixIndexCSX()) {
    return ReadCsx(*csx, body, std::move(common), level);
  }
  if (const auto* csf = sparse.sparse_index_as_SparseTensorIndexCSF()) {
    return ReadCsf(*csf, body, std::move(common), level);
  }
  return Status::Invalid(body.where, ": unknown sparse index type ",
                         static_cast<int>(sparse.sparse_index_type()));
}

}  // namespace

Result<SparseTensor> ReadSparseTensor(const std::shared_ptr<InputSource>& source, int64_t offset,
                                      ReadOptions options) {
  QUIVER_ASSIGN_OR_RETURN(
      Message message,
      ReadMessageOfKind(source, offset, fb::MessageHeader::SparseTensor, "SparseTensor"));
  const fb::SparseTensor* sparse = message.header->header_as_SparseTensor();
  const Body body{message.body, message.Where()};
  QUIVER_ASSIGN_OR_RETURN(Common common, ReadCommon(*message.header, *sparse, body));
  auto made = ReadIndex(*sparse, body, std::move(common), options.validation);
  // The builders' errors name the index and position; the message says where.
  if (!made.ok() && made.status().message().rfind(body.where, 0) != 0) {
    return made.status().WithContext(body.where);
  }
  return made;
}

}  // namespace quiver::ipc
