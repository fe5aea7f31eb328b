// Internal: one IPC file or stream of a dataset, indexed for random
// access: where each record batch's message lies and how many rows it
// holds, read from the file's footer or from the stream's message headers
// alone; and the columns of one record batch read on their own, only the
// bytes of their buffers fetched. A Parquet file is a fragment too: its
// row groups are its record batches, read through ParquetFile.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "File_generated.h"
#include "quiver/dataset/recent_blocks.h"
#include "quiver/io.h"
#include "quiver/ipc.h"
#include "quiver/ipc/decoder.h"
#include "quiver/ipc/message.h"
#include "quiver/parquet.h"

namespace quiver::dataset {

// A record batch message: where it starts, its prefix-and-metadata and
// body lengths, its rows, and the dictionaries in force where it stands.
struct BatchEntry {
  int64_t offset = 0;
  int64_t metadata_length = 0;
  int64_t body_length = 0;
  int64_t rows = 0;
  std::shared_ptr<const ipc::DictionaryMemo> dictionaries;
};

class Fragment {
 public:
  // Indexes `source` (named `location` in errors): an IPC file by its
  // footer and its record batches' headers, an IPC stream by walking its
  // message headers (bodies are skipped; dictionary batches are decoded).
  static Result<std::unique_ptr<Fragment>> Open(const std::string& location,
                                                std::shared_ptr<io::InputSource> source,
                                                const ipc::ReadOptions& options);

  const std::string& location() const { return location_; }
  // To be called first in a process forked since the last call: a lock
  // another thread of the parent held at the fork stays held in the child,
  // so the fragment's lock is left behind and replaced.
  void AfterFork();
  // The schema handed out (canonical storage).
  const SchemaPtr& schema() const { return canonical_; }
  int num_batches() const { return static_cast<int>(batches_.size()); }
  int64_t batch_rows(int k) const { return batches_[static_cast<size_t>(k)].rows; }
  // What the sources have read (a mapped file's compressed bodies are
  // read with pread: see ReadColumns).
  io::IoStats stats() const;
  // Whether reads are views of memory the source holds (a mapped file or
  // a buffer) rather than copies (remote, pread).
  bool maps_source() const { return source_->zero_copy(); }
  // Whether a record batch read so far was compressed.
  bool compressed() const { return compressed_.load(std::memory_order_relaxed); }
  // Whether this fragment's record batches read as views of a mapped
  // file: mapped, native byte order, and its first record batch
  // uncompressed (writers use one codec per file). Reads that header.
  bool MapsUncompressed();
  // Whether reads are views of the source's memory (a mapped file,
  // uncompressed as far as the record batches read so far tell, in native
  // byte order): free to keep. False until a record batch has been read.
  bool reads_views() const {
    return maps_source() && !swap_ && head_seen_.load(std::memory_order_acquire) && !compressed();
  }

  // Columns `columns` (schema indices) of record batch k, decoded,
  // validated at `level` and in canonical storage, in the order asked.
  // Reads only those columns' buffers. `*views` says whether the columns
  // are views of memory the source holds (a mapped file, uncompressed, in
  // native order), which costs nothing to keep. Errors name the location,
  // the record batch and the column.
  Result<std::vector<ArrayDataPtr>> ReadColumns(int k, const std::vector<int>& columns,
                                                ValidationLevel level, int threads, bool* views);

  // Whether ReadRows may read less than whole record batches: the source
  // copies what it reads (remote, pread), the record batches read so far
  // were compressed (their blocks decode alone), or the file is Parquet.
  bool reads_rows() const { return parquet_ != nullptr || !maps_source() || compressed(); }

  // The same columns with only rows `rows` (ascending, distinct local
  // indices) read, for a take of a few rows; the result must not be
  // cached. nullopt where it does not pay or is not possible: then the
  // whole batch is read.
  // - IPC, from a source that copies what it reads: the rows' bytes alone
  //   are fetched; the columns hold `rows` alone, in order (`compact`).
  //   Not for a column with offsets, views or a dictionary (RowPieces), or
  //   rows that need more than half the columns' bytes.
  // - IPC, compressed, given `recent`: of buffers compressed in independent
  //   blocks (WriteOptions::compression_block_bytes), the blocks that hold
  //   the rows are decoded (row_blocks.h); the columns hold `rows` alone,
  //   in order (`compact`). Not for the columns above, more than an eighth
  //   of the batch's rows, or blocks that hold more than half its decoded
  //   bytes.
  // - Parquet: through the row group's offset indexes, the pages that hold
  //   the rows (runs of neighbouring pages read once); the columns hold
  //   `rows` alone, in order (`compact`). Not where a projected column
  //   has no offset index, or the pages hold more than half the rows.
  struct RowColumns {
    std::vector<ArrayDataPtr> columns;
    bool compact = false;
    int64_t decoded_bytes = 0;  // bytes decompressed for them
    // The batch's whole columns after all, as ReadColumns reads them (a
    // compressed batch whose rows could not be decoded alone, from bytes
    // already fetched): to be cached.
    bool whole = false;
  };
  // `recent`: where a compressed batch's block indexes and decoded blocks
  // are looked up and kept (decoded blocks only with `keep_blocks`);
  // nullptr: a compressed batch is read whole (the dataset's cache has
  // room for it, and its other rows will be asked).
  Result<std::optional<RowColumns>> ReadRows(int k, const std::vector<int>& columns,
                                             std::span<const int64_t> rows, ValidationLevel level,
                                             int threads, RecentBlocks* recent = nullptr,
                                             bool keep_blocks = true);

