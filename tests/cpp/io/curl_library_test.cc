// libcurl opened on first use: every function quiver calls is found, the
// library is opened once, and CurlVersion reports the library opened (a
// build without libcurl's headers reports none and reads no URL).
#include "quiver/build_info.h"
#include "quiver/io.h"

#ifdef QUIVER_HAVE_CURL
#include "quiver/io/curl_library.h"
#endif

#include <gtest/gtest.h>

#include "test_util.h"

namespace quiver::io {
namespace {

#ifdef QUIVER_HAVE_CURL

TEST(CurlLibrary, EveryFunctionIsFoundAndTheLibraryOpensOnce) {
  ASSERT_OK_AND_ASSIGN(const internal::CurlLibrary* curl, internal::Curl());
  EXPECT_NE(curl->easy_init, nullptr);
  EXPECT_NE(curl->easy_setopt, nullptr);
  EXPECT_NE(curl->share_setopt, nullptr);
  EXPECT_NE(curl->version_info, nullptr);
  ASSERT_OK_AND_ASSIGN(const internal::CurlLibrary* again, internal::Curl());
  EXPECT_EQ(curl, again);
  const curl_version_info_data* info = curl->version_info(CURLVERSION_NOW);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(CurlVersion(), info->version);
  EXPECT_TRUE(RemoteAvailable());
  // A handle made and released through the pointers works as libcurl's.
  CURL* easy = curl->easy_init();
  ASSERT_NE(easy, nullptr);
  EXPECT_EQ(curl->easy_setopt(easy, CURLOPT_URL, "http://127.0.0.1:1/"), CURLE_OK);
  curl->easy_cleanup(easy);
}

TEST(CurlLibrary, AModuleNamedAfterTheFirstUseChangesNothing) {
  ASSERT_OK_AND_ASSIGN(const internal::CurlLibrary* before, internal::Curl());
  SetCurlModule("/nonexistent/libquiver_curl.so");
  ASSERT_OK_AND_ASSIGN(const internal::CurlLibrary* after, internal::Curl());
  EXPECT_EQ(before, after);
}

#else

TEST(CurlLibrary, ABuildWithoutLibcurlReportsNone) {
  EXPECT_EQ(CurlVersion(), "");
  EXPECT_FALSE(RemoteAvailable());
  SetCurlModule("/anything");  // no effect, no error
}

#endif

}  // namespace
}  // namespace quiver::io
