// Arrow IPC: record batch streams and files (Feather v2), and the Tensor
// and SparseTensor messages (docs/formats.md, "IPC messages").
//
// Writers lay buffers out 64-byte aligned, write sliced arrays compactly
// (only the rows they cover) and can compress every body buffer with
// LZ4_FRAME or ZSTD. Readers never trust the bytes: every message goes
// through the flatbuffers verifier, every buffer's offset and length is
// checked against its body with overflow checks, buffer and node counts are
// checked per type, nesting is capped at kMaxNestingDepth, claimed
// decompressed sizes are checked against a limit before anything is
// allocated, and the arrays are validated (kFull by default) before they
// are returned. Errors name the message, the field and the byte offset.
//
// Zero-copy: a source over memory (a buffer, or a file opened by path,
// which is memory-mapped) hands out arrays that point into that memory and
// keep it alive; uncompressed bodies are never copied.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/io.h"
#include "quiver/record_batch.h"
#include "quiver/sparse_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::ipc {

// --- I/O ---------------------------------------------------------------------

// The byte sources and sinks live in quiver/io.h; the IPC names stay valid.
using io::BufferSink;
using io::BufferSource;
using io::FileDescriptorSink;
using io::FileDescriptorSource;
using io::FileDescriptorStream;
using io::InputSource;
using io::InputStream;
using io::OpenFileSink;
using io::OpenFileSource;
using io::OpenFileStream;
using io::OutputSink;
using io::ReadSomeStream;
using io::SourceStream;

// --- Options -----------------------------------------------------------------

enum class Compression { kNone, kLz4Frame, kZstd };

struct WriteOptions {
  Compression compression = Compression::kNone;
  // The codec's level; the codec's default when unset (kDefaultLevel).
  // LZ4 frame takes 0 to 12, ZSTD -131072 to 22; writers refuse others
  // when they open.
  static constexpr int kDefaultLevel = std::numeric_limits<int>::min();
  int compression_level = kDefaultLevel;
  // Threads compressing a batch's buffers (0: one per core).
  int threads = 0;
  // Writers cut each batch they are given into consecutive zero-copy
  // slices, each written as a record batch of at most max_batch_rows rows
  // and at most max_batch_bytes bytes of uncompressed body (its buffers as
  // the encoder writes them, each padded to 64 bytes; compression does not
  // change where the cuts fall). 0: no limit; negative values are refused
  // when the writer opens. A record batch is what a reader decodes (and
  // decompresses) at once, so smaller batches make reading one row of a
  // file cheaper, bigger ones compress better (docs/ipc.md, "Batch size").
  // The byte limit is met by the average row first, then by halving a
  // slice while it is over, down to one row: a single row larger than
  // max_batch_bytes is written alone, over the limit. A batch of no rows
  // is written as one batch of no rows.
  int64_t max_batch_rows = 0;
  int64_t max_batch_bytes = 0;
  // Under a codec, every buffer larger than this many bytes is compressed
  // in independent blocks of this size (decoded bytes): LZ4 blocks of one
  // frame, or ZSTD frames one after another. Any reader of the codec reads
  // them; quiver's dataset, taking a few rows of a record batch, decodes
  // only the blocks that hold them (docs/dataset.md, "Compressed data").
  // A power of two from 4096 to 4 MiB (about a row's bytes or a few rows'
  // suits random access); 0 (unset): a buffer under 8 MiB is one frame.
  // Smaller blocks compress somewhat worse (docs/dataset.md has figures).
  int64_t compression_block_bytes = 0;
  static constexpr int64_t kMinCompressionBlockBytes = int64_t{4} << 10;
  static constexpr int64_t kMaxCompressionBlockBytes = int64_t{4} << 20;
};

struct ReadOptions {
  // How far arrays are checked before they are returned.
  ValidationLevel validation = ValidationLevel::kFull;
  // The largest decompressed size one buffer may claim (bytes): a message
  // claiming more is refused before anything is allocated.
  int64_t max_decompressed_buffer = int64_t{1} << 34;  // 16 GiB
  // Threads decompressing a batch's buffers (0: one per core).
  int threads = 0;
  // Data written in the other byte order (a big-endian file on a
  // little-endian machine) is swapped to native order as it is read: every
  // offset, value, view, size, union offset and dictionary index, according
  // to its type's layout (bitmaps, bytes and type ids stay as they are);
  // this copies each buffer once. When false, the schema of such data can
  // be read but its batches cannot: reading one is NotImplemented (quiver's
  // kernels and checks read native order only).
  bool swap_endian = true;
};

// The byte order an IPC schema says its buffers are in. quiver writes
// native order (kLittle on the machines it is built for).
enum class Endianness { kLittle, kBig };

