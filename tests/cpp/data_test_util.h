// Helpers for the training input pipeline tests: a temporary directory,
// batches with a scalar, a fixed-shape and a variable-shape column whose
// values follow from the row number, and IPC files written from them.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/ipc.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver::test {

// The element of `tensor` at `index` (which must be in range).
template <typename T>
T At(const Tensor& tensor, std::vector<int64_t> index) {
  Result<T> value = tensor.Value<T>(index);
  EXPECT_TRUE(value.ok()) << value.status().ToString();
  return value.ok() ? *value : T{};
}

// A directory under /tmp, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/quiver-data-test-XXXXXX";
    path_ = mkdtemp(name) ? name : "";
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Row r's image: shape (1 + r % 3, 1 + r % 4), element k = (r + k) % 251.
inline std::vector<int64_t> ImageShape(int64_t r) { return {1 + r % 3, 1 + r % 4}; }
inline uint8_t ImageValue(int64_t r, int64_t k) { return static_cast<uint8_t>((r + k) % 251); }

inline Tensor ImageOf(int64_t r) {
  std::vector<int64_t> shape = ImageShape(r);
  std::vector<uint8_t> values(static_cast<size_t>(shape[0] * shape[1]));
  for (size_t k = 0; k < values.size(); ++k) values[k] = ImageValue(r, static_cast<int64_t>(k));
  return *Tensor::Make(uint8(), BufferOf(values), shape);
}

inline VariableShapeTensorType ImageType() { return *VariableShapeTensorType::Make(uint8(), 2); }
inline FixedShapeTensorType EmbeddingType() { return *FixedShapeTensorType::Make(float32(), {2}); }

inline SchemaPtr DataSchema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"id", int64()}, Field{"emb", EmbeddingType().data_type()},
                    Field{"img", ImageType().data_type()}};
  return schema;
}

// Rows [first, first + n): id = r, emb = (r, -r), img = ImageOf(r); with
// `nulls`, every row with r % 5 == 4 has a null img.
inline RecordBatchPtr DataBatch(int64_t first, int64_t n, bool nulls = false) {
  std::vector<int64_t> ids;
  std::vector<float> emb;
  std::vector<std::optional<Tensor>> images;
  for (int64_t r = first; r < first + n; ++r) {
    ids.push_back(r);
    emb.push_back(static_cast<float>(r));
    emb.push_back(static_cast<float>(-r));
    if (nulls && r % 5 == 4) {
      images.emplace_back();
    } else {
      images.emplace_back(ImageOf(r));
    }
  }
  Tensor emb_tensor = *Tensor::Make(float32(), BufferOf(emb), {n, 2});
  FixedShapeTensorArray fixed = *FixedShapeTensorArray::FromTensor(emb_tensor);
  VariableShapeTensorArray ragged = *VariableShapeTensorArray::FromTensors(ImageType(), images);
  return *RecordBatch::Make(DataSchema(), n,
                            {Primitive<int64_t>(int64(), ids), fixed.data(), ragged.data()});
}

// An IPC file of `batches` at `path`.
inline Status WriteBatches(const std::string& path, const std::vector<RecordBatchPtr>& batches,
                           const ipc::WriteOptions& options = {}) {
  QUIVER_ASSIGN_OR_RETURN(auto sink, ipc::OpenFileSink(path));
  QUIVER_ASSIGN_OR_RETURN(auto writer, ipc::FileWriter::Open(sink, batches[0]->schema(), options));
  for (const RecordBatchPtr& batch : batches) QUIVER_RETURN_NOT_OK(writer->Write(*batch));
  QUIVER_RETURN_NOT_OK(writer->Close());
  return sink->Close();
}

// A file of rows [first, first + n) in record batches of `per_batch` rows.
inline Status WriteRows(const std::string& path, int64_t first, int64_t n, int64_t per_batch,
                        bool nulls = false) {
  std::vector<RecordBatchPtr> batches;
  for (int64_t at = first; at < first + n; at += per_batch) {
    batches.push_back(DataBatch(at, std::min(per_batch, first + n - at), nulls));
  }
  return WriteBatches(path, batches);
}

}  // namespace quiver::test
