// IPC stream and file writers.
#include <algorithm>
#include <cstring>
#include <vector>

#include "File_generated.h"
#include "quiver/extension/canonical_storage.h"
#include "quiver/ipc.h"
#include "quiver/ipc/codec.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/footer_rows.h"
#include "quiver/record_batch.h"

namespace quiver::ipc {

namespace {

constexpr char kFileMagic[8] = {'A', 'R', 'R', 'O', 'W', '1', 0, 0};

Status CheckBatchSchema(const Schema& expected, const RecordBatch& batch) {
  if (batch.schema()->fields.size() != expected.fields.size()) {
    return Status::TypeError("the batch has ", batch.schema()->fields.size(),
                             " columns, the stream's schema ", expected.fields.size());
  }
  for (size_t i = 0; i < expected.fields.size(); ++i) {
    const Field& want = expected.fields[i];
    const Field& got = batch.schema()->fields[i];
    if (!got.type->Equals(*want.type)) {
      return Status::TypeError("column ", i, " (", got.name, ") is ", got.type->ToString(),
                               ", the stream's schema says ", want.type->ToString());
    }
  }
  return Status::OK();
}

Status CheckLimit(int64_t value, const char* name) {
  if (value < 0) {
    return Status::Invalid("WriteOptions::", name, " is ", value,
                           "; it must be 0 (no limit) or more");
  }
  return Status::OK();
}

// Rows per piece when a body of `size` holds `rows` rows and a piece may
// hold `limit` bytes: by the average row. Every buffer of a piece may take up to
// kBodyAlignment bytes of padding the average spreads over the whole
// batch; keeping that out of the estimate (while it is at most half the
// limit) saves halving nearly every piece for a few bytes over.
int64_t RowsByAverage(const BodySize& size, int64_t rows, int64_t limit) {
  const int64_t padding = std::min(size.buffers * kBodyAlignment, limit / 2);
  const int64_t per_row = std::max<int64_t>(1, (size.bytes + rows - 1) / rows);
  return std::clamp<int64_t>((limit - padding) / per_row, 1, rows);
}

// Appends `piece`, cut in halves while its body is over `limit` bytes,
// down to single rows: rows differ in size (ragged tensors, strings), so
// the average may put too many of the large ones into one piece.
Status AppendHalved(RecordBatchPtr piece, int64_t limit, std::vector<RecordBatchPtr>* out) {
  QUIVER_ASSIGN_OR_RETURN(BodySize size, RecordBatchBodySize(*piece));
  const int64_t rows = piece->num_rows();
  if (size.bytes <= limit || rows <= 1) {
    out->push_back(std::move(piece));
    return Status::OK();
  }
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr first, piece->Slice(0, rows / 2));
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr second, piece->Slice(rows / 2, rows - rows / 2));
  QUIVER_RETURN_NOT_OK(AppendHalved(std::move(first), limit, out));
  return AppendHalved(std::move(second), limit, out);
}

// The record batches `batch` is written as: consecutive zero-copy slices
// within options.max_batch_rows rows and options.max_batch_bytes bytes of
// uncompressed body (a single row over that is written alone). A batch of
// no rows stays one batch of no rows.
Result<std::vector<RecordBatchPtr>> CutBatch(const RecordBatchPtr& batch,
                                             const WriteOptions& options) {
  const int64_t rows = batch->num_rows();
  const int64_t max_bytes = options.max_batch_bytes;
  if (rows == 0 || (options.max_batch_rows == 0 && max_bytes == 0)) return std::vector{batch};
  int64_t step = options.max_batch_rows > 0 ? std::min(options.max_batch_rows, rows) : rows;
  bool over = false;  // the whole body is over max_bytes: pieces are measured
  if (max_bytes > 0) {
    QUIVER_ASSIGN_OR_RETURN(BodySize whole, RecordBatchBodySize(*batch));
    over = whole.bytes > max_bytes;
    if (over) step = std::min(step, RowsByAverage(whole, rows, max_bytes));
  }
  if (step == rows && !over) return std::vector{batch};
  std::vector<RecordBatchPtr> pieces;
  for (int64_t offset = 0; offset < rows; offset += step) {
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr piece,
                            batch->Slice(offset, std::min(step, rows - offset)));
    if (over) {
      QUIVER_RETURN_NOT_OK(AppendHalved(std::move(piece), max_bytes, &pieces));
    } else {
      pieces.push_back(std::move(piece));
    }
  }
  return pieces;
}