// --- Record batch layout -------------------------------------------------------

// Where a record batch's body keeps what: read from the batch's message
// header alone (docs/formats.md, "Body buffers"), so nothing in the
// body is touched. Readers hand it out (FileReader::RecordBatchLayout,
// StreamReader::NextLayout) and read single buffers on request
// (ReadBodyBuffer): a tool can look at a shape buffer or a validity bitmap
// without decompressing or paging in the tensor values beside them. That
// holds over memory (a buffer, a memory-mapped file), where a message's
// body is a view; a source read with pread, and a stream, read each
// message's body whole (as decoding it does), though never decompress it.
//
// The layout is checked as the decoder checks it before it reads anything:
// every buffer lies inside the body, the field nodes, buffers and variadic
// buffer counts are exactly those the schema's types need, node lengths and
// null counts are non-negative (null count <= length), each top-level
// column has the batch's row count, and every dictionary-encoded field has
// a dictionary id. What it cannot check without the bytes (offsets, the
// size of a decompressed buffer, validity bitmaps against null counts) is
// left to whoever reads them: the bytes are unchecked input.

// One body buffer as the message header places it: [offset, offset +
// length) of the message body, in bytes, as stored. A compressed buffer's
// span holds its 8-byte little-endian length prefix and the codec frame.
struct BodyBufferSpan {
  int64_t offset = 0;
  int64_t length = 0;
};

// One field node of the body, for one field of the schema at any depth.
struct FieldNodeLayout {
  // The field as the file or stream's schema lays it out. This is the
  // storage as written: a variable_shape_tensor stored in a tolerated form
  // (large_list data, shapes of an integer type other than int32; see
  // docs/formats.md, "arrow.variable_shape_tensor") keeps that form here, while
  // the readers' schema() shows the canonical one.
  Field field;
  int64_t length = 0;      // slots, as the node says
  int64_t null_count = 0;  // as the node says (null-type fields: every slot is null)
  // Indexes into BatchLayout::buffers: the buffers the field's storage type
  // has, in its layout order (validity first where it has one), then a
  // view type's variadic data buffers. An empty span is an absent buffer.
  // A union in a message of metadata before V5 has a validity buffer before
  // its type ids; it is skipped, not listed here (docs/formats.md).
  std::vector<int64_t> buffers;
  // A dictionary-encoded field (its storage type is a dictionary): the id
  // the schema gives its dictionary, whose values live in dictionary
  // batches, not in this body. -1 for other fields.
  int64_t dictionary_id = -1;
  // One per child of the storage type, in order.
  std::vector<FieldNodeLayout> children;
};

// The body of one record batch.
struct BatchLayout {
  int64_t num_rows = 0;
  // The codec every non-empty buffer is compressed with (kNone: stored raw).
  // Under a codec a buffer may still be stored raw: its prefix says -1.
  Compression compression = Compression::kNone;
  int64_t body_length = 0;  // bytes
  std::vector<BodyBufferSpan> buffers;
  std::vector<FieldNodeLayout> columns;  // one per schema field
};

// A body buffer's sizes, from the message header and, for a compressed
// body, the buffer's 8-byte length prefix (nothing is decompressed).
struct BodyBufferSize {
  int64_t stored = 0;   // bytes in the body (BodyBufferSpan::length)
  int64_t decoded = 0;  // bytes ReadBodyBuffer returns
  // Stored as a codec frame (false for a raw body, an empty buffer and a
  // buffer that a compressed body stores raw behind a -1 prefix).
  bool compressed = false;
};

// --- Messages ----------------------------------------------------------------

// What an encapsulated IPC message carries: the type of its header
// (Message.fbs), as Arrow C++'s ipc::MessageType names them. A stream is a
// schema message followed by dictionary and record batch messages; a
// Tensor or SparseTensor message stands alone.
enum class MessageKind { kSchema, kDictionaryBatch, kRecordBatch, kTensor, kSparseTensor };

// The kind of the message that starts at byte `offset` of `source`, told
// from its prefix and verified metadata alone (the body is not read; the
// pre-0.15 prefix without a continuation marker is read too). What to do
// with an input whose kind is not known ahead: a schema message starts a
// stream (StreamReader), the others are read with ReadTensor and
// ReadSparseTensor. Invalid, naming the byte offset, where no message
// starts there: the end of the source or an end-of-stream marker ("no
// message at byte 0"), a truncated prefix, a negative length, metadata
// that is not a valid Message flatbuffer or has no header, or a header
// type Arrow does not define. An IPC file starts with "ARROW1" instead, so
// it is Invalid too: check for the magic first.
Result<MessageKind> PeekMessageKind(InputSource& source, int64_t offset = 0);

