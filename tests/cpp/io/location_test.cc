// Locations: directories, glob patterns and file:// URLs expand to the
// files they name, in order; what names nothing is an error that says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "quiver/io.h"
#include "test_util.h"

namespace quiver::io {
namespace {

namespace fs = std::filesystem;

class LocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("quiver_location_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Touch(const std::string& name) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << "x";
    return path.string();
  }
  fs::path dir_;
};

const std::vector<std::string> kIpc = {".arrow", ".arrows", ".feather", ".ipc"};

TEST_F(LocationTest, DirectoryListsItsIpcFilesSortedAndSkipsOthers) {
  const std::string b = Touch("b.arrows");
  const std::string a = Touch("a.arrow");
  Touch("notes.txt");
  Touch(".hidden.arrow");
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> files, ExpandLocations({dir_.string()}, kIpc));
  EXPECT_EQ(files, (std::vector<std::string>{a, b}));
}

TEST_F(LocationTest, GlobMatchesSorted) {
  const std::string two = Touch("part-2.arrow");
  const std::string one = Touch("part-1.arrow");
  Touch("other.arrow");
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> files,
                       ExpandLocations({(dir_ / "part-*.arrow").string()}, kIpc));
  EXPECT_EQ(files, (std::vector<std::string>{one, two}));
}

TEST_F(LocationTest, FileUrlAndPlainPathsKeepTheirOrder) {
  const std::string z = Touch("z.arrow");
  const std::string a = Touch("a.arrow");
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> files, ExpandLocations({"file://" + z, a}, kIpc));
  EXPECT_EQ(files, (std::vector<std::string>{z, a}));
}

TEST_F(LocationTest, WhatNamesNothingIsAnError) {
  Touch("notes.txt");
  EXPECT_ERROR(kInvalid, "holds no .arrow", ExpandLocations({dir_.string()}, kIpc));
  EXPECT_ERROR(kInvalid, "matches no file", ExpandLocations({(dir_ / "*.arrow").string()}, kIpc));
  EXPECT_ERROR(kIOError, "no such file",
               ExpandLocations({(dir_ / "missing.arrow").string()}, kIpc));
  EXPECT_ERROR(kInvalid, "empty", ExpandLocations({}, kIpc));
}

TEST(RemoteLocationTest, UrlsAreRemote) {
  EXPECT_TRUE(IsRemoteLocation("http://127.0.0.1/x.arrow"));
  EXPECT_TRUE(IsRemoteLocation("https://example/x.arrow"));
  EXPECT_TRUE(IsRemoteLocation("s3://bucket/key.arrow"));
  EXPECT_FALSE(IsRemoteLocation("file:///tmp/x.arrow"));
  EXPECT_FALSE(IsRemoteLocation("data/x.arrow"));
}

}  // namespace
}  // namespace quiver::io
