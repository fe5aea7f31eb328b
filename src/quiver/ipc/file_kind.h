// Internal: what a file holds, told from its first bytes, so that a reader
// given the wrong kind of file says what it is ("'x.parquet' is a Parquet
// file, not an Arrow IPC file") instead of failing on the bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "quiver/buffer.h"
#include "quiver/ipc.h"
#include "quiver/status.h"

namespace quiver::ipc {

enum class FileKind {
  kUnknown,  // none of the below: the reader's own checks speak
  kEmpty,
  kIpcFile,    // "ARROW1" magic
  kIpcStream,  // a message with its 0xFFFFFFFF continuation marker
  kParquet,
  kFeatherV1,
  kNumpy,  // .npy
  kZip,    // .zip, .npz, ...
  kGzip,
  kZstd,
  kBzip2,
  kXz,
  kHdf5,
  kOrc,
  kAvro,
  kGitLfsPointer,  // the small text file Git LFS leaves before a checkout
  kSafetensors,    // an 8-byte little-endian header length, then '{'
  kText,           // printable ASCII or UTF-8 (CSV, JSON, ...)
};

// The most bytes SniffFileKind looks at; fewer are fine (a short file, a
// stream that can only be peeked at briefly).
inline constexpr int64_t kSniffBytes = 64;

// The kind of a file whose first bytes are `head` (the whole file when it
// is shorter than kSniffBytes; `head` empty means an empty file only when
// `whole` says so).
FileKind SniffFileKind(std::span<const uint8_t> head, bool whole);

// "an Arrow IPC stream", "a Parquet file", "empty", ...
const char* FileKindName(FileKind kind);

// Invalid naming what `name` (a quoted path, "descriptor 3", or empty for
// "the input") is when a reader of `expected` (kIpcFile or kIpcStream)
// meets a file of another known `kind`, with what to do instead where
// there is something; OK when `kind` is `expected` or kUnknown. `head`
// (the sniffed bytes) gives text files a short quote. `what` names what
// was expected where that is not a whole file or stream ("an Arrow IPC
// Tensor message", whose bytes start as a stream's do).
Status CheckFileKind(FileKind kind, FileKind expected, const std::string& name,
                     std::span<const uint8_t> head = {}, const std::string& what = {});

// Sniffs the first bytes of `*stream` (at most 8: no more than a message
// prefix, so a reader of a pipe never waits for bytes a stream would not
// send) and replaces `*stream` with one that reads them again first; a
// stream over a source (SourceStream, StreamOver) is peeked from its source
// and left as it is. The sniffed bytes go to `head`.
Result<FileKind> PeekFileKind(std::shared_ptr<InputStream>* stream, BufferPtr* head);

}  // namespace quiver::ipc
