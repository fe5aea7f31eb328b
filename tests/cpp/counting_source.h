// A byte source over a buffer that counts the bytes asked of it, for tests
// that a reader reads only part of a file (body_layout_test.cc,
// parquet/parquet_file_test.cc). It copies what it reads, as a remote or
// pread source does (a source of views is viewed from a message's start
// to its end once per message: asked for more than it hands out). Safe
// from several threads, as sources must be (column chunks are read in
// parallel).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "quiver/buffer.h"
#include "quiver/io.h"

namespace quiver::test {

class CountingSource : public io::InputSource {
 public:
  explicit CountingSource(BufferPtr bytes) : inner_(io::BufferSource(std::move(bytes))) {}
  int64_t size() const override { return inner_->size(); }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    read_.fetch_add(length, std::memory_order_relaxed);
    return inner_->ReadAt(offset, length);
  }
  bool zero_copy() const override { return false; }
  int64_t read() const { return read_.load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<io::InputSource> inner_;
  std::atomic<int64_t> read_{0};
};

}  // namespace quiver::test
