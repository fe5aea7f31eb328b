// The memo of parsed extension types across fork(): a child forked while
// another thread of the parent parses types (and so may hold the memo's
// lock) parses types too, never waiting for that thread, which does not
// exist in the child. A loader's forked DataLoader workers hung this way.
#include <atomic>
#include <thread>

#include "fork_test_util.h"
#include "quiver/fixed_shape_tensor.h"
#include "test_util.h"

namespace quiver {
namespace {

// Not under the sanitizers: their runtimes do not follow a fork of a
// process with threads (as the loader's fork tests).
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)

TEST(ExtensionCacheFork, AChildParsesTypesWhileAParentThreadParses) {
  std::atomic<bool> stop{false};
  std::thread parser([&] {
    // Distinct shapes: the memo both finds and inserts (and starts over).
    for (int64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      auto type = FixedShapeTensorType::Make(float32(), {1 + i % 100, 2});
      if (type.ok()) (void)FixedShapeTensorType::FromDataType(type->data_type());
    }
  });
  int failed_at = -1, status = 0;
  for (int n = 0; n < 100 && failed_at < 0; ++n) {
    status = test::InForkedChild([] {
      auto type = FixedShapeTensorType::Make(int8(), {3, 4});
      return type.ok() && FixedShapeTensorType::FromDataType(type->data_type()).ok() ? 0 : 1;
    });
    if (status != 0) failed_at = n;
  }
  stop = true;
  parser.join();
  EXPECT_EQ(failed_at, -1) << "fork " << failed_at << ": "
                           << (status == -1 ? "the child hung" : "the child failed");
}

#endif

}  // namespace
}  // namespace quiver
