// Random access over many IPC files and streams (quiver/dataset.h).
#include "quiver/dataset.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "quiver/chunked_array.h"
#include "quiver/dataset/column_cache.h"
#include "quiver/dataset/fragment.h"
#include "quiver/dataset/schema_match.h"
#include "quiver/internal/threads.h"
#include "quiver/selection.h"

namespace quiver::dataset {

namespace {

// What a column that is a view of a mapped file costs the cache: its
// ArrayData, not its bytes (the kernel pages those in and out).
constexpr int64_t kViewCost = 256;

// The most rows a take may ask for and keep the compressed blocks it
// decodes (Dataset::Take).
constexpr size_t kKeepBlocksUpToRows = 8;

// What a dataset keeps of the compressed batches it read a few rows of
// (recent_blocks.h), a sliver of the cache each (256 KiB at least):
// decoded blocks, enough for rows read one after another to meet theirs
// again; block indexes, a few KiB per record batch, for thousands of
// batches.
std::unique_ptr<RecentBlocks> MakeRecentBlocks(int64_t cache_bytes) {
  const int64_t sliver = std::max<int64_t>(cache_bytes / 16, int64_t{256} << 10);
  return std::make_unique<RecentBlocks>(std::min<int64_t>(int64_t{4} << 20, sliver),
                                        std::min<int64_t>(int64_t{16} << 20, sliver));
}

}  // namespace

struct Dataset::Impl {
  DatasetOptions options;
  std::vector<std::string> locations;
  std::vector<std::unique_ptr<Fragment>> fragments;
  SchemaPtr schema;          // projected
  std::vector<int> columns;  // schema indices of the projection
  // Per record batch over all fragments: its fragment, its index there.
  std::vector<int> batch_fragment;
  std::vector<int> batch_local;
  std::vector<int64_t> starts{0};
  std::unique_ptr<ColumnCache> cache;
  // Blocks of compressed batches decoded for takes of a few rows.
  std::unique_ptr<RecentBlocks> recent;
  std::atomic<int64_t> bytes_decoded{0};
  uint64_t fork_generation = internal::ForkGeneration();

  Status SelectColumns(const Schema& full) {
    std::vector<Field> fields;
    if (options.columns.empty()) {
      for (size_t i = 0; i < full.fields.size(); ++i) columns.push_back(static_cast<int>(i));
    }
    for (const std::string& name : options.columns) {
      if (std::count(options.columns.begin(), options.columns.end(), name) > 1) {
        return Status::Invalid("column '", name, "' is asked for twice");
      }
      const auto found = std::find_if(full.fields.begin(), full.fields.end(),
                                      [&](const Field& field) { return field.name == name; });
      const int index = static_cast<int>(found - full.fields.begin());
      if (found == full.fields.end()) {
        std::string names;
        for (const Field& field : full.fields) names += (names.empty() ? "" : ", ") + field.name;
        return Status::Invalid("no column named '", name, "' (the columns: ", names, ")");
      }
      columns.push_back(index);
    }
    for (int index : columns) fields.push_back(full.fields[static_cast<size_t>(index)]);
    schema = std::make_shared<Schema>(Schema{std::move(fields), full.metadata});
    return Status::OK();
  }

  Status AddFragment(std::unique_ptr<Fragment> fragment) {
    if (!fragments.empty()) {
      QUIVER_RETURN_NOT_OK(CompareSchemas(*fragments[0]->schema(), *fragment->schema(),
                                          fragments[0]->location(), fragment->location()));
    }
    const int index = static_cast<int>(fragments.size());
    for (int k = 0; k < fragment->num_batches(); ++k) {
      const int64_t rows = fragment->batch_rows(k);
      if (rows > std::numeric_limits<int64_t>::max() - starts.back()) {
        return Status::Invalid("the dataset holds more than 2^63 rows");
      }
      if (rows == 0) continue;  // nothing to locate there
      batch_fragment.push_back(index);
      batch_local.push_back(k);
      starts.push_back(starts.back() + rows);
    }
    fragments.push_back(std::move(fragment));
    return Status::OK();
  }

