// The columns of a table that read_all(validate="lazy") returned: its
// batches were decoded at ValidationLevel::kMinimal (every buffer as large
// as the lengths need, nothing in them read), and each column is validated
// in full once, the first time anything asks for its values. PyTable is
// the only way to its columns, so nothing reaches an unchecked value.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "quiver/status.h"
#include "quiver/table.h"

namespace quiver::python {

class DeferredValidation {
 public:
  // `first_batch`: the file's or stream's index of the table's first
  // chunk (a stream may have handed out batches before read_all).
  DeferredValidation(int num_columns, int64_t first_batch);
  // Column c of `table` (the table this was made for) validated in full:
  // the outcome of the first check, every time (a failure is raised again
  // on every later use). Chunk K is named "record batch <first_batch + K>".
  // Called without the GIL.
  Status Column(const Table& table, int c);
  // Every column, in order: the first failure.
  Status All(const Table& table);

 private:
  std::mutex mutex_;  // one check at a time; the check itself is parallel
  std::vector<std::optional<Status>> outcome_;
  int64_t first_batch_;
};

}  // namespace quiver::python
