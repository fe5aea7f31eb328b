// tools/output_folder: unpack's file names and how it creates files.
#include "output_folder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;

struct TempFolder {
  TempFolder() {
    char name[] = "/tmp/quiver_output_folder_testXXXXXX";
    path = mkdtemp(name);
  }
  ~TempFolder() { fs::remove_all(path); }
  std::string path;
};

Tensor OneByte(int8_t value) {
  auto buffer = *Buffer::Allocate(1);
  buffer->mutable_data()[0] = static_cast<uint8_t>(value);
  return *Tensor::Make(int8(), buffer, {1});
}

std::string Contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OutputFolder, SafeNamesStayInsideAndEscapeControlBytes) {
  EXPECT_EQ(SafeName("img", 3), "img");
  EXPECT_EQ(SafeName("sub/img", 3), "sub/img");
  EXPECT_EQ(SafeName(std::nullopt, 3), "row_3");
  for (const char* bad : {"", "/abs", "..", "../up", "a/../b", "a/./b", "a//b", "a/", "."}) {
    EXPECT_EQ(SafeName(std::string(bad), 7), "row_7") << bad;
  }
  EXPECT_EQ(SafeName(std::string("a\nb\x1b\x7f", 5), 0), "a%0Ab%1B%7F");
  EXPECT_EQ(SafeName(std::string("a\0b", 3), 0), "a%00b");
  EXPECT_EQ(SafeName("caf\xc3\xa9 50%", 0), "caf\xc3\xa9 50%");
}

TEST(OutputFolder, RepeatedNamesNeverCollideWhateverTheCase) {
  TempFolder temp;
  auto folder = *OutputFolder::Open(temp.path, false);
  // Row 2 repeats "x"; its "x_2" is row 1's name, so it becomes "x_2_2".
  std::vector<std::string> names;
  const char* given[] = {"x", "x_2", "x", "A", "a", "x_2", "Sub/f", "sub/F"};
  for (int64_t row = 0; row < 8; ++row)
    names.push_back(folder->NameFor(std::string(given[row]), row));
  EXPECT_EQ(names[0], "x.npy");
  EXPECT_EQ(names[1], "x_2.npy");
  EXPECT_EQ(names[2], "x_2_2.npy");
  EXPECT_EQ(names[3], "A.npy");
  EXPECT_EQ(names[4], "a_4.npy");
  std::set<std::string> lower;
  for (std::string name : names) {
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    lower.insert(name);
  }
  EXPECT_EQ(lower.size(), names.size());
  // An invented name skips files already on disk; a given one does not.
  std::ofstream(temp.path + "/y_1.npy") << "old";
  EXPECT_EQ(folder->NameFor(std::string("y"), 0), "y.npy");
  EXPECT_EQ(folder->NameFor(std::string("y"), 1), "y_1_2.npy");
  // A name below a name already given out as a file cannot become a folder.
  EXPECT_EQ(folder->NameFor(std::string("x.npy/z"), 9), "row_9.npy");
}

TEST(OutputFolder, ExistingFilesNeedForceAndSymlinksAreNeverFollowed) {
  TempFolder temp;
  const std::string out = temp.path + "/out";
  fs::create_directories(out);
  fs::create_directories(temp.path + "/elsewhere");
  std::ofstream(temp.path + "/victim") << "precious";
  std::ofstream(out + "/old.npy") << "old";
  fs::create_symlink(temp.path + "/victim", out + "/link.npy");
  fs::create_symlink(temp.path + "/elsewhere", out + "/sub");
  for (bool force : {false, true}) {
    auto folder = *OutputFolder::Open(out, force);
    Status status = folder->Write("link.npy", OneByte(1));
    EXPECT_EQ(status.code(), StatusCode::kIOError);
    EXPECT_NE(status.message().find("symlink"), std::string::npos) << status.message();
    status = folder->Write("sub/x.npy", OneByte(1));
    EXPECT_NE(status.message().find("'" + out + "/sub' is a symlink"), std::string::npos)
        << status.message();
    status = folder->Write("old.npy", OneByte(2));
    if (force) {
      ASSERT_TRUE(status.ok()) << status.message();
      EXPECT_NE(Contents(out + "/old.npy"), "old");
    } else {
      EXPECT_NE(status.message().find("exists (--force replaces"), std::string::npos)
          << status.message();
      EXPECT_EQ(Contents(out + "/old.npy"), "old");
    }
    ASSERT_TRUE(folder->Write("new/deep/n.npy", OneByte(3)).ok());
  }
  EXPECT_EQ(Contents(temp.path + "/victim"), "precious");
  EXPECT_TRUE(fs::is_empty(temp.path + "/elsewhere"));
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    EXPECT_EQ(entry.path().extension(), entry.is_directory() || entry.is_symlink()
                                            ? entry.path().extension()
                                            : fs::path(".npy"))
        << entry.path();  // no temporary file left
  }
}

}  // namespace
}  // namespace quiver::tools
