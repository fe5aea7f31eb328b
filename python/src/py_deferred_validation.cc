#include "py_deferred_validation.h"

namespace quiver::python {

DeferredValidation::DeferredValidation(int num_columns, int64_t first_batch)
    : outcome_(static_cast<size_t>(num_columns)), first_batch_(first_batch) {}

Status DeferredValidation::Column(const Table& table, int c) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Status>& outcome = outcome_[static_cast<size_t>(c)];
  if (!outcome) {
    outcome = table.ValidateColumn(c, ValidationLevel::kFull, 0, "record batch", first_batch_);
  }
  return *outcome;
}

Status DeferredValidation::All(const Table& table) {
  for (int c = 0; c < table.num_columns(); ++c) QUIVER_RETURN_NOT_OK(Column(table, c));
  return Status::OK();
}

}  // namespace quiver::python
