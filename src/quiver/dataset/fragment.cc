// One IPC file or stream, or Parquet file, indexed for random access
// (fragment.h).
#include "quiver/dataset/fragment.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "quiver/dataset/column_cache.h"
#include "quiver/dataset/row_blocks.h"
#include "quiver/dataset/row_ranges.h"
#include "quiver/extension/canonical_storage.h"
#include "quiver/internal/threads.h"
#include "quiver/ipc/block_hint.h"
#include "quiver/ipc/body_layout.h"
#include "quiver/ipc/file_kind.h"
#include "quiver/ipc/footer_rows.h"
#include "quiver/ipc/metadata.h"
#include "quiver/ipc/reader.h"
#include "quiver/selection.h"

namespace quiver::dataset {

namespace {

// Whether the source ends with the IPC file magic (its last 6 bytes).
Result<bool> EndsWithFileMagic(io::InputSource& source) {
  const int64_t size = source.size();
  if (size < 8 + 4 + 6) return false;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr tail, source.ReadAt(size - 6, 6));
  return std::memcmp(tail->data(), ipc::kMagic, 6) == 0;
}

// The kind of what the source holds, from its first bytes: an IPC file or
// stream or a Parquet file, or an error naming what else it is.
Result<ipc::FileKind> KindOf(io::InputSource& source, const std::string& location) {
  QUIVER_ASSIGN_OR_RETURN(const bool file_magic, EndsWithFileMagic(source));
  if (file_magic) return ipc::FileKind::kIpcFile;
  const int64_t size = source.size();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr head, source.ReadAt(0, std::min(size, ipc::kSniffBytes)));
  const std::span<const uint8_t> bytes(head->data(), static_cast<size_t>(head->size()));
  const ipc::FileKind kind = ipc::SniffFileKind(bytes, size <= ipc::kSniffBytes);
  // An IPC file damaged at its end (the footer says how), or Parquet.
  if (kind == ipc::FileKind::kIpcFile || kind == ipc::FileKind::kParquet) return kind;
  QUIVER_RETURN_NOT_OK(ipc::CheckFileKind(kind, ipc::FileKind::kIpcStream, location, bytes,
                                          "an Arrow IPC file or stream, or a Parquet file"));
  return ipc::FileKind::kIpcStream;
}

// Bytes of dictionary values the memos of a stream's index may hold, over
// all its dictionary batches: beyond, indexing stops with an error.
constexpr int64_t kMaxRetainedDictionaryBytes = int64_t{1} << 30;

int64_t DictionaryBytes(const ipc::DictionaryMemo& memo) {
  int64_t total = 0;
  for (const auto& [id, values] : memo.values) total += values ? ArrayBytes(*values) : 0;
  return total;
}

// BatchEntry::rows of a file's record batch before its header is read.
constexpr int64_t kRowsUnknown = -1;

// The record batch a header-only message carries; Invalid otherwise.
Result<const ipc::fb::RecordBatch*> RecordBatchOf(const ipc::Message& message) {
  const ipc::fb::RecordBatch* batch = message.header->header_as_RecordBatch();
  if (batch == nullptr) return Status::Invalid(message.Where(), " is not a record batch");
  return batch;
}

// The (first, count) runs of neighbouring stretches between page starts
// (`starts`, ascending from 0) that hold a row of `rows` (ascending): each
// run's pages are read once. `*covered` receives the runs' rows.
std::vector<std::pair<int64_t, int64_t>> RowRuns(const std::vector<int64_t>& starts,
                                                 int64_t group_rows, std::span<const int64_t> rows,
                                                 int64_t* covered) {
  std::vector<std::pair<int64_t, int64_t>> runs;  // (first, end) until the end
  for (int64_t row : rows) {
    const auto next = std::upper_bound(starts.begin(), starts.end(), row);
    const int64_t begin = *std::prev(next), end = next == starts.end() ? group_rows : *next;
    if (!runs.empty() && runs.back().second >= begin) {
      runs.back().second = std::max(runs.back().second, end);
    } else {
      runs.emplace_back(begin, end);
    }
  }
  *covered = 0;
  for (auto& [first, end] : runs) {
    end -= first;  // a count from here
    *covered += end;
  }
  return runs;
}

}  // namespace

