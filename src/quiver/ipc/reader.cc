// IPC stream and file readers.
#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "File_generated.h"
#include "quiver/extension/canonical_storage.h"
#include "quiver/internal/threads.h"
#include "quiver/ipc.h"
#include "quiver/ipc/decoder.h"
#include "quiver/ipc/file_kind.h"
#include "quiver/ipc/footer_rows.h"
#include "quiver/ipc/message.h"
#include "quiver/ipc/reader.h"

namespace quiver::ipc {

Result<SchemaPtr> SchemaFromMessage(const Message& message) {
  const fb::Schema* schema = message.header->header_as_Schema();
  if (schema == nullptr) {
    return Status::Invalid(message.Where(), " should be a schema, is a ",
                           fb::EnumNameMessageHeader(message.header->header_type()), " message");
  }
  auto read = ReadSchema(schema);
  if (!read.ok()) return read.status().WithContext(message.Where());
  return read;
}

Endianness EndiannessOf(const fb::Schema* schema) {
  return schema->endianness() == fb::Endianness::Big ? Endianness::kBig : Endianness::kLittle;
}

Result<bool> SwapFor(Endianness endianness, const ReadOptions& options, const std::string& where) {
  const Endianness native =
      std::endian::native == std::endian::big ? Endianness::kBig : Endianness::kLittle;
  if (endianness == native) return false;
  if (!options.swap_endian) {
    return Status::NotImplemented(
        where, ": the data is ", endianness == Endianness::kBig ? "big" : "little",
        "-endian, not in this machine's byte order, and swap_endian is off; quiver's kernels read "
        "native order only (read it with swap_endian=True)");
  }
  return true;
}

namespace {

Status RefuseUnsupported(const Message& message) {
  switch (message.header->header_type()) {
    case fb::MessageHeader::Schema:
      return Status::Invalid(message.Where(), ": a second schema message in the stream");
    default:
      return Status::Invalid(message.Where(), ": unexpected ",
                             std::string(fb::EnumNameMessageHeader(message.header->header_type())),
                             " message in a record batch stream");
  }
}

// Runs decode(i) for every i in [0, count) on up to `threads` threads and
// appends the batches to *out in order. On failure, the lowest batch's
// error (ParallelTasks'): the one a read in order meets.
template <typename Decode>
Status DecodeInOrder(int64_t count, int threads, Decode&& decode,
                     std::vector<RecordBatchPtr>* out) {
  const size_t first = out->size();
  out->resize(first + static_cast<size_t>(count));
  return internal::ParallelTasks(count, threads, [&](int64_t i) {
    QUIVER_ASSIGN_OR_RETURN((*out)[first + static_cast<size_t>(i)], decode(i));
    return Status::OK();
  });
}

}  // namespace

struct StreamReader::Impl {
  std::shared_ptr<InputStream> stream;
  ReadOptions options;
  SchemaPtr schema;     // as the stream describes its batches
  SchemaPtr canonical;  // what the reader hands out (canonical_storage.h)
  DictionaryMemo dictionaries;
  Endianness endianness = Endianness::kLittle;
  bool finished = false;
  Status failure;
  Compression last_compression = Compression::kNone;
  // The record batch message NextLayout() last returned, for ReadBodyBuffer.
  std::optional<Message> current;
  BatchLayout current_layout;  // its buffers and codec (DescribeBuffers)

  int64_t dictionary_batches = 0;  // decoded so far (ReadAll's snapshots)
  int64_t record_batches = 0;      // record batch messages read so far

