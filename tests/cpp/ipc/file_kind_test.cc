// What a file is, told from its first bytes: the sniffer itself, the
// errors of the IPC readers given a stream for a file (and the other way
// round), a Parquet, NumPy, compressed, text or empty file, a directory,
// and the replay of a peeked stream.
#include "quiver/ipc/file_kind.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ipc_test_util.h"

namespace quiver::ipc {

namespace {

std::vector<uint8_t> Bytes(std::string_view text) { return {text.begin(), text.end()}; }

FileKind Sniff(std::string_view text, bool whole = true) {
  std::vector<uint8_t> bytes = Bytes(text);
  return SniffFileKind(bytes, whole);
}

BufferPtr BufferOfText(std::string_view text) { return test::BufferOf(Bytes(text)); }

std::string FileOpenError(std::string_view text) {
  return test::StatusOf(FileReader::Open(BufferSource(BufferOfText(text)))).message();
}

std::string StreamOpenError(std::string_view text) {
  return test::StatusOf(StreamReader::Open(BufferSource(BufferOfText(text)))).message();
}

std::string AsText(const BufferPtr& buffer) {
  return {reinterpret_cast<const char*>(buffer->data()), static_cast<size_t>(buffer->size())};
}

// A file under the temporary directory, removed with the object.
struct TempFile {
  explicit TempFile(const std::string& name, std::string_view contents = {})
      : path(std::filesystem::temp_directory_path() /
             ("quiver_kind_" + std::to_string(getpid()) + "_" + name)) {
    std::ofstream(path, std::ios::binary).write(contents.data(), std::streamsize(contents.size()));
  }
  ~TempFile() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
};

}  // namespace

TEST(FileKind, SniffsTheCommonFormats) {
  EXPECT_EQ(Sniff(""), FileKind::kEmpty);
  EXPECT_EQ(Sniff("", false), FileKind::kUnknown);  // a stream that has sent nothing yet
  EXPECT_EQ(Sniff(std::string_view("ARROW1\0\0", 8)), FileKind::kIpcFile);
  EXPECT_EQ(Sniff("\xFF\xFF\xFF\xFF\x10\0\0\0"), FileKind::kIpcStream);
  EXPECT_EQ(Sniff("PAR1\x15\x04"), FileKind::kParquet);
  EXPECT_EQ(Sniff("FEA1...."), FileKind::kFeatherV1);
  EXPECT_EQ(Sniff("\x93NUMPY\x01\0"), FileKind::kNumpy);
  EXPECT_EQ(Sniff("PK\x03\x04\x14\0"), FileKind::kZip);
  EXPECT_EQ(Sniff("\x1F\x8B\x08\0"), FileKind::kGzip);
  EXPECT_EQ(Sniff("\x28\xB5\x2F\xFD\x20"), FileKind::kZstd);
  EXPECT_EQ(Sniff("BZh91AY"), FileKind::kBzip2);
  EXPECT_EQ(Sniff(std::string_view("\xFD"
                                   "7zXZ\0\0",
                                   7)),
            FileKind::kXz);
  EXPECT_EQ(Sniff("\x89HDF\r\n\x1A\n"), FileKind::kHdf5);
  EXPECT_EQ(Sniff("ORC\x0A"), FileKind::kOrc);
  EXPECT_EQ(Sniff("Obj\x01\x04"), FileKind::kAvro);
  EXPECT_EQ(Sniff("version https://git-lfs.github.com/spec/v1\n"), FileKind::kGitLfsPointer);
  EXPECT_EQ(Sniff("a,b,c\n1,2,3\n"), FileKind::kText);
  EXPECT_EQ(Sniff("{\"x\": [1, 2]}\r\n\t"), FileKind::kText);
  EXPECT_EQ(Sniff("na\xC3\xAFve"), FileKind::kText);   // UTF-8
  EXPECT_EQ(Sniff("na\xC3", false), FileKind::kText);  // a sequence the peek cut
  EXPECT_EQ(Sniff("na\xC3"), FileKind::kUnknown);      // ...or a broken one
  // Binary bytes that match nothing: the readers' own checks speak.
  EXPECT_EQ(Sniff(std::string_view("\0\0\0\0\0\0\0\0", 8)), FileKind::kUnknown);
  EXPECT_EQ(Sniff("\x10\0\0\0\x0C\0"), FileKind::kUnknown);  // a pre-0.15 stream
  EXPECT_EQ(Sniff("abc\x7F"), FileKind::kUnknown);
  // safetensors: an 8-byte header length, then the header's brace.
  EXPECT_EQ(Sniff(std::string_view("\x40\0\0\0\0\0\0\0{\"w\":", 13)), FileKind::kSafetensors);
  // A length past the header cap, or no brace: not safetensors.
  EXPECT_EQ(Sniff(std::string_view("\0\0\0\0\x01\0\0\0{\"w\":", 13)), FileKind::kUnknown);
  EXPECT_EQ(Sniff(std::string_view("\x40\0\0\0\0\0\0\0[1]", 11)), FileKind::kUnknown);
}

TEST(FileKind, FileReaderSaysWhatItWasGiven) {
  BufferPtr stream = test::WriteStream({test::SampleBatch(2)});
  EXPECT_EQ(test::StatusOf(FileReader::Open(BufferSource(stream))).message(),
            "the input is an Arrow IPC stream, not an Arrow IPC file; open it with open_stream "
            "(C++: ipc::StreamReader)");
  EXPECT_EQ(FileOpenError(""), "the input is empty (0 bytes), not an Arrow IPC file");
  EXPECT_EQ(FileOpenError("PAR1 ...... PAR1"),
            "the input is a Parquet file, not an Arrow IPC file; read it with a Parquet reader "
            "(pyarrow.parquet, polars) and pass the table on");
  EXPECT_EQ(FileOpenError(std::string_view("\x10\0\0\0\0\0\0\0{\"w\": {}}", 17)),
            "the input is a safetensors file, not an Arrow IPC file; read it with "
            "quiver.safetensors, or convert it with quiver convert (one row, a fixed_shape_tensor "
            "column per tensor)");
  EXPECT_EQ(FileOpenError("\x93NUMPY\x01\0v\0{'descr': '<f8'}"),
            "the input is a NumPy .npy file, not an Arrow IPC file; load it with numpy.load");
  EXPECT_EQ(FileOpenError("PK\x03\x04\x14\0\0\0\x08\0"),
            "the input is a zip archive, not an Arrow IPC file");
  EXPECT_EQ(FileOpenError("\x1F\x8B\x08\0\0\0\0\0"),
            "the input is a gzip-compressed file, not an Arrow IPC file; decompress it first (IPC "
            "data compresses its buffers inside the file with compression=)");
  EXPECT_EQ(FileOpenError("id,name\n1,\"a\"\n2,b\n3,c\n4,d\n5,e\n"),
            "the input is a text file (it starts \"id,name\\n1,\\\"a\\\"\\n2,b\\n3,c\\n4,...\"), "
            "not an Arrow IPC file");
  EXPECT_EQ(FileOpenError("version https://git-lfs.github.com/spec/v1\noid sha256:00\n"),
            "the input is a Git LFS pointer file (it starts \"version https://git-lfs....\"), not "
            "an Arrow IPC file; fetch the real file with git lfs pull");
  // Bytes of no known kind keep the IPC reader's own errors.
  EXPECT_EQ(FileOpenError(std::string(10, '\0')),
            "a 10-byte file is too short for the Arrow IPC file format");
  EXPECT_EQ(FileOpenError(std::string("NOTARROW") + std::string(20, '\xFF')),
            "not an Arrow IPC file: bad magic at byte 0");
}

TEST(FileKind, StreamReaderSaysWhatItWasGiven) {
  BufferPtr file = test::WriteFile({test::SampleBatch(2)});
  EXPECT_EQ(test::StatusOf(StreamReader::Open(BufferSource(file))).message(),
            "the input is an Arrow IPC file, not an Arrow IPC stream; open it with open_file (C++: "
            "ipc::FileReader)");
  EXPECT_EQ(StreamOpenError(""), "the IPC stream is empty: it has no schema message");
  EXPECT_EQ(StreamOpenError("PAR1xxxxxxxxPAR1"),
            "the input is a Parquet file, not an Arrow IPC stream; read it with a Parquet reader "
            "(pyarrow.parquet, polars) and pass the table on");
  EXPECT_EQ(StreamOpenError("\x28\xB5\x2F\xFD\x20\x00"),
            "the input is a zstd-compressed file, not an Arrow IPC stream; decompress it first "
            "(IPC data compresses its buffers inside the stream with compression=)");
  // A stream only shows its first 8 bytes: enough for text, quoted.
  EXPECT_EQ(StreamOpenError("hello, world"),
            "the input is a text file (it starts \"hello, w\"), not an Arrow IPC stream");
  // Other bytes keep the stream reader's own errors.
  EXPECT_NE(StreamOpenError(std::string(12, '\x01')).find("bytes of metadata"), std::string::npos);
}

TEST(FileKind, PathsAreNamedAndDirectoriesRefused) {
  TempFile parquet("data.parquet", "PAR1\x15\x04\x15\x10PAR1");
  ASSERT_OK_AND_ASSIGN(auto source, OpenFileSource(parquet.path.string()));
  EXPECT_EQ(source->name(), "'" + parquet.path.string() + "'");
  EXPECT_EQ(test::StatusOf(FileReader::Open(source)).message(),
            "'" + parquet.path.string() +
                "' is a Parquet file, not an Arrow IPC file; read it with a Parquet reader "
                "(pyarrow.parquet, polars) and pass the table on");
  ASSERT_OK_AND_ASSIGN(auto unmapped, OpenFileSource(parquet.path.string(), false));
  EXPECT_ERROR(kInvalid, "' is a Parquet file, not an Arrow IPC stream",
               StreamReader::Open(unmapped));
  TempFile empty("empty.arrow");
  ASSERT_OK_AND_ASSIGN(auto nothing, OpenFileSource(empty.path.string()));
  EXPECT_EQ(test::StatusOf(FileReader::Open(nothing)).message(),
            "'" + empty.path.string() + "' is empty (0 bytes), not an Arrow IPC file");
  EXPECT_EQ(
      test::StatusOf(StreamReader::Open(nothing)).message(),
      "'" + empty.path.string() + "' is empty: an Arrow IPC stream starts with a schema message");
  TempFile directory("dir.arrow");
  std::filesystem::remove(directory.path);
  std::filesystem::create_directory(directory.path);
  for (bool memory_map : {true, false}) {
    auto opened = OpenFileSource(directory.path.string(), memory_map);
    EXPECT_ERROR(kIOError, "'" + directory.path.string() + "' is a directory, not a file", opened);
  }
}

TEST(FileKind, APeekedStreamReplaysItsBytes) {
  BufferPtr stream_bytes = test::WriteStream({test::SampleBatch(3), test::SampleBatch(3)});
  std::shared_ptr<InputStream> stream = SourceStream(BufferSource(stream_bytes));
  BufferPtr head;
  ASSERT_OK_AND_ASSIGN(FileKind kind, PeekFileKind(&stream, &head));
  EXPECT_EQ(kind, FileKind::kIpcStream);
  EXPECT_EQ(head->size(), 8);
  EXPECT_EQ(stream->position(), 0);
  EXPECT_EQ(stream->remaining(), stream_bytes->size());
  // Reads that cross the peeked bytes get them joined with what follows.
  ASSERT_OK_AND_ASSIGN(BufferPtr first, stream->Read(3));
  ASSERT_OK_AND_ASSIGN(BufferPtr across, stream->Read(10));
  EXPECT_EQ(stream->position(), 13);
  EXPECT_EQ(AsText(first) + AsText(across), AsText(*Buffer::Slice(stream_bytes, 0, 13)));
  // And the reader built on a peeked stream reads every batch.
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(stream_bytes)));
  int batches = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    EXPECT_TRUE(batch->Equals(*test::SampleBatch(3)));
    ++batches;
  }
  EXPECT_EQ(batches, 2);
  // A stream shorter than the peek is whole: its bytes are all there is.
  std::shared_ptr<InputStream> tiny = SourceStream(BufferSource(BufferOfText("ab")));
  ASSERT_OK_AND_ASSIGN(FileKind tiny_kind, PeekFileKind(&tiny, &head));
  EXPECT_EQ(tiny_kind, FileKind::kText);
  ASSERT_OK_AND_ASSIGN(BufferPtr all, tiny->Read(100));
  EXPECT_EQ(AsText(all), "ab");
  ASSERT_OK_AND_ASSIGN(BufferPtr after, tiny->Read(100));
  EXPECT_EQ(after->size(), 0);
}