  // A child forked from a process that used the dataset: a lock another
  // thread of the parent held stays held forever, so the cache (and its
  // lock) is left behind and replaced.
  void CheckFork() {
    if (fork_generation == internal::ForkGeneration()) return;
    fork_generation = internal::ForkGeneration();
    (void)cache.release();  // never destroyed: its mutex may be held
    cache = std::make_unique<ColumnCache>(options.cache_bytes);
    (void)recent.release();  // likewise
    recent = MakeRecentBlocks(options.cache_bytes);
    for (const auto& fragment : fragments) fragment->AfterFork();
  }

  Fragment& FragmentOf(int64_t k) const {
    return *fragments[static_cast<size_t>(batch_fragment[static_cast<size_t>(k)])];
  }

  // Whether a request for a few rows of record batch k should name them
  // (Columns' `rows`): its source copies what it reads (remote, pread), so
  // reading those rows alone saves bytes. A mapped file's rows are views
  // already: the list would be work for nothing.
  bool NamesRows(int64_t k) const { return FragmentOf(k).reads_rows(); }

  // The projected columns of record batch k, from the cache or decoded
  // (a compressed body's buffers on up to `decode_threads` threads). For a
  // request of `rows` (ascending local rows; empty: all; see NamesRows),
  // only those rows' bytes where Fragment::ReadRows can: the columns are
  // then not cached, and `*compact` says whether they hold those rows
  // alone, in order, rather than all the batch's rows.
  Result<std::vector<ArrayDataPtr>> Columns(int64_t k, int decode_threads,
                                            std::span<const int64_t> rows = {},
                                            bool* compact = nullptr, bool keep_blocks = true) {
    if (compact != nullptr) *compact = false;
    std::vector<ArrayDataPtr> out(columns.size());
    std::vector<int> missing;  // schema indices
    std::vector<size_t> slots;
    for (size_t j = 0; j < columns.size(); ++j) {
      std::optional<ArrayDataPtr> found = cache->Find({k, static_cast<int64_t>(j)});
      if (found) {
        out[j] = std::move(*found);
      } else {
        missing.push_back(columns[j]);
        slots.push_back(j);
      }
    }
    if (missing.empty()) return out;
    Fragment& fragment = FragmentOf(k);
    const int local = batch_local[static_cast<size_t>(k)];
    if (!rows.empty()) {
      QUIVER_ASSIGN_OR_RETURN(
          std::optional<Fragment::RowColumns> partial,
          fragment.ReadRows(local, missing, rows, options.validation, decode_threads,
                            cache->Full() ? recent.get() : nullptr, keep_blocks));
      if (partial && !partial->whole) {
        // Columns found in the cache hold all the batch's rows: cut to the
        // rows asked where the ones read hold those alone.
        for (size_t j = 0; partial->compact && j < out.size(); ++j) {
          if (!out[j]) continue;
          QUIVER_ASSIGN_OR_RETURN(out[j], quiver::Take(out[j], rows));
        }
        for (size_t i = 0; i < slots.size(); ++i) out[slots[i]] = std::move(partial->columns[i]);
        if (compact != nullptr) *compact = partial->compact;
        bytes_decoded.fetch_add(partial->decoded_bytes, std::memory_order_relaxed);
        return out;
      }
      if (partial) return Keep(k, slots, std::move(partial->columns), false, std::move(out));
    }
    bool views = false;
    QUIVER_ASSIGN_OR_RETURN(
        std::vector<ArrayDataPtr> decoded,
        fragment.ReadColumns(local, missing, options.validation, decode_threads, &views));
    return Keep(k, slots, std::move(decoded), views, std::move(out));
  }

  // Caches `decoded`, the columns `slots` of record batch k (views of a
  // mapped file or not), and puts them in their slots of `out`.
  std::vector<ArrayDataPtr> Keep(int64_t k, const std::vector<size_t>& slots,
                                 std::vector<ArrayDataPtr> decoded, bool views,
                                 std::vector<ArrayDataPtr> out) {
    int64_t decoded_bytes = 0;
    for (size_t i = 0; i < decoded.size(); ++i) {
      const int64_t bytes = ArrayBytes(*decoded[i]);
      decoded_bytes += bytes;
      cache->Insert({k, static_cast<int64_t>(slots[i])}, decoded[i], views ? kViewCost : bytes);
      out[slots[i]] = std::move(decoded[i]);
    }
    bytes_decoded.fetch_add(decoded_bytes, std::memory_order_relaxed);
    return out;
  }