// What both writers share: the sink, the schema, open/closed state, and
// the dictionaries written so far (by id).
struct WriterState {
  std::shared_ptr<OutputSink> sink;
  SchemaPtr schema;
  WriteOptions options;
  bool closed = false;
  bool file_format = false;
  std::vector<ArrayDataPtr> dictionaries;
  std::vector<fb::Block> dictionary_blocks;
  int64_t batches_given = 0;  // Write calls that wrote their batch
  // Every record batch message written, and its rows (the file footer
  // lists both).
  std::vector<fb::Block> batch_blocks;
  std::vector<int64_t> batch_rows;

  // Writes each dictionary the batch uses that differs from the last one
  // written for its id: a replacement in a stream; a file holds one per
  // id. Dictionaries nested in another's values are written before it (a
  // reader resolves them when it reads the outer one), and a replaced
  // nested dictionary makes its outer one be written again.
  Status WriteDictionaries(const RecordBatch& batch) {
    std::vector<DictionaryUse> current = DictionariesOf(batch);
    dictionaries.resize(current.size());
    std::vector<bool> rewrite(current.size(), false);
    for (size_t k = current.size(); k-- > 0;) {  // nested ids come after their outer one
      const size_t id = k;
      const ArrayDataPtr& previous = dictionaries[id];
      const ArrayDataPtr& now = current[id].values;
      if (!now) return Status::Invalid("dictionary id ", id, " has no dictionary array");
      if (previous && !rewrite[id] && (previous == now || ArrayEquals(*previous, *now))) continue;
      if (previous && file_format) {
        return Status::Invalid("batch ", batches_given, " brings a new dictionary for id ", id,
                               "; the IPC file format holds one dictionary per "
                               "field (write a stream, or give every batch the same dictionary)");
      }
      QUIVER_ASSIGN_OR_RETURN(
          WrittenBlock block,
          WriteDictionaryMessage(*sink, static_cast<int64_t>(id), now, false, options));
      dictionary_blocks.emplace_back(block.offset, block.metadata_length, block.body_length);
      dictionaries[id] = now;
      if (previous && current[id].parent >= 0)
        rewrite[static_cast<size_t>(current[id].parent)] = true;
    }
    return Status::OK();
  }

  // The sink, the schema and the options, checked before anything is
  // written (a codec this build lacks fails here).
  Status Check() const {
    if (!sink) return Status::Invalid("IPC writer has no sink");
    if (!schema) return Status::Invalid("IPC writer has no schema");
    QUIVER_RETURN_NOT_OK(CheckCodec(options.compression));
    QUIVER_RETURN_NOT_OK(CheckLevel(options.compression, options.compression_level));
    QUIVER_RETURN_NOT_OK(CheckLimit(options.max_batch_rows, "max_batch_rows"));
    QUIVER_RETURN_NOT_OK(CheckLimit(options.max_batch_bytes, "max_batch_bytes"));
    return CheckBlockBytes(options.compression_block_bytes);
  }

  Status Open() {
    QUIVER_RETURN_NOT_OK(Check());
    // Writers write the canonical storage only (canonical_storage.h).
    QUIVER_ASSIGN_OR_RETURN(schema, internal::CanonicalSchema(schema));
    return WriteSchemaMessage(*sink, *schema).status();
  }

  // Writes `given` as one or more record batch messages (CutBatch), the
  // dictionaries it brings first. A stream flushes each message whole: a
  // reader at the other end of a pipe or socket gets every batch as soon
  // as it is written.
  Status Write(const RecordBatch& given) {
    if (closed) return Status::Invalid("cannot write to a closed IPC writer");
    QUIVER_RETURN_NOT_OK(failure);
    const RecordBatchPtr alias(RecordBatchPtr{}, &given);  // not owned: used during the call
    QUIVER_ASSIGN_OR_RETURN(SchemaPtr canonical, internal::CanonicalSchema(given.schema()));
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr rewritten, internal::CanonicalBatch(alias, canonical));
    QUIVER_RETURN_NOT_OK(CheckBatchSchema(*schema, *rewritten));
    // Cut before anything is written: a batch that cannot be measured
    // leaves the writer usable.
    QUIVER_ASSIGN_OR_RETURN(std::vector<RecordBatchPtr> pieces, CutBatch(rewritten, options));
    const int64_t start = sink->position();
    Status written = [&]() -> Status {
      QUIVER_RETURN_NOT_OK(WriteDictionaries(*rewritten));
      for (const RecordBatchPtr& piece : pieces) {
        QUIVER_ASSIGN_OR_RETURN(WrittenBlock block,
                                WriteRecordBatchMessage(*sink, *piece, options));
        batch_blocks.emplace_back(block.offset, block.metadata_length, block.body_length);
        batch_rows.push_back(piece->num_rows());
        if (!file_format) QUIVER_RETURN_NOT_OK(sink->Flush());
      }
      return Status::OK();
    }();
    if (written.ok()) {
      ++batches_given;
    } else if (sink->position() != start || written.code() == StatusCode::kIOError) {
      Latch(written);  // a sink error may have left part of a message
    }
    return written;
  }

  // A write that failed after part of a message reached the sink leaves
  // the output unreadable from there on: every later write, and Close,
  // reports that failure instead of adding to it.
  Status failure;
  void Latch(const Status& st) {
    failure =
        st.WithContext("the IPC writer stopped after a failed write; its output is incomplete");
  }
};

}  // namespace

