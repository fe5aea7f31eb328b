// IPC stream and file readers.
#include <cstring>
#include <string>

#include "File_generated.h"
#include "quiver/ipc.h"
#include "quiver/ipc/decoder.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

namespace {

constexpr char kMagic[6] = {'A', 'R', 'R', 'O', 'W', '1'};

Result<SchemaPtr> SchemaFromMessage(const Message& message) {
  const fb::Schema* schema = message.header->header_as_Schema();
  if (schema == nullptr) {
    return Status::Invalid(message.Where() + " should be a schema, is a " +
                           fb::EnumNameMessageHeader(message.header->header_type()) + " message");
  }
  auto read = ReadSchema(schema);
  if (!read.ok()) return read.status().WithContext(message.Where());
  return read;
}

Status RefuseUnsupported(const Message& message) {
  switch (message.header->header_type()) {
    case fb::MessageHeader::Schema:
      return Status::Invalid(message.Where() + ": a second schema message in the stream");
    default:
      return Status::Invalid(message.Where() + ": unexpected " +
                             std::string(fb::EnumNameMessageHeader(message.header->header_type())) +
                             " message in a record batch stream");
  }
}

}  // namespace

struct StreamReader::Impl {
  std::shared_ptr<InputSource> source;
  ReadOptions options;
  SchemaPtr schema;
  DictionaryMemo dictionaries;
  int64_t position = 0;
  bool finished = false;
};

StreamReader::StreamReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamReader::~StreamReader() = default;

Result<std::unique_ptr<StreamReader>> StreamReader::Open(std::shared_ptr<InputSource> source,
                                                         ReadOptions options) {
  if (!source) return Status::Invalid("IPC stream reader has no source");
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(source);
  impl->options = options;
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> first, ReadMessage(*impl->source, 0));
  if (!first) return Status::Invalid("the IPC stream is empty: it has no schema message");
  QUIVER_ASSIGN_OR_RETURN(impl->schema, SchemaFromMessage(*first));
  Status memo = InitDictionaryMemo(first->header->header_as_Schema(), *impl->schema, &impl->dictionaries);
  if (!memo.ok()) return memo.WithContext(first->Where());
  impl->position = first->size;
  return std::unique_ptr<StreamReader>(new StreamReader(std::move(impl)));
}

const SchemaPtr& StreamReader::schema() const { return impl_->schema; }

Result<RecordBatchPtr> StreamReader::Next() {
  while (!impl_->finished) {
    QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessage(*impl_->source, impl_->position));
    if (!message) {
      impl_->finished = true;
      break;
    }
    impl_->position += message->size;
    switch (message->header->header_type()) {
      case fb::MessageHeader::DictionaryBatch:
        QUIVER_RETURN_NOT_OK(DecodeDictionaryBatch(*message, &impl_->dictionaries, impl_->options));
        continue;  // dictionaries come before the batches that use them
      case fb::MessageHeader::RecordBatch:
        return DecodeRecordBatch(*message, impl_->schema, impl_->dictionaries, impl_->options);
      default:
        return RefuseUnsupported(*message);
    }
  }
  return RecordBatchPtr{};
}

struct FileReader::Impl {
  std::shared_ptr<InputSource> source;
  ReadOptions options;
  SchemaPtr schema;
  BufferPtr footer_bytes;  // keeps `footer` alive
  const fb::Footer* footer = nullptr;
  DictionaryMemo dictionaries;
  bool dictionaries_read = false;  // read with the first batch, not on open

  // Every dictionary the footer lists, in order (deltas apply in order).
  Status ReadDictionaries() {
    const auto* blocks = footer->dictionaries();
    if (blocks == nullptr) return Status::OK();
    for (flatbuffers::uoffset_t i = 0; i < blocks->size(); ++i) {
      const fb::Block block = LoadStruct(blocks, i);
      const std::string where = "dictionary block " + std::to_string(i);
      if (block.offset() < 8 || block.offset() >= source->size()) {
        return Status::Invalid(where + ": offset " + std::to_string(block.offset()) + " lies outside the file");
      }
      QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessage(*source, block.offset()));
      if (!message || message->header->header_type() != fb::MessageHeader::DictionaryBatch) {
        return Status::Invalid(where + ": no dictionary batch at byte " + std::to_string(block.offset()));
      }
      QUIVER_RETURN_NOT_OK(DecodeDictionaryBatch(*message, &dictionaries, options));
    }
    return Status::OK();
  }
};

