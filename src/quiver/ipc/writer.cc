// IPC stream and file writers.
#include <cstring>
#include <vector>

#include "File_generated.h"
#include "quiver/extension/canonical_storage.h"
#include "quiver/ipc.h"
#include "quiver/ipc/codec.h"
#include "quiver/ipc/encoder.h"
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
  int64_t batches_written = 0;

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
        return Status::Invalid("batch ", batches_written, " brings a new dictionary for id ", id,
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

  Status Open() {
    if (!sink) return Status::Invalid("IPC writer has no sink");
    if (!schema) return Status::Invalid("IPC writer has no schema");
    // A codec this build lacks fails here, before anything is written.
    QUIVER_RETURN_NOT_OK(CheckCodec(options.compression));
    QUIVER_RETURN_NOT_OK(CheckLevel(options.compression, options.compression_level));
    // Writers write the canonical storage only (canonical_storage.h).
    QUIVER_ASSIGN_OR_RETURN(schema, internal::CanonicalSchema(schema));
    return WriteSchemaMessage(*sink, *schema).status();
  }

  Result<WrittenBlock> Write(const RecordBatch& given) {
    if (closed) return Status::Invalid("cannot write to a closed IPC writer");
    QUIVER_RETURN_NOT_OK(failure);
    const RecordBatchPtr alias(RecordBatchPtr{}, &given);  // not owned: used during the call
    QUIVER_ASSIGN_OR_RETURN(SchemaPtr canonical, internal::CanonicalSchema(given.schema()));
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr rewritten, internal::CanonicalBatch(alias, canonical));
    const RecordBatch& batch = *rewritten;
    QUIVER_RETURN_NOT_OK(CheckBatchSchema(*schema, batch));
    const int64_t start = sink->position();
    Result<WrittenBlock> written = [&]() -> Result<WrittenBlock> {
      QUIVER_RETURN_NOT_OK(WriteDictionaries(batch));
      return WriteRecordBatchMessage(*sink, batch, options);
    }();
    if (written.ok()) {
      ++batches_written;
    } else if (sink->position() != start || written.status().code() == StatusCode::kIOError) {
      Latch(written.status());  // a sink error may have left part of a message
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

// Each message is flushed whole: a reader at the other end of a pipe or
// socket gets every batch as soon as it is written.
Status StreamWriter::Write(const RecordBatch& batch) {
  QUIVER_RETURN_NOT_OK(impl_->state.Write(batch).status());
  Status flushed = impl_->state.sink->Flush();
  if (!flushed.ok()) impl_->state.Latch(flushed);
  return flushed;
}

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
  std::vector<fb::Block> batches;
};

FileWriter::FileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::shared_ptr<OutputSink> sink,
                                                     SchemaPtr schema, WriteOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->state = WriterState{std::move(sink), std::move(schema), options};
  impl->state.file_format = true;
  if (impl->state.sink) QUIVER_RETURN_NOT_OK(impl->state.sink->Write(kFileMagic, 8));
  QUIVER_RETURN_NOT_OK(impl->state.Open());
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(impl)));
}

Status FileWriter::Write(const RecordBatch& batch) {
  QUIVER_ASSIGN_OR_RETURN(WrittenBlock block, impl_->state.Write(batch));
  impl_->batches.emplace_back(block.offset, block.metadata_length, block.body_length);
  return Status::OK();
}

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
  builder.Finish(fb::CreateFooter(builder, fb::MetadataVersion::V5, schema,
                                  builder.CreateVectorOfStructs(state.dictionary_blocks),
                                  builder.CreateVectorOfStructs(impl_->batches)));
  const int32_t footer_length = static_cast<int32_t>(builder.GetSize());
  QUIVER_RETURN_NOT_OK(sink.Write(builder.GetBufferPointer(), footer_length));
  QUIVER_RETURN_NOT_OK(sink.Write(&footer_length, 4));
  return sink.Write(kFileMagic, 6);
}

}  // namespace quiver::ipc
