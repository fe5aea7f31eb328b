// Errors as values: every fallible quiver call returns a Status or a
// Result<T>. Nothing reachable from user input throws or aborts.
#pragma once

#include <charconv>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
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

namespace internal {

template <typename T>
inline constexpr bool kAlwaysFalse = false;

// Appends one piece of an error message: text (std::string, std::string_view,
// const char*) as it is, a char as that character, any other integer as
// std::to_string writes it, and anything else (floating point included) as an
// std::ostream writes it by default (1.5 -> "1.5", 1.0 / 3 -> "0.333333",
// 1e20 -> "1e+20"). bool is refused: write the words you mean.
template <typename T>
void AppendMessagePiece(std::string& out, const T& piece) {
  using Plain = std::remove_cvref_t<T>;
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out.append(std::string_view(piece));
  } else if constexpr (std::is_same_v<Plain, char>) {
    out.push_back(piece);
  } else if constexpr (std::is_same_v<Plain, bool>) {
    static_assert(kAlwaysFalse<T>, "write a bool into a message as the words you mean");
  } else if constexpr (std::is_integral_v<Plain>) {
    char digits[24];  // 20 digits of a 64-bit integer and a sign
    const auto end = std::to_chars(digits, digits + sizeof(digits), piece).ptr;
    out.append(digits, end);
  } else {
    std::ostringstream stream;
    stream << piece;
    out += std::move(stream).str();
  }
}

// The pieces written one after another, as AppendMessagePiece writes each.
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  std::string out;
  (AppendMessagePiece(out, pieces), ...);
  return out;
}

// Anything but a single argument that is already text: those take the
// std::string overloads of the Status factories and are moved, not copied.
template <typename... Pieces>
concept MessagePieces =
    !(sizeof...(Pieces) == 1 && (std::is_convertible_v<Pieces&&, std::string> && ...));

}  // namespace internal

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

  // The message written from pieces, e.g. Status::Invalid("row ", i, ": length ", n):
  // see internal::AppendMessagePiece for how each kind of piece is written.
  template <typename... Pieces>
  requires internal::MessagePieces<Pieces...>
  static Status Invalid(const Pieces&... pieces) {
    return {StatusCode::kInvalid, internal::StrCat(pieces...)};
  }
  template <typename... Pieces>
  requires internal::MessagePieces<Pieces...>
  static Status TypeError(const Pieces&... pieces) {
    return {StatusCode::kTypeError, internal::StrCat(pieces...)};
  }
  template <typename... Pieces>
  requires internal::MessagePieces<Pieces...>
  static Status IndexError(const Pieces&... pieces) {
    return {StatusCode::kIndexError, internal::StrCat(pieces...)};
  }
  template <typename... Pieces>
  requires internal::MessagePieces<Pieces...>
  static Status NotImplemented(const Pieces&... pieces) {
    return {StatusCode::kNotImplemented, internal::StrCat(pieces...)};
  }
  template <typename... Pieces>
  requires internal::MessagePieces<Pieces...>
  static Status IOError(const Pieces&... pieces) {
    return {StatusCode::kIOError, internal::StrCat(pieces...)};
  }
  template <typename... Pieces>
  requires internal::MessagePieces<Pieces...>
  static Status OutOfMemory(const Pieces&... pieces) {
    return {StatusCode::kOutOfMemory, internal::StrCat(pieces...)};
  }

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
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok())
      status_ = Status::Invalid("Result constructed from an OK status without a value");
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

#define QUIVER_RETURN_NOT_OK(expr)                   \
  do {                                               \
    ::quiver::Status _quiver_status = (expr);        \
    if (!_quiver_status.ok()) return _quiver_status; \
  } while (false)

#define QUIVER_ASSIGN_OR_RETURN_IMPL(result_name, lhs, rexpr) \
  auto result_name = (rexpr);                                 \
  if (!result_name.ok()) return result_name.status();         \
  lhs = std::move(*result_name)

#define QUIVER_ASSIGN_OR_RETURN(lhs, rexpr) \
  QUIVER_ASSIGN_OR_RETURN_IMPL(QUIVER_CONCAT(_quiver_result_, __LINE__), lhs, rexpr)

}  // namespace quiver