  Result<RecordBatchPtr> ReadNext();
  Result<std::vector<RecordBatchPtr>> ReadAll(int threads, ValidationLevel validation);
  // A record batch message decoded with `memo`, in the canonical schema,
  // validated at `validation`.
  Result<RecordBatchPtr> Decode(const Message& message, const DictionaryMemo& memo,
                                ValidationLevel validation) const;
  Result<std::optional<BatchLayout>> ReadNextLayout();
  // The next record batch message (dictionary batches before it decoded
  // into `dictionaries`), or nullopt at the end of the stream.
  Result<std::optional<Message>> NextBatchMessage();
};

StreamReader::StreamReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamReader::~StreamReader() = default;

Result<std::unique_ptr<StreamReader>> StreamReader::Open(std::shared_ptr<InputSource> source,
                                                         ReadOptions options) {
  if (!source) return Status::Invalid("IPC stream reader has no source");
  return Open(SourceStream(std::move(source)), options);
}

Result<std::unique_ptr<StreamReader>> StreamReader::Open(std::shared_ptr<InputStream> stream,
                                                         ReadOptions options) {
  if (!stream) return Status::Invalid("IPC stream reader has no stream");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  // Another kind of file is named before its bytes are parsed as messages.
  BufferPtr head;
  QUIVER_ASSIGN_OR_RETURN(FileKind kind, PeekFileKind(&stream, &head));
  QUIVER_RETURN_NOT_OK(CheckFileKind(kind, FileKind::kIpcStream, stream->name(),
                                     {head->data(), static_cast<size_t>(head->size())}));
  impl->stream = std::move(stream);
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> first, ReadMessage(*impl->stream));
  if (!first) return Status::Invalid("the IPC stream is empty: it has no schema message");
  QUIVER_ASSIGN_OR_RETURN(impl->schema, SchemaFromMessage(*first));
  impl->endianness = EndiannessOf(first->header->header_as_Schema());
  Status memo =
      InitDictionaryMemo(first->header->header_as_Schema(), *impl->schema, &impl->dictionaries);
  if (!memo.ok()) return memo.WithContext(first->Where());
  QUIVER_ASSIGN_OR_RETURN(impl->canonical, internal::CanonicalSchema(impl->schema));
  return std::unique_ptr<StreamReader>(new StreamReader(std::move(impl)));
}

const SchemaPtr& StreamReader::schema() const { return impl_->canonical; }

Endianness StreamReader::endianness() const { return impl_->endianness; }

Result<RecordBatchPtr> StreamReader::Next() {
  // After a failed read the stream's position lies inside a message: every
  // later call reports the same failure instead of parsing from there.
  if (!impl_->failure.ok()) return impl_->failure;
  impl_->current.reset();
  auto next = impl_->ReadNext();
  if (!next.ok()) impl_->failure = next.status();
  return next;
}

Result<std::optional<BatchLayout>> StreamReader::NextLayout() {
  if (!impl_->failure.ok()) return impl_->failure;
  impl_->current.reset();
  auto next = impl_->ReadNextLayout();
  if (!next.ok()) impl_->failure = next.status();
  return next;
}

Result<BufferPtr> StreamReader::ReadBodyBuffer(int64_t buffer) {
  if (!impl_->current) {
    return Status::Invalid(
        "ReadBodyBuffer reads the body of the batch NextLayout() returned; "
        "there is none");
  }
  return LoadBodyBuffer(*impl_->current, impl_->current_layout, buffer, impl_->options);
}

Result<BodyBufferSize> StreamReader::ReadBodyBufferSize(int64_t buffer) {
  if (!impl_->current) {
    return Status::Invalid(
        "ReadBodyBufferSize reads the body of the batch NextLayout() "
        "returned; there is none");
  }
  return LoadBodyBufferSize(*impl_->current, impl_->current_layout, buffer, impl_->options);
}

