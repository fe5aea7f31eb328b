// ChunkedArray: one column as arrays of one type in order (a table's
// column, an IPC file's column across its record batches).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "quiver/array.h"
#include "quiver/row_mask.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver {

class ChunkedArray;
using ChunkedArrayPtr = std::shared_ptr<const ChunkedArray>;

class ChunkedArray {
 public:
  // Every chunk must be of `type` (TypeError naming the first that is
  // not). Chunks are taken as they are: validate them first when they came
  // from elsewhere. No chunks at all is an empty column.
  static Result<ChunkedArrayPtr> Make(TypePtr type, std::vector<ArrayDataPtr> chunks);

  const TypePtr& type() const { return type_; }
  const std::vector<ArrayDataPtr>& chunks() const { return chunks_; }
  int num_chunks() const { return static_cast<int>(chunks_.size()); }
  const ArrayDataPtr& chunk(int i) const { return chunks_[static_cast<size_t>(i)]; }
  // Rows across all chunks.
  int64_t length() const { return length_; }
  int64_t null_count() const;

  // Rows [offset, offset + length), sharing the chunks' buffers; the
  // chunks it crosses stay separate. IndexError outside [0, length()].
  Result<ChunkedArrayPtr> Slice(int64_t offset, int64_t length) const;
  // All rows as one array: the chunk itself when there is one (no copy),
  // an empty array without chunks, else a copy joining them
  // (quiver::Concatenate).
  Result<ArrayDataPtr> Combine() const;
  // Rows `indices` (across chunks) as one chunk: a zero-copy slice when
  // they are consecutive rows of one chunk, a copy otherwise. IndexError
  // for an index outside [0, length()).
  Result<ChunkedArrayPtr> Take(std::span<const int64_t> indices) const;
  // The rows whose mask byte is non-zero (that the RowMask keeps), as one
  // chunk (as Take).
  Result<ChunkedArrayPtr> Filter(std::span<const uint8_t> mask) const;
  Result<ChunkedArrayPtr> Filter(const RowMask& mask) const;

  // Every chunk validated at `level` (quiver::Validate), on up to
  // `threads` threads at once (0: one per core). On failure, the lowest
  // failing chunk's error, after "<chunk_name> <first_number + K>: "
  // ("record batch 3: row 5: ..." for a table read from IPC, whose chunk K
  // is the batch first_number + K of its file or stream).
  Status Validate(ValidationLevel level = ValidationLevel::kFull, int threads = 0,
                  const std::string& chunk_name = "chunk", int64_t first_number = 0) const;

  // Same type and equal values, wherever the chunk boundaries fall.
  bool Equals(const ChunkedArray& other) const;

 private:
  ChunkedArray(TypePtr type, std::vector<ArrayDataPtr> chunks);

  TypePtr type_;
  std::vector<ArrayDataPtr> chunks_;
  int64_t length_ = 0;
};

}  // namespace quiver
