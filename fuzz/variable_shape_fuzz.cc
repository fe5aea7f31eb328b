// Fuzzes arrow.variable_shape_tensor reading: metadata (final and draft
// forms) plus storage built from the input bytes. Any input must give an
// array or an error, never a crash; an accepted array must survive every
// view and copy without reading out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz_targets.h"
#include "quiver/variable_shape_tensor.h"

namespace {

using namespace quiver;

// Reads bytes from the front of the input, zeros once it runs out.
struct Reader {
  const uint8_t* data;
  size_t size;
  uint8_t Next() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
};

BufferPtr Bytes(const void* data, int64_t size) {
  BufferPtr buffer = *Buffer::Allocate(size);
  if (size > 0) std::memcpy(buffer->mutable_data(), data, size);
  return buffer;
}

ArrayDataPtr Storage(Reader& in, std::string_view metadata, int ndim, int64_t n) {
  std::vector<int32_t> offsets(n + 1);
  for (auto& o : offsets) o = static_cast<int8_t>(in.Next());  // may be invalid on purpose
  std::vector<int32_t> shapes(n * ndim);
  for (auto& s : shapes) s = static_cast<int8_t>(in.Next()) % 8;
  const int64_t values = in.Next() % 64;
  const uint8_t validity = in.Next();
  TypePtr storage = struct_({Field{"data", list(ListItem(float32()))},
                             Field{"shape", *fixed_size_list(ListItem(int32()), ndim)}});
  auto value_data = std::make_shared<ArrayData>();
  value_data->type = float32();
  value_data->length = values;
  value_data->null_count = 0;
  value_data->buffers = {nullptr, *Buffer::Allocate(values * 4)};
  auto list_data = std::make_shared<ArrayData>();
  list_data->type = storage->children()[0].type;
  list_data->length = n;
  list_data->null_count = 0;
  list_data->buffers = {nullptr, Bytes(offsets.data(), offsets.size() * 4)};
  list_data->children = {value_data};
  auto entries = std::make_shared<ArrayData>();
  entries->type = int32();
  entries->length = n * ndim;
  entries->null_count = 0;
  entries->buffers = {nullptr, Bytes(shapes.data(), shapes.size() * 4)};
  auto shape_data = std::make_shared<ArrayData>();
  shape_data->type = storage->children()[1].type;
  shape_data->length = n;
  shape_data->null_count = 0;
  shape_data->buffers = {nullptr};
  shape_data->children = {entries};
  auto data = std::make_shared<ArrayData>();
  data->type = *extension(VariableShapeTensorType::kExtensionName, std::string(metadata), storage);
  data->length = n;
  data->buffers = {validity & 1 ? Bytes(&validity, 1) : nullptr};
  data->children = {list_data, shape_data};
  return data;
}

}  // namespace

namespace quiver::fuzz {

int FuzzVariableShape(const uint8_t* data, size_t size) {
  Reader in{data, size};
  const int ndim = in.Next() % 4;
  const int64_t n = in.Next() % 8;
  const size_t metadata_size = std::min<size_t>(in.Next() % 64, in.size);
  std::string_view metadata(reinterpret_cast<const char*>(in.data), metadata_size);
  in.data += metadata_size;
  in.size -= metadata_size;
  auto array = VariableShapeTensorArray::Make(Storage(in, metadata, ndim, n));
  if (!array.ok()) return 0;
  auto type = VariableShapeTensorType::FromDataType(array->type().data_type());
  if (!type.ok() || !type->Equals(array->type())) __builtin_trap();
  for (int64_t i = 0; i < array->length(); ++i) (void)array->RowTensor(i, NullPolicy::kAllow);
  (void)array->ToPadded(3, NullPolicy::kAllow);
  (void)array->ToJagged(NullPolicy::kAllow);
  (void)array->ToFixed();
  (void)array->Shapes();
  std::vector<int64_t> reversed;
  for (int64_t i = array->length() - 1; i >= 0; --i) reversed.push_back(i);
  auto taken = array->Take(reversed);
  if (taken.ok() && !Validate(*taken->data()).ok()) __builtin_trap();
  return 0;
}

}  // namespace quiver::fuzz
