// The schema check every dataset source goes through: the first
// difference is named with its column, both types and both files.
#include "quiver/dataset/schema_match.h"

#include <gtest/gtest.h>

#include "data_test_util.h"

namespace quiver::dataset {
namespace {

Schema Of(std::vector<Field> fields) { return Schema{std::move(fields), {}}; }

TEST(SchemaMatch, NamesTheFirstDifference) {
  const Schema base = *test::DataSchema();
  EXPECT_TRUE(CompareSchemas(base, base, "a.arrow", "b.arrow").ok());
  Schema renamed = base;
  renamed.fields[1].name = "embedding";
  EXPECT_ERROR(kInvalid, "file b.arrow: column 1 'embedding' differs from column 1 'emb'",
               CompareSchemas(base, renamed, "a.arrow", "b.arrow"));
  Schema retyped = base;
  retyped.fields[0].type = int32();
  EXPECT_ERROR(kInvalid, "column 0 'id' has type int32 but in file a.arrow it has type int64",
               CompareSchemas(base, retyped, "a.arrow", "b.arrow"));
  const Schema shorter = Of({base.fields[0]});
  EXPECT_ERROR(kInvalid, "column 1 'emb' is missing (it is in file a.arrow)",
               CompareSchemas(base, shorter, "a.arrow", "b.arrow"));
  EXPECT_ERROR(kInvalid, "is not in file a.arrow", CompareSchemas(shorter, base, "a.arrow", "b"));
}

TEST(SchemaMatch, ColumnNameQuotesTheName) {
  EXPECT_EQ(ColumnName(*test::DataSchema(), 2), "column 2 'img'");
}

}  // namespace
}  // namespace quiver::dataset
