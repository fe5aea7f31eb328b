// The training input pipeline: batches of rows read from whatever
// quiver::dataset::Dataset opens (IPC files and streams, directories,
// globs, http(s):// and s3:// objects, compressed or not), in a seeded
// per-epoch order, gathered straight into batch buffers (docs/loader.md).
//
// The sources must share one schema. Local files are memory-mapped (or
// read with pread); compressed, remote and pread-read record batches are
// decoded into the dataset's cache, bounded by cache_bytes. Each epoch the
// reader orders the rows of every source (in order, a seeded permutation
// of all of them, or record batches shuffled then rows shuffled within
// windows), computing each batch's rows when it is read (the plan holds
// O(record batches), not O(rows)),
// keeps the rows of its shard, optionally groups rows of similar size
// within windows of batches (bucketing), cuts the order into batches and
// copies each batch's rows into buffers of their own:
//
// - numeric and bool columns: one 1-D tensor of batch_size values (bool as
//   bool8: one byte per value); dictionary columns: their indices (the
//   dictionary once: Dictionary());
// - fixed_size_list<numeric, k>: (B, k);
// - list<numeric> and large_list<numeric>: ragged 1-D rows, as
//   variable_shape_tensor columns of ndim 1 (below);
// - utf8 and binary (and large): the rows' bytes back to back with int64
//   offsets (BatchArray::strings);
// - struct columns: one column per field, named "parent.child";
// - any other type: the rows as one array of the column's type
//   (BatchArray::objects; Python turns them into objects);
// - arrow.fixed_shape_tensor columns: (B, *shape) in logical axis order;
// - arrow.variable_shape_tensor columns, by RaggedLayout:
//   kPadded  "name" (B, *max_shape_in_batch) filled with pad_value, and
//            "name_shape" (B, ndim) int32 logical shapes;
//   kJagged  "name" (total elements,) every row's elements back to back in
//            storage (physical) order, "name_offsets" (B + 1,) int64 element
//            offsets from 0, "name_shape" (B, ndim) int32 physical shapes;
//   kList    one zero-copy view per row (into the mapped file).
// Null rows come out as zeros (padding and zero shapes in ragged columns;
// null list rows are nullopt).
//
// Ownership: every tensor of a batch owns its buffer (shared); a batch
// stays valid whatever the reader does next. Buffers come from a ring the
// reader keeps (prefetch + 2 per output array): a buffer is written again
// only once nothing outside the ring references it, so a consumer that
// holds on to a batch makes the reader allocate instead, never overwrite.
//
// Errors: Open checks the sources, schemas and options (Invalid, TypeError,
// IOError naming the file, the column or the option). A record batch is read
// and validated the first time a batch touches it: a corrupt one fails that
// batch with an error naming the batch, the file and the record batch, and
// the epoch ends there. Nothing reachable from file contents aborts.
// Memory-mapped files must not be truncated by others while read (see
// quiver/ipc.h, OpenFileSource); BatchReaderOptions::memory_map = false
// reads them instead.
//
// Fork: a reader works in a process forked from the one that made it
// (a DataLoader worker), whatever it did before: the child notices the
// fork at its next call, leaves the parent's prefetch thread and the locks
// it may have held behind, and prepares batches on threads of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/dataset.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::data {

// The order of the rows in an epoch.
enum class Shuffle {
  kNone,    // file by file, row by row
  kGlobal,  // a permutation of every row of every file
  // Record batches in a permuted order, then rows permuted within
  // consecutive windows of window_rows rows: each window touches only a few
  // record batches, for datasets much larger than memory.
  kWindow,
};

enum class RaggedLayout { kPadded, kJagged, kList };

