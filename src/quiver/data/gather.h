// Internal: copying a batch's rows of one column, wherever they live
// (any record batch of any file), straight into the batch's output
// buffers. gather.cc plans columns and gathers scalar and fixed-shape
// ones; ragged_gather.cc the variable-shape ones.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "quiver/data.h"
#include "quiver/data/batch_source.h"
#include "quiver/data/buffer_pool.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::data {

enum class ColumnKind {
  kValues,   // fixed-width numeric or bool8 values
  kBits,     // bit-packed bool, unpacked to bool8
  kFixed,    // arrow.fixed_shape_tensor, or fixed_size_list<numeric>
  kRagged,   // arrow.variable_shape_tensor, or list / large_list<numeric> (ndim 1)
  kStrings,  // utf8, binary and their large forms: bytes and offsets
  kObjects,  // any other type: the rows taken into one array (BatchArray::objects)
};

// How one selected column is read, decided once from its field.
struct ColumnPlan {
  std::string name;
  int position = 0;  // among the columns read (LoadedBatch's columns)
  ColumnKind kind = ColumnKind::kValues;
  TypePtr value_type;  // of the output elements
  int64_t width = 0;   // bytes per output element
  // kFixed: the physical cell shape, its permutation (empty: none) and the
  // logical cell shape the output has.
  std::vector<int64_t> physical_cell;
  std::vector<int64_t> permutation;
  std::vector<int64_t> logical_cell;
  int64_t cell_elements = 0;
  // kRagged: axes per row, and pad_value's bits (internal::PadPattern).
  // `list`: a plain list / large_list column (rows are 1-D slices of its
  // values), `large` for int64 offsets (also for kStrings).
  int ndim = 0;
  uint64_t pad_pattern = 0;
  bool list = false;
  bool large = false;
  // kStrings: utf8 (text) rather than binary.
  bool utf8 = false;
  // kValues over a dictionary column's indices (value_type the index type).
  bool dictionary = false;
  // A "NAME_valid" bool8 (B,) array follows the column's arrays
  // (BatchReaderOptions::valid_masks).
  bool valid_mask = false;
};

// The plan for `field` (every type reads: those without an array form of
// their own as kObjects), NotImplemented for bit-packed bool tensors,
// Invalid for a pad_value the values cannot hold.
Result<ColumnPlan> PlanColumn(const Field& field, int position, const BatchReaderOptions& options);

// The names of the arrays a column adds to each batch.
std::vector<std::string> OutputNames(const ColumnPlan& plan, RaggedLayout ragged);

// One row of a batch: its record batch and the row within it.
struct RowRef {
  const LoadedBatch* batch = nullptr;
  int record_batch = 0;  // over all sources (BatchSource numbering)
  int64_t row = 0;
};

struct GatherContext {
  BufferPool* pool = nullptr;
  int threads = 0;
  RaggedLayout ragged = RaggedLayout::kPadded;
  // BatchReaderOptions::max_batch_bytes, and the bytes the batch's arrays
  // made so far take (counted by MakeOutput).
  int64_t max_batch_bytes = INT64_MAX;
  int64_t* batch_bytes = nullptr;
  // The arrays MakeOutput made for the batch so far: the next one's number
  // in the pool, which keeps a ring of buffers for each array.
  int64_t* arrays_made = nullptr;
  // Where a row lives, for error messages ("file a.arrow, record batch 2,
  // row 7").
  std::function<std::string(const RowRef&)> describe;
};

// Appends the column's arrays for `rows` to batch->arrays (and, for padded
// ragged columns, adds to batch->padded_elements / padding_elements).
// Errors name the row through context.describe.
Status GatherColumn(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch);

// The ragged half of GatherColumn (ragged_gather.cc).
Status GatherRagged(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch);

// Row `row` of a list-like column (list, large_list, utf8, binary and the
// large forms): its [begin, end) among the values (elements, or bytes),
// checked against the offsets buffer's and the values' bounds whatever
// level the column was validated at. Invalid naming the row otherwise.
Result<std::pair<int64_t, int64_t>> ListRowRange(const ArrayData& column, int64_t row, bool large,
                                                 int64_t values_length);

// A tensor of `shape` and `type` over a buffer from the context's pool
// (contents undefined: the caller writes every byte), counted against
// context.max_batch_bytes: Invalid when the batch would exceed it.
Result<Tensor> MakeOutput(const GatherContext& context, Dims shape, const TypePtr& type);

// Whether `bytes` more would take the batch past context.max_batch_bytes.
bool ExceedsBatchBytes(const GatherContext& context, int64_t bytes);

// Rows per thread so that each copies at least a few hundred KiB.
int64_t MinRowsPerThread(int64_t bytes_per_row);

}  // namespace quiver::data