  // Threads loading `batches` at once: remote sources wait on the
  // network, so up to 32 (the connections the process keeps); local compressed data decodes on
  // every core; a mapped file's uncompressed batch is views built in microseconds, less than
  // starting a thread costs, so it stays on the calling thread.
  int LoadThreads(const std::vector<int64_t>& batches) const {
    if (batches.size() < 2) return 1;
    bool remote = false, compressed = false;
    for (int64_t k : batches) {
      const Fragment& fragment = FragmentOf(k);
      remote = remote || io::IsRemoteLocation(fragment.location());
      compressed = compressed || fragment.compressed();
    }
    if (remote) return static_cast<int>(std::min<size_t>(batches.size(), 32));
    return compressed ? options.threads : 1;
  }

  int64_t BatchOf(int64_t row) const {
    return std::upper_bound(starts.begin(), starts.end(), row) - starts.begin() - 1;
  }

  Status CheckIndex(int64_t index, size_t position) const {
    if (index < 0 || index >= starts.back()) {
      return Status::IndexError("index ", index, " at position ", position,
                                " is out of range for a dataset of ", starts.back(), " rows");
    }
    return Status::OK();
  }
};

Dataset::Dataset(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Dataset::~Dataset() = default;

Result<std::shared_ptr<Dataset>> Dataset::Open(const std::vector<std::string>& sources,
                                               const DatasetOptions& options) {
  if (options.cache_bytes < 0) {
    return Status::Invalid("cache_bytes must be >= 0, not ", options.cache_bytes);
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  io::SourceOptions source_options;
  source_options.memory_map = options.memory_map;
  source_options.remote = options.remote;
  QUIVER_ASSIGN_OR_RETURN(impl->locations,
                          io::ExpandLocations(sources, DatasetExtensions(), source_options));
  ipc::ReadOptions read_options;
  read_options.validation = options.validation;
  read_options.threads = options.threads;
  for (const std::string& location : impl->locations) {
    QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<io::InputSource> source,
                            io::OpenSource(location, source_options));
    QUIVER_ASSIGN_OR_RETURN(std::unique_ptr<Fragment> fragment,
                            Fragment::Open(location, std::move(source), read_options));
    QUIVER_RETURN_NOT_OK(impl->AddFragment(std::move(fragment)));
  }
  QUIVER_RETURN_NOT_OK(impl->SelectColumns(*impl->fragments[0]->schema()));
  impl->cache = std::make_unique<ColumnCache>(options.cache_bytes);
  impl->recent = MakeRecentBlocks(options.cache_bytes);
  return std::shared_ptr<Dataset>(new Dataset(std::move(impl)));
}

const SchemaPtr& Dataset::schema() const { return impl_->schema; }
int64_t Dataset::num_rows() const { return impl_->starts.back(); }
int Dataset::num_record_batches() const { return static_cast<int>(impl_->batch_local.size()); }
const std::vector<std::string>& Dataset::locations() const { return impl_->locations; }

int64_t Dataset::record_batch_start(int k) const { return impl_->starts[static_cast<size_t>(k)]; }

bool Dataset::ReadsOnlyViews() {
  impl_->CheckFork();
  for (const auto& fragment : impl_->fragments) {
    if (!fragment->MapsUncompressed()) return false;
  }
  return true;
}

bool Dataset::IsMappedView(int k) const { return impl_->FragmentOf(k).reads_views(); }

std::string Dataset::DescribeRecordBatch(int k) const {
  return impl_->FragmentOf(k).location() + ": record batch " +
         std::to_string(impl_->batch_local[static_cast<size_t>(k)]);
}

Result<TablePtr> Dataset::Take(std::span<const int64_t> indices) {
  impl_->CheckFork();
  if (indices.empty()) return Slice(0, 0);
  // The record batches touched, in order, and each index's row among
  // their rows taken end to end.
  std::vector<int64_t> batches;
  batches.reserve(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    QUIVER_RETURN_NOT_OK(impl_->CheckIndex(indices[i], i));
    batches.push_back(impl_->BatchOf(indices[i]));
  }
  std::vector<int64_t> touched = batches;
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  // Each index's touched batch and row in it; per touched batch, its rows
  // (NamesRows).
  std::vector<size_t> batch_of(indices.size());
  std::vector<std::vector<int64_t>> rows(touched.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    batch_of[i] = std::lower_bound(touched.begin(), touched.end(), batches[i]) - touched.begin();
    if (impl_->NamesRows(batches[i])) {
      rows[batch_of[i]].push_back(indices[i] - impl_->starts[batches[i]]);
    }
  }
  for (std::vector<int64_t>& own : rows) {
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
  }
  // The compressed blocks decoded for a take of many rows are not kept:
  // rows drawn at random rarely meet a block again, and the copies cost
  // more than they save (a third of the time of shuffled 64-row
  // takes of an LZ4 file). One row after another (ds[i], take([i]) in
  // order) keeps them, and decodes each block once.
  const bool keep_blocks = indices.size() <= kKeepBlocksUpToRows;
  // Their columns, the batches read at once (remote sources in parallel).
  std::vector<std::vector<ArrayDataPtr>> loaded(touched.size());
  std::vector<char> compact(touched.size(), 0);
  const int threads = impl_->LoadThreads(touched);
  QUIVER_RETURN_NOT_OK(internal::ParallelTasks(
      static_cast<int64_t>(touched.size()), threads, [&](int64_t t) -> Status {
        const auto at = static_cast<size_t>(t);
        bool held_alone = false;
        QUIVER_ASSIGN_OR_RETURN(
            loaded[at], impl_->Columns(touched[at], threads > 1 ? 1 : impl_->options.threads,
                                       rows[at], &held_alone, keep_blocks));
        compact[at] = held_alone;
        return Status::OK();
      }));
  // Each index's row among the loaded chunks end to end: a chunk holds its
  // batch's rows, or (compact) the rows asked of it alone, in order.
  std::vector<int64_t> chunk_start(touched.size() + 1, 0);
  for (size_t t = 0; t < touched.size(); ++t) {
    const int64_t k = touched[t];
    chunk_start[t + 1] = chunk_start[t] + (compact[t] ? static_cast<int64_t>(rows[t].size())
                                                      : impl_->starts[k + 1] - impl_->starts[k]);
  }
  std::vector<int64_t> local(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const size_t t = batch_of[i];
    int64_t row = indices[i] - impl_->starts[batches[i]];
    if (compact[t]) row = std::lower_bound(rows[t].begin(), rows[t].end(), row) - rows[t].begin();
    local[i] = chunk_start[t] + row;
  }
  std::vector<ChunkedArrayPtr> out;
  for (size_t j = 0; j < impl_->columns.size(); ++j) {
    std::vector<ArrayDataPtr> chunks;
    for (const auto& batch : loaded) chunks.push_back(batch[j]);
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr taken, quiver::Take(chunks, local));
    QUIVER_ASSIGN_OR_RETURN(ChunkedArrayPtr column,
                            ChunkedArray::Make(impl_->schema->fields[j].type, {std::move(taken)}));
    out.push_back(std::move(column));
  }
  return Table::Make(impl_->schema, std::move(out), static_cast<int64_t>(indices.size()));
}

Result<TablePtr> Dataset::Slice(int64_t offset, int64_t length) {
  impl_->CheckFork();
  const int64_t rows = num_rows();
  if (offset < 0 || length < 0 || offset > rows || length > rows - offset) {
    return Status::IndexError("rows [", offset, ", ", offset, " + ", length,
                              ") lie outside a dataset of ", rows, " rows");
  }
  std::vector<std::vector<ArrayDataPtr>> chunks(impl_->columns.size());
  for (int64_t row = offset; row < offset + length;) {
    const int64_t k = impl_->BatchOf(row);
    const int64_t begin = row - impl_->starts[k];
    const int64_t take = std::min(impl_->starts[k + 1], offset + length) - row;
    // A few rows of a batch (ds[i] is a one-row slice): those rows alone
    // where Columns can read them so; the views below cover only them.
    std::vector<int64_t> few;
    if (2 * take <= impl_->starts[k + 1] - impl_->starts[k] && impl_->NamesRows(k)) {
      for (int64_t r = begin; r < begin + take; ++r) few.push_back(r);
    }
    bool compact = false;  // the columns hold the rows of `few` alone
    QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> columns,
                            impl_->Columns(k, impl_->options.threads, few, &compact));
    for (size_t j = 0; j < columns.size(); ++j) {
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr piece,
                              quiver::Slice(columns[j], compact ? 0 : begin, take));
      chunks[j].push_back(std::move(piece));
    }
    row += take;
  }
  std::vector<ChunkedArrayPtr> out;
  for (size_t j = 0; j < chunks.size(); ++j) {
    QUIVER_ASSIGN_OR_RETURN(
        ChunkedArrayPtr column,
        ChunkedArray::Make(impl_->schema->fields[j].type, std::move(chunks[j])));
    out.push_back(std::move(column));
  }
  return Table::Make(impl_->schema, std::move(out), length);
}

