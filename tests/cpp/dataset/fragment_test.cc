// One indexed source: a stream's index is built from message headers
// (bodies are not read: a pread source reads far fewer bytes than the
// file holds); a stream's dictionary replacements apply to the batches
// after them; a file's footer and headers give the row counts; columns
// are read alone.
#include "quiver/dataset/fragment.h"

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "sample_arrays.h"

namespace quiver::dataset {
namespace {

using test::DataBatch;
using test::TempDir;

Status WriteStreamFile(const std::string& path, const std::vector<RecordBatchPtr>& batches) {
  QUIVER_ASSIGN_OR_RETURN(auto sink, ipc::OpenFileSink(path));
  QUIVER_ASSIGN_OR_RETURN(auto writer, ipc::StreamWriter::Open(sink, batches[0]->schema()));
  for (const RecordBatchPtr& batch : batches) QUIVER_RETURN_NOT_OK(writer->Write(*batch));
  QUIVER_RETURN_NOT_OK(writer->Close());
  return sink->Close();
}

TEST(Fragment, StreamIndexReadsHeadersOnly) {
  TempDir dir;
  std::vector<RecordBatchPtr> batches;
  for (int i = 0; i < 8; ++i) batches.push_back(DataBatch(i * 500, 500));
  ASSERT_OK(WriteStreamFile(dir / "s.arrows", batches));
  ASSERT_OK_AND_ASSIGN(auto source, io::OpenFileSource(dir / "s.arrows", false));
  ASSERT_OK_AND_ASSIGN(auto fragment, Fragment::Open("s.arrows", source, {}));
  ASSERT_EQ(fragment->num_batches(), 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(fragment->batch_rows(k), 500);
  EXPECT_LT(source->stats().bytes_fetched, source->size() / 10);
  bool views = true;
  ASSERT_OK_AND_ASSIGN(std::vector<ArrayDataPtr> columns,
                       fragment->ReadColumns(3, {2, 0}, ValidationLevel::kFull, 1, &views));
  EXPECT_FALSE(views);  // read with pread: memory of its own
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_TRUE(ArrayEquals(*columns[0], *batches[3]->column(2)));
  EXPECT_TRUE(ArrayEquals(*columns[1], *batches[3]->column(0)));
}

TEST(Fragment, StreamDictionaryReplacementsApplyToTheBatchesAfterThem) {
  TempDir dir;
  auto batch = [](std::vector<int64_t> values, std::vector<std::optional<int32_t>> indices) {
    ArrayDataPtr column =
        test::DictionaryOf(indices, test::Primitive<int64_t>(int64(), std::move(values)));
    auto schema = std::make_shared<Schema>();
    schema->fields = {Field{"d", column->type}};
    return *RecordBatch::Make(schema, column->length, {column});
  };
  std::vector<RecordBatchPtr> batches = {batch({10, 20}, {0, 1}), batch({30, 40}, {1, 1})};
  ASSERT_OK(WriteStreamFile(dir / "d.arrows", batches));
  ASSERT_OK_AND_ASSIGN(auto source, io::OpenFileSource(dir / "d.arrows"));
  ASSERT_OK_AND_ASSIGN(auto fragment, Fragment::Open("d.arrows", source, {}));
  bool views = false;
  for (int k = 0; k < 2; ++k) {
    ASSERT_OK_AND_ASSIGN(std::vector<ArrayDataPtr> columns,
                         fragment->ReadColumns(k, {0}, ValidationLevel::kFull, 1, &views));
    EXPECT_TRUE(ArrayEquals(*columns[0], *batches[k]->column(0))) << "batch " << k;
  }
}

TEST(Fragment, FileRowCountsAndAHeaderChangedAfterOpen) {
  TempDir dir;
  ASSERT_OK(test::WriteRows(dir / "f.arrow", 0, 12, 5));
  ASSERT_OK_AND_ASSIGN(auto source, io::OpenFileSource(dir / "f.arrow", false));
  ASSERT_OK_AND_ASSIGN(auto fragment, Fragment::Open("f.arrow", source, {}));
  ASSERT_EQ(fragment->num_batches(), 3);
  EXPECT_EQ(fragment->batch_rows(2), 2);
}

}  // namespace
}  // namespace quiver::dataset
