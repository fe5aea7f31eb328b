// WithoutThrowing: allocation failures from standard-library workspaces
// come back as OutOfMemory naming the work; results pass through.
#include "quiver/internal/without_throwing.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <vector>

#include "test_util.h"

namespace quiver::internal {
namespace {

TEST(WithoutThrowing, AllocationFailuresBecomeOutOfMemory) {
  EXPECT_ERROR(kOutOfMemory, "batch 3: out of memory",
               WithoutThrowing("batch 3", []() -> Status { throw std::bad_alloc(); }));
  EXPECT_ERROR(kOutOfMemory, "dense to sparse: workspace too large",
               WithoutThrowing("dense to sparse", []() -> Result<int> {
                 std::vector<int> v;
                 v.reserve(v.max_size() + 1);  // std::length_error
                 return 0;
               }));
  ASSERT_OK_AND_ASSIGN(int value, WithoutThrowing("work", []() -> Result<int> { return 7; }));
  EXPECT_EQ(value, 7);
  EXPECT_ERROR(kInvalid, "own error",
               WithoutThrowing("work", [] { return Status::Invalid("own error"); }));
}

}  // namespace
}  // namespace quiver::internal
