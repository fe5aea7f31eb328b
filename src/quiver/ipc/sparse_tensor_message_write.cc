// The SparseTensor IPC message: value type, shape, dim names and the index
// description in the metadata; index arrays and values in the body, in the
// order docs/formats.md, "SparseTensor message" gives, each padded to 8
// bytes. Writing is here, reading in sparse_tensor_message_read.cc.
//
// Lengths. Every buffer records its exact byte length, except the CSF
// index buffer lists: Arrow C++ records the number of elements there, and
// its reader takes each indices array's size from that number (and each
// indptr array's as one more), so a byte count would make it misread
// every level. quiver writes element counts in those lists too, and reads
// both element counts and exact byte counts (ReadCsfCounts in
// sparse_tensor_message_read.cc).
//
// bool8 values travel as int8 with the extension name in the Message's
// custom_metadata: Arrow's Bool is bit-packed, so int8 is what a peer can
// read, and quiver gets its bool8 back.
#include <string>
#include <vector>

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

Result<flatbuffers::Offset<fb::Int>> WriteIndexType(flatbuffers::FlatBufferBuilder& builder,
                                                    const DataType& type) {
  if (!type.is_integer()) {
    return Status::TypeError("sparse index arrays hold integers, not ", type.ToString());
  }
  return fb::CreateInt(builder, static_cast<int32_t>(type.byte_width() * 8),
                       type.is_signed_integer());
}

// The message's sparse index and the body buffers it names.
struct WrittenIndex {
  fb::SparseTensorIndex type = fb::SparseTensorIndex::NONE;
  flatbuffers::Offset<void> offset;
};

Result<WrittenIndex> WriteCooIndex(flatbuffers::FlatBufferBuilder& builder,
                                   const SparseCOOIndex& index, BodyLayout& body) {
  // Row- and column-major coordinates go out as they are; anything else
  // as a row-major copy. The strides written are the canonical ones, as a
  // size-1 axis may carry any stride in memory.
  Tensor coords = index.coords;
  if (coords.ndim() != 2) {
    return Status::Invalid("WriteSparseTensor: COO coords have ", coords.ndim(),
                           " dimensions, not 2");
  }
  const bool column_major = !coords.IsContiguous() && coords.IsColumnMajor();
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
  auto csx = fb::CreateSparseMatrixIndexCSX(builder, axis, indptr_type, &indptr_buffer,
                                            indices_type, &indices_buffer);
  return WrittenIndex{fb::SparseTensorIndex::SparseMatrixIndexCSX, csx.Union()};
}

// A contiguous 1-D integer array as an int64 copy.
Result<Tensor> WidenToInt64(const Tensor& array) {
  const int64_t count = array.size();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(count * 8));
  auto* values = reinterpret_cast<int64_t*>(out->mutable_data());
  for (int64_t i = 0; i < count; ++i) {
    if (!internal::ReadInteger(array.raw_data(), i, array.type()->id(), &values[i])) {
      return Status::Invalid("index value ", i, " of a ", array.type()->ToString(),
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

Result<WrittenIndex> WriteCsfIndex(flatbuffers::FlatBufferBuilder& builder,
                                   const SparseCSFIndex& index, BodyLayout& body) {
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
  auto csf = fb::CreateSparseTensorIndexCSF(
      builder, indptr_type, builder.CreateVectorOfStructs(indptr_buffers), indices_type,
      builder.CreateVectorOfStructs(indices_buffers), builder.CreateVector(axis_order));
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
  if (!tensor.type())
    return Status::Invalid("WriteSparseTensor: the tensor is empty (default-made)");
  QUIVER_RETURN_NOT_OK(CheckOnHost(tensor));
  flatbuffers::FlatBufferBuilder builder(1024);
  BodyLayout body;
  QUIVER_ASSIGN_OR_RETURN(WrittenIndex index, WriteIndex(builder, tensor, body));
  QUIVER_ASSIGN_OR_RETURN(Tensor values, Contiguous(tensor.values()));
  const fb::Buffer data = body.AddBytes(values);
  const DataType& value_type = tensor.type()->storage();
  QUIVER_ASSIGN_OR_RETURN(auto type, WriteTensorValueType(builder, value_type));
  auto shape = WriteShape(builder, tensor);
  auto sparse = fb::CreateSparseTensor(builder, type.first, type.second, shape,
                                       tensor.non_zero_length(), index.type, index.offset, &data);
  const KeyValueMetadata custom = TensorValueExtensionMetadata(*tensor.type());
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5,
                                   fb::MessageHeader::SparseTensor, sparse.Union(), body.length(),
                                   WriteKeyValues(builder, custom)));
  QUIVER_RETURN_NOT_OK(WriteMessageHead(*sink, builder, body.length()).status());
  return body.WriteTo(*sink);
}

}  // namespace quiver::ipc
