// The SparseTensor IPC message: value type, shape, dim names and the index
// description in the metadata; index arrays and values in the body, in the
// order FORMATS.md section 3 gives, each padded to 8 bytes.
//
// Lengths. Every buffer records its exact byte length, except the CSF
// index buffer lists: Arrow C++ records the number of elements there, and
// its reader takes each indices array's size from that number (and each
// indptr array's as one more), so a byte count would make it misread
// every level. quiver writes element counts in those lists too, and reads
// both element counts and exact byte counts (see ReadCsfCounts).
//
// bool8 values travel as int8 with the extension name in the Message's
// custom_metadata: Arrow's Bool is bit-packed, so int8 is what a peer can
// read, and quiver gets its bool8 back.
#include <string>
#include <vector>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"
#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"
#include "quiver/ipc/metadata.h"

namespace quiver::ipc {

namespace {

// Buffers inside the body start at multiples of this (Arrow's alignment).
constexpr int64_t kBufferAlignment = 8;

// The body being laid out: each tensor's bytes, written later straight
// from its memory.
class BodyLayout {
 public:
  // Places `tensor` (contiguous) and returns its offset in the body.
  int64_t Add(const Tensor& tensor) {
    const int64_t offset = length_;
    const int64_t bytes = tensor.size() * tensor.type()->byte_width();
    parts_.push_back(tensor);
    length_ += bytes + PaddingFor(bytes, kBufferAlignment);
    return offset;
  }
  // A Buffer recording the exact byte length.
  fb::Buffer AddBytes(const Tensor& tensor) {
    return fb::Buffer(Add(tensor), tensor.size() * tensor.type()->byte_width());
  }
  // A Buffer recording the element count (the CSF lists, see the top).
  fb::Buffer AddElements(const Tensor& tensor) { return fb::Buffer(Add(tensor), tensor.size()); }

  int64_t length() const { return length_; }

  Status WriteTo(OutputSink& sink) const {
    for (const Tensor& part : parts_) {
      const int64_t bytes = part.size() * part.type()->byte_width();
      if (bytes > 0) QUIVER_RETURN_NOT_OK(sink.Write(part.raw_data(), bytes));
      QUIVER_RETURN_NOT_OK(WritePadding(sink, PaddingFor(bytes, kBufferAlignment)));
    }
    return Status::OK();
  }