Result<std::optional<Message>> StreamReader::Impl::NextBatchMessage() {
  while (!finished) {
    QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessage(*stream));
    if (!message) {
      finished = true;
      break;
    }
    switch (message->header->header_type()) {
      case fb::MessageHeader::DictionaryBatch: {
        // Data kept in its non-native order (swap_endian off) is never
        // decoded: NextLayout() goes past its dictionaries, and Next()
        // refuses the batch that would use them.
        const Result<bool> swap = SwapFor(endianness, options, message->Where());
        if (!swap.ok()) continue;
        QUIVER_RETURN_NOT_OK(DecodeDictionaryBatch(*message, &dictionaries, options, *swap));
        ++dictionary_batches;
        continue;  // dictionaries come before the batches that use them
      }
      case fb::MessageHeader::RecordBatch: ++record_batches; return message;
      default: return RefuseUnsupported(*message);
    }
  }
  return std::optional<Message>();
}

Result<RecordBatchPtr> StreamReader::Impl::ReadNext() {
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, NextBatchMessage());
  if (!message) return RecordBatchPtr{};
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, Decode(*message, dictionaries, options.validation));
  // Decoding checked the header: it is a RecordBatch with a known codec.
  last_compression = *BodyCodec(*message, *message->header->header_as_RecordBatch());
  return batch;
}

Result<RecordBatchPtr> StreamReader::Impl::Decode(const Message& message,
                                                  const DictionaryMemo& memo,
                                                  ValidationLevel validation) const {
  QUIVER_ASSIGN_OR_RETURN(const bool swap, SwapFor(endianness, options, message.Where()));
  ReadOptions batch_options = options;
  batch_options.validation = validation;
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch,
                          DecodeRecordBatch(message, schema, memo, batch_options, swap));
  auto out = internal::CanonicalBatch(batch, canonical);
  if (!out.ok()) return out.status().WithContext(message.Where());
  return out;
}

Result<std::vector<RecordBatchPtr>> StreamReader::ReadAll(
    int threads, std::optional<ValidationLevel> validation) {
  if (!impl_->failure.ok()) return impl_->failure;
  impl_->current.reset();
  auto all = impl_->ReadAll(threads, validation.value_or(impl_->options.validation));
  if (!all.ok()) impl_->failure = all.status();
  return all;
}

Result<std::vector<RecordBatchPtr>> StreamReader::Impl::ReadAll(int threads,
                                                                ValidationLevel validation) {
  // Messages are read in order, a window at a time, and the window's
  // batches decoded together; each batch sees the dictionaries of its
  // place in the stream (a snapshot, shared until a dictionary batch
  // changes them). The window bounds what is held undecoded.
  struct Pending {
    Message message;
    std::shared_ptr<const DictionaryMemo> dictionaries;
  };
  const int64_t window = int64_t{4} * internal::ThreadCount(threads);
  std::vector<RecordBatchPtr> out;
  std::shared_ptr<const DictionaryMemo> snapshot;
  while (true) {
    std::vector<Pending> pending;
    while (static_cast<int64_t>(pending.size()) < window) {
      const int64_t before = dictionary_batches;
      QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, NextBatchMessage());
      if (!message) break;
      if (!snapshot || dictionary_batches != before) {
        snapshot = std::make_shared<const DictionaryMemo>(dictionaries);
      }
      pending.push_back({std::move(*message), snapshot});
    }
    if (pending.empty()) return out;
    QUIVER_RETURN_NOT_OK(DecodeInOrder(
        static_cast<int64_t>(pending.size()), threads,
        [&](int64_t i) {
          const Pending& p = pending[static_cast<size_t>(i)];
          return Decode(p.message, *p.dictionaries, validation);
        },
        &out));
    const Message& last = pending.back().message;
    last_compression = *BodyCodec(last, *last.header->header_as_RecordBatch());
  }
}

Result<std::optional<BatchLayout>> StreamReader::Impl::ReadNextLayout() {
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, NextBatchMessage());
  if (!message) return std::optional<BatchLayout>();
  const fb::RecordBatch& header = *message->header->header_as_RecordBatch();
  QUIVER_ASSIGN_OR_RETURN(BatchLayout layout,
                          DescribeBody(*message, header, *schema, &dictionaries.ids));
  last_compression = layout.compression;
  current_layout.compression = layout.compression;
  current_layout.buffers = layout.buffers;
  current = std::move(message);
  return std::optional<BatchLayout>(std::move(layout));
}

