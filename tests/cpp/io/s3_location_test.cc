// s3:// URLs to HTTP URLs: settings from the environment, addressing
// styles, key and query encoding.
#include "quiver/io/s3_location.h"

#include <gtest/gtest.h>

#include <map>

#include "test_util.h"

namespace quiver::io::internal {
namespace {

Result<S3Settings> From(std::map<std::string, std::string> vars) {
  return S3SettingsFrom([vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(S3LocationTest, DefaultsAndEnvironment) {
  ASSERT_OK_AND_ASSIGN(S3Settings s, From({}));
  EXPECT_EQ(s.region, "us-east-1");
  EXPECT_EQ(s.endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_FALSE(s.custom_endpoint);
  EXPECT_TRUE(s.access_key.empty());
  ASSERT_OK_AND_ASSIGN(s, From({{"AWS_DEFAULT_REGION", "eu-west-2"},
                                {"AWS_ENDPOINT_URL", "http://other:1"},
                                {"AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000/"},
                                {"AWS_ACCESS_KEY_ID", "AK"},
                                {"AWS_SECRET_ACCESS_KEY", "SK"},
                                {"AWS_SESSION_TOKEN", "TOK"}}));
  EXPECT_EQ(s.region, "eu-west-2");
  EXPECT_EQ(s.endpoint, "http://127.0.0.1:9000");  // the S3 one wins, slash dropped
  EXPECT_TRUE(s.custom_endpoint);
  EXPECT_EQ(s.session_token, "TOK");
  ASSERT_OK_AND_ASSIGN(s, From({{"AWS_REGION", "ap-south-1"}, {"AWS_DEFAULT_REGION", "x"}}));
  EXPECT_EQ(s.region, "ap-south-1");
  // AWS_ENDPOINT_URL alone serves S3 too.
  ASSERT_OK_AND_ASSIGN(s, From({{"AWS_ENDPOINT_URL", "https://minio.example:9000"}}));
  EXPECT_EQ(s.endpoint, "https://minio.example:9000");
  EXPECT_TRUE(s.custom_endpoint);
}

TEST(S3LocationTest, RefusesBadSettings) {
  EXPECT_ERROR(kInvalid, "QUIVER_S3_ADDRESSING", From({{"QUIVER_S3_ADDRESSING", "dns"}}));
  EXPECT_ERROR(kInvalid, "not http(s)://host", From({{"AWS_ENDPOINT_URL_S3", "ftp://x"}}));
  EXPECT_ERROR(kInvalid, "not http(s)://host", From({{"AWS_ENDPOINT_URL_S3", "http://h/p"}}));
  EXPECT_ERROR(kInvalid, "set together", From({{"AWS_ACCESS_KEY_ID", "AK"}}));
}

TEST(S3LocationTest, ParsesUrls) {
  ASSERT_OK_AND_ASSIGN(S3Object o, ParseS3Url("s3://bucket/a/b c.arrow"));
  EXPECT_EQ(o.bucket, "bucket");
  EXPECT_EQ(o.key, "a/b c.arrow");
  ASSERT_OK_AND_ASSIGN(o, ParseS3Url("s3://bucket"));
  EXPECT_EQ(o.key, "");
  EXPECT_ERROR(kInvalid, "names no bucket", ParseS3Url("s3:///key"));
  EXPECT_ERROR(kInvalid, "no s3:// URL", ParseS3Url("http://x/y"));
}

TEST(S3LocationTest, EncodesPerSegment) {
  EXPECT_EQ(UriEncode("a/b c+d~e_f.g-h", true), "a/b%20c%2Bd~e_f.g-h");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xc3\xa9=&?%", true), "%C3%A9%3D%26%3F%25");
}

TEST(S3LocationTest, AddressingStyles) {
  ASSERT_OK_AND_ASSIGN(S3Settings aws, From({{"AWS_REGION", "eu-west-1"}}));
  EXPECT_EQ(S3ObjectUrl(aws, {"bucket", "dir/x y.arrow"}),
            "https://bucket.s3.eu-west-1.amazonaws.com/dir/x%20y.arrow");
  // Dots in the bucket would break the wildcard certificate: path style.
  EXPECT_EQ(S3ObjectUrl(aws, {"my.bucket", "k"}), "https://s3.eu-west-1.amazonaws.com/my.bucket/k");
  ASSERT_OK_AND_ASSIGN(S3Settings local, From({{"AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000"}}));
  EXPECT_EQ(S3ObjectUrl(local, {"bucket", "k"}), "http://127.0.0.1:9000/bucket/k");
  ASSERT_OK_AND_ASSIGN(S3Settings forced, From({{"AWS_ENDPOINT_URL_S3", "https://minio.lan:9000"},
                                                {"QUIVER_S3_ADDRESSING", "virtual"}}));
  EXPECT_EQ(S3ObjectUrl(forced, {"bucket", "k"}), "https://bucket.minio.lan:9000/k");
  ASSERT_OK_AND_ASSIGN(S3Settings path, From({{"QUIVER_S3_ADDRESSING", "path"}}));
  EXPECT_EQ(S3ObjectUrl(path, {"bucket", "k"}), "https://s3.us-east-1.amazonaws.com/bucket/k");
}

TEST(S3LocationTest, ListUrlsSortAndEncodeTheQuery) {
  ASSERT_OK_AND_ASSIGN(S3Settings local, From({{"AWS_ENDPOINT_URL_S3", "http://h:1"}}));
  EXPECT_EQ(S3ListUrl(local, "b", "data/run 1/", ""),
            "http://h:1/b/?list-type=2&prefix=data%2Frun%201%2F");
  EXPECT_EQ(S3ListUrl(local, "b", "p/", "1/a+b="),
            "http://h:1/b/?continuation-token=1%2Fa%2Bb%3D&list-type=2&prefix=p%2F");
  ASSERT_OK_AND_ASSIGN(S3Settings aws, From({}));
  EXPECT_EQ(S3ListUrl(aws, "b", "", ""),
            "https://b.s3.us-east-1.amazonaws.com/?list-type=2&prefix=");
}

}  // namespace
}  // namespace quiver::io::internal
