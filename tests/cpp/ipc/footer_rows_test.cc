// The row counts in a quiver IPC file's footer: what the writer formats
// parses back, and anything else (hostile or merely foreign) is nullopt,
// never a wrong list, an exception or a huge allocation.
#include "quiver/ipc/footer_rows.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <limits>
#include <string>
#include <vector>

namespace quiver::ipc {

namespace {

using Rows = std::vector<int64_t>;

}  // namespace

TEST(FooterRows, WhatIsFormattedParsesBack) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (const Rows& rows : {Rows{}, Rows{0}, Rows{1024, 1024, 17}, Rows{0, 5, 0}, Rows{kMax}}) {
    const std::string text = FormatRecordBatchRows(rows);
    EXPECT_EQ(ParseRecordBatchRows(text, static_cast<int64_t>(rows.size())), rows) << text;
  }
  EXPECT_EQ(FormatRecordBatchRows({1024, 1024, 17}), "1024,1024,17");
  EXPECT_EQ(FormatRecordBatchRows({}), "");
}

TEST(FooterRows, TheCountMustMatchTheBatches) {
  EXPECT_EQ(ParseRecordBatchRows("1,2,3", 2), std::nullopt);
  EXPECT_EQ(ParseRecordBatchRows("1,2,3", 4), std::nullopt);
  EXPECT_EQ(ParseRecordBatchRows("", 1), std::nullopt);
  EXPECT_EQ(ParseRecordBatchRows("0", 0), std::nullopt);
  EXPECT_EQ(ParseRecordBatchRows("1", -1), std::nullopt);
  // A claim of more batches than the text can hold allocates nothing.
  EXPECT_EQ(ParseRecordBatchRows("1", std::numeric_limits<int64_t>::max()), std::nullopt);
}

TEST(FooterRows, HostileTextIsRefused) {
  for (const std::string& text : std::vector<std::string>{",",
                                                          "1,",
                                                          ",1",
                                                          "1,,2",
                                                          "-1",
                                                          "+1",
                                                          " 1",
                                                          "1 ",
                                                          "1, 2",
                                                          "01",
                                                          "00",
                                                          "1e3",
                                                          "0x10",
                                                          "1.5",
                                                          "١",
                                                          "1;2",
                                                          "9223372036854775808",
                                                          "99999999999999999999999999",
                                                          std::string("1\0", 2),
                                                          std::string("\0", 1)}) {
    const int64_t batches = 1 + static_cast<int64_t>(std::count(text.begin(), text.end(), ','));
    EXPECT_EQ(ParseRecordBatchRows(text, batches), std::nullopt) << text;
  }
  // Each count fits, their sum does not: callers add them up.
  EXPECT_EQ(ParseRecordBatchRows("9223372036854775807,1", 2), std::nullopt);
  EXPECT_EQ(ParseRecordBatchRows("9223372036854775806,1", 2),
            (Rows{std::numeric_limits<int64_t>::max() - 1, 1}));
}

TEST(FooterRows, TheKeyMustAppearOnce) {
  const std::string key(kRecordBatchRowsKey);
  EXPECT_EQ(RecordBatchRowsOf({}, 0), std::nullopt);
  EXPECT_EQ(RecordBatchRowsOf({{"other", "1"}}, 1), std::nullopt);
  EXPECT_EQ(RecordBatchRowsOf({{"other", "x"}, {key, "3,4"}}, 2), (Rows{3, 4}));
  EXPECT_EQ(RecordBatchRowsOf({{key, "3,4"}, {key, "3,4"}}, 2), std::nullopt);
  EXPECT_EQ(RecordBatchRowsOf({{key, "3,x"}}, 2), std::nullopt);
  EXPECT_EQ(RecordBatchRowsOf({{key, ""}}, 0), Rows{});
}

}  // namespace quiver::ipc