struct StreamWriter::Impl {
  WriterState state;
};

StreamWriter::StreamWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamWriter::~StreamWriter() = default;

Result<std::unique_ptr<StreamWriter>> StreamWriter::Open(std::shared_ptr<OutputSink> sink,
                                                         SchemaPtr schema, WriteOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->state = WriterState{std::move(sink), std::move(schema), options};
  QUIVER_RETURN_NOT_OK(impl->state.Open());
  QUIVER_RETURN_NOT_OK(impl->state.sink->Flush());
  return std::unique_ptr<StreamWriter>(new StreamWriter(std::move(impl)));
}

Status StreamWriter::Write(const RecordBatch& batch) { return impl_->state.Write(batch); }

Status StreamWriter::Close() {
  if (impl_->state.closed) return impl_->state.failure;
  impl_->state.closed = true;
  QUIVER_RETURN_NOT_OK(impl_->state.failure);
  Status st = WriteEndOfStream(*impl_->state.sink);
  if (st.ok()) st = impl_->state.sink->Flush();
  impl_->state.failure = st;  // a second Close says the same
  return st;
}

struct FileWriter::Impl {
  WriterState state;
};

FileWriter::FileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::shared_ptr<OutputSink> sink,
                                                     SchemaPtr schema, WriteOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->state = WriterState{std::move(sink), std::move(schema), options};
  impl->state.file_format = true;
  QUIVER_RETURN_NOT_OK(impl->state.Check());  // before the magic
  QUIVER_RETURN_NOT_OK(impl->state.sink->Write(kFileMagic, 8));
  QUIVER_RETURN_NOT_OK(impl->state.Open());
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(impl)));
}

Status FileWriter::Write(const RecordBatch& batch) { return impl_->state.Write(batch); }

Status FileWriter::Close() {
  WriterState& state = impl_->state;
  if (state.closed) return state.failure;
  state.closed = true;
  QUIVER_RETURN_NOT_OK(state.failure);  // no footer over a broken body
  state.failure = WriteFooter();        // a second Close says the same
  return state.failure;
}

Status FileWriter::WriteFooter() {
  WriterState& state = impl_->state;
  OutputSink& sink = *state.sink;
  QUIVER_RETURN_NOT_OK(WriteEndOfStream(sink));
  flatbuffers::FlatBufferBuilder builder(1024);
  QUIVER_ASSIGN_OR_RETURN(auto schema, WriteSchema(builder, *state.schema));
  // The row counts let a reader plan over the file's rows from the footer
  // alone (FileReader::FooterRecordBatchRows); other readers ignore them.
  const KeyValueOffsets metadata = WriteKeyValues(
      builder, {{std::string(kRecordBatchRowsKey), FormatRecordBatchRows(state.batch_rows)}});
  builder.Finish(fb::CreateFooter(builder, fb::MetadataVersion::V5, schema,
                                  builder.CreateVectorOfStructs(state.dictionary_blocks),
                                  builder.CreateVectorOfStructs(state.batch_blocks), metadata));
  const int32_t footer_length = static_cast<int32_t>(builder.GetSize());
  QUIVER_RETURN_NOT_OK(sink.Write(builder.GetBufferPointer(), footer_length));
  QUIVER_RETURN_NOT_OK(sink.Write(&footer_length, 4));
  return sink.Write(kFileMagic, 6);
}

}  // namespace quiver::ipc
