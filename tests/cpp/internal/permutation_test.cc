// Mapping physical axes to logical ones (ToLogical, LogicalStrides) and the
// one permutation check every caller words the same.
#include "quiver/internal/permutation.h"

#include <string>
#include <vector>

#include "test_util.h"

namespace quiver::internal {

using Axes = std::vector<int64_t>;

TEST(Permutation, CheckAcceptsEachAxisOnce) {
  ASSERT_OK(CheckPermutation(Axes{2, 0, 1}, 3, "permutation"));
  ASSERT_OK(CheckPermutation(Axes{}, 0, "permutation"));
  EXPECT_EQ(CheckPermutation(Axes{0, 1, 2}, 2, "CSF axis_order").message(),
            "CSF axis_order has 3 entries for 2 dimensions");
  EXPECT_EQ(CheckPermutation(Axes{}, 2, "permutation").message(),
            "permutation has 0 entries for 2 dimensions");
  EXPECT_EQ(CheckPermutation(Axes{0, 0}, 2, "arrow.fixed_shape_tensor permutation").message(),
            "arrow.fixed_shape_tensor permutation [0, 0] is not a permutation of 0..1: entry 1 "
            "repeats 0");
  EXPECT_EQ(CheckPermutation(Axes{0, 5}, 2, "p").message(),
            "p [0, 5] is not a permutation of 0..1: entry 1 (5) is outside 0..1");
  EXPECT_EQ(CheckPermutation(Axes{-1, 0}, 2, "p").message(),
            "p [-1, 0] is not a permutation of 0..1: entry 0 (-1) is outside 0..1");
  EXPECT_EQ(CheckPermutation(Axes{0}, 1, "p").code(), StatusCode::kOk);
}

TEST(Permutation, IdentityAndSameness) {
  EXPECT_TRUE(IsIdentityPermutation(Axes{}));
  EXPECT_TRUE(IsIdentityPermutation(Axes{0, 1, 2}));
  EXPECT_FALSE(IsIdentityPermutation(Axes{1, 0}));
  EXPECT_TRUE(SamePermutation(Axes{}, Axes{0, 1}));
  EXPECT_TRUE(SamePermutation(Axes{1, 0}, Axes{1, 0}));
  EXPECT_FALSE(SamePermutation(Axes{1, 0}, Axes{}));
  EXPECT_FALSE(SamePermutation(Axes{1, 0, 2}, Axes{1, 0}));
}

TEST(Permutation, LogicalAxesArePhysicalOnesInPermutationOrder) {
  EXPECT_EQ(ToLogical(Axes{10, 20, 30}, Axes{2, 0, 1}), (Axes{30, 10, 20}));
  EXPECT_EQ(ToLogical(Axes{10, 20}, Axes{}), (Axes{10, 20}));
  const std::vector<std::string> names = {"H", "W", "C"};
  EXPECT_EQ(ToLogical(names, Axes{2, 0, 1}), (std::vector<std::string>{"C", "H", "W"}));
  // No dim names stay no dim names.
  EXPECT_TRUE(ToLogical(std::vector<std::string>{}, Axes{1, 0}).empty());
  // Row-major strides of physical (2, 3, 4) float32: (48, 16, 4).
  EXPECT_EQ(LogicalStrides(4, Axes{2, 3, 4}, Axes{}), (Axes{48, 16, 4}));
  EXPECT_EQ(LogicalStrides(4, Axes{2, 3, 4}, Axes{2, 0, 1}), (Axes{4, 48, 16}));
  EXPECT_TRUE(LogicalStrides(8, Axes{}, Axes{}).empty());
}

}  // namespace quiver::internal
