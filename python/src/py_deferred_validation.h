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
  explicit DeferredValidation(int num_columns);
  // Column c of `table` (the table this was made for) validated in full:
  // the outcome of the first check, every time (a failure is raised again
  // on every later use). Chunk K is named "record batch K", as read_all
  // made it. Called without the GIL.
  Status Column(const Table& table, int c);
  // Every column, in order: the first failure.
  Status All(const Table& table);

 private:
  std::mutex mutex_;  // one check at a time; the check itself is parallel
  std::vector<std::optional<Status>> outcome_;
};

}  // namespace quiver::python
