// Shared by the fuzz targets that build structures from their input: the
// input read front to back as a source of small numbers and bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace quiver::fuzz {

// Reads the input front to back; zeros once it runs out.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  // Uniform-ish in [lo, hi], hi - lo < 2^16 (one byte when hi - lo < 256).
  int64_t Int(int64_t lo, int64_t hi) {
    const auto span = static_cast<uint64_t>(hi - lo) + 1;
    uint64_t v = Byte();
    if (span > 256) v |= static_cast<uint64_t>(Byte()) << 8;
    return lo + static_cast<int64_t>(v % span);
  }
  bool OneIn(int n) { return Byte() % n == 0; }
  int64_t Int64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(Byte()) << (8 * i);
    return static_cast<int64_t>(v);
  }
  void Fill(uint8_t* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = Byte();
  }
  std::string Text(int64_t max) {
    std::string s(static_cast<size_t>(Int(0, max)), '\0');
    for (char& c : s) c = static_cast<char>(Byte());
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace quiver::fuzz