 private:
  Fragment() = default;
  Status IndexFile();
  Status IndexStream();
  Status IndexParquet();
  Result<std::vector<ArrayDataPtr>> ReadParquetColumns(int k, const std::vector<int>& columns,
                                                       int threads);
  Result<std::optional<RowColumns>> ReadParquetRows(int k, const std::vector<int>& columns,
                                                    std::span<const int64_t> rows, int threads);
  // A Parquet batch's columns in canonical storage (errors name them).
  Result<std::vector<ArrayDataPtr>> CanonicalColumns(int k, const std::vector<int>& columns,
                                                     const RecordBatch& batch) const;
  // Header (message without its body) and layout of record batch k.
  struct Head {
    ipc::Message message;
    ipc::BatchLayout layout;
    int64_t lz4_block = 0;  // the LZ4 block size the message declares (0: none)
  };
  Result<std::shared_ptr<const Head>> HeadOf(int k);
  // Record batch k's header, read alone, and checked against the footer:
  // its lengths, its kind, its row count where the footer gave one.
  Result<ipc::Message> ReadHead(int k);
  Result<ipc::Message> CheckedHead(int k, BufferPtr bytes) const;
  // Where the blocks of body buffers `wanted` of record batch k lie
  // (`*indexes`, one per buffer): kept in `recent` from an earlier take,
  // or found now by walking the stored buffers, read whole from `bodies`
  // into `*stored`, and kept there. False where a stored prefix does not
  // hold up (`*stored` then holds the buffers for a whole decode to name).
  Result<bool> IndexBuffers(int k, const Head& head, const std::vector<int64_t>& wanted,
                            io::InputSource& bodies, RecentBlocks* recent,
                            std::vector<std::shared_ptr<const BufferBlocks>>* indexes,
                            std::vector<BufferPtr>* stored);
  // The RowColumns of rows `rows` of the columns built on `buffers`
  // (record batch k's, by index; bytes outside the rows undefined): the
  // rows copied into buffers of their own.
  Result<RowColumns> RowsOf(int k, const Head& head, const std::vector<int>& columns,
                            const std::vector<BufferPtr>& buffers, std::span<const int64_t> rows,
                            ValidationLevel level, int64_t decoded_bytes);
  // ReadRows of a compressed record batch.
  Result<std::optional<RowColumns>> ReadCompressedRows(int k, const Head& head,
                                                       const std::vector<int>& columns,
                                                       std::span<const int64_t> rows,
                                                       ValidationLevel level, int threads,
                                                       RecentBlocks* recent, bool keep_blocks);
  Status ReadFileDictionaries();
  // The file's dictionaries, read once (under the mutex) before the first
  // record batch that needs them.
  Status EnsureDictionaries();
  // Where the bytes of a body of `compression` are read: the source, or
  // for a compressed body in a mapped file the same file read with pread
  // (decoding copies the bytes anyway, and mapped pages would stay in the
  // process's memory beside the decoded copy).
  Result<io::InputSource*> BodySource(ipc::Compression compression);
  // The source, or for a mapped file the same file read with pread
  // through the mapping's own descriptor (InputSource::PreadTwin: the file
  // the dataset opened, whatever its path names now): where record batch
  // headers are read. Parsing a header through the mapping
  // faults its page in, and the kernel maps the pages around it too (about
  // 5 us, the most of a record batch's first read); pread copies its few
  // hundred bytes in about 1 us.
  Result<io::InputSource*> CopyingSource();
  // Columns `columns` of record batch k from the stored bytes of the body
  // buffers they use (`wanted`, in that order), decompressed on up to
  // `threads` threads, validated and canonical.
  Result<std::vector<ArrayDataPtr>> DecodeBody(int k, const Head& head,
                                               const std::vector<int>& columns,
                                               std::span<const int64_t> wanted,
                                               const std::vector<BufferPtr>& stored,
                                               ValidationLevel level, int threads);
  // Columns `columns` of record batch k built on its decoded body buffers
  // (by index; those the columns use), validated and canonical.
  Result<std::vector<ArrayDataPtr>> DecodeColumns(int k, const Head& head,
                                                  const std::vector<int>& columns,
                                                  const std::vector<BufferPtr>& buffers,
                                                  ValidationLevel level);
  std::string Where(int k) const;

  std::string location_;
  std::shared_ptr<io::InputSource> source_;
  ipc::ReadOptions options_;
  SchemaPtr schema_;     // as stored
  SchemaPtr canonical_;  // as handed out
  bool swap_ = false;
  std::vector<BatchEntry> batches_;
  // File format: the dictionary blocks, decoded on first need.
  std::vector<ipc::fb::Block> dictionary_blocks_;
  bool dictionaries_read_ = false;  // under *mutex_
  Status dictionaries_status_;
  std::shared_ptr<ipc::DictionaryMemo> file_dictionaries_;
  // Guards heads_, messages_ and the once-only reads below; replaced in a
  // forked child (AfterFork).
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
  // A Parquet file (its row groups are batches_; the IPC members are unused).
  std::unique_ptr<parquet::ParquetFile> parquet_;
  // Per record batch: its header when the index read it (null: read on
  // first use), and its parsed head once used.
  std::vector<std::shared_ptr<const ipc::Message>> messages_;
  std::vector<std::shared_ptr<const Head>> heads_;
  std::atomic<bool> compressed_{false};
  std::atomic<bool> head_seen_{false};  // a record batch's header was read
  bool unmapped_opened_ = false;        // under *mutex_
  Status unmapped_status_;
  std::shared_ptr<io::InputSource> unmapped_;
  std::atomic<bool> unmapped_ready_{false};  // unmapped_ is set (stats() reads it)
};

}  // namespace quiver::dataset
