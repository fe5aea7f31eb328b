// Helpers for the shape pattern tests: parsing a pattern, enforcing it on
// a shape, the sizes of matched dims and the message of a failed result.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quiver/shape_pattern.h"
#include "test_util.h"

namespace quiver::test {

using Shape = std::vector<int64_t>;

// The pattern parsed from `text`; an empty one (and a failure) if it does not parse.
inline ShapePattern P(std::string_view text) {
  auto pattern = ShapePattern::Parse(text);
  EXPECT_TRUE(pattern.ok()) << pattern.status().ToString();
  return pattern.ok() ? *pattern : ShapePattern{};
}

inline Result<ShapeMatch> Check(const Shape& shape, std::string_view pattern,
                                ShapeBindings* bindings = nullptr, std::string_view label = {}) {
  return EnforceShape(shape, P(pattern), {bindings, label});
}

// The sizes of `dims`, none of which may vary.
inline std::vector<int64_t> Values(const std::vector<DimSize>& dims) {
  std::vector<int64_t> out;
  for (const DimSize& d : dims) {
    EXPECT_FALSE(d.varies());
    out.push_back(d.value);
  }
  return out;
}

// The error message of a result that must have failed.
template <typename T>
std::string Message(const Result<T>& result) {
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.status().message();
}

}  // namespace quiver::test
