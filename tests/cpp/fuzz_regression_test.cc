// Replays every file of every fuzz/corpus/<target>/ directory (seeds and
// every input that once crashed a fuzzer) through the function that
// target's libFuzzer executable calls, one test per file, so that `make test`
// (dev and ASan + UBSan) keeps every fixed crash fixed. A crashing file
// fails the test named after it, and its path is printed before it runs.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets.h"

namespace {

namespace fs = std::filesystem;

const fs::path kCorpusDir = QUIVER_FUZZ_CORPUS_DIR;

struct CorpusFile {
  const quiver::fuzz::Target* target;
  fs::path path;
  std::string test_name;
};

// gtest prints a parameter when listing tests: the path says it all.
void PrintTo(const CorpusFile& file, std::ostream* os) { *os << file.path; }

std::string TestName(std::string_view target, const std::string& file) {
  std::string name = std::string(target) + "_" + file;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::vector<CorpusFile> CorpusFiles() {
  std::vector<CorpusFile> files;
  std::set<std::string> names;
  for (const auto& target : quiver::fuzz::kTargets) {
    const fs::path dir = kCorpusDir / target.name;
    if (!fs::is_directory(dir)) continue;  // reported by EveryTargetHasACorpus
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
      std::string name = TestName(target.name, path.filename().string());
      while (!names.insert(name).second) name += "_";
      files.push_back({&target, path, name});
    }
  }
  return files;
}

std::vector<uint8_t> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(FuzzCorpus, EveryTargetHasACorpusAndEveryCorpusATarget) {
  std::set<std::string> targets;
  for (const auto& target : quiver::fuzz::kTargets) {
    targets.insert(target.name);
    const fs::path dir = kCorpusDir / target.name;
    ASSERT_TRUE(fs::is_directory(dir)) << "fuzz target " << target.name << " has no corpus " << dir;
    EXPECT_FALSE(fs::is_empty(dir)) << dir << " has no seed file";
  }
  for (const auto& entry : fs::directory_iterator(kCorpusDir)) {
    EXPECT_TRUE(targets.count(entry.path().filename().string()))
        << entry.path() << " is not the corpus of a target in fuzz/targets.txt";
  }
}

class FuzzCorpusReplay : public testing::TestWithParam<CorpusFile> {};

TEST_P(FuzzCorpusReplay, RunsCleanly) {
  const CorpusFile& file = GetParam();
  const std::vector<uint8_t> bytes = ReadFile(file.path);
  ASSERT_EQ(static_cast<uintmax_t>(bytes.size()), fs::file_size(file.path)) << file.path;
  // If the target aborts or a sanitizer stops the process, this line is
  // what names the input.
  std::fprintf(stderr, "replaying %s through %s\n", file.path.c_str(), file.target->name);
  std::fflush(stderr);
  // libFuzzer never passes NULL, not even for an empty input.
  static const uint8_t kEmpty = 0;
  const uint8_t* data = bytes.empty() ? &kEmpty : bytes.data();
  EXPECT_EQ(file.target->run(data, bytes.size()), 0) << file.path;
}

INSTANTIATE_TEST_SUITE_P(Corpus, FuzzCorpusReplay, testing::ValuesIn(CorpusFiles()),
                         [](const testing::TestParamInfo<CorpusFile>& info) {
                           return info.param.test_name;
                         });

}  // namespace
