// Bytes in and out: the sources readers read (memory, local files, and
// with the remote layer, HTTP and S3 objects), the streams read front to
// back (pipes, sockets) and the sinks writers write. The IPC readers and
// writers (quiver/ipc.h), the dataset (quiver/dataset.h), the loader and
// the `quiver` command all read and write through these.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/status.h"

namespace quiver::io {

// Random-access bytes a reader reads from.
// Bytes [offset, offset + length) of a source.
struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;
};

// What a source has read from where its bytes live: for a remote source
// the requests it sent (retries included) and the bytes the responses
// carried; for a file read with pread the reads and their bytes; zero for
// memory and memory-mapped files (the kernel pages those in).
struct IoStats {
  int64_t requests = 0;
  int64_t bytes_fetched = 0;
  int64_t retries = 0;
};

class InputSource {
 public:
  virtual ~InputSource() = default;
  virtual int64_t size() const = 0;
  // Bytes [offset, offset + length), zero-copy where the source is memory
  // (a view that keeps the memory alive); IOError past the end.
  virtual Result<BufferPtr> ReadAt(int64_t offset, int64_t length) = 0;
  // Whether ReadAt returns views of memory the source already holds. Such
  // a read costs nothing whatever its length, and readers rely on that:
  // the message reader views a message's start to the source's end once
  // and slices the message's parts from it. A source that copies what it
  // reads says false.
  virtual bool zero_copy() const = 0;
  // What errors call the source: "'data.arrow'" (quoted) for a file opened
  // by path, "descriptor 3", or empty ("the input") for memory.
  virtual std::string name() const { return {}; }
  // Several ranges, returned in the order asked. A remote source merges
  // ranges that lie close together into one request and sends several
  // requests at once; the default reads them one after another.
  virtual Result<std::vector<BufferPtr>> ReadRanges(const std::vector<ByteRange>& ranges);
  virtual IoStats stats() const { return {}; }
  // For a memory-mapped file: the same file read with pread into memory
  // of its own, through a duplicate of the descriptor the mapping was made
  // from (so it reads the file that was opened, even after its path was
  // replaced or removed). nullptr for other sources.
  virtual Result<std::shared_ptr<InputSource>> PreadTwin() {
    return std::shared_ptr<InputSource>();
  }
};

// The bytes of `buffer` (zero-copy).
std::shared_ptr<InputSource> BufferSource(BufferPtr buffer);
// A file: memory-mapped when `memory_map` (arrays then point into the
// mapping, which lives as long as any of them), read with pread otherwise.
//
// A mapping shows the file as it is now, not as it was when opened: every
// read through the source first checks that the file has not shrunk
// (IOError naming the file, the size it had and the size it has), but an
// array already read keeps pointing into the mapping, and touching its
// pages after another process truncated the file raises SIGBUS, which no
// library can turn into an error. Open files that others may truncate
// with `memory_map = false`: their arrays live in memory of their own.
//
// A directory is an IOError ("'path' is a directory").
Result<std::shared_ptr<InputSource>> OpenFileSource(const std::string& path,
                                                    bool memory_map = true);
// An open file descriptor (not owned; it must stay open while reading).
Result<std::shared_ptr<InputSource>> FileDescriptorSource(int fd);

// Bytes read front to back: a pipe, a socket, a file object. A stream
// reader over one reads message by message, so a batch is returned as soon
// as its bytes have arrived, and it holds no more than one message.
class InputStream {
 public:
  virtual ~InputStream() = default;
  // The next `length` bytes, blocking until they arrive; fewer only where
  // the stream ends first (an empty buffer at its end). Memory grows with
  // the bytes that really arrive, not with `length`.
  virtual Result<BufferPtr> Read(int64_t length) = 0;
  // Bytes read so far.
  virtual int64_t position() const = 0;
  // Bytes left before the end, or -1 where that is not known ahead (pipes).
  virtual int64_t remaining() const { return -1; }
  // Whether Read returns views of memory that someone else may change.
  virtual bool zero_copy() const { return false; }
  // What errors call the stream, as InputSource::name().
  virtual std::string name() const { return {}; }
};