Result<std::unique_ptr<Fragment>> Fragment::Open(const std::string& location,
                                                 std::shared_ptr<io::InputSource> source,
                                                 const ipc::ReadOptions& options) {
  std::unique_ptr<Fragment> fragment(new Fragment());
  fragment->location_ = location;
  fragment->source_ = std::move(source);
  fragment->options_ = options;
  QUIVER_ASSIGN_OR_RETURN(const ipc::FileKind kind, KindOf(*fragment->source_, location));
  Status st = kind == ipc::FileKind::kIpcFile   ? fragment->IndexFile()
              : kind == ipc::FileKind::kParquet ? fragment->IndexParquet()
                                                : fragment->IndexStream();
  if (!st.ok()) return st.WithContext(location);
  fragment->heads_.resize(fragment->batches_.size());
  fragment->messages_.resize(fragment->batches_.size());
  return fragment;
}

Status Fragment::IndexFile() {
  QUIVER_ASSIGN_OR_RETURN(ipc::FileFooter footer, ipc::ReadFileFooter(*source_, options_));
  schema_ = footer.schema;
  canonical_ = footer.canonical;
  swap_ = footer.swap;
  dictionary_blocks_ = footer.dictionary_blocks;
  file_dictionaries_ = std::make_shared<ipc::DictionaryMemo>(std::move(footer.dictionaries));
  const int64_t count = static_cast<int64_t>(footer.batch_blocks.size());
  // quiver's writers list the row counts in the footer: no header is read
  // now (each is read, and its count checked, on first use).
  const std::optional<std::vector<int64_t>> rows =
      ipc::RecordBatchRowsOf(ipc::ReadKeyValues(footer.footer->custom_metadata()), count);
  if (rows) {
    for (int64_t i = 0; i < count; ++i) {
      const ipc::fb::Block& block = footer.batch_blocks[static_cast<size_t>(i)];
      batches_.push_back(BatchEntry{block.offset(), block.metadata_length(), block.body_length(),
                                    (*rows)[static_cast<size_t>(i)], file_dictionaries_});
    }
    messages_.resize(batches_.size());
    // A batch the footer says is empty is never read, so its header is
    // checked now: a wrong hint of 0 would hide rows silently.
    for (int64_t i = 0; i < count; ++i) {
      if ((*rows)[static_cast<size_t>(i)] != 0) continue;
      auto head = ReadHead(static_cast<int>(i));
      if (!head.ok()) return head.status().WithContext("record batch " + std::to_string(i));
    }
    return Status::OK();
  }
  // Otherwise every record batch's header, fetched at once (one request
  // for neighbouring small batches on a remote source), for its row count.
  std::vector<io::ByteRange> ranges;
  for (const ipc::fb::Block& block : footer.batch_blocks) {
    ranges.push_back({block.offset(), block.metadata_length()});
    batches_.push_back(BatchEntry{block.offset(), block.metadata_length(), block.body_length(),
                                  kRowsUnknown, file_dictionaries_});
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> heads, source_->ReadRanges(ranges));
  for (size_t i = 0; i < heads.size(); ++i) {
    auto message = CheckedHead(static_cast<int>(i), heads[i]);
    if (!message.ok()) return message.status().WithContext("record batch " + std::to_string(i));
    batches_[i].rows = message->header->header_as_RecordBatch()->length();
    messages_.push_back(std::make_shared<const ipc::Message>(std::move(*message)));
  }
  return Status::OK();
}

// A Parquet file's row groups as record batches: their row counts from
// the footer; every read decodes (compressed_ says so: nothing is a view).
Status Fragment::IndexParquet() {
  QUIVER_ASSIGN_OR_RETURN(parquet_, parquet::ParquetFile::Open(source_));
  schema_ = parquet_->schema();
  QUIVER_ASSIGN_OR_RETURN(canonical_, internal::CanonicalSchema(schema_));
  for (int g = 0; g < parquet_->num_row_groups(); ++g) {
    batches_.push_back(BatchEntry{0, 0, 0, parquet_->row_group(g).num_rows, nullptr});
  }
  compressed_.store(true, std::memory_order_relaxed);
  return Status::OK();
}

Result<std::vector<ArrayDataPtr>> Fragment::ReadParquetColumns(int k,
                                                               const std::vector<int>& columns,
                                                               int threads) {
  parquet::ParquetReadOptions options;
  options.field_indices = columns;
  options.threads = threads;
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, parquet_->ReadRowGroup(k, options));
  return CanonicalColumns(k, columns, *batch);
}

