// BatchReader: the epoch's plan, the gather of each batch, and the
// background thread that prepares batches ahead of the consumer.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>

#include "quiver/data.h"
#include "quiver/data/batch_source.h"
#include "quiver/data/buffer_pool.h"
#include "quiver/data/dictionary_check.h"
#include "quiver/data/epoch_plan.h"
#include "quiver/data/gather.h"
#include "quiver/data/read_ahead.h"
#include "quiver/internal/threads.h"
#include "quiver/internal/without_throwing.h"

namespace quiver::data {

namespace {

Status InBatch(int64_t index, const Status& status) {
  return Status(status.code(), "batch " + std::to_string(index) + ": " + status.message());
}

// Element counts per global row of a ragged column (0 for null rows):
// a variable_shape_tensor's shape products, a list's lengths.
Result<std::vector<int64_t>> RowSizes(BatchSource& dataset, const ColumnPlan& plan) {
  std::vector<int64_t> sizes(static_cast<size_t>(dataset.num_rows()), 0);
  for (int k = 0; k < dataset.num_record_batches(); ++k) {
    QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<const LoadedBatch> loaded, dataset.Load(k));
    const int64_t start = dataset.record_batch_start(k);
    const int64_t rows = dataset.record_batch_rows(k);
    const ArrayData& column = *loaded->batch->column(plan.position);
    std::optional<Tensor> shapes;
    if (!plan.list) {
      QUIVER_ASSIGN_OR_RETURN(shapes, loaded->ragged[plan.position]->Shapes());
    }
    for (int64_t i = 0; i < rows; ++i) {
      if (!loaded->RowValid(plan.position, i)) continue;
      int64_t size = 1;
      if (plan.list) {
        QUIVER_ASSIGN_OR_RETURN(auto range,
                                ListRowRange(column, i, plan.large, column.children[0]->length));
        size = range.second - range.first;
      } else {
        // Sizes were checked against the values, so the product fits.
        const auto* entries = reinterpret_cast<const int32_t*>(shapes->raw_data());
        for (int64_t a = 0; a < plan.ndim; ++a) size *= entries[i * plan.ndim + a];
      }
      sizes[static_cast<size_t>(start + i)] = size;
    }
  }
  return sizes;
}

// The window of a window shuffle left at 0 over record batches that must
// be decoded (compressed, remote, pread): as many rows as half the cache
// holds, by the decoded bytes per row of the first record batch (read
// here), so that each record batch is decoded once per window. 0 (the
// plan's default of 64 batches) for mapped files, whose views cost the
// cache nothing. A function of the data, not of timing: the same for
// every rank and run.
Result<int64_t> CacheWindowRows(BatchSource& source, const BatchReaderOptions& options) {
  if (options.shuffle != Shuffle::kWindow || options.window_rows != 0 ||
      source.num_record_batches() == 0) {
    return options.window_rows;
  }
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<const LoadedBatch> first, source.Load(0));
  if (source.IsMappedView(0)) return int64_t{0};
  int64_t bytes = 0;
  for (const ArrayDataPtr& column : first->batch->columns()) {
    Result<int64_t> used = ReferencedBytes(*column);
    if (used.ok()) bytes += *used;
  }
  const int64_t rows = source.record_batch_rows(0);
  const int64_t per_row = std::max<int64_t>(1, bytes / rows);
  // At least the first record batch's rows: a window smaller than a record
  // batch would only shuffle the record batches' order.
  return std::max<int64_t>(rows, options.cache_bytes / 2 / per_row);
}

}  // namespace

const BatchArray* Batch::Find(const std::string& name) const {
  for (const BatchArray& array : arrays) {
    if (array.name == name) return &array;
  }
  return nullptr;
}

// What the reader shares with its prefetch thread. In a process forked
// while the thread ran, the thread is gone and may have left the lock held
// or the queue half changed: the reader leaves the whole of it behind and
// starts a new one (Impl::AfterFork).
struct Prefetch {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Result<Batch>> ready;
  int64_t produce_next = 0;
  int64_t consumed = 0;  // batches taken from `ready` (the consumer's next_index)
  bool stop = false;
  std::unique_ptr<internal::BackgroundThread> worker;
};