struct BatchReaderOptions {
  // The columns to read, in this order (empty: every column of the schema).
  std::vector<std::string> columns;
  // Rows per batch, > 0.
  int64_t batch_size = 0;
  Shuffle shuffle = Shuffle::kNone;
  // The order of epoch e depends on (seed, e) and the record batches'
  // row counts only: the same gives the same order on every platform,
  // whatever the thread count (a Feistel permutation with cycle-walking
  // for the global shuffle; SplitMix64 and Fisher-Yates for the window
  // shuffle's record batch order; see docs/loader.md).
  uint64_t seed = 0;
  // kWindow only: rows per shuffle window, > 0. 0: as many rows as half
  // of cache_bytes holds (by the decoded size of the first record batch's
  // rows) where record batches are decoded (compressed, remote, pread), so
  // that each is decoded once per window; 64 batches for mapped files.
  int64_t window_rows = 0;
  // Leave out the last, short batch; with world_size > 1 every shard then
  // has the same number of rows (total / world_size) and batches.
  bool drop_last = false;
  // This reader's shard: rows rank, rank + world_size, ... of the epoch
  // order; the shards of one epoch are disjoint and together hold every row
  // (every row but up to world_size - 1 with drop_last).
  int rank = 0;
  int world_size = 1;
  RaggedLayout ragged = RaggedLayout::kPadded;
  // Padding for kPadded; must be exactly representable in every padded
  // column's value type.
  PadValue pad_value = 0;
  // Columns (as named in the batch's schema, "parent.child" for a
  // struct's field) that also get a "NAME_valid" bool8 (B,) array: 1 for
  // the rows that are not null (null rows read as zeros, padding, empty).
  std::vector<std::string> valid_masks;
  // A variable_shape_tensor column to bucket by (empty: none): the shard's
  // order is cut into windows of bucket_window batches, the rows of each
  // window sorted by element count (stable) before they are cut into
  // batches, and (when shuffling) the batches of a window shuffled.
  std::string bucket_by;
  int64_t bucket_window = 0;  // > 0 when bucket_by is set
  // Batches prepared ahead on a background thread (0: each batch is read
  // when asked for, on the calling thread).
  int prefetch = 2;
  // Threads copying the rows of one batch (0: one per core).
  int threads = 0;
  // How far each record batch is checked the first time it is read.
  ValidationLevel validation = ValidationLevel::kFull;
  // true: local files are memory-mapped (zero-copy; a file truncated
  // while the reader is open kills the process with SIGBUS when a batch
  // touches the lost pages). false: they are read with pread into memory
  // of their own, so a truncated or rewritten file is an IOError naming
  // it. Remote sources are always read into memory of their own.
  bool memory_map = true;
  // Bytes of decoded record batch columns kept between batches (the
  // dataset's cache, quiver/dataset.h): a compressed, remote or
  // pread-read record batch is decoded once while it stays cached.
  int64_t cache_bytes = int64_t{256} << 20;
  // The most bytes one batch's arrays may take, > 0: a batch that would
  // need more (padding a few very differently shaped rows to their common
  // largest shape) fails with Invalid naming the rows and their shapes
  // instead of allocating it.
  int64_t max_batch_bytes = int64_t{4} << 30;
  // Where batch buffers come from (bytes -> buffer of at least that many
  // writable bytes); unset: ordinary owned buffers. A pinned-memory
  // allocator goes here.
  std::function<Result<BufferPtr>(int64_t)> allocate;
  // Called before a kept buffer is written again, when set. Memory that a
  // device may still be reading after its consumer let go (an asynchronous
  // host-to-device copy from pinned memory is queued, not done) needs it:
  // the pinned allocator of the Python package waits for the device here.
  // An error fails the batch being assembled.
  std::function<Status()> before_reuse;
};

// One output array of a batch.
struct BatchArray {
  std::string name;
  // The array (unset for kList columns; the rows' bytes for strings).
  Tensor tensor;
  // kList columns only: one view per row, nullopt for null rows.
  std::vector<std::optional<Tensor>> rows;
  bool is_list = false;
  // String and binary columns: `tensor` holds the rows' bytes back to
  // back (uint8), `offsets` (B + 1, int64, from 0) where each row starts,
  // and `valid` a 1 per non-null row (null rows are empty).
  enum class Strings { kNone, kUtf8, kBinary };
  Strings strings = Strings::kNone;
  Tensor offsets;
  std::vector<uint8_t> valid;
  // Columns of any other type (lists of strings, nested lists, maps,
  // unions, decimals, ...): the batch's rows as one array of the column's
  // type (a copy), `valid` saying which rows are not null.
  ArrayDataPtr objects;
};

