// The per-axis numbers of a tensor (its shape or its strides): a small
// vector that keeps up to Dims::kInline values in place and goes to the
// heap only beyond. A Tensor holds two of them; with std::vector each
// tensor made (a DLPack import, a row view, a NumPy wrap) paid two heap
// allocations, which cost more than everything else such a call does.
//
// Reads like a `const std::vector<int64_t>`: size, indexing, iteration,
// span and vector conversions, equality with a vector.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace quiver {

class Dims {
 public:
  using value_type = int64_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  // Enough for every tensor in common use (images in a batch are 4-D,
  // video 5-D).
  static constexpr size_t kInline = 6;

  Dims() = default;
  Dims(std::span<const int64_t> values) { Assign(values); }  // NOLINT(google-explicit-constructor)
  Dims(const std::vector<int64_t>& values)                   // NOLINT(google-explicit-constructor)
      : Dims(std::span<const int64_t>(values)) {}
  Dims(std::initializer_list<int64_t> values)
      : Dims(std::span<const int64_t>(values.begin(), values.size())) {}
  // `count` values, all `value`.
  Dims(size_t count, int64_t value) {
    Resize(count);
    std::fill(begin(), end(), value);
  }

  Dims(const Dims& other) { CopyFrom(other); }
  Dims(Dims&& other) noexcept : size_(other.size_), heap_(other.heap_), inline_(other.inline_) {
    other.heap_ = nullptr;
    other.size_ = 0;
  }
  Dims& operator=(const Dims& other) {
    if (this != &other) CopyFrom(other);
    return *this;
  }
  Dims& operator=(Dims&& other) noexcept {
    if (this != &other) {
      Free();
      Take(other);
    }
    return *this;
  }
  ~Dims() { Free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return heap_ ? heap_ : inline_.data(); }
  int64_t* data() { return heap_ ? heap_ : inline_.data(); }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t front() const { return data()[0]; }
  int64_t back() const { return data()[size_ - 1]; }

  // (std::span takes a Dims as a contiguous range.) A copy as a vector:
  operator std::vector<int64_t>() const { return {begin(), end()}; }  // NOLINT

  friend bool operator==(const Dims& a, std::span<const int64_t> b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const Dims& a, const Dims& b) { return a == std::span<const int64_t>(b); }
  friend bool operator==(const Dims& a, const std::vector<int64_t>& b) {
    return a == std::span<const int64_t>(b);
  }

 private:
  // Makes room for `count` values (contents unspecified).
  void Resize(size_t count) {
    Free();
    if (count > kInline) heap_ = new int64_t[count];
    size_ = count;
  }
  // In-place values are copied as the whole fixed-size array: a few
  // vector moves. A loop over only the values in use compiles to a memmove
  // call, and a Tensor is moved several times on its way out of a factory:
  // those calls cost more than the rest of a DLPack import.
  void Assign(std::span<const int64_t> values) {
    Resize(values.size());
    if (heap_ != nullptr) {
      std::copy(values.begin(), values.end(), heap_);
      return;
    }
    for (size_t i = 0; i < kInline; ++i) inline_[i] = i < values.size() ? values[i] : 0;
  }
  void CopyFrom(const Dims& other) {
    if (other.heap_ != nullptr) {
      Assign(other);
      return;
    }
    Free();
    size_ = other.size_;
    inline_ = other.inline_;
  }
  void Take(Dims& other) noexcept {
    size_ = other.size_;
    heap_ = other.heap_;
    inline_ = other.inline_;
    other.heap_ = nullptr;
    other.size_ = 0;
  }
  void Free() {
    delete[] heap_;
    heap_ = nullptr;
    size_ = 0;
  }

  size_t size_ = 0;
  int64_t* heap_ = nullptr;                // set when size_ > kInline
  std::array<int64_t, kInline> inline_{};  // the values when heap_ is null; zeros past size_
};

}  // namespace quiver
