// Byte sources (memory, memory-mapped files, file descriptors) and
// sinks (files, file descriptors, memory).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "quiver/io.h"
#include "quiver/io/source_stream.h"

namespace quiver::io {

namespace {

Status ErrnoError(const std::string& what) {
  return Status::IOError(what, ": ", std::strerror(errno));
}

Status CheckRange(int64_t offset, int64_t length, int64_t size) {
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Status::IOError("read of bytes [", offset, ", ", offset, " + ", length,
                           ") is past the end of a ", size, "-byte source");
  }
  return Status::OK();
}

// IOError when the file behind `fd` is now shorter than the `size` bytes it
// had when it was opened (someone truncated or rewrote it).
Status CheckNotShrunk(int fd, const std::string& name, int64_t size) {
  struct stat info;
  if (fstat(fd, &info) != 0) return ErrnoError("cannot stat " + name);
  if (static_cast<int64_t>(info.st_size) < size) {
    return Status::IOError(name, " shrank to ", info.st_size, " bytes after it was opened with ",
                           size, " bytes");
  }
  return Status::OK();
}

class MemorySource : public InputSource {
 public:
  explicit MemorySource(BufferPtr buffer) : buffer_(std::move(buffer)) {}
  int64_t size() const override { return buffer_->size(); }
  bool zero_copy() const override { return true; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    QUIVER_RETURN_NOT_OK(CheckRange(offset, length, size()));
    return Buffer::Slice(buffer_, offset, length);
  }

 private:
  BufferPtr buffer_;
};

// A read-only private mapping of a whole file; unmapped with the last
// buffer that points into it.
struct Mapping {
  ~Mapping() {
    if (data != nullptr) munmap(data, static_cast<size_t>(size));
  }
  void* data = nullptr;
  int64_t size = 0;
};

class DescriptorSource : public InputSource {
 public:
  DescriptorSource(int fd, int64_t size, bool owned, std::string name)
      : fd_(fd), size_(size), owned_(owned), name_(std::move(name)) {}
  ~DescriptorSource() override {
    if (owned_) close(fd_);
  }
  int64_t size() const override { return size_; }
  bool zero_copy() const override { return false; }
  std::string name() const override { return name_; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    QUIVER_RETURN_NOT_OK(CheckRange(offset, length, size_));
    QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(length));
    int64_t done = 0;
    while (done < length) {
      const ssize_t got = pread(fd_, out->mutable_data() + done, static_cast<size_t>(length - done),
                                static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return ErrnoError("cannot read " + name_);
      if (got == 0) {
        QUIVER_RETURN_NOT_OK(CheckNotShrunk(fd_, name_, size_));
        return Status::IOError(name_, " ended while reading byte ", offset + done);
      }
      done += got;
    }
    reads_.fetch_add(1, std::memory_order_relaxed);
    bytes_read_.fetch_add(length, std::memory_order_relaxed);
    return out;
  }
  IoStats stats() const override {
    return IoStats{reads_.load(std::memory_order_relaxed),
                   bytes_read_.load(std::memory_order_relaxed), 0};
  }