struct Batch {
  int64_t index = 0;     // batch number within the epoch (and shard)
  int64_t num_rows = 0;  // batch_size, or fewer for the last batch
  // The dataset rows in the batch, in batch order (global row numbers:
  // the rows of the first file first).
  std::vector<int64_t> rows;
  std::vector<BatchArray> arrays;
  // Elements written into kPadded ragged outputs, and how many of them are
  // padding.
  int64_t padded_elements = 0;
  int64_t padding_elements = 0;
  // The array named `name`, or nullptr.
  const BatchArray* Find(const std::string& name) const;
};

class BatchReader {
 public:
  // `sources`: what dataset::Dataset::Open reads (files, directories,
  // globs, IPC streams, http(s):// and s3:// locations). Indexes them
  // (footers, or a stream's message headers); the record batches
  // themselves are read and validated on first use.
  static Result<std::unique_ptr<BatchReader>> Open(std::vector<std::string> sources,
                                                   BatchReaderOptions options);
  ~BatchReader();
  BatchReader(const BatchReader&) = delete;
  BatchReader& operator=(const BatchReader&) = delete;

  // The objects read, in row order.
  const std::vector<std::string>& files() const;
  // The columns read, in the order asked for.
  const SchemaPtr& schema() const;
  // Rows in all files.
  int64_t num_rows() const;
  // Rows and batches this shard reads per epoch (the same every epoch).
  int64_t shard_rows() const;
  int64_t num_batches() const;
  // The names of the arrays each batch holds, in order.
  std::vector<std::string> output_names() const;
  // The dictionary of dictionary column `name` (its batches hold indices
  // into it): the first record batch's. Every record batch must use an
  // equal one; a batch with rows of another fails naming it. Invalid for
  // a column that is not dictionary-encoded.
  Result<ArrayDataPtr> Dictionary(const std::string& name);

  // Starts epoch `epoch` (>= 0) at batch `position` (0 <= position <=
  // num_batches(): the batches Next() has already given out, as a saved
  // state says); batches prepared ahead for the previous one are dropped,
  // and its plan released before the new one is made. Readers start at
  // epoch 0, position 0.
  Status SetEpoch(int64_t epoch, int64_t position = 0);
  int64_t epoch() const;
  // Batches Next() has given out in this epoch.
  int64_t position() const;
  // A digest of what the order of rows depends on besides the epoch (the
  // record batches' row counts, shuffle, seed, window, shard, batch size,
  // drop_last, bucketing): two readers with equal keys give the same
  // batches for the same epoch. Saved states carry it.
  uint64_t order_key() const;
  // The next batch of the epoch, or nullopt after the last one (until
  // SetEpoch). After an error every later call returns it again.
  Result<std::optional<Batch>> Next();
  // Batch i of the current epoch, read now on the calling thread (no
  // prefetch).
  Result<Batch> ReadBatch(int64_t i);
  // The shard's rows in epoch order, batch after batch (computed: O(rows)).
  Result<std::vector<int64_t>> EpochRows();
  // A batch of the given global rows (any order, repeats allowed), read
  // now on the calling thread: map-style access with the same arrays as
  // Next(). IndexError naming the position of a row out of range.
  Result<Batch> ReadRows(std::span<const int64_t> rows);
  // What the dataset's cache did and what the sources read so far.
  dataset::CacheStats stats() const;
  // Bytes the current epoch's plan holds.
  int64_t plan_bytes() const;
  // Padding elements / padded elements over the batches Next() returned
  // since the epoch started (0 with nothing padded).
  double padding_ratio() const;

 private:
  struct Impl;
  explicit BatchReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::data
