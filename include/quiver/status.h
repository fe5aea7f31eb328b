// Errors as values: every fallible quiver call returns a Status or a
// Result<T>. Nothing reachable from user input throws or aborts.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace quiver {

enum class StatusCode : int {
  kOk = 0,
  kInvalid,         // malformed input: bad metadata, inconsistent buffers
  kTypeError,       // a value of the wrong type
  kIndexError,      // an index out of range
  kNotImplemented,  // valid input that quiver does not handle (yet)
  kIOError,
  kOutOfMemory,
};

// Name of a code, e.g. "Invalid".
const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  // Bytes of `message` that are not valid UTF-8 (names quoted from hostile
  // input) are written as \xNN escapes, so a message is always text.
  Status(StatusCode code, std::string message);

  static Status OK() { return {}; }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalid, std::move(msg)}; }
  static Status TypeError(std::string msg) { return {StatusCode::kTypeError, std::move(msg)}; }
  static Status IndexError(std::string msg) { return {StatusCode::kIndexError, std::move(msg)}; }
  static Status NotImplemented(std::string msg) {
    return {StatusCode::kNotImplemented, std::move(msg)};
  }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status OutOfMemory(std::string msg) { return {StatusCode::kOutOfMemory, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "Invalid: <message>", or "OK".
  std::string ToString() const;

  // A copy of this status whose message starts with `context` + ": ".
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = Status::Invalid("Result constructed from an OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // Precondition: ok(). Check first; these do not verify.
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  T ValueOr(T fallback) && { return ok() ? std::move(*value_) : std::move(fallback); }

 private:
  Status status_;
  std::optional<T> value_;
};

#define QUIVER_CONCAT_INNER(a, b) a##b
#define QUIVER_CONCAT(a, b) QUIVER_CONCAT_INNER(a, b)

#define QUIVER_RETURN_NOT_OK(expr)                 \
  do {                                             \
    ::quiver::Status _quiver_status = (expr);      \
    if (!_quiver_status.ok()) return _quiver_status; \
  } while (false)

#define QUIVER_ASSIGN_OR_RETURN_IMPL(result_name, lhs, rexpr) \
  auto result_name = (rexpr);                                 \
  if (!result_name.ok()) return result_name.status();         \
  lhs = std::move(*result_name)

#define QUIVER_ASSIGN_OR_RETURN(lhs, rexpr) \
  QUIVER_ASSIGN_OR_RETURN_IMPL(QUIVER_CONCAT(_quiver_result_, __LINE__), lhs, rexpr)

}  // namespace quiver