 private:
  std::vector<Tensor> parts_;
  int64_t length_ = 0;
};

Result<Tensor> Contiguous(const Tensor& tensor) {
  if (tensor.IsContiguous()) return tensor;
  return tensor.ToContiguous();
}

// Whether every axis longer than 1 steps by the column-major stride.
bool IsColumnMajor(const Tensor& tensor) {
  int64_t expected = tensor.type()->byte_width();
  for (int k = 0; k < tensor.ndim(); ++k) {
    if (tensor.shape()[k] != 1 && tensor.strides()[k] != expected) return false;
    expected *= tensor.shape()[k];
  }
  return true;
}

Result<flatbuffers::Offset<fb::Int>> WriteIndexType(flatbuffers::FlatBufferBuilder& builder,
                                                    const DataType& type) {
  if (!type.is_integer()) {
    return Status::TypeError("sparse index arrays hold integers, not " + type.ToString());
  }
  return fb::CreateInt(builder, static_cast<int32_t>(type.byte_width() * 8), type.is_signed_integer());
}

// The message's sparse index and the body buffers it names.
struct WrittenIndex {
  fb::SparseTensorIndex type = fb::SparseTensorIndex::NONE;
  flatbuffers::Offset<void> offset;
};

Result<WrittenIndex> WriteCooIndex(flatbuffers::FlatBufferBuilder& builder, const SparseCOOIndex& index,
                                   BodyLayout& body) {
  // Row- and column-major coordinates go out as they are; anything else
  // as a row-major copy. The strides written are the canonical ones, as a
  // size-1 axis may carry any stride in memory.
  Tensor coords = index.coords;
  if (coords.ndim() != 2) {
    return Status::Invalid("WriteSparseTensor: COO coords have " + std::to_string(coords.ndim()) +
                           " dimensions, not 2");
  }
  const bool column_major = !coords.IsContiguous() && IsColumnMajor(coords);
  if (!column_major) {
    QUIVER_ASSIGN_OR_RETURN(coords, Contiguous(coords));
  }
  const int64_t width = coords.type()->byte_width();
  const int64_t rows = coords.shape()[0], columns = coords.shape()[1];
  std::vector<int64_t> strides = column_major ? std::vector<int64_t>{width, rows * width}
                                              : std::vector<int64_t>{columns * width, width};
  // Arrow C++ gives an empty tensor the element width as every stride and
  // refuses other strides there as not contiguous.
  if (rows * columns == 0) strides = {width, width};
  QUIVER_ASSIGN_OR_RETURN(auto type, WriteIndexType(builder, *coords.type()));
  const fb::Buffer buffer = body.AddBytes(coords);
  auto coo = fb::CreateSparseTensorIndexCOO(builder, type, builder.CreateVector(strides), &buffer,
                                            index.canonical);
  return WrittenIndex{fb::SparseTensorIndex::SparseTensorIndexCOO, coo.Union()};
}

Result<WrittenIndex> WriteCsxIndex(flatbuffers::FlatBufferBuilder& builder, SparseFormat format,
                                   const SparseCSXIndex& index, BodyLayout& body) {
  QUIVER_ASSIGN_OR_RETURN(Tensor indptr, Contiguous(index.indptr));
  QUIVER_ASSIGN_OR_RETURN(Tensor indices, Contiguous(index.indices));
  QUIVER_ASSIGN_OR_RETURN(auto indptr_type, WriteIndexType(builder, *indptr.type()));
  QUIVER_ASSIGN_OR_RETURN(auto indices_type, WriteIndexType(builder, *indices.type()));
  const fb::Buffer indptr_buffer = body.AddBytes(indptr);
  const fb::Buffer indices_buffer = body.AddBytes(indices);
  const auto axis = format == SparseFormat::kCSR ? fb::SparseMatrixCompressedAxis::Row
                                                 : fb::SparseMatrixCompressedAxis::Column;
  auto csx = fb::CreateSparseMatrixIndexCSX(builder, axis, indptr_type, &indptr_buffer, indices_type,
                                            &indices_buffer);
  return WrittenIndex{fb::SparseTensorIndex::SparseMatrixIndexCSX, csx.Union()};
}

// A contiguous 1-D integer array as an int64 copy.
Result<Tensor> WidenToInt64(const Tensor& array) {
  const int64_t count = array.size();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(count * 8));
  auto* values = reinterpret_cast<int64_t*>(out->mutable_data());
  for (int64_t i = 0; i < count; ++i) {
    if (!internal::ReadInteger(array.raw_data(), i, array.type()->id(), &values[i])) {
      return Status::Invalid("index value " + std::to_string(i) + " of a " + array.type()->ToString() +
                             " array does not fit int64");
    }
  }
  return Tensor::Make(int64(), std::move(out), {count});
}

// The message has one type for all indptr arrays and one for all indices
// arrays; quiver allows one per array, so mixed arrays are widened to
// int64 copies (values that do not fit are refused).
Result<std::vector<Tensor>> OneIndexType(const std::vector<Tensor>& arrays) {
  std::vector<Tensor> out;
  bool same = true;
  for (const Tensor& array : arrays) same = same && array.type()->Equals(*arrays.front().type());
  for (const Tensor& array : arrays) {
    QUIVER_ASSIGN_OR_RETURN(Tensor contiguous, Contiguous(array));
    if (!same) {
      QUIVER_ASSIGN_OR_RETURN(contiguous, WidenToInt64(contiguous));
    }
    out.push_back(std::move(contiguous));
  }
  return out;
}

Result<WrittenIndex> WriteCsfIndex(flatbuffers::FlatBufferBuilder& builder, const SparseCSFIndex& index,
                                   BodyLayout& body) {
  if (index.indices.empty()) return Status::Invalid("a CSF index needs at least one indices array");
  QUIVER_ASSIGN_OR_RETURN(std::vector<Tensor> indices, OneIndexType(index.indices));
  // A 1-D CSF tensor has no indptr arrays; its (unused) indptr type is the
  // indices' type then.
  std::vector<Tensor> indptr = {indices.front()};
  if (!index.indptr.empty()) {
    QUIVER_ASSIGN_OR_RETURN(indptr, OneIndexType(index.indptr));
  }
  QUIVER_ASSIGN_OR_RETURN(auto indptr_type, WriteIndexType(builder, *indptr.front().type()));
  QUIVER_ASSIGN_OR_RETURN(auto indices_type, WriteIndexType(builder, *indices.front().type()));
  std::vector<fb::Buffer> indptr_buffers, indices_buffers;
  if (!index.indptr.empty()) {
    for (const Tensor& array : indptr) indptr_buffers.push_back(body.AddElements(array));
  }
  for (const Tensor& array : indices) indices_buffers.push_back(body.AddElements(array));
  std::vector<int32_t> axis_order;
  for (int64_t axis : index.axis_order) axis_order.push_back(static_cast<int32_t>(axis));
  auto csf = fb::CreateSparseTensorIndexCSF(builder, indptr_type, builder.CreateVectorOfStructs(indptr_buffers),
                                            indices_type, builder.CreateVectorOfStructs(indices_buffers),
                                            builder.CreateVector(axis_order));
  return WrittenIndex{fb::SparseTensorIndex::SparseTensorIndexCSF, csf.Union()};
}

Result<WrittenIndex> WriteIndex(flatbuffers::FlatBufferBuilder& builder, const SparseTensor& tensor,
                                BodyLayout& body) {
  if (const SparseCOOIndex* coo = tensor.coo_index()) return WriteCooIndex(builder, *coo, body);
  if (const SparseCSXIndex* csx = tensor.csx_index()) {
    return WriteCsxIndex(builder, tensor.format(), *csx, body);
  }
  if (const SparseCSFIndex* csf = tensor.csf_index()) return WriteCsfIndex(builder, *csf, body);
  return Status::Invalid("WriteSparseTensor: the tensor has no index");
}

// The body is written straight from memory, which must be the CPU's.
Status CheckOnHost(const SparseTensor& tensor) {
  QUIVER_RETURN_NOT_OK(tensor.values().CheckOnHost());
  if (const SparseCOOIndex* coo = tensor.coo_index()) return coo->coords.CheckOnHost();
  if (const SparseCSXIndex* csx = tensor.csx_index()) {
    QUIVER_RETURN_NOT_OK(csx->indptr.CheckOnHost());
    return csx->indices.CheckOnHost();
  }
  if (const SparseCSFIndex* csf = tensor.csf_index()) {
    for (const Tensor& array : csf->indptr) QUIVER_RETURN_NOT_OK(array.CheckOnHost());
    for (const Tensor& array : csf->indices) QUIVER_RETURN_NOT_OK(array.CheckOnHost());
  }
  return Status::OK();
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::TensorDim>>> WriteShape(
    flatbuffers::FlatBufferBuilder& builder, const SparseTensor& tensor) {
  std::vector<flatbuffers::Offset<fb::TensorDim>> dims;
  for (int k = 0; k < tensor.ndim(); ++k) {
    const std::string name = tensor.dim_names().empty() ? std::string() : tensor.dim_names()[k];
    dims.push_back(fb::CreateTensorDim(builder, tensor.shape()[k],
                                       name.empty() ? 0 : builder.CreateString(name)));
  }
  return builder.CreateVector(dims);
}

}  // namespace

Status WriteSparseTensor(const SparseTensor& tensor, OutputSink* sink) {
  if (sink == nullptr) return Status::Invalid("WriteSparseTensor needs a sink");
  if (!tensor.type()) return Status::Invalid("WriteSparseTensor: the tensor is empty (default-made)");
  QUIVER_RETURN_NOT_OK(CheckOnHost(tensor));
  flatbuffers::FlatBufferBuilder builder(1024);
  BodyLayout body;
  QUIVER_ASSIGN_OR_RETURN(WrittenIndex index, WriteIndex(builder, tensor, body));
  QUIVER_ASSIGN_OR_RETURN(Tensor values, Contiguous(tensor.values()));
  const fb::Buffer data = body.AddBytes(values);
  const DataType& value_type = tensor.type()->storage();
  QUIVER_ASSIGN_OR_RETURN(auto type, WriteTensorValueType(builder, value_type));
  auto shape = WriteShape(builder, tensor);
  auto sparse = fb::CreateSparseTensor(builder, type.first, type.second, shape, tensor.non_zero_length(),
                                       index.type, index.offset, &data);
  KeyValueMetadata custom;
  if (tensor.type()->is_bool8()) custom = {{kExtensionNameKey, "arrow.bool8"}, {kExtensionMetadataKey, ""}};
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::SparseTensor,
                                   sparse.Union(), body.length(), WriteKeyValues(builder, custom)));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr framed, FrameMetadata(builder, sink->position(), kBodyAlignment));
  QUIVER_RETURN_NOT_OK(sink->Write(framed->data(), framed->size()));
  return body.WriteTo(*sink);
}

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
      return Status::Invalid(where + ": " + what + " [" + std::to_string(offset) + ", +" +
                             std::to_string(length) + ") lies outside the " + std::to_string(size) +
                             "-byte body");
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr view, Buffer::Slice(bytes, offset, length));
    return AlignedTo8(std::move(view));
  }

  // The first `needed` bytes of a buffer whose recorded length must cover
  // them, give or take padding; `need` says what needs them.
  Result<BufferPtr> Sized(const fb::Buffer& buffer, int64_t needed, const std::string& what,
                          const std::string& need) const {
    QUIVER_RETURN_NOT_OK(Slice(buffer.offset(), buffer.length(), what).status());
    const std::string holds = where + ": " + what + " holds " + std::to_string(buffer.length()) + " bytes, ";
    if (buffer.length() < needed) {
      return Status::Invalid(holds + std::to_string(needed) + " needed for " + need);
    }
    if (buffer.length() - needed >= kMaxRecordedPadding) {
      return Status::Invalid(holds + "more than the " + std::to_string(needed) + " that " + need +
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
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, ReadTensorValueType(sparse.type_type(), sparse.type(), where));
  for (const auto& [key, value] : ReadKeyValues(message.custom_metadata())) {
    if (key != kExtensionNameKey || value != "arrow.bool8") continue;
    if (type->id() != TypeId::kInt8) {
      return Status::Invalid(where + ": arrow.bool8 values are stored as int8, the message says " +
                             type->ToString());
    }
    type = bool8();
  }
  return type;
}

Status ReadShape(const fb::SparseTensor& sparse, const std::string& where, Common* out) {
  bool any_name = false;
  for (const fb::TensorDim* dim : *sparse.shape()) {
    const std::string axis = "dimension " + std::to_string(out->shape.size());
    if (dim == nullptr) return Status::Invalid(where + ": " + axis + " is missing");
    if (dim->size() < 0) {
      return Status::Invalid(where + ": " + axis + " has a negative size " + std::to_string(dim->size()));
    }
    out->shape.push_back(dim->size());
    out->dim_names.push_back(dim->name() ? dim->name()->str() : "");
    any_name = any_name || (dim->name() != nullptr && dim->name()->size() > 0);
  }
  // Arrow C++ writes an empty name for every unnamed axis: all empty is none.
  if (!any_name) out->dim_names.clear();
  return Status::OK();
}

Result<Common> ReadCommon(const fb::Message& message, const fb::SparseTensor& sparse, const Body& body) {
  Common out;
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, ReadValueType(message, sparse, body.where));
  QUIVER_RETURN_NOT_OK(ReadShape(sparse, body.where, &out));
  out.nnz = sparse.non_zero_length();
  if (out.nnz < 0) {
    return Status::Invalid(body.where + ": negative non_zero_length " + std::to_string(out.nnz));
  }
  const std::string need = "non_zero_length " + std::to_string(out.nnz) + " " + type->ToString() + " values";
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(out.nnz, type->byte_width(), need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, body.Sized(LoadStruct(sparse.data()), bytes, "data buffer", need));
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
Result<std::vector<int64_t>> ReadCooStrides(const flatbuffers::Vector<int64_t>* strides, int64_t rows,
                                            int64_t columns, int64_t width, const std::string& where) {
  const std::vector<int64_t> row_major = {columns * width, width};
  if (strides == nullptr || rows * columns == 0) return row_major;
  if (strides->size() != 2) {
    return Status::Invalid(where + ": COO indices_strides has " + std::to_string(strides->size()) +
                           " entries, the coordinates matrix 2 axes");
  }
  const std::vector<int64_t> given = {LoadScalar(strides, 0), LoadScalar(strides, 1)};
  const std::vector<int64_t> column_major = {width, rows * width};
  const int64_t sizes[2] = {rows, columns};
  auto matches = [&](const std::vector<int64_t>& layout) {
    return (sizes[0] == 1 || given[0] == layout[0]) && (sizes[1] == 1 || given[1] == layout[1]);
  };
  if (matches(row_major) || matches(column_major)) return given;
  return Status::Invalid(where + ": COO indices_strides [" + std::to_string(given[0]) + ", " +
                         std::to_string(given[1]) + "] are neither row- nor column-major for " +
                         std::to_string(rows) + " x " + std::to_string(columns) + " " +
                         std::to_string(width) + "-byte coordinates");
}

Result<SparseTensor> ReadCoo(const fb::SparseTensorIndexCOO& coo, const Body& body, Common common,
                             ValidationLevel level) {
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, ReadIndexType(coo.indices_type(), body.where, "COO indices_type"));
  const int64_t ndim = static_cast<int64_t>(common.shape.size());
  const std::string need = std::to_string(common.nnz) + " x " + std::to_string(ndim) + " " +
                           type->ToString() + " coordinates";
  QUIVER_ASSIGN_OR_RETURN(int64_t count, internal::MultiplyChecked(common.nnz, ndim, need));
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(count, type->byte_width(), need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data,
                          body.Sized(LoadStruct(coo.indices_buffer()), bytes, "COO indices buffer", need));
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                          ReadCooStrides(coo.indices_strides(), common.nnz, ndim, type->byte_width(), body.where));
  QUIVER_ASSIGN_OR_RETURN(Tensor coords, Tensor::Make(std::move(type), std::move(data), {common.nnz, ndim},
                                                      std::move(strides)));
  return SparseTensor::MakeCOO(std::move(common.shape), std::move(coords), std::move(common.values),
                               coo.is_canonical(), std::move(common.dim_names), level);
}