struct BatchReader::Impl {
  BatchReaderOptions options;
  std::unique_ptr<BatchSource> dataset;
  std::vector<ColumnPlan> plans;
  std::vector<std::string> names;
  std::vector<int64_t> record_batch_rows;
  std::vector<int64_t> sizes;  // per global row, when bucketing
  std::unique_ptr<BufferPool> pool;
  DictionaryCheck dictionaries;
  // Warms the record batches of the batches Next() reads next (the
  // prefetch thread's, or the caller's without prefetch).
  std::unique_ptr<ReadAhead> read_ahead;
  uint64_t fork_generation = internal::ForkGeneration();

  int64_t epoch = 0;
  std::shared_ptr<const EpochPlan> plan;
  int64_t next_index = 0;  // the batch Next() returns next
  int64_t padded_elements = 0;
  int64_t padding_elements = 0;
  Status failed;
  std::unique_ptr<Prefetch> prefetch = std::make_unique<Prefetch>();

  std::unique_ptr<BufferPool> MakePool() const {
    return std::make_unique<BufferPool>(options.prefetch + 2, options.allocate,
                                        options.before_reuse);
  }
  // Batch `index` of the rows `rows`.
  Result<Batch> Gather(int64_t index, std::span<const int64_t> rows);
  // Batch `index` of the plan, with a failed allocation of its
  // bookkeeping as an error.
  Result<Batch> SafeGather(const EpochPlan& epoch_plan, int64_t index) {
    return internal::WithoutThrowing("batch " + std::to_string(index), [&]() -> Result<Batch> {
      std::vector<int64_t> rows;
      epoch_plan.BatchRows(index, &rows);
      return Gather(index, rows);
    });
  }
  void Produce(Prefetch& shared, std::shared_ptr<const EpochPlan> epoch_plan);
  void StopWorker();
  Result<Batch> TakeReady();
  void AfterFork();
  // That record batch k's dictionary columns use the reference dictionaries.
  Status CheckDictionaries(const LoadedBatch& loaded, int k) {
    for (const ColumnPlan& column : plans) {
      if (!column.dictionary) continue;
      QUIVER_RETURN_NOT_OK(
          dictionaries.Check(column.position, loaded.batch->column(column.position)->dictionary,
                             dataset->Describe(k) + ", column '" + column.name + "'"));
    }
    return Status::OK();
  }
};

Result<Batch> BatchReader::Impl::Gather(int64_t index, std::span<const int64_t> rows) {
  std::vector<RowRef> refs(rows.size());
  // The record batches the rows live in, held while they are copied (a
  // dataset that is not memory-mapped may drop them from its cache).
  std::vector<std::shared_ptr<const LoadedBatch>> held;
  int last = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const RowLocation at = dataset->Locate(rows[i]);
    if (at.record_batch != last) {
      Result<std::shared_ptr<const LoadedBatch>> load = dataset->Load(at.record_batch);
      if (!load.ok()) return InBatch(index, load.status());
      held.push_back(std::move(*load));
      last = at.record_batch;
      Status same = CheckDictionaries(*held.back(), at.record_batch);
      if (!same.ok()) return InBatch(index, same);
    }
    refs[i] = {held.back().get(), at.record_batch, at.row};
  }
  Batch batch;
  batch.index = index;
  batch.num_rows = static_cast<int64_t>(rows.size());
  batch.rows.assign(rows.begin(), rows.end());
  int64_t batch_bytes = 0;
  GatherContext context;
  context.pool = pool.get();
  context.threads = options.threads;
  context.ragged = options.ragged;
  context.max_batch_bytes = options.max_batch_bytes;
  context.batch_bytes = &batch_bytes;
  int64_t arrays_made = 0;
  context.arrays_made = &arrays_made;
  context.describe = [this](const RowRef& ref) {
    return dataset->Describe(ref.record_batch) + ", row " + std::to_string(ref.row);
  };
  for (const ColumnPlan& column : plans) {
    Status st = GatherColumn(column, refs, context, &batch);
    if (!st.ok()) return InBatch(index, st);
  }
  return batch;
}