struct FileReader::Impl {
  std::shared_ptr<InputSource> source;
  ReadOptions options;
  SchemaPtr schema;        // as the file describes its batches
  SchemaPtr canonical;     // what the reader hands out (canonical_storage.h)
  BufferPtr footer_bytes;  // the reader's own copy; keeps `footer` alive
  const fb::Footer* footer = nullptr;
  std::vector<fb::Block> batch_blocks;       // checked against the file on open
  std::vector<fb::Block> dictionary_blocks;  // likewise
  DictionaryMemo dictionaries;
  Endianness endianness = Endianness::kLittle;
  bool swap = false;  // the file is not in native order (and swap_endian is on)
  // Dictionaries are read with the first batch, not on open; threads
  // reading batches at once read them once.
  std::once_flag dictionaries_once;
  Status dictionaries_status;
  // The batch message ReadBodyBuffer read last (with its buffers), so that
  // reading a batch's buffers one by one parses its header once.
  std::mutex last_mutex;
  int last_batch = -1;
  std::shared_ptr<const Message> last_message;
  std::shared_ptr<const BatchLayout> last_buffers;

  struct BatchBody {
    std::shared_ptr<const Message> message;
    std::shared_ptr<const BatchLayout> layout;  // codec and buffer spans only
  };
  Status CheckBatchIndex(int batch) const {
    const int count = static_cast<int>(batch_blocks.size());
    if (batch < 0 || batch >= count) {
      return Status::IndexError("record batch ", batch, " is out of range for ", count, " batches");
    }
    return Status::OK();
  }

  // Record batch i, its values validated at `validation`.
  Result<RecordBatchPtr> ReadBatch(int i, ValidationLevel validation);
  // The message of record batch `batch`, its index checked.
  Result<Message> BatchMessage(int batch) {
    QUIVER_RETURN_NOT_OK(CheckBatchIndex(batch));
    return ReadBlock(batch_blocks[static_cast<size_t>(batch)], fb::MessageHeader::RecordBatch,
                     "record batch " + std::to_string(batch));
  }
  // Its header alone: what the layout, the codec and single buffers need
  // (inspecting a large file reads no body it does not look at).
  Result<Message> BatchHead(int batch) {
    QUIVER_RETURN_NOT_OK(CheckBatchIndex(batch));
    return ReadBlockHead(batch_blocks[static_cast<size_t>(batch)], fb::MessageHeader::RecordBatch,
                         "record batch " + std::to_string(batch));
  }

  // The message of record batch `batch` and its buffer spans (cached).
  Result<BatchBody> BodyOf(int batch) {
    QUIVER_RETURN_NOT_OK(CheckBatchIndex(batch));
    {
      std::lock_guard<std::mutex> lock(last_mutex);
      if (last_batch == batch) return BatchBody{last_message, last_buffers};
    }
    const std::string where = "record batch " + std::to_string(batch);
    QUIVER_ASSIGN_OR_RETURN(Message message, BatchHead(batch));
    auto shared = std::make_shared<const Message>(std::move(message));
    auto buffers = DescribeBuffers(*shared, *shared->header->header_as_RecordBatch());
    if (!buffers.ok()) return buffers.status().WithContext(where);
    BatchBody out{shared, std::make_shared<const BatchLayout>(std::move(*buffers))};
    std::lock_guard<std::mutex> lock(last_mutex);
    last_batch = batch;
    last_message = out.message;
    last_buffers = out.layout;
    return out;
  }

