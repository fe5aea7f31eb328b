// The C Device Stream Interface: ArrayReader <-> ArrowDeviceArrayStream.
#include <cerrno>
#include <cstring>
#include <string>

#include "quiver/c_device.h"
#include "quiver/interchange/imported_stream.h"

namespace quiver {

namespace {

struct ExportedDeviceStream {
  std::shared_ptr<ArrayReader> reader;
  std::string last_error;
};

ExportedDeviceStream* Owned(ArrowDeviceArrayStream* stream) {
  return static_cast<ExportedDeviceStream*>(stream->private_data);
}

int ReportError(ArrowDeviceArrayStream* stream, const Status& status) {
  Owned(stream)->last_error = status.ToString();
  return status.code() == StatusCode::kIOError ? EIO : EINVAL;
}

int DeviceStreamGetSchema(ArrowDeviceArrayStream* stream, ArrowSchema* out) {
  Status st = ExportField(Owned(stream)->reader->field(), out);
  return st.ok() ? 0 : ReportError(stream, st);
}

int DeviceStreamGetNext(ArrowDeviceArrayStream* stream, ArrowDeviceArray* out) {
  auto next = Owned(stream)->reader->Next();
  if (!next.ok()) return ReportError(stream, next.status());
  if (!*next) {  // end of stream: a released array
    *out = ArrowDeviceArray{};
    out->array.release = nullptr;
    out->device_type = stream->device_type;
    out->device_id = kCpuDeviceId;
    return 0;
  }
  Status st = ExportDeviceArray(*next, out);
  if (st.ok() && out->device_type != stream->device_type) {
    // A stream promises one device type for all its arrays.
    st = Status::Invalid("array on ", DeviceTypeName(out->device_type), " in a stream on ",
                         DeviceTypeName(stream->device_type));
    out->array.release(&out->array);
  }
  return st.ok() ? 0 : ReportError(stream, st);
}

const char* DeviceStreamGetLastError(ArrowDeviceArrayStream* stream) {
  const std::string& error = Owned(stream)->last_error;
  return error.empty() ? nullptr : error.c_str();
}

void DeviceStreamRelease(ArrowDeviceArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete Owned(stream);
  stream->release = nullptr;
}

struct DeviceStreamTraits {
  static constexpr const char* kName = "ArrowDeviceArrayStream";
  using Array = ArrowDeviceArray;
  static bool Released(const ArrowDeviceArray& array) { return array.array.release == nullptr; }
  static Result<ArrayDataPtr> Import(ArrowDeviceArray* array, const TypePtr& type,
                                     ValidationLevel level) {
    return ImportDeviceArray(array, type, level);
  }
};

using ImportedDeviceStream =
    interchange::ImportedStream<ArrowDeviceArrayStream, DeviceStreamTraits>;

// Arrays on a device quiver cannot read are refused before any is asked for.
Status CheckDevice(const ArrowDeviceArrayStream& stream) {
  if (IsHostMemory(stream.device_type)) return Status::OK();
  return Status::NotImplemented(
      "ArrowDeviceArrayStream produces arrays on ", DeviceTypeName(stream.device_type),
      " (device_type ", stream.device_type,
      "): quiver reads Arrow arrays in host memory only; no array was read");
}

}  // namespace

Status ExportDeviceArrayStream(std::shared_ptr<ArrayReader> reader, ArrowDeviceArrayStream* out) {
  if (!reader) return Status::Invalid("cannot export a NULL reader");
  if (out == nullptr) return Status::Invalid("ArrowDeviceArrayStream pointer is NULL");
  *out = ArrowDeviceArrayStream{};
  out->device_type = ARROW_DEVICE_CPU;
  out->get_schema = DeviceStreamGetSchema;
  out->get_next = DeviceStreamGetNext;
  out->get_last_error = DeviceStreamGetLastError;
  out->release = DeviceStreamRelease;
  out->private_data = new ExportedDeviceStream{std::move(reader), {}};
  return Status::OK();
}

Result<std::shared_ptr<ArrayReader>> ImportDeviceArrayStream(ArrowDeviceArrayStream* stream,
                                                             ValidationLevel level) {
  if (stream == nullptr) return Status::Invalid("ArrowDeviceArrayStream pointer is NULL");
  if (stream->release == nullptr) {
    return Status::Invalid("ArrowDeviceArrayStream is already released");
  }
  // The reader owns the stream from here on and releases it exactly once,
  // on these error paths too.
  auto reader = std::make_shared<ImportedDeviceStream>(stream, level);
  QUIVER_RETURN_NOT_OK(reader->CheckCallbacks());
  QUIVER_RETURN_NOT_OK(CheckDevice(reader->stream()));
  QUIVER_RETURN_NOT_OK(reader->Open());
  return std::shared_ptr<ArrayReader>(reader);
}

}  // namespace quiver
