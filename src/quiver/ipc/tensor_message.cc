// The Tensor IPC message: one dense tensor, dim names and byte strides in
// the metadata, its bytes in the body.
#include <string>
#include <vector>

#include "quiver/internal/checked_math.h"
#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

namespace {

// Whether `tensor` covers exactly one dense block in row- or column-major
// order (its strides can then be written as they are).
bool IsDenseBlock(const Tensor& tensor) {
  if (tensor.IsContiguous()) return true;
  const int64_t width = tensor.type()->byte_width();
  int64_t expected = width;
  for (int k = 0; k < tensor.ndim(); ++k) {
    if (tensor.shape()[k] != 1 && tensor.strides()[k] != expected) return false;
    expected *= tensor.shape()[k];
  }
  return true;
}

}  // namespace

Status WriteTensor(const Tensor& tensor, OutputSink* sink) {
  if (sink == nullptr) return Status::Invalid("WriteTensor needs a sink");
  QUIVER_RETURN_NOT_OK(tensor.CheckOnHost());
  Tensor dense = tensor;
  if (!IsDenseBlock(tensor)) {
    QUIVER_ASSIGN_OR_RETURN(dense, tensor.ToContiguous());
  }
  const int64_t width = dense.type()->byte_width();
  const int64_t bytes = dense.size() * width;
  flatbuffers::FlatBufferBuilder builder(512);
  QUIVER_ASSIGN_OR_RETURN(auto type, WriteTensorValueType(builder, dense.type()->storage()));
  std::vector<flatbuffers::Offset<fb::TensorDim>> dims;
  for (int k = 0; k < dense.ndim(); ++k) {
    const std::string& name = dense.dim_names().empty() ? std::string() : dense.dim_names()[k];
    dims.push_back(fb::CreateTensorDim(builder, dense.shape()[k],
                                       name.empty() ? 0 : builder.CreateString(name)));
  }
  const fb::Buffer data(0, bytes);
  auto message_tensor =
      fb::CreateTensor(builder, type.first, type.second, builder.CreateVector(dims),
                       builder.CreateVector(dense.strides().data(), dense.strides().size()), &data);
  const int64_t body_length = bytes + PaddingFor(bytes, kBodyAlignment);
  builder.Finish(fb::CreateMessage(
      builder, fb::MetadataVersion::V5, fb::MessageHeader::Tensor, message_tensor.Union(),
      body_length, WriteKeyValues(builder, TensorValueExtensionMetadata(*dense.type()))));
  QUIVER_RETURN_NOT_OK(WriteMessageHead(*sink, builder, body_length).status());
  if (bytes > 0) QUIVER_RETURN_NOT_OK(sink->Write(dense.raw_data(), bytes));
  return WritePadding(*sink, body_length - bytes);
}

Result<Tensor> ReadTensor(const std::shared_ptr<InputSource>& source, int64_t offset,
                          ReadOptions options) {
  (void)options;
  QUIVER_ASSIGN_OR_RETURN(Message message,
                          ReadMessageOfKind(source, offset, fb::MessageHeader::Tensor, "Tensor"));
  const fb::Tensor* tensor = message.header->header_as_Tensor();
  const std::string where = message.Where();
  QUIVER_ASSIGN_OR_RETURN(TypePtr storage,
                          ReadTensorValueType(tensor->type_type(), tensor->type(), where));
  QUIVER_ASSIGN_OR_RETURN(
      TypePtr type,
      ApplyTensorValueExtension(std::move(storage),
                                ReadKeyValues(message.header->custom_metadata()), where));
  std::vector<int64_t> shape;
  std::vector<std::string> names;
  bool any_name = false;
  for (const fb::TensorDim* dim : *tensor->shape()) {
    if (dim == nullptr || dim->size() < 0) {
      return Status::Invalid(where, ": tensor dimension ", shape.size(),
                             " has a negative or missing size");
    }
    shape.push_back(dim->size());
    names.push_back(dim->name() ? dim->name()->str() : "");
    any_name = any_name || dim->name() != nullptr;
  }
  std::vector<int64_t> strides;
  if (const auto* fb_strides = tensor->strides()) {
    for (flatbuffers::uoffset_t k = 0; k < fb_strides->size(); ++k) {
      strides.push_back(LoadScalar(fb_strides, k));
    }
    if (strides.size() != shape.size()) {
      return Status::Invalid(where, ": ", strides.size(), " strides for ", shape.size(),
                             " dimensions");
    }
  }
  const fb::Buffer data = LoadStruct(tensor->data());
  const int64_t body = message.body->size();
  if (data.offset() < 0 || data.length() < 0 || data.offset() > body ||
      data.length() > body - data.offset()) {
    return Status::Invalid(where, ": tensor data [", data.offset(), ", +", data.length(),
                           ") lies outside the ", body, "-byte body");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes,
                          Buffer::Slice(message.body, data.offset(), data.length()));
  // Tensor::Make checks that every element the strides reach lies in the data.
  auto made = Tensor::Make(std::move(type), std::move(bytes), std::move(shape), std::move(strides),
                           any_name ? std::move(names) : std::vector<std::string>{});
  if (!made.ok()) return made.status().WithContext(where);
  return made;
}

}  // namespace quiver::ipc