Result<std::vector<ArrayDataPtr>> Fragment::CanonicalColumns(int k, const std::vector<int>& columns,
                                                             const RecordBatch& batch) const {
  std::vector<ArrayDataPtr> out;
  for (size_t c = 0; c < columns.size(); ++c) {
    auto canonical = internal::CanonicalArray(batch.column(static_cast<int>(c)));
    if (!canonical.ok()) {
      return canonical.status().WithContext(Where(k) + ": column " + std::to_string(columns[c]) +
                                            " (" + schema_->fields[columns[c]].name + ")");
    }
    out.push_back(std::move(*canonical));
  }
  return out;
}

Result<std::optional<Fragment::RowColumns>> Fragment::ReadParquetRows(
    int k, const std::vector<int>& columns, std::span<const int64_t> rows, int threads) {
  parquet::ParquetReadOptions options;
  options.field_indices = columns;
  options.threads = threads;
  // An index that does not hold up (Invalid, here or below): the row
  // group read whole says what is right.
  Result<std::optional<std::vector<int64_t>>> found = parquet_->PageRowStarts(k, options);
  if (!found.ok() && found.status().code() == StatusCode::kInvalid) {
    return std::optional<RowColumns>();
  }
  QUIVER_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> starts, std::move(found));
  if (!starts) return std::optional<RowColumns>();
  const int64_t group_rows = batches_[static_cast<size_t>(k)].rows;
  int64_t covered = 0;
  const std::vector<std::pair<int64_t, int64_t>> runs =
      RowRuns(*starts, group_rows, rows, &covered);
  if (2 * covered > group_rows) return std::optional<RowColumns>();
  Result<std::vector<RecordBatchPtr>> read = parquet_->ReadRowRanges(k, runs, options);
  // Pages the index describes wrongly (a list's rows split across pages,
  // as older writers did).
  if (!read.ok() && read.status().code() == StatusCode::kInvalid) {
    return std::optional<RowColumns>();
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<RecordBatchPtr> batches, std::move(read));
  std::vector<std::vector<ArrayDataPtr>> pieces(columns.size());
  std::vector<int64_t> positions;  // of each row among the runs' rows end to end
  positions.reserve(rows.size());
  int64_t base = 0;
  size_t r = 0;
  for (size_t b = 0; b < runs.size(); ++b) {
    QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> canonical,
                            CanonicalColumns(k, columns, *batches[b]));
    for (size_t c = 0; c < columns.size(); ++c) pieces[c].push_back(std::move(canonical[c]));
    const auto [first, count] = runs[b];
    for (; r < rows.size() && rows[r] < first + count; ++r)
      positions.push_back(base + rows[r] - first);
    base += count;
  }
  RowColumns out;
  out.compact = true;
  for (const std::vector<ArrayDataPtr>& column : pieces) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr taken, quiver::Take(column, positions));
    out.columns.push_back(std::move(taken));
  }
  return std::optional<RowColumns>(std::move(out));
}