 private:
  int fd_;
  int64_t size_;
  bool owned_;
  std::string name_;
  std::atomic<int64_t> reads_{0};
  std::atomic<int64_t> bytes_read_{0};
};

// A read-only private mapping of a file that stays open: each read checks
// first that the file has not shrunk, since touching a mapped page past the
// file's end raises SIGBUS.
class MappedFileSource : public InputSource {
 public:
  MappedFileSource(std::string path, int fd, std::shared_ptr<Mapping> mapping, BufferPtr bytes)
      : path_(std::move(path)), fd_(fd), mapping_(std::move(mapping)), bytes_(std::move(bytes)) {}
  ~MappedFileSource() override { close(fd_); }
  int64_t size() const override { return bytes_->size(); }
  bool zero_copy() const override { return true; }
  std::string name() const override { return "'" + path_ + "'"; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    QUIVER_RETURN_NOT_OK(CheckRange(offset, length, size()));
    QUIVER_RETURN_NOT_OK(CheckNotShrunk());
    return Buffer::Slice(bytes_, offset, length);
  }
  Result<std::shared_ptr<InputSource>> PreadTwin() override {
    const int fd = fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return ErrnoError("cannot duplicate the descriptor of " + name());
    return std::shared_ptr<InputSource>(
        std::make_shared<DescriptorSource>(fd, size(), /*owned=*/true, name()));
  }
  // Every range checked, then one size check for them all (a record
  // batch's buffers come in one call): one fstat, not one per buffer.
  Result<std::vector<BufferPtr>> ReadRanges(const std::vector<ByteRange>& ranges) override {
    for (const ByteRange& range : ranges) {
      QUIVER_RETURN_NOT_OK(CheckRange(range.offset, range.length, size()));
    }
    QUIVER_RETURN_NOT_OK(CheckNotShrunk());
    std::vector<BufferPtr> out;
    out.reserve(ranges.size());
    for (const ByteRange& range : ranges) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr slice, Buffer::Slice(bytes_, range.offset, range.length));
      out.push_back(std::move(slice));
    }
    return out;
  }

 private:
  // The name is made only for an error.
  Status CheckNotShrunk() const {
    struct stat info;
    if (fstat(fd_, &info) == 0 && static_cast<int64_t>(info.st_size) >= size()) {
      return Status::OK();
    }
    return quiver::io::CheckNotShrunk(fd_, "'" + path_ + "'", size());
  }

  std::string path_;
  int fd_;
  std::shared_ptr<Mapping> mapping_;
  BufferPtr bytes_;
};

class DescriptorStream : public ReadSomeStream {
 public:
  explicit DescriptorStream(int fd) : fd_(fd), name_("descriptor " + std::to_string(fd)) {}
  // Owns `fd` (closed with the stream), named `name` in errors.
  DescriptorStream(int fd, std::string name) : fd_(fd), owned_(true), name_(std::move(name)) {}
  ~DescriptorStream() override {
    if (owned_) close(fd_);
  }
  std::string name() const override { return name_; }

 protected:
  Result<int64_t> ReadSome(uint8_t* out, int64_t capacity) override {
    while (true) {
      const ssize_t got = read(fd_, out, static_cast<size_t>(std::min<int64_t>(capacity, 1 << 30)));
      if (got >= 0) return static_cast<int64_t>(got);
      if (errno != EINTR) return ErrnoError("read from " + name_);
    }
  }

 private:
  int fd_;
  bool owned_ = false;
  std::string name_;
};

Result<int64_t> FileSize(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0) return ErrnoError("fstat");
  return static_cast<int64_t>(info.st_size);
}

// Writes everything, retrying partial writes and interruptions.
Status WriteAll(int fd, const uint8_t* data, int64_t size) {
  while (size > 0) {
    const ssize_t written = write(fd, data, static_cast<size_t>(std::min<int64_t>(size, 1 << 30)));
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return ErrnoError("write");
    data += written;
    size -= written;
  }
  return Status::OK();
}

// Where a sink's descriptor will put its next byte when space may be
// preallocated there: the file offset of a regular file not opened for
// appending (an O_APPEND write lands at the end whatever the offset), -1
// for pipes, sockets, terminals and appends.
int64_t PreallocationStart(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return -1;
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_APPEND)) return -1;
  const off_t offset = lseek(fd, 0, SEEK_CUR);
  return offset < 0 ? -1 : static_cast<int64_t>(offset);
}

// Small writes (message prefixes, padding, metadata) are gathered; large
// buffers go to the file directly, so a body is written without a copy.
// The first failed write latches: every later call reports it, so nothing
// is written after a gap. A sink opened by path writes a temporary file
// beside it and renames it over `path` on a successful Close.
class DescriptorSink : public OutputSink {
 public:
  DescriptorSink(int fd, bool owned, std::string name, std::string temp_path = {},
                 std::string final_path = {})
      : fd_(fd),
        owned_(owned),
        start_(PreallocationStart(fd)),
        name_(std::move(name)),
        temp_path_(std::move(temp_path)),
        final_path_(std::move(final_path)) {
    pending_.reserve(kGather);
  }
  ~DescriptorSink() override {
    if (!temp_path_.empty() && !closed_) {
      Discard();  // never closed: the final name stays as it was
    } else {
      (void)Close();
    }
  }

