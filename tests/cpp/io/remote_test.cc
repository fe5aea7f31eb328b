// Remote sources: a build without libcurl refuses URLs with an error that
// says how to get them; the server tests run from the Python suite.
#include <gtest/gtest.h>

#include "quiver/io.h"
#include "test_util.h"

namespace quiver::io {
namespace {

TEST(RemoteTest, UnbuiltRemoteSaysHowToGetIt) {
  if (RemoteAvailable()) GTEST_SKIP() << "this build reads remote data";
  EXPECT_ERROR(kNotImplemented, "libcurl", OpenSource("http://127.0.0.1:1/x.arrow"));
  EXPECT_ERROR(kNotImplemented, "libcurl", ExpandLocations({"s3://bucket/prefix/"}, {".arrow"}));
}

}  // namespace
}  // namespace quiver::io
