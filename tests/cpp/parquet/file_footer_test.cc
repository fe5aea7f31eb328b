// Reading a Parquet footer: the magic at both ends, the length word, small
// and large footers, and the errors of files that are not Parquet.
#include "quiver/parquet/file_footer.h"

#include <string>

#include "parquet_test_util.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

using test::LengthWord;

FileMetaData Minimal(int extra_pairs = 0) {
  FileMetaData m;
  m.version = 1;
  m.num_rows = 0;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 0;
  m.schema = {root};
  for (int i = 0; i < extra_pairs; ++i) {
    m.key_value_metadata.emplace_back("key" + std::to_string(i), std::string(100, 'v'));
  }
  return m;
}

std::string FileBytes(const FileMetaData& m, const std::string& body = "column data") {
  return test::ParquetFileBytes(m, body);
}

Result<FileFooter> Read(const std::string& bytes) {
  auto source =
      io::BufferSource(quiver::test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size())));
  return ReadFileFooter(*source);
}

TEST(ParquetFileFooterTest, SmallAndLargeFootersRead) {
  ASSERT_OK_AND_ASSIGN(FileFooter small, Read(FileBytes(Minimal())));
  EXPECT_EQ(small.metadata.schema.size(), 1u);
  EXPECT_EQ(small.metadata_offset, 4 + 11);
  // 1,000 pairs of 100 bytes: a footer beyond the first 64 KiB read.
  ASSERT_OK_AND_ASSIGN(FileFooter large, Read(FileBytes(Minimal(1000))));
  EXPECT_GT(large.metadata_length, kFooterReadAhead);
  EXPECT_EQ(large.metadata.key_value_metadata.size(), 1000u);
  EXPECT_EQ(large.metadata.key_value_metadata[999].first, "key999");
}

TEST(ParquetFileFooterTest, FilesThatAreNotParquetAreNamed) {
  EXPECT_ERROR(kInvalid, "fewer than the 12", Read("PAR1PAR1"));
  std::string good = FileBytes(Minimal());
  EXPECT_ERROR(kInvalid, "does not end with the magic PAR1", Read(good.substr(0, good.size() - 1)));
  std::string head = good;
  head[0] = 'X';
  EXPECT_ERROR(kInvalid, "does not start with the magic PAR1", Read(head));
  std::string encrypted = good;
  encrypted.replace(encrypted.size() - 4, 4, "PARE");
  EXPECT_ERROR(kNotImplemented, "encrypted footer", Read(encrypted));
  std::string long_length = good;
  long_length.replace(long_length.size() - 8, 4, LengthWord(0xfffffff0u));
  EXPECT_ERROR(kInvalid, "runs past the start of the", Read(long_length));
  std::string short_length = good;  // the length word one byte short
  const uint32_t length = static_cast<uint32_t>(EncodeFileMetaData(Minimal()).size());
  short_length.replace(short_length.size() - 8, 4, LengthWord(length - 1));
  EXPECT_FALSE(Read(short_length).ok());
}

}  // namespace
}  // namespace quiver::parquet