Status Fragment::IndexStream() {
  auto stream = io::StreamOver(*source_, 0);
  QUIVER_ASSIGN_OR_RETURN(std::optional<ipc::Message> first, ipc::ReadMessage(*stream));
  if (!first) return Status::Invalid("an empty stream (no schema message)");
  QUIVER_ASSIGN_OR_RETURN(schema_, ipc::SchemaFromMessage(*first));
  QUIVER_ASSIGN_OR_RETURN(canonical_, internal::CanonicalSchema(schema_));
  const ipc::fb::Schema* fb_schema = first->header->header_as_Schema();
  const Result<bool> swap = ipc::SwapFor(ipc::EndiannessOf(fb_schema), options_, "");
  swap_ = swap.ok() && *swap;
  auto memo = std::make_shared<ipc::DictionaryMemo>();
  QUIVER_RETURN_NOT_OK(ipc::InitDictionaryMemo(fb_schema, *schema_, memo.get()));
  std::shared_ptr<const ipc::DictionaryMemo> current = memo;
  int64_t retained = 0;  // dictionary bytes the memos made so far hold
  int64_t offset = first->size;
  while (true) {
    QUIVER_ASSIGN_OR_RETURN(std::optional<ipc::Message> message,
                            ipc::ReadMessageHead(*source_, offset));
    if (!message) break;
    const int64_t body = message->header->body_length();
    if (body > source_->size() - offset - message->size) {
      return Status::Invalid(message->Where(), " claims a body of ", body,
                             " bytes; the stream ends ", source_->size() - offset - message->size,
                             " bytes after its metadata");
    }
    const int64_t next = offset + message->size + body;
    switch (message->header->header_type()) {
      case ipc::fb::MessageHeader::RecordBatch: {
        QUIVER_ASSIGN_OR_RETURN(const ipc::fb::RecordBatch* batch, RecordBatchOf(*message));
        if (batch->length() < 0) return Status::Invalid(message->Where(), ": negative row count");
        batches_.push_back(BatchEntry{offset, message->size, body, batch->length(), current});
        // An empty batch is never read: its header is not kept.
        messages_.push_back(batch->length() == 0
                                ? nullptr
                                : std::make_shared<const ipc::Message>(std::move(*message)));
        break;
      }
      case ipc::fb::MessageHeader::DictionaryBatch: {
        // Decoded now: the record batches after it use it (a replacement
        // makes a new memo; those before keep theirs).
        QUIVER_ASSIGN_OR_RETURN(std::optional<ipc::Message> whole,
                                ipc::ReadMessage(*source_, offset));
        auto next = std::make_shared<ipc::DictionaryMemo>(*current);
        QUIVER_RETURN_NOT_OK(ipc::DecodeDictionaryBatch(*whole, next.get(), options_, swap_));
        // Each record batch keeps the dictionaries of its place in the
        // stream: a stream of many deltas keeps every intermediate one.
        retained += DictionaryBytes(*next);
        if (retained > kMaxRetainedDictionaryBytes) {
          return Status::Invalid(whole->Where(), ": the stream's dictionaries, as its record ",
                                 "batches see them one after another, hold more than ",
                                 kMaxRetainedDictionaryBytes,
                                 " bytes (too many dictionary batches or deltas to index)");
        }
        current = std::move(next);
        break;
      }
      default:
        return Status::Invalid(message->Where(), ": unexpected ",
                               ipc::fb::EnumNameMessageHeader(message->header->header_type()),
                               " message in a record batch stream");
    }
    offset = next;
  }
  return Status::OK();
}

std::string Fragment::Where(int k) const {
  return location_ + ": record batch " + std::to_string(k);
}

bool Fragment::MapsUncompressed() {
  if (!maps_source() || swap_ || parquet_) return false;
  if (batches_.empty()) return true;
  Result<std::shared_ptr<const Head>> head = HeadOf(0);
  return head.ok() && (*head)->layout.compression == ipc::Compression::kNone;
}

void Fragment::AfterFork() {
  (void)mutex_.release();  // never destroyed: it may be held
  mutex_ = std::make_unique<std::mutex>();
}

Status Fragment::EnsureDictionaries() {
  std::lock_guard<std::mutex> lock(*mutex_);
  if (!dictionaries_read_) {
    dictionaries_status_ = ReadFileDictionaries();
    dictionaries_read_ = true;
  }
  return dictionaries_status_;
}

Status Fragment::ReadFileDictionaries() {
  for (size_t i = 0; i < dictionary_blocks_.size(); ++i) {
    const ipc::fb::Block& block = dictionary_blocks_[i];
    QUIVER_ASSIGN_OR_RETURN(std::optional<ipc::Message> message,
                            ipc::ReadMessage(*source_, block.offset()));
    const std::string where = location_ + ": dictionary block " + std::to_string(i);
    if (!message || message->header->header_type() != ipc::fb::MessageHeader::DictionaryBatch) {
      return Status::Invalid(where, ": no dictionary batch at byte ", block.offset());
    }
    Status st = ipc::DecodeDictionaryBatch(*message, file_dictionaries_.get(), options_, swap_);
    if (!st.ok()) return st.WithContext(where);
  }
  return Status::OK();
}

Result<ipc::Message> Fragment::ReadHead(int k) {
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  // ReadRanges reads the header's bytes exactly: a remote source's ReadAt
  // would widen a small read into a read-ahead block of the body's bytes.
  QUIVER_ASSIGN_OR_RETURN(io::InputSource * from, CopyingSource());
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> bytes,
                          from->ReadRanges({{entry.offset, entry.metadata_length}}));
  return CheckedHead(k, std::move(bytes[0]));
}