  // The message a footer block points at, which must be of `kind` and have
  // the block's sizes.
  // Read as one message (a mapped file viewed once, its size checked once);
  // its head checked against the block before the body is read.
  Result<Message> ReadBlock(const fb::Block& block, fb::MessageHeader kind,
                            const std::string& where) {
    QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message,
                            ReadMessage(*source, block.offset(), [&](const Message& head) {
                              return CheckBlockHead(head, block, kind, where);
                            }));
    if (!message) return Status::Invalid(where, ": no message at byte ", block.offset());
    return std::move(*message);
  }

  // Its prefix and metadata alone (message.body stays null).
  Result<Message> ReadBlockHead(const fb::Block& block, fb::MessageHeader kind,
                                const std::string& where) {
    QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message,
                            ReadMessageHead(*source, block.offset()));
    if (!message) return Status::Invalid(where, ": no message at byte ", block.offset());
    QUIVER_RETURN_NOT_OK(CheckBlockHead(*message, block, kind, where));
    return std::move(*message);
  }

  // A message's head against the footer's block: its kind and its lengths.
  // (CheckedBlocks put the body before the footer, inside the source.)
  static Status CheckBlockHead(const Message& message, const fb::Block& block,
                               fb::MessageHeader kind, const std::string& where) {
    if (message.header->header_type() != kind) {
      return Status::Invalid(where, ": the footer points at a ",
                             std::string(fb::EnumNameMessageHeader(message.header->header_type())),
                             " message, not a ", fb::EnumNameMessageHeader(kind));
    }
    if (message.header->body_length() != block.body_length() ||
        message.size != block.metadata_length()) {
      return Status::Invalid(where, ": the footer says ", block.metadata_length(),
                             " bytes of metadata and a ", block.body_length(),
                             "-byte body, the message at byte ", block.offset(), " has ",
                             message.size, " and ", message.header->body_length());
    }
    return Status::OK();
  }

  // Every dictionary the footer lists, in order (deltas apply in order).
  Status ReadDictionaries() {
    for (size_t i = 0; i < dictionary_blocks.size(); ++i) {
      const std::string where = "dictionary block " + std::to_string(i);
      QUIVER_ASSIGN_OR_RETURN(
          Message message,
          ReadBlock(dictionary_blocks[i], fb::MessageHeader::DictionaryBatch, where));
      Status st = DecodeDictionaryBatch(message, &dictionaries, options, swap);
      if (!st.ok()) return st.WithContext(where);
    }
    return Status::OK();
  }
};

namespace {

// A footer's blocks, each checked to lie between the leading magic and the
// footer: offset, metadata length and body length non-negative and adding
// up without overflow.
Result<std::vector<fb::Block>> CheckedBlocks(const flatbuffers::Vector<const fb::Block*>* blocks,
                                             int64_t footer_start, const char* kind) {
  std::vector<fb::Block> out;
  if (blocks == nullptr) return out;
  out.reserve(blocks->size());
  for (flatbuffers::uoffset_t i = 0; i < blocks->size(); ++i) {
    const fb::Block block = LoadStruct(blocks, i);
    const int64_t offset = block.offset();
    const int64_t metadata = block.metadata_length();
    const int64_t body = block.body_length();
    if (offset < 8 || metadata <= 0 || body < 0 || offset > footer_start ||
        metadata > footer_start - offset || body > footer_start - offset - metadata) {
      return Status::Invalid("file footer: ", kind, " block ", i, " (offset ", offset, ", ",
                             metadata, " bytes of metadata, ", body,
                             "-byte body) does not lie between byte 8 and the footer at byte ",
                             footer_start);
    }
    out.push_back(block);
  }
  return out;
}

}  // namespace

