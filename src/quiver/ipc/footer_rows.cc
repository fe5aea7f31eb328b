#include "quiver/ipc/footer_rows.h"

#include <limits>

#include "quiver/ipc/metadata.h"

namespace quiver::ipc {

namespace {

// One count: digits only, no leading zero (the writer never writes one, so
// anything else did not come from it), within int64.
std::optional<int64_t> ParseCount(std::string_view digits) {
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

std::string FormatRecordBatchRows(const std::vector<int64_t>& rows) {
  std::string out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(rows[i]);
  }
  return out;
}

std::optional<std::vector<int64_t>> ParseRecordBatchRows(std::string_view text, int64_t batches) {
  if (batches < 0) return std::nullopt;
  if (batches == 0)
    return text.empty() ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{})
                        : std::nullopt;
  // A count has at least one digit and a comma after it: a longer list
  // than the text could hold is refused before anything is allocated.
  if (batches > static_cast<int64_t>(text.size() / 2) + 1) return std::nullopt;
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(batches));
  int64_t total = 0;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view field = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const std::optional<int64_t> count = ParseCount(field);
    if (!count || *count > std::numeric_limits<int64_t>::max() - total) return std::nullopt;
    total += *count;
    rows.push_back(*count);
    if (static_cast<int64_t>(rows.size()) > batches) return std::nullopt;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (static_cast<int64_t>(rows.size()) != batches) return std::nullopt;
  return rows;
}

std::optional<std::vector<int64_t>> RecordBatchRowsOf(const KeyValueMetadata& metadata,
                                                      int64_t batches) {
  const std::string* value = SoleValue(metadata, kRecordBatchRowsKey);
  if (!value) return std::nullopt;
  return ParseRecordBatchRows(*value, batches);
}

}  // namespace quiver::ipc
