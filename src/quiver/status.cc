#include "quiver/status.h"

#include "quiver/internal/utf8.h"

namespace quiver {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalid: return "Invalid";
    case StatusCode::kTypeError: return "TypeError";
    case StatusCode::kIndexError: return "IndexError";
    case StatusCode::kNotImplemented: return "NotImplemented";
    case StatusCode::kIOError: return "IOError";
    case StatusCode::kOutOfMemory: return "OutOfMemory";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status::Status(StatusCode code, std::string message)
    : code_(code), message_(internal::EscapeInvalidUtf8(std::move(message))) {}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return {code_, context + ": " + message_};
}

}  // namespace quiver
