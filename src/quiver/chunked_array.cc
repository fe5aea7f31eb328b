#include "quiver/chunked_array.h"

#include <algorithm>
#include <string>
#include <utility>

#include "quiver/internal/threads.h"
#include "quiver/record_batch.h"
#include "quiver/selection.h"

namespace quiver {

ChunkedArray::ChunkedArray(TypePtr type, std::vector<ArrayDataPtr> chunks)
    : type_(std::move(type)), chunks_(std::move(chunks)) {
  for (const ArrayDataPtr& chunk : chunks_) length_ += chunk->length;
}

Result<ChunkedArrayPtr> ChunkedArray::Make(TypePtr type, std::vector<ArrayDataPtr> chunks) {
  if (!type) return Status::Invalid("a chunked array needs a type");
  int64_t rows = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!chunks[i]) return Status::Invalid("chunk ", std::to_string(i), " is null");
    if (!chunks[i]->type->Equals(*type)) {
      return Status::TypeError("chunk ", std::to_string(i), " is ", chunks[i]->type->ToString(),
                               ", the column is ", type->ToString());
    }
    if (chunks[i]->length > INT64_MAX - rows) {
      return Status::Invalid("the chunks hold more than 2^63 - 1 rows");
    }
    rows += chunks[i]->length;
  }
  return ChunkedArrayPtr(new ChunkedArray(std::move(type), std::move(chunks)));
}

int64_t ChunkedArray::null_count() const {
  int64_t nulls = 0;
  for (const ArrayDataPtr& chunk : chunks_) nulls += chunk->ComputeNullCount();
  return nulls;
}

Result<ChunkedArrayPtr> ChunkedArray::Slice(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0 || offset > length_ || length > length_ - offset) {
    return Status::IndexError("slice [", std::to_string(offset), ", +", std::to_string(length),
                              ") is out of range for ", std::to_string(length_), " rows");
  }
  std::vector<ArrayDataPtr> out;
  int64_t start = 0;  // of the current chunk
  for (const ArrayDataPtr& chunk : chunks_) {
    const int64_t begin = std::max(offset, start);
    const int64_t end = std::min(offset + length, start + chunk->length);
    if (begin < end) {
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr piece, quiver::Slice(chunk, begin - start, end - begin));
      out.push_back(std::move(piece));
    }
    start += chunk->length;
  }
  // An empty slice keeps one empty chunk, so it still combines into an array.
  if (out.empty() && !chunks_.empty()) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr empty, quiver::Slice(chunks_[0], 0, 0));
    out.push_back(std::move(empty));
  }
  return ChunkedArrayPtr(new ChunkedArray(type_, std::move(out)));
}

Result<ArrayDataPtr> ChunkedArray::Combine() const {
  if (chunks_.empty()) return MakeEmptyArray(type_);
  return Concatenate(chunks_);
}

Result<ChunkedArrayPtr> ChunkedArray::Take(std::span<const int64_t> indices) const {
  if (chunks_.empty()) {
    if (!indices.empty()) {
      return Status::IndexError("index ", std::to_string(indices[0]),
                                " at position 0 is out of range for 0 rows");
    }
    return ChunkedArrayPtr(new ChunkedArray(type_, {}));
  }
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr taken, quiver::Take(chunks_, indices));
  return ChunkedArrayPtr(new ChunkedArray(type_, {std::move(taken)}));
}

Result<ChunkedArrayPtr> ChunkedArray::Filter(std::span<const uint8_t> mask) const {
  return Filter(RowMask::FromBytes(mask));
}

Result<ChunkedArrayPtr> ChunkedArray::Filter(const RowMask& mask) const {
  if (chunks_.empty()) {
    if (mask.length() != 0) {
      return Status::Invalid("filter mask has ", std::to_string(mask.length()),
                             " entries for 0 rows");
    }
    return ChunkedArrayPtr(new ChunkedArray(type_, {}));
  }
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr kept, quiver::Filter(chunks_, mask));
  return ChunkedArrayPtr(new ChunkedArray(type_, {std::move(kept)}));
}

Status ChunkedArray::Validate(ValidationLevel level, int threads, const std::string& chunk_name,
                              int64_t first_number) const {
  // ParallelTasks returns the lowest failing chunk's error.
  return internal::ParallelTasks(static_cast<int64_t>(chunks_.size()), threads, [&](int64_t i) {
    Status st = quiver::Validate(*chunks_[static_cast<size_t>(i)], level);
    return st.ok() ? st : st.WithContext(chunk_name + " " + std::to_string(first_number + i));
  });
}

bool ChunkedArray::Equals(const ChunkedArray& other) const {
  if (!type_->Equals(*other.type_) || length_ != other.length_) return false;
  // Walk both columns in step, comparing the overlap of the current chunks.
  size_t a = 0, b = 0;
  int64_t at_a = 0, at_b = 0;  // rows of the current chunks already compared
  int64_t left = length_;
  while (left > 0) {
    while (chunks_[a]->length == at_a) ++a, at_a = 0;
    while (other.chunks_[b]->length == at_b) ++b, at_b = 0;
    const int64_t step = std::min(chunks_[a]->length - at_a, other.chunks_[b]->length - at_b);
    Result<ArrayDataPtr> x = quiver::Slice(chunks_[a], at_a, step);
    Result<ArrayDataPtr> y = quiver::Slice(other.chunks_[b], at_b, step);
    if (!x.ok() || !y.ok() || !ArrayEquals(**x, **y)) return false;
    at_a += step;
    at_b += step;
    left -= step;
  }
  return true;
}

}  // namespace quiver
