// The check that a dictionary column's record batches share one
// dictionary: the same object or equal values pass (equal ones are
// remembered), other values fail naming the place, a column without a
// reference passes, and a forked child's lock is usable.
#include "quiver/data/dictionary_check.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace quiver::data {
namespace {

ArrayDataPtr Words(const std::vector<std::string>& words) {
  return test::Utf8(std::vector<std::optional<std::string>>(words.begin(), words.end()));
}

TEST(DictionaryCheck, TheSameOrEqualDictionariesPassOthersFailNamed) {
  DictionaryCheck check;
  const ArrayDataPtr reference = Words({"cat", "dog"});
  check.SetReference(1, reference);
  EXPECT_EQ(check.Reference(1), reference);
  EXPECT_EQ(check.Reference(0), nullptr);
  ASSERT_OK(check.Check(1, reference, "here"));
  ASSERT_OK(check.Check(1, Words({"cat", "dog"}), "here"));  // equal values
  EXPECT_ERROR(kInvalid, "b.arrow: record batch 3, column 'label' has another dictionary",
               check.Check(1, Words({"cat", "eel"}), "b.arrow: record batch 3, column 'label'"));
  EXPECT_ERROR(kInvalid, "has another dictionary", check.Check(1, nullptr, "x"));
  ASSERT_OK(check.Check(0, Words({"anything"}), "no reference for column 0"));
}

TEST(DictionaryCheck, EqualDictionariesAreComparedOnceAndKeptBounded) {
  DictionaryCheck check;
  check.SetReference(0, Words({"a", "b", "c"}));
  std::vector<ArrayDataPtr> copies;
  for (int i = 0; i < 100; ++i) {
    copies.push_back(Words({"a", "b", "c"}));
    ASSERT_OK(check.Check(0, copies.back(), "x"));
  }
  for (const ArrayDataPtr& copy : copies) ASSERT_OK(check.Check(0, copy, "x"));
}

TEST(DictionaryCheck, AfterForkTheCheckStillWorks) {
  DictionaryCheck check;
  check.SetReference(0, Words({"a"}));
  check.AfterFork();  // the lock was free: kept
  ASSERT_OK(check.Check(0, Words({"a"}), "x"));
  EXPECT_ERROR(kInvalid, "another dictionary", check.Check(0, Words({"b"}), "x"));
}

}  // namespace
}  // namespace quiver::data
