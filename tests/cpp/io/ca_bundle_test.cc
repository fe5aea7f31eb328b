// The certificates https requests trust: the caller's file, the
// environment's (in curl's order), libcurl's own where it exists, else the
// system's; a folder from the caller or SSL_CERT_DIR; a named file or
// folder that is not there is an error naming it and where it came from;
// relative paths are made absolute.
#include "quiver/io/ca_bundle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "test_util.h"

namespace quiver::io::internal {
namespace {

struct World {
  std::map<std::string, std::string> vars;
  std::set<std::string> files;
  std::set<std::string> folders;
  std::string libcurl_file;

  Result<CaBundle> Choose(const std::string& file, bool s3, const std::string& folder = "",
                          bool strict = true) const {
    PathKinds paths;
    paths.readable_file = [this](const std::string& path) { return files.count(path) > 0; };
    paths.directory = [this](const std::string& path) { return folders.count(path) > 0; };
    return ChooseCaBundle(
        file, folder, s3,
        [this](const char* name) -> const char* {
          auto it = vars.find(name);
          return it == vars.end() ? nullptr : it->second.c_str();
        },
        paths, libcurl_file, strict);
  }
};

TEST(CaBundleTest, TheOptionComesFirstThenTheEnvironmentInCurlsOrder) {
  World world;
  world.files = {"/opt/mine.pem", "/aws.pem", "/curl.pem", "/ssl.pem",
                 "/etc/pki/tls/certs/ca-bundle.crt"};
  world.vars = {{"AWS_CA_BUNDLE", "/aws.pem"},
                {"CURL_CA_BUNDLE", "/curl.pem"},
                {"SSL_CERT_FILE", "/ssl.pem"}};
  ASSERT_OK_AND_ASSIGN(CaBundle chosen, world.Choose("/opt/mine.pem", true));
  EXPECT_EQ(chosen.file, "/opt/mine.pem");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", true));
  EXPECT_EQ(chosen.file, "/aws.pem");
  // AWS_CA_BUNDLE is for S3 alone; CURL_CA_BUNDLE before SSL_CERT_FILE.
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "/curl.pem");
  world.vars.erase("CURL_CA_BUNDLE");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "/ssl.pem");
  // An empty variable counts as unset.
  world.vars["SSL_CERT_FILE"] = "";
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "/etc/pki/tls/certs/ca-bundle.crt");  // Fedora's, where Debian's is not
  EXPECT_EQ(chosen.directory, "");
}

TEST(CaBundleTest, LibcurlsOwnBundleWhereItExistsElseTheFirstSystemBundle) {
  World world;
  ASSERT_OK_AND_ASSIGN(CaBundle chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "");  // nothing there: libcurl's compiled-in default
  for (auto it = SystemCaBundles().rbegin(); it != SystemCaBundles().rend(); ++it) {
    world.files.insert(*it);
    ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
    EXPECT_EQ(chosen.file, *it);
  }
  EXPECT_EQ(chosen.file, "/etc/ssl/certs/ca-certificates.crt");
  // A libcurl built with a bundle that this system has (a distribution's
  // own, conda's) keeps it; one built elsewhere (the wheel's on Fedora)
  // gets the system's.
  world.libcurl_file = "/opt/conda/ssl/cacert.pem";
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "/etc/ssl/certs/ca-certificates.crt");
  world.files.insert("/opt/conda/ssl/cacert.pem");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "");
}

TEST(CaBundleTest, AFolderFromTheOptionOrSslCertDir) {
  World world;
  world.folders = {"/etc/my-certs", "/opt/certs", "/more-certs"};
  world.vars = {{"SSL_CERT_DIR", "/etc/my-certs"}};
  ASSERT_OK_AND_ASSIGN(CaBundle chosen, world.Choose("", false));
  EXPECT_EQ(chosen.directory, "/etc/my-certs");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false, "/opt/certs"));
  EXPECT_EQ(chosen.directory, "/opt/certs");
  // Folders separated by ':', as OpenSSL reads them.
  world.vars["SSL_CERT_DIR"] = "/etc/my-certs:/more-certs";
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.directory, "/etc/my-certs:/more-certs");
  // As the curl command: CURL_CA_BUNDLE set, SSL_CERT_DIR is not read.
  world.files = {"/curl.pem"};
  world.vars["CURL_CA_BUNDLE"] = "/curl.pem";
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.file, "/curl.pem");
  EXPECT_EQ(chosen.directory, "");
  auto missing = world.Choose("", false, "/nowhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "the CA directory '/nowhere' (from ca_directory) is not a folder");
  world.vars = {{"SSL_CERT_DIR", "/etc/my-certs:/gone"}};
  missing = world.Choose("", false);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "the CA directory '/etc/my-certs:/gone' (from SSL_CERT_DIR) is not a folder");
}

TEST(CaBundleTest, NotStrictAMissingNameIsPassedOverForTheNext) {
  // A plain http URL (which may redirect to https): a stale variable or
  // option does not fail it; the next name, or the system's bundle, serves.
  World world;
  world.files = {"/ssl.pem", "/etc/ssl/cert.pem"};
  world.vars = {{"CURL_CA_BUNDLE", "/gone.pem"}, {"SSL_CERT_FILE", "/ssl.pem"}};
  ASSERT_OK_AND_ASSIGN(CaBundle chosen, world.Choose("/also-gone.pem", false, "/no-dir", false));
  EXPECT_EQ(chosen.file, "/ssl.pem");
  EXPECT_EQ(chosen.directory, "");
  world.vars.erase("SSL_CERT_FILE");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false, "", false));
  EXPECT_EQ(chosen.file, "/etc/ssl/cert.pem");
  EXPECT_FALSE(world.Choose("", false, "", true).ok());  // strict: CURL_CA_BUNDLE's is gone
}

TEST(CaBundleTest, ANamedFileThatCannotBeReadIsAnErrorNamingIt) {
  World world;
  world.files = {"/etc/ssl/certs/ca-certificates.crt"};
  auto chosen = world.Choose("/nowhere/ca.pem", false);
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(chosen.status().message(),
            "the CA bundle '/nowhere/ca.pem' (from ca_bundle) is not a file that can be read");
  // A variable's missing file is not passed over for the system's.
  world.vars = {{"SSL_CERT_FILE", "/gone.pem"}};
  chosen = world.Choose("", false);
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.status().message(),
            "the CA bundle '/gone.pem' (from SSL_CERT_FILE) is not a file that can be read");
}

TEST(CaBundleTest, TheProcessFileSystemRefusesADirectoryAndMakesPathsAbsolute) {
  auto chosen = CaBundleFor("/", "", false, "", true);
  ASSERT_FALSE(chosen.ok());
  EXPECT_NE(chosen.status().message().find("'/' (from ca_bundle)"), std::string::npos);
  const std::string name = "ca_bundle_test_relative.pem";
  { std::ofstream(name) << "not checked here\n"; }
  auto relative = CaBundleFor(name, ".", false, "", true);
  std::filesystem::remove(name);
  ASSERT_OK(relative.status());
  EXPECT_EQ(relative->file, (std::filesystem::current_path() / name).string());
  EXPECT_EQ(relative->directory, (std::filesystem::current_path() / ".").string());
}

}  // namespace
}  // namespace quiver::io::internal
