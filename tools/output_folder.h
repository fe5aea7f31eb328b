// Where `quiver unpack` writes: one folder, files named from rows' names.
//
// Names are made safe (a name that would climb out of the folder becomes
// row_<i>; control bytes are escaped as %XX) and unique: a name already
// given out, compared without regard to case (so that a case-insensitive
// file system loses nothing either), gets "_<row>" appended, and further
// "_2", "_3"... until it names nothing given out and nothing present; a
// name under a folder that was given out as a file becomes row_<i>.
// Files are created inside the folder with openat(2), never through a
// symlink: an existing file is refused unless `force` (then replaced by
// rename, a symlink still refused), and subfolders are entered with
// O_NOFOLLOW. A file being written when SIGINT or SIGTERM arrives is
// removed (signal_cleanup.h).
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "quiver/status.h"
#include "quiver/tensor.h"

namespace quiver::tools {

// `name` as a relative path without its ".npy": row_<row> when it is
// absent, empty, absolute, or has an empty, "." or ".." part; bytes below
// 0x20 and 0x7f escaped as "%XX" (uppercase hex). Parts are separated by
// '/', each becoming a subfolder.
std::string SafeName(const std::optional<std::string>& name, int64_t row);

class OutputFolder {
 public:
  // Makes `path` (and its parents) where missing, and opens it.
  static Result<std::unique_ptr<OutputFolder>> Open(const std::string& path, bool force);
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  // The relative file name ("a/b.npy") for row `row` named `name`: safe,
  // and unique as the header says. Reserves it.
  std::string NameFor(const std::optional<std::string>& name, int64_t row);
  // Writes `tensor` as a .npy file at `relative` (from NameFor), making
  // its subfolders. IOError naming the file when it exists (without
  // force), is a symlink or sits under one, or cannot be written.
  Status Write(const std::string& relative, const Tensor& tensor);
  const std::string& path() const { return path_; }

 private:
  OutputFolder(int fd, std::string path, bool force);
  // Whether `relative` was given out, as a file or a folder (case ignored).
  bool Taken(const std::string& relative) const;
  // Whether a folder on the way to `relative` was given out as a file.
  bool UnderAFile(const std::string& relative) const;
  Result<int> OpenSubfolder(const std::string& relative, std::string* leaf);
  Status Create(int folder, const std::string& leaf, const std::string& shown,
                const Tensor& tensor);
  Status Replace(int folder, const std::string& leaf, const std::string& shown,
                 const Tensor& tensor);

  int fd_;
  std::string path_;
  bool force_;
  std::set<std::string> files_;    // given out, lowercased
  std::set<std::string> folders_;  // their folders, lowercased
};

}  // namespace quiver::tools