void BatchReader::Impl::Produce(Prefetch& shared, std::shared_ptr<const EpochPlan> epoch_plan) {
  const int64_t count = epoch_plan->num_batches();
  while (true) {
    int64_t index = 0;
    {
      std::unique_lock<std::mutex> lock(shared.mutex);
      shared.changed.wait(lock, [&] {
        return shared.stop || (shared.produce_next < count &&
                               shared.produce_next - shared.consumed < options.prefetch);
      });
      if (shared.stop) return;
      index = shared.produce_next++;
    }
    read_ahead->Before(epoch_plan, index);
    Result<Batch> batch = SafeGather(*epoch_plan, index);
    std::lock_guard<std::mutex> lock(shared.mutex);
    // After a failure nothing more is produced: the consumer sees the error
    // where the failed batch would have been.
    if (!batch.ok()) shared.produce_next = count;
    shared.ready.push_back(std::move(batch));
    shared.changed.notify_all();
  }
}

void BatchReader::Impl::StopWorker() {
  {
    std::lock_guard<std::mutex> lock(prefetch->mutex);
    prefetch->stop = true;
    prefetch->changed.notify_all();
  }
  prefetch->worker.reset();  // joins
  prefetch = std::make_unique<Prefetch>();
}

Result<Batch> BatchReader::Impl::TakeReady() {
  Prefetch& shared = *prefetch;
  std::unique_lock<std::mutex> lock(shared.mutex);
  shared.changed.wait(lock, [&] { return !shared.ready.empty(); });
  Result<Batch> batch = std::move(shared.ready.front());
  shared.ready.pop_front();
  ++shared.consumed;
  ++next_index;
  shared.changed.notify_all();
  return batch;
}

void BatchReader::Impl::AfterFork() {
  if (fork_generation == internal::ForkGeneration()) return;
  fork_generation = internal::ForkGeneration();
  if (prefetch->worker) {
    // The prefetch thread ran in the parent: its state may be mid-change.
    // Left behind (the batches it had ready are lost here, not in the
    // parent); the next batch is gathered afresh from next_index.
    (void)prefetch.release();
  }
  // The buffer pool too: the prefetch thread, or another thread of the
  // parent calling ReadRows, may have held its lock at the fork. Its
  // buffers are the parent's pages, shared until written.
  (void)pool.release();
  pool = MakePool();
  prefetch = std::make_unique<Prefetch>();
  prefetch->produce_next = prefetch->consumed = next_index;
  dataset->AfterFork();
  dictionaries.AfterFork();
  // The dataset's cache may have been left behind with what was warmed.
  read_ahead->AfterFork(next_index);
}

BatchReader::BatchReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BatchReader::~BatchReader() {
  if (!impl_) return;
  impl_->AfterFork();
  impl_->StopWorker();
}

