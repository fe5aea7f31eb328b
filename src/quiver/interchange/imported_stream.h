// Internal: an ArrayReader over an imported C stream, for both stream
// structs of the C interfaces (ArrowArrayStream and ArrowDeviceArrayStream:
// the same callbacks over different array structs). The reader owns the
// stream from construction and releases it exactly once.
#pragma once

#include <cstring>
#include <string>

#include "quiver/c_data.h"

namespace quiver::interchange {

// `Traits` names the stream (kName), its array struct (Array), how to tell
// the end of the stream (Released) and how to import one array (Import).
template <typename Stream, typename Traits>
class ImportedStream : public ArrayReader {
 public:
  ImportedStream(Stream* source, ValidationLevel level) : stream_(*source), level_(level) {
    source->release = nullptr;
  }
  ~ImportedStream() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }

  Status CheckCallbacks() const {
    const char* missing = stream_.get_schema == nullptr       ? "get_schema"
                          : stream_.get_next == nullptr       ? "get_next"
                          : stream_.get_last_error == nullptr ? "get_last_error"
                                                              : nullptr;
    if (missing == nullptr) return Status::OK();
    return Status::Invalid(Traits::kName, " has no ", missing, " callback");
  }

  // Reads the schema: the field as the producer lays its arrays out, and
  // the canonical field the arrays leave as.
  Status Open() {
    ArrowSchema schema{};
    const int rc = stream_.get_schema(&stream_, &schema);
    if (rc != 0) return Failure("get_schema", rc);
    QUIVER_ASSIGN_OR_RETURN(field_, ImportField(&schema));
    import_type_ = field_.type;
    QUIVER_ASSIGN_OR_RETURN(field_.type, CanonicalType(import_type_));
    return Status::OK();
  }

  const Stream& stream() const { return stream_; }
  const Field& field() const override { return field_; }

  Result<ArrayDataPtr> Next() override {
    if (finished_) return ArrayDataPtr{};
    typename Traits::Array array{};
    const int rc = stream_.get_next(&stream_, &array);
    if (rc != 0) return Failure("get_next", rc);
    if (Traits::Released(array)) {
      finished_ = true;
      return ArrayDataPtr{};
    }
    auto data = Traits::Import(&array, import_type_, level_);
    if (!data.ok()) {
      return data.status().WithContext(std::string(Traits::kName) + " array " +
                                       std::to_string(index_));
    }
    ++index_;
    return data;
  }

 private:
  Status Failure(const char* call, int rc) {
    const char* message = stream_.get_last_error(&stream_);
    return Status::IOError(Traits::kName, " ", call, " failed (", std::strerror(rc), ")",
                           (message ? std::string(": ") + message : std::string()));
  }

  Stream stream_;
  ValidationLevel level_;
  Field field_;          // canonical
  TypePtr import_type_;  // as the producer describes its arrays
  int64_t index_ = 0;
  bool finished_ = false;
};

}  // namespace quiver::interchange
