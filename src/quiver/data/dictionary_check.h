// Internal: a dictionary column's batches hold indices into one
// dictionary, given once (BatchReader::Dictionary): every record batch a
// batch's rows come from must use a dictionary equal to the reference one
// (the first record batch's), or the indices would mean other values.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/status.h"

namespace quiver::data {

class DictionaryCheck {
 public:
  // Column `position`'s dictionary, that others are compared with.
  void SetReference(int position, ArrayDataPtr dictionary);
  // Null when column `position` has no reference.
  ArrayDataPtr Reference(int position) const;
  // OK when `dictionary` equals column `position`'s reference (the same
  // object, or equal values: remembered, so each is compared once);
  // Invalid naming `where` otherwise. Safe from several threads.
  Status Check(int position, const ArrayDataPtr& dictionary, const std::string& where);
  // In a forked child: the lock a thread of the parent held is replaced.
  void AfterFork();

 private:
  // Dictionaries found equal kept per column, at most this many (a source
  // decoded again makes a new one; beyond it they are compared again).
  static constexpr size_t kKeptEqual = 64;

  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
  std::map<int, ArrayDataPtr> reference_;
  std::map<int, std::vector<ArrayDataPtr>> equal_;
};

}  // namespace quiver::data
