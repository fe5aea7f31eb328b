#include "quiver/data/dictionary_check.h"

#include <algorithm>

#include "quiver/internal/threads.h"
#include "quiver/record_batch.h"

namespace quiver::data {

void DictionaryCheck::SetReference(int position, ArrayDataPtr dictionary) {
  std::lock_guard<std::mutex> lock(*mutex_);
  reference_[position] = std::move(dictionary);
}

ArrayDataPtr DictionaryCheck::Reference(int position) const {
  std::lock_guard<std::mutex> lock(*mutex_);
  const auto found = reference_.find(position);
  return found == reference_.end() ? nullptr : found->second;
}

Status DictionaryCheck::Check(int position, const ArrayDataPtr& dictionary,
                              const std::string& where) {
  std::lock_guard<std::mutex> lock(*mutex_);
  const auto found = reference_.find(position);
  if (found == reference_.end() || found->second == dictionary) return Status::OK();
  std::vector<ArrayDataPtr>& equal = equal_[position];
  if (std::find(equal.begin(), equal.end(), dictionary) != equal.end()) return Status::OK();
  if (!dictionary || !found->second || !ArrayEquals(*found->second, *dictionary)) {
    return Status::Invalid(where,
                           " has another dictionary than the first record batch: its "
                           "indices would read other values (write one dictionary for the whole "
                           "dataset, or decode the column first)");
  }
  if (equal.size() >= kKeptEqual) equal.erase(equal.begin());
  equal.push_back(dictionary);
  return Status::OK();
}

void DictionaryCheck::AfterFork() { internal::ReplaceIfHeldAtFork(mutex_); }

}  // namespace quiver::data