Result<FileFooter> ReadFileFooter(InputSource& source, const ReadOptions& options) {
  const int64_t size = source.size();
  // magic (6) + padding (2) at the start; footer, int32 length, magic at the end.
  if (size < 8 + 4 + 6) {
    return Status::Invalid("a ", size, "-byte file is too short for the Arrow IPC file format");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr head, source.ReadAt(0, 6));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr tail, source.ReadAt(size - 10, 10));
  if (std::memcmp(head->data(), kMagic, 6) != 0) {
    return Status::Invalid("not an Arrow IPC file: bad magic at byte 0");
  }
  if (std::memcmp(tail->data() + 4, kMagic, 6) != 0) {
    return Status::Invalid("not a complete Arrow IPC file: bad magic at byte ", size - 6,
                           " (truncated?)");
  }
  int32_t footer_length;
  std::memcpy(&footer_length, tail->data(), 4);
  const int64_t footer_start = size - 10 - footer_length;
  if (footer_length <= 0 || footer_start < 8) {
    return Status::Invalid("the footer length ", footer_length, " at byte ", size - 10,
                           " does not fit a ", size, "-byte file");
  }
  FileFooter out;
  // The footer is verified once and read on every call after: it lives in
  // memory of the reader's own, whatever happens to the source's bytes.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr raw, source.ReadAt(footer_start, footer_length));
  QUIVER_ASSIGN_OR_RETURN(out.bytes, Buffer::AllocateUninitialized(footer_length));
  std::memcpy(out.bytes->mutable_data(), raw->data(), static_cast<size_t>(footer_length));
  QUIVER_RETURN_NOT_OK(
      VerifyFlatbuffer<fb::Footer>(out.bytes->data(), footer_length, "file footer", footer_start));
  out.footer = flatbuffers::GetRoot<fb::Footer>(out.bytes->data());
  auto schema = ReadSchema(out.footer->schema());
  if (!schema.ok()) return schema.status().WithContext("file footer");
  out.schema = *schema;
  QUIVER_ASSIGN_OR_RETURN(out.canonical, internal::CanonicalSchema(out.schema));
  out.endianness = EndiannessOf(out.footer->schema());
  const Result<bool> swap = SwapFor(out.endianness, options, "");
  // When swapping is refused, every batch read says why.
  out.swap = swap.ok() && *swap;
  out.dictionaries.file_format = true;  // replacements refused, deltas applied in order
  QUIVER_RETURN_NOT_OK(InitDictionaryMemo(out.footer->schema(), *out.schema, &out.dictionaries));
  QUIVER_ASSIGN_OR_RETURN(
      out.batch_blocks, CheckedBlocks(out.footer->record_batches(), footer_start, "record batch"));
  QUIVER_ASSIGN_OR_RETURN(out.dictionary_blocks,
                          CheckedBlocks(out.footer->dictionaries(), footer_start, "dictionary"));
  return out;
}

FileReader::FileReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileReader::~FileReader() = default;

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<InputSource> source,
                                                     ReadOptions options) {
  if (!source) return Status::Invalid("IPC file reader has no source");
  const int64_t size = source->size();
  {
    // Another kind of file is named before the IPC checks below.
    QUIVER_ASSIGN_OR_RETURN(BufferPtr head, source->ReadAt(0, std::min(size, kSniffBytes)));
    const std::span<const uint8_t> bytes(head->data(), static_cast<size_t>(head->size()));
    QUIVER_RETURN_NOT_OK(CheckFileKind(SniffFileKind(bytes, size <= kSniffBytes),
                                       FileKind::kIpcFile, source->name(), bytes));
  }
  QUIVER_ASSIGN_OR_RETURN(FileFooter footer, ReadFileFooter(*source, options));
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(source);
  impl->options = options;
  impl->footer_bytes = std::move(footer.bytes);
  impl->footer = footer.footer;
  impl->schema = std::move(footer.schema);
  impl->canonical = std::move(footer.canonical);
  impl->endianness = footer.endianness;
  impl->swap = footer.swap;
  impl->dictionaries = std::move(footer.dictionaries);
  impl->batch_blocks = std::move(footer.batch_blocks);
  impl->dictionary_blocks = std::move(footer.dictionary_blocks);
  return std::unique_ptr<FileReader>(new FileReader(std::move(impl)));
}

const SchemaPtr& FileReader::schema() const { return impl_->canonical; }