  Status Write(const void* data, int64_t size) override {
    QUIVER_RETURN_NOT_OK(Usable());
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (size < kDirect) {
      pending_.insert(pending_.end(), bytes, bytes + size);
      position_ += size;
      return pending_.size() >= kGather ? Flush() : Status::OK();
    }
    QUIVER_RETURN_NOT_OK(Flush());
    QUIVER_RETURN_NOT_OK(Latch(WriteAll(fd_, bytes, size), size));
    position_ += size;
    return Status::OK();
  }
  // Preallocating the blocks (fallocate, the file size unchanged) spares
  // the filesystem its per-page reservation during the buffered writes:
  // on ext4 a 100 MiB body then writes about 1.5x faster than by write()
  // alone. Small messages skip it, where the extra call costs more than
  // it saves.
  void Reserve(int64_t bytes) override {
    if (start_ < 0 || closed_ || bytes < kPreallocateMin) return;
    if (fallocate(fd_, FALLOC_FL_KEEP_SIZE, start_ + position_, bytes) != 0 &&
        (errno == EOPNOTSUPP || errno == ENOSYS)) {
      start_ = -1;  // the filesystem cannot; do not ask again
    }
  }
  int64_t position() const override { return position_; }
  std::string temporary_path() const override { return closed_ ? std::string() : temp_path_; }
  Status Flush() override {
    QUIVER_RETURN_NOT_OK(Usable());
    const auto gathered = static_cast<int64_t>(pending_.size());
    Status st = WriteAll(fd_, pending_.data(), gathered);
    pending_.clear();
    return Latch(st, 0, gathered);
  }
  Status Close() override {
    if (closed_) return failure_;
    Status st = Flush();
    closed_ = true;
    if (owned_ && close(fd_) != 0 && st.ok()) st = ErrnoError("cannot close " + name_);
    if (temp_path_.empty()) return st;
    if (st.ok() && rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
      st = ErrnoError("cannot rename the finished '" + temp_path_ + "' to '" + final_path_ + "'");
    }
    if (!st.ok()) unlink(temp_path_.c_str());
    failure_ = st;  // a second Close says the same
    return st;
  }

 private:
  static constexpr size_t kGather = 1 << 20;
  static constexpr int64_t kDirect = 1 << 16;
  static constexpr int64_t kPreallocateMin = 1 << 18;

  Status Usable() const {
    if (!failure_.ok()) return failure_;
    if (closed_) return Status::IOError("write to ", name_, " after it was closed");
    return Status::OK();
  }
  // Records a failed write of `size` bytes (at `back` bytes before the
  // current position): the error names the sink and the byte offset.
  Status Latch(const Status& st, int64_t size, int64_t back = 0) {
    if (st.ok()) return st;
    failure_ = Status::IOError("writing ", size + back, " bytes at byte ", position_ - back, " of ",
                               name_, " failed (", st.message(), "); the writer stops here");
    return failure_;
  }
  void Discard() {
    closed_ = true;
    if (owned_) close(fd_);
    unlink(temp_path_.c_str());
  }

  int fd_;
  bool owned_;
  int64_t start_;  // file offset of position 0; -1: no preallocation
  std::string name_;
  std::string temp_path_;  // set for sinks opened by path
  std::string final_path_;
  Status failure_;
  bool closed_ = false;
  int64_t position_ = 0;
  std::vector<uint8_t> pending_;
};

}  // namespace

Result<std::vector<BufferPtr>> InputSource::ReadRanges(const std::vector<ByteRange>& ranges) {
  std::vector<BufferPtr> out;
  out.reserve(ranges.size());
  for (const ByteRange& range : ranges) {
    QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, ReadAt(range.offset, range.length));
    out.push_back(std::move(bytes));
  }
  return out;
}

std::shared_ptr<InputSource> BufferSource(BufferPtr buffer) {
  return std::make_shared<MemorySource>(std::move(buffer));
}

namespace {

// `path` opened for reading (O_CLOEXEC) and stat'ed; a directory is an
// IOError. The caller owns the descriptor.
Result<int> OpenForReading(const std::string& path, struct stat* info) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open '" + path + "'");
  if (fstat(fd, info) != 0) {
    Status st = ErrnoError("cannot stat '" + path + "'");
    close(fd);
    return st;
  }
  if (S_ISDIR(info->st_mode)) {
    close(fd);  // open() takes a directory; mapping or reading it fails obscurely
    return Status::IOError("'", path, "' is a directory, not a file");
  }
  return fd;
}