Result<std::unique_ptr<BatchReader>> BatchReader::Open(std::vector<std::string> sources,
                                                       BatchReaderOptions options) {
  QUIVER_RETURN_NOT_OK(CheckOptions(options));
  auto impl = std::make_unique<Impl>();
  dataset::DatasetOptions source_options;
  source_options.columns = options.columns;
  source_options.memory_map = options.memory_map;
  source_options.cache_bytes = options.cache_bytes;
  source_options.validation = options.validation;
  source_options.threads = options.threads;
  QUIVER_ASSIGN_OR_RETURN(impl->dataset, BatchSource::Open(sources, source_options));
  const BatchSource& dataset = *impl->dataset;
  std::set<std::string> seen;
  int bucket_position = -1;
  for (size_t c = 0; c < dataset.schema()->fields.size(); ++c) {
    const Field& field = dataset.schema()->fields[c];
    QUIVER_ASSIGN_OR_RETURN(ColumnPlan plan, PlanColumn(field, static_cast<int>(c), options));
    plan.valid_mask = std::find(options.valid_masks.begin(), options.valid_masks.end(),
                                field.name) != options.valid_masks.end();
    for (const std::string& name : OutputNames(plan, options.ragged)) {
      if (!seen.insert(name).second) {
        return Status::Invalid("two batch arrays would be named '", name,
                               "' (a column and the shapes or offsets of a ragged column); leave "
                               "one out with columns=");
      }
      impl->names.push_back(name);
    }
    if (field.name == options.bucket_by) {
      if (plan.kind != ColumnKind::kRagged) {
        return Status::Invalid("bucket_by='", options.bucket_by,
                               "' is not a variable_shape_tensor column (nor a list of numbers)");
      }
      bucket_position = static_cast<int>(c);
    }
    impl->plans.push_back(std::move(plan));
  }
  for (const std::string& name : options.valid_masks) {
    if (!std::any_of(impl->plans.begin(), impl->plans.end(),
                     [&](const ColumnPlan& p) { return p.name == name; })) {
      return Status::Invalid("valid_masks names '", name, "', which is not among the columns read");
    }
  }
  if (!options.bucket_by.empty() && bucket_position < 0) {
    return Status::Invalid("bucket_by='", options.bucket_by, "' is not among the columns read");
  }
  for (int k = 0; k < dataset.num_record_batches(); ++k) {
    impl->record_batch_rows.push_back(dataset.record_batch_rows(k));
  }
  for (const ColumnPlan& plan : impl->plans) {
    if (!plan.dictionary || impl->dataset->num_record_batches() == 0) continue;
    // The first record batch's dictionary is the one every batch's
    // indices refer to.
    QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<const LoadedBatch> first, impl->dataset->Load(0));
    impl->dictionaries.SetReference(plan.position, first->batch->column(plan.position)->dictionary);
  }
  if (bucket_position >= 0) {
    QUIVER_ASSIGN_OR_RETURN(
        impl->sizes, RowSizes(*impl->dataset, impl->plans[static_cast<size_t>(bucket_position)]));
  }
  QUIVER_ASSIGN_OR_RETURN(options.window_rows, CacheWindowRows(*impl->dataset, options));
  impl->read_ahead = std::make_unique<ReadAhead>(impl->dataset.get());
  impl->options = std::move(options);
  impl->pool = impl->MakePool();
  std::unique_ptr<BatchReader> reader(new BatchReader(std::move(impl)));
  QUIVER_RETURN_NOT_OK(reader->SetEpoch(0));
  return reader;
}

const std::vector<std::string>& BatchReader::files() const { return impl_->dataset->locations(); }
const SchemaPtr& BatchReader::schema() const { return impl_->dataset->schema(); }
int64_t BatchReader::num_rows() const { return impl_->dataset->num_rows(); }
int64_t BatchReader::epoch() const { return impl_->epoch; }
int64_t BatchReader::position() const { return impl_->next_index; }
uint64_t BatchReader::order_key() const {
  return OrderKey(impl_->record_batch_rows, impl_->options);
}
dataset::CacheStats BatchReader::stats() const { return impl_->dataset->stats(); }
int64_t BatchReader::plan_bytes() const { return impl_->plan->memory_bytes(); }
std::vector<std::string> BatchReader::output_names() const { return impl_->names; }

Result<ArrayDataPtr> BatchReader::Dictionary(const std::string& name) {
  impl_->AfterFork();
  for (const ColumnPlan& plan : impl_->plans) {
    if (plan.name != name) continue;
    if (!plan.dictionary) return Status::Invalid("column '", name, "' is not dictionary-encoded");
    ArrayDataPtr dictionary = impl_->dictionaries.Reference(plan.position);
    if (!dictionary) return Status::Invalid("column '", name, "': the dataset has no rows");
    return dictionary;
  }
  return Status::Invalid("no column named '", name, "' among the columns read");
}

int64_t BatchReader::shard_rows() const {
  const BatchReaderOptions& o = impl_->options;
  return ShardRows(num_rows(), o.rank, o.world_size, o.drop_last);
}

