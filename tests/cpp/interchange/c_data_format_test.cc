// C Data format strings both ways (FormatString / TypeFromFormat) and the
// errors for malformed and unsupported ones.
#include "quiver/c_data.h"

#include <limits>
#include <string>
#include <vector>
#include "c_data_test_util.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/record_batch.h"
#include "sample_arrays.h"

namespace quiver {

using test::CountSchemaRelease;
using test::g_releases;
using test::Leaf;
using test::Timestamp;

TEST(CData, FormatErrors) {
  ArrowSchema schema;
  ASSERT_OK(ExportType(*int32(), &schema));
  auto* owned_format = schema.format;
  schema.format = "w:x";
  EXPECT_ERROR(kInvalid, "format 'w:x' has an invalid size", ImportField(&schema));
  (void)owned_format;
  ASSERT_OK(ExportType(*int32(), &schema));
  schema.format = "tix";
  EXPECT_ERROR(kNotImplemented, "format 'tix' is not supported", ImportField(&schema));
  ASSERT_OK(ExportType(*int32(), &schema));
  schema.format = "+l";
  EXPECT_ERROR(kInvalid, "format '+l' needs 1 children, got 0", ImportField(&schema));
}

namespace {

std::string FormatOf(const TypePtr& type) {
  ArrowSchema schema;
  if (!ExportType(*type, &schema).ok()) return "<export failed>";
  std::string format = schema.format;
  schema.release(&schema);
  return format;
}

}  // namespace

TEST(CDataCoreTypes, FormatStringsBothWays) {
  struct Row {
    TypePtr type;
    const char* format;
  };
  const std::vector<Row> rows = {
      {null(), "n"},
      {date32(), "tdD"},
      {date64(), "tdm"},
      {*time32(TimeUnit::kSecond), "tts"},
      {*time32(TimeUnit::kMilli), "ttm"},
      {*time64(TimeUnit::kMicro), "ttu"},
      {*time64(TimeUnit::kNano), "ttn"},
      {Timestamp(TimeUnit::kSecond), "tss:"},
      {Timestamp(TimeUnit::kMilli, "UTC"), "tsm:UTC"},
      {Timestamp(TimeUnit::kMicro, "Europe/Paris"), "tsu:Europe/Paris"},
      {Timestamp(TimeUnit::kNano, "+02:00"), "tsn:+02:00"},
      {*duration(TimeUnit::kSecond), "tDs"},
      {*duration(TimeUnit::kMilli), "tDm"},
      {*duration(TimeUnit::kMicro), "tDu"},
      {*duration(TimeUnit::kNano), "tDn"},
      {*decimal128(10, 2), "d:10,2"},
      {*decimal128(38, -5), "d:38,-5"},
      {*decimal256(40, 3), "d:40,3,256"},
      {utf8_view(), "vu"},
      {binary_view(), "vz"},
      {*dictionary(int8(), utf8()), "c"},
      {*dictionary(uint64(), utf8_view()), "L"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.type->ToString());
    EXPECT_EQ(FormatOf(row.type), row.format);
    ArrowSchema schema;
    ASSERT_OK(ExportType(*row.type, &schema));
    ASSERT_OK_AND_ASSIGN(TypePtr back, ImportType(&schema));
    EXPECT_TRUE(back->Equals(*row.type)) << back->ToString();
  }
  // The explicit 128-bit width reads as decimal128.
  ArrowSchema explicit128 = Leaf("d:9,1,128");
  ASSERT_OK_AND_ASSIGN(TypePtr dec, ImportType(&explicit128));
  EXPECT_TRUE(dec->Equals(**decimal128(9, 1)));
}

TEST(CDataCoreTypes, MalformedAndUnsupportedFormats) {
  struct Case {
    const char* format;
    StatusCode code;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"d:10", StatusCode::kInvalid, "field: format 'd:10' is not a decimal format"},
      {"d:10,", StatusCode::kInvalid, "format 'd:10,' is not a decimal format"},
      {"d:x,1", StatusCode::kInvalid, "is not a decimal format"},
      {"d:10,2,", StatusCode::kInvalid, "is not a decimal format"},
      {"d:10,2,256x", StatusCode::kInvalid, "is not a decimal format"},
      {"d:0,1", StatusCode::kInvalid, "field: decimal128 precision 0 is outside [1, 38]"},
      {"d:39,1", StatusCode::kInvalid, "decimal128 precision 39 is outside [1, 38]"},
      {"d:77,1,256", StatusCode::kInvalid, "decimal256 precision 77 is outside [1, 76]"},
      {"d:10,2,100", StatusCode::kInvalid, "has decimal bit width 100"},
      {"d:10,2,32", StatusCode::kInvalid, "decimal32 precision 10 is outside [1, 9]"},
      {"d:19,2,64", StatusCode::kInvalid, "decimal64 precision 19 is outside [1, 18]"},
      {"tss", StatusCode::kInvalid, "format 'tss' needs ':' and a time zone"},
      {"tsuUTC", StatusCode::kInvalid, "format 'tsuUTC' needs ':'"},
      {"tix", StatusCode::kNotImplemented, "field: format 'tix' is not supported by quiver"},
      {"tdx", StatusCode::kNotImplemented, "format 'tdx' is not supported"},
      {"ttx", StatusCode::kNotImplemented, "format 'ttx' is not supported"},
      {"+r", StatusCode::kInvalid, "format '+r' needs 2 children, got 0"},
      {"+vl", StatusCode::kInvalid, "format '+vl' needs 1 children, got 0"},
      {"+vL", StatusCode::kInvalid, "format '+vL' needs 1 children, got 0"},
      {"+ud:0,1", StatusCode::kInvalid, "format '+ud:0,1' names 2 type codes for 0 children"},
      {"+us:0", StatusCode::kInvalid, "format '+us:0' names 1 type codes for 0 children"},
      {"+us:0,", StatusCode::kInvalid, "format '+us:0,' ends with a comma"},
      {"+us:x", StatusCode::kInvalid, "is not a union format"},
      {"+ud:128", StatusCode::kInvalid, "type codes in [0, 127]"},
      {"+m", StatusCode::kInvalid, "format '+m' needs 1 children, got 0"},
      {"v", StatusCode::kNotImplemented, "format 'v' is not supported"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.format);
    g_releases = 0;
    ArrowSchema schema = Leaf(c.format);
    Result<Field> field = ImportField(&schema);
    ASSERT_FALSE(field.ok());
    EXPECT_EQ(field.status().code(), c.code) << field.status().ToString();
    EXPECT_NE(field.status().message().find(c.error), std::string::npos)
        << field.status().ToString();
    EXPECT_EQ(g_releases, 1);
  }
  // Nested: the error names the path to the field.
  ArrowSchema map_child = Leaf("v");
  ArrowSchema* children[1] = {&map_child};
  ArrowSchema parent = Leaf("+s");
  parent.n_children = 1;
  parent.children = children;
  EXPECT_ERROR(kNotImplemented, "field.child 0 (x): format 'v' is not supported",
               ImportField(&parent));
  // A column's decimal precision outside its range names the column; an
  // unnamed child is named by its position alone.
  ArrowSchema price = Leaf("d:39,-2");
  price.name = "price";
  children[0] = &price;
  parent = Leaf("+s");
  parent.n_children = 1;
  parent.children = children;
  EXPECT_ERROR(kInvalid, "field.child 0 (price): decimal128 precision 39 is outside [1, 38]",
               ImportField(&parent));
  ArrowSchema unnamed = Leaf("d:10,2,32");
  unnamed.name = nullptr;
  children[0] = &unnamed;
  parent = Leaf("+s");
  parent.n_children = 1;
  parent.children = children;
  EXPECT_ERROR(kInvalid, "field.child 0: decimal32 precision 10 is outside [1, 9]",
               ImportField(&parent));
}