// An open regular file (owned from here on) as a source.
Result<std::shared_ptr<InputSource>> SourceOfOpenFile(const std::string& path, int fd,
                                                      const struct stat& info, bool memory_map) {
  const auto size = static_cast<int64_t>(info.st_size);
  if (!memory_map)
    return std::shared_ptr<InputSource>(
        std::make_shared<DescriptorSource>(fd, size, true, "'" + path + "'"));
  auto mapping = std::make_shared<Mapping>();
  mapping->size = size;
  if (size > 0) {
    void* data = mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      Status st = ErrnoError("cannot map '" + path + "'");
      close(fd);
      return st;
    }
    mapping->data = data;
  }
  const auto* bytes = static_cast<const uint8_t*>(mapping->data);
  BufferPtr view = Buffer::Wrap(bytes, size, [mapping] {});
  return std::shared_ptr<InputSource>(
      std::make_shared<MappedFileSource>(path, fd, mapping, std::move(view)));
}

}  // namespace

Result<std::shared_ptr<InputSource>> OpenFileSource(const std::string& path, bool memory_map) {
  struct stat info;
  QUIVER_ASSIGN_OR_RETURN(const int fd, OpenForReading(path, &info));
  return SourceOfOpenFile(path, fd, info, memory_map);
}

Result<std::shared_ptr<InputStream>> OpenFileStream(const std::string& path) {
  struct stat info;
  QUIVER_ASSIGN_OR_RETURN(const int fd, OpenForReading(path, &info));
  if (S_ISREG(info.st_mode)) {
    QUIVER_ASSIGN_OR_RETURN(auto source, SourceOfOpenFile(path, fd, info, true));
    return SourceStream(std::move(source));
  }
  // A FIFO, a character device (/dev/stdin), a socket: its size says
  // nothing, so it is read as it arrives.
  return std::shared_ptr<InputStream>(std::make_shared<DescriptorStream>(fd, "'" + path + "'"));
}

Result<std::shared_ptr<InputSource>> FileDescriptorSource(int fd) {
  QUIVER_ASSIGN_OR_RETURN(int64_t size, FileSize(fd));
  return std::shared_ptr<InputSource>(
      std::make_shared<DescriptorSource>(fd, size, false, "descriptor " + std::to_string(fd)));
}

std::unique_ptr<InputStream> StreamOver(InputSource& source, int64_t offset) {
  return std::make_unique<internal::SourceReadStream>(source, nullptr, offset);
}

std::shared_ptr<InputStream> SourceStream(std::shared_ptr<InputSource> source, int64_t offset) {
  InputSource& borrowed = *source;
  return std::make_shared<internal::SourceReadStream>(borrowed, std::move(source), offset);
}

std::shared_ptr<InputStream> FileDescriptorStream(int fd) {
  return std::make_shared<DescriptorStream>(fd);
}

// The buffer starts small and doubles as bytes arrive, so a length claimed
// by hostile bytes costs memory only for what is really sent.
Result<BufferPtr> ReadSomeStream::Read(int64_t length) {
  if (length < 0) return Status::Invalid("a stream read of ", length, " bytes");
  int64_t capacity = std::min<int64_t>(length, 64 * 1024);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(capacity));
  int64_t done = 0;
  while (done < length) {
    if (done == capacity) {
      capacity = std::min(length, capacity * 2);
      QUIVER_ASSIGN_OR_RETURN(BufferPtr bigger, Buffer::AllocateUninitialized(capacity));
      std::memcpy(bigger->mutable_data(), out->data(), static_cast<size_t>(done));
      out = std::move(bigger);
    }
    QUIVER_ASSIGN_OR_RETURN(int64_t got, ReadSome(out->mutable_data() + done, capacity - done));
    if (got <= 0) break;
    done += std::min(got, capacity - done);
  }
  position_ += done;
  if (done == capacity) return out;
  return Buffer::Slice(std::move(out), 0, done);
}