Result<ipc::Message> Fragment::CheckedHead(int k, BufferPtr bytes) const {
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  auto head_source = io::BufferSource(std::move(bytes));
  QUIVER_ASSIGN_OR_RETURN(std::optional<ipc::Message> message,
                          ipc::ReadMessageHead(*head_source, 0));
  if (!message || message->size != entry.metadata_length ||
      message->header->body_length() != entry.body_length ||
      message->header->header_type() != ipc::fb::MessageHeader::RecordBatch) {
    return Status::Invalid("the footer says a record batch message of ", entry.metadata_length,
                           " bytes of metadata and a ", entry.body_length,
                           "-byte body starts at byte ", entry.offset, "; none does");
  }
  const int64_t rows = message->header->header_as_RecordBatch()->length();
  if (rows < 0) return Status::Invalid("its header says ", rows, " rows");
  // The footer's row counts are a hint: the header has the last word.
  if (entry.rows != kRowsUnknown && rows != entry.rows) {
    return Status::Invalid("its header says ", rows, " rows, the file's footer ", entry.rows);
  }
  message->offset = entry.offset;
  return std::move(*message);
}

Result<std::shared_ptr<const Fragment::Head>> Fragment::HeadOf(int k) {
  std::shared_ptr<const ipc::Message> known;
  {
    std::lock_guard<std::mutex> lock(*mutex_);
    if (heads_[static_cast<size_t>(k)]) return heads_[static_cast<size_t>(k)];
    known = messages_[static_cast<size_t>(k)];
  }
  auto head = std::make_shared<Head>();
  if (known) {
    head->message = *known;
  } else {
    auto read = ReadHead(k);
    if (!read.ok()) return read.status().WithContext(Where(k));
    head->message = std::move(*read);
  }
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  auto layout = ipc::DescribeBody(head->message, *head->message.header->header_as_RecordBatch(),
                                  *schema_, &entry.dictionaries->ids);
  if (!layout.ok()) return layout.status().WithContext(Where(k));
  head->layout = std::move(*layout);
  if (head->layout.compression != ipc::Compression::kNone) {
    compressed_.store(true, std::memory_order_relaxed);
    head->lz4_block =
        ipc::Lz4BlockBytesOf(ipc::ReadKeyValues(head->message.header->custom_metadata()))
            .value_or(0);
  }
  head_seen_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(*mutex_);
  heads_[static_cast<size_t>(k)] = head;
  messages_[static_cast<size_t>(k)] = nullptr;  // the head holds it now
  return std::shared_ptr<const Head>(std::move(head));
}

Result<io::InputSource*> Fragment::BodySource(ipc::Compression compression) {
  if (compression == ipc::Compression::kNone) return source_.get();
  return CopyingSource();
}

Result<io::InputSource*> Fragment::CopyingSource() {
  if (!source_->zero_copy()) return source_.get();
  {
    std::lock_guard<std::mutex> lock(*mutex_);
    if (!unmapped_opened_) {
      // The mapped file's own descriptor, not its path: the path may name
      // another file by now (rewritten and renamed over), or none.
      auto twin = source_->PreadTwin();
      unmapped_status_ = twin.status();
      if (twin.ok() && *twin) {
        unmapped_ = std::move(*twin);
        unmapped_ready_.store(true, std::memory_order_release);
      }
      unmapped_opened_ = true;
    }
    QUIVER_RETURN_NOT_OK(unmapped_status_);
  }
  // Memory that is no file (no twin) is read as it is.
  return unmapped_ready_.load(std::memory_order_acquire) ? unmapped_.get() : source_.get();
}

io::IoStats Fragment::stats() const {
  io::IoStats out = source_->stats();
  if (unmapped_ready_.load(std::memory_order_acquire)) {
    const io::IoStats more = unmapped_->stats();
    out.requests += more.requests;
    out.bytes_fetched += more.bytes_fetched;
    out.retries += more.retries;
  }
  return out;
}

