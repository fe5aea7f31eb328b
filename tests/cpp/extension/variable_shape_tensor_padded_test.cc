#include "quiver/internal/threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "no_threads.h"
#include "quiver/variable_shape_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver {
namespace {

// Building a large variable-shape column and padding it each use two
// threads; without them they still finish with the same bytes.
TEST(Threads, VariableShapeCopiesFinishWithoutThreads) {
  const int64_t side = 1024;  // two rows of 4 MiB: past the 8 MiB parallel threshold
  std::vector<float> values(static_cast<size_t>(2 * side * side));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000);
  auto type = *VariableShapeTensorType::Make(float32(), 2);
  std::vector<std::optional<Tensor>> rows = {test::Vec<float>({values.begin(), values.begin() + side * side}, {side, side}),
                                             test::Vec<float>({values.begin() + side * side, values.end()}, {side, side})};
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [&] {
        auto array = VariableShapeTensorArray::FromTensors(type, rows);
        if (!array.ok()) return 1;
        auto padded = array->ToPadded();
        if (!padded.ok()) return 2;
        const auto* out = reinterpret_cast<const float*>(padded->values.raw_data());
        for (size_t i = 0; i < values.size(); ++i) {
          if (out[i] != values[i]) return 3;
        }
        return 0;
      },
      &skipped, /*threads=*/0);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace quiver