namespace {

// A sink that writes `path` where it is: FIFOs, devices and sockets (a
// rename would replace the node with a regular file), and symlinks that
// point at nothing.
Result<std::shared_ptr<OutputSink>> InPlaceSink(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot open '" + path + "' for writing");
  return std::shared_ptr<OutputSink>(std::make_shared<DescriptorSink>(fd, true, "'" + path + "'"));
}

// A hidden temporary file beside `target` (same directory, so the final
// rename stays on one filesystem and is atomic), unique to this process
// and call, created exclusively; renamed over `target` on Close. It takes
// the mode (and, where allowed, the owner) of the file it replaces; a new
// file's mode honours the umask as a plain create would.
Result<std::shared_ptr<OutputSink>> ReplacingSink(const std::string& name,
                                                  const std::string& target,
                                                  const struct stat* replaced) {
  static std::atomic<uint64_t> counter{0};
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  if (base.size() > 200) base.clear();  // the temporary name must fit NAME_MAX too
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temp = dir + "." + base + ".quiver-" + std::to_string(getpid()) + "-" +
                             std::to_string(counter.fetch_add(1)) + ".tmp";
    const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      if (replaced != nullptr) {
        (void)fchmod(fd, replaced->st_mode & 07777);
        (void)fchown(fd, replaced->st_uid, replaced->st_gid);  // only root may; else ours
      }
      return std::shared_ptr<OutputSink>(
          std::make_shared<DescriptorSink>(fd, true, "'" + name + "'", temp, target));
    }
    if (errno != EEXIST) {
      return ErrnoError("cannot create a file beside '" + target + "' ('" + temp + "')");
    }
  }
  return Status::IOError("cannot find a free temporary name beside '", target, "'");
}

}  // namespace

Result<std::shared_ptr<OutputSink>> OpenFileSink(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    if (errno != ENOENT) return ErrnoError("cannot stat '" + path + "'");
    return ReplacingSink(path, path, nullptr);
  }
  if (S_ISDIR(info.st_mode)) return Status::IOError("'", path, "' is a directory");
  if (S_ISREG(info.st_mode)) return ReplacingSink(path, path, &info);
  if (S_ISLNK(info.st_mode)) {
    // The link stays: the file it points at is replaced.
    char* resolved = realpath(path.c_str(), nullptr);
    if (resolved != nullptr) {
      const std::string target = resolved;
      free(resolved);
      struct stat target_info;
      if (stat(target.c_str(), &target_info) == 0 && S_ISREG(target_info.st_mode)) {
        return ReplacingSink(path, target, &target_info);
      }
    }
  }
  return InPlaceSink(path);
}

std::shared_ptr<OutputSink> FileDescriptorSink(int fd) {
  return std::make_shared<DescriptorSink>(fd, false, "descriptor " + std::to_string(fd));
}

Status BufferSink::Grow(int64_t capacity) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bigger, Buffer::AllocateUninitialized(capacity));
  if (size_ > 0) std::memcpy(bigger->mutable_data(), buffer_->data(), static_cast<size_t>(size_));
  buffer_ = std::move(bigger);
  return Status::OK();
}

// At least `needed` bytes, and at least twice the old capacity: growing to
// the exact size asked for would copy everything written so far once per
// message (quadratic in the number of messages).
int64_t BufferSink::GrownCapacity(int64_t needed) const {
  const int64_t doubled =
      capacity() > std::numeric_limits<int64_t>::max() / 2 ? capacity() : capacity() * 2;
  return std::max<int64_t>({4096, doubled, needed});
}

void BufferSink::Reserve(int64_t bytes) {
  if (bytes <= 0 || bytes > std::numeric_limits<int64_t>::max() - size_) return;
  if (size_ + bytes > capacity())
    (void)Grow(GrownCapacity(size_ + bytes));  // Write reports a failure
}

Status BufferSink::Write(const void* data, int64_t size) {
  if (size <= 0) return Status::OK();
  if (size > std::numeric_limits<int64_t>::max() - size_) {
    return Status::OutOfMemory("a buffer sink cannot hold more than 2^63 bytes");
  }
  if (size_ + size > capacity()) QUIVER_RETURN_NOT_OK(Grow(GrownCapacity(size_ + size)));
  std::memcpy(buffer_->mutable_data() + size_, data, static_cast<size_t>(size));
  size_ += size;
  return Status::OK();
}

Result<BufferPtr> BufferSink::Finish() {
  BufferPtr out;
  if (buffer_) {
    QUIVER_ASSIGN_OR_RETURN(out, Buffer::Slice(buffer_, 0, size_));
  } else {
    QUIVER_ASSIGN_OR_RETURN(out, Buffer::Allocate(0));
  }
  buffer_.reset();
  size_ = 0;
  return out;
}

}  // namespace quiver::io