Result<std::vector<ArrayDataPtr>> Fragment::ReadColumns(int k, const std::vector<int>& columns,
                                                        ValidationLevel level, int threads,
                                                        bool* views) {
  if (parquet_) {
    *views = false;
    return ReadParquetColumns(k, columns, threads);
  }
  QUIVER_ASSIGN_OR_RETURN(const std::shared_ptr<const Head> head, HeadOf(k));
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  const ipc::BatchLayout& layout = head->layout;
  // The buffers the columns use, and their bytes in the source.
  std::vector<int64_t> wanted;
  for (int column : columns) {
    ipc::CollectBuffers(layout.columns[static_cast<size_t>(column)], &wanted);
  }
  std::vector<io::ByteRange> ranges;
  for (int64_t b : wanted) {
    const ipc::BodyBufferSpan& span = layout.buffers[static_cast<size_t>(b)];
    ranges.push_back({entry.offset + entry.metadata_length + span.offset, span.length});
  }
  QUIVER_ASSIGN_OR_RETURN(io::InputSource * body_source, BodySource(layout.compression));
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> stored, body_source->ReadRanges(ranges));
  *views = body_source->zero_copy() && !swap_ && layout.compression == ipc::Compression::kNone;
  return DecodeBody(k, *head, columns, wanted, stored, level, threads);
}

Result<std::vector<ArrayDataPtr>> Fragment::DecodeBody(int k, const Head& head,
                                                       const std::vector<int>& columns,
                                                       std::span<const int64_t> wanted,
                                                       const std::vector<BufferPtr>& stored,
                                                       ValidationLevel level, int threads) {
  const ipc::BatchLayout& layout = head.layout;
  std::vector<BufferPtr> buffers(layout.buffers.size());
  if (layout.compression == ipc::Compression::kNone) {
    // Views or slices: no thread pays for itself, and nothing can fail
    // that would need the location named (a record batch's first row
    // should not pay for the text).
    for (size_t i = 0; i < wanted.size(); ++i) {
      QUIVER_ASSIGN_OR_RETURN(buffers[static_cast<size_t>(wanted[i])],
                              ipc::DecodeStoredBuffer(stored[i], layout.compression, "", options_));
    }
  } else {
    const std::string where = Where(k) + ": buffer ";
    QUIVER_ASSIGN_OR_RETURN(
        std::vector<BufferPtr> decoded,
        ipc::DecodeStoredBuffers(
            stored, layout.compression,
            [&](int64_t i) { return where + std::to_string(wanted[static_cast<size_t>(i)]); },
            options_, threads));
    for (size_t i = 0; i < wanted.size(); ++i) {
      buffers[static_cast<size_t>(wanted[i])] = std::move(decoded[i]);
    }
  }
  return DecodeColumns(k, head, columns, buffers, level);
}

Result<std::optional<Fragment::RowColumns>> Fragment::ReadRows(
    int k, const std::vector<int>& columns, std::span<const int64_t> rows, ValidationLevel level,
    int threads, RecentBlocks* recent, bool keep_blocks) {
  using Columns = std::optional<RowColumns>;
  if (parquet_) return ReadParquetRows(k, columns, rows, threads);
  QUIVER_ASSIGN_OR_RETURN(const std::shared_ptr<const Head> head, HeadOf(k));
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  const ipc::BatchLayout& layout = head->layout;
  if (layout.compression != ipc::Compression::kNone) {
    if (recent == nullptr) return Columns();
    return ReadCompressedRows(k, *head, columns, rows, level, threads, recent, keep_blocks);
  }
  std::vector<BufferPiece> pieces;
  std::vector<int64_t> wanted;
  for (int column : columns) {
    const ipc::FieldNodeLayout& node = layout.columns[static_cast<size_t>(column)];
    if (!RowPieces(layout, node, rows, &pieces)) return Columns();
    ipc::CollectBuffers(node, &wanted);
  }
  int64_t needed = 0, whole = 0;
  for (const BufferPiece& piece : pieces) needed += piece.length;
  for (int64_t b : wanted) whole += layout.buffers[static_cast<size_t>(b)].length;
  if (needed > whole / 2) return Columns();
  std::vector<io::ByteRange> ranges;
  const int64_t body = entry.offset + entry.metadata_length;
  for (const BufferPiece& piece : pieces) {
    const ipc::BodyBufferSpan& span = layout.buffers[static_cast<size_t>(piece.buffer)];
    ranges.push_back({body + span.offset + piece.offset, piece.length});
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> stored, source_->ReadRanges(ranges));
  // Each buffer the columns use, its length as stored, holding the pieces
  // read (other bytes are never read: the rows are copied out of them).
  std::vector<BufferPtr> buffers(layout.buffers.size());
  for (int64_t b : wanted) {
    QUIVER_ASSIGN_OR_RETURN(
        buffers[static_cast<size_t>(b)],
        Buffer::AllocateUninitialized(layout.buffers[static_cast<size_t>(b)].length));
  }
  for (size_t i = 0; i < pieces.size(); ++i) {
    const BufferPiece& piece = pieces[i];
    if (stored[i]->size() != piece.length) {
      return Status::IOError(Where(k), ": read ", stored[i]->size(), " of ", piece.length,
                             " bytes of buffer ", piece.buffer);
    }
    std::memcpy(buffers[static_cast<size_t>(piece.buffer)]->mutable_data() + piece.offset,
                stored[i]->data(), static_cast<size_t>(piece.length));
  }
  QUIVER_ASSIGN_OR_RETURN(RowColumns out, RowsOf(k, *head, columns, buffers, rows, level, 0));
  return Columns(std::move(out));
}