int64_t BatchReader::num_batches() const {
  return BatchCount(shard_rows(), impl_->options.batch_size, impl_->options.drop_last);
}

Status BatchReader::SetEpoch(int64_t epoch, int64_t position) {
  if (epoch < 0) return Status::Invalid("epoch must be >= 0, got ", epoch);
  if (position < 0 || position > num_batches()) {
    return Status::IndexError("position ", position, " is outside the epoch's ", num_batches(),
                              " batches");
  }
  Impl& impl = *impl_;
  impl.AfterFork();
  impl.StopWorker();
  impl.epoch = epoch;
  impl.plan.reset();  // released before the next one is made
  Result<std::shared_ptr<const EpochPlan>> plan = internal::WithoutThrowing(
      "the epoch's plan", [&]() -> Result<std::shared_ptr<const EpochPlan>> {
        return std::make_shared<const EpochPlan>(impl.record_batch_rows, impl.options, epoch,
                                                 impl.sizes);
      });
  if (!plan.ok()) {
    // An empty plan keeps every later call safe; Next() reports the error.
    BatchReaderOptions none = impl.options;
    none.bucket_by.clear();
    impl.plan = std::make_shared<const EpochPlan>(std::vector<int64_t>{}, none, epoch,
                                                  std::vector<int64_t>{});
    impl.failed = plan.status();
    return plan.status();
  }
  impl.plan = std::move(*plan);
  impl.next_index = position;
  impl.prefetch->produce_next = impl.prefetch->consumed = position;
  impl.read_ahead->Restart(position);
  impl.padded_elements = 0;
  impl.padding_elements = 0;
  impl.failed = Status::OK();
  return Status::OK();
}

Result<std::optional<Batch>> BatchReader::Next() {
  Impl& impl = *impl_;
  impl.AfterFork();
  if (!impl.failed.ok()) return impl.failed;
  if (impl.next_index >= impl.plan->num_batches()) return std::optional<Batch>();
  Prefetch& shared = *impl.prefetch;
  if (impl.options.prefetch > 0 && !shared.worker) {
    Result<std::unique_ptr<internal::BackgroundThread>> worker = internal::BackgroundThread::Start(
        [&impl, &shared, plan = impl.plan] { impl.Produce(shared, plan); });
    // A refused thread leaves the reading to this one.
    if (worker.ok()) shared.worker = std::move(*worker);
  }
  if (!shared.worker) impl.read_ahead->Before(impl.plan, impl.next_index);
  Result<Batch> batch =
      shared.worker ? impl.TakeReady() : impl.SafeGather(*impl.plan, impl.next_index++);
  if (!batch.ok()) {
    impl.failed = batch.status();
    return impl.failed;
  }
  impl.padded_elements += batch->padded_elements;
  impl.padding_elements += batch->padding_elements;
  return std::optional<Batch>(std::move(*batch));
}

Result<Batch> BatchReader::ReadBatch(int64_t i) {
  impl_->AfterFork();
  if (i < 0 || i >= impl_->plan->num_batches()) {
    return Status::IndexError("batch ", i, " is out of range for ", impl_->plan->num_batches(),
                              " batches");
  }
  return impl_->SafeGather(*impl_->plan, i);
}

Result<std::vector<int64_t>> BatchReader::EpochRows() {
  impl_->AfterFork();
  return internal::WithoutThrowing(
      "the epoch's rows", [&]() -> Result<std::vector<int64_t>> { return impl_->plan->AllRows(); });
}

Result<Batch> BatchReader::ReadRows(std::span<const int64_t> rows) {
  impl_->AfterFork();
  const int64_t total = num_rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= total) {
      return Status::IndexError("row ", rows[i], " at position ", i,
                                " is out of range for a dataset of ", total, " rows");
    }
  }
  return internal::WithoutThrowing("rows", [&] { return impl_->Gather(0, rows); });
}

double BatchReader::padding_ratio() const {
  if (impl_->padded_elements == 0) return 0;
  return static_cast<double>(impl_->padding_elements) / static_cast<double>(impl_->padded_elements);
}

}  // namespace quiver::data
