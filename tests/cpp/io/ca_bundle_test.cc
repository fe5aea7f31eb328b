// The certificates https requests trust: the caller's file, the
// environment's, the system's, in that order; a named file that cannot be
// read is an error naming it and where it came from.
#include "quiver/io/ca_bundle.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "test_util.h"

namespace quiver::io::internal {
namespace {

struct World {
  std::map<std::string, std::string> vars;
  std::set<std::string> files;

  Result<CaBundle> Choose(const std::string& option, bool s3) const {
    return ChooseCaBundle(
        option, s3,
        [this](const char* name) -> const char* {
          auto it = vars.find(name);
          return it == vars.end() ? nullptr : it->second.c_str();
        },
        [this](const std::string& path) { return files.count(path) > 0; });
  }
};

TEST(CaBundleTest, TheOptionComesFirstThenTheEnvironmentThenTheSystem) {
  World world;
  world.files = {"/opt/mine.pem", "/aws.pem", "/ssl.pem", "/curl.pem",
                 "/etc/pki/tls/certs/ca-bundle.crt"};
  world.vars = {{"AWS_CA_BUNDLE", "/aws.pem"},
                {"SSL_CERT_FILE", "/ssl.pem"},
                {"CURL_CA_BUNDLE", "/curl.pem"}};
  ASSERT_OK_AND_ASSIGN(CaBundle chosen, world.Choose("/opt/mine.pem", true));
  EXPECT_EQ(chosen.path, "/opt/mine.pem");
  EXPECT_EQ(chosen.origin, "ca_bundle");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", true));
  EXPECT_EQ(chosen.path, "/aws.pem");
  // AWS_CA_BUNDLE is for S3 alone.
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.path, "/ssl.pem");
  EXPECT_EQ(chosen.origin, "SSL_CERT_FILE");
  world.vars.erase("SSL_CERT_FILE");
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.path, "/curl.pem");
  // An empty variable counts as unset.
  world.vars["CURL_CA_BUNDLE"] = "";
  ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
  EXPECT_EQ(chosen.path, "/etc/pki/tls/certs/ca-bundle.crt");  // Fedora's, where Debian's is not
  EXPECT_EQ(chosen.origin, "the system");
}

TEST(CaBundleTest, TheFirstSystemBundleThatExistsElseLibcurlsDefault) {
  World world;
  ASSERT_OK_AND_ASSIGN(CaBundle chosen, world.Choose("", false));
  EXPECT_EQ(chosen.path, "");  // none: libcurl's compiled-in default
  for (auto it = SystemCaBundles().rbegin(); it != SystemCaBundles().rend(); ++it) {
    world.files.insert(*it);
    ASSERT_OK_AND_ASSIGN(chosen, world.Choose("", false));
    EXPECT_EQ(chosen.path, *it);
  }
  EXPECT_EQ(chosen.path, "/etc/ssl/certs/ca-certificates.crt");
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

TEST(CaBundleTest, TheProcessFileSystemRefusesADirectory) {
  auto chosen = CaBundleFor("/", false);
  ASSERT_FALSE(chosen.ok());
  EXPECT_NE(chosen.status().message().find("'/' (from ca_bundle)"), std::string::npos);
}

}  // namespace
}  // namespace quiver::io::internal