Result<Fragment::RowColumns> Fragment::RowsOf(int k, const Head& head,
                                              const std::vector<int>& columns,
                                              const std::vector<BufferPtr>& buffers,
                                              std::span<const int64_t> rows, ValidationLevel level,
                                              int64_t decoded_bytes) {
  QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> full,
                          DecodeColumns(k, head, columns, buffers, level));
  RowColumns out;
  out.compact = true;
  out.decoded_bytes = decoded_bytes;
  for (const ArrayDataPtr& column : full) {
    // Copied even where the rows are one run, which Take would slice: the
    // buffers hold bytes never read or decoded around the rows (and would
    // keep the batch-long buffers alive).
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr alone, quiver::TakeCopy(column, rows));
    out.columns.push_back(std::move(alone));
  }
  return out;
}

Result<std::optional<Fragment::RowColumns>> Fragment::ReadCompressedRows(
    int k, const Head& head, const std::vector<int>& columns, std::span<const int64_t> rows,
    ValidationLevel level, int threads, RecentBlocks* recent, bool keep_blocks) {
  using Columns = std::optional<RowColumns>;
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  const ipc::BatchLayout& layout = head.layout;
  // More than an eighth of the rows (a slice read in order, whose next
  // slice will want the rest): the batch decoded whole once, and cached,
  // serves them and the next reads.
  if (8 * static_cast<int64_t>(rows.size()) > entry.rows) return Columns();
  std::vector<int64_t> wanted;
  std::vector<BufferPiece> pieces;
  for (int column : columns) {
    const ipc::FieldNodeLayout& node = layout.columns[static_cast<size_t>(column)];
    if (!RowPieces(layout, node, {}, &pieces)) return Columns();  // its layout only
    ipc::CollectBuffers(node, &wanted);
  }
  const int64_t body = entry.offset + entry.metadata_length;
  // A mapped file's compressed bytes are read with pread, as a whole read
  // reads them: its pages stay out of the process.
  QUIVER_ASSIGN_OR_RETURN(io::InputSource * bodies, BodySource(layout.compression));
  std::vector<std::shared_ptr<const BufferBlocks>> indexes;
  std::vector<BufferPtr> stored;  // read whole, when the blocks were not known
  QUIVER_ASSIGN_OR_RETURN(const bool indexed,
                          IndexBuffers(k, head, wanted, *bodies, recent, &indexes, &stored));
  // Where the rows cannot be read alone after all: bytes fetched whole
  // are decoded whole, to be cached, rather than fetched twice.
  auto whole = [&]() -> Result<Columns> {
    if (stored.empty()) return Columns();
    QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> decoded,
                            DecodeBody(k, head, columns, wanted, stored, level, threads));
    RowColumns out;
    out.columns = std::move(decoded);
    out.whole = true;
    return Columns(std::move(out));
  };
  if (!indexed) return whole();  // the whole decode names what is wrong
  std::vector<int64_t> lengths(layout.buffers.size(), 0);
  for (size_t i = 0; i < wanted.size(); ++i) {
    lengths[static_cast<size_t>(wanted[i])] = indexes[i]->prefix.length;
  }
  for (int column : columns) {
    const ipc::FieldNodeLayout& node = layout.columns[static_cast<size_t>(column)];
    if (!RowPieces(layout, node, rows, &pieces, lengths)) return whole();
  }
  // The bytes of the blocks needed: slices of the stored buffers read
  // whole, or read now (a remote or unmapped source fetches those alone).
  auto fetch = [&](const std::vector<StoredRange>& needed) -> Result<std::vector<BufferPtr>> {
    std::vector<BufferPtr> out;
    if (!stored.empty()) {
      for (const StoredRange& range : needed) {
        QUIVER_ASSIGN_OR_RETURN(BufferPtr piece,
                                Buffer::Slice(stored[range.buffer], range.offset, range.length));
        out.push_back(std::move(piece));
      }
      return out;
    }
    std::vector<io::ByteRange> ranges;
    for (const StoredRange& range : needed) {
      const ipc::BodyBufferSpan& span = layout.buffers[static_cast<size_t>(wanted[range.buffer])];
      ranges.push_back({body + span.offset + range.offset, range.length});
    }
    return bodies->ReadRanges(ranges);
  };
  std::vector<BufferPtr> buffers(layout.buffers.size());
  QUIVER_ASSIGN_OR_RETURN(const std::optional<int64_t> decoded,
                          DecodeRowBlocks(layout.compression, wanted, indexes, pieces, fetch,
                                          recent, keep_blocks, BlockKey{this, k, 0, 0}, &buffers));
  if (!decoded) return whole();
  QUIVER_ASSIGN_OR_RETURN(RowColumns out, RowsOf(k, head, columns, buffers, rows, level, *decoded));
  return Columns(std::move(out));
}

