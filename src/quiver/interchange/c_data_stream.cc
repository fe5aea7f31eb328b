// The C Stream Interface: ArrayReader <-> ArrowArrayStream.
#include <cerrno>
#include <cstring>
#include <string>

#include "quiver/c_data.h"
#include "quiver/interchange/imported_stream.h"

namespace quiver {

namespace {

class VectorReader : public ArrayReader {
 public:
  VectorReader(Field field, std::vector<ArrayDataPtr> arrays)
      : field_(std::move(field)), arrays_(std::move(arrays)) {}
  const Field& field() const override { return field_; }
  Result<ArrayDataPtr> Next() override {
    if (next_ >= arrays_.size()) return ArrayDataPtr{};
    return arrays_[next_++];
  }

 private:
  Field field_;
  std::vector<ArrayDataPtr> arrays_;
  size_t next_ = 0;
};

struct ExportedStream {
  std::shared_ptr<ArrayReader> reader;
  std::string last_error;
};

int ReportError(ArrowArrayStream* stream, const Status& status) {
  static_cast<ExportedStream*>(stream->private_data)->last_error = status.ToString();
  return status.code() == StatusCode::kIOError ? EIO : EINVAL;
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* owned = static_cast<ExportedStream*>(stream->private_data);
  Status st = ExportField(owned->reader->field(), out);
  return st.ok() ? 0 : ReportError(stream, st);
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* owned = static_cast<ExportedStream*>(stream->private_data);
  auto next = owned->reader->Next();
  if (!next.ok()) return ReportError(stream, next.status());
  if (!*next) {  // end of stream: a released array
    *out = ArrowArray{};
    out->release = nullptr;
    return 0;
  }
  Status st = ExportArray(*next, out);
  return st.ok() ? 0 : ReportError(stream, st);
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* owned = static_cast<ExportedStream*>(stream->private_data);
  return owned->last_error.empty() ? nullptr : owned->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<ExportedStream*>(stream->private_data);
  stream->release = nullptr;
}

struct ArrayStreamTraits {
  static constexpr const char* kName = "ArrowArrayStream";
  using Array = ArrowArray;
  static bool Released(const ArrowArray& array) { return array.release == nullptr; }
  static Result<ArrayDataPtr> Import(ArrowArray* array, const TypePtr& type,
                                     ValidationLevel level) {
    return ImportArray(array, type, level);
  }
};

}  // namespace

std::shared_ptr<ArrayReader> MakeArrayReader(Field field, std::vector<ArrayDataPtr> arrays) {
  return std::make_shared<VectorReader>(std::move(field), std::move(arrays));
}

Status ExportArrayStream(std::shared_ptr<ArrayReader> reader, ArrowArrayStream* out) {
  if (!reader) return Status::Invalid("cannot export a NULL reader");
  *out = ArrowArrayStream{};
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamGetLastError;
  out->release = StreamRelease;
  out->private_data = new ExportedStream{std::move(reader), {}};
  return Status::OK();
}

Result<std::shared_ptr<ArrayReader>> ImportArrayStream(ArrowArrayStream* stream,
                                                       ValidationLevel level) {
  if (stream == nullptr) return Status::Invalid("ArrowArrayStream pointer is NULL");
  if (stream->release == nullptr) return Status::Invalid("ArrowArrayStream is already released");
  // The reader owns the stream from here on and releases it exactly once,
  // on this error path too.
  auto reader = std::make_shared<interchange::ImportedStream<ArrowArrayStream, ArrayStreamTraits>>(
      stream, level);
  QUIVER_RETURN_NOT_OK(reader->CheckCallbacks());
  QUIVER_RETURN_NOT_OK(reader->Open());
  return std::shared_ptr<ArrayReader>(reader);
}

}  // namespace quiver