// Base for streams over a read(2)-like call: Read gathers ReadSome's
// pieces, growing its buffer as they arrive.
class ReadSomeStream : public InputStream {
 public:
  Result<BufferPtr> Read(int64_t length) final;
  int64_t position() const final { return position_; }

 protected:
  // Up to `capacity` bytes into `out`, blocking until at least one byte is
  // there; 0 at the end of the stream.
  virtual Result<int64_t> ReadSome(uint8_t* out, int64_t capacity) = 0;

 private:
  int64_t position_ = 0;
};

// `source` from byte `offset` on, as a stream (zero-copy where the source is).
std::shared_ptr<InputStream> SourceStream(std::shared_ptr<InputSource> source, int64_t offset = 0);
// An open file descriptor read with read(2): pipes, sockets, terminals,
// files (not owned; it must stay open while reading).
std::shared_ptr<InputStream> FileDescriptorStream(int fd);
// The file at `path` as a stream: a regular file memory-mapped (zero-copy,
// as OpenFileSource), anything else (a FIFO, /dev/stdin, a socket) read
// with read(2) as its bytes arrive. Opening a FIFO waits for its writer.
// A directory is an IOError.
Result<std::shared_ptr<InputStream>> OpenFileStream(const std::string& path);

// Where writers write.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual Status Write(const void* data, int64_t size) = 0;
  // A hint that `bytes` more bytes are about to be written. File sinks
  // preallocate the space (large messages only), which makes the buffered
  // writes that follow cheaper; BufferSink grows (by doubling) before the
  // bytes arrive. Never fails: Write reports any error.
  virtual void Reserve(int64_t bytes) { (void)bytes; }
  // Bytes written so far.
  virtual int64_t position() const = 0;
  // Hands what the sink gathered to where it goes (stream writers call it
  // after each message, so a reader at the other end of a pipe sees it).
  virtual Status Flush() { return Status::OK(); }
  virtual Status Close() = 0;
  // The hidden temporary file a sink opened by path (OpenFileSink) writes
  // until Close renames it over the path, and until then only; empty for
  // every other sink. A program killed by a signal leaves it behind unless
  // its handler removes it (the `quiver` tool's does).
  virtual std::string temporary_path() const { return {}; }
};

// A new file at `path`, written under a temporary name in the same
// directory and renamed over `path` by a successful Close(): a failure, or
// a process killed mid-write, never leaves a partial file under `path` (the
// file there before, if any, stays whole). Destroyed without Close(), the
// temporary file is removed. A process killed mid-write can leave the
// hidden temporary file (".NAME.quiver-PID-N.tmp") behind. A file that is
// replaced passes its mode (and, for root, its owner) to the new one; a
// symlink stays and the regular file it points at is replaced; other
// names of a hard-linked file keep the old contents. FIFOs, devices,
// sockets and dangling symlinks are written in place, as a plain open
// would (no rename); a directory is an IOError.
//
// File sinks stop at their first failed write (disk full, a closed pipe):
// that call and every later one returns IOError naming the sink and the
// byte offset, so nothing is written after a gap; a failed Close is
// repeated by every later Close.
Result<std::shared_ptr<OutputSink>> OpenFileSink(const std::string& path);
// An open file descriptor (not owned, not closed).
std::shared_ptr<OutputSink> FileDescriptorSink(int fd);

// A sink that collects the bytes in memory.
class BufferSink : public OutputSink {
 public:
  Status Write(const void* data, int64_t size) override;
  void Reserve(int64_t bytes) override;
  int64_t position() const override { return size_; }
  // Bytes the sink holds before it has to grow (and copy) again.
  int64_t capacity() const { return buffer_ ? buffer_->size() : 0; }
  Status Close() override { return Status::OK(); }
  // The bytes written so far, as one buffer (the sink starts over).
  Result<BufferPtr> Finish();

 private:
  Status Grow(int64_t capacity);
  int64_t GrownCapacity(int64_t needed) const;

  BufferPtr buffer_;
  int64_t size_ = 0;
};

// --- Locations: local paths and remote objects --------------------------------