Result<bool> Fragment::IndexBuffers(int k, const Head& head, const std::vector<int64_t>& wanted,
                                    io::InputSource& bodies, RecentBlocks* recent,
                                    std::vector<std::shared_ptr<const BufferBlocks>>* indexes,
                                    std::vector<BufferPtr>* stored) {
  indexes->assign(wanted.size(), nullptr);
  bool known = true;
  for (size_t i = 0; i < wanted.size() && known; ++i) {
    (*indexes)[i] = recent->FindIndex(BlockKey{this, k, wanted[i], -1});
    known = (*indexes)[i] != nullptr;
  }
  if (known) return true;
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  std::vector<io::ByteRange> ranges;
  for (int64_t b : wanted) {
    const ipc::BodyBufferSpan& span = head.layout.buffers[static_cast<size_t>(b)];
    ranges.push_back({entry.offset + entry.metadata_length + span.offset, span.length});
  }
  QUIVER_ASSIGN_OR_RETURN(*stored, bodies.ReadRanges(ranges));
  const std::optional<std::vector<StoredPrefix>> prefixes =
      ReadPrefixes(*stored, options_.max_decompressed_buffer);
  if (!prefixes) return false;
  for (size_t i = 0; i < wanted.size(); ++i) {
    (*indexes)[i] = std::make_shared<const BufferBlocks>(
        IndexBlocks(head.layout.compression, *(*stored)[i], (*prefixes)[i], head.lz4_block));
    recent->InsertIndex(BlockKey{this, k, wanted[i], -1}, (*indexes)[i]);
  }
  return true;
}

Result<std::vector<ArrayDataPtr>> Fragment::DecodeColumns(int k, const Head& head,
                                                          const std::vector<int>& columns,
                                                          const std::vector<BufferPtr>& buffers,
                                                          ValidationLevel level) {
  const BatchEntry& entry = batches_[static_cast<size_t>(k)];
  if (!entry.dictionaries->ids.empty() && !dictionary_blocks_.empty()) {
    QUIVER_RETURN_NOT_OK(EnsureDictionaries());
  }
  std::vector<ArrayDataPtr> out;
  for (int column : columns) {
    auto decoded =
        ipc::DecodeColumn(head.message, head.layout, column, buffers, *entry.dictionaries, swap_);
    if (!decoded.ok()) return decoded.status().WithContext(Where(k));
    const std::string name =
        "column " + std::to_string(column) + " (" + schema_->fields[column].name + ")";
    Status st = Validate(**decoded, level);
    if (!st.ok()) return st.WithContext(Where(k) + ": " + name);
    auto canonical = internal::CanonicalArray(*decoded);
    if (!canonical.ok()) return canonical.status().WithContext(Where(k) + ": " + name);
    out.push_back(std::move(*canonical));
  }
  return out;
}

}  // namespace quiver::dataset