// A 1-D index array of `count` entries from a buffer with a byte length.
Result<Tensor> ReadIndexArray(const Body& body, const fb::Buffer& buffer, TypePtr type, int64_t count,
                              const std::string& what) {
  const std::string need = std::to_string(count) + " " + type->ToString() + " entries";
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(count, type->byte_width(), need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, body.Sized(buffer, bytes, what, need));
  return Tensor::Make(std::move(type), std::move(data), {count});
}

Result<SparseTensor> ReadCsx(const fb::SparseMatrixIndexCSX& csx, const Body& body, Common common,
                             ValidationLevel level) {
  if (common.shape.size() != 2) {
    return Status::Invalid(body.where + ": a CSX index needs a 2-D shape, the tensor has " +
                           std::to_string(common.shape.size()) + " dimensions");
  }
  SparseFormat format;
  switch (csx.compressed_axis()) {
    case fb::SparseMatrixCompressedAxis::Row: format = SparseFormat::kCSR; break;
    case fb::SparseMatrixCompressedAxis::Column: format = SparseFormat::kCSC; break;
    default:
      return Status::Invalid(body.where + ": unknown CSX compressed_axis " +
                             std::to_string(static_cast<int>(csx.compressed_axis())));
  }
  const int64_t compressed = common.shape[format == SparseFormat::kCSR ? 0 : 1];
  QUIVER_ASSIGN_OR_RETURN(int64_t pointers, internal::AddChecked(compressed, 1, "CSX indptr length"));
  QUIVER_ASSIGN_OR_RETURN(TypePtr indptr_type, ReadIndexType(csx.indptr_type(), body.where, "CSX indptr_type"));
  QUIVER_ASSIGN_OR_RETURN(TypePtr indices_type,
                          ReadIndexType(csx.indices_type(), body.where, "CSX indices_type"));
  QUIVER_ASSIGN_OR_RETURN(Tensor indptr, ReadIndexArray(body, LoadStruct(csx.indptr_buffer()),
                                                        std::move(indptr_type), pointers, "CSX indptr buffer"));
  QUIVER_ASSIGN_OR_RETURN(Tensor indices, ReadIndexArray(body, LoadStruct(csx.indices_buffer()),
                                                         std::move(indices_type), common.nnz,
                                                         "CSX indices buffer"));
  return SparseTensor::MakeCSX(format, std::move(common.shape), std::move(indptr), std::move(indices),
                               std::move(common.values), std::move(common.dim_names), level);
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
CsfCounts ReadCsfCounts(const std::vector<fb::Buffer>& indptr, const std::vector<fb::Buffer>& indices,
                        int64_t indptr_width, int64_t indices_width, int64_t nnz) {
  CsfCounts elements, bytes;
  bool exact_bytes = true;
  auto add = [&](const fb::Buffer& buffer, int64_t width, std::vector<int64_t>* as_elements,
                 std::vector<int64_t>* as_bytes) {
    as_elements->push_back(buffer.length());
    as_bytes->push_back(buffer.length() / width);
    exact_bytes = exact_bytes && buffer.length() % width == 0;
  };
  for (const fb::Buffer& buffer : indptr) add(buffer, indptr_width, &elements.indptr, &bytes.indptr);
  for (const fb::Buffer& buffer : indices) add(buffer, indices_width, &elements.indices, &bytes.indices);
  if (!elements.FitTree(nnz) && exact_bytes && bytes.FitTree(nnz)) return bytes;
  return elements;
}

std::vector<fb::Buffer> LoadBuffers(const flatbuffers::Vector<const fb::Buffer*>* buffers) {
  std::vector<fb::Buffer> out;
  for (flatbuffers::uoffset_t i = 0; i < buffers->size(); ++i) out.push_back(LoadStruct(buffers, i));
  return out;
}

// One CSF index array of `count` entries at the buffer's offset (its
// recorded length being a count, the extent is computed).
Result<Tensor> ReadCsfArray(const Body& body, const fb::Buffer& buffer, const TypePtr& type, int64_t count,
                            const std::string& what) {
  const std::string need = std::to_string(count) + " " + type->ToString() + " entries";
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(count, type->byte_width(), what + ": " + need));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, body.Slice(buffer.offset(), bytes, what));
  return Tensor::Make(type, std::move(data), {count});
}