FileReader::FileReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileReader::~FileReader() = default;

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<InputSource> source,
                                                     ReadOptions options) {
  if (!source) return Status::Invalid("IPC file reader has no source");
  const int64_t size = source->size();
  // magic (6) + padding (2) at the start; footer, int32 length, magic at the end.
  if (size < 8 + 4 + 6) {
    return Status::Invalid("a " + std::to_string(size) + "-byte file is too short for the Arrow IPC file format");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr head, source->ReadAt(0, 6));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr tail, source->ReadAt(size - 10, 10));
  if (std::memcmp(head->data(), kMagic, 6) != 0) {
    return Status::Invalid("not an Arrow IPC file: bad magic at byte 0");
  }
  if (std::memcmp(tail->data() + 4, kMagic, 6) != 0) {
    return Status::Invalid("not a complete Arrow IPC file: bad magic at byte " + std::to_string(size - 6) +
                           " (truncated?)");
  }
  int32_t footer_length;
  std::memcpy(&footer_length, tail->data(), 4);
  const int64_t footer_start = size - 10 - footer_length;
  if (footer_length <= 0 || footer_start < 8) {
    return Status::Invalid("the footer length " + std::to_string(footer_length) + " at byte " +
                           std::to_string(size - 10) + " does not fit a " + std::to_string(size) +
                           "-byte file");
  }
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(source);
  impl->options = options;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr raw, impl->source->ReadAt(footer_start, footer_length));
  QUIVER_ASSIGN_OR_RETURN(impl->footer_bytes, AlignedTo8(std::move(raw)));
  QUIVER_RETURN_NOT_OK(VerifyFlatbuffer<fb::Footer>(impl->footer_bytes->data(), footer_length,
                                                    "file footer", footer_start));
  impl->footer = flatbuffers::GetRoot<fb::Footer>(impl->footer_bytes->data());
  auto schema = ReadSchema(impl->footer->schema());
  if (!schema.ok()) return schema.status().WithContext("file footer");
  impl->schema = *schema;
  QUIVER_RETURN_NOT_OK(InitDictionaryMemo(impl->footer->schema(), *impl->schema, &impl->dictionaries));
  return std::unique_ptr<FileReader>(new FileReader(std::move(impl)));
}

const SchemaPtr& FileReader::schema() const { return impl_->schema; }

int FileReader::num_record_batches() const {
  const auto* blocks = impl_->footer->record_batches();
  return blocks ? static_cast<int>(blocks->size()) : 0;
}

Result<RecordBatchPtr> FileReader::ReadRecordBatch(int i) {
  if (i < 0 || i >= num_record_batches()) {
    return Status::IndexError("record batch " + std::to_string(i) + " is out of range for " +
                              std::to_string(num_record_batches()) + " batches");
  }
  const fb::Block block = LoadStruct(impl_->footer->record_batches(), static_cast<flatbuffers::uoffset_t>(i));
  const std::string where = "record batch " + std::to_string(i);
  if (block.offset() < 8 || block.offset() >= impl_->source->size()) {
    return Status::Invalid(where + ": block offset " + std::to_string(block.offset()) +
                           " lies outside the file");
  }
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessage(*impl_->source, block.offset()));
  if (!message) return Status::Invalid(where + ": no message at byte " + std::to_string(block.offset()));
  if (message->body->size() != block.body_length()) {
    return Status::Invalid(where + ": the footer says a " + std::to_string(block.body_length()) +
                           "-byte body, the message has " + std::to_string(message->body->size()));
  }
  if (message->header->header_type() != fb::MessageHeader::RecordBatch) {
    return Status::Invalid(where + ": the footer points at a " +
                           std::string(fb::EnumNameMessageHeader(message->header->header_type())) +
                           " message");
  }
  if (!impl_->dictionaries_read) {
    QUIVER_RETURN_NOT_OK(impl_->ReadDictionaries());
    impl_->dictionaries_read = true;
  }
  auto batch = DecodeRecordBatch(*message, impl_->schema, impl_->dictionaries, impl_->options);
  if (!batch.ok()) return batch.status().WithContext(where);
  return batch;
}

}  // namespace quiver::ipc
