// The C Device Stream Interface: ArrayReader <-> ArrowDeviceArrayStream.
#include <cerrno>
#include <cstring>
#include <string>

#include "quiver/c_device.h"

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

class ImportedDeviceStreamReader : public ArrayReader {
 public:
  ImportedDeviceStreamReader(ArrowDeviceArrayStream* source, ValidationLevel level)
      : stream_(*source), level_(level) {
    source->release = nullptr;
  }
  ~ImportedDeviceStreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }

  Status CheckCallbacks() const {
    const char* missing = stream_.get_schema == nullptr       ? "get_schema"
                          : stream_.get_next == nullptr       ? "get_next"
                          : stream_.get_last_error == nullptr ? "get_last_error"
                                                              : nullptr;
    if (missing == nullptr) return Status::OK();
    return Status::Invalid(std::string("ArrowDeviceArrayStream has no ") + missing + " callback");
  }

  Status CheckDevice() const {
    if (IsHostMemory(stream_.device_type)) return Status::OK();
    return Status::NotImplemented(
        "ArrowDeviceArrayStream produces arrays on ", DeviceTypeName(stream_.device_type),
        " (device_type ", stream_.device_type,
        "): quiver reads Arrow arrays in host memory only; no array was read");
  }

  Status Open() {
    ArrowSchema schema{};
    int rc = stream_.get_schema(&stream_, &schema);
    if (rc != 0) return Failure("get_schema", rc);
    QUIVER_ASSIGN_OR_RETURN(field_, ImportField(&schema));
    // Arrays arrive as the producer lays them out and leave canonical.
    import_type_ = field_.type;
    QUIVER_ASSIGN_OR_RETURN(field_.type, CanonicalType(import_type_));
    return Status::OK();
  }

  const Field& field() const override { return field_; }

  Result<ArrayDataPtr> Next() override {
    if (finished_) return ArrayDataPtr{};
    ArrowDeviceArray array{};
    int rc = stream_.get_next(&stream_, &array);
    if (rc != 0) return Failure("get_next", rc);
    if (array.array.release == nullptr) {
      finished_ = true;
      return ArrayDataPtr{};
    }
    auto data = ImportDeviceArray(&array, import_type_, level_);
    if (!data.ok())
      return data.status().WithContext("ArrowDeviceArrayStream array " + std::to_string(index_));
    ++index_;
    return data;
  }

 private:
  Status Failure(const char* call, int rc) {
    const char* message = stream_.get_last_error(&stream_);
    return Status::IOError(std::string("ArrowDeviceArrayStream ") + call + " failed (" +
                           std::strerror(rc) + ")" + (message ? std::string(": ") + message : ""));
  }

  ArrowDeviceArrayStream stream_;
  ValidationLevel level_;
  Field field_;          // canonical
  TypePtr import_type_;  // as the producer describes its arrays
  int64_t index_ = 0;
  bool finished_ = false;
};

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
  auto reader = std::make_shared<ImportedDeviceStreamReader>(stream, level);
  QUIVER_RETURN_NOT_OK(reader->CheckCallbacks());
  QUIVER_RETURN_NOT_OK(reader->CheckDevice());
  QUIVER_RETURN_NOT_OK(reader->Open());
  return std::shared_ptr<ArrayReader>(reader);
}

}  // namespace quiver
