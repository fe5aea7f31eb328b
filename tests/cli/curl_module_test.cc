// tools/curl_module: the wheel's executable, in a scripts folder, finds the
// package's libquiver_curl.so in the first folder of the list that has it.
#include "curl_module.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;

struct TempFolder {
  TempFolder() {
    char name[] = "/tmp/quiver_curl_module_testXXXXXX";
    path = mkdtemp(name);
  }
  ~TempFolder() { fs::remove_all(path); }
  std::string path;
};

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "module";
}

TEST(CurlModule, CandidatesFollowTheListInOrder) {
  EXPECT_EQ(CurlModuleCandidates("/env/bin", "../lib/python3.11/site-packages::..:/abs"),
            (std::vector<std::string>{
                "/env/bin/../lib/python3.11/site-packages/quiver/libquiver_curl.so",
                "/env/bin/../quiver/libquiver_curl.so", "/abs/quiver/libquiver_curl.so"}));
  EXPECT_TRUE(CurlModuleCandidates("/env/bin", "").empty());
  EXPECT_TRUE(CurlModuleCandidates("", "../lib").empty());  // program folder unknown
}

TEST(CurlModule, TheFirstFolderHoldingTheModuleWins) {
  TempFolder root;
  const std::string bin = root.path + "/venv/bin";
  fs::create_directories(bin);
  const std::string list = "../lib/python3.11/dist-packages:../lib/python3.11/site-packages:..";
  EXPECT_EQ(FindCurlModule(bin, list), "");  // no package installed
  Touch(root.path + "/venv/lib/python3.11/site-packages/quiver/libquiver_curl.so");
  EXPECT_EQ(FindCurlModule(bin, list),
            bin + "/../lib/python3.11/site-packages/quiver/libquiver_curl.so");
  Touch(root.path + "/venv/lib/python3.11/dist-packages/quiver/libquiver_curl.so");
  EXPECT_EQ(FindCurlModule(bin, list),
            bin + "/../lib/python3.11/dist-packages/quiver/libquiver_curl.so");
}

TEST(CurlModule, TheProgramFolderIsThisTestsFolder) {
  const std::string folder = ProgramFolder();
  ASSERT_FALSE(folder.empty());
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_TRUE(fs::exists(fs::path(folder) / "quiver_tool_tests"));
}

}  // namespace
}  // namespace quiver::tools