// --- Streams -----------------------------------------------------------------

class StreamWriter {
 public:
  // Writes the schema message.
  static Result<std::unique_ptr<StreamWriter>> Open(std::shared_ptr<OutputSink> sink,
                                                    SchemaPtr schema, WriteOptions options = {});
  ~StreamWriter();
  Status Write(const RecordBatch& batch);
  // Writes the end-of-stream marker (the sink stays open).
  Status Close();

 private:
  struct Impl;
  explicit StreamWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class StreamReader {
 public:
  // Reads the schema message. Input that is not a stream gets an error
  // saying what it is where its first bytes tell (an IPC file: "... is an
  // Arrow IPC file, not an Arrow IPC stream; open it with open_file";
  // Parquet, NumPy, compressed, text and empty files likewise).
  static Result<std::unique_ptr<StreamReader>> Open(std::shared_ptr<InputSource> source,
                                                    ReadOptions options = {});
  // Reads the schema message from a stream; later messages are read one
  // at a time as Next() asks for them.
  static Result<std::unique_ptr<StreamReader>> Open(std::shared_ptr<InputStream> stream,
                                                    ReadOptions options = {});
  ~StreamReader();
  const SchemaPtr& schema() const;
  // The byte order the stream's schema declares (batches are handed out in
  // native order: see ReadOptions::swap_endian).
  Endianness endianness() const;
  // The next batch, or nullptr at the end of the stream (its end-of-stream
  // marker, or its last byte after a whole message). A stream that ends
  // inside a message is Invalid, naming the message's offset and the bytes
  // it still expected.
  Result<RecordBatchPtr> Next();
  // Every remaining batch, as Next() would give them one by one: messages
  // are read in order, and each few batches are decoded and validated at
  // once on up to `threads` threads (0: one per core), each with the
  // dictionaries of its place in the stream. On failure, the error Next()
  // would have met first. `validation`, when set, replaces
  // options.validation for the record batches (dictionaries are checked at
  // options.validation as always): ValidationLevel::kMinimal hands out
  // batches whose values the caller validates later, before anything reads
  // them (Python's read_all(validate="lazy")).
  Result<std::vector<RecordBatchPtr>> ReadAll(
      int threads = 0, std::optional<ValidationLevel> validation = std::nullopt);
  // The codec of the body of the batch Next() or NextLayout() last
  // returned (kNone before the first, and for an uncompressed body).
  Compression last_compression() const;
  // The record batches read so far by Next(), NextLayout() and ReadAll():
  // the stream's index of the next one.
  int64_t record_batches_read() const;
  // Reads the next record batch message and returns its layout without
  // decoding its body, or nullopt at the end of the stream (as Next()).
  // Dictionary batches before it are decoded and kept, as Next() does, so
  // Next() and NextLayout() can be mixed. The message's body is kept for
  // ReadBodyBuffer until the next call of either.
  Result<std::optional<BatchLayout>> NextLayout();
  // Buffer `buffer` of the body NextLayout() last returned (see
  // FileReader::ReadBodyBuffer). Invalid when NextLayout() returned none
  // since the last Next(); IndexError for a buffer out of range.
  Result<BufferPtr> ReadBodyBuffer(int64_t buffer);
  // Its sizes (see FileReader::ReadBodyBufferSize).
  Result<BodyBufferSize> ReadBodyBufferSize(int64_t buffer);

 private:
  struct Impl;
  explicit StreamReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// --- Files -------------------------------------------------------------------

class FileWriter {
 public:
  // Writes the magic and the schema message.
  static Result<std::unique_ptr<FileWriter>> Open(std::shared_ptr<OutputSink> sink,
                                                  SchemaPtr schema, WriteOptions options = {});
  ~FileWriter();
  Status Write(const RecordBatch& batch);
  // Writes the footer and the trailing magic (the sink stays open). The
  // footer's custom_metadata lists the row count of every record batch
  // written, under "quiver:record_batch_rows" (see
  // FileReader::FooterRecordBatchRows).
  Status Close();

 private:
  Status WriteFooter();
  struct Impl;
  explicit FileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class FileReader {
 public:
  // Reads only the footer (and the schema in it). A source that is not an
  // IPC file gets an error saying what it is where its first bytes tell
  // (an IPC stream: "'x' is an Arrow IPC stream, not an Arrow IPC file;
  // open it with open_stream"; Parquet, NumPy, compressed, text and empty
  // files likewise).
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<InputSource> source,
                                                  ReadOptions options = {});
  ~FileReader();
  const SchemaPtr& schema() const;
  // The byte order the file's schema declares (batches are handed out in
  // native order: see ReadOptions::swap_endian).
  Endianness endianness() const;
  int num_record_batches() const;
  // The row count of every record batch, in file order, as a quiver
  // writer lists them in the footer ("quiver:record_batch_rows" in its
  // custom_metadata): a reader can find the batch holding row r without
  // reading each batch's header. nullopt where the footer has no such list
  // (files from other writers) or a malformed one: not exactly one entry
  // under that key, or not one non-negative decimal count per record
  // batch (no signs, blanks or leading zeros; each and their sum within
  // int64). Then the counts are in the batches' headers (RecordBatchLayout
  // reads one without its body). The footer is input like any other: a
  // reader that plans with these counts still checks each batch's own row
  // count when it reads the batch.
  std::optional<std::vector<int64_t>> FooterRecordBatchRows() const;
  // Batch i, read and validated on demand.
  Result<RecordBatchPtr> ReadRecordBatch(int i);
  // Every batch, in order, each read as ReadRecordBatch reads it, on up to
  // `threads` threads at once (0: one per core): reading and validating a
  // file's batches is independent work. On failure, the error of the
  // lowest batch that failed (the one a read in order would meet first).
  // `validation` as StreamReader::ReadAll's.
  Result<std::vector<RecordBatchPtr>> ReadAllRecordBatches(
      int threads = 0, std::optional<ValidationLevel> validation = std::nullopt);
  // The codec of record batch i's body (kNone when uncompressed), read from
  // its message header alone: nothing is decompressed. IndexError for i out
  // of range, NotImplemented for a codec quiver does not know.
  Result<Compression> RecordBatchCompression(int i);
  // The layout of record batch i's body (see BatchLayout), from its message
  // header alone; dictionaries are not read. Errors as ReadRecordBatch's
  // for the same faults; IndexError for i out of range.
  Result<BatchLayout> RecordBatchLayout(int i);
  // Buffer `buffer` (an index into BatchLayout::buffers) of record batch
  // `batch`, alone: a view of the body when stored raw (zero-copy over
  // memory), decompressed into memory of its own when compressed, copied
  // only where it starts off an 8-byte boundary. Checked as the decoder
  // checks buffers: it must lie inside the body, a compressed one needs its
  // 8-byte prefix (-1: stored raw), and the size the prefix claims must be
  // within ReadOptions::max_decompressed_buffer and be what the frame
  // holds. The bytes are as stored, in the byte order endianness() says,
  // and unvalidated. IndexError for a batch or buffer out of range.
  Result<BufferPtr> ReadBodyBuffer(int batch, int64_t buffer);
  // The sizes of that buffer (see BodyBufferSize), checked as
  // ReadBodyBuffer checks them short of decompressing: reads at most the
  // 8-byte prefix of the buffer. The reader keeps the message of the last
  // batch these two calls read (one batch's body at most), so reading a
  // batch's buffers one after another parses its header once.
  Result<BodyBufferSize> ReadBodyBufferSize(int batch, int64_t buffer);

 private:
  struct Impl;
  explicit FileReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// --- Tensor message ----------------------------------------------------------

// Writes `tensor` as one Tensor message (64-byte aligned). Row-major and
// column-major tensors are written as they are (their strides say which);
// other layouts are written as a row-major copy. Dim names are kept.
// bool8, bfloat16 and the float8 types are written as their integer
// storage with the extension name in the message's custom metadata
// (docs/formats.md, "SparseTensor message"), and read back as themselves.
Status WriteTensor(const Tensor& tensor, OutputSink* sink);
// Reads the Tensor message at `offset` of `source`: zero-copy when the
// source is memory. The strides are checked against the data buffer.
Result<Tensor> ReadTensor(const std::shared_ptr<InputSource>& source, int64_t offset = 0,
                          ReadOptions options = {});

// --- SparseTensor message ----------------------------------------------------

// Writes `tensor` as one SparseTensor message (64-byte aligned), its index
// and values in the body in the order docs/formats.md, "SparseTensor
// message" gives (COO: indices, data; CSR/CSC: indptr, indices, data; CSF:
// every indptr, every indices, data), each buffer padded to 8 bytes.
// Index tensors that are not contiguous (COO coords other than row- or
// column-major) are written as row-major copies; nothing else is copied.
Status WriteSparseTensor(const SparseTensor& tensor, OutputSink* sink);
// Reads the SparseTensor message at `offset` of `source`: zero-copy when
// the source is memory (index and value tensors point into it), validated
// at options.validation (kFull by default) before it is returned.
Result<SparseTensor> ReadSparseTensor(const std::shared_ptr<InputSource>& source,
                                      int64_t offset = 0, ReadOptions options = {});

}  // namespace quiver::ipc
