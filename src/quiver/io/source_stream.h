// Internal: an InputSource read front to back as an InputStream (StreamOver,
// SourceStream). Declared here rather than in file_io.cc so that the IPC
// message reader can see through it: a message of a source that hands out
// views (a mapped file) is then viewed whole with one read of the source,
// and so one check of the file's size, rather than one read per part
// (ipc/message.cc).
#pragma once

#include <algorithm>
#include <memory>
#include <string>

#include "quiver/io.h"

namespace quiver::io::internal {

class SourceReadStream : public InputStream {
 public:
  // `owner`, when set, keeps `source` alive. With `view_once`, a source of
  // views is viewed once, from the first Read's position to its end, and
  // every Read is a slice of that view: one read of the source, so one
  // check of a mapped file's size, for all that follows. That suits one
  // message (the IPC readers make such a cursor per message), not a whole
  // stream, whose file may shrink while it is read.
  SourceReadStream(InputSource& source, std::shared_ptr<InputSource> owner, int64_t offset,
                   bool view_once = false)
      : source_(source), owner_(std::move(owner)), position_(offset), view_once_(view_once) {}
  Result<BufferPtr> Read(int64_t length) override {
    const int64_t take = std::max<int64_t>(0, std::min(length, remaining()));
    BufferPtr out;
    if (view_once_ && source_.zero_copy()) {
      if (!view_) {
        view_start_ = position_;
        QUIVER_ASSIGN_OR_RETURN(view_, source_.ReadAt(position_, remaining()));
      }
      QUIVER_ASSIGN_OR_RETURN(out, Buffer::Slice(view_, position_ - view_start_, take));
    } else {
      QUIVER_ASSIGN_OR_RETURN(out, source_.ReadAt(position_, take));
    }
    position_ += take;
    return out;
  }
  int64_t position() const override { return position_; }
  int64_t remaining() const override { return std::max<int64_t>(0, source_.size() - position_); }
  bool zero_copy() const override { return source_.zero_copy(); }
  std::string name() const override { return source_.name(); }

  InputSource& source() const { return source_; }
  // Moves on to `position` (at least the current one): the bytes between
  // were read from source() directly.
  void MoveTo(int64_t position) { position_ = std::max(position_, position); }

 private:
  InputSource& source_;
  std::shared_ptr<InputSource> owner_;
  int64_t position_;
  bool view_once_;
  BufferPtr view_;  // [view_start_, the source's end), once read
  int64_t view_start_ = 0;
};

}  // namespace quiver::io::internal
