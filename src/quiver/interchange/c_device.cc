// ArrowDeviceArray export and import, and device tensors exported as
// arrow.fixed_shape_tensor arrays. Device memory is never dereferenced
// here: only its addresses, and the host-side structs, are touched.
#include "quiver/c_device.h"

#include <optional>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/checked_math.h"

namespace quiver {

// DeviceTypeName (quiver/buffer.h) names devices by these numbers.
static_assert(ARROW_DEVICE_CUDA == 2 && ARROW_DEVICE_ROCM == 10 && ARROW_DEVICE_HEXAGON == 16,
              "ArrowDeviceType numbers are DLPack's");

bool IsHostMemory(int32_t device_type) {
  return device_type == ARROW_DEVICE_CPU || device_type == ARROW_DEVICE_CUDA_HOST ||
         device_type == ARROW_DEVICE_ROCM_HOST;
}

namespace {

// The one device every buffer of `data` lives on; nullopt while none has
// a buffer yet.
Status CollectDevice(const ArrayData& data, std::optional<Device>* device, int depth) {
  if (depth > kMaxNestingDepth) {
    return Status::Invalid("cannot export an array nested more than ", kMaxNestingDepth,
                           " levels deep");
  }
  for (const BufferPtr& buffer : data.buffers) {
    if (!buffer) continue;
    if (!*device) *device = buffer->device();
    if (!(buffer->device() == **device)) {
      return Status::Invalid("cannot export an array whose buffers live on two devices (",
                             DeviceTypeName((*device)->type), " ", (*device)->id, " and ",
                             DeviceTypeName(buffer->device().type), " ", buffer->device().id, ")");
    }
  }
  for (const ArrayDataPtr& child : data.children) {
    if (child) QUIVER_RETURN_NOT_OK(CollectDevice(*child, device, depth + 1));
  }
  if (data.dictionary) QUIVER_RETURN_NOT_OK(CollectDevice(*data.dictionary, device, depth + 1));
  return Status::OK();
}

// A device-resident row-major tensor as fixed_shape_tensor array data,
// built from shapes and addresses alone (FixedShapeTensorArray::FromTensor
// keeps columns on the host and refuses it).
Result<ArrayDataPtr> DeviceTensorColumn(const Tensor& tensor) {
  const Device& device = tensor.buffer()->device();
  if (!tensor.IsContiguous()) {
    return Status::NotImplemented(
        "a tensor on ", DeviceTypeName(device.type), " (device ", device.id,
        ") exports as an Arrow array only when row-major; its strides are ",
        internal::FormatShape(tensor.strides()),
        " and quiver does not copy device memory (make it contiguous on the device first)");
  }
  std::vector<int64_t> cell(tensor.shape().begin() + 1, tensor.shape().end());
  std::vector<std::string> names;
  if (!tensor.dim_names().empty())
    names.assign(tensor.dim_names().begin() + 1, tensor.dim_names().end());
  QUIVER_ASSIGN_OR_RETURN(
      FixedShapeTensorType type,
      FixedShapeTensorType::Make(tensor.type(), std::move(cell), std::move(names)));
  const int64_t rows = tensor.shape()[0];
  QUIVER_ASSIGN_OR_RETURN(int64_t values,
                          internal::MultiplyChecked(rows, type.list_size(), "tensor elements"));
  QUIVER_ASSIGN_OR_RETURN(
      int64_t bytes,
      internal::MultiplyChecked(values, tensor.type()->byte_width(), "tensor size in bytes"));
  // A slice keeps the device of the buffer it cuts.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr sliced,
                          Buffer::Slice(tensor.buffer(), tensor.byte_offset(), bytes));
  auto child = std::make_shared<ArrayData>();
  child->type = tensor.type();
  child->length = values;
  child->null_count = 0;
  child->buffers = {nullptr, std::move(sliced)};
  auto column = std::make_shared<ArrayData>();
  column->type = type.data_type();
  column->length = rows;
  column->null_count = 0;
  column->buffers = {nullptr};
  column->children = {std::move(child)};
  return ArrayDataPtr(std::move(column));
}

// Whether the host may read the buffers of `array`: the reason it may not
// otherwise. Only the host-side fields of the struct are read.
Status CheckReadableOnHost(const ArrowDeviceArray& array) {
  const std::string where = DeviceTypeName(array.device_type) + " (device_type " +
                            std::to_string(array.device_type) + ", device_id " +
                            std::to_string(array.device_id) + ")";
  if (!IsHostMemory(array.device_type)) {
    return Status::NotImplemented(
        "ArrowDeviceArray lives on ", where,
        ": quiver reads Arrow arrays in host memory only, and none of its buffers was read; "
        "move it to the CPU first, or pass device tensors through DLPack");
  }
  if (array.device_type != ARROW_DEVICE_CPU && array.sync_event != nullptr) {
    return Status::NotImplemented("ArrowDeviceArray in ", where,
                                  " carries a sync_event that must be waited on before reading, "
                                  "and quiver cannot wait on device events");
  }
  return Status::OK();
}

}  // namespace

Status ExportDeviceArray(const ArrayDataPtr& data, ArrowDeviceArray* out) {
  if (out == nullptr) return Status::Invalid("ArrowDeviceArray pointer is NULL");
  std::optional<Device> device;
  if (data) QUIVER_RETURN_NOT_OK(CollectDevice(*data, &device, 0));
  ArrowArray array{};
  QUIVER_RETURN_NOT_OK(ExportArray(data, &array));
  const Device where = device.value_or(Device{});
  *out = ArrowDeviceArray{};
  out->array = array;
  out->device_type = where.type;
  out->device_id = where.is_cpu() ? kCpuDeviceId : where.id;
  out->sync_event = nullptr;
  return Status::OK();
}

Status ExportDeviceTensor(const Tensor& tensor, ArrowSchema* schema, ArrowDeviceArray* out) {
  if (schema == nullptr || out == nullptr) {
    return Status::Invalid("ArrowSchema or ArrowDeviceArray pointer is NULL");
  }
  if (!tensor.type() || !tensor.buffer()) return Status::Invalid("cannot export an empty Tensor");
  if (tensor.ndim() < 1) {
    return Status::Invalid(
        "an Arrow array needs a tensor with a row axis (ndim >= 1), got a 0-d "
        "tensor");
  }
  ArrayDataPtr column;
  if (tensor.buffer()->device().is_cpu()) {
    QUIVER_ASSIGN_OR_RETURN(FixedShapeTensorArray array,
                            FixedShapeTensorArray::FromTensor(tensor, CopyMode::kIfNeeded));
    column = array.data();
  } else {
    QUIVER_ASSIGN_OR_RETURN(column, DeviceTensorColumn(tensor));
  }
  QUIVER_RETURN_NOT_OK(ExportType(*column->type, schema));
  Status st = ExportDeviceArray(column, out);
  if (!st.ok()) schema->release(schema);
  return st;
}

Result<ArrayDataPtr> ImportDeviceArray(ArrowDeviceArray* array, const TypePtr& type,
                                       ValidationLevel level) {
  if (array == nullptr) return Status::Invalid("ArrowDeviceArray pointer is NULL");
  if (array->array.release == nullptr) {
    return Status::Invalid("ArrowDeviceArray is already released");
  }
  // Moved out first: ImportArray owns it on every path, the refusals too.
  ArrowArray host = array->array;
  array->array.release = nullptr;
  Status readable = CheckReadableOnHost(*array);
  if (!readable.ok()) {
    host.release(&host);
    return readable;
  }
  return ImportArray(&host, type, level);
}

}  // namespace quiver