TEST(CData, NewTypeFormatsBothWays) {
  struct Case {
    TypePtr type;
    const char* format;
  };
  const std::vector<Case> cases = {
      {*decimal32(9, 2), "d:9,2,32"},
      {*decimal64(18, -3), "d:18,-3,64"},
      {*interval(IntervalUnit::kYearMonth), "tiM"},
      {*interval(IntervalUnit::kDayTime), "tiD"},
      {*interval(IntervalUnit::kMonthDayNano), "tin"},
      {*map_(utf8(), int32()), "+m"},
      {*map_(utf8(), int32(), true), "+m"},
      {list_view(ListItem(int8())), "+vl"},
      {large_list_view(ListItem(int8())), "+vL"},
      {*sparse_union({Field{"a", int8()}, Field{"b", utf8()}}, {4, 2}), "+us:4,2"},
      {*dense_union({Field{"a", int8()}}), "+ud:0"},
      {*dense_union({}), "+ud:"},
      {*run_end_encoded(int64(), utf8()), "+r"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type->ToString());
    ArrowSchema schema;
    ASSERT_OK(ExportType(*c.type, &schema));
    EXPECT_STREQ(schema.format, c.format);
    ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
    EXPECT_TRUE(field.type->Equals(*c.type)) << field.type->ToString();
  }
}

}  // namespace quiver
