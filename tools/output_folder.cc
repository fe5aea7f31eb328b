#include "output_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "npy.h"
#include "quiver/ipc.h"
#include "signal_cleanup.h"

namespace quiver::tools {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// Closes a descriptor unless it is the folder's own.
struct FolderHandle {
  int fd;
  int root;
  ~FolderHandle() {
    if (fd >= 0 && fd != root) close(fd);
  }
};

}  // namespace

std::string SafeName(const std::optional<std::string>& name, int64_t row) {
  const std::string fallback = "row_" + std::to_string(row);
  if (!name || name->empty() || name->front() == '/') return fallback;
  std::string out;
  size_t part_start = 0;
  for (size_t i = 0; i <= name->size(); ++i) {
    if (i == name->size() || (*name)[i] == '/') {
      const std::string_view part = std::string_view(*name).substr(part_start, i - part_start);
      if (part.empty() || part == "." || part == "..") return fallback;
      part_start = i + 1;
    }
    if (i == name->size()) break;
    const auto c = static_cast<unsigned char>((*name)[i]);
    if (c < 0x20 || c == 0x7f) {
      char escape[4];
      std::snprintf(escape, sizeof(escape), "%%%02X", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

OutputFolder::OutputFolder(int fd, std::string path, bool force)
    : fd_(fd), path_(std::move(path)), force_(force) {}

OutputFolder::~OutputFolder() { close(fd_); }

Result<std::unique_ptr<OutputFolder>> OutputFolder::Open(const std::string& path, bool force) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return Status::IOError("cannot make '", path, "': ", error.message());
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(Errno("cannot open the folder '" + path + "'"));
  return std::unique_ptr<OutputFolder>(new OutputFolder(fd, path, force));
}

bool OutputFolder::Taken(const std::string& relative) const {
  const std::string lower = Lower(relative);
  return files_.count(lower) > 0 || folders_.count(lower) > 0;
}

bool OutputFolder::UnderAFile(const std::string& relative) const {
  const std::string lower = Lower(relative);
  for (size_t slash = lower.find('/'); slash != std::string::npos;
       slash = lower.find('/', slash + 1)) {
    if (files_.count(lower.substr(0, slash))) return true;
  }
  return false;
}

std::string OutputFolder::NameFor(const std::optional<std::string>& name, int64_t row) {
  std::string base = SafeName(name, row);
  // A folder on the way that is a file given out ("x" then "x.npy/y"):
  // no suffix helps, so the row gets a name of its own.
  if (UnderAFile(base)) base = "row_" + std::to_string(row);
  std::string candidate = base + ".npy";
  if (Taken(candidate)) {
    // An invented name must also be free on disk: it is never meant to
    // replace a file that is already there. Only the last part changes,
    // so some candidate is free.
    auto free = [&](const std::string& relative) {
      struct stat info;
      return !Taken(relative) && fstatat(fd_, relative.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0;
    };
    base += "_" + std::to_string(row);
    candidate = base + ".npy";
    for (int k = 2; !free(candidate); ++k) candidate = base + "_" + std::to_string(k) + ".npy";
  }
  const std::string lower = Lower(candidate);
  files_.insert(lower);
  for (size_t slash = lower.find('/'); slash != std::string::npos;
       slash = lower.find('/', slash + 1)) {
    folders_.insert(lower.substr(0, slash));
  }
  return candidate;
}

// The folder that holds `relative`, made where missing; its last part in
// `*leaf`. Every part is entered with O_NOFOLLOW, so a symlink planted in
// the output folder cannot send the file elsewhere.
Result<int> OutputFolder::OpenSubfolder(const std::string& relative, std::string* leaf) {
  int folder = fd_;
  size_t start = 0;
  for (size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', start)) {
    const std::string part = relative.substr(start, slash - start);
    const std::string shown = path_ + "/" + relative.substr(0, slash);
    if (mkdirat(folder, part.c_str(), 0755) != 0 && errno != EEXIST) {
      const Status status = Status::IOError(Errno("cannot make '" + shown + "'"));
      if (folder != fd_) close(folder);
      return status;
    }
    const int next = openat(folder, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int error = errno;
    if (folder != fd_) close(folder);
    if (next < 0) {
      struct stat info;
      if (fstatat(fd_, relative.substr(0, slash).c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(info.st_mode)) {
        return Status::IOError("'", shown, "' is a symlink: unpack never writes through one");
      }
      return Status::IOError("cannot enter '", shown, "': ", std::strerror(error));
    }
    folder = next;
    start = slash + 1;
  }
  *leaf = relative.substr(start);
  return folder;
}

namespace {

// Writes the .npy into `fd` (owned: closed here).
Status WriteInto(int fd, const std::string& shown, const Tensor& tensor) {
  auto sink = ipc::FileDescriptorSink(fd);
  Status status = WriteNpy(tensor, sink.get());
  if (status.ok()) status = sink->Close();
  if (close(fd) != 0 && status.ok())
    status = Status::IOError(Errno("cannot close '" + shown + "'"));
  return status;
}

}  // namespace

// A new file, created exclusively: an existing one, or a symlink, stops it.
Status OutputFolder::Create(int folder, const std::string& leaf, const std::string& shown,
                            const Tensor& tensor) {
  RemoveOnSignal guard;
  int fd;
  {
    SignalsHeld held;  // the file and its registration appear together
    fd = openat(folder, leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) guard.Arm(shown);
  }
  if (fd < 0) {
    if (errno != EEXIST) return Status::IOError(Errno("cannot create '" + shown + "'"));
    struct stat info;
    if (fstatat(folder, leaf.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode)) {
      return Status::IOError("'", shown, "' is a symlink: unpack never writes through one");
    }
    return Status::IOError("'", shown, "' exists (--force replaces existing files)");
  }
  Status status = WriteInto(fd, shown, tensor);
  if (!status.ok()) unlinkat(folder, leaf.c_str(), 0);
  guard.Release();
  return status;
}

// --force: written under a temporary name beside it, then renamed over
// the old file (rename replaces a name, it never follows one).
Status OutputFolder::Replace(int folder, const std::string& leaf, const std::string& shown,
                             const Tensor& tensor) {
  struct stat info;
  if (fstatat(folder, leaf.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(info.st_mode)) {
      return Status::IOError("'", shown, "' is a symlink: unpack never writes through one, ",
                             "not even with --force");
    }
    if (!S_ISREG(info.st_mode)) return Status::IOError("'", shown, "' exists and is not a file");
  } else if (errno == ENOENT) {
    return Create(folder, leaf, shown, tensor);
  }
  static std::atomic<uint64_t> counter{0};
  const std::string base = leaf.size() > 200 ? std::string("npy") : leaf;
  const std::string temp = "." + base + ".quiver-" + std::to_string(getpid()) + "-" +
                           std::to_string(counter.fetch_add(1)) + ".tmp";
  const size_t slash = shown.rfind('/');
  const std::string temp_shown = shown.substr(0, slash + 1) + temp;
  RemoveOnSignal guard;
  int fd;
  {
    SignalsHeld held;
    fd = openat(folder, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) guard.Arm(temp_shown);
  }
  if (fd < 0) return Status::IOError(Errno("cannot create '" + temp_shown + "'"));
  Status status = WriteInto(fd, shown, tensor);
  if (status.ok() && renameat(folder, temp.c_str(), folder, leaf.c_str()) != 0) {
    status = Status::IOError(Errno("cannot rename '" + temp_shown + "' to '" + shown + "'"));
  }
  if (!status.ok()) unlinkat(folder, temp.c_str(), 0);
  guard.Release();
  return status;
}

Status OutputFolder::Write(const std::string& relative, const Tensor& tensor) {
  std::string leaf;
  QUIVER_ASSIGN_OR_RETURN(int folder, OpenSubfolder(relative, &leaf));
  FolderHandle handle{folder, fd_};
  const std::string shown = path_ + "/" + relative;
  return force_ ? Replace(folder, leaf, shown, tensor) : Create(folder, leaf, shown, tensor);
}

}  // namespace quiver::tools