Endianness FileReader::endianness() const { return impl_->endianness; }

int FileReader::num_record_batches() const { return static_cast<int>(impl_->batch_blocks.size()); }

std::optional<std::vector<int64_t>> FileReader::FooterRecordBatchRows() const {
  return RecordBatchRowsOf(ReadKeyValues(impl_->footer->custom_metadata()),
                           static_cast<int64_t>(impl_->batch_blocks.size()));
}

Compression StreamReader::last_compression() const { return impl_->last_compression; }

int64_t StreamReader::record_batches_read() const { return impl_->record_batches; }

Result<std::vector<RecordBatchPtr>> FileReader::ReadAllRecordBatches(
    int threads, std::optional<ValidationLevel> validation) {
  const ValidationLevel level = validation.value_or(impl_->options.validation);
  std::vector<RecordBatchPtr> batches;
  QUIVER_RETURN_NOT_OK(DecodeInOrder(
      num_record_batches(), threads,
      [&](int64_t i) { return impl_->ReadBatch(static_cast<int>(i), level); }, &batches));
  return batches;
}

Result<Compression> FileReader::RecordBatchCompression(int i) {
  QUIVER_ASSIGN_OR_RETURN(Message message, impl_->BatchHead(i));
  return BodyCodec(message, *message.header->header_as_RecordBatch());
}

Result<BatchLayout> FileReader::RecordBatchLayout(int i) {
  const std::string where = "record batch " + std::to_string(i);
  QUIVER_ASSIGN_OR_RETURN(Message message, impl_->BatchHead(i));
  auto layout = DescribeBody(message, *message.header->header_as_RecordBatch(), *impl_->schema,
                             &impl_->dictionaries.ids);
  if (!layout.ok()) return layout.status().WithContext(where);
  return layout;
}

Result<BufferPtr> FileReader::ReadBodyBuffer(int batch, int64_t buffer) {
  QUIVER_ASSIGN_OR_RETURN(const Impl::BatchBody body, impl_->BodyOf(batch));
  auto out =
      LoadBodyBuffer(*body.message, *body.layout, buffer, impl_->options, impl_->source.get());
  if (!out.ok()) return out.status().WithContext("record batch " + std::to_string(batch));
  return out;
}

Result<BodyBufferSize> FileReader::ReadBodyBufferSize(int batch, int64_t buffer) {
  QUIVER_ASSIGN_OR_RETURN(const Impl::BatchBody body, impl_->BodyOf(batch));
  auto out =
      LoadBodyBufferSize(*body.message, *body.layout, buffer, impl_->options, impl_->source.get());
  if (!out.ok()) return out.status().WithContext("record batch " + std::to_string(batch));
  return out;
}

Result<RecordBatchPtr> FileReader::ReadRecordBatch(int i) {
  return impl_->ReadBatch(i, impl_->options.validation);
}

Result<RecordBatchPtr> FileReader::Impl::ReadBatch(int i, ValidationLevel validation) {
  QUIVER_RETURN_NOT_OK(CheckBatchIndex(i));  // before the byte-order refusal
  const std::string where = "record batch " + std::to_string(i);
  QUIVER_ASSIGN_OR_RETURN(const bool swap_bytes, SwapFor(endianness, options, where));
  QUIVER_ASSIGN_OR_RETURN(Message message, BatchMessage(i));
  std::call_once(dictionaries_once, [&] { dictionaries_status = ReadDictionaries(); });
  QUIVER_RETURN_NOT_OK(dictionaries_status);
  ReadOptions batch_options = options;
  batch_options.validation = validation;
  auto batch = DecodeRecordBatch(message, schema, dictionaries, batch_options, swap_bytes);
  if (!batch.ok()) return batch.status().WithContext(where);
  auto out = internal::CanonicalBatch(*batch, canonical);
  if (!out.ok()) return out.status().WithContext(where);
  return out;
}

}  // namespace quiver::ipc