Result<SparseTensor> ReadCsf(const fb::SparseTensorIndexCSF& csf, const Body& body, Common common,
                             ValidationLevel level) {
  const size_t ndim = common.shape.size();
  const std::string of = " for a " + std::to_string(ndim) + "-D tensor";
  if (ndim == 0) return Status::Invalid(body.where + ": a CSF index needs at least one dimension");
  if (csf.indptr_buffers()->size() != ndim - 1 || csf.indices_buffers()->size() != ndim ||
      csf.axis_order()->size() != ndim) {
    return Status::Invalid(body.where + ": CSF index has " + std::to_string(csf.indptr_buffers()->size()) +
                           " indptr buffers, " + std::to_string(csf.indices_buffers()->size()) +
                           " indices buffers and " + std::to_string(csf.axis_order()->size()) +
                           " axis_order entries" + of + " (" + std::to_string(ndim - 1) + ", " +
                           std::to_string(ndim) + " and " + std::to_string(ndim) + " needed)");
  }
  QUIVER_ASSIGN_OR_RETURN(TypePtr indptr_type, ReadIndexType(csf.indptr_type(), body.where, "CSF indptr_type"));
  QUIVER_ASSIGN_OR_RETURN(TypePtr indices_type,
                          ReadIndexType(csf.indices_type(), body.where, "CSF indices_type"));
  const std::vector<fb::Buffer> indptr_buffers = LoadBuffers(csf.indptr_buffers());
  const std::vector<fb::Buffer> indices_buffers = LoadBuffers(csf.indices_buffers());
  const CsfCounts counts = ReadCsfCounts(indptr_buffers, indices_buffers, indptr_type->byte_width(),
                                         indices_type->byte_width(), common.nnz);
  std::vector<Tensor> indptr, indices;
  for (size_t k = 0; k < indptr_buffers.size(); ++k) {
    QUIVER_ASSIGN_OR_RETURN(Tensor array, ReadCsfArray(body, indptr_buffers[k], indptr_type, counts.indptr[k],
                                                       "CSF indptr buffer " + std::to_string(k)));
    indptr.push_back(std::move(array));
  }
  for (size_t k = 0; k < indices_buffers.size(); ++k) {
    QUIVER_ASSIGN_OR_RETURN(Tensor array, ReadCsfArray(body, indices_buffers[k], indices_type,
                                                       counts.indices[k], "CSF indices buffer " + std::to_string(k)));
    indices.push_back(std::move(array));
  }
  std::vector<int64_t> axis_order;
  for (flatbuffers::uoffset_t k = 0; k < csf.axis_order()->size(); ++k) {
    axis_order.push_back(LoadScalar(csf.axis_order(), k));
  }
  return SparseTensor::MakeCSF(std::move(common.shape), std::move(indptr), std::move(indices),
                               std::move(axis_order), std::move(common.values), std::move(common.dim_names),
                               level);
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
  return Status::Invalid(body.where + ": unknown sparse index type " +
                         std::to_string(static_cast<int>(sparse.sparse_index_type())));
}

}  // namespace

Result<SparseTensor> ReadSparseTensor(const std::shared_ptr<InputSource>& source, int64_t offset,
                                      ReadOptions options) {
  if (!source) return Status::Invalid("ReadSparseTensor needs a source");
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessage(*source, offset));
  if (!message) return Status::Invalid("no SparseTensor message at byte " + std::to_string(offset));
  const fb::SparseTensor* sparse = message->header->header_as_SparseTensor();
  if (sparse == nullptr) {
    return Status::Invalid(message->Where() + " is a " +
                           std::string(fb::EnumNameMessageHeader(message->header->header_type())) +
                           " message, not a SparseTensor");
  }
  const Body body{message->body, message->Where()};
  QUIVER_ASSIGN_OR_RETURN(Common common, ReadCommon(*message->header, *sparse, body));
  auto made = ReadIndex(*sparse, body, std::move(common), options.validation);
  // The builders' errors name the index and position; the message says where.
  if (!made.ok() && made.status().message().rfind(body.where, 0) != 0) {
    return made.status().WithContext(body.where);
  }
  return made;
}

}  // namespace quiver::ipc
