// What `quiver inspect` gathers from the record batches of an IPC file or
// stream, read from each batch's layout (ipc::BatchLayout) and, for
// variable-shape tensors, from their validity bitmaps and shape buffers
// alone: tensor values are never read, compressed or not (docs/cli.md,
// "inspect").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/ipc.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::tools {

// Per logical axis of a variable-shape tensor field: min, max and how many
// rows have each size, over the non-null rows of every batch.
struct AxisStats {
  int64_t min = 0;
  int64_t max = 0;
  std::unordered_map<int64_t, int64_t> counts;
};

// One entry of inspect's column list: a top-level column, or a tensor
// field nested inside one (through structs, lists and other containers).
struct ColumnSummary {
  std::string name;  // "image"; nested: "sample.image", "clips[]", "clips[].frame"
  // The field names from the top-level column down ("[]" for the elements
  // of a list, map or list view): {"clips", "[]", "frame"}.
  std::vector<std::string> path;
  bool nested = false;
  // Inside a list, map, list view, union or run-end encoded column: the
  // counts are over the field's element slots, not over rows.
  bool in_list = false;
  const Field* field = nullptr;  // as the reader's schema() shows it
  int column = 0;                // the top-level column it is in
  std::vector<size_t> children;  // child indexes from that column down
  std::optional<FixedShapeTensorType> fixed;
  std::optional<VariableShapeTensorType> variable;
  int64_t null_count = 0;
  int64_t bytes = 0;         // buffers' bytes once decompressed
  int64_t stored_bytes = 0;  // buffers' bytes as stored in the bodies
  int64_t rows_with_shape = 0;
  std::vector<AxisStats> axes;
  Status problem;  // the first problem met summarising this entry
};

// The entries for `schema` (a reader's schema()): every top-level column
// in order, each followed by the tensor fields nested in it (pre-order).
std::vector<ColumnSummary> PlanColumns(const Schema& schema);

// One record batch's body, as a reader hands it out.
struct BatchBody {
  const ipc::BatchLayout* layout = nullptr;
  std::function<Result<BufferPtr>(int64_t)> read;                 // ReadBodyBuffer
  std::function<Result<ipc::BodyBufferSize>(int64_t)> read_size;  // ReadBodyBufferSize
  ipc::Endianness endianness = ipc::Endianness::kLittle;
};

// Adds one batch to every entry. Sets *compressed when a buffer of the
// batch is stored compressed. Problems with single buffers or entries go
// to the entry's `problem`; the layout itself was checked by the reader.
void AddBatch(std::vector<ColumnSummary>& columns, const BatchBody& body, bool* compressed);

}  // namespace quiver::tools
