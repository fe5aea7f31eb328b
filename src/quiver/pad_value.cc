#include "quiver/pad_value.h"

#include <charconv>

namespace quiver {

std::string PadValue::ToString() const {
  switch (kind_) {
    case Kind::kInt64: return std::to_string(int64_);
    case Kind::kUInt64: return std::to_string(uint64_);
    case Kind::kDouble: break;
  }
  char text[32];
  auto written = std::to_chars(text, text + sizeof(text), double_);
  return std::string(text, written.ptr);
}

}  // namespace quiver