TEST(FileKind, TensorMessageReadersSayWhatTheyWereGiven) {
  EXPECT_EQ(test::StatusOf(ReadTensor(BufferSource(BufferOfText("PAR1xxxxPAR1")))).message(),
            "the input is a Parquet file, not an Arrow IPC Tensor message; read it with a Parquet "
            "reader (pyarrow.parquet, polars) and pass the table on");
  BufferPtr file = test::WriteFile({test::SampleBatch(2)});
  EXPECT_EQ(test::StatusOf(ReadSparseTensor(BufferSource(file))).message(),
            "the input is an Arrow IPC file, not an Arrow IPC SparseTensor message; open it with "
            "open_file (C++: ipc::FileReader)");
  // An empty source and a message further in keep their own errors.
  EXPECT_ERROR(kInvalid, "no Tensor message at byte 0", ReadTensor(BufferSource(BufferOfText(""))));
  EXPECT_ERROR(kInvalid, "is a Schema message, not a Tensor",
               ReadTensor(BufferSource(test::WriteStream({test::SampleBatch(2)}))));
}

TEST(FileKind, NamesAndChecks) {
  EXPECT_STREQ(FileKindName(FileKind::kHdf5), "an HDF5 file");
  EXPECT_STREQ(FileKindName(FileKind::kUnknown), "of an unknown kind");
  EXPECT_TRUE(CheckFileKind(FileKind::kIpcFile, FileKind::kIpcFile, "").ok());
  EXPECT_TRUE(CheckFileKind(FileKind::kUnknown, FileKind::kIpcStream, "x").ok());
  EXPECT_EQ(CheckFileKind(FileKind::kFeatherV1, FileKind::kIpcFile, "'old.feather'").message(),
            "'old.feather' is a Feather v1 file, not an Arrow IPC file; quiver reads Feather v2, "
            "which is the Arrow IPC file format");
  EXPECT_EQ(CheckFileKind(FileKind::kHdf5, FileKind::kIpcStream, "descriptor 3").message(),
            "descriptor 3 is an HDF5 file, not an Arrow IPC stream");
}

}  // namespace quiver::ipc