Result<RecordBatchPtr> Dataset::ReadRecordBatch(int k) {
  impl_->CheckFork();
  if (k < 0 || k >= num_record_batches()) {
    return Status::IndexError("record batch ", k, " is out of range for ", num_record_batches(),
                              " record batches");
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> columns,
                          impl_->Columns(k, impl_->options.threads));
  return RecordBatch::Make(impl_->schema, impl_->starts[k + 1] - impl_->starts[k],
                           std::move(columns), ValidationLevel::kMinimal);
}

Status Dataset::Warm(std::span<const int64_t> record_batches) {
  impl_->CheckFork();
  if (impl_->columns.empty()) return Status::OK();
  std::vector<int64_t> missing;
  for (int64_t k : record_batches) {
    if (k < 0 || k >= num_record_batches()) {
      return Status::IndexError("record batch ", k, " is out of range for ", num_record_batches(),
                                " record batches");
    }
    if (impl_->FragmentOf(k).reads_views()) continue;  // nothing to decode
    // Columns of a batch are decoded and kept together: the first stands
    // for them all.
    if (!impl_->cache->Contains({k, 0})) missing.push_back(k);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  const int threads = impl_->LoadThreads(missing);
  return internal::ParallelTasks(
      static_cast<int64_t>(missing.size()), threads, [&](int64_t t) -> Status {
        return impl_
            ->Columns(missing[static_cast<size_t>(t)], threads > 1 ? 1 : impl_->options.threads)
            .status();
      });
}

int64_t Dataset::WarmBudget() const {
  constexpr int64_t kBeforeAny = 4;
  constexpr int64_t kMost = 64;  // twice the connections remote reads use
  const CacheStats stats = cache_stats();
  const auto columns = std::max<int64_t>(1, static_cast<int64_t>(impl_->columns.size()));
  const int64_t decoded = stats.misses / columns;
  if (decoded == 0 || stats.bytes_decoded == 0) return kBeforeAny;
  const int64_t per_batch = std::max<int64_t>(1, stats.bytes_decoded / decoded);
  return std::clamp<int64_t>(impl_->options.cache_bytes / 4 / per_batch, 1, kMost);
}

CacheStats Dataset::cache_stats() const {
  impl_->CheckFork();
  const ColumnCacheCounts counts = impl_->cache->counts();
  CacheStats out;
  out.hits = counts.hits;
  out.misses = counts.misses;
  out.evictions = counts.evictions;
  out.bytes_cached = counts.bytes;
  out.bytes_decoded = impl_->bytes_decoded.load(std::memory_order_relaxed);
  for (const auto& fragment : impl_->fragments) {
    const io::IoStats io = fragment->stats();
    out.bytes_fetched += io.bytes_fetched;
    out.requests += io.requests;
  }
  return out;
}

}  // namespace quiver::dataset
