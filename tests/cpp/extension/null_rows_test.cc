// The one wording of the errors for nulls met where a tensor needs values.
#include "quiver/extension/null_rows.h"

#include "test_util.h"

namespace quiver::internal {

TEST(NullRows, NullRowErrorSaysHowToAllowNullRows) {
  Status st = NullRowError(3);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(
      st.message(),
      "row 3 is null; a tensor cannot represent a null row (to view the bytes the slot holds, "
      "allow null rows)");
}

TEST(NullRows, NullElementErrorNamesTheElement) {
  Status st = NullElementError(7);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(), "element 7 of the data is null; tensors cannot hold null elements");
}

}  // namespace quiver::internal