// How remote sources (http://, https://, s3://) talk to their server.
struct RemoteOptions {
  // A request that sends or receives nothing for this long fails (and is
  // retried); connecting counts too.
  double timeout_seconds = 30;
  // Retries of a request that failed with a 5xx status, a reset or
  // dropped connection, a timeout or a short body, with exponential
  // backoff from retry_delay_seconds; 4xx statuses are not retried.
  int max_retries = 5;
  double retry_delay_seconds = 0.05;
  // Requests in flight at once for one ReadRanges call.
  int parallel_requests = 8;
  // Ranges less than this many bytes apart are fetched by one request
  // (the gap's bytes with them: a take of rows scattered over a record
  // batch fetches little more than the rows).
  int64_t coalesce_gap = int64_t{8} << 10;
  // Reads smaller than this are widened to it (the extra bytes are kept
  // for the reads that follow: message headers one after another).
  int64_t readahead_bytes = int64_t{64} << 10;
  // Bytes read from the end of an object when it is opened: the size comes
  // with them, and an IPC file's footer and schema are usually among them.
  int64_t tail_bytes = int64_t{64} << 10;
  // The PEM file of the certificates https:// requests trust (and s3://
  // ones over an https endpoint). Empty: the file AWS_CA_BUNDLE names
  // (s3:// objects only), else CURL_CA_BUNDLE's, else SSL_CERT_FILE's, else
  // libcurl's own bundle where it exists, else the first of the system's
  // usual bundles that exists (Debian, Fedora and RHEL, openSUSE, Alpine
  // paths). A path given here or by a variable that is not a readable file
  // fails the open of an https object, naming it; for plain http (which
  // may redirect to https) it is passed over.
  std::string ca_bundle;
  // A folder of certificates by hash (`openssl rehash`), or folders
  // separated by ':', trusted as well. Empty: SSL_CERT_DIR's where
  // CURL_CA_BUNDLE is unset, else libcurl's own (Debian's: /etc/ssl/certs).
  std::string ca_directory;
};

struct SourceOptions {
  // Local files: mapped (zero-copy) or read with pread (see OpenFileSource).
  bool memory_map = true;
  RemoteOptions remote;
};

// Whether `location` names a remote object (http://, https://, s3://).
bool IsRemoteLocation(const std::string& location);
// Whether this build reads remote objects (it was built with libcurl).
bool RemoteAvailable();
// libcurl is opened on the first remote read, not linked (programs that
// read no URL never map it): from the shared module at `path` (one that
// links libcurl, such as the binary wheel's libquiver_curl.so) where set
// before that read (the wheel's `quiver` command names the package's, found
// from the scripts folder), else from the QUIVER_CURL_MODULE environment
// variable's module, else the system's libcurl.so.4. Without libcurl a
// remote read is NotImplemented saying how to get it. No effect in a build
// without libcurl's headers.
void SetCurlModule(std::string path);

// A local path (or file:// URL), an http:// or https:// URL (read with
// range requests) or s3://bucket/key (signed with AWS Signature V4 from
// the environment: docs/remote.md). Remote objects: IOError naming the
// URL and the HTTP status for 403, 404 and malformed responses (never a
// credential); NotImplemented, saying how to get it, in a build without
// libcurl.
Result<std::shared_ptr<InputSource>> OpenSource(const std::string& location,
                                                const SourceOptions& options = {});

// The objects `locations` name, in order: a local file as given, a local
// directory's files whose names end in one of `extensions`, sorted by
// name, a glob pattern's matches (sorted), an http(s):// URL as given,
// s3://bucket/key as given and s3://bucket/prefix/ (a trailing slash) the
// keys under the prefix that end in one of `extensions` (ListObjectsV2,
// sorted). IOError for a path that does not exist; Invalid for an empty
// list, or a directory, glob or prefix that names no such object.
Result<std::vector<std::string>> ExpandLocations(const std::vector<std::string>& locations,
                                                 const std::vector<std::string>& extensions,
                                                 const SourceOptions& options = {});

// `source` from `offset` on as a stream, borrowing the source (it must
// outlive the stream).
std::unique_ptr<InputStream> StreamOver(InputSource& source, int64_t offset);

}  // namespace quiver::io
