// Replays every file of every fuzz/corpus/<target>/ directory through the
// function that target's libFuzzer executable calls, so that `make test`
// (dev, ASan + UBSan and TSan) keeps every fixed crash fixed. Named files
// (seeds, and every input that once crashed a fuzzer: crash-*) get a test
// each, named after the file; the minimized corpus a fuzzer found (files
// named by their SHA-1, 40 hex digits) is replayed in one test per target,
// which keeps thousands of inputs from becoming thousands of processes.
// Each file's path is printed before it runs.
#include <gtest/gtest.h>

#include <algorithm>
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

// One test's inputs: a named file, or a target's found corpus.
struct CorpusFile {
  const quiver::fuzz::Target* target;
  std::vector<fs::path> paths;
  std::string test_name;
};

// gtest prints a parameter when listing tests: the path says it all.
void PrintTo(const CorpusFile& file, std::ostream* os) {
  *os << (file.paths.size() == 1 ? file.paths[0] : file.paths[0].parent_path());
}

// libFuzzer names what it finds by the input's SHA-1.
bool FoundByAFuzzer(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name.size() != 40) return false;
  for (char c : name) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

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
    std::vector<fs::path> found;
    for (const auto& path : paths) {
      if (FoundByAFuzzer(path)) {
        found.push_back(path);
        continue;
      }
      std::string name = TestName(target.name, path.filename().string());
      while (!names.insert(name).second) name += "_";
      files.push_back({&target, {path}, name});
    }
    if (!found.empty()) {
      files.push_back({&target, std::move(found), TestName(target.name, "found_corpus")});
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
  for (const fs::path& path : file.paths) {
    const std::vector<uint8_t> bytes = ReadFile(path);
    ASSERT_EQ(static_cast<uintmax_t>(bytes.size()), fs::file_size(path)) << path;
    // If the target aborts or a sanitizer stops the process, this line is
    // what names the input (ctest shows it only when the test fails).
    std::fprintf(stderr, "replaying %s through %s\n", path.c_str(), file.target->name);
    std::fflush(stderr);
    // libFuzzer never passes NULL, not even for an empty input.
    static const uint8_t kEmpty = 0;
    const uint8_t* data = bytes.empty() ? &kEmpty : bytes.data();
    EXPECT_EQ(file.target->run(data, bytes.size()), 0) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, FuzzCorpusReplay, testing::ValuesIn(CorpusFiles()),
                         [](const testing::TestParamInfo<CorpusFile>& info) {
                           return info.param.test_name;
                         });

}  // namespace
